// The viewer with TLS (--tls-cert/--tls-key, as gRPC): a self-signed certificate made here with
// openssl for 127.0.0.1 (never kept), the page over HTTPS verified against it, frames over WSS,
// plain HTTP to the TLS port refused, a key that is not the certificate's refused at start-up,
// mutual TLS (--tls-client-ca) refusing a client without a certificate, and the page in headless
// Chromium over https/wss (where chromium is installed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startHarness, launchBrowser, waitFor, viewerStats, sleep } from './web_harness.mjs';
import { decodeMessage, helloMessage } from '../../clients/web/src/protocol.js';

let dir;
let harness;
let port;
let ca;

// A P-256 key and a one-day certificate for 127.0.0.1 (the subjectAltName a client checks).
function makeCertificate(name) {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
    '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { key, cert };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'contactsim-viewer-tls-'));
  const { key, cert } = makeCertificate('server');
  ca = readFileSync(cert);
  harness = await startHarness(join(process.env.CONTACTSIM_SCENES_DIR, 'push_box.textproto'),
    ['--push-force-n', '6', '--step-sleep-us', '1000', '--tls-cert', cert, '--tls-key', key]);
  port = Number(new URL(harness.base).port);
});

after(async () => {
  await harness?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function httpsGet(path) {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, ca }, (response) => {
      let body = '';
      response.on('data', (chunk) => { body += chunk; });
      response.on('end', () => resolve({ status: response.statusCode, body }));
    }).on('error', reject);
  });
}

function maskedText(text) {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  for (let i = 0; i < payload.length; ++i) payload[i] ^= mask[i % 4];
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload]);
}

// A WebSocket over TLS (certificate verified against `ca`): sends the hello, then "ping" every
// `pingMs` (the server reads while it writes frames), for `durationMs`; resolves with the decoded
// messages and the close code (0 when none came).
function wssSession(durationMs, pingMs) {
  return new Promise((resolve, reject) => {
    const socket = connectTls({ host: '127.0.0.1', port, ca, servername: undefined });
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    const result = { messages: [], closeCode: 0, badOpcode: 0 };
    let pinger;
    const finish = () => { clearInterval(pinger); socket.destroy(); resolve(result); };
    setTimeout(finish, durationMs);
    socket.on('error', reject);
    socket.on('secureConnect', () => {
      socket.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
        'Sec-WebSocket-Version: 13\r\n\r\n');
    });
    socket.on('data', (data) => {
      buffer = Buffer.concat([buffer, data]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString();
        if (!head.startsWith('HTTP/1.1 101')) { reject(new Error(`no upgrade: ${head}`)); return; }
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        socket.write(maskedText(helloMessage(harness.session, harness.token)));
        pinger = setInterval(() => socket.write(maskedText('ping')), pingMs);
      }
      while (buffer.length >= 2) {
        const opcode = buffer[0] & 0x0f;
        let length = buffer[1] & 0x7f;
        let offset = 2;
        if (length === 126) { if (buffer.length < 4) return; length = buffer.readUInt16BE(2); offset = 4; }
        if (length === 127) { if (buffer.length < 10) return; length = Number(buffer.readBigUInt64BE(2)); offset = 10; }
        if (buffer.length < offset + length) return;
        const payload = buffer.subarray(offset, offset + length);
        buffer = buffer.subarray(offset + length);
        if (opcode === 0x2) {
          const copy = payload.buffer.slice(payload.byteOffset, payload.byteOffset + payload.length);
          result.messages.push(decodeMessage(copy));  // throws on a garbled message
        } else if (opcode === 0x8) {
          result.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 0;
          finish();
          return;
        } else if (opcode !== 0x9 && opcode !== 0xa) {
          result.badOpcode = opcode;
        }
      }
    });
  });
}

test('HTTPS: the session list and the page, verified against the certificate', async () => {
  assert.match(harness.base, /^https:\/\/127\.0\.0\.1:\d+$/);
  const list = await httpsGet('/api/sessions');
  assert.equal(list.status, 200);
  assert.ok(list.body.includes(harness.session), list.body);
  assert.ok(!list.body.includes(harness.token), 'the viewer token is in /api/sessions');
  const page = await httpsGet('/view');
  assert.equal(page.status, 200);
  assert.match(page.body, /<canvas/);
});

test('WSS: topology, keyframe, then intact frames with increasing seq while the client writes', async () => {
  // A ping every 20 ms (500 times the page's rate) keeps the server's reader busy on the same
  // TLS connection its sender writes frames to.
  const r = await wssSession(3000, 20);
  assert.equal(r.closeCode, 0, JSON.stringify(r.closeCode));
  assert.equal(r.badOpcode, 0);
  assert.equal(r.messages[0].type, 'topology');
  assert.equal(r.messages[1].type, 'frame');
  assert.ok(r.messages[1].keyframe, 'the first frame is not a keyframe');
  const frames = r.messages.filter((m) => m.type === 'frame');
  // The push_box controller sleeps 1 ms per step: far more than 20 frames in 3 s at <= 60/s.
  assert.ok(frames.length > 20, `${frames.length} frames in 3 s`);
  for (let i = 1; i < frames.length; ++i) {
    assert.ok(frames[i].seq > frames[i - 1].seq, `seq ${frames[i].seq} after ${frames[i - 1].seq}`);
  }
});

