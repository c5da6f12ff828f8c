// The browser tests' checks (run in the page; the node side asserts on
// what they return): softpick/three against three.js's own Raycaster on
// the same objects, pixel picks against rays, the worker against the main
// thread, bad input, the core API.

import * as THREE from 'three';
import { Picker, PickerWorker } from 'softpick/three';
import * as sp from 'softpick';
import { SCENES, frame, skinmorphMesh, refreshBounds } from './scenes.js';

const REL = 1e-5;

export function close(a, b, tol) {
  return Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));
}

/** The rays of an n × n grid of pixel centres of `camera`. */
export function* grid(camera, n) {
  const rc = new THREE.Raycaster();
  const ndc = new THREE.Vector2();
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      ndc.set(((i + 0.5) / n) * 2 - 1, 1 - ((j + 0.5) / n) * 2);
      rc.setFromCamera(ndc, camera);
      yield rc;
    }
  }
}

/** How the rest of a hit compares (point, barycentrics, corners, normals, uv): the worst differences. */
export function fields(t, s, worst) {
  const d = (k, v) => { worst[k] = Math.max(worst[k] ?? 0, v); };
  d('point', t.point.distanceTo(s.point) / Math.max(1, t.distance));
  if (t.barycoord) d('barycoord', t.barycoord.distanceTo(s.barycoord));
  d('corners', t.face.a === s.face.a && t.face.b === s.face.b && t.face.c === s.face.c ? 0 : 1);
  d('materialIndex', t.face.materialIndex === s.face.materialIndex ? 0 : 1);
  d('faceNormal', t.face.normal.distanceTo(s.face.normal));
  if (t.uv) d('uv', s.uv ? t.uv.distanceTo(s.uv) : 1);
  if (t.normal) d('normal', s.normal ? t.normal.distanceTo(s.normal) / Math.max(1e-9, t.normal.length()) : 1);
}

/**
 * First hits of softpick and three.js's Raycaster on an n × n grid of
 * rays, at every pose of scene `name`: per pose, the rays where three.js
 * hits, how many softpick answers alike (object, faceIndex, instanceId,
 * distance within 1e-5 relative), the rays only softpick hits, the worst
 * differences of the other fields, and a few disagreements.
 */
export async function compare({ name, n = 100 }) {
  const sc = await SCENES[name]();
  const picker = await Picker.create();
  const out = { three: THREE.REVISION, poses: [] };
  try {
    for (let k = 0; k < sc.poses; k++) {
      sc.pose(k);
      picker.update(sc.root);
      const r = { threeHits: 0, agree: 0, onlySoftpick: 0, worst: {}, examples: [] };
      for (const rc of grid(sc.camera, n)) {
        const t = rc.intersectObjects(sc.root.children, true)[0];
        const s = picker.intersectObjects(rc, sc.root.children, true)[0];
        if (!t) {
          if (s) r.onlySoftpick++;
          continue;
        }
        r.threeHits++;
        const same = s && s.object === t.object && s.faceIndex === t.faceIndex && s.instanceId === t.instanceId && close(s.distance, t.distance, REL);
        if (same) {
          r.agree++;
          fields(t, s, r.worst);
        } else if (r.examples.length < 5) {
          r.examples.push({
            three: [t.object.name, t.faceIndex, t.instanceId, t.distance],
            softpick: s ? [s.object.name, s.faceIndex, s.instanceId, s.distance] : null,
          });
        }
      }
      out.poses.push(r);
    }
    // every hit of one ray through the middle, as intersectObjects lists them
    const rc = new THREE.Raycaster();
    rc.setFromCamera(new THREE.Vector2(0.01, 0.02), sc.camera);
    const t = rc.intersectObjects(sc.root.children, true);
    const s = picker.intersectObjects(rc, sc.root.children, true);
    out.all = {
      three: t.map((h) => [h.faceIndex, h.instanceId ?? -1]),
      softpick: s.map((h) => [h.faceIndex, h.instanceId ?? -1]),
      sorted: s.every((h, i) => i === 0 || s[i - 1].distance <= h.distance),
    };
  } finally {
    picker.free();
  }
  return out;
}

/**
 * pickPixel against rays: at every pixel of a w × h view of the Fox, the
 * buffer pick equals the core's ray pick through the pixel centre, and
 * agrees with three.js's Raycaster.setFromCamera through it; an
 * orthographic view too.
 */
