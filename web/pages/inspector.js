// The glTF inspector: a .glb/.gltf drawn by three.js, every pick by
// softpick on the pose being drawn (hover, click, box selection, the ID
// buffer), and a panel comparing softpick's answer and time for the pixel
// under the mouse with three.js's Raycaster and three-mesh-bvh's.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { SkinnedMeshBVH, MeshBVH, acceleratedRaycast } from 'three-mesh-bvh';
import { Picker } from 'softpick/three';
import { idColor, showError, clearError, fmtUs } from './common.js';

const W = 720, H = 480;
const $ = (id) => document.getElementById(id);
const errorEl = $('error');
const SAMPLES = [
  ['Fox (skinned, 3 animations)', '/web/test/fixtures/Fox/Fox.gltf'],
  ['AnimatedMorphCube (morph targets)', '/web/test/fixtures/AnimatedMorphCube/AnimatedMorphCube.gltf'],
];

// --- three.js: renderer, camera, lights, controls -------------------------
const renderer = new THREE.WebGLRenderer({ canvas: $('gl'), antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
renderer.setSize(W, H, false);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x30343c);
scene.add(new THREE.HemisphereLight(0xffffff, 0x444450, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(1, 2, 1.5);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(45, W / H, 0.01, 1000);
const controls = new OrbitControls(camera, $('gl'));
controls.mouseButtons = { LEFT: -1, MIDDLE: THREE.MOUSE.DOLLY, RIGHT: THREE.MOUSE.ROTATE };
let viewDirty = true;
controls.addEventListener('change', () => { viewDirty = true; });

/** A triangle drawn over everything: the hovered (red) and the selected (blue) one. */
function marker(color) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(9), 3));
  const m = new THREE.Mesh(g, new THREE.MeshBasicMaterial({ color, side: THREE.DoubleSide, depthTest: false, transparent: true, opacity: 0.85 }));
  m.renderOrder = 10;
  m.frustumCulled = false;
  m.visible = false;
  scene.add(m);
  return m;
}
const hoverMark = marker(0xff2050);
const selectMark = marker(0x20a0ff);

// --- the model --------------------------------------------------------------
let picker = await Picker.create();
let model = null; // { root, name, mixer, clips, action, meshes, sbvh, static }
let time = 0;
let playing = true;
let poseVersion = 0;
let loads = 0;

function meshesOf(root) {
  const out = [];
  root.traverse((o) => { if (o.isMesh) out.push(o); });
  return out;
}

/** Makes `gltf` the model shown (the old one goes only when the new one is in). */
async function show(gltf, name) {
  const root = gltf.scene;
  const meshes = meshesOf(root);
  if (!meshes.length) throw new Error(`${name}: the file has no meshes to show`);
  const next = await Picker.create();
  root.updateMatrixWorld(true);
  try {
    next.update(root);
  } catch (e) {
    // what softpick could not mirror is reported; the rest is picked
    showError(errorEl, new Error(`${name}: ${e.message}`));
  }
  if (model) scene.remove(model.root);
  picker.free();
  picker = next;
  scene.add(root);
  const mixer = new THREE.AnimationMixer(root);
  const sbvh = new Map();
  const statics = new Map();
  for (const m of meshes) {
    if (m.isSkinnedMesh || m.morphTargetInfluences) sbvh.set(m, null);
    else if (!m.isInstancedMesh) statics.set(m, new MeshBVH(m.geometry, { indirect: true }));
  }
  model = { root, name, mixer, clips: gltf.animations, action: null, meshes, sbvh, statics, bvhPose: -1 };
  const anim = $('anim');
  anim.replaceChildren(new Option('(none)', ''));
  gltf.animations.forEach((c, i) => anim.append(new Option(`${c.name || `animation ${i}`} (${c.duration.toFixed(2)} s)`, String(i))));
  choose(gltf.animations.length ? 0 : -1);
  anim.value = gltf.animations.length ? '0' : '';
  frameModel();
  let tris = 0;
  for (const m of meshes) tris += (m.geometry.index ? m.geometry.index.count : m.geometry.attributes.position.count) / 3 * (m.isInstancedMesh ? m.count : 1);
  $('model-name').textContent = name;
  $('model-info').textContent = `${meshes.length} mesh${meshes.length > 1 ? 'es' : ''}, ${tris} triangles drawn, ${gltf.animations.length} animation${gltf.animations.length === 1 ? '' : 's'}` +
    (meshes.some((m) => m.isSkinnedMesh) ? ', skinned' : '') + (meshes.some((m) => m.morphTargetInfluences) ? ', morphed' : '');
  selected = null;
  hovered = null;
  loads++;
  document.body.dataset.model = name;
  document.body.dataset.loads = String(loads);
}