test('plain HTTP to the TLS port is refused: closed without an HTTP answer; HTTPS still served', async () => {
  const answer = await new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    socket.on('connect', () => socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    socket.on('data', (data) => { received = Buffer.concat([received, data]); });
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
    setTimeout(() => { socket.destroy(); resolve(null); }, 5000);
  });
  assert.notEqual(answer, null, 'the server kept a plain HTTP connection open for 5 s');
  assert.ok(!answer.toString('latin1').includes('HTTP/1.1 200'), 'plain HTTP got a page');
  assert.equal((await httpsGet('/api/sessions')).status, 200);
});

test('a --tls-key that is not the certificate\'s stops the viewer, naming the flag', () => {
  const other = makeCertificate('other');
  const server = makeCertificate('mismatch');
  const run = spawnSync(process.env.CONTACTSIM_VIEWER_HARNESS,
    ['--scene', join(process.env.CONTACTSIM_SCENES_DIR, 'push_box.textproto'),
      '--assets', process.env.CONTACTSIM_VIEWER_ASSETS, '--tls-cert', server.cert,
      '--tls-key', other.key], { input: 'quit\n', encoding: 'utf8', timeout: 20000 });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /INVALID_ARGUMENT: --tls-key: .*other\.key/);
});

test('mutual TLS (--tls-client-ca): a client without a certificate of that CA is refused', async () => {
  // A client CA and a client certificate signed by it.
  const clientCa = makeCertificate('client-ca');
  const clientKey = join(dir, 'client.key');
  const clientCsr = join(dir, 'client.csr');
  const clientPem = join(dir, 'client.pem');
  execFileSync('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', clientKey, '-out', clientCsr, '-subj', '/CN=viewer-client'], { stdio: 'ignore' });
  execFileSync('openssl', ['x509', '-req', '-in', clientCsr, '-CA', clientCa.cert, '-CAkey', clientCa.key,
    '-CAcreateserial', '-out', clientPem, '-days', '1'], { stdio: 'ignore' });
  const server = makeCertificate('mutual');
  const mutual = await startHarness(join(process.env.CONTACTSIM_SCENES_DIR, 'push_box.textproto'),
    ['--push-force-n', '0', '--step-sleep-us', '5000', '--tls-cert', server.cert, '--tls-key', server.key,
      '--tls-client-ca', clientCa.cert]);
  try {
    const toPort = Number(new URL(mutual.base).port);
    const serverCa = readFileSync(server.cert);
    const statusWith = (clientCert) => new Promise((resolve) => {
      get({ host: '127.0.0.1', port: toPort, path: '/api/sessions', ca: serverCa, ...clientCert }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      }).on('error', (error) => resolve(error.code ?? error.message));
    });
    assert.notEqual(await statusWith({}), 200, 'served a client without a certificate');
    const otherIssuer = makeCertificate('self-signed-client');  // not signed by the client CA
    assert.notEqual(
      await statusWith({ cert: readFileSync(otherIssuer.cert), key: readFileSync(otherIssuer.key) }), 200,
      'served a client whose certificate the client CA did not sign');
    assert.equal(await statusWith({ cert: readFileSync(clientPem), key: readFileSync(clientKey) }), 200);
  } finally {
    await mutual.stop();
  }
});

const haveBrowser = process.env.CONTACTSIM_CHROMIUM && existsSync(process.env.CONTACTSIM_CHROMIUM)
  && existsSync(join(process.env.CONTACTSIM_WEB_DIR ?? '', 'node_modules/playwright-core'));

test('the page in headless Chromium over https and wss', { skip: !haveBrowser && 'no chromium or playwright-core' }, async () => {
  const browser = await launchBrowser();
  try {
    // The certificate is self-signed: the browser is told to accept it (a real deployment's
    // certificate would be trusted); the page then connects wss:// to the same origin.
    const context = await browser.newContext({ ignoreHTTPSErrors: true, bypassCSP: true,
      viewport: { width: 480, height: 320 } });
    const page = await context.newPage();
    await page.goto(harness.viewerUrl());
    await waitFor(page, () => window.__viewer && window.__viewer.frames > 3, undefined, 30000);
    const first = await viewerStats(page);
    await sleep(1000);
    const later = await viewerStats(page);
    assert.ok(later.lastSeq > first.lastSeq, JSON.stringify({ first, later }));
    assert.equal(await page.evaluate(() => window.location.protocol), 'https:');
  } finally {
    await browser.close();
  }
});