export async function pixels({ w = 96, h = 72 }) {
  const sc = await SCENES.fox();
  sc.pose(3);
  const picker = await Picker.create();
  const out = {};
  try {
    picker.update(sc.root);
    const cams = {
      perspective: frame(new THREE.Box3().setFromObject(sc.root, true), w / h, new THREE.Vector3(1.4, 0.5, 0.4)),
      orthographic: (() => {
        const p = sc.camera;
        const box = new THREE.Box3().setFromObject(sc.root, true);
        const size = box.getSize(new THREE.Vector3()).length() * 0.35;
        const c = new THREE.OrthographicCamera(-size * w / h, size * w / h, size, -size, -10, size * 20);
        c.position.copy(p.position);
        c.quaternion.copy(p.quaternion);
        c.updateMatrixWorld(true);
        return c;
      })(),
    };
    for (const [kind, cam] of Object.entries(cams)) {
      cam.updateMatrixWorld(true);
      const rc = new THREE.Raycaster();
      const r = { pixels: 0, covered: 0, bufferIsRay: 0, bufferIsDirect: 0, rayOffEdge: 0, threeHits: 0, agreeThree: 0, examples: [] };
      const key = (v) => (v ? `${v.object.uuid}/${v.faceIndex}/${v.instanceId}` : 'none');
      const ids = [];
      const rays = [];
      const threes = [];
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          r.pixels++;
          const b = picker.pickPixel(cam, x + 0.5, y + 0.5, w, h);
          const ray = picker.pickPixel(cam, x + 0.5, y + 0.5, w, h, { method: 'ray' });
          const dir = picker.pickPixel(cam, x + 0.5, y + 0.5, w, h, { method: 'direct' });
          ids.push(key(b));
          rays.push(key(ray));
          if (b) r.covered++;
          if (b && key(b) === key(ray)) r.bufferIsRay++;
          if (key(b) === key(dir)) r.bufferIsDirect++;
          rc.setFromCamera(new THREE.Vector2(((x + 0.5) / w) * 2 - 1, 1 - ((y + 0.5) / h) * 2), cam);
          const t = rc.intersectObjects(sc.root.children, true)[0];
          threes.push(key(t) + (t && b && !close(b.distance, t.distance, 1e-4) ? '/far' : ''));
          if (t) {
            r.threeHits++;
            if (b && b.object === t.object && b.faceIndex === t.faceIndex && close(b.distance, t.distance, 1e-4)) r.agreeThree++;
          }
        }
      }
      r.threeOffEdge = 0;
      // as the core's own check: the ray pick equals the buffer at every
      // covered pixel whose 3 × 3 neighbourhood has one triangle
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const id = ids[y * w + x];
          if (id === 'none' || (id === rays[y * w + x] && id === threes[y * w + x])) continue;
          let edge = false;
          for (let dy = -1; dy <= 1; dy++) {
            for (let dx = -1; dx <= 1; dx++) {
              const u = x + dx, v = y + dy;
              if (u < 0 || v < 0 || u >= w || v >= h || ids[v * w + u] !== id) edge = true;
            }
          }
          if (!edge && id !== threes[y * w + x]) r.threeOffEdge++;
          if (!edge && id !== rays[y * w + x]) {
            r.rayOffEdge++;
            if (r.examples.length < 5) r.examples.push({ x, y, buffer: id, ray: rays[y * w + x] });
          }
        }
      }
      out[kind] = r;
    }
    const sel = picker.pickRect(cams.perspective, 0, 0, w - 1, h - 1, w, h);
    out.rect = { objects: sel.objects.length, faces: sel.faces.length, pixels: sel.pixels };
    const lasso = picker.pickLasso(cams.perspective, [[0, 0], [w, 0], [w, h], [0, h]], w, h);
    out.lasso = { objects: lasso.objects.length, faces: lasso.faces.length, pixels: lasso.pixels };
  } finally {
    picker.free();
  }
  return out;
}

