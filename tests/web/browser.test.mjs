// The viewer in headless Chromium (playwright-core) against the harness: a push_box scene whose
// box a controller pushes back and forth over gRPC (so it moves and has contacts every step).
// Bounded: about a minute on 2 cores.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  launchBrowser, startHarness, sleep, waitFor, viewerStats, measure,
} from './web_harness.mjs';

let harness;
let browser;
let pages = [];

before(async () => {
  harness = await startHarness(join(process.env.CONTACTSIM_SCENES_DIR, 'push_box.textproto'),
    ['--push-force-n', '6', '--step-sleep-us', '200']);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await harness?.stop();
});

async function openViewer(url) {
  const page = await browser.newPage({ viewport: { width: 480, height: 320 }, bypassCSP: true });
  await page.goto(url);
  return page;
}

// A 96 x 64 thumbnail of the WebGL canvas (RGBA bytes).
function thumbnail(page) {
  return page.evaluate(() => {
    const source = document.getElementById('scene');
    const small = document.createElement('canvas');
    small.width = 96;
    small.height = 64;
    const g = small.getContext('2d');
    g.drawImage(source, 0, 0, 96, 64);
    return Array.from(g.getImageData(0, 0, 96, 64).data);
  });
}

function differingPixels(a, b) {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 24) ++n;
  }
  return n;
}

test('the session list shows the session and no token', async () => {
  const response = await fetch(`${harness.base}/api/sessions`);
  const text = await response.text();
  assert.equal(response.status, 200);
  assert.ok(text.includes(harness.session), text);
  assert.ok(!text.includes(harness.token), 'the viewer token is in /api/sessions');
  const page = await browser.newPage({ bypassCSP: true });
  await page.goto(`${harness.base}/`);
  await page.waitForSelector(`a[href*="${harness.session}"]`, { timeout: 10000 });
  const html = await page.content();
  assert.ok(!html.includes(harness.token), 'the viewer token is on the list page');
  await page.close();
  const notFound = await fetch(`${harness.base}/../../etc/passwd`);
  assert.equal(notFound.status, 404);
  const post = await fetch(`${harness.base}/api/sessions`, { method: 'POST', body: 'x' });
  assert.equal(post.status, 405);
});

test('four pages receive frames, the canvas changes, contact arrows appear', async () => {
  pages = await Promise.all([0, 1, 2, 3].map(() => openViewer(harness.viewerUrl())));
  for (const page of pages) await waitFor(page, () => window.__viewer.frames >= 5);
  const seq0 = await Promise.all(pages.map((p) => viewerStats(p)));
  await sleep(1000);
  const seq1 = await Promise.all(pages.map((p) => viewerStats(p)));
  for (let i = 0; i < 4; ++i) {
    assert.ok(seq1[i].lastSeq > seq0[i].lastSeq, `page ${i}: seq ${seq0[i].lastSeq} -> ${seq1[i].lastSeq}`);
    assert.equal(seq1[i].state, 'ACTIVE');
    assert.equal(seq1[i].planes, 1, 'push_box has one ground plane (z = 0), sent in the topology');
  }
  const a = await thumbnail(pages[0]);
  await sleep(700);
  const b = await thumbnail(pages[0]);
  const changed = differingPixels(a, b);
  assert.ok(changed >= 10, `only ${changed} of ${96 * 64} pixels changed in 0.7 s`);
  // The box rests on the plane: contacts every step, drawn as points and arrows.
  await waitFor(pages[0], () => window.__viewer.arrowsShown > 0);
  await pages[0].uncheck('#show-contacts');
  await waitFor(pages[0], () => window.__viewer.arrowsShown === 0 && window.__viewer.contactsShown === 0);
  await pages[0].check('#show-contacts');
  await waitFor(pages[0], () => window.__viewer.arrowsShown > 0);
  await pages[0].screenshot({ path: join(process.env.CONTACTSIM_SCREENSHOT_DIR ?? '/tmp', 'viewer-test.png') });
});

