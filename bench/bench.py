#!/usr/bin/env python3
"""Builds the same books with seihon, pandoc, dbtoepub and `zip -r`, and prints the figures.

Run through `bash bench/run` (which installs the tools and builds seihon). Each figure is the
median wall time of several runs and the peak resident memory of the slowest-memory run; ratios
compare against seihon's cold build of the same book. Results also go to
target/bench/results.json.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEIHON = ROOT / "target/release/seihon"
SYNTH = ROOT / "target/release/examples/synth"
WORK = ROOT / "target/bench"

# A slow tool is run once when its first run takes longer than this (seconds).
SLOW = 20.0
# A run is stopped after this long (seconds); its time then stands as a lower bound.
LIMIT = 600


def measure(cmd, cwd, env=None, before=None, log=None):
    """One run: (seconds, peak KiB, exit code)."""
    if before:
        before()
    out = open(log, "ab") if log else subprocess.DEVNULL
    peak_file = WORK / ".peak"
    # GNU time reports the peak of the command itself (and of the children it waited for);
    # Python's own wait4 figure would include the forked interpreter before exec.
    # A blocking wait, with a timer for the limit: `subprocess.run(timeout=…)` polls, and its
    # polling (up to 50 ms apart) was part of every figure.
    start = time.perf_counter()
    # In a session of its own, so that stopping it at the limit stops what it started too:
    # dbtoepub's xsltproc, left running, once took a core from every figure after it.
    proc = subprocess.Popen(
        ["/usr/bin/time", "-f", "%M", "-o", str(peak_file)] + cmd,
        cwd=cwd, env=env, stdout=out, stderr=out, start_new_session=True,
    )
    stopped = []

    def stop():
        stopped.append(True)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(LIMIT, stop)
    timer.start()
    try:
        code = proc.wait()
    except BaseException:
        # Interrupted (Ctrl-C reaches only this process now): the run goes with it.
        stop()
        raise
    seconds = time.perf_counter() - start
    timer.cancel()
    if stopped:
        # Stopped at the limit: the time is a lower bound (the ratio too).
        code = "timeout"
    if log:
        out.close()
    lines = peak_file.read_text().split() if peak_file.exists() else []
    peak = int(lines[-1]) if lines and lines[-1].isdigit() else 0
    return seconds, peak, code


def series(name, cmd, cwd, runs, env=None, before=None, log=None):
    times, peaks, codes = [], [], []
    for i in range(runs):
        t, peak, code = measure(cmd, cwd, env, before, log)
        times.append(t)
        peaks.append(peak)
        codes.append(code)
        if i == 0 and t > SLOW:
            break
    failed = [c for c in codes if c != 0]
    result = {
        "tool": name,
        "median_s": statistics.median(times),
        "peak_mib": max(peaks) / 1024,
        "runs": len(times),
        "exit": failed[0] if failed else 0,
    }
    print(
        f"    {name:<26} {fmt_s(result['median_s'])}  {result['peak_mib']:7.1f} MiB"
        f"  ({result['runs']} run{'s' if result['runs'] > 1 else ''}"
        f"{'' if result['exit'] == 0 else ', exit ' + str(result['exit'])})",
        flush=True,
    )
    return result


def fmt_s(s):
    return f"{s * 1000:8.1f} ms" if s < 1 else f"{s:8.2f} s "


def rm(*paths):
    for p in paths:
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()


def tree_size(path):
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def lines_of(path, exts):
    n = 0
    for f in path.rglob("*"):
        if f.is_file() and f.suffix in exts:
            with open(f, "rb") as fh:
                n += sum(1 for _ in fh)
    return n


class Book:
    """A book in its own project folder under target/bench."""

    def __init__(self, name, fmt, project, target, book_dir, main=None):
        self.name, self.fmt, self.project = name, fmt, project
        self.target = target  # what `seihon build` is given
        self.book_dir = book_dir  # the folder holding the sources
        self.main = main  # DocBook main file
        self.chapters_listed_in = None  # catalog.yml / book.yml: a file naming the chapters

    def stage(self):
        """The staged tree seihon left under build/ (the folder holding a `mimetype`)."""
        found = [d for d in (self.project / "build").iterdir()
                 if d.is_dir() and (d / "mimetype").is_file()]
        return found[0] if len(found) == 1 else None

    def sources(self):
        exts = {"docbook": {".xml", ".docbook", ".ent"}, "review": {".re"}, "markdown": {".md", ".markdown"}}
        return exts[self.fmt]

    def clean(self):
        rm(self.project / "build", self.project / "dist", self.project / "public")

    def chapter_to_edit(self):
        """The largest source file that is a chapter (not the DocBook main file)."""
        files = [
            f
            for f in self.book_dir.rglob("*")
            if f.is_file() and f.suffix in self.sources() and f != self.main
        ]
        if self.fmt == "docbook":
            # A book in one file: its chapters are in the main file.
            files = [f for f in files + [self.main] * (not files)
                     if re.search(rb"</(chapter|sect1|section)>", f.read_bytes())]
        elif self.chapters_listed_in is not None:
            # Only a chapter the book reads: an edit to a file outside it would be no edit.
            listing = self.chapters_listed_in.read_text(errors="replace")
            files = [f for f in files if f.name in listing]
        return max(files, key=lambda f: f.stat().st_size) if files else None


def editor(book):
    """A `before` step that changes one chapter's text, differently each time."""
    path = book.chapter_to_edit()
    original = path.read_bytes()
    count = [0]

    def edit():
        count[0] += 1
        text = original
        if book.fmt == "docbook":
            m = list(re.finditer(rb"</(chapter|sect1|section)>", text))[-1]
            para = f"<para>Edit {count[0]}.</para>\n".encode()
            text = text[: m.start()] + para + text[m.start():]
        else:
            text = text + f"\n\nEdit {count[0]}.\n".encode()
        path.write_bytes(text)

    def restore():
        path.write_bytes(original)

    return path, edit, restore