/** PickerWorker against Picker: the same intersections and pixel picks on the skinned and morphed tube and the instanced scene. */
export async function worker({ n = 40 }) {
  const out = { rays: 0, same: 0, pixels: 0, samePixels: 0, examples: [] };
  const worker = await PickerWorker.create();
  const picker = await Picker.create();
  try {
    for (const name of ['skinmorph', 'instanced']) {
      const sc = await SCENES[name]();
      for (let k = 0; k < Math.min(2, sc.poses); k++) {
        sc.pose(k);
        picker.update(sc.root);
        await worker.update(sc.root);
        const key = (hs) => hs.map((h) => `${h.object.uuid}/${h.faceIndex}/${h.instanceId}/${h.distance}/${h.point.toArray()}`).join(';');
        for (const rc of grid(sc.camera, n)) {
          out.rays++;
          const a = key(picker.intersectObjects(rc, sc.root.children, true));
          const b = key(await worker.intersectObjects(rc, sc.root.children, true));
          if (a === b) out.same++;
          else if (out.examples.length < 3) out.examples.push({ a, b });
        }
        // the triangle numbers: the worker's are the main thread's; a
        // number is there exactly where a pixel pick is, and one number is
        // one (object, face, instance) and back
        const ta = picker.triangleIdsAt(sc.camera, 32, 24);
        const tb = await worker.triangleIdsAt(sc.camera, 32, 24);
        out.idsSame = (out.idsSame ?? true) && ta instanceof Uint32Array && ta.length === 32 * 24 && ta.every((v, k) => v === tb[k]);
        const numbered = new Map();
        const faces = new Map();
        out.idsFaithful ??= true;
        for (let y = 0; y < 24; y++) {
          for (let x = 0; x < 32; x++) {
            out.pixels++;
            const a = picker.pickPixel(sc.camera, x + 0.5, y + 0.5, 32, 24);
            const b = await worker.pickPixel(sc.camera, x + 0.5, y + 0.5, 32, 24);
            if ((a === null && b === null) || (a && b && a.object === b.object && a.faceIndex === b.faceIndex && a.distance === b.distance)) out.samePixels++;
            const id = ta[y * 32 + x];
            const face = a && `${a.object.uuid}/${a.faceIndex}/${a.instanceId}`;
            if ((id === 0) !== (a === null)) out.idsFaithful = false;
            if (id !== 0 && a) {
              if ((numbered.get(id) ?? face) !== face || (faces.get(face) ?? id) !== id) out.idsFaithful = false;
              numbered.set(id, face);
              faces.set(face, id);
            }
          }
        }
        out.idsSeen = (out.idsSeen ?? 0) + numbered.size;
        const origins = new Float32Array(3 * 64);
        const dirs = new Float32Array(3 * 64);
        let i = 0;
        for (const rc of grid(sc.camera, 8)) {
          origins.set(rc.ray.origin.toArray(), 3 * i);
          dirs.set(rc.ray.direction.toArray(), 3 * i);
          i++;
        }
        const ra = picker.intersectRays(origins, dirs);
        const rb = await worker.intersectRays(origins, dirs);
        out.batchSame = (out.batchSame ?? true) && ra.object.every((o, k) => o === rb.object[k] && ra.faceIndex[k] === rb.faceIndex[k] && ra.distance[k] === rb.distance[k]);
      }
    }
    // a refused update rejects with the core's message, and the worker goes on
    const bad = new THREE.Scene();
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0, 0, 1, 0], 3));
    g.setIndex([0, 1, 7]);
    bad.add(new THREE.Mesh(g, new THREE.MeshBasicMaterial()));
    try {
      await worker.update(bad);
      out.badError = null;
    } catch (e) {
      out.badError = e instanceof Error ? e.message : `not an Error: ${e}`;
    }
    const sc = await SCENES.skinmorph();
    await worker.update(sc.root);
    const rc = new THREE.Raycaster();
    rc.setFromCamera(new THREE.Vector2(0, 0), sc.camera);
    out.afterBad = (await worker.intersectObjects(rc, sc.root.children, true)).length;
    // a terminated worker's calls reject (it would never answer them)
    worker.terminate();
    out.afterTerminate = await Promise.race([
      worker.intersectObjects(rc, sc.root.children, true).then(() => 'resolved', (e) => e.message),
      new Promise((r) => setTimeout(() => r('no answer in 5 s'), 5000)),
    ]);
  } finally {
    worker.terminate();
    picker.free();
  }
  return out;
}

/**
 * A pixel pick's normal faces the pixel's ray, as three.js's does: a wall
 * to the side of a wide perspective view, facing the eye but turned a
 * little away from the view direction (its normal · the camera's forward
 * is > 0, its normal · the pixel's ray < 0).
 */
export async function pixelNormal() {
  const n = new THREE.Vector3(-1, 0, -0.1).normalize();
  const wall = new THREE.Mesh(new THREE.PlaneGeometry(1, 1), new THREE.MeshBasicMaterial());
  wall.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), n);
  wall.position.set(1, 0, -1);
  const scene = new THREE.Scene();
  scene.add(wall);
  const cam = new THREE.PerspectiveCamera(120, 1, 0.01, 100);
  cam.updateMatrixWorld(true);
  const picker = await Picker.create();
  try {
    picker.update(scene);
    const w = 64, h = 64;
    const ndc = new THREE.Vector3(1, 0, -1).project(cam);
    const x = Math.floor(((ndc.x + 1) / 2) * w), y = Math.floor(((1 - ndc.y) / 2) * h);
    const s = picker.pickPixel(cam, x + 0.5, y + 0.5, w, h);
    const rc = new THREE.Raycaster();
    rc.setFromCamera(new THREE.Vector2(((x + 0.5) / w) * 2 - 1, 1 - ((y + 0.5) / h) * 2), cam);
    const t = rc.intersectObject(wall)[0];
    return {
      softpick: s && s.normal.toArray(),
      three: t && t.normal.toArray(),
      forwardDot: n.dot(new THREE.Vector3(0, 0, -1)),
    };
  } finally {
    picker.free();
  }
}

