// One viewer screenshot per scene file (docs/viewer.md, "Scenes"): for each scenes/*.textproto the
// harness loads the scene, headless Chromium opens its viewer page, a controller steps the scene
// to a set step (SHOTS) and stops, and the page is saved as an 800 x 500 JPEG,
// docs/images/viewer-SCENE.jpg. Run from the repository root after building
// contactsim-viewer-harness and contactsim_viewer_assets:
//   node tests/web/scene_screenshots.mjs [--build build] [--out docs/images] [--cap-s 300] [scene ...]
import { readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launchBrowser, startHarness, sleep } from './web_harness.mjs';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    build: { type: 'string', default: 'build' },
    out: { type: 'string', default: 'docs/images' },
    'cap-s': { type: 'string', default: '300' },
  },
});
const build = resolve(opts.build);
process.env.CONTACTSIM_VIEWER_HARNESS ??= join(build, 'tests/web/contactsim-viewer-harness');
process.env.CONTACTSIM_VIEWER_ASSETS ??= join(build, 'server/viewer_assets');
process.env.CONTACTSIM_WEB_DIR ??= resolve('clients/web');
process.env.CONTACTSIM_CHROMIUM ??= '/usr/bin/chromium';

// Per scene: the step at which the picture is taken (the controller stops there, so every run
// shows the same moment), steps per Step call (more for small time steps: fewer round trips), and
// a camera move from the page's own framing: a drag of the orbit camera [px] (positive y looks
// more from above) and wheel steps (negative: closer). The push_box scene is for a controller to
// push (body 0, a 6 N sine); the others run as they are.
const SHOTS = {
  blob: { steps: 1000, perCall: 10, drag: [0, 45] },
  box: { steps: 200 },
  bucket: { steps: 300, perCall: 10 },
  chain: { steps: 150, wheel: -2 },
  push_box: { steps: 100, push: 6, wheel: 30 },
  rigid_pour: { steps: 100, perCall: 5, drag: [0, 50], wheel: -4 },
  rigid_pour_hulls: { steps: 150, perCall: 5, drag: [0, 50], wheel: -4 },
  rings: { steps: 600, perCall: 10 },
  robot_arm: { steps: 400, perCall: 10, drag: [-120, 20], wheel: 2 },
  soft_lift: { steps: 100, wheel: 3 },
  soft_rollers: { steps: 60, drag: [0, 30] },
  stick: { steps: 30 },
  tori_cloth: { steps: 800, perCall: 10 },
};
const MAX_BYTES = 80 * 1024;

const sceneFiles = readdirSync('scenes').filter((f) => f.endsWith('.textproto')).sort()
  .filter((f) => positionals.length === 0 || positionals.includes(basename(f, '.textproto')));
const browser = await launchBrowser();
const rows = [];
try {
  for (const file of sceneFiles) {
    const name = basename(file, '.textproto');
    const shot = SHOTS[name] ?? { steps: 100 };
    const harness = await startHarness(resolve('scenes', file), [
      '--hold', '--max-steps', String(shot.steps), '--push-force-n', String(shot.push ?? 0),
      '--steps-per-call', String(shot.perCall ?? 1)]);
    try {
      const page = await browser.newPage({ viewport: { width: 800, height: 500 }, bypassCSP: true });
      await page.goto(harness.viewerUrl());
      await page.waitForFunction(() => window.__viewer.topologyVersion >= 0, null, { timeout: 60000 });
      if (shot.drag) {
        await page.mouse.move(300, 250);
        await page.mouse.down();
        await page.mouse.move(300 + shot.drag[0], 250 + shot.drag[1], { steps: 5 });
        await page.mouse.up();
      }
      for (let i = 0; i < Math.abs(shot.wheel ?? 0); ++i) {
        await page.mouse.move(300, 250);
        await page.mouse.wheel(0, Math.sign(shot.wheel) * 100);
        await sleep(50);
      }
      await harness.command('go');
      const start = Date.now();
      while ((await harness.stats()).steps < shot.steps) {
        if (Date.now() - start > 1000 * Number(opts['cap-s'])) throw new Error(`${name}: too slow`);
        await sleep(250);
      }
      // The page shows the last step (its HUD is written at most 10 times a second).
      await page.waitForFunction((n) => document.getElementById('hud-steps').textContent
        .startsWith(`${n} `), shot.steps, { timeout: 60000 });
      await sleep(500);
      const out = join(opts.out, `viewer-${name}.jpg`);
      await page.screenshot({ path: out, type: 'jpeg', quality: 80 });
      const bytes = statSync(out).size;
      const simTime = await page.textContent('#hud-time');
      rows.push({ name, out, bytes, simTime });
      console.log(`${name}: ${out} ${bytes} bytes, ${shot.steps} steps, sim time ${simTime}`);
      if (bytes > MAX_BYTES) console.error(`${name}: ${bytes} bytes, over ${MAX_BYTES}`);
      await page.close();
    } finally {
      await harness.stop();
    }
  }
} finally {
  await browser.close();
}
process.exit(rows.every((r) => r.bytes <= MAX_BYTES) ? 0 : 1);
