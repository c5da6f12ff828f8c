// The collision playground (the three.js collision post, in its own
// medium): the collide scene of `softpick view --builtin collide`, drawn by
// three.js; the spheres driven as the desktop viewer drives them (its
// src/viewer/drive.rs: speed built up while a key is held, stops at
// contacts, ground following), every ray and collision test softpick's:
// `Scene.sweepMove` (the core's sweep_move) and `Scene.raycast` (first hits).

import * as THREE from 'three';
import { OBJLoader } from 'three/addons/loaders/OBJLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { Line2 } from 'three/addons/lines/Line2.js';
import { LineGeometry } from 'three/addons/lines/LineGeometry.js';
import { LineMaterial } from 'three/addons/lines/LineMaterial.js';
import { Scene as SoftScene } from 'softpick';
import { ready, idColor, showError, fmtUs } from './common.js';

const W = 860, H = 500;
const $ = (id) => document.getElementById(id);
const errorEl = $('error');

// The viewer's driving constants (src/viewer/drive.rs), in units of the
// scene's size (`unit`: half its bounding box's diagonal).
const ACCEL = 0.2;         // speed gained per second of holding a key
const MAX_SPEED = 0.2;     // the highest speed
const TURN_RATE = 1.5;     // radians per second
const MAX_TICK = 0.1;      // the longest tick, seconds
const MAX_STEP_UP = 0.4;   // the highest step climbed, a fraction of the height
const FORWARD_LINE = 1.5;  // the blue line, in radii
const MOTION_LINE_SECONDS = 1; // the green line: the distance travelled in this long

// --- the collide scene (src/viewer/playground.rs, point for point; the page
// test compares it with the core's, web/examples/collide_scene.rs) ----------
const V = (x, y, z) => new THREE.Vector3(x, y, z);

/** `t` or its reverse, whichever has its normal pointing away from `inside` (outward for a convex solid). */
function outward(p, inside, t) {
  const [a, b, c] = t.map((i) => p[i]);
  const n = b.clone().sub(a).cross(c.clone().sub(a));
  return n.dot(a.clone().sub(inside)) < 0 ? [t[0], t[2], t[1]] : t;
}

/** A convex solid from its corners and quads (a triangle repeats its first corner). */
function solid(corners, quads) {
  const mean = corners.reduce((s, p) => s.add(p), V(0, 0, 0)).multiplyScalar(1 / corners.length);
  const tris = [];
  for (const q of quads) {
    for (const t of [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]) {
      if (t[0] === t[2] || t[1] === t[2]) continue;
      tris.push(outward(corners, mean, t));
    }
  }
  return { corners, tris };
}

function cuboid(lo, hi) {
  const corners = [];
  for (let i = 0; i < 8; i++) corners.push(V(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z));
  return solid(corners, [[0, 1, 3, 2], [4, 5, 7, 6], [0, 1, 5, 4], [2, 3, 7, 6], [0, 2, 6, 4], [1, 3, 7, 5]]);
}

/** A UV sphere: `seg` segments around Y, `rings` rings pole to pole. */
function uvSphere(r, seg, rings) {
  const p = [V(0, r, 0)];
  for (let i = 1; i < rings; i++) {
    const polar = (Math.PI * i) / rings;
    for (let j = 0; j < seg; j++) {
      const az = (2 * Math.PI * j) / seg;
      p.push(V(r * Math.sin(polar) * Math.cos(az), r * Math.cos(polar), r * Math.sin(polar) * Math.sin(az)));
    }
  }
  p.push(V(0, -r, 0));
  const bottom = p.length - 1;
  const at = (i, j) => 1 + (i - 1) * seg + (j % seg);
  const tris = [];
  for (let j = 0; j < seg; j++) {
    tris.push([0, at(1, j), at(1, j + 1)]);
    tris.push([bottom, at(rings - 1, j), at(rings - 1, j + 1)]);
    for (let i = 1; i < rings - 1; i++) {
      tris.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
      tris.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
    }
  }
  return { corners: p, tris: tris.map((t) => outward(p, V(0, 0, 0), t)) };
}