/** A wasm source that is not there or not wasm: a clear Error (run on a fresh page: nothing loaded yet), then the default loads. */
export async function wasmSource() {
  const message = async (f) => { try { await f(); return null; } catch (e) { return e instanceof Error ? e.message : `not an Error: ${e}`; } };
  const out = {
    missing: await message(() => Picker.create({ wasm: '/web/pkg/no-such-module.wasm' })),
    notWasm: await message(() => Picker.create({ wasm: '/web/package.json' })),
    workerMissing: await message(() => PickerWorker.create({ wasm: '/web/pkg/no-such-module.wasm' })),
  };
  const picker = await Picker.create();
  out.after = sp.version();
  picker.free();
  return out;
}

/** Bad input: each throws an Error with a clear message, and the picker keeps answering. */
export async function badInput() {
  const picker = await Picker.create();
  const sc = await SCENES.skinmorph();
  const rc = new THREE.Raycaster();
  rc.setFromCamera(new THREE.Vector2(0, 0), sc.camera);
  const out = {};
  const attempt = (name, fn) => {
    try {
      fn();
      out[name] = { thrown: false };
    } catch (e) {
      out[name] = { thrown: true, isError: e instanceof Error, message: e.message };
    }
    // still usable: the good scene updates and answers
    picker.update(sc.root);
    out[name].after = picker.intersectObjects(rc, sc.root.children, true).length;
  };
  picker.update(sc.root);
  out.before = picker.intersectObjects(rc, sc.root.children, true).length;
  const tri = () => {
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0, 0, 1, 0], 3));
    return g;
  };
  attempt('nanMatrix', () => {
    const s = new THREE.Scene();
    const m = new THREE.Mesh(tri(), new THREE.MeshBasicMaterial());
    m.position.x = NaN;
    s.add(m);
    picker.update(s);
  });
  attempt('indexOutOfRange', () => {
    const s = new THREE.Scene();
    const g = tri();
    g.setIndex([0, 1, 99]);
    const m = new THREE.Mesh(g, new THREE.MeshBasicMaterial());
    m.name = 'badIndex';
    s.add(m);
    picker.update(s);
  });
  attempt('morphTargetShort', () => {
    const s = new THREE.Scene();
    const g = tri();
    g.morphAttributes.position = [new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0], 3)];
    const m = new THREE.Mesh(g, new THREE.MeshBasicMaterial());
    m.updateMorphTargets();
    s.add(m);
    picker.update(s);
  });
  attempt('noPositions', () => {
    const s = new THREE.Scene();
    s.add(new THREE.Mesh(new THREE.BufferGeometry(), new THREE.MeshBasicMaterial()));
    picker.update(s);
  });
  attempt('nanBone', () => {
    const { mesh, pose } = skinmorphMesh({ radial: 8, rows: 4 });
    pose(0.3);
    mesh.skeleton.bones[1].position.y = NaN;
    const s = new THREE.Scene();
    s.add(mesh);
    picker.update(s);
  });
  attempt('badCamera', () => {
    picker.pickPixel(sc.camera, 1, 1, 0, 10);
  });
  attempt('notARaycaster', () => {
    picker.intersectObjects({}, sc.root.children);
  });
  // a mixed scene: the bad mesh is left out, the good one still answers
  const s = new THREE.Scene();
  const good = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshBasicMaterial());
  const g = tri();
  g.setIndex([0, 1, 5]);
  s.add(good, new THREE.Mesh(g, new THREE.MeshBasicMaterial()));
  try {
    picker.update(s);
    out.mixed = { thrown: false };
  } catch (e) {
    out.mixed = { thrown: true, message: e.message };
  }
  const r2 = new THREE.Raycaster(new THREE.Vector3(0, 0, 5), new THREE.Vector3(0, 0, -1));
  out.mixed.goodHits = picker.intersectObjects(r2, s.children, true).length;
  // a picker without an update, and a freed one, say so
  const fresh = await Picker.create();
  for (const [name, fn] of [
    ['pixelBeforeUpdate', () => fresh.pickPixel(sc.camera, 1, 1, 10, 10)],
    ['raysBeforeUpdate', () => fresh.intersectRays([0, 0, 5], [0, 0, -1])],
  ]) {
    try {
      fn();
      out[name] = { thrown: false };
    } catch (e) {
      out[name] = { thrown: true, isError: e instanceof Error, message: e.message };
    }
  }
  fresh.free();
  picker.free();
  try {
    picker.intersectObjects(rc, sc.root.children, true);
    out.afterFree = { thrown: false };
  } catch (e) {
    out.afterFree = { thrown: true, isError: e instanceof Error, message: e.message };
  }
  return out;
}

