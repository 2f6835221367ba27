// What the browser scripts share: headless Chromium (Debian's, or $SEIHON_CHROMIUM) with one
// page 900 × 700, whose script errors are printed, and how long a step may take.
import { chromium } from "playwright-core";

export const STEP = 60_000; // a loaded two-core machine: builds and page loads can be slow

export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.SEIHON_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    // Root in a container has no user namespaces for Chromium's sandbox.
    args: ["--no-sandbox"],
  });
  const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  return { browser, page };
}