test('a paused page does not lower the others\' frame rate or the controller\'s step rate', async () => {
  // The paused windows are bracketed by windows without a pause, so that a drift of the
  // machine's load (other builds on the same 2 cores) shows as noise, not as an effect.
  const others = (fps) => fps.slice(-3).reduce((s, v) => s + v, 0) / 3;
  const base1 = await measure(pages, harness, 2000);
  // Pause page 0's JavaScript (it stops reading its socket; the server's writes to it block).
  const cdp = await pages[0].context().newCDPSession(pages[0]);
  await cdp.send('Debugger.enable');
  await cdp.send('Debugger.pause');
  await sleep(1000);
  // Up to three paused windows: load spikes from elsewhere come and go, a slowdown the pause
  // caused would be in every one of them.
  const pausedWindows = [];
  for (let i = 0; i < 3; ++i) pausedWindows.push(await measure(pages.slice(1), harness, 1500));
  await cdp.send('Debugger.resume');
  await sleep(1000);
  const base2 = await measure(pages, harness, 2000);
  const fpsBase = [others(base1.fps), others(base2.fps)];
  const stepsBase = [base1.stepsPerS, base2.stepsPerS];
  const cpuBase = [base1.cpuPerStepUs, base2.cpuPerStepUs];
  const noise = (a) => Math.abs(a[0] - a[1]) / Math.max(a[0], a[1]);
  const fpsPaused = Math.max(...pausedWindows.map((w) => others(w.fps)));
  const stepsPaused = Math.max(...pausedWindows.map((w) => w.stepsPerS));
  const cpuPaused = Math.min(...pausedWindows.map((w) => w.cpuPerStepUs));
  const list = (a, digits = 0) => a.map((v) => v.toFixed(digits)).join(', ');
  console.log(`# others' frames/s: ${fpsBase[0].toFixed(1)} before, ` +
    `${list(pausedWindows.map((w) => others(w.fps)), 1)} with page 0 paused, ${fpsBase[1].toFixed(1)} after`);
  console.log(`# controller steps/s: ${stepsBase[0].toFixed(0)} before, ` +
    `${list(pausedWindows.map((w) => w.stepsPerS))} with page 0 paused, ${stepsBase[1].toFixed(0)} after`);
  console.log(`# server CPU per step [us]: ${cpuBase[0].toFixed(0)} before, ` +
    `${list(pausedWindows.map((w) => w.cpuPerStepUs))} paused, ${cpuBase[1].toFixed(0)} after`);
  // Allowed: below the lower unpaused window by at most the noise between the two plus 20 %
  // (2 shared cores run the browser, the server and, on a dev machine, other builds).
  const floor = (a) => Math.min(...a) * (1 - noise(a) - 0.2);
  assert.ok(fpsPaused >= floor(fpsBase),
    `others' frames/s fell to ${fpsPaused.toFixed(1)} (unpaused ${list(fpsBase, 1)})`);
  assert.ok(stepsPaused >= floor(stepsBase),
    `controller steps/s fell to ${stepsPaused.toFixed(0)} (unpaused ${list(stepsBase)})`);
  // The server's CPU per step does not grow with a stalled viewer (same allowance).
  assert.ok(cpuPaused <= Math.max(...cpuBase) * (1 + noise(cpuBase) + 0.2),
    `server CPU per step rose to ${cpuPaused.toFixed(0)} us (unpaused ${list(cpuBase)})`);
  // The paused page got going again, with the newest frame and the gap counted as dropped.
  const resumed = await viewerStats(pages[0]);
  assert.ok(resumed.frames > 0 && base2.fps[0] > 0, 'the paused page did not resume');
  assert.ok(resumed.dropped > 0, 'no dropped frames counted on the paused page');
});

test('a browser without WebGL: the page says so and still shows the session', async () => {
  const page = await browser.newPage({ viewport: { width: 480, height: 320 }, bypassCSP: true });
  await page.addInitScript(() => {
    const original = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
      return /webgl/.test(type) ? null : original.call(this, type, ...rest);
    };
  });
  await page.goto(harness.viewerUrl());
  await waitFor(page, () => window.__viewer.frames > 2);
  const s = await viewerStats(page);
  assert.match(s.webglError, /no 3D view: this browser gave the page no WebGL/);
  assert.equal(s.renders, 0);
  assert.match(await page.textContent('#webgl-error'), /no WebGL/);
  // The numbers and the plot still come (the HUD is written at most 10 times a second).
  await waitFor(page, () => document.getElementById('hud-seq').textContent !== '–');
  await page.close();
});

test('a wrong token is refused with a clear reason on the page', async () => {
  const page = await openViewer(harness.viewerUrl('not-the-token'));
  await waitFor(page, () => window.__viewer.closeCode !== 0);
  const s = await viewerStats(page);
  assert.equal(s.closeCode, 4001);
  assert.equal(s.frames, 0);
  const text = await page.textContent('#status');
  assert.match(text, /wrong viewer token/);
  // It offers to give another token (a password field: not shown on screen).
  assert.ok(await page.isVisible('#token-form'), 'no token form after 4001');
  assert.equal(await page.getAttribute('#token-value', 'type'), 'password');
  await page.close();
  const none = await openViewer(`${harness.base}/view#session=${harness.session}`);
  assert.match(await none.textContent('#status'), /lacks its session id or viewer token/);
  await none.close();
});