function frameModel() {
  const box = new THREE.Box3().setFromObject(model.root, true);
  const c = box.getCenter(new THREE.Vector3());
  const r = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 1e-3);
  camera.near = r * 0.02;
  camera.far = r * 30;
  camera.position.copy(c).add(new THREE.Vector3(1.5, 0.6, 1.2).normalize().multiplyScalar(r * 2.6));
  camera.lookAt(c);
  camera.updateProjectionMatrix();
  controls.target.copy(c);
  controls.update();
  viewDirty = true;
}

function choose(i) {
  model.mixer.stopAllAction();
  model.action = null;
  time = 0;
  const clip = model.clips[i];
  if (clip) {
    model.action = model.mixer.clipAction(clip);
    model.action.play();
    $('time').max = String(clip.duration);
  } else {
    $('time').max = '0';
  }
  model.mixer.setTime(0);
  poseVersion++;
}

const loader = () => {
  const manager = new THREE.LoadingManager();
  return { manager, loader: new GLTFLoader(manager) };
};

async function loadUrl(url) {
  const name = decodeURIComponent(url.split('/').pop());
  const { loader: l } = loader();
  const gltf = await l.loadAsync(url).catch((e) => { throw new Error(`${name}: ${e.message ?? e}`); });
  await show(gltf, name);
}

/** A .glb, or a .gltf with the files it names (buffers, images), from a file picker or a drop. */
async function loadFiles(files) {
  const list = [...files];
  const main = list.find((f) => /\.(glb|gltf)$/i.test(f.name));
  if (!main) throw new Error(`${list.map((f) => f.name).join(', ') || 'nothing'}: choose a .glb or .gltf file`);
  const urls = new Map(list.map((f) => [f.name, URL.createObjectURL(f)]));
  try {
    const { manager, loader: l } = loader();
    manager.setURLModifier((u) => urls.get(decodeURIComponent(u.split('/').pop())) ?? u);
    const data = await main.arrayBuffer();
    const gltf = await l.parseAsync(data, '').catch((e) => { throw new Error(`${main.name}: ${e.message ?? e}`); });
    await show(gltf, main.name);
  } finally {
    for (const u of urls.values()) URL.revokeObjectURL(u);
  }
}

async function guarded(f) {
  document.body.dataset.loading = 'true';
  try {
    clearError(errorEl);
    await f();
  } catch (e) {
    showError(errorEl, e);
    document.body.dataset.errors = String(Number(document.body.dataset.errors ?? 0) + 1);
  } finally {
    document.body.dataset.loading = 'false';
  }
}

