// The session viewer page: one WebSocket to the server (/ws?session=ID), a three.js scene (z up,
// orbit camera), a HUD and a small plot of each body's total contact force. The session id and
// the viewer token come from the URL fragment (#session=ID&token=TOKEN), which browsers never send
// to the server; the id also goes in the socket's URL (a gateway routes by it), the token only in
// the first WebSocket message.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import {
  decodeMessage, helloMessage, parseFragment, socketPath, PLACEMENT_POSE, CLOSE_REASONS,
} from './protocol.js';

const KIND_COLOURS = {
  rigid: 0x4f86c6, static: 0x8a8f98, kinematic: 0xd08c3c, cloth: 0x62b36f, fem: 0xc06fb8,
  hyperelastic: 0xb8606a, unknown: 0xaaaaaa,
};
const MAX_CONTACTS = 4096;
const PLOT_POINTS = 300;
const $ = (id) => document.getElementById(id);

// What the tests read (window.__viewer); nothing secret in it.
const stats = {
  status: 'starting', closeCode: 0, closeReason: '', lastSeq: 0, frames: 0, dropped: 0,
  fps: 0, stepsPerS: 0, contactsShown: 0, arrowsShown: 0, state: '', topologyVersion: -1,
  connections: 0, errors: 0, planes: null, renders: 0, webglError: '', bodyNames: [],
};
window.__viewer = stats;

// --- scene -------------------------------------------------------------------------------------
const canvas = $('scene');
// Without WebGL (disabled, blocked, no driver) the page says so and still shows the session's
// numbers and force plot; it never draws the scene.
let renderer = null;
let webglError = '';
// A software rasterizer (SwiftShader, llvmpipe: no GPU) draws every pixel on the CPU the page
// shares with everything else: there the page skips multisampling and high-DPI pixels, which
// multiply that work (4 samples per pixel, up to 4 pixels per CSS pixel).
function softwareWebgl() {
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
    const name = info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : '';
    gl?.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|softpipe|software/i.test(name);
  } catch {
    return false;
  }
}
const software = softwareWebgl();
stats.softwareWebgl = software;
try {
  renderer = new THREE.WebGLRenderer({ canvas, antialias: !software, preserveDrawingBuffer: true });
  renderer.setPixelRatio(software ? 1 : Math.min(window.devicePixelRatio, 2));
} catch (error) {
  webglError = `no 3D view: this browser gave the page no WebGL (${error.message ?? error})`;
  stats.errors += 1;
}
canvas.addEventListener('webglcontextlost', (event) => {
  event.preventDefault();
  webglError = 'no 3D view: the browser took the page\'s WebGL context away (reload the page)';
  stats.webglError = webglError;
  $('webgl-error').textContent = webglError;
  $('webgl-error').hidden = false;
});
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f5f7);
THREE.Object3D.DEFAULT_UP.set(0, 0, 1);
const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 100);
camera.up.set(0, 0, 1);
camera.position.set(1.5, -1.5, 1.0);
const controls = new OrbitControls(camera, canvas);
controls.target.set(0, 0, 0);
// The picture is redrawn only when something changed: a new frame, the camera, the size, the
// contact toggle (software WebGL spends most of a page's CPU time drawing).
let needsRender = true;
controls.addEventListener('change', () => { needsRender = true; });
scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(2, -3, 5);
scene.add(sun);
// The session's ground planes {x : n . x = h} (from the topology), each a surface with a 10 cm
// grid on it; before the first topology, or from a server that does not send them, the plane
// z = 0; with none, a faint reference grid at z = 0 only.
const planeGroup = new THREE.Group();
scene.add(planeGroup);
const groundMaterial = new THREE.MeshStandardMaterial({
  color: 0xdde1e6, roughness: 1, side: THREE.DoubleSide, polygonOffset: true,
  polygonOffsetFactor: 2, polygonOffsetUnits: 2,
});

function disposeGroup(group) {
  group.traverse((o) => { if (o.geometry) o.geometry.dispose(); });
  group.clear();
}

