// The browser tests' checks of BatchedMesh (run in the page; the node side,
// batched.test.mjs, asserts on what they return): a scene of two batches
// (indexed and non-indexed geometries of different sizes, several
// instances of each, some hidden, one deleted) changed from pose to pose,
// against three.js's own Raycaster, pixel picks, the worker, install().

import * as THREE from 'three';
import { Picker, PickerWorker } from 'softpick/three';
import { rng } from './scenes.js';
import { close, grid, fields } from './cases.js';

const REL = 1e-5;

/** Whether this three.js's BatchedMesh has instances apart from geometries (0.187; not 0.160). */
const MODERN = typeof THREE.BatchedMesh.prototype.addInstance === 'function';

function sizes(geoms, per) {
  let v = 0, i = 0;
  for (const g of geoms) {
    v += g.attributes.position.count * (MODERN ? 1 : per);
    i += (g.index ? g.index.count : 0) * (MODERN ? 1 : per);
  }
  return [v, Math.max(i, 1)];
}

/** A BatchedMesh of `per` instances of each geometry (0.160: each instance a geometry of its own): [mesh, geometry ids, instance ids]. */
function batch(name, geoms, per, material, spare) {
  const [v, i] = sizes(geoms, per);
  const n = geoms.length * per + spare;
  const mesh = new THREE.BatchedMesh(n, v, i, material);
  mesh.name = name;
  const gids = [];
  const ids = [];
  for (const g of geoms) {
    if (MODERN) {
      const gid = mesh.addGeometry(g);
      gids.push(gid);
      for (let k = 0; k < per; k++) ids.push(mesh.addInstance(gid));
    } else {
      for (let k = 0; k < per; k++) ids.push(mesh.addGeometry(g));
    }
  }
  return [mesh, gids, ids];
}

/**
 * Two batches under a rotated, uniformly scaled group (no shear: three.js's
 * raycast skips an instance by its bounding sphere under the longest
 * column of its matrix, which a sheared matrix stretches beyond):
 * `solids` (indexed: boxes, knots, spheres, cones; front sides) and
 * `flats` (non-indexed: icosahedra, boxes, tetrahedra; double sides).
 * Instances at random places, turns and sizes (some mirrored), two
 * hidden, one deleted. Poses: 0 as made; 1 instances moved, one more
 * hidden, a hidden one shown, a batch moved; 2 an instance added again
 * (in the deleted one's id), one given another geometry, one geometry set
 * anew (setGeometryAt), the knots' geometry deleted and the solids'
 * buffers optimized (the geometries after it moved), the tetrahedra's
 * geometry deleted.
 */