$('file').addEventListener('change', (ev) => guarded(() => loadFiles(ev.target.files)).then(() => { ev.target.value = ''; }));
const view = $('view');
view.addEventListener('dragover', (ev) => { ev.preventDefault(); view.classList.add('dragging'); });
view.addEventListener('dragleave', () => view.classList.remove('dragging'));
view.addEventListener('drop', (ev) => {
  ev.preventDefault();
  view.classList.remove('dragging');
  guarded(() => loadFiles(ev.dataTransfer.files));
});
for (const [label, url] of SAMPLES) $('sample').append(new Option(label, url));
$('sample').addEventListener('change', () => guarded(() => loadUrl($('sample').value)));
// the shared sample models, when the server has them
fetch('/shared-models/index.json').then((r) => (r.ok ? r.json() : [])).then((list) => {
  for (const url of list) $('sample').append(new Option(`shared: ${url.replace('/shared-models/gltf/', '')}`, url));
}).catch(() => {});

// --- animation controls -----------------------------------------------------
$('anim').addEventListener('change', () => { if (model) choose($('anim').value === '' ? -1 : Number($('anim').value)); });
function setPlaying(p) {
  playing = p;
  $('pause').textContent = p ? 'Pause' : 'Play';
  document.body.dataset.paused = String(!p);
}
$('pause').addEventListener('click', () => setPlaying(!playing));
$('time').addEventListener('input', () => {
  setPlaying(false);
  time = Number($('time').value);
  if (model?.action) { model.mixer.setTime(time); poseVersion++; }
});

// --- picking ------------------------------------------------------------------
const mouse = { x: -1, y: -1, inside: false, moved: false };
let hovered = null; // { object, instanceId, faceIndex, face }
let selected = null;
const rc = new THREE.Raycaster();
const hits = [];

/** The world corners of a picked triangle on the pose drawn now (three.js's own posing of three vertices). */
function corners(h, out) {
  const o = h.object;
  const v = new THREE.Vector3();
  const inst = new THREE.Matrix4();
  if (o.isInstancedMesh && h.instanceId !== undefined) o.getMatrixAt(h.instanceId, inst);
  [h.face.a, h.face.b, h.face.c].forEach((i, k) => {
    o.getVertexPosition(i, v);
    if (o.isInstancedMesh) v.applyMatrix4(inst);
    v.applyMatrix4(o.matrixWorld);
    out.setXYZ(k, v.x, v.y, v.z);
  });
  out.needsUpdate = true;
}

function mark(m, h) {
  m.visible = !!h && !!h.object.parent;
  if (m.visible) {
    corners(h, m.geometry.attributes.position);
    m.geometry.computeBoundingSphere();
  }
}

function describe(h) {
  if (!h) return 'nothing';
  const name = h.object.name || h.object.type;
  const inst = h.instanceId !== undefined ? `, instance ${h.instanceId}` : '';
  return `${name}${inst}, triangle ${h.faceIndex}`;
}

function setRow(k, h, us) {
  const row = $('compare').querySelector(`tr[data-k="${k}"]`);
  row.querySelector('.f').textContent = h ? `${h.object.name || h.object.type} #${h.faceIndex}` : 'none';
  row.querySelector('.f').dataset.face = h ? String(h.faceIndex) : '-1';
  row.querySelector('.d').textContent = h ? h.distance.toFixed(4) : '–';
  row.querySelector('.t').textContent = fmtUs(us);
}

function nearest(list) {
  let best = null;
  for (const h of list) if (!best || h.distance < best.distance) best = h;
  return best;
}