// `planes`: [{normal, offset}] or null; `centre`, `size`: the bodies' bounding box.
function buildPlanes(planes, centre, size) {
  disposeGroup(planeGroup);
  const extent = Math.max(6, 4 * size);
  const cells = Math.min(200, Math.round(extent / 0.1));
  const list = planes ?? [{ normal: [0, 0, 1], offset: 0 }];
  for (const p of list) {
    const n = new THREE.Vector3(...p.normal).normalize();
    // The point of the plane nearest the scene's centre: c - (n . c - h) n.
    const at = centre.clone().addScaledVector(n, -(n.dot(centre) - p.offset));
    const holder = new THREE.Group();
    holder.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), n);
    holder.position.copy(at);
    holder.add(new THREE.Mesh(new THREE.PlaneGeometry(extent, extent), groundMaterial));
    const grid = new THREE.GridHelper(extent, cells, 0x8a939d, 0xb9c0c8);
    grid.rotation.x = Math.PI / 2;
    holder.add(grid);
    planeGroup.add(holder);
  }
  if (list.length === 0) {
    const grid = new THREE.GridHelper(extent, cells, 0xd0d4da, 0xe4e7eb);
    grid.rotation.x = Math.PI / 2;
    planeGroup.add(grid);
  }
  stats.planes = planes === null ? null : planes.length;  // null: not sent (z = 0 drawn)
}
buildPlanes(null, new THREE.Vector3(), 1);

const bodyGroup = new THREE.Group();
scene.add(bodyGroup);
let bodies = new Map();  // id -> { mesh, placement, kind, name }
let topologyVersion = -1;

const contactPoints = new THREE.InstancedMesh(new THREE.SphereGeometry(1, 8, 6),
  new THREE.MeshBasicMaterial({ color: 0xe0312b }), MAX_CONTACTS);
contactPoints.count = 0;
contactPoints.frustumCulled = false;
scene.add(contactPoints);
const arrowPositions = new Float32Array(MAX_CONTACTS * 2 * 3);
const arrowGeometry = new THREE.BufferGeometry();
arrowGeometry.setAttribute('position', new THREE.BufferAttribute(arrowPositions, 3));
arrowGeometry.setDrawRange(0, 0);
const arrows = new THREE.LineSegments(arrowGeometry, new THREE.LineBasicMaterial({ color: 0xd62728 }));
arrows.frustumCulled = false;
scene.add(arrows);

function resize() {
  if (!renderer) return false;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.floor(w * renderer.getPixelRatio()) ||
      canvas.height !== Math.floor(h * renderer.getPixelRatio())) {
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(1, h);
    camera.updateProjectionMatrix();
    return true;
  }
  return false;
}

function applyTopology(t) {
  for (const body of bodies.values()) {
    body.mesh.geometry.dispose();
    body.mesh.material.dispose();
  }
  bodyGroup.clear();
  bodies = new Map();
  const box = new THREE.Box3();
  for (const b of t.bodies) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(b.vertices), 3));
    geometry.setIndex(new THREE.BufferAttribute(new Uint32Array(b.triangles), 1));
    geometry.computeVertexNormals();
    geometry.computeBoundingBox();
    box.union(geometry.boundingBox);
    const material = new THREE.MeshStandardMaterial({
      color: KIND_COLOURS[b.kind] ?? KIND_COLOURS.unknown, roughness: 0.6, metalness: 0.05,
      side: THREE.DoubleSide, flatShading: b.placement === PLACEMENT_POSE,
    });
    const mesh = new THREE.Mesh(geometry, material);
    mesh.frustumCulled = false;
    mesh.name = b.name;
    bodyGroup.add(mesh);
    bodies.set(b.id, { mesh, placement: b.placement, kind: b.kind, name: b.name });
  }
  const sceneCentre = box.isEmpty() ? new THREE.Vector3() : box.getCenter(new THREE.Vector3());
  const sceneSize = box.isEmpty() ? 1 : box.getSize(new THREE.Vector3()).length();
  buildPlanes(t.planes, sceneCentre, sceneSize);
  if (topologyVersion < 0 && !box.isEmpty()) {  // frame the scene once
    const centre = box.getCenter(new THREE.Vector3());
    const size = Math.max(0.2, box.getSize(new THREE.Vector3()).length());
    controls.target.copy(centre);
    camera.position.copy(centre).add(new THREE.Vector3(0.9 * size, -1.2 * size, 0.7 * size));
    controls.update();
  }
  topologyVersion = t.version;
  stats.topologyVersion = t.version;
  stats.bodyNames = t.bodies.map((b) => b.name);
  buildLegend(t.bodies);
}

