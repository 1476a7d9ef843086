// The page's decoder (clients/web/src/protocol.js) against messages the C++ encoder wrote
// (viewer-protocol-fixtures), and against truncated and malformed input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodeMessage, applyPose, helloMessage, parseFragment, socketPath, ProtocolError,
  PLACEMENT_POSE, PLACEMENT_VERTICES,
} from '../../clients/web/src/protocol.js';

const fixtures = process.env.CONTACTSIM_VIEWER_FIXTURES;
const dir = mkdtempSync(join(tmpdir(), 'viewer-fixtures-'));
execFileSync(fixtures, [dir]);
const read = (name) => {
  const b = readFileSync(join(dir, name));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
};
const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
const topologyBytes = read('topology.bin');
const frameBytes = read('frame.bin');
const keyframeBytes = read('keyframe.bin');
rmSync(dir, { recursive: true });

test('topology: ids, kinds, names, vertices, triangles', () => {
  const t = decodeMessage(topologyBytes);
  assert.equal(t.type, 'topology');
  assert.equal(t.version, expected.topologyVersion);
  assert.deepEqual(t.bodies.map((b) => b.id), expected.bodyIds);
  assert.deepEqual(t.bodies.map((b) => b.kind), expected.kinds);
  assert.deepEqual(t.bodies.map((b) => b.name), expected.names);
  assert.equal(t.bodies[0].placement, PLACEMENT_POSE);
  assert.equal(t.bodies[1].placement, PLACEMENT_VERTICES);
  assert.deepEqual(Array.from(t.bodies[0].triangles), [0, 1, 2, 2, 1, 3]);
  assert.equal(t.bodies[0].vertices.length, 12);
});

test('topology: the session\'s ground planes', () => {
  const t = decodeMessage(topologyBytes);
  assert.equal(t.planes.length, expected.planes.length);
  t.planes.forEach((p, i) => {
    assert.equal(p.id, expected.planes[i].id);
    // float32 on the wire: 1e-7 relative is its rounding.
    p.normal.forEach((v, k) => assert.ok(Math.abs(v - expected.planes[i].normal[k]) < 1e-6, `${v}`));
    assert.ok(Math.abs(p.offset - expected.planes[i].offset) < 1e-6, `${p.offset}`);
  });
});

test('topology without the plane flag (an older server): planes unknown, bodies intact', () => {
  // The plane section is the message's tail: 4 + 20 bytes per plane.
  const withoutPlanes = topologyBytes.slice(0, topologyBytes.byteLength - 4 - 20 * expected.planes.length);
  new DataView(withoutPlanes).setUint16(2, 0, true);
  const t = decodeMessage(withoutPlanes);
  assert.equal(t.planes, null);
  assert.deepEqual(t.bodies.map((b) => b.id), expected.bodyIds);
});

test('a ground plane with a zero or non-finite normal is refused', () => {
  const bad = topologyBytes.slice(0);
  const firstNormal = topologyBytes.byteLength - 20 * expected.planes.length + 4;
  for (const k of [0, 1, 2]) new DataView(bad).setFloat32(firstNormal + 4 * k, 0, true);
  assert.throws(() => decodeMessage(bad), /ground plane 0: normal of length 0/);
  new DataView(bad).setFloat32(firstNormal + 8, Number.NaN, true);
  assert.throws(() => decodeMessage(bad), ProtocolError);
});