/** The core API ("softpick"): a scene from typed arrays, rays, batches, frames, selections, skins, morphs, the built-in scene and its fill rules. */
export async function coreApi() {
  await sp.init();
  const out = { version: sp.version() };
  const scene = new sp.Scene();
  // a unit quad in z = 0 (two triangles), and an instance of it at z = -2
  const g = scene.addGeometry(new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]), new Uint16Array([0, 1, 2, 0, 2, 3]));
  const id = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  const a = scene.addObject(g, id, { side: 'double' });
  const b = scene.addObject(g, id, { instances: [...id.slice(0, 12), 0, 0, -2, 1], side: 'front' });
  const hit = scene.raycast([0.75, 0.25, 5], [0, 0, -1]);
  out.first = { object: hit.object === a, faceIndex: hit.faceIndex, distance: hit.distance, barycoord: hit.barycoord };
  out.all = scene.raycastAll([0.75, 0.25, 5], [0, 0, -1]).map((h) => [h.object === a ? 'a' : 'b', h.instance, h.distance]);
  out.onlyB = scene.raycast([0.75, 0.25, 5], [0, 0, -1], { objects: [b] })?.distance;
  const batch = scene.firstHits(new Float32Array([0.2, 0.7, 5, 3, 3, 5]), new Float32Array([0, 0, -1, 0, 0, -1]));
  out.batch = { object: Array.from(batch.object), faceIndex: Array.from(batch.faceIndex), distance: Array.from(batch.distance) };
  // skin: one bone moving the quad up by 1; morph: +x by the influence
  const s2 = new sp.Scene();
  const g2 = s2.addGeometry(new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]), new Uint32Array([0, 1, 2, 0, 2, 3]));
  s2.setSkin(g2, new Uint16Array(16), new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]));
  s2.setMorphTargets(g2, [new Float32Array([1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0])], true);
  const o2 = s2.addObject(g2, id);
  s2.pose(o2, { bones: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1], influences: [0.5] });
  out.posed = s2.raycast([1.25, 1.5, 5], [0, 0, -1])?.distance ?? null;
  // frames
  const cam = sp.Camera.lookAt({ eye: [0.5, 0.5, 4], target: [0.5, 0.5, 0], fov: 30, near: 0.1, far: 100, width: 64, height: 48 });
  const f = scene.render(cam);
  const p = f.pick(32.5, 24.5);
  out.pick = p && { object: p.object === a, faceIndex: p.faceIndex };
  out.pickRay = f.pick(32.5, 24.5, 'ray')?.faceIndex;
  out.ids = Array.from(f.ids()).filter((v) => v !== 0).length;
  out.rect = f.pickRect(0, 0, 63, 47);
  out.lasso = f.pickLasso([[0, 0], [64, 0], [64, 48]]).pixels;
  // the built-in scene and its fill rules
  const bi = sp.Scene.builtin();
  const bc = sp.Camera.auto(bi, 360, 360);
  out.builtin = { triangles: bi.triangleCount, rules: sp.analyzeRules(bi, bc) };
  const bf = bi.render(bc);
  out.builtinIds = fnv(bf.ids());
  out.builtinPick = bf.pick(180, 300);
  // errors
  const err = (fn) => { try { fn(); return null; } catch (e) { return e instanceof Error ? e.message : `not an Error: ${e}`; } };
  out.errors = {
    badIndex: err(() => scene.addGeometry(new Float32Array(9), new Uint32Array([0, 1, 3]))),
    badMatrix: err(() => scene.addObject(g, [NaN, ...id.slice(1)])),
    noObject: err(() => scene.setMatrix(99, id)),
    badRule: err(() => scene.render(cam, { rule: 'sometimes' })),
    badModel: err(() => sp.Scene.load(new TextEncoder().encode('{"asset": 7}'), 'broken.gltf')),
    stlModel: err(() => sp.Scene.load(new TextEncoder().encode('solid a\nendsolid a\n'), 'part.stl')),
  };
  out.afterErrors = scene.raycast([0.75, 0.25, 5], [0, 0, -1])?.faceIndex;
  out.errors.noFov = err(() => sp.Camera.lookAt({ eye: [0, 0, 5], target: [0, 0, 0], near: 0.1, far: 100, width: 8, height: 8 }));
  for (const x of [scene, s2, f, cam, bi, bc, bf]) x.free();
  // what was freed says so
  out.freed = {
    scene: err(() => scene.raycast([0, 0, 5], [0, 0, -1])),
    frame: err(() => f.pick(1, 1)),
    camera: err(() => cam.rayThrough(1, 1)),
    renderFreed: err(() => new sp.Frame().render(scene, bc)),
  };
  return out;
}

