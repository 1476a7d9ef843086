// Takes a viewer screenshot (docs/viewer.md, "Screenshot") in headless Chromium, after `seconds`;
// OUT.jpg is written as a JPEG of quality 80, OUT.png as a PNG.
//   CONTACTSIM_WEB_DIR=clients/web CONTACTSIM_CHROMIUM=/usr/bin/chromium \
//     node tests/web/screenshot.mjs VIEWER_URL OUT.png [seconds] [WIDTHxHEIGHT]
import { launchBrowser, sleep } from './web_harness.mjs';

const [url, out, seconds = '4', size = '960x540'] = process.argv.slice(2);
const [width, height] = size.split('x').map(Number);
const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width, height }, bypassCSP: true });
await page.goto(url);
await page.waitForFunction(() => window.__viewer.frames > 0, null, { timeout: 15000 });
await sleep(1000 * Number(seconds));
await page.screenshot(/\.jpe?g$/.test(out) ? { path: out, type: 'jpeg', quality: 80 } : { path: out });
console.log(JSON.stringify(await page.evaluate(() => window.__viewer)));
await browser.close();
