// Acceptance test of `seihon watch` in a real browser (run by tests/browser.rs):
//   node tests/browser/preview.mjs <chapter page URL> <chapter source file> <screenshots dir>
// Opens the chapter in headless Chromium, then, never reloading by hand:
//   1. appends a paragraph to the source and waits for it to appear in the page;
//   2. writes an undefined footnote and waits for the overlay naming ch01.md:<line>;
//   3. fixes it and waits for the overlay to go and the text to come back.
// A screenshot after each step. Exits non-zero with a message when a step fails.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch, STEP } from "./launch.mjs";

const [url, source, shots] = process.argv.slice(2);
if (!url || !source || !shots) {
  console.error("usage: node preview.mjs <chapter page URL> <chapter source file> <screenshots dir>");
  process.exit(2);
}
const original = readFileSync(source, "utf8");
mkdirSync(shots, { recursive: true });

const { browser, page } = await launch();
let failed = false;
try {
  // Counts navigations after the first load: each is a reload the page did by itself.
  let reloads = -1;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) reloads += 1;
  });
  await page.goto(url, { waitUntil: "load", timeout: STEP });
  const overlay = page.locator("#seihon-overlay");

  // 1. An edit shows up without a manual reload.
  const marker = `ライブプレビューの確認 ${Date.now()}`;
  const edited = `${original}\n${marker}\n`;
  writeFileSync(source, edited);
  await page.getByText(marker).waitFor({ state: "visible", timeout: STEP });
  if (reloads < 1) throw new Error("the new text appeared without the page reloading itself");
  await page.screenshot({ path: join(shots, "1-edited.png"), fullPage: true });
  console.log(`edited: the new paragraph appeared after ${reloads} reload(s)`);

  // 2. A syntax error shows in the page with its file and line.
  // Quotes nested past the bound: an error no reader renders around.
  const broken = `${edited}\n${"> ".repeat(101)}壊れた引用です。\n`;
  const line = broken.split("\n").findIndex((l) => l.includes("壊れた引用")) + 1;
  writeFileSync(source, broken);
  const where = `ch01.md:${line}:`;
  await overlay.filter({ hasText: where }).waitFor({ state: "visible", timeout: STEP });
  const said = await overlay.innerText();
  if (!said.includes("levels deep")) throw new Error(`the overlay does not say what is wrong: ${said}`);
  // The last good book is still shown under the overlay.
  await page.getByText(marker).waitFor({ state: "visible", timeout: STEP });
  await page.screenshot({ path: join(shots, "2-error.png"), fullPage: false });
  console.log(`error: the overlay says ${JSON.stringify(said.split("\n").find((l) => l.includes(where)))}`);

  // 3. The fix removes the overlay and the page is back.
  writeFileSync(source, edited);
  await overlay.waitFor({ state: "detached", timeout: STEP });
  await page.getByText(marker).waitFor({ state: "visible", timeout: STEP });
  if ((await page.getByText("壊れた引用").count()) !== 0) throw new Error("the broken text is still shown");
  await page.screenshot({ path: join(shots, "3-fixed.png"), fullPage: true });
  console.log(`fixed: the overlay is gone after ${reloads} reload(s) in all`);
} catch (e) {
  failed = true;
  console.error(`preview test failed: ${e.message}`);
  await page.screenshot({ path: join(shots, "failure.png") }).catch(() => {});
} finally {
  writeFileSync(source, original);
  await browser.close();
}
process.exit(failed ? 1 : 0);
