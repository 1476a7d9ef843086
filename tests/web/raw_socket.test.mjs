// The viewer's WebSocket against bytes no browser would send, over a raw TCP socket: every one
// is refused with a close code (or the connection dropped), and the server keeps serving.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startHarness } from './web_harness.mjs';

let harness;
let port;

before(async () => {
  harness = await startHarness(join(process.env.CONTACTSIM_SCENES_DIR, 'push_box.textproto'),
    ['--push-force-n', '0', '--step-sleep-us', '2000', '--max-viewers', '4',
      '--hello-timeout-s', '1']);
  port = Number(new URL(harness.base).port);
});
after(async () => { await harness?.stop(); });

// A client frame: FIN/opcode byte, masked payload; `declaredLength` may lie.
function frame(opcode, payload, { fin = true, declaredLength } = {}) {
  const length = declaredLength ?? payload.length;
  let header;
  if (length < 126) {
    header = Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | length]);
  } else if (length < 65536) {
    header = Buffer.alloc(4);
    header[0] = (fin ? 0x80 : 0) | opcode; header[1] = 0x80 | 126; header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = (fin ? 0x80 : 0) | opcode; header[1] = 0x80 | 127; header.writeBigUInt64BE(BigInt(length), 2);
  }
  const mask = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; ++i) body[i] ^= mask[i % 4];
  return Buffer.concat([header, mask, body]);
}

// Opens a WebSocket on `path`, sends `frames`, and resolves with the close code the server sent
// (0 when the connection ended without one) and the binary messages before it.
function exchange(frames, timeoutMs = 5000, toPort = port, stallMs = 0, path = '/ws') {
  return new Promise((resolve, reject) => {
    const socket = connect(toPort, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    const result = { code: 0, reason: '', messages: 0 };
    const timer = setTimeout(() => { socket.destroy(); resolve({ ...result, timedOut: true }); }, timeoutMs);
    socket.on('error', () => {});
    socket.on('close', () => { clearTimeout(timer); resolve(result); });
    socket.on('connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${toPort}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
        'Sec-WebSocket-Version: 13\r\n\r\n');
    });
    socket.on('data', (data) => {
      buffer = Buffer.concat([buffer, data]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!buffer.subarray(0, end).toString().startsWith('HTTP/1.1 101')) {
          reject(new Error(`no upgrade: ${buffer.subarray(0, end)}`));
          return;
        }
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        for (const f of frames) socket.write(f);
        if (stallMs > 0) {  // stop reading a moment after the hello, for stallMs
          setTimeout(() => { socket.pause(); setTimeout(() => socket.resume(), stallMs); }, 300);
        }
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
        if (opcode !== 0x8 && opcode !== 0x2 && opcode !== 0x9 && opcode !== 0xa) {
          result.badOpcode = opcode;  // the stream lost its framing
        }
        if (opcode === 0x8) {
          result.code = payload.length >= 2 ? payload.readUInt16BE(0) : 0;
          result.reason = payload.subarray(2).toString();
          socket.end();
        } else if (opcode === 0x2) {
          if (result.messages < 2) {
            (result.first ??= []).push({ type: payload[0], flags: payload.readUInt16LE(2) });
          }
          ++result.messages;
          result.bytes = (result.bytes ?? 0) + payload.length;
        }
      }
    });
  });
}

const TEXT = 0x1, BINARY = 0x2;
const hello = (token) => `hello 1 ${harness.session} ${token} 0 0`;

test('a binary message instead of the hello is refused (4000)', async () => {
  const r = await exchange([frame(BINARY, Buffer.from([1, 2, 3]))]);
  assert.equal(r.code, 4000, JSON.stringify(r));
});

test('an oversized text message is refused (4000)', async () => {
  const r = await exchange([frame(TEXT, 'x'.repeat(4000))]);
  assert.equal(r.code, 4000, JSON.stringify(r));
});

test('a fragmented hello is refused (4000)', async () => {
  const r = await exchange([frame(TEXT, hello(harness.token).slice(0, 10), { fin: false })]);
  assert.equal(r.code, 4000, JSON.stringify(r));
});

test('a malformed hello is refused, naming the problem (4000)', async () => {
  const r = await exchange([frame(TEXT, 'hello 1 a b c d')]);
  assert.equal(r.code, 4000);
  assert.match(r.reason, /from_seq/);
});

test('after the hello only "ping" keepalives are accepted', async () => {
  const ok = await exchange([frame(TEXT, hello(harness.token)), frame(TEXT, 'ping')], 1500);
  assert.ok(ok.messages >= 2 && ok.code === 0, JSON.stringify(ok));
  const bad = await exchange([frame(TEXT, hello(harness.token)), frame(TEXT, 'pong')], 1500);
  assert.equal(bad.code, 4000, JSON.stringify(bad));
});

test('a second hello is refused (4000) after frames began', async () => {
  const r = await exchange([frame(TEXT, hello(harness.token)), frame(TEXT, hello(harness.token))]);
  assert.equal(r.code, 4000, JSON.stringify(r));
});

test('an unknown session (4004) and a wrong token (4001) are refused', async () => {
  const unknown = await exchange([frame(TEXT, `hello 1 0123456789abcdef ${harness.token} 0 0`)]);
  assert.equal(unknown.code, 4004);
  const wrong = await exchange([frame(TEXT, hello('x'.repeat(40)))]);
  assert.equal(wrong.code, 4001);
  assert.equal(wrong.messages, 0);
});

