// The browser viewer's benchmark (docs/benchmarks.md, "Browser viewer"): a 10k-vertex cloth
// (bench/viewer_cloth.textproto) stepped by a controller over gRPC as fast as it can, watched by
// N viewers; prints frames/s delivered per viewer, the controller's steps/s against N = 0, and
// the bytes of one viewer frame against one StreamState frame of the same session.
//
//   node bench/viewer_bench.mjs [--counts 0,1,4,16] [--seconds 8] [--clients browser|socket]
//                               [--server-cpus LIST --browser-cpus LIST] [--live-timeout-s 180]
//                               [--browser-per-page]
//
// --server-cpus / --browser-cpus (taskset lists, e.g. 0 and 1): the harness (server, scene,
// controller) runs on the first set, this process and the browser it starts (or the socket
// readers) on the second, so that viewers do not take the server's CPUs, as when they run on
// other machines. Without them everything shares every CPU (co-located).
//
// --clients browser: N pages of one headless Chromium (each its own renderer process), WebGL on
// the CPU (SwiftShader); with --browser-per-page, each page in a Chromium of its own (its own GPU
// process: one GPU process serializes every page's software rasterizing). --clients socket: N raw WebSocket readers in this node process (what the
// server spends serving N viewers, without a browser's rendering on the same cores).
// Each N gets a fresh harness (server + scene + controller), 3 s of warm-up, then the window.
// Paths default to the build tree (build/) and clients/web of this checkout.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.env.CONTACTSIM_VIEWER_HARNESS ??= join(root, 'build/tests/web/contactsim-viewer-harness');
process.env.CONTACTSIM_VIEWER_ASSETS ??= join(root, 'build/server/viewer_assets');
process.env.CONTACTSIM_WEB_DIR ??= join(root, 'clients/web');
process.env.CONTACTSIM_CHROMIUM ??= '/usr/bin/chromium';
const { launchBrowser, startHarness, sleep, viewerStats, cpuSeconds } = await import(
  join(root, 'tests/web/web_harness.mjs'));

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const counts = arg('counts', '0,1,4,16').split(',').map(Number);
const seconds = Number(arg('seconds', '8'));
const clients = arg('clients', 'browser');
const scene = join(root, 'bench/viewer_cloth.textproto');
const serverCpus = arg('server-cpus', '');
const browserCpus = arg('browser-cpus', '');
const browserPerPage = process.argv.includes('--browser-per-page');
// How long every page may take to receive its first frame (software WebGL pages on one loaded
// core start slowly).
const liveTimeoutMs = 1000 * Number(arg('live-timeout-s', '180'));
if (browserCpus) {
  // This process and every thread it has; the browser and its renderers inherit the set.
  execFileSync('taskset', ['-a', '-p', '-c', browserCpus, String(process.pid)], { stdio: 'ignore' });
}

// The descendants of `pid` (the browser this process started and its renderer, GPU and utility
// processes), without the subtree of `exclude` (the harness), from /proc.
function descendants(pid, exclude) {
  const parent = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      parent.set(Number(entry), Number(fields[1]));
    } catch { /* gone meanwhile */ }
  }
  const found = [];
  for (const p of parent.keys()) {
    if (p === pid) continue;
    for (let q = p; q > 1; q = parent.get(q) ?? 0) {
      if (q === exclude) break;
      if (q === pid) {
        found.push(p);
        break;
      }
    }
  }
  return found;
}

// CPU seconds of those processes.
function descendantsCpuSeconds(pid, exclude) {
  let total = 0;
  for (const p of descendants(pid, exclude)) {
    try { total += cpuSeconds(p); } catch { /* gone meanwhile */ }
  }
  return total;
}

