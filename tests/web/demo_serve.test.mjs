// `contactsim-demo --serve`: starts the server with its viewer, prints the viewer URL, keeps the
// scene stepping until SIGINT, then stops the server and exits 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('demo --serve prints a working viewer URL and stops cleanly on SIGINT', async () => {
  const out = mkdtempSync(join(tmpdir(), 'demo-serve-'));
  const demo = spawn(process.env.CONTACTSIM_DEMO,
    ['--serve', '--viewer-listen', '127.0.0.1:0', '--out', out], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  demo.stdout.on('data', (d) => { stdout += d; });
  const exited = new Promise((resolve) => demo.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 20000;
  while (!/serving until Ctrl-C/.test(stdout) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const m = /viewer\s+(http:\/\/[^/\s]+)\/view#session=([0-9a-f]+)&token=([0-9a-f]+)/.exec(stdout);
  assert.ok(m, `no viewer URL in: ${stdout}`);
  const [, base, session, token] = m;
  const list = await (await fetch(`${base}/api/sessions`)).json();
  assert.ok(list.sessions.some((s) => s.id === session), JSON.stringify(list));
  assert.ok(!JSON.stringify(list).includes(token));
  await new Promise((r) => setTimeout(r, 500));
  const again = await (await fetch(`${base}/api/sessions`)).json();
  const steps = again.sessions.find((s) => s.id === session).step_count;
  assert.ok(steps > 0, 'the scene is not being stepped');
  const page = await fetch(`${base}/view`);
  assert.equal(page.status, 200);
  demo.kill('SIGINT');
  assert.equal(await exited, 0, stdout);
  assert.match(stdout, /stopping after \d+ steps/);
  rmSync(out, { recursive: true });
});