export function batchedScene() {
  const rand = rng(23);
  const root = new THREE.Scene();
  const group = new THREE.Group();
  group.rotation.set(0.25, -0.35, 0.1);
  group.scale.setScalar(1.2);
  group.position.set(0.3, -0.2, 0);
  root.add(group);
  const solidGeoms = [
    new THREE.BoxGeometry(0.8, 0.5, 0.6, 2, 2, 2),
    new THREE.TorusKnotGeometry(0.35, 0.1, 48, 6),
    new THREE.SphereGeometry(0.45, 12, 8),
    new THREE.CylinderGeometry(0.2, 0.4, 0.9, 10, 2),
  ];
  const flatGeoms = [
    new THREE.IcosahedronGeometry(0.5, 1),
    new THREE.BoxGeometry(0.6, 0.6, 0.6).toNonIndexed(),
    new THREE.TetrahedronGeometry(0.55, 0),
  ];
  const [solids, solidGids, solidIds] = batch('solids', solidGeoms, 5, new THREE.MeshBasicMaterial(), 2);
  const [flats, flatGids, flatIds] = batch('flats', flatGeoms, 5, new THREE.MeshBasicMaterial({ side: THREE.DoubleSide }), 2);
  const m = new THREE.Matrix4();
  const q = new THREE.Quaternion();
  const place = (mesh, id, k) => {
    q.setFromEuler(new THREE.Euler(rand() * 6, rand() * 6, rand() * 6));
    const s = new THREE.Vector3(0.6 + rand() * 0.8, 0.6 + rand() * 0.8, 0.6 + rand() * 0.8);
    if (k % 4 === 0) s.x = -s.x;
    m.compose(new THREE.Vector3(rand() * 8 - 4, rand() * 6 - 3, rand() * 6 - 3), q, s);
    mesh.setMatrixAt(id, m);
  };
  solidIds.forEach((id, k) => place(solids, id, k));
  flatIds.forEach((id, k) => place(flats, id, k));
  solids.setVisibleAt(solidIds[2], false);
  flats.setVisibleAt(flatIds[7], false);
  if (MODERN) solids.deleteInstance(solidIds[5]);
  else solids.deleteGeometry(solidIds[5]);
  group.add(solids, flats);
  root.updateMatrixWorld(true);
  const pose = (k) => {
    if (k === 1) {
      for (const j of [0, 3, 8, 12, 17]) place(solids, solidIds[j], j + 1);
      for (const j of [1, 4, 9]) place(flats, flatIds[j], j + 1);
      solids.setVisibleAt(solidIds[11], false);
      solids.setVisibleAt(solidIds[2], true);
      flats.position.set(0.4, 0.3, -0.2);
    } else if (k === 2) {
      // (addInstance takes the lowest free id: the deleted one's)
      const again = solids.addInstance(solidGids[2]);
      place(solids, again, 3);
      solids.setGeometryIdAt(solidIds[1], solidGids[3]);
      solids.setGeometryAt(solidGids[0], new THREE.BoxGeometry(1.0, 0.4, 0.7, 2, 2, 2));
      // (the knots' geometry deleted, the spheres and cones after it moved
      // down in the buffers: their index and vertex numbers change)
      solids.deleteGeometry(solidGids[1]);
      solids.optimize();
      flats.deleteGeometry(flatGids[2]);
    }
    root.updateMatrixWorld(true);
  };
  const camera = new THREE.PerspectiveCamera(45, 1, 0.1, 100);
  camera.position.set(1.5, 1.8, 13);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld(true);
  return { root, poses: MODERN ? 3 : 1, pose, camera, solids, flats, solidIds, flatIds, solidGids };
}

const hitKey = (h) => (h ? `${h.object.name}/${h.faceIndex}/${h.batchId}` : 'none');

/** Records the operation of every command a picker's engine applies from now on (its updates') into `logs.current`. */
function record(picker, logs) {
  const engine = picker.engine;
  const apply = engine.apply.bind(engine);
  engine.apply = (cmds) => {
    for (const c of cmds) logs.current.push(c.op);
    return apply(cmds);
  };
}

/**
 * First hits of softpick and three.js's Raycaster on an n × n grid, at
 * every pose (as compare in cases.js, batchId compared too); the commands
 * each update sent; the batch ids seen; every hit of one ray.
 */
