// Decoder of the viewer's binary protocol (docs/viewer.md; server/viewer/viewer_protocol.h).
// Every message is little-endian and starts with u8 type, u8 version, u16 flags; arrays start at
// 4-byte offsets, so they are viewed in place as typed arrays (no copy). A message that is
// truncated, has the wrong version or counts that run past its end throws a ProtocolError.

export const PROTOCOL_VERSION = 1;
export const MSG_TOPOLOGY = 1;
export const MSG_FRAME = 2;
export const FLAG_KEYFRAME = 1;
export const FLAG_TOPOLOGY_PLANES = 1;  // kTopology: a ground-plane section follows the bodies

export const BODY_KINDS = ['rigid', 'static', 'kinematic', 'cloth', 'fem', 'hyperelastic'];
export const PLACEMENT_POSE = 0;
export const PLACEMENT_VERTICES = 1;
export const SESSION_STATES = ['ACTIVE', 'FAILED'];

export class ProtocolError extends Error {}

class Reader {
  constructor(buffer) {
    if (!(buffer instanceof ArrayBuffer)) throw new ProtocolError('expected an ArrayBuffer');
    this.buffer = buffer;
    this.view = new DataView(buffer);
    this.offset = 0;
  }
  need(bytes) {
    if (bytes < 0 || this.offset + bytes > this.buffer.byteLength) {
      throw new ProtocolError(`message truncated at byte ${this.offset} (needs ${bytes} more)`);
    }
  }
  u8() { this.need(1); return this.view.getUint8(this.offset++); }
  u16() { this.need(2); const v = this.view.getUint16(this.offset, true); this.offset += 2; return v; }
  u32() { this.need(4); const v = this.view.getUint32(this.offset, true); this.offset += 4; return v; }
  i32() { this.need(4); const v = this.view.getInt32(this.offset, true); this.offset += 4; return v; }
  f32() { this.need(4); const v = this.view.getFloat32(this.offset, true); this.offset += 4; return v; }
  f64() { this.need(8); const v = this.view.getFloat64(this.offset, true); this.offset += 8; return v; }
  i64() {
    this.need(8);
    const v = this.view.getBigInt64(this.offset, true);
    this.offset += 8;
    return Number(v);
  }
  align4() { this.offset = (this.offset + 3) & ~3; }
  f32s(n) {
    this.need(4 * n);
    const a = new Float32Array(this.buffer, this.offset, n);
    this.offset += 4 * n;
    return a;
  }
  i32s(n) {
    this.need(4 * n);
    const a = new Int32Array(this.buffer, this.offset, n);
    this.offset += 4 * n;
    return a;
  }
  u32s(n) {
    this.need(4 * n);
    const a = new Uint32Array(this.buffer, this.offset, n);
    this.offset += 4 * n;
    return a;
  }
  text(n) {
    this.need(n);
    const s = new TextDecoder().decode(new Uint8Array(this.buffer, this.offset, n));
    this.offset += n;
    return s;
  }
}

function decodeTopology(r, flags) {
  const count = r.u32();
  const version = r.i64();
  const bodies = [];
  for (let b = 0; b < count; ++b) {
    const id = r.i32();
    const kindCode = r.u8();
    const placement = r.u8();
    const nameLength = r.u16();
    const name = r.text(nameLength);
    r.align4();
    const numVertices = r.u32();
    const numTriangles = r.u32();
    const vertices = r.f32s(3 * numVertices);
    const triangles = r.u32s(3 * numTriangles);
    for (let i = 0; i < triangles.length; ++i) {
      if (triangles[i] >= numVertices) {
        throw new ProtocolError(`body ${id}: triangle index ${triangles[i]} >= ${numVertices}`);
      }
    }
    if (placement !== PLACEMENT_POSE && placement !== PLACEMENT_VERTICES) {
      throw new ProtocolError(`body ${id}: unknown placement ${placement}`);
    }
    bodies.push({ id, kind: BODY_KINDS[kindCode] ?? 'unknown', placement, name, vertices, triangles });
  }
  // The session's static ground planes {x : n . x = h}; null when the server did not say.
  let planes = null;
  if (flags & FLAG_TOPOLOGY_PLANES) {
    planes = [];
    const numPlanes = r.u32();
    for (let p = 0; p < numPlanes; ++p) {
      const id = r.i32();
      const normal = Array.from(r.f32s(3));
      const offset = r.f32();
      const length = Math.hypot(...normal);
      if (!(length > 0.5 && length < 2) || !Number.isFinite(offset)) {
        throw new ProtocolError(`ground plane ${id}: normal of length ${length}, offset ${offset}`);
      }
      planes.push({ id, normal, offset });
    }
  }
  return { type: 'topology', version, bodies, planes };
}

function vec3s(r, n) { return r.f32s(3 * n); }