// Chromium's SwiftShader (WebGL on the CPU) pins its worker threads (marl) by position in the
// process's CPU set rather than by CPU number: given CPU 1 alone, its workers go to CPU 0, the
// server's, where the CPU-bound server starves them (measured: runnable 92 s, ran 18 ms) and the
// page hangs waiting for them. So every thread of every browser process is put back on
// --browser-cpus twice a second (a thread's affinity is set once, when it starts). Only
// chromium's processes: the harness, also a child of this process, stays on --server-cpus.
function keepBrowserOnItsCpus() {
  const timer = setInterval(() => {
    for (const p of descendants(process.pid, 0)) {
      let name = '';
      try { name = readFileSync(`/proc/${p}/comm`, 'utf8').trim(); } catch { continue; }
      if (name !== 'chromium') continue;
      execFile('taskset', ['-a', '-p', '-c', browserCpus, String(p)], () => {});
    }
  }, 500);
  return () => clearInterval(timer);
}

// A raw WebSocket viewer: counts the frames (binary messages after the topology).
function socketViewer(base, session, token) {
  const url = new URL(base);
  const state = { frames: 0, bytes: 0, dropped: 0, socket: null };
  const socket = connect(Number(url.port), url.hostname);
  state.socket = socket;
  let buffer = Buffer.alloc(0);
  let upgraded = false;
  socket.on('error', () => {});
  socket.on('connect', () => socket.write(
    `GET /ws HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`));
  socket.on('data', (data) => {
    buffer = buffer.length ? Buffer.concat([buffer, data]) : data;
    if (!upgraded) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      upgraded = true;
      buffer = buffer.subarray(end + 4);
      const hello = Buffer.from(`hello 1 ${session} ${token} 0 0`);
      const mask = randomBytes(4);
      for (let i = 0; i < hello.length; ++i) hello[i] ^= mask[i % 4];
      socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | hello.length]), mask, hello]));
    }
    while (buffer.length >= 2) {
      let length = buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) { if (buffer.length < 4) return; length = buffer.readUInt16BE(2); offset = 4; }
      if (length === 127) { if (buffer.length < 10) return; length = Number(buffer.readBigUInt64BE(2)); offset = 10; }
      if (buffer.length < offset + length) return;
      const payload = buffer.subarray(offset, offset + length);
      if ((buffer[0] & 0x0f) === 2 && payload[0] === 2) {
        ++state.frames;
        state.bytes += length;
        state.dropped += Number(payload.readBigInt64LE(40));
      }
      buffer = buffer.subarray(offset + length);
    }
  });
  return state;
}

async function run(n, sharedBrowser) {
  const harness = await startHarness(scene, ['--push-force-n', '0.5'], { cpus: serverCpus });
  const stopRepinning = browserCpus && clients === 'browser' && n > 0 ? keepBrowserOnItsCpus() : () => {};
  let bytes = '';
  if (n === 0) bytes = await harness.command('bytes');
  const viewers = [];
  const ownBrowsers = [];
  for (let i = 0; i < n; ++i) {
    if (clients === 'browser') {
      const browser = browserPerPage ? await launchBrowser() : sharedBrowser;
      if (browserPerPage) ownBrowsers.push(browser);
      const page = await browser.newPage({ viewport: { width: 480, height: 300 }, bypassCSP: true });
      await page.goto(harness.viewerUrl(), { waitUntil: 'commit', timeout: 120000 });
      viewers.push(page);
    } else {
      viewers.push(socketViewer(harness.base, harness.session, harness.token));
    }
  }
  const frames = async () => (clients === 'browser'
    ? (await Promise.all(viewers.map(viewerStats))).map((s) => s.frames)
    : viewers.map((v) => v.frames));
  // Every viewer live (16 pages of software WebGL take a while on 2 cores), then warm-up.
  if (clients === 'browser') {
    try {
      await Promise.all(viewers.map((page) => page.waitForFunction(
        () => window.__viewer && window.__viewer.frames > 0, null,
        { timeout: liveTimeoutMs, polling: 500 })));
    } catch (error) {  // say what each page was doing, then stop
      for (const [i, page] of viewers.entries()) {
        const state = await page.evaluate(() => JSON.stringify(window.__viewer ?? null))
          .catch((e) => `unanswered (${e.message.split('\n')[0]})`);
        console.error(`page ${i}: ${state}`);
      }
      throw error;
    }
  }
  await sleep(3000);
  const browserCpu = () => (clients === 'browser' ? descendantsCpuSeconds(process.pid, harness.pid) : 0);
  const f0 = await frames();
  const s0 = await harness.stats();
  const c0 = cpuSeconds(harness.pid);
  const b0 = browserCpu();
  await sleep(1000 * seconds);
  const f1 = await frames();
  const s1 = await harness.stats();
  const c1 = cpuSeconds(harness.pid);
  const b1 = browserCpu();
  const wall = s1.wall - s0.wall;
  const fps = f1.map((f, i) => (f - f0[i]) / wall);
  const framesDelivered = f1.reduce((sum, f, i) => sum + f - f0[i], 0);
  for (const v of viewers) {
    if (clients === 'browser') await v.close(); else v.socket.destroy();
  }
  for (const b of ownBrowsers) await b.close();
  stopRepinning();
  if (serverCpus) {  // the harness (every thread) stayed where it was put
    const lists = readdirSync(`/proc/${harness.pid}/task`).map((t) => {
      try {
        return /Cpus_allowed_list:\s*(\S+)/.exec(
          readFileSync(`/proc/${harness.pid}/task/${t}/status`, 'utf8'))[1];
      } catch { return serverCpus; }  // the thread ended meanwhile
    });
    if (lists.some((l) => l !== serverCpus)) console.error(`WARNING: harness threads on ${lists}`);
  }
  await harness.stop();
  return {
    n, stepsPerS: (s1.steps - s0.steps) / wall, fps, bytes,
    serverCpuPerStepUs: (1e6 * (c1 - c0)) / Math.max(1, s1.steps - s0.steps),
    // The browser's CPU time per frame its pages received [ms] (all its processes).
    browserCpuPerFrameMs: clients === 'browser' && framesDelivered > 0
      ? (1e3 * (b1 - b0)) / framesDelivered : undefined,
  };
}

