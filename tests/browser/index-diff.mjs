// The preview index's word-level changes in a real browser (run by tests/browser.rs):
//   node tests/browser/index-diff.mjs <index.html path> <page title> <removed> <added> <screenshots dir>
// Opens the index from disk in headless Chromium and checks that the changed page's title links
// to it and that the removed and added words are shown, struck through and underlined. Takes a
// screenshot, 4-index-diff.png. Exits non-zero with a message when a check fails.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { launch, STEP } from "./launch.mjs";

const [index, title, removed, added, shots] = process.argv.slice(2);
if (!index || !title || !removed || !added || !shots) {
  console.error("usage: node index-diff.mjs <index.html> <page title> <removed> <added> <screenshots dir>");
  process.exit(2);
}
mkdirSync(shots, { recursive: true });

const { browser, page } = await launch();
let failed = false;
try {
  await page.goto(pathToFileURL(index).href, { waitUntil: "load", timeout: STEP });
  const article = page.locator("article.page-diff").filter({ hasText: title });
  const link = article.getByRole("link", { name: title });
  await link.waitFor({ state: "visible", timeout: STEP });
  const href = await link.getAttribute("href");
  if (!href?.startsWith("book/")) throw new Error(`the title links to ${href}, not a page of book/`);

  // Each mark: visible, with the words, and styled so that it reads as removed or added.
  for (const [tag, words, line] of [["del", removed, "line-through"], ["ins", added, "underline"]]) {
    const mark = article.locator(tag).filter({ hasText: words });
    await mark.first().waitFor({ state: "visible", timeout: STEP });
    const style = await mark.first().evaluate((e) => {
      const s = getComputedStyle(e);
      return { line: s.textDecorationLine, color: s.color, background: s.backgroundColor };
    });
    if (!style.line.includes(line)) throw new Error(`<${tag}> is not ${line}: ${JSON.stringify(style)}`);
    if (style.color === style.background) throw new Error(`<${tag}> is unreadable: ${JSON.stringify(style)}`);
    console.log(`<${tag}>${words}</${tag}>: ${JSON.stringify(style)}`);
  }
  await article.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "4-index-diff.png"), fullPage: true });
} catch (e) {
  failed = true;
  console.error(`index diff test failed: ${e.message}`);
  await page.screenshot({ path: join(shots, "failure.png") }).catch(() => {});
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