export const SPHERE_RADIUS = 1;
export const WALL = [V(-2.01, 0, 0), V(-1.99, 2.5, 4)];
const PARTS = [
  ['floor', { corners: [V(-14, 0, -8), V(-14, 0, 6), V(12, 0, 6), V(12, 0, -8)], tris: [[0, 1, 2], [0, 2, 3]] }, [150, 150, 140]],
  ['ramp', solid([V(-10, 0, -4.5), V(-10, 0, -1.5), V(-6, 0, -4.5), V(-6, 0, -1.5), V(-6, 1, -4.5), V(-6, 1, -1.5)],
    [[0, 2, 3, 1], [0, 1, 5, 4], [2, 4, 5, 3], [0, 4, 2, 0], [1, 3, 5, 1]]), [200, 170, 120]],
  ['step', cuboid(V(-6, 0, -4.5), V(-2, 1, -1.5)), [170, 140, 110]],
  ['wall', cuboid(WALL[0], WALL[1]), [210, 210, 225]],
];
const SPHERES = [['sphere_a', V(-7, 1.05, 2), [230, 120, 60]], ['sphere_b', V(-11, 1.05, 2), [90, 150, 220]]];
const PICK_TEST_AT = V(6, 0, -2);

function geometryOf({ corners, tris }) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(corners.flatMap((p) => [p.x, p.y, p.z]), 3));
  g.setIndex(tris.flat());
  g.computeVertexNormals();
  return g;
}

const rgb = ([r, g, b]) => new THREE.Color(r / 255, g / 255, b / 255);

// --- three.js: drawing ---------------------------------------------------------
const renderer = new THREE.WebGLRenderer({ canvas: $('gl'), antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
renderer.setSize(W, H, false);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x30343c);
scene.add(new THREE.HemisphereLight(0xffffff, 0x505060, 2.0));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(-3, 8, 5);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(45, W / H, 0.1, 200);
camera.position.set(-5, 10, 15);
const controls = new OrbitControls(camera, $('gl'));
controls.mouseButtons = { LEFT: -1, MIDDLE: THREE.MOUSE.DOLLY, RIGHT: THREE.MOUSE.ROTATE };
controls.target.set(-3, 0, -0.5);
controls.update();

const meshes = []; // three.js meshes by softpick object id
function addMesh(name, geometry, color, position = V(0, 0, 0), quaternion = new THREE.Quaternion()) {
  const m = new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({ color: rgb(color), flatShading: true, roughness: 0.8 }));
  m.name = name;
  m.position.copy(position);
  m.quaternion.copy(quaternion);
  scene.add(m);
  m.updateMatrixWorld(true);
  return m;
}
for (const [name, part, color] of PARTS) meshes.push(addMesh(name, geometryOf(part), color));
// node +Z turned to world +X: the spheres' forward points along their lane
const turned = new THREE.Quaternion().setFromAxisAngle(V(0, 1, 0), Math.PI / 2);
for (const [name, centre, color] of SPHERES) meshes.push(addMesh(name, geometryOf(uvSphere(SPHERE_RADIUS, 16, 10)), color, centre, turned));
// the pick test's scene (models/builtin.obj, the built-in scene's source), its meshes named pick_*
const obj = new OBJLoader().parse(await (await fetch('/models/builtin.obj')).text());
let k = 0;
obj.traverse((o) => {
  if (!o.isMesh) return;
  const g = o.geometry.clone();
  g.computeVertexNormals();
  meshes.push(addMesh(`pick_${o.name}`, g, idColor(k++), PICK_TEST_AT));
});

// --- softpick: the same meshes, for every ray and collision test ------------------
await ready();
const soft = new SoftScene();
for (const m of meshes) {
  const g = m.geometry;
  const index = g.index ? Uint32Array.from(g.index.array) : null;
  const geo = soft.addGeometry(Float32Array.from(g.attributes.position.array), index);
  const id = soft.addObject(geo, m.matrixWorld.elements);
  if (id !== meshes.indexOf(m)) throw new Error(`softpick gave object ${id} to mesh ${m.name}`);
}
const b = soft.bounds;
// the scene's size and the contact skin, as the viewer sets them
const unit = Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]) / 2;
const skin = unit * 0.02 * 0.1;
const others = (id) => meshes.map((_, k) => k).filter((k) => k !== id);