/** Picks the pixel under the mouse with softpick, and compares with three.js and three-mesh-bvh. */
function hover() {
  const x = mouse.x, y = mouse.y;
  const t0 = performance.now();
  const h = picker.pickPixel(camera, x, y, W, H);
  const us = (performance.now() - t0) * 1000;
  hovered = h;
  const el = $('hover');
  el.textContent = h
    ? `${describe(h)}\ndistance ${h.distance.toFixed(4)}, picked in ${fmtUs(us)}`
    : `nothing (picked in ${fmtUs(us)})`;
  Object.assign(el.dataset, {
    x: String(Math.floor(x)), y: String(Math.floor(y)), face: h ? String(h.faceIndex) : '-1',
    object: h ? h.object.name || h.object.type : '', instance: h?.instanceId !== undefined ? String(h.instanceId) : '',
    distance: h ? String(h.distance) : '', pose: String(poseVersion),
  });
  setRow('buffer', h, us);

  // (both three-mesh-bvh trees are built indirect: they leave the geometry's index as it is)
  // the same pixel's centre as a ray, for the ray pickers
  const ndc = new THREE.Vector2(((Math.floor(x) + 0.5) / W) * 2 - 1, 1 - ((Math.floor(y) + 0.5) / H) * 2);
  rc.setFromCamera(ndc, camera);
  rc.firstHitOnly = true;
  let t = performance.now();
  const r = picker.intersectObject(rc, model.root, true)[0] ?? null;
  setRow('ray', r, (performance.now() - t) * 1000);

  rc.firstHitOnly = false;
  t = performance.now();
  for (const m of model.meshes) {
    // a posed mesh's bounds must be recomputed, or three.js skips it
    if (m.isSkinnedMesh) { m.computeBoundingBox(); m.computeBoundingSphere(); }
    else if (m.morphTargetInfluences) { m.geometry.computeBoundingBox(); m.geometry.computeBoundingSphere(); }
  }
  const tr = rc.intersectObject(model.root, true)[0] ?? null;
  setRow('three', tr, (performance.now() - t) * 1000);

  rc.firstHitOnly = true;
  t = performance.now();
  const refit = model.bvhPose !== poseVersion;
  hits.length = 0;
  for (const m of model.meshes) {
    if (!m.visible) continue;
    if (model.sbvh.has(m)) {
      let b = model.sbvh.get(m);
      if (!b) { b = new SkinnedMeshBVH(m, { indirect: true }); model.sbvh.set(m, b); } else if (refit) b.refit();
      b.raycastObject3D(m, rc, hits);
    } else if (model.statics.has(m)) {
      m.geometry.boundsTree = model.statics.get(m);
      acceleratedRaycast.call(m, rc, hits);
    }
  }
  model.bvhPose = poseVersion;
  setRow('bvh', nearest(hits), (performance.now() - t) * 1000);
}

function viewPoint(ev) {
  const r = $('gl').getBoundingClientRect();
  return [((ev.clientX - r.left) * W) / r.width, ((ev.clientY - r.top) * H) / r.height];
}

let drag = null;
const gl = $('gl');
gl.addEventListener('pointermove', (ev) => {
  [mouse.x, mouse.y] = viewPoint(ev);
  mouse.inside = true;
  mouse.moved = true;
  if (drag && ev.buttons & 1) {
    drag.x1 = mouse.x; drag.y1 = mouse.y;
    if (Math.abs(drag.x1 - drag.x0) + Math.abs(drag.y1 - drag.y0) > 4) {
      const b = $('box');
      b.hidden = false;
      Object.assign(b.style, {
        left: `${Math.min(drag.x0, drag.x1)}px`, top: `${Math.min(drag.y0, drag.y1)}px`,
        width: `${Math.abs(drag.x1 - drag.x0)}px`, height: `${Math.abs(drag.y1 - drag.y0)}px`,
      });
    }
  }
});
gl.addEventListener('pointerleave', () => { mouse.inside = false; });
gl.addEventListener('pointerdown', (ev) => {
  if (ev.button !== 0) return;
  const [x, y] = viewPoint(ev);
  drag = { x0: x, y0: y, x1: x, y1: y };
});
gl.addEventListener('pointerup', (ev) => {
  if (ev.button !== 0 || !drag || !model) return;
  const d = drag;
  drag = null;
  $('box').hidden = true;
  try {
    if (Math.abs(d.x1 - d.x0) + Math.abs(d.y1 - d.y0) > 4) {
      const t0 = performance.now();
      const s = picker.pickRect(camera, Math.min(d.x0, d.x1), Math.min(d.y0, d.y1), Math.max(d.x0, d.x1), Math.max(d.y0, d.y1), W, H);
      const us = (performance.now() - t0) * 1000;
      const el = $('boxsel');
      el.textContent = `${s.objects.length} object${s.objects.length === 1 ? '' : 's'}, ${s.faces.length} triangles, ${s.pixels} pixels (${fmtUs(us)})`;
      Object.assign(el.dataset, { objects: String(s.objects.length), faces: String(s.faces.length), pixels: String(s.pixels) });
    } else {
      const h = picker.pickPixel(camera, d.x0, d.y0, W, H);
      // a click selects; a click on the selected triangle or on nothing releases it
      selected = h && !(selected && selected.object === h.object && selected.faceIndex === h.faceIndex && selected.instanceId === h.instanceId) ? h : null;
      $('selected').textContent = selected ? describe(selected) : '–';
      $('selected').dataset.face = selected ? String(selected.faceIndex) : '-1';
    }
  } catch (e) {
    showError(errorEl, e);
  }
});