export async function compareBatched({ n = 100 }) {
  const sc = batchedScene();
  const picker = await Picker.create();
  const out = { three: THREE.REVISION, poses: [] };
  const logs = { current: [] };
  record(picker, logs);
  try {
    for (let k = 0; k < sc.poses; k++) {
      sc.pose(k);
      const ops = (logs.current = []);
      picker.update(sc.root);
      const r = { threeHits: 0, agree: 0, onlySoftpick: 0, worst: {}, examples: [], ops, seen: new Set(), noInstanceId: true };
      for (const rc of grid(sc.camera, n)) {
        const t = rc.intersectObjects(sc.root.children, true)[0];
        const s = picker.intersectObjects(rc, sc.root.children, true)[0];
        if (s) {
          r.seen.add(`${s.object.name}/${s.batchId}`);
          if ('instanceId' in s) r.noInstanceId = false;
        }
        if (!t) {
          if (s) r.onlySoftpick++;
          continue;
        }
        r.threeHits++;
        const same = s && s.object === t.object && s.batchId === t.batchId && s.faceIndex === t.faceIndex && close(s.distance, t.distance, REL);
        if (same) {
          r.agree++;
          fields(t, s, r.worst);
        } else if (r.examples.length < 5) {
          r.examples.push({ three: [hitKey(t), t.distance], softpick: s ? [hitKey(s), s.distance] : null });
        }
      }
      r.seen = [...r.seen].sort();
      out.poses.push(r);
    }
    // what no pose may hit: hidden, deleted instances (those of a deleted geometry)
    const { solidIds: si, flatIds: fi } = sc;
    out.never = [
      [`solids/${si[2]}`, `solids/${si[5]}`, `flats/${fi[7]}`],
      [`solids/${si[11]}`, `solids/${si[5]}`, `flats/${fi[7]}`],
      [`solids/${si[11]}`, `flats/${fi[7]}`, ...si.slice(6, 10).map((i) => `solids/${i}`), ...fi.slice(10).map((i) => `flats/${i}`)],
    ];
    // every hit of a ray, nearest first, as three.js lists them
    out.all = { rays: 0, same: 0, many: 0, examples: [] };
    for (const rc of grid(sc.camera, 50)) {
      const t = rc.intersectObjects(sc.root.children, true).map(hitKey).join(';');
      const s = picker.intersectObjects(rc, sc.root.children, true).map(hitKey).join(';');
      if (!t) continue;
      out.all.rays++;
      if (t.includes(';')) out.all.many++;
      if (s === t) out.all.same++;
      else if (out.all.examples.length < 3) out.all.examples.push({ t, s });
    }
    // intersectRays: the first hits of the grid as intersectObjects gives them
    const origins = [], dirs = [], firsts = [];
    for (const ray of grid(sc.camera, 40)) {
      origins.push(...ray.ray.origin.toArray());
      dirs.push(...ray.ray.direction.toArray());
      firsts.push(picker.intersectObjects(ray, sc.root.children, true)[0]);
    }
    const rh = picker.intersectRays(origins, dirs);
    out.rays = { n: firsts.length, same: 0, hits: 0 };
    firsts.forEach((h, i) => {
      if (h) out.rays.hits++;
      const ok = h
        ? rh.object[i] === h.object && rh.batchId[i] === h.batchId && rh.faceIndex[i] === h.faceIndex && rh.instanceId[i] === 0 && close(rh.distance[i], h.distance, 1e-6)
        : rh.object[i] === null && rh.batchId[i] === -1;
      if (ok) out.rays.same++;
    });
  } finally {
    picker.free();
  }
  return out;
}

/**
 * Pixel picks of a batch against rays: per pixel of a w × h view the
 * buffer pick, the ray pick (method "ray") and three.js's ray through the
 * pixel centre; the batch ids pickRect, pickLasso and objectsAt give
 * against those the pixels show.
 */
export async function batchedPixels({ w = 96, h = 96 }) {
  const sc = batchedScene();
  const picker = await Picker.create();
  const out = { pixels: 0, covered: 0, rayOffEdge: 0, threeOffEdge: 0, bufferIsRay: 0, threeHits: 0, agreeThree: 0, examples: [] };
  try {
    sc.pose(1);
    picker.update(sc.root);
    const cam = sc.camera;
    const rc = new THREE.Raycaster();
    const ids = [], rays = [], threes = [];
    const shown = new Set();
    let objectsAgree = true;
    const at = picker.objectsAt(cam, w, h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        out.pixels++;
        const b = picker.pickPixel(cam, x + 0.5, y + 0.5, w, h);
        const ray = picker.pickPixel(cam, x + 0.5, y + 0.5, w, h, { method: 'ray' });
        rc.setFromCamera(new THREE.Vector2(((x + 0.5) / w) * 2 - 1, 1 - ((y + 0.5) / h) * 2), cam);
        const t = rc.intersectObjects(sc.root.children, true)[0];
        ids.push(hitKey(b));
        rays.push(hitKey(ray));
        threes.push(hitKey(t));
        if ((b?.object ?? null) !== at[y * w + x]) objectsAgree = false;
        if (b) {
          out.covered++;
          shown.add(`${b.object.name}/${b.batchId}`);
          if (hitKey(b) === hitKey(ray)) out.bufferIsRay++;
        }
        if (t) {
          out.threeHits++;
          if (b && hitKey(b) === hitKey(t) && close(b.distance, t.distance, 1e-4)) out.agreeThree++;
        }
      }
    }
    // away from ID edges (a pixel whose 3 × 3 neighbourhood shows one
    // triangle), the buffer's answer is the ray's
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const id = ids[y * w + x];
        if (id === 'none') continue;
        let edge = false;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const u = x + dx, v = y + dy;
            if (u < 0 || v < 0 || u >= w || v >= h || ids[v * w + u] !== id) edge = true;
          }
        }
        if (edge) continue;
        if (id !== rays[y * w + x]) {
          out.rayOffEdge++;
          if (out.examples.length < 5) out.examples.push({ x, y, buffer: id, ray: rays[y * w + x], three: threes[y * w + x] });
        }
        if (id !== threes[y * w + x]) out.threeOffEdge++;
      }
    }
    out.objectsAgree = objectsAgree;
    out.shown = [...shown].sort();
    const names = (sel) => [...new Set(sel.objects.map((o) => `${o.object.name}/${o.batchId}`))].sort();
    const rect = picker.pickRect(cam, 0, 0, w - 1, h - 1, w, h);
    out.rect = names(rect);
    out.rectFaces = rect.faces.every((f) => f.batchId !== undefined && f.instanceId === undefined);
    // (the faces of the selection are those the pixels show, in the batch
    // geometry's numbering)
    const faces = [...new Set(rect.faces.map(hitKey))].sort();
    const pixelFaces = [...new Set(ids.filter((k) => k !== 'none'))].sort();
    out.rectFacesArePixels = faces.length === pixelFaces.length && faces.every((k, i) => k === pixelFaces[i]);
    out.faceCount = faces.length;
    out.lasso = names(picker.pickLasso(cam, [[0, 0], [w, 0], [w, h], [0, h]], w, h));
  } finally {
    picker.free();
  }
  return out;
}