// --- driving (src/viewer/drive.rs) -------------------------------------------------
/** The driven spheres, by ascending object id. */
let movers = [];
const held = new Set();
let ground = false;
const log = [];

function say(line) {
  log.push(line);
  if (log.length > 200) log.shift();
  $('log').textContent = log.join('\n');
  $('log').scrollTop = 1e9;
}

function worldBox(id) {
  return new THREE.Box3().setFromObject(meshes[id]);
}

/** The sphere's forward: its node's +Z in world space, flat, turned by its heading. */
function forward(m) {
  const z = V(0, 0, 1).transformDirection(meshes[m.id].matrixWorld);
  const f = V(z.x, 0, z.z);
  if (f.lengthSq() < 1e-12) f.set(0, 0, 1);
  return f.normalize().applyAxisAngle(V(0, 1, 0), m.heading);
}

function worldVelocity(m) {
  const f = forward(m);
  const right = f.clone().cross(V(0, 1, 0));
  return f.multiplyScalar(m.speed.x).add(right.multiplyScalar(m.speed.y)).add(V(0, m.speed.z, 0));
}

/** Where a sphere is and goes: centre, radius, forward, velocity, and the first other object ahead (softpick's first hit). */
function look(m) {
  const box = worldBox(m.id);
  const centre = box.getCenter(V(0, 0, 0));
  const radius = Math.max(...box.getSize(V(0, 0, 0)).toArray()) / 2;
  const fwd = forward(m);
  const velocity = worldVelocity(m);
  const dir = velocity.lengthSq() > 0 ? velocity.clone().normalize() : fwd;
  const h = soft.raycast(centre.toArray(), dir.toArray(), { objects: others(m.id) });
  const ahead = h ? { id: h.object, name: meshes[h.object].name, point: V(...h.point), distance: h.distance } : null;
  return { centre, radius, fwd, velocity, ahead };
}

function select(id) {
  const i = movers.findIndex((m) => m.id === id);
  const mesh = meshes[id];
  if (i >= 0) {
    movers.splice(i, 1);
    mesh.material.emissive.setHex(0x000000);
    say(`drive remove ${mesh.name}`);
  } else {
    const m = { id, name: mesh.name, heading: 0, speed: V(0, 0, 0), latched: false, lines: null };
    movers.push(m);
    movers.sort((a, b) => a.id - b.id);
    mesh.material.emissive.setHex(0x806000);
    const f = forward(m);
    say(`drive add ${mesh.name} forward=(${f.x.toFixed(3)}, ${f.y.toFixed(3)}, ${f.z.toFixed(3)})`);
  }
  refreshLines();
}

/** Moves `id` by `d` with softpick's sweep_move; three.js's mesh follows. */
function sweep(id, d) {
  const r = soft.sweepMove(id, d.toArray(), skin);
  meshes[id].position.add(V(...r.allowed));
  meshes[id].updateMatrixWorld(true);
  return r;
}

/** Ground following: onto the highest surface under the box it will cover after moving by the horizontal `d` (drive.rs's settle). */
function settle(id, d) {
  const box = worldBox(id);
  const lo = box.min.clone().add(d), hi = box.max.clone().add(d);
  const mid = lo.clone().add(hi).multiplyScalar(0.5);
  let top = -Infinity;
  for (const [x, z] of [[mid.x, mid.z], [lo.x, lo.z], [lo.x, hi.z], [hi.x, lo.z], [hi.x, hi.z]]) {
    const h = soft.raycast([x, box.max.y, z], [0, -1, 0], { objects: others(id) });
    if (h) top = Math.max(top, h.point[1]);
  }
  if (!Number.isFinite(top)) return;
  const rise = top + 2 * skin - box.min.y;
  const height = box.max.y - box.min.y;
  if (rise > MAX_STEP_UP * height || Math.abs(rise) <= skin * 0.5) return;
  sweep(id, V(0, rise, 0));
}

function push() {
  const axis = (p, m) => (p.some((k) => held.has(k)) ? 1 : 0) - (m.some((k) => held.has(k)) ? 1 : 0);
  return {
    push: V(axis(['KeyW'], ['KeyS']), axis(['KeyD'], ['KeyA']), axis(['Space'], ['ControlLeft', 'ControlRight'])),
    turn: axis(['ArrowLeft'], ['ArrowRight']),
  };
}