/** The built-in scene's 360 × 360 frame in wasm, hashed as the native example `platform_hashes` hashes it. */
export async function platform() {
  await sp.init();
  const scene = sp.Scene.builtin();
  const cam = sp.Camera.auto(scene, 360, 360);
  const f = scene.render(cam);
  const out = {
    ids: fnv(f.ids()),
    depth: fnv(new Uint32Array(f.depth().buffer)),
    direct: fnv(f.pickMap('direct')),
    ray: fnv(f.pickMap('ray')),
  };
  for (const x of [f, cam, scene]) x.free();
  return out;
}

/** FNV-1a over a Uint32Array's bytes, as a hex string (the platform check). */
export function fnv(a) {
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** install(): three.js's own Raycaster answers through softpick for mirrored meshes (and as before after uninstall). */
export async function installed({ n = 30 }) {
  const sc = await SCENES.instanced();
  const picker = await Picker.create();
  picker.update(sc.root);
  const original = THREE.Mesh.prototype.raycast;
  const out = { rays: 0, same: 0 };
  for (const rc of grid(sc.camera, n)) {
    out.rays++;
    const own = picker.intersectObjects(rc, sc.root.children, true).map((h) => `${h.object.uuid}/${h.faceIndex}/${h.instanceId}`).join(';');
    picker.install();
    const via = rc.intersectObjects(sc.root.children, true).map((h) => `${h.object.uuid}/${h.faceIndex}/${h.instanceId}`).join(';');
    picker.uninstall();
    if (own === via) out.same++;
  }
  out.restored = THREE.Mesh.prototype.raycast === original;
  picker.free();
  return out;
}

export { refreshBounds };

/**
 * Clipping planes: a renderer's planes cut every object, a material's its
 * own (with local clipping on). softpick's first hits against three.js's
 * Raycaster's every hit with the cut ones dropped (three.js's Raycaster
 * does not clip), and pixel picks against the clipped rays.
 */
export async function clipping({ n = 80, w = 96, h = 72 }) {
  const sc = await SCENES.fox();
  sc.pose(2);
  const box = new THREE.Box3().setFromObject(sc.root, true);
  const c = box.getCenter(new THREE.Vector3());
  const size = box.getSize(new THREE.Vector3()).length();
  // a knot beside the fox, with a material plane of its own
  const knot = new THREE.Mesh(new THREE.TorusKnotGeometry(size * 0.15, size * 0.04, 96, 12), new THREE.MeshBasicMaterial());
  knot.position.copy(c).add(new THREE.Vector3(0, 0, size * 0.3));
  const own = new THREE.Plane(new THREE.Vector3(0.3, 1, 0.2).normalize(), 0);
  own.constant = -own.normal.dot(knot.position);
  knot.material.clippingPlanes = [own];
  sc.root.add(knot);
  sc.root.updateMatrixWorld(true);
  knot.geometry.computeBoundingSphere();
  const global = new THREE.Plane(new THREE.Vector3(0.8, -0.2, 0.5).normalize(), 0);
  global.constant = -global.normal.dot(c);
  const renderer = { clippingPlanes: [global], localClippingEnabled: true };
  const picker = await Picker.create();
  const out = { rays: 0, threeHits: 0, agree: 0, cutHits: 0, examples: [] };
  try {
    picker.update(sc.root, { renderer });
    const kept = (hit) => [global, ...(hit.object === knot ? [own] : [])].every((p) => p.distanceToPoint(hit.point) >= 0);
    const camera = frame(new THREE.Box3().setFromObject(sc.root, true), 1, new THREE.Vector3(1.6, 0.5, 0.9));
    for (const rc of grid(camera, n)) {
      out.rays++;
      const all = rc.intersectObjects(sc.root.children, true);
      if (all.length && !kept(all[0])) out.cutHits++;
      const t = all.find(kept);
      const s = picker.intersectObjects(rc, sc.root.children, true)[0];
      if (!t) continue;
      out.threeHits++;
      if (s && s.object === t.object && s.faceIndex === t.faceIndex && close(s.distance, t.distance, 1e-5)) out.agree++;
      else if (out.examples.length < 5) out.examples.push({ three: [t.object.name, t.faceIndex, t.distance], softpick: s && [s.object.name, s.faceIndex, s.distance] });
    }
    // pixel picks: the buffer against the clipped ray picks and three.js's clipped rays
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    const key = (v) => (v ? `${v.object.uuid}/${v.faceIndex}` : 'none');
    const ids = [];
    const rays = [];
    const threes = [];
    const rc = new THREE.Raycaster();
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        ids.push(key(picker.pickPixel(camera, x + 0.5, y + 0.5, w, h)));
        rays.push(key(picker.pickPixel(camera, x + 0.5, y + 0.5, w, h, { method: 'ray' })));
        rc.setFromCamera(new THREE.Vector2(((x + 0.5) / w) * 2 - 1, 1 - ((y + 0.5) / h) * 2), camera);
        threes.push(key(rc.intersectObjects(sc.root.children, true).find(kept)));
      }
    }
    const px = { covered: 0, rayAgree: 0, threeAgree: 0, offEdge: 0 };
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const id = ids[y * w + x];
        if (id === 'none') continue;
        px.covered++;
        if (id === rays[y * w + x]) px.rayAgree++;
        if (id === threes[y * w + x]) px.threeAgree++;
        let edge = false;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const u = x + dx, v = y + dy;
            if (u < 0 || v < 0 || u >= w || v >= h || ids[v * w + u] !== id || rays[v * w + u] !== rays[y * w + x]) edge = true;
          }
        }
        if (!edge && id !== rays[y * w + x]) px.offEdge++;
      }
    }
    out.pixels = px;
    // without the renderer's planes, nothing is cut
    picker.update(sc.root);
    const rc2 = new THREE.Raycaster();
    rc2.setFromCamera(new THREE.Vector2(0, 0), camera);
    out.unclipped = picker.intersectObjects(rc2, sc.root.children, true).length === rc2.intersectObjects(sc.root.children, true).length;
    // clipIntersection (the union of the cut regions) is refused clearly
    knot.material.clipIntersection = true;
    try {
      picker.update(sc.root, { renderer });
      out.intersectionError = null;
    } catch (e) {
      out.intersectionError = e.message;
    }
  } finally {
    picker.free();
  }
  return out;
}