/** PickerWorker against Picker on the batches at every pose: intersections, pixel picks, intersectRays, pickRect. */
export async function batchedWorker({ n = 30, w = 48, h = 48 }) {
  const out = { rays: 0, same: 0, hits: 0, pixels: 0, samePixels: 0, raysSame: true, rectSame: true, examples: [] };
  const worker = await PickerWorker.create();
  const picker = await Picker.create();
  const key = (hs) => hs.map((x) => `${hitKey(x)}/${x.distance}/${x.point.toArray()}/${x.face.a},${x.face.b},${x.face.c}`).join(';');
  try {
    const sc = batchedScene();
    for (let k = 0; k < sc.poses; k++) {
      sc.pose(k);
      picker.update(sc.root);
      await worker.update(sc.root);
      const origins = [], dirs = [];
      for (const rc of grid(sc.camera, n)) {
        out.rays++;
        origins.push(...rc.ray.origin.toArray());
        dirs.push(...rc.ray.direction.toArray());
        const a = picker.intersectObjects(rc, sc.root.children, true);
        const b = await worker.intersectObjects(rc, sc.root.children, true);
        if (a.length) out.hits++;
        if (key(a) === key(b)) out.same++;
        else if (out.examples.length < 3) out.examples.push({ a: key(a), b: key(b) });
      }
      const ra = picker.intersectRays(origins, dirs);
      const rb = await worker.intersectRays(origins, dirs);
      out.raysSame &&= ra.object.every((o, i) => o === rb.object[i] && ra.batchId[i] === rb.batchId[i] && ra.faceIndex[i] === rb.faceIndex[i] && ra.distance[i] === rb.distance[i]);
      for (let y = 0; y < h; y += 3) {
        for (let x = 0; x < w; x += 3) {
          out.pixels++;
          const a = picker.pickPixel(sc.camera, x + 0.5, y + 0.5, w, h);
          const b = await worker.pickPixel(sc.camera, x + 0.5, y + 0.5, w, h);
          if (key(a ? [a] : []) === key(b ? [b] : [])) out.samePixels++;
        }
      }
      const sel = (s) => JSON.stringify(s.faces.map((f) => [f.object.name, f.batchId, f.faceIndex]));
      out.rectSame &&= sel(picker.pickRect(sc.camera, 5, 5, 40, 40, w, h)) === sel(await worker.pickRect(sc.camera, 5, 5, 40, 40, w, h));
    }
  } finally {
    picker.free();
    worker.terminate();
  }
  return out;
}

/**
 * install(): three.js's Raycaster answers through softpick for the
 * batches, on the pose of the last update (an instance moved since is hit
 * where softpick last saw it), and as before after uninstall().
 */
