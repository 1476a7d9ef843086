// Shared by the browser test and the viewer benchmark: the harness process (server + scene +
// controller, tests/web/viewer_harness.cc) and headless Chromium through playwright-core.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join, resolve as resolvePath } from 'node:path';

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  // WebGL on the CPU (SwiftShader), and no throttling of pages that are not in front.
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

export async function launchBrowser() {
  const webDir = process.env.CONTACTSIM_WEB_DIR;
  const { chromium } = await import(resolvePath(webDir, 'node_modules/playwright-core/index.mjs'));
  // playwright makes a fresh temporary profile (user data dir) for every launch.
  return chromium.launch({ executablePath: process.env.CONTACTSIM_CHROMIUM, args: CHROMIUM_ARGS });
}

// Starts the harness; resolves with { base, session, token, command(line) -> Promise<reply>,
// stop() }. Its stderr goes to ours. `cpus` (a taskset list such as "0" or "0-3") pins it and
// every thread it starts to those CPUs.
export function startHarness(sceneFile, extraArgs = [], { cpus } = {}) {
  const args = ['--scene', sceneFile, '--assets', process.env.CONTACTSIM_VIEWER_ASSETS, ...extraArgs];
  const child = cpus
    ? spawn('taskset', ['-c', cpus, process.env.CONTACTSIM_VIEWER_HARNESS, ...args],
      { stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(process.env.CONTACTSIM_VIEWER_HARNESS, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  let ready;
  const readyLine = new Promise((resolve, reject) => {
    ready = resolve;
    child.on('exit', (code) => reject(new Error(`harness exited ${code} before it was ready`)));
  });
  lines.on('line', (line) => {
    if (line.startsWith('ready ')) ready(line);
    else if (waiting.length && !line.startsWith('[')) waiting.shift()(line);
  });
  return readyLine.then((line) => {
    const fields = Object.fromEntries(line.split(' ').slice(1).map((kv) => kv.split('=')));
    return {
      pid: child.pid,
      base: fields.base_url,
      session: fields.session,
      token: fields.viewer_token,
      viewerUrl(token = fields.viewer_token) {
        return `${fields.base_url}/view#session=${fields.session}&token=${token}`;
      },
      command(text) {
        return new Promise((resolve) => {
          waiting.push(resolve);
          child.stdin.write(`${text}\n`);
        });
      },
      async stats() {
        const reply = await this.command('stats');
        const m = /steps=(\d+) wall_s=([\d.]+)/.exec(reply);
        return { steps: Number(m[1]), wall: Number(m[2]) };
      },
      stop() {
        return new Promise((resolve) => {
          child.on('exit', resolve);
          child.stdin.write('quit\n');
          setTimeout(() => child.kill('SIGKILL'), 5000).unref();
        });
      },
    };
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(page, predicate, arg, timeoutMs = 15000) {
  await page.waitForFunction(predicate, arg, { timeout: timeoutMs, polling: 100 });
}

export const viewerStats = (page) => page.evaluate(() => ({ ...window.__viewer }));

// CPU seconds (user + system) the process `pid` has used (Linux /proc).
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

// Frames received by each page, controller steps, and the harness's CPU time per step (the
// server's own cost, which other load on the machine does not change much) over `ms`.
export async function measure(pages, harness, ms) {
  const before = await Promise.all(pages.map(viewerStats));
  const s0 = await harness.stats();
  const c0 = cpuSeconds(harness.pid);
  await sleep(ms);
  const after = await Promise.all(pages.map(viewerStats));
  const s1 = await harness.stats();
  const c1 = cpuSeconds(harness.pid);
  const seconds = s1.wall - s0.wall;
  return {
    fps: after.map((a, i) => (a.frames - before[i].frames) / seconds),
    stepsPerS: (s1.steps - s0.steps) / seconds,
    cpuPerStepUs: (1e6 * (c1 - c0)) / Math.max(1, s1.steps - s0.steps),
    seconds,
  };
}