/**
 * The in-place ray query (intersectObject(s): RawScene.raycastIo, the ray
 * and the mask written into the scene's buffers, the hits read from its
 * packed-hits buffer through the engine's view) against the wasm calls
 * that return arrays of their own (raycast, raycastAll), on scene `name`
 * at every pose: per ray, nearest and every hit, the packed numbers bit
 * for bit, and the three.js intersections made of them; the packed-hits
 * buffer has room for one hit at first and moves when a ray has more
 * (`double`: the materials made double-sided first).
 */
export async function sharedQuery({ name, n = 40, double = false }) {
  const sc = await SCENES[name]();
  // (both sides: a ray through the mesh has hits going in and coming out)
  if (double) sc.root.traverse((o) => { if (o.isMesh) o.material.side = THREE.DoubleSide; });
  const picker = await Picker.create();
  const e = picker.engine;
  const out = { rays: 0, hits: 0, many: 0, moved: 0, same: 0, sameObjects: 0, examples: [] };
  const S = sp._raw.hitStride();
  const translated = (p) => { for (let o = 0; o < p.length; o += S) p[o] = e.toMirror[p[o]] ?? -1; return p; };
  const key = (h) => [h.object.uuid, h.distance, h.faceIndex, h.point.toArray(), h.barycoord.toArray(), h.face.normal.toArray(), h.instanceId ?? -1].join('/');
  try {
    for (let k = 0; k < sc.poses; k++) {
      sc.pose(k);
      picker.update(sc.root);
      let mesh = null;
      sc.root.traverse((o) => { if (!mesh && o.isMesh) mesh = o; });
      const id = picker.mirror.objects.get(mesh).id;
      for (const rc of grid(sc.camera, n)) {
        for (const all of [false, true]) {
          out.rays++;
          rc.firstHitOnly = !all;
          const o = Float64Array.of(rc.ray.origin.x, rc.ray.origin.y, rc.ray.origin.z);
          const d = Float64Array.of(rc.ray.direction.x, rc.ray.direction.y, rc.ray.direction.z);
          const own = translated(all ? e.scene.raycastAll(o, d, rc.near, rc.far, undefined) : e.scene.raycast(o, d, rc.near, rc.far, undefined));
          const before = e.out.byteOffset;
          const n1 = e.raycastShared(o, d, rc.near, rc.far, null, all);
          if (before !== 0 && e.out.byteOffset !== before) out.moved++; // (0: the first query made the view)
          const shared = e.out.slice(0, n1 * S);
          if (own.length) out.hits++;
          if (own.length > S) out.many++;
          const same = own.length === shared.length && own.every((v, i) => Object.is(v, shared[i]));
          if (same) out.same++;
          else if (out.examples.length < 3) out.examples.push({ pose: k, all, own: Array.from(own), shared: Array.from(shared) });
          // the three.js intersections: of the arrays of their own, and of the reused buffer (one object, and the whole scene)
          const ref = picker.mirror.intersections(own, rc.ray.direction, []).filter((h) => h.object === mesh).map(key).join(';');
          const mine = picker.intersectObject(rc, mesh, false).map(key).join(';');
          const mask = new Uint8Array(e.maskLength);
          mask[e.objects.get(id)] = 1;
          const masked = picker.mirror.intersections(translated(all ? e.scene.raycastAll(o, d, rc.near, rc.far, mask) : e.scene.raycast(o, d, rc.near, rc.far, mask)), rc.ray.direction, []).map(key).join(';');
          const whole = picker.intersectObjects(rc, sc.root.children, true).map(key).join(';');
          const wholeRef = picker.mirror.intersections(own, rc.ray.direction, []).map(key).join(';');
          if (mine === masked && whole === wholeRef && (all || ref === mine || ref === '' || mine === '')) out.sameObjects++;
          else if (out.examples.length < 3) out.examples.push({ pose: k, all, mine, masked, whole, wholeRef });
        }
      }
    }
  } finally {
    picker.free();
  }
  return out;
}