test('frame: header, state, pose, vertices, contacts, totals', () => {
  const t = decodeMessage(topologyBytes);
  const f = decodeMessage(frameBytes);
  assert.equal(f.type, 'frame');
  assert.equal(f.keyframe, false);
  assert.equal(f.seq, expected.seq);
  assert.equal(f.time, expected.time);
  assert.equal(f.stepCount, expected.stepCount);
  assert.equal(f.coalesced, expected.coalesced);
  assert.equal(f.topologyVersion, expected.topologyVersion);
  assert.equal(f.state, expected.state);
  assert.equal(f.message, expected.message);
  assert.equal(f.contactsTotal, expected.contactsTotal);
  assert.equal(f.diagnostics.kineticEnergy, 0.75);
  assert.equal(f.diagnostics.activePairs, 2);
  // The rigid body: pose applied to the topology's reference vertices gives its world vertices.
  const rigid = f.bodies[0];
  assert.equal(rigid.placement, PLACEMENT_POSE);
  const ref = t.bodies[0].vertices;
  for (let i = 0; i < 4; ++i) {
    const p = applyPose(rigid.position, rigid.quaternion, [ref[3 * i], ref[3 * i + 1], ref[3 * i + 2]]);
    for (let k = 0; k < 3; ++k) {
      assert.ok(Math.abs(p[k] - expected.rigidWorld[3 * i + k]) < 1e-5,
        `vertex ${i}[${k}]: ${p[k]} vs ${expected.rigidWorld[3 * i + k]}`);
    }
  }
  const cloth = f.bodies[1];
  assert.equal(cloth.placement, PLACEMENT_VERTICES);
  assert.equal(cloth.vertices.length, 9);
  assert.equal(cloth.vertices[8], expected.clothZ2);
  assert.equal(f.contacts.count, 2);
  assert.deepEqual(Array.from(f.contacts.bodies), [5, 2, 5, 2]);
  assert.deepEqual(Array.from(f.contacts.normalImpulses.subarray(0, 3)), [0, 0, 2]);
  assert.deepEqual(Array.from(f.contacts.frictionImpulses.subarray(0, 3)), [0.25, 0, 0]);
  assert.equal(f.totals.count, 1);
  assert.equal(f.totals.ids[0], 5);
  assert.equal(f.totals.contactCounts[0], 2);
  assert.deepEqual(Array.from(f.totals.impulses), [0.5, 0, 4]);
});

test('keyframe flag', () => {
  const f = decodeMessage(keyframeBytes);
  assert.equal(f.keyframe, true);
  assert.equal(f.seq, 1);
  assert.equal(f.state, 'ACTIVE');
});

test('every truncation of a message is refused with a ProtocolError', () => {
  for (const bytes of [topologyBytes, frameBytes]) {
    for (let n = 0; n < bytes.byteLength; n += 4) {
      assert.throws(() => decodeMessage(bytes.slice(0, n)), ProtocolError, `length ${n}`);
    }
  }
});

test('wrong version, unknown type, bad triangle index are refused', () => {
  const wrongVersion = frameBytes.slice(0);
  new DataView(wrongVersion).setUint8(1, 9);
  assert.throws(() => decodeMessage(wrongVersion), /protocol version 9/);
  const wrongType = frameBytes.slice(0);
  new DataView(wrongType).setUint8(0, 77);
  assert.throws(() => decodeMessage(wrongType), /unknown message type 77/);
  const badIndex = topologyBytes.slice(0);
  // Body 0: 16 + 4 (id..len) + 12 ("pusher é" padded) + 8 counts + 48 vertices: first index.
  new DataView(badIndex).setUint32(16 + 8 + 12 + 8 + 48, 1000, true);
  assert.throws(() => decodeMessage(badIndex), /triangle index 1000/);
  assert.throws(() => decodeMessage('text'), ProtocolError);
});

test('hello and fragment', () => {
  assert.equal(helloMessage('abc', 'tok', 12, 30), 'hello 1 abc tok 12 30');
  assert.deepEqual(parseFragment('#session=abc&token=t%2Bk'), { session: 'abc', token: 't+k' });
  assert.deepEqual(parseFragment(''), { session: '', token: '' });
  // The socket names the session for a gateway (server: ParseViewerQuery), never the token.
  assert.equal(socketPath('r2-5f0c9a1b2c3d4e5f'), '/ws?session=r2-5f0c9a1b2c3d4e5f');
  assert.equal(socketPath('a/b?c&d'), '/ws?session=a%2Fb%3Fc%26d');
});