let tickUs = [];
function tick(dt) {
  if (!movers.length) return;
  dt = Number.isFinite(dt) ? Math.min(Math.max(dt, 0), MAX_TICK) : 0;
  const input = push();
  const pushed = input.push.lengthSq() > 0;
  const accel = ACCEL * unit, max = MAX_SPEED * unit;
  const t0 = performance.now();
  for (const m of movers) {
    if (input.turn) m.heading = (m.heading + input.turn * TURN_RATE * dt) % (2 * Math.PI);
    if (m.latched && !pushed) m.latched = false;
    if (!m.latched) m.speed.add(input.push.clone().multiplyScalar(accel * dt));
    if (ground) m.speed.z = 0;
    const s = m.speed.length();
    if (s > max) m.speed.multiplyScalar(max / s);
  }
  for (const m of movers) {
    const d = worldVelocity(m).multiplyScalar(dt);
    if (ground) {
      d.y = 0;
      settle(m.id, d);
    }
    if (d.lengthSq() === 0) continue;
    const r = sweep(m.id, d);
    if (!r.blocked) continue;
    m.speed.set(0, 0, 0);
    m.latched = true;
    const other = r.other >= 0 ? r.other : r.hit?.object;
    const o = movers.find((x) => x.id === other);
    if (o && o.speed.lengthSq() > 0) { o.speed.set(0, 0, 0); o.latched = true; }
    const at = r.hit ? r.hit.point.map((v) => v.toFixed(3)).join(', ') : '?';
    say(`collide ${m.name} with ${meshes[other]?.name ?? '?'} at (${at})`);
  }
  tickUs.push((performance.now() - t0) * 1000);
  if (tickUs.length > 30) tickUs.shift();
}

function stopAll() {
  for (const m of movers) m.speed.set(0, 0, 0);
  say('stop all');
}

// --- the three lines ------------------------------------------------------------
function line(color) {
  const l = new Line2(new LineGeometry(), new LineMaterial({ color, linewidth: 3, depthTest: false, resolution: new THREE.Vector2(W, H) }));
  l.renderOrder = 5;
  l.frustumCulled = false;
  l.ends = null;
  scene.add(l);
  return l;
}
function setLine(l, a, b) {
  l.visible = !!b;
  l.ends = b ? [a.x, a.y, a.z, b.x, b.y, b.z] : null;
  if (b) l.geometry.setPositions(l.ends);
}
const lineSets = new Map();
function refreshLines() {
  for (const [id, set] of lineSets) {
    if (!movers.some((m) => m.id === id)) {
      for (const l of Object.values(set)) scene.remove(l);
      lineSets.delete(id);
    }
  }
  for (const m of movers) {
    if (!lineSets.has(m.id)) lineSets.set(m.id, { blue: line(0x3060ff), green: line(0x20c040), red: line(0xff3030) });
    const set = lineSets.get(m.id);
    const k = look(m);
    m.look = k;
    setLine(set.blue, k.centre, k.centre.clone().add(k.fwd.clone().multiplyScalar(FORWARD_LINE * k.radius)));
    setLine(set.green, k.centre, k.velocity.lengthSq() > 0 ? k.centre.clone().add(k.velocity.clone().multiplyScalar(MOTION_LINE_SECONDS)) : null);
    setLine(set.red, k.centre, k.ahead ? k.ahead.point : null);
  }
}

function table() {
  const rows = SPHERES.map(([name]) => {
    const id = meshes.findIndex((m) => m.name === name);
    const m = movers.find((x) => x.id === id);
    const c = worldBox(id).getCenter(V(0, 0, 0));
    const speed = m ? m.look?.velocity.length() ?? 0 : 0;
    const ahead = m?.look?.ahead ? `${m.look.ahead.name} ${m.look.ahead.distance.toFixed(2)}` : '–';
    return `<tr data-name="${name}" class="${m ? 'current' : ''}"><td>${name}</td><td class="mono">${c.x.toFixed(2)}, ${c.y.toFixed(2)}, ${c.z.toFixed(2)}</td><td class="mono">${speed.toFixed(2)}</td><td>${ahead}</td></tr>`;
  });
  $('spheres').querySelector('tbody').innerHTML = rows.join('');
  $('tick-us').textContent = tickUs.length ? `${fmtUs(tickUs.reduce((a, c) => a + c, 0) / tickUs.length)} (sweep_move per sphere)` : '–';
}