let showContacts = true;
const dummy = new THREE.Object3D();  // builds the contact dots' matrices
let arrowScale = 0;  // metres per N s, adapted to the largest impulse seen (decaying)

function applyFrame(f) {
  for (const fb of f.bodies) {
    const body = bodies.get(fb.id);
    if (!body) continue;
    if (fb.placement === PLACEMENT_POSE) {
      body.mesh.position.set(fb.position[0], fb.position[1], fb.position[2]);
      body.mesh.quaternion.set(fb.quaternion[1], fb.quaternion[2], fb.quaternion[3], fb.quaternion[0]);
    } else {
      const attribute = body.mesh.geometry.getAttribute('position');
      if (attribute.array.length === fb.vertices.length) {
        attribute.array.set(fb.vertices);  // in place
        attribute.needsUpdate = true;
        body.mesh.geometry.computeVertexNormals();
      }
    }
  }
  const c = f.contacts;
  const n = Math.min(c.count, MAX_CONTACTS);
  let maxImpulse = 0;
  for (let i = 0; i < n; ++i) {
    const jx = c.normalImpulses[3 * i] + c.frictionImpulses[3 * i];
    const jy = c.normalImpulses[3 * i + 1] + c.frictionImpulses[3 * i + 1];
    const jz = c.normalImpulses[3 * i + 2] + c.frictionImpulses[3 * i + 2];
    maxImpulse = Math.max(maxImpulse, Math.hypot(jx, jy, jz));
  }
  const target = maxImpulse > 0 ? 0.15 / maxImpulse : arrowScale;
  arrowScale = arrowScale === 0 ? target : Math.min(target, arrowScale * 1.02);
  const radius = 0.006;
  let shownArrows = 0;
  for (let i = 0; i < n && showContacts; ++i) {
    const px = c.points[3 * i], py = c.points[3 * i + 1], pz = c.points[3 * i + 2];
    dummy.position.set(px, py, pz);
    dummy.scale.setScalar(radius);
    dummy.updateMatrix();
    contactPoints.setMatrixAt(i, dummy.matrix);
    const jx = c.normalImpulses[3 * i] + c.frictionImpulses[3 * i];
    const jy = c.normalImpulses[3 * i + 1] + c.frictionImpulses[3 * i + 1];
    const jz = c.normalImpulses[3 * i + 2] + c.frictionImpulses[3 * i + 2];
    const a = 6 * shownArrows;
    arrowPositions[a] = px;
    arrowPositions[a + 1] = py;
    arrowPositions[a + 2] = pz;
    arrowPositions[a + 3] = px + arrowScale * jx;
    arrowPositions[a + 4] = py + arrowScale * jy;
    arrowPositions[a + 5] = pz + arrowScale * jz;
    ++shownArrows;
  }
  contactPoints.count = showContacts ? n : 0;
  contactPoints.instanceMatrix.needsUpdate = true;
  arrowGeometry.setDrawRange(0, 2 * shownArrows);
  arrowGeometry.attributes.position.needsUpdate = true;
  stats.contactsShown = contactPoints.count;
  stats.arrowsShown = shownArrows;
}

// --- HUD and plot ------------------------------------------------------------------------------
const plotColours = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2',
  '#7f7f7f', '#bcbd22', '#17becf'];
let series = new Map();  // body id -> number[] (force [N])
let names = new Map();