def flatten(book):
    """The DocBook book as one file for pandoc (which reads neither external entities nor
    XInclude), made once with xmllint beside the main file; not timed."""
    flat = book.main.parent / ".bench-flat.xml"
    subprocess.run(
        ["xmllint", "--loaddtd", "--noent", "--xinclude", "--nonet", "--output", str(flat),
         str(book.main)],
        stderr=subprocess.DEVNULL,
    )
    return flat if flat.exists() else None


def bench_book(book, args, results):
    size = tree_size(book.book_dir)
    lines = lines_of(book.book_dir, book.sources())
    print(f"\n{book.name} ({book.fmt}, {size / 1e6:.1f} MB, {lines:,} lines)", flush=True)
    log = WORK / f"{book.name}.log"
    env = dict(os.environ)
    rows = {"book": book.name, "format": book.fmt, "bytes": size, "lines": lines, "tools": {},
            "corpus": book.corpus}
    seihon = [str(SEIHON), "build", book.target]
    r = rows["tools"]
    r["seihon"] = series("seihon build (cold)", seihon, book.project, args.runs, env, book.clean, log)
    r["seihon-nochange"] = series("seihon build (no change)", seihon, book.project, args.runs, env, None, log)
    if book.chapter_to_edit() is None:
        print("    (no chapter file found to edit: the one-chapter figure is the cold build's)")
        r["seihon-onechapter"] = r["seihon"]
    else:
        path, edit, restore = editor(book)
        r["seihon-onechapter"] = series(
            f"seihon build (1 chapter)", seihon, book.project, args.runs, env, edit, log
        )
        restore()
    measure(seihon, book.project, env, None, log)
    stage = book.stage()
    if stage is None:
        print("    (no staged tree under build/: the build failed, see the log)")
        results.append(rows)
        return rows
    floor = WORK / "floor.zip"
    r["zip"] = series(
        "zip -r (seihon's tree)",
        ["zip", "-q", "-X", "-r", str(floor), "."],
        stage,
        args.runs,
        env,
        lambda: rm(floor),
    )
    epubs = sorted((book.project / "dist").glob("*.epub"))
    if len(epubs) == 1:
        # What any rebuild that changes a page costs at least: the new EPUB is written whole
        # beside the last one and synced before it replaces it.
        copy = WORK / "copy.epub"
        r["copy"] = series(
            "cp + sync (seihon's EPUB)",
            ["sh", "-c", f"cp '{epubs[0]}' '{copy}' && sync '{copy}'"],
            book.project,
            args.runs,
            env,
            lambda: rm(copy),
        )
    if book.fmt == "docbook":
        flat = flatten(book)
        out = WORK / "pandoc.epub"
        if flat is None:
            print("    pandoc: skipped, xmllint could not flatten the book")
        else:
            r["pandoc"] = series(
                "pandoc -t epub3",
                ["pandoc", "-f", "docbook", "-t", "epub3", "-o", str(out), flat.name],
                book.main.parent,
                args.runs,
                env,
                lambda: rm(out),
                log,
            )
            rm(flat)
        # dbtoepub takes minutes a book: on the synthetic books and linux-ip only.
        if not args.no_dbtoepub and book.size_ok_for_dbtoepub and not (args.quick and book.corpus):
            out = WORK / "dbtoepub.epub"
            r["dbtoepub"] = series(
                "dbtoepub",
                ["dbtoepub", "-o", str(out), book.main.name],
                book.main.parent,
                args.runs,
                env,
                lambda: rm(out),
                log,
            )
    elif book.fmt == "markdown" and book.corpus:
        # Their chapters are in book.yml (in subfolders, in its order): pandoc given the
        # folder's *.md would build another book, and the ratio would mean nothing.
        print("    pandoc: not run (the chapter list is seihon's book.yml)")
    elif book.fmt == "markdown":
        out = WORK / "pandoc.epub"
        chapters = sorted(p.name for p in book.book_dir.glob("*.md"))
        r["pandoc"] = series(
            "pandoc -t epub3",
            ["pandoc", "-f", "markdown", "-t", "epub3", "--metadata", "title=Bench", "-o", str(out)]
            + chapters,
            book.book_dir,
            args.runs,
            env,
            lambda: rm(out),
            log,
        )
    cold = r["seihon"]["median_s"]
    for tool in ("pandoc", "dbtoepub"):
        if tool in r:
            print(f"    → seihon is {r[tool]['median_s'] / cold:6.1f}× faster than {tool}")
    print(f"    → seihon takes {cold / r['zip']['median_s']:6.2f}× the time of zip -r")
    print(f"    → one-chapter rebuild: {100 * r['seihon-onechapter']['median_s'] / cold:5.1f}% of a cold build")
    results.append(rows)
    return rows


