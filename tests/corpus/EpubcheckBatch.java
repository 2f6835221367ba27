// Runs epubcheck on one EPUB after another in one JVM: a cold JVM spends most of a check
// warming up (about 9 s for a 1 MB book, against under 1 s once warm). Each line of standard
// input is `<epub>\t<json report>`; after each check a line `\u0001done <exit code>` is printed.
// Launched as `java -cp epubcheck.jar EpubcheckBatch.java` (the JDK's source launcher).
import com.adobe.epubcheck.tool.EpubChecker;
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class EpubcheckBatch {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split("\t", 2);
            int code;
            try {
                code = new EpubChecker().run(new String[] {parts[0], "--json", parts[1], "-q"});
            } catch (Exception e) {
                System.err.println(e);
                code = -1;
            }
            System.out.println("\u0001done " + code);
            System.out.flush();
        }
    }
}