function buildLegend(list) {
  names = new Map(list.map((b) => [b.id, b.name || `body ${b.id}`]));
  series = new Map(list.filter((b) => b.kind !== 'static').slice(0, plotColours.length)
    .map((b) => [b.id, []]));
}

let lastStepForDt = null;
function recordForces(f) {
  // Totals are impulses over the frame's last step; force = |J| / dt with dt from the frames.
  let dt = 0;
  if (lastStepForDt && f.stepCount > lastStepForDt.step) {
    dt = (f.time - lastStepForDt.time) / (f.stepCount - lastStepForDt.step);
  }
  lastStepForDt = { step: f.stepCount, time: f.time };
  if (!(dt > 0)) return;
  const t = f.totals;
  const index = new Map();
  for (let i = 0; i < t.count; ++i) index.set(t.ids[i], i);
  for (const [id, values] of series) {
    const i = index.get(id);
    const force = i === undefined ? 0 :
      Math.hypot(t.impulses[3 * i], t.impulses[3 * i + 1], t.impulses[3 * i + 2]) / dt;
    values.push(force);
    if (values.length > PLOT_POINTS) values.shift();
  }
}

function drawPlot() {
  const plot = $('plot');
  const g = plot.getContext('2d');
  const w = plot.width, h = plot.height;
  g.clearRect(0, 0, w, h);
  g.fillStyle = 'rgba(255,255,255,0.85)';
  g.fillRect(0, 0, w, h);
  let max = 1e-9;
  for (const values of series.values()) for (const v of values) max = Math.max(max, v);
  g.font = '11px sans-serif';
  g.fillStyle = '#333';
  g.fillText(`total contact force per body [N], max ${max.toPrecision(3)}`, 6, 12);
  let k = 0;
  for (const [id, values] of series) {
    const colour = plotColours[k % plotColours.length];
    g.strokeStyle = colour;
    g.beginPath();
    values.forEach((v, i) => {
      const x = (i / (PLOT_POINTS - 1)) * (w - 8) + 4;
      const y = h - 4 - (v / max) * (h - 24);
      if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
    });
    g.stroke();
    g.fillStyle = colour;
    g.fillText(names.get(id) ?? `body ${id}`, 6 + 90 * (k % 4), h - 6 - 12 * Math.floor(k / 4));
    ++k;
  }
}

function setStatus(text, kind) {
  const el = $('status');
  el.textContent = text;
  el.className = kind;
  stats.status = text;
}

let fpsWindow = [];  // receive times [ms] of the last second's frames
let stepWindow = [];  // [time ms, step count]
function updateHud(f) {
  const now = performance.now();
  fpsWindow.push(now);
  while (fpsWindow.length && fpsWindow[0] < now - 1000) fpsWindow.shift();
  stepWindow.push([now, f.stepCount]);
  while (stepWindow.length > 2 && stepWindow[0][0] < now - 1000) stepWindow.shift();
  const span = (stepWindow[stepWindow.length - 1][0] - stepWindow[0][0]) / 1000;
  stats.fps = fpsWindow.length;
  stats.stepsPerS = span > 0 ? (stepWindow[stepWindow.length - 1][1] - stepWindow[0][1]) / span : 0;
  stats.state = f.state;
  hudFrame = f;
}

// The HUD's text, at most HUD_INTERVAL_MS apart (each write costs the page a layout).
const HUD_INTERVAL_MS = 100;
let hudFrame = null;
let hudDrawnAt = -Infinity;
function drawHud(now) {
  if (!hudFrame || now - hudDrawnAt < HUD_INTERVAL_MS) return;
  hudDrawnAt = now;
  const f = hudFrame;
  hudFrame = null;
  $('hud-time').textContent = `${f.time.toFixed(3)} s`;
  $('hud-steps').textContent = `${f.stepCount} (${stats.stepsPerS.toFixed(0)} steps/s)`;
  $('hud-fps').textContent = `${stats.fps} frames/s`;
  $('hud-dropped').textContent = `${stats.dropped}`;
  $('hud-seq').textContent = `${f.seq}`;
  $('hud-contacts').textContent = `${f.contactsTotal}`;
  const state = $('hud-state');
  state.textContent = f.state === 'FAILED' ? `FAILED: ${f.message}` : f.state;
  state.className = f.state === 'FAILED' ? 'failed' : 'active';
  drawPlot();
}