def synth(fmt, chapters, lines, name):
    project = WORK / name
    book_dir = project / "books" / name
    subprocess.run([str(SYNTH), fmt, str(chapters), str(lines), str(book_dir)], check=True,
                   stdout=subprocess.DEVNULL)
    if fmt == "docbook":
        main = book_dir / "book.xml"
        book = Book(name, fmt, project, f"books/{name}/book.xml", book_dir, main)
    else:
        book = Book(name, fmt, project, name, book_dir)
    book.size_ok_for_dbtoepub = True
    book.corpus = False
    return book


def corpus_books(corpus):
    """Every book of the corpus manifest, as it says to build it."""
    manifest = json.loads((corpus / "manifest.json").read_text())
    return manifest["books"] if isinstance(manifest, dict) else manifest


def corpus_book(corpus, entry):
    """A corpus book copied into its own project, with the stand-ins its manifest entry asks
    for (a grey PNG for an image the corpus could not ship, as the corpus suite makes)."""
    name, fmt, build = entry["name"], entry["format"], entry["build"]
    parts = build.split("/")
    folder = "/".join(parts[:2])
    project = WORK / name
    shutil.copytree(corpus / folder, project / folder, symlinks=True)
    for stand_in in entry.get("stand_ins", []):
        path = project / folder / stand_in["path"]
        if not path.exists() and path.suffix == ".png":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(grey_png(600, 850))
    main = project / build if fmt == "docbook" else None
    book = Book(name, fmt, project, build, project / folder, main)
    listing = {"review": "catalog.yml", "markdown": "book.yml"}.get(fmt)
    if listing and (project / build / listing).is_file():
        book.chapters_listed_in = project / build / listing
    book.size_ok_for_dbtoepub = name == "linux-ip"
    book.corpus = True
    return book


