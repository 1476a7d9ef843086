// Takes a viewer screenshot (docs/viewer.md, "Screenshot") in headless Chromium, after `seconds`.
//   CONTACTSIM_WEB_DIR=clients/web CONTACTSIM_CHROMIUM=/usr/bin/chromium \
//     node tests/web/screenshot.mjs VIEWER_URL OUT.png [seconds]
import { launchBrowser, sleep } from './web_harness.mjs';

const [url, out, seconds = '4'] = process.argv.slice(2);
const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 960, height: 540 }, bypassCSP: true });
await page.goto(url);
await page.waitForFunction(() => window.__viewer.frames > 0, null, { timeout: 15000 });
await sleep(1000 * Number(seconds));
await page.screenshot({ path: out });
console.log(JSON.stringify(await page.evaluate(() => window.__viewer)));
await browser.close();