// --- connection --------------------------------------------------------------------------------
const fragment = parseFragment(window.location.hash);
let latestFrame = null;
let socket = null;
let retryTimer = null;

function connect() {
  if (!fragment.session || !fragment.token) {
    setStatus('This viewer URL lacks its session id or viewer token (#session=ID&token=TOKEN).', 'refused');
    $('token-form').hidden = false;
    return;
  }
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  socket = new WebSocket(`${scheme}://${window.location.host}${socketPath(fragment.session)}`);
  socket.binaryType = 'arraybuffer';
  setStatus(stats.lastSeq ? `reconnecting (resuming after seq ${stats.lastSeq})…` : 'connecting…', 'waiting');
  socket.onopen = () => {
    ++stats.connections;
    socket.send(helloMessage(fragment.session, fragment.token, stats.lastSeq ? stats.lastSeq + 1 : 0, 0));
    // Keepalive: the server closes a socket that says nothing for 30 s.
    const current = socket;
    const keepalive = setInterval(() => {
      if (current.readyState === WebSocket.OPEN) current.send('ping'); else clearInterval(keepalive);
    }, 10000);
  };
  socket.onmessage = (event) => {
    let message;
    try {
      message = decodeMessage(event.data);
    } catch (error) {
      ++stats.errors;
      setStatus(`bad message from the server: ${error.message}`, 'refused');
      socket.close(4000, 'bad message');
      return;
    }
    if (message.type === 'topology') {
      applyTopology(message);
      return;
    }
    if (stats.lastSeq && message.seq > stats.lastSeq + 1 + message.coalesced) {
      stats.dropped += message.seq - stats.lastSeq - 1 - message.coalesced;
    }
    stats.dropped += message.coalesced;
    stats.lastSeq = message.seq;
    ++stats.frames;
    latestFrame = message;
    recordForces(message);
    updateHud(message);
    setStatus(`live: session ${fragment.session}`, 'live');
  };
  socket.onclose = (event) => {
    if (stats.status.startsWith('bad message')) return;  // refused by the page itself
    stats.closeCode = event.code;
    stats.closeReason = event.reason;
    const known = CLOSE_REASONS[event.code] ?? { text: `connection closed (${event.code})`, retry: true };
    const reason = event.reason ? `${known.text}: ${event.reason}` : known.text;
    if (known.retry) {
      setStatus(`${reason} — reconnecting…`, 'waiting');
      retryTimer = setTimeout(connect, 1000);
    } else {
      setStatus(reason, 'refused');
      if (event.code === 4001) $('token-form').hidden = false;  // let the user give another
    }
  };
}

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const session = $('token-session').value.trim() || fragment.session;
  const token = $('token-value').value.trim();
  window.location.hash = `session=${encodeURIComponent(session)}&token=${encodeURIComponent(token)}`;
  window.location.reload();
});
$('show-contacts').addEventListener('change', (event) => {
  showContacts = event.target.checked;
  if (!showContacts) {
    contactPoints.count = 0;
    arrowGeometry.setDrawRange(0, 0);
    stats.contactsShown = 0;
    stats.arrowsShown = 0;
  }
  needsRender = true;
});
if (fragment.session) $('token-session').value = fragment.session;

function animate(now) {
  if (resize()) needsRender = true;
  if (latestFrame) {
    applyFrame(latestFrame);
    latestFrame = null;
    needsRender = true;
  }
  drawHud(now);
  controls.update();
  if (needsRender && renderer && !webglError) {
    renderer.render(scene, camera);
    ++stats.renders;
    needsRender = false;
  }
  requestAnimationFrame(animate);
}

if (webglError) {
  stats.webglError = webglError;
  $('webgl-error').textContent = webglError;
  $('webgl-error').hidden = false;
}
connect();
requestAnimationFrame(animate);