function decodeFrame(r, flags) {
  const state = r.u8();
  r.u8();
  r.u16();
  const frame = {
    type: 'frame',
    keyframe: (flags & FLAG_KEYFRAME) !== 0,
    state: SESSION_STATES[state] ?? 'UNKNOWN',
    seq: r.i64(),
    time: r.f64(),
    stepCount: r.i64(),
    topologyVersion: r.i64(),
    coalesced: r.i64(),
    diagnostics: {
      kineticEnergy: r.f64(),
      potentialEnergy: r.f64(),
      totalEnergy: r.f64(),
      maxPenetration: r.f64(),
      activePairs: r.i32(),
      planeContacts: r.i32(),
      stickContacts: r.i32(),
      slipContacts: r.i32(),
      divergence: r.u32(),
    },
  };
  frame.contactsTotal = r.u32();
  const numBodies = r.u32();
  frame.bodies = [];
  for (let b = 0; b < numBodies; ++b) {
    const id = r.i32();
    const placement = r.u8();
    r.u8();
    r.u16();
    if (placement === PLACEMENT_POSE) {
      const p = r.f32s(7);
      frame.bodies.push({ id, placement, position: p.subarray(0, 3), quaternion: p.subarray(3, 7) });
    } else if (placement === PLACEMENT_VERTICES) {
      const n = r.u32();
      frame.bodies.push({ id, placement, vertices: vec3s(r, n) });
    } else {
      throw new ProtocolError(`body ${id}: unknown placement ${placement}`);
    }
  }
  const nc = r.u32();
  frame.contacts = {
    count: nc,
    bodies: r.i32s(2 * nc),
    points: vec3s(r, nc),
    normals: vec3s(r, nc),
    normalImpulses: vec3s(r, nc),
    frictionImpulses: vec3s(r, nc),
  };
  const nt = r.u32();
  frame.totals = {
    count: nt,
    ids: r.i32s(nt),
    contactCounts: r.i32s(nt),
    impulses: vec3s(r, nt),
    angularImpulses: vec3s(r, nt),
  };
  frame.message = r.text(r.u32());
  return frame;
}

// Decodes one message (an ArrayBuffer) into {type: 'topology', ...} or {type: 'frame', ...}.
export function decodeMessage(buffer) {
  const r = new Reader(buffer);
  const type = r.u8();
  const version = r.u8();
  const flags = r.u16();
  if (version !== PROTOCOL_VERSION) {
    throw new ProtocolError(`protocol version ${version}, this page speaks ${PROTOCOL_VERSION}`);
  }
  if (type === MSG_TOPOLOGY) return decodeTopology(r, flags);
  if (type === MSG_FRAME) return decodeFrame(r, flags);
  throw new ProtocolError(`unknown message type ${type}`);
}

// The hello the page sends first (the token never leaves the fragment otherwise).
export function helloMessage(sessionId, token, fromSeq = 0, maxRateHz = 0) {
  return `hello 1 ${sessionId} ${token} ${Math.max(0, Math.floor(fromSeq))} ${Math.floor(maxRateHz)}`;
}

// The WebSocket's path: the session id goes in the URL too (never the token), so that a gateway
// in front of several servers routes the socket to the one that owns the session; the server
// checks that it matches the hello's.
export function socketPath(sessionId) {
  return `/ws?session=${encodeURIComponent(sessionId)}`;
}

// Reads "#session=ID&token=TOKEN" (either may be missing).
export function parseFragment(hash) {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  return { session: params.get('session') ?? '', token: params.get('token') ?? '' };
}

// Applies a pose (position, quaternion (w, x, y, z)) to a reference point: R(q) p + t.
export function applyPose(position, quaternion, p) {
  const [w, x, y, z] = quaternion;
  const [px, py, pz] = p;
  // t = 2 q_v x p; p' = p + w t + q_v x t
  const tx = 2 * (y * pz - z * py);
  const ty = 2 * (z * px - x * pz);
  const tz = 2 * (x * py - y * px);
  return [
    px + w * tx + (y * tz - z * ty) + position[0],
    py + w * ty + (z * tx - x * tz) + position[1],
    pz + w * tz + (x * ty - y * tx) + position[2],
  ];
}

// Close codes the server uses, and whether the page should try again.
export const CLOSE_REASONS = {
  1001: { text: 'the server is stopping', retry: true },
  1006: { text: 'connection lost (server unreachable)', retry: true },
  4000: { text: 'the server refused a message', retry: false },
  4001: { text: 'refused: wrong or missing viewer token', retry: false },
  4004: { text: 'no such session', retry: true },
  4008: { text: 'no hello in time', retry: true },
  4010: { text: 'the session was closed', retry: false },
  4029: { text: 'too many viewers', retry: true },
};