/**
 * The lazy pose against the full one: two pickers on the same scene, the
 * first as it comes (a ray on a fresh pose skins only what it reaches),
 * the second posing in full at once (any build does: `triangleCount`);
 * per pose, `per` rays (more in some: the first rays of a pose are
 * lazy, those after its work budget are not) through the camera's view
 * and at posed vertices, first hits and
 * every hit, compared field for field (distance, point, barycoord, face
 * and its normal, bit for bit).
 */
export async function lazyPose({ name, poses = 40, per = 6 }) {
  const sc = await SCENES[name]();
  let mesh = null;
  sc.root.traverse((o) => { if (!mesh && o.isMesh) mesh = o; });
  const lazy = await Picker.create();
  const full = await Picker.create();
  const out = { rays: 0, same: 0, hits: 0, examples: [] };
  const key = (h) => [h.object.uuid, h.distance, h.faceIndex, h.point.toArray(), h.barycoord.toArray(), h.face.normal.toArray(), h.face.a, h.face.b, h.face.c].join('/');
  const rays = [];
  for (const g of grid(sc.camera, 24)) rays.push(g.ray.clone());
  const rc = new THREE.Raycaster();
  const v = new THREE.Vector3();
  try {
    for (let k = 0; k < poses; k++) {
      // the scene's own poses, and between them the morph influences and
      // the bones moved a little (a fresh pose each time)
      sc.pose(k % sc.poses);
      sc.root.traverse((o) => {
        if (o.isSkinnedMesh) for (const b of o.skeleton.bones) b.rotation.x += 0.01 * k;
        if (o.morphTargetInfluences) o.morphTargetInfluences.forEach((_, i, a) => { a[i] = (a[i] + 0.1 * k) % 1; });
      });
      sc.root.updateMatrixWorld(true);
      lazy.update(sc.root);
      full.update(sc.root);
      full.engine.scene.triangleCount();
      const n = k % 3 === 2 ? 4 * per : per;
      const count = mesh.geometry.attributes.position.count;
      for (let i = 0; i < n; i++) {
        if (i % 4 === 0) {
          rc.ray.copy(rays[(k * 131 + i * 37) % rays.length]);
        } else {
          // at a posed vertex (three.js's own skinning and morphing) from the camera
          mesh.getVertexPosition((k * 7919 + i * 104729) % count, v).applyMatrix4(mesh.matrixWorld);
          rc.ray.origin.setFromMatrixPosition(sc.camera.matrixWorld);
          rc.ray.direction.copy(v).sub(rc.ray.origin).normalize();
        }
        rc.firstHitOnly = i % 2 === 0;
        const a = lazy.intersectObjects(rc, sc.root.children, true).map(key).join(';');
        const b = full.intersectObjects(rc, sc.root.children, true).map(key).join(';');
        out.rays++;
        if (b) out.hits++;
        if (a === b) out.same++;
        else if (out.examples.length < 3) out.examples.push({ pose: k, ray: i, lazy: a, full: b });
        if (i === 5) {
          // one object only (the object mask), on the same pose
          const c = lazy.intersectObject(rc, mesh, false).map(key).join(';');
          const d = full.intersectObject(rc, mesh, false).map(key).join(';');
          out.rays++;
          if (c === d) out.same++;
          else if (out.examples.length < 3) out.examples.push({ pose: k, ray: i, object: true, lazy: c, full: d });
        }
      }
    }
  } finally {
    lazy.free();
    full.free();
  }
  return out;
}