// --- the ID buffer as colours ---------------------------------------------------
const idCanvas = $('idbuf');
$('ids').addEventListener('change', () => { idCanvas.hidden = !$('ids').checked; viewDirty = true; });
function drawIds() {
  const ids = picker.triangleIdsAt(camera, W, H); // per pixel a triangle's number + 1
  const px = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < ids.length; i++) {
    if (!ids[i]) continue;
    const [r, g, b] = idColor(ids[i] - 1);
    px[4 * i] = r; px[4 * i + 1] = g; px[4 * i + 2] = b; px[4 * i + 3] = 255;
  }
  idCanvas.getContext('2d').putImageData(new ImageData(px, W, H), 0, 0);
}

// --- the frame loop ---------------------------------------------------------------
let lastT = performance.now();
let lastPose = -1;
let updateUs = [];
function frame() {
  requestAnimationFrame(frame);
  const now = performance.now();
  const dt = Math.min((now - lastT) / 1000, 0.1);
  lastT = now;
  if (!model) return;
  try {
    if (model.action && playing) {
      const dur = model.action.getClip().duration;
      time = dur > 0 ? (time + dt) % dur : 0;
      model.mixer.setTime(time);
      poseVersion++;
      $('time').value = String(time);
    }
    $('time-label').textContent = `${time.toFixed(3)} s`;
    const posed = lastPose !== poseVersion;
    if (posed) {
      // the bone matrices three.js draws with (its render would update them
      // only after this frame's picks): every picker sees the same pose
      model.root.updateMatrixWorld(true);
      for (const m of model.meshes) if (m.isSkinnedMesh) m.skeleton.update();
      const t0 = performance.now();
      picker.update(model.root);
      updateUs.push((performance.now() - t0) * 1000);
      if (updateUs.length > 30) updateUs.shift();
      $('update-us').textContent = `${fmtUs(updateUs.reduce((a, b) => a + b, 0) / updateUs.length)} (mean of the last ${updateUs.length})`;
    }
    if (mouse.inside && (posed || mouse.moved || viewDirty)) hover();
    else if (!mouse.inside && hovered) hovered = null;
    mouse.moved = false;
    if (!idCanvas.hidden && (posed || viewDirty)) drawIds();
    lastPose = poseVersion;
    viewDirty = false;
    mark(hoverMark, hovered);
    mark(selectMark, selected);
    renderer.render(scene, camera);
    document.body.dataset.frames = String(Number(document.body.dataset.frames ?? 0) + 1);
  } catch (e) {
    showError(errorEl, e);
  }
}

/** For the page's tests: the camera and the model's state. */
window.inspector = {
  camera, W, H,
  get time() { return time; },
  get animation() { return model?.action?.getClip().name ?? null; },
};

const want = new URLSearchParams(location.search).get('model');
await guarded(() => loadUrl(want ?? SAMPLES[0][1]));
requestAnimationFrame(frame);
document.body.dataset.ready = 'true';