export async function batchedInstall({ n = 40 }) {
  const sc = batchedScene();
  const picker = await Picker.create();
  const out = { rays: 0, same: 0, hits: 0, stale: 0, staleThree: 0 };
  const original = THREE.BatchedMesh.prototype.raycast;
  try {
    picker.update(sc.root);
    // (moved after the update: softpick answers on the pose it mirrored)
    sc.pose(1);
    for (const rc of grid(sc.camera, n)) {
      out.rays++;
      const own = picker.intersectObjects(rc, sc.root.children, true).map(hitKey).join(';');
      const three = rc.intersectObjects(sc.root.children, true).map(hitKey).join(';');
      picker.install();
      const via = rc.intersectObjects(sc.root.children, true).map(hitKey).join(';');
      const viaOne = rc.intersectObject(sc.solids, false).map(hitKey).join(';');
      picker.uninstall();
      if (own) out.hits++;
      if (own === via && viaOne === picker.intersectObject(rc, sc.solids, false).map(hitKey).join(';')) out.same++;
      if (via !== three) out.staleThree++;
    }
  } finally {
    picker.free();
  }
  out.restored = THREE.BatchedMesh.prototype.raycast === original;
  return out;
}

/**
 * Where softpick leaves BatchedMesh out (three.js releases without its
 * instance API, 0.160): update does not throw, no pick returns a batch,
 * three.js's Raycaster still hits them, also with install().
 */
export async function batchedLeftOut({ n = 40 }) {
  const sc = batchedScene();
  const picker = await Picker.create();
  const out = { three: THREE.REVISION, modern: MODERN, threeHits: 0, softpickHits: 0, installedHits: 0 };
  try {
    picker.update(sc.root);
    for (const rc of grid(sc.camera, n)) {
      if (rc.intersectObjects(sc.root.children, true).some((h) => h.object.isBatchedMesh)) out.threeHits++;
      if (picker.intersectObjects(rc, sc.root.children, true).length) out.softpickHits++;
      picker.install();
      if (rc.intersectObjects(sc.root.children, true).some((h) => h.object.isBatchedMesh && h.batchId !== undefined)) out.installedHits++;
      picker.uninstall();
    }
    out.pixel = picker.pickPixel(sc.camera, 48, 48, 96, 96) === null;
  } finally {
    picker.free();
  }
  return out;
}

/** Bad batches throw a clear Error naming the BatchedMesh; the picker stays usable, and mirrors the batch again once it is fixed. */
export async function batchedBadInput() {
  const sc = batchedScene();
  const picker = await Picker.create();
  const hits = () => {
    let n = 0;
    for (const r of grid(sc.camera, 20)) if (picker.intersectObjects(r, sc.root.children, true).length) n++;
    return n;
  };
  const out = {};
  const attempt = (name, breakIt, mend) => {
    breakIt();
    try {
      picker.update(sc.root);
      out[name] = { thrown: false };
    } catch (e) {
      out[name] = { thrown: true, isError: e instanceof Error, message: e.message, afterHits: hits() };
    }
    mend();
    picker.update(sc.root);
    out[name].mended = hits();
  };
  try {
    picker.update(sc.root);
    out.before = hits();
    const m = new THREE.Matrix4();
    const id = sc.solidIds[3];
    attempt('nanInstance', () => {
      sc.solids.getMatrixAt(id, m);
      sc.solids.setMatrixAt(id, new THREE.Matrix4().set(NaN, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1));
    }, () => sc.solids.setMatrixAt(id, m));
    attempt('notAffine', () => {
      sc.solids.getMatrixAt(id, m);
      sc.solids.setMatrixAt(id, new THREE.Matrix4().set(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0.5, 1));
    }, () => sc.solids.setMatrixAt(id, m));
    const material = sc.flats.material;
    attempt('materials', () => { sc.flats.material = [material, material]; }, () => { sc.flats.material = material; });
  } finally {
    picker.free();
  }
  return out;
}

/**
 * Commands the backend refuses (as the core refuses what it cannot take)
 * are sent again by the next update: a batch's geometry, an instance list
 * (setMatrix), new positions (setGeometryPositions), each refused once;
 * the update throws an Error naming the batch; after the next update the
 * picker answers as a fresh one on every ray.
 */