// --- input --------------------------------------------------------------------------
const KEYS = new Set(['KeyW', 'KeyS', 'KeyA', 'KeyD', 'Space', 'ControlLeft', 'ControlRight', 'ArrowLeft', 'ArrowRight']);
window.addEventListener('keydown', (ev) => {
  if (ev.target.tagName === 'INPUT') return;
  if (KEYS.has(ev.code)) { held.add(ev.code); ev.preventDefault(); }
  else if (ev.code === 'KeyG') stopAll();
  else if (ev.code === 'KeyU') { $('ground').checked = !$('ground').checked; ground = $('ground').checked; say(`ground following ${ground ? 'on' : 'off'}`); }
});
window.addEventListener('keyup', (ev) => held.delete(ev.code));
window.addEventListener('blur', () => held.clear());
$('ground').addEventListener('change', () => { ground = $('ground').checked; });

/** Click: softpick's first hit through the pixel; a sphere toggles its selection. */
let down = null;
$('gl').addEventListener('pointerdown', (ev) => { if (ev.button === 0) down = [ev.offsetX, ev.offsetY]; });
$('gl').addEventListener('pointerup', (ev) => {
  if (ev.button !== 0 || !down || Math.hypot(ev.offsetX - down[0], ev.offsetY - down[1]) > 4) return;
  down = null;
  try {
    const rc = new THREE.Raycaster();
    rc.setFromCamera(new THREE.Vector2((ev.offsetX / W) * 2 - 1, 1 - (ev.offsetY / H) * 2), camera);
    const h = soft.raycast(rc.ray.origin.toArray(), rc.ray.direction.toArray());
    if (h && meshes[h.object].name.startsWith('sphere_')) select(h.object);
  } catch (e) {
    showError(errorEl, e);
  }
});

// --- the loop -----------------------------------------------------------------------
let last = performance.now();
function frame() {
  requestAnimationFrame(frame);
  const now = performance.now();
  const dt = (now - last) / 1000;
  last = now;
  try {
    tick(dt);
    refreshLines();
    table();
    renderer.render(scene, camera);
  } catch (e) {
    showError(errorEl, e);
  }
}

/** For the page's tests: where things are and where they are drawn. */
window.playground = {
  W, H, unit, skin,
  screenOf(name) {
    const m = meshes.find((x) => x.name === name);
    const c = worldBox(meshes.indexOf(m)).getCenter(V(0, 0, 0)).project(camera);
    return { x: ((c.x + 1) / 2) * W, y: ((1 - c.y) / 2) * H };
  },
  state() {
    return SPHERES.map(([name]) => {
      const id = meshes.findIndex((m) => m.name === name);
      const m = movers.find((x) => x.id === id);
      const set = lineSets.get(id);
      const ends = (l) => (l?.visible ? l.ends : null);
      return {
        name, selected: !!m, centre: worldBox(id).getCenter(V(0, 0, 0)).toArray(),
        speed: m ? m.speed.length() : 0, latched: !!m?.latched,
        ahead: m?.look?.ahead ? { name: m.look.ahead.name, point: m.look.ahead.point.toArray(), distance: m.look.ahead.distance } : null,
        lines: { blue: ends(set?.blue), green: ends(set?.green), red: ends(set?.red) },
      };
    });
  },
  log: () => [...log],
  /** Every mesh as softpick was given it: name, world positions (flat), triangles (flat vertex indices). */
  meshes() {
    return meshes.map((m) => {
      const p = m.geometry.attributes.position;
      const v = V(0, 0, 0);
      const positions = [];
      for (let i = 0; i < p.count; i++) positions.push(...v.fromBufferAttribute(p, i).applyMatrix4(m.matrixWorld).toArray());
      const triangles = m.geometry.index ? Array.from(m.geometry.index.array) : Array.from({ length: p.count }, (_, i) => i);
      return { name: m.name, positions, triangles };
    });
  },
};

requestAnimationFrame(frame);
document.body.dataset.ready = 'true';