test('stopping the viewer server shows why; the page reconnects and resumes by seq', async () => {
  for (const page of pages.slice(1)) await page.close();
  const page = pages[0];
  const before = await viewerStats(page);
  assert.equal(await harness.command('stop-viewer'), 'stopped-viewer');
  await waitFor(page, () => /stopping|lost/.test(window.__viewer.status));
  const during = await viewerStats(page);
  assert.match(during.status, /reconnecting/);
  await sleep(1500);  // the controller keeps stepping meanwhile
  assert.match(await harness.command('start-viewer'), /^started-viewer/);
  await waitFor(page, (n) => window.__viewer.connections > n && window.__viewer.status.startsWith('live'),
    before.connections);
  await waitFor(page, (seq) => window.__viewer.lastSeq > seq, during.lastSeq);
  const resumed = await viewerStats(page);
  assert.ok(resumed.lastSeq > during.lastSeq, `seq ${during.lastSeq} -> ${resumed.lastSeq}`);
  assert.ok(resumed.dropped > during.dropped, 'frames published while away are counted as dropped');
  await page.close();
});

test('a session that diverges shows FAILED and why', async () => {
  const page = await openViewer(harness.viewerUrl());
  await waitFor(page, () => window.__viewer.frames > 2);
  assert.match(await harness.command('push 1e300'), /^push/);
  await waitFor(page, () => window.__viewer.state === 'FAILED');
  // The HUD redraws at most every HUD_INTERVAL_MS (viewer.js), so its text follows the state.
  await waitFor(page, () => document.getElementById('hud-state').textContent.startsWith('FAILED'));
  const text = await page.textContent('#hud-state');
  assert.match(text, /^FAILED: .+/);
  console.log(`# page shows: ${text}`);
  const list = await (await fetch(`${harness.base}/api/sessions`)).json();
  assert.equal(list.sessions[0].state, 'FAILED');
  await page.close();
});

// A robot is drawn as its links, bodies like any other (scenes/robot_arm.textproto: the arm's
// ten links after three cubes). The scene holds the arm with position motors; this copy of it
// drops them (and points at the URDF by its absolute path), so the arm folds under gravity onto
// the cubes within ~0.5 s of simulated time, and the controller is slowed to ~200 steps/s (5 ms
// between calls) to keep it folding while the picture is compared.
function robotSceneWithoutMotors() {
  const scenes = process.env.CONTACTSIM_SCENES_DIR;
  const text = readFileSync(join(scenes, 'robot_arm.textproto'), 'utf8')
    .replace(/^\s*default_motor \{.*\}\s*$/m, '')
    .replace('urdf_path: "robots/', `urdf_path: "${join(scenes, 'robots')}/`);
  assert.ok(!/^\s*(default_motor|motors) \{/m.test(text), 'the scene\'s motors were not removed');
  const path = join(mkdtempSync(join(tmpdir(), 'contactsim-robot-')), 'robot_arm_no_motors.textproto');
  writeFileSync(path, text);
  return path;
}

test('a robot scene draws every link, and the arm moves', async () => {
  const robot = await startHarness(robotSceneWithoutMotors(),
    ['--push-force-n', '0', '--step-sleep-us', '5000']);
  try {
    const page = await openViewer(robot.viewerUrl());
    await waitFor(page, () => window.__viewer.frames >= 5);
    const names = await page.evaluate(() => window.__viewer.bodyNames);
    assert.equal(names.length, 13, names.join(', '));
    for (const link of ['arm/base', 'arm/link2', 'arm/hand', 'arm/finger_left', 'arm/finger_right']) {
      assert.ok(names.includes(link), `${link} is not drawn: ${names.join(', ')}`);
    }
    const a = await thumbnail(page);
    await sleep(700);
    const b = await thumbnail(page);
    const changed = differingPixels(a, b);
    assert.ok(changed >= 10, `only ${changed} of ${96 * 64} pixels changed in 0.7 s`);
    await page.screenshot({ path: join(process.env.CONTACTSIM_SCREENSHOT_DIR ?? '/tmp', 'viewer-robot.png') });
    await page.close();
  } finally {
    await robot.stop();
  }
});