const browser = clients === 'browser' && !browserPerPage && counts.some((n) => n > 0)
  ? await launchBrowser() : null;
const results = [];
for (const n of counts) {
  const r = await run(n, browser);
  results.push(r);
  if (r.bytes) console.log(`# ${r.bytes}`);
  // As it goes, so a run cut short keeps its rows.
  console.error(`done: ${n} viewers: ${r.stepsPerS.toFixed(0)} steps/s, server CPU per step ` +
    `${r.serverCpuPerStepUs.toFixed(0)} us, frames/s per viewer ${r.fps.map((f) => f.toFixed(1)).join(' ')}`);
}
await browser?.close();
// The baseline: the mean of every N = 0 run (list 0 first and last to see the drift).
const zeros = results.filter((r) => r.n === 0).map((r) => r.stepsPerS);
const base = zeros.length ? zeros.reduce((s, v) => s + v, 0) / zeros.length : undefined;
console.log(`\nviewer benchmark: ${scene.split('/').pop()}, clients=${clients}, ${seconds} s windows, ` +
  `viewer limit 60 frames/s, server CPUs ${serverCpus || 'all'}, viewer CPUs ${browserCpus || 'all'}${browserPerPage ? ', one browser per page' : ''}`);
console.log('| viewers | frames/s per viewer (min / mean) | controller steps/s | vs 0 viewers | ' +
  'server CPU per step [µs] | browser CPU per frame [ms] |');
console.log('|---:|---|---:|---:|---:|---:|');
for (const r of results) {
  const min = r.fps.length ? Math.min(...r.fps).toFixed(1) : '–';
  const mean = r.fps.length ? (r.fps.reduce((s, v) => s + v, 0) / r.fps.length).toFixed(1) : '–';
  const ratio = base ? `${(100 * r.stepsPerS / base).toFixed(0)} %` : '–';
  const browserCpu = r.browserCpuPerFrameMs === undefined ? '–' : r.browserCpuPerFrameMs.toFixed(1);
  console.log(`| ${r.n} | ${min} / ${mean} | ${r.stepsPerS.toFixed(0)} | ${ratio} | ` +
    `${r.serverCpuPerStepUs.toFixed(0)} | ${browserCpu} |`);
}
if (zeros.length > 1) {
  console.log(`baseline: mean of ${zeros.length} runs without viewers, ${base.toFixed(0)} steps/s ` +
    `(spread ${(100 * (Math.max(...zeros) - Math.min(...zeros)) / base).toFixed(0)} %)`);
}