def grey_png(width, height):
    import struct
    import zlib

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def least_book(args):
    """A cold build of a one-paragraph Markdown book, inside the same repository as the
    others: what any build costs whatever the book (starting, the generated cover, title page
    and colophon, packing, the preview). A cold-build target below it is out of reach."""
    project = WORK / "least-book"
    book_dir = project / "books" / "least"
    book_dir.mkdir(parents=True)
    (book_dir / "book.yml").write_text(
        "title: Least\nauthors: [A. Author]\nlanguage: en\nchapters: [one.md]\n")
    (book_dir / "one.md").write_text("# One\n\nA paragraph.\n")
    print("\nleast book (markdown, one paragraph)", flush=True)
    clean = lambda: rm(project / "build", project / "dist", project / "public")
    return series("seihon build (cold)", [str(SEIHON), "build", "least"], project, args.runs,
                  None, clean, WORK / "least-book.log")


def targets(results, least=None):
    """Issue 22's targets, each with the figure that decides it. `least`: the cold build of a
    one-paragraph book (see `least_book`)."""
    lines = []

    def check(ok, text):
        lines.append(f"  [{'met ' if ok else 'MISS'}] {text}")

    done = [r for r in results if "seihon" in r["tools"] and "zip" in r["tools"]]
    for r in done:
        t, name = r["tools"], r["book"]
        cold = t["seihon"]["median_s"]
        ratio = cold / t["zip"]["median_s"]
        if name.startswith("review-50x"):
            check(ratio <= 1.5, f"{name}: cold build {ratio:.2f}× the time of zip -r (target ≤ 1.5×)")
        elif r.get("corpus"):
            note = ""
            floor = least and least["median_s"] / t["zip"]["median_s"]
            if ratio > 3 and floor and floor > 3:
                note = f"; out of reach: a one-paragraph book takes {floor:.1f}× this zip -r"
            check(ratio <= 3, f"{name}: cold build {ratio:.2f}× the time of zip -r (target ≤ 3×{note})")
    for r in done:
        t, name = r["tools"], r["book"]
        if r["format"] == "docbook" and "pandoc" in t:
            ratio = t["pandoc"]["median_s"] / t["seihon"]["median_s"]
            note = "" if t["pandoc"]["exit"] == 0 else f"; pandoc failed (exit {t['pandoc']['exit']})"
            # A cold build packs at least what `zip -r` packs: pandoc's time over zip's is the
            # most any EPUB builder could reach on this book.
            best = t["pandoc"]["median_s"] / t["zip"]["median_s"]
            if ratio < 50 and best < 50:
                note += f"; out of reach: zip -r alone takes 1/{best:.0f} of pandoc's time"
            check(ratio >= 50, f"{name}: {ratio:.1f}× faster than pandoc (target ≥ 50×{note})")
    for r in done:
        t, name = r["tools"], r["book"]
        share = 100 * t["seihon-onechapter"]["median_s"] / t["seihon"]["median_s"]
        # Any rebuild starts the process and looks at every file, as a no-change build does,
        # and writes the new EPUB whole.
        least = 100 * t["seihon-nochange"]["median_s"] / t["seihon"]["median_s"]
        note = f"; out of reach: a no-change build takes {least:.0f}%" if share > 10 and least > 10 else ""
        if share > 10 and least <= 10 and "copy" in t:
            least += 100 * t["copy"]["median_s"] / t["seihon"]["median_s"]
            if least > 10:
                note = f"; out of reach: a no-change build and a copy of the EPUB take {least:.0f}%"
        check(share <= 10, f"{name}: one-chapter rebuild {share:.1f}% of a cold build (target ≤ 10%{note})")
    for r in done:
        t, name = r["tools"], r["book"]
        peak = max(t[k]["peak_mib"] for k in ("seihon", "seihon-nochange", "seihon-onechapter"))
        check(peak <= 60, f"{name}: peak memory {peak:.1f} MiB (target ≤ 60 MiB)")
    for r in done:
        t, name = r["tools"], r["book"]
        nochange = t["seihon-nochange"]["median_s"] * 1000
        check(nochange <= 50, f"{name}: rebuild with nothing changed {nochange:.1f} ms (target ≤ 50 ms)")
    failed = [r["book"] for r in results if r not in done]
    if failed:
        check(False, f"books that did not build: {', '.join(failed)}")
    met = sum(1 for l in lines if "[met ]" in l)
    lines.append(f"  {met} of {len(lines)} met")
    return lines