export async function batchedRefused({ n = 40 }) {
  const sc = batchedScene();
  const picker = await Picker.create();
  const engine = picker.engine;
  const apply = engine.apply.bind(engine);
  let refuse = null;
  engine.apply = (cmds) => {
    const no = refuse ? cmds.filter(refuse) : [];
    const refused = apply(cmds.filter((c) => !no.includes(c)));
    // (in the commands' order, as the engine gives them)
    const all = [...refused, ...no.map((cmd) => ({ cmd, message: 'softpick: refused for the test' }))];
    return all.sort((x, y) => cmds.indexOf(x.cmd) - cmds.indexOf(y.cmd));
  };
  const key = (p) => {
    const keys = [];
    for (const rc of grid(sc.camera, n)) {
      const h = p.intersectObjects(rc, sc.root.children, true)[0];
      keys.push(h ? `${hitKey(h)}/${h.distance}` : 'none');
    }
    return keys;
  };
  const out = { rounds: [] };
  try {
    const rounds = [
      // the first geometry sent (its object is then refused by the core too)
      ['addGeometry', (c) => c.op === 'addGeometry' && c.id === 0],
      ['setMatrix', (c) => c.op === 'setMatrix'],
      ['setGeometryPositions', (c) => c.op === 'setGeometryPositions'],
    ];
    for (let k = 0; k < rounds.length; k++) {
      sc.pose(k);
      const [name, pred] = rounds[k];
      refuse = pred;
      const r = { name };
      try {
        picker.update(sc.root);
        r.thrown = false;
      } catch (e) {
        r.thrown = true;
        r.message = e.message;
      }
      refuse = null;
      const fresh = await Picker.create();
      fresh.update(sc.root);
      const want = key(fresh);
      fresh.free();
      r.differedBefore = key(picker).filter((v, i) => v !== want[i]).length;
      picker.update(sc.root);
      const got = key(picker);
      r.hits = want.filter((v) => v !== 'none').length;
      r.differAfter = got.filter((v, i) => v !== want[i]).length;
      out.rounds.push(r);
    }
  } finally {
    picker.free();
  }
  return out;
}

/**
 * A batch's material and object state as a mesh's: its material's side
 * changed, its material's clipping planes (local clipping on), its layers
 * and its visibility, each after an update, against three.js's Raycaster
 * (its hits cut by the planes; layers tested by the raycaster; a hidden
 * batch, which three.js's raycast still hits, is not hit by softpick's).
 */
export async function batchedState({ n = 60 }) {
  const sc = batchedScene();
  const picker = await Picker.create();
  const out = {};
  const { solids, flats, root, camera } = sc;
  const cut = new THREE.Plane(new THREE.Vector3(0.4, 1, 0.1).normalize(), 0.3);
  const agree = (name, kept = () => true, rays = grid(camera, n)) => {
    const r = { threeHits: 0, agree: 0, cut: 0, solids: 0, flats: 0, examples: [] };
    for (const rc of rays) {
      const all = rc.intersectObjects(root.children, true);
      if (all.length && !kept(all[0])) r.cut++;
      const t = all.find(kept);
      const s = picker.intersectObjects(rc, root.children, true)[0];
      if (s) r[s.object.name]++;
      if (!t) continue;
      r.threeHits++;
      if (s && hitKey(s) === hitKey(t) && close(s.distance, t.distance, REL)) r.agree++;
      else if (r.examples.length < 3) r.examples.push({ three: hitKey(t), softpick: hitKey(s) });
    }
    out[name] = r;
  };
  try {
    picker.update(root);
    // then both back-sided (a closed solid is then hit on its far side)
    flats.material.side = THREE.BackSide;
    solids.material.side = THREE.BackSide;
    picker.update(root);
    agree('sides');
    solids.material.clippingPlanes = [cut];
    picker.update(root, { localClippingEnabled: true });
    agree('clipped', (h) => h.object !== solids || cut.distanceToPoint(h.point) >= 0);
    solids.material.clippingPlanes = null;
    solids.layers.set(3);
    picker.update(root, { localClippingEnabled: true });
    agree('layers');
    solids.layers.set(0);
    flats.visible = false;
    picker.update(root);
    agree('hidden', (h) => h.object !== flats);
  } finally {
    picker.free();
  }
  return out;
}