test('a frame header declaring a huge payload does not take the server down', async () => {
  // 2 GiB declared, 16 bytes sent: the server drops the connection at once rather than wait
  // for (and buffer) the rest.
  const r = await exchange([frame(TEXT, 'x'.repeat(16), { declaredLength: 2 ** 31 })], 3000);
  assert.ok(!r.timedOut, 'the server waited for a 2 GiB payload');
  assert.equal(r.messages, 0);
  const s = await harness.stats();
  assert.ok(s.steps > 0);
  const ok = await exchange([frame(TEXT, hello(harness.token))], 1500);
  assert.ok(ok.messages >= 2, `a good viewer after it got ${ok.messages} messages`);
});

test('the right hello gets the topology, then a keyframe, then frames', async () => {
  const r = await exchange([frame(TEXT, hello(harness.token))], 1500);
  assert.ok(r.messages >= 3, JSON.stringify(r));
  // The topology's flag bit 0: a ground-plane section follows (this server always sends one);
  // the first frame's flag bit 0: a keyframe (docs/viewer.md, "The protocol").
  assert.deepEqual(r.first, [{ type: 1, flags: 1 }, { type: 2, flags: 1 }]);
});

test('the socket URL may name the session (a gateway routes by it); it must match the hello', async () => {
  const named = `/ws?session=${encodeURIComponent(harness.session)}`;
  const r = await exchange([frame(TEXT, hello(harness.token))], 1500, port, 0, named);
  assert.deepEqual(r.first, [{ type: 1, flags: 1 }, { type: 2, flags: 1 }], JSON.stringify(r));
  const other = await exchange([frame(TEXT, hello(harness.token))], 5000, port, 0,
    `/ws?session=r9-${harness.session}`);
  assert.equal(other.code, 4000, JSON.stringify(other));
  assert.match(other.reason, /URL's \?session=/);
  for (const query of ['token=x', `session=${harness.session}&token=x`, 'session=%zz']) {
    const bad = await exchange([frame(TEXT, hello(harness.token))], 5000, port, 0, `/ws?${query}`);
    assert.equal(bad.code, 4000, `${query}: ${JSON.stringify(bad)}`);
    assert.match(bad.reason, /^bad message: url/, query);
    assert.equal(bad.messages, 0, query);
  }
});

test('a socket that never says hello is closed (4008)', async () => {
  const r = await exchange([], 4000);
  assert.equal(r.code, 4008, JSON.stringify(r));
});

test('one viewer beyond --viewer-max-viewers is refused (4029) while the others stream', async () => {
  const holders = [0, 1, 2, 3].map(() => exchange([frame(TEXT, hello(harness.token))], 3000));
  await new Promise((r) => setTimeout(r, 1000));
  const extra = await exchange([frame(TEXT, hello(harness.token))], 1500);
  assert.equal(extra.code, 4029, JSON.stringify(extra));
  for (const held of await Promise.all(holders)) assert.ok(held.messages >= 2, JSON.stringify(held));
  // Once they are gone, a new viewer is served again.
  await new Promise((r) => setTimeout(r, 500));
  const after = await exchange([frame(TEXT, hello(harness.token))], 1500);
  assert.ok(after.messages >= 2, JSON.stringify(after));
});

test('the per-viewer byte budget caps what one viewer is sent', async () => {
  // A second server whose viewers may receive 4,000 bytes/s (plus one second of credit).
  const capped = await startHarness(join(process.env.CONTACTSIM_SCENES_DIR, 'push_box.textproto'),
    ['--push-force-n', '0', '--step-sleep-us', '2000', '--max-bytes-per-s', '4000']);
  try {
    const cappedPort = Number(new URL(capped.base).port);
    const line = `hello 1 ${capped.session} ${capped.token} 0 0`;
    const r = await exchange([frame(TEXT, line)], 3000, cappedPort);
    const free = await exchange([frame(TEXT, hello(harness.token))], 3000);
    console.log(`# 3 s: ${r.bytes} bytes in ${r.messages} messages capped, ` +
      `${free.bytes} bytes in ${free.messages} uncapped`);
    // 3 s at 4,000 bytes/s after 4,000 bytes of credit, plus at most one message past the limit.
    assert.ok(r.bytes <= 4000 * 4 + 2000, `${r.bytes} bytes`);
    assert.ok(r.messages >= 5, `${r.messages} messages`);
    assert.ok(free.messages > 2 * r.messages, `uncapped ${free.messages}, capped ${r.messages}`);
  } finally {
    await capped.stop();
  }
});

test('a viewer that stops reading for 4 s blocks only itself and then gets intact frames', async () => {
  // The 10k-vertex cloth (123 kB frames) fills the socket buffers in about a second, so the
  // server's writes to this reader block while it does not read.
  const slow = await startHarness(join(process.env.CONTACTSIM_SCENES_DIR, '../bench/viewer_cloth.textproto'),
    ['--push-force-n', '0']);
  try {
    const slowPort = Number(new URL(slow.base).port);
    const line = `hello 1 ${slow.session} ${slow.token} 0 0`;
    const reader = exchange([frame(TEXT, line)], 9000, slowPort);
    const stalled = exchange([frame(TEXT, line)], 9000, slowPort, 4000);
    const [r, s] = await Promise.all([reader, stalled]);
    assert.equal(s.badOpcode, undefined, 'a garbled frame reached the stalled client');
    assert.equal(r.badOpcode, undefined, 'a garbled frame reached the reading client');
    console.log(`# 9 s: ${r.messages} messages to the reader, ${s.messages} to the one that stalled 4 s`);
    assert.ok(s.messages >= 5 && r.messages > s.messages, `reader ${r.messages}, stalled ${s.messages}`);
  } finally {
    await slow.stop();
  }
});