def results_fmt(results, name):
    return next(r["format"] for r in results if r["book"] == name)


def scaling(args, results):
    """No quadratic passes: time per thousand lines for many chapters and for one huge one."""
    print("\nscaling (seihon cold build, time per 1,000 source lines)")
    books = [("review", 50, 2000), ("markdown", 500, 100), ("review", 1, 50000)]
    if args.quick:
        books = [("review", 10, 2000), ("markdown", 100, 100), ("review", 1, 20000)]
    out = []
    for fmt, chapters, lines in books:
        name = f"scale-{fmt}-{chapters}x{lines}"
        book = synth(fmt, chapters, lines, name)
        n = lines_of(book.book_dir, book.sources())
        r = series(f"{chapters} × {lines} {fmt}", [str(SEIHON), "build", book.target], book.project,
                   args.runs, None, book.clean, WORK / f"{name}.log")
        per = 1000 * r["median_s"] / n * 1000
        print(f"      {per:6.2f} ms per 1,000 lines ({n:,} lines)")
        out.append({"book": name, "lines": n, **r, "ms_per_kline": per})
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5, help="runs per figure (median); default 5")
    p.add_argument("--quick", action="store_true", help="smaller synthetic books")
    p.add_argument("--no-dbtoepub", action="store_true", help="skip dbtoepub (minutes per book)")
    p.add_argument("--only", help="only the books whose name contains this")
    p.add_argument("--corpus", choices=["review", "docbook", "markdown"],
                   help="only the corpus books of this format")
    args = p.parse_args()
    corpus = Path(os.environ.get("SEIHON_CORPUS", ROOT.parent / "shared/corpus"))
    if not (corpus / "docbook").is_dir():
        sys.exit(f"bench: no corpus at {corpus} (set SEIHON_CORPUS)")
    rm(WORK)
    WORK.mkdir(parents=True)
    print(f"seihon {subprocess.run([str(SEIHON), '--version'], capture_output=True, text=True).stdout.strip()}"
          f", {os.cpu_count()} cores; median of {args.runs} runs")
    for tool in (["pandoc", "--version"], ["xsltproc", "--version"], ["zip", "-v"]):
        first = subprocess.run(tool, capture_output=True, text=True).stdout.splitlines()[:2]
        print("  " + " ".join(first[:1] if tool[0] != "zip" else first[1:2]).strip())
    books = []
    for entry in corpus_books(corpus):
        if args.corpus is not None and entry["format"] != args.corpus:
            continue
        if not args.only or args.only in entry["name"]:
            books.append(lambda e=entry: corpus_book(corpus, e))
    db = (5, 3000) if args.quick else (25, 3000)
    rv = (10, 2000) if args.quick else (50, 2000)
    md = (10, 2000) if args.quick else (50, 2000)
    synthetic = [("docbook", *db), ("review", *rv), ("markdown", *md)]
    for fmt, chapters, lines in synthetic:
        name = f"{fmt}-{chapters}x{lines}"
        if args.corpus is None and (not args.only or args.only in name):
            books.append(lambda f=fmt, c=chapters, n=lines, m=name: synth(f, c, n, m))
    results = []
    least = least_book(args) if books else None
    for make in books:
        bench_book(make(), args, results)
    scale = [] if args.only or args.corpus else scaling(args, results)
    print("\ntargets")
    for line in targets(results, least):
        print(line)
    (WORK / "results.json").write_text(
        json.dumps({"books": results, "scaling": scale, "least_book": least}, indent=2))
    print(f"\nresults: {WORK / 'results.json'}")


if __name__ == "__main__":
    main()
