// The viewer in headless Firefox (Debian's firefox-esr, WebDriver BiDi through playwright-core,
// a private Xvfb display for its WebGL: see firefox.mjs) against the harness's push_box scene:
// frames arrive, the WebGL canvas changes, a wrong token is refused on the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startHarness, sleep, waitFor, viewerStats } from './web_harness.mjs';
import { launchFirefox, startXvfb } from './firefox.mjs';

let harness;
let xvfb;
let browser;

before(async () => {
  harness = await startHarness(join(process.env.CONTACTSIM_SCENES_DIR, 'push_box.textproto'),
    ['--push-force-n', '6', '--step-sleep-us', '200']);
  xvfb = await startXvfb();
  browser = await launchFirefox(xvfb.display);
});

after(async () => {
  await browser?.close();
  await xvfb?.stop();
  await harness?.stop();
});

async function openViewer(url) {
  const page = await browser.newPage({ viewport: { width: 480, height: 320 } });
  await page.goto(url);
  return page;
}

// A 96 x 64 thumbnail of the WebGL canvas (RGBA bytes). (Not page.screenshot: playwright-core
// 1.49.1's BiDi driver sends a JPEG quality of 80 where BiDi wants 0..1, and Firefox refuses it.)
function thumbnail(page) {
  return page.evaluate(() => {
    const small = document.createElement('canvas');
    small.width = 96;
    small.height = 64;
    const g = small.getContext('2d');
    g.drawImage(document.getElementById('scene'), 0, 0, 96, 64);
    return Array.from(g.getImageData(0, 0, 96, 64).data);
  });
}

// Pixels whose colour moved by more than 24 (of 3 x 255): a moving box, not rounding.
function differingPixels(a, b) {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 24) ++n;
  }
  return n;
}

test('Firefox: frames arrive, seq increases, the WebGL canvas changes', async () => {
  const page = await openViewer(harness.viewerUrl());
  const version = browser.version();
  await waitFor(page, () => window.__viewer.frames >= 5);
  const s0 = await viewerStats(page);
  assert.equal(s0.webglError, '', `Firefox ${version} gave the page no WebGL`);
  assert.equal(s0.state, 'ACTIVE');
  assert.equal(s0.planes, 1, 'push_box has one ground plane, sent in the topology');
  await sleep(1000);
  const s1 = await viewerStats(page);
  assert.ok(s1.lastSeq > s0.lastSeq, `seq ${s0.lastSeq} -> ${s1.lastSeq}`);
  assert.ok(s1.renders > s0.renders, `renders ${s0.renders} -> ${s1.renders}`);
  // The push is a sine against friction, so the box stands still for part of each period:
  // compare the picture with up to four later ones 0.7 s apart. Measured: 20 to 2,422 pixels
  // changed in one 0.7 s interval; a canvas that is not redrawn changes none.
  const a = await thumbnail(page);
  let changed = 0;
  for (let i = 0; i < 4 && changed < 10; ++i) {
    await sleep(700);
    changed = Math.max(changed, differingPixels(a, await thumbnail(page)));
  }
  assert.ok(changed >= 10, `only ${changed} of ${96 * 64} pixels changed in 2.8 s`);
  await waitFor(page, () => window.__viewer.arrowsShown > 0);
  console.log(`# Firefox ${version}: ${s1.frames} frames, ${s1.fps} frames/s, ` +
    `software WebGL ${s1.softwareWebgl}, ${changed} of ${96 * 64} thumbnail pixels changed`);
  await page.close();
});

test('Firefox: a wrong token is refused with a clear reason on the page', async () => {
  const page = await openViewer(harness.viewerUrl('not-the-token'));
  await waitFor(page, () => window.__viewer.closeCode !== 0);
  const s = await viewerStats(page);
  assert.equal(s.closeCode, 4001);
  assert.equal(s.frames, 0);
  assert.match(await page.textContent('#status'), /wrong viewer token/);
  assert.ok(await page.isVisible('#token-form'), 'no token form after 4001');
  await page.close();
});
