// The browser benchmark (run in the page by bench/run.mjs): softpick/three
// against three.js's Raycaster and three-mesh-bvh 0.9.17 on the same
// posed meshes and rays, every method on every frame in turn, per-frame
// times by performance.now() (the page is cross-origin isolated: 5 µs).

import * as THREE from 'three';
import { OBJLoader } from 'three/addons/loaders/OBJLoader.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import { SkinnedMeshBVH, StaticGeometryGenerator, MeshBVH, acceleratedRaycast, SAH } from 'three-mesh-bvh';
import { Picker } from 'softpick/three';
import { SCENES, skinmorphMesh, frame } from '../test/scenes.js';

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
};

function time(f) {
  const t0 = performance.now();
  const r = f();
  return [performance.now() - t0, r];
}

/** n × n rays through the pixel centres of a grid over camera's view. */
function rays(camera, n) {
  const rc = new THREE.Raycaster();
  const origins = new Float32Array(3 * n * n);
  const dirs = new Float32Array(3 * n * n);
  const list = [];
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      rc.setFromCamera(new THREE.Vector2(((i + 0.5) / n) * 2 - 1, 1 - ((j + 0.5) / n) * 2), camera);
      const k = j * n + i;
      origins.set(rc.ray.origin.toArray(), 3 * k);
      dirs.set(rc.ray.direction.toArray(), 3 * k);
      list.push(rc.ray.clone());
    }
  }
  return { origins, dirs, list };
}

/**
 * A posed mesh of `setup` with what each method needs: an n × n grid of
 * rays over its camera and the middle one (`one`), a first-hit raycaster,
 * softpick's picker, three-mesh-bvh's SkinnedMeshBVH and the bake
 * (StaticGeometryGenerator into a MeshBVH, raycast by acceleratedRaycast).
 */
async function contenders(setup, n) {
  const { root, mesh, pose, camera } = await setup();
  const grid = rays(camera, n);
  const one = new THREE.Raycaster();
  one.ray.copy(grid.list[(n * n) >> 1]);
  const rc = new THREE.Raycaster();
  rc.firstHitOnly = true;
  const picker = await Picker.create();
  const sbvh = new SkinnedMeshBVH(mesh);
  const gen = new StaticGeometryGenerator(mesh);
  gen.applyWorldTransforms = true;
  const baked = gen.generate();
  baked.boundsTree = new MeshBVH(baked, { indirect: true });
  const bakedMesh = new THREE.Mesh(baked, mesh.material);
  bakedMesh.raycast = acceleratedRaycast;
  return { root, mesh, pose, grid, one, rc, picker, sbvh, gen, baked, bakedMesh };
}

/**
 * A skinned mesh posed frame after frame: per frame, each method's
 * preparation (softpick: update; three.js: bounds; SkinnedMeshBVH: refit;
 * bake: StaticGeometryGenerator + refit) and its picks (1, or an n × n
 * grid), timed; the answers compared on the grid.
 */
async function skinned(label, setup, { frames, n }) {
  const { root, mesh, pose, grid, one, rc, picker, sbvh, gen, baked, bakedMesh } = await contenders(setup, n);
  const hits = [];
  const first = (ray, f) => {
    rc.ray.copy(ray);
    hits.length = 0;
    f(rc, hits);
    let best = null;
    for (const h of hits) if (!best || h.distance < best.distance) best = h;
    return best ? best.faceIndex : -1;
  };
  const methods = {
    'softpick': {
      prep: () => picker.update(root, { updateMatrixWorld: false }),
      one: () => { one.firstHitOnly = true; return picker.intersectObject(one, mesh, false)[0]?.faceIndex ?? -1; },
      grid: () => {
        const r = picker.intersectRays(grid.origins, grid.dirs);
        return Array.from(r.faceIndex, (f, k) => (r.object[k] ? f : -1));
      },
      gridCalls: () => grid.list.map((r) => first(r, (c, out) => picker.intersectObject(c, mesh, false, out))),
    },
    'three.js Raycaster': {
      prep: () => { mesh.computeBoundingSphere(); mesh.boundingBox = null; },
      one: () => { hits.length = 0; mesh.raycast(one, hits); return hits.length; },
      grid: () => grid.list.map((r) => first(r, (c, out) => mesh.raycast(c, out))),
    },
    'three-mesh-bvh SkinnedMeshBVH': {
      prep: () => sbvh.refit(),
      one: () => { hits.length = 0; one.firstHitOnly = true; sbvh.raycastObject3D(mesh, one, hits); return hits.length; },
      grid: () => grid.list.map((r) => first(r, (c, out) => sbvh.raycastObject3D(mesh, c, out))),
    },
    'three-mesh-bvh bake (StaticGeometryGenerator + refit)': {
      prep: () => { gen.generate(baked); baked.boundsTree.refit(); },
      one: () => { hits.length = 0; one.firstHitOnly = true; bakedMesh.raycast(one, hits); return hits.length; },
      grid: () => grid.list.map((r) => first(r, (c, out) => bakedMesh.raycast(c, out))),
    },
  };
  const t = {};
  for (const k of Object.keys(methods)) t[k] = { prep: [], one: [], grid: [], gridCalls: [] };
  const agree = { rays: 0, same: {}, of: {} };
  const names = Object.keys(methods);
  // warm-up (the JIT compiles each method's hot code, as it would after a
  // few seconds of an app's frames): 100 frames of 1 pick, 10 of the grid
  for (let f = 0; f < 100; f++) {
    for (const k of names) {
      pose(f / 7);
      methods[k].prep();
      methods[k].one();
      if (f % 10 === 0 && k !== 'three.js Raycaster') methods[k].grid();
    }
  }
  // every method on every frame, each on a pose of its own (so that no
  // preparation finds the pose it already has), the order rotating
  const slowFrames = new Set([0, Math.floor(frames / 2)]); // the plain Raycaster's grid is slow: two frames
  for (let f = 0; f < frames; f++) {
    const order = names.map((_, i) => names[(i + f) % names.length]);
    order.forEach((k, i) => {
      const m = methods[k];
      pose(f + i / 8);
      const [p1] = time(m.prep);
      const [o1] = time(m.one);
      t[k].prep.push(p1);
      t[k].one.push(p1 + o1);
    });
    let reference = null;
    for (const k of names) {
      const m = methods[k];
      if (k === 'three.js Raycaster' && !slowFrames.has(f)) continue;
      pose(f + 0.5);
      const [g, ids] = time(() => { m.prep(); return m.grid(); });
      t[k].grid.push(g);
      if (m.gridCalls) {
        pose(f + 0.75);
        const [gc] = time(() => { m.prep(); return m.gridCalls(); });
        t[k].gridCalls.push(gc);
      }
      if (k === 'softpick') reference = ids;
      else {
        agree.same[k] = (agree.same[k] ?? 0) + ids.filter((v, i) => v === reference[i]).length;
        agree.of[k] = (agree.of[k] ?? 0) + ids.length;
      }
    }
    agree.rays += n * n;
  }
  picker.free();
  const rows = {};
  for (const [k, v] of Object.entries(t)) {
    rows[k] = {
      prep_ms: median(v.prep),
      one_ms: median(v.one),
      grid_ms: median(v.grid),
      ...(v.gridCalls.length ? { grid_calls_ms: median(v.gridCalls) } : {}),
    };
  }
  const tris = mesh.geometry.index ? mesh.geometry.index.count / 3 : mesh.geometry.attributes.position.count / 3;
  return { label, triangles: tris, frames, grid: `${n}x${n}`, rows, agree };
}

async function fox() {
  const sc = await SCENES.fox();
  let mesh;
  sc.root.traverse((o) => { if (o.isSkinnedMesh) mesh = o; });
  const walk = sc.clips[1];
  sc.mixer.stopAllAction();
  sc.mixer.clipAction(walk).play();
  return {
    root: sc.root, mesh, camera: sc.camera,
    // a frame's pose as the renderer leaves it: world matrices and the
    // skeleton's bone matrices (WebGLRenderer calls skeleton.update())
    pose: (f) => { sc.mixer.setTime((f / 30) % walk.duration); sc.root.updateMatrixWorld(true); mesh.skeleton.update(); },
  };
}

async function bigSkinned() {
  const root = new THREE.Scene();
  const { mesh, pose: at } = skinmorphMesh({ radial: 96, rows: 200, bones: 8, morph: false });
  root.add(mesh);
  root.updateMatrixWorld(true);
  const camera = frame(new THREE.Box3(new THREE.Vector3(-1.5, -2.5, -1.5), new THREE.Vector3(1.5, 2.5, 1.5)));
  return { root, mesh, camera, pose: (f) => { at(f / 30); root.updateMatrixWorld(true); mesh.skeleton.update(); } };
}

/** Fox and the generated skinned mesh (`fox`: the Fox alone): 1 pick and an n × n grid of picks per frame. */
export async function skinnedRows({ frames = 30, n = 32, fox: foxOnly = false }) {
  const rows = [await skinned('Fox (Walk)', fox, { frames, n })];
  if (!foxOnly) rows.push(await skinned('skinned tube', bigSkinned, { frames, n }));
  return rows;
}

/**
 * Where a cold Fox frame's time goes: softpick's update + 1 pick, split
 * into the mirror's sync (JS), the pose call and the pick, after each of
 * three kinds of work between frames: softpick's own 32×32 grid (its code
 * and data warm), a 4 MB sweep of a Float64Array (data evicted, code
 * untouched), or the peers' SkinnedMeshBVH and bake refits and 32×32 grids
 * (as in the frames of skinnedRows). Means over `frames` (the 5 µs timer
 * averages out) and the median of the whole step.
 */
export async function foxCold({ frames = 600, n = 32 }) {
  const { root, mesh, pose, grid, one, rc, picker, sbvh, gen, baked, bakedMesh } = await contenders(fox, n);
  one.firstHitOnly = true;
  const hits = [];
  const sweep = new Float64Array(1 << 19);
  const between = {
    'softpick grid (warm)': (f) => {
      pose(f + 0.5);
      picker.update(root, { updateMatrixWorld: false });
      picker.intersectRays(grid.origins, grid.dirs);
      for (const r of grid.list) { rc.ray.copy(r); picker.intersectObject(rc, mesh, false, []); }
    },
    '4 MB data sweep': () => {
      let a = 0;
      for (let i = 0; i < sweep.length; i += 8) a += sweep[i]++;
      if (a < 0) throw new Error('unreachable');
    },
    'the peers\' refits and grids (as in the table)': (f) => {
      pose(f + 0.25);
      sbvh.refit();
      pose(f + 0.5);
      gen.generate(baked);
      baked.boundsTree.refit();
      for (const r of grid.list) {
        rc.ray.copy(r);
        hits.length = 0;
        sbvh.raycastObject3D(mesh, rc, hits);
        hits.length = 0;
        bakedMesh.raycast(rc, hits);
      }
    },
  };
  const out = [];
  for (const [label, work] of Object.entries(between)) {
    const sum = { sync: 0, pose: 0, pick: 0 };
    const whole = [];
    for (let f = -50; f < frames; f++) {
      work(f);
      pose(f);
      const t0 = performance.now();
      const { cmds, errors } = picker._sync(root, { updateMatrixWorld: false });
      const t1 = performance.now();
      picker._refused(picker.engine.apply(cmds), errors);
      const t2 = performance.now();
      if (!picker.intersectObject(one, mesh, false)[0]) throw new Error('foxCold: the ray missed the Fox');
      const t3 = performance.now();
      if (f < 0) continue; // (warm-up)
      sum.sync += t1 - t0;
      sum.pose += t2 - t1;
      sum.pick += t3 - t2;
      whole.push(t3 - t0);
    }
    const us = (v) => (1000 * v) / frames;
    out.push({ label, sync_us: us(sum.sync), pose_us: us(sum.pose), pick_us: us(sum.pick), median_us: 1000 * median(whole), frames });
  }
  picker.free();
  return out;
}

/**
 * update + pickPixel at width × height per frame (the ID buffer rendered
 * each frame: the pose changed), at the pixel of a vertex of the posed
 * mesh (as a mouse over the model), and a second pick of the same frame.
 */
export async function pixelRows({ frames = 30, width = 1280, height = 720 }) {
  const out = [];
  for (const [label, setup] of [['Fox (Walk)', fox], ['skinned tube', bigSkinned]]) {
    const { root, mesh, camera, pose } = await setup();
    camera.aspect = width / height;
    camera.updateProjectionMatrix();
    camera.updateMatrixWorld(true);
    const picker = await Picker.create();
    const v = new THREE.Vector3();
    const pixelOf = () => {
      mesh.getVertexPosition(mesh.geometry.attributes.position.count >> 1, v);
      v.applyMatrix4(mesh.matrixWorld).project(camera);
      return [Math.floor((v.x * 0.5 + 0.5) * width) + 0.5, Math.floor((0.5 - v.y * 0.5) * height) + 0.5];
    };
    for (let f = 0; f < 30; f++) {
      pose(f / 3);
      picker.update(root, { updateMatrixWorld: false });
      picker.pickPixel(camera, width / 2, height / 2, width, height);
    }
    const upd = [];
    const pick = [];
    const again = [];
    let covered = 0;
    for (let f = 0; f < frames; f++) {
      pose(f);
      const [x, y] = pixelOf();
      const [u] = time(() => picker.update(root, { updateMatrixWorld: false }));
      const [p, h] = time(() => picker.pickPixel(camera, x, y, width, height));
      const [a] = time(() => picker.pickPixel(camera, x + 1, y, width, height));
      if (h) covered++;
      upd.push(u);
      pick.push(p);
      again.push(a);
    }
    picker.free();
    out.push({ label, width, height, update_ms: median(upd), first_pick_ms: median(pick), total_ms: median(upd.map((u, i) => u + pick[i])), next_pick_ms: median(again), covered, frames });
  }
  return out;
}

/** One BufferGeometry of an OBJ file's triangles (positions only), as three.js's OBJLoader reads them. */
async function objGeometry(url) {
  const text = await (await fetch(url)).text();
  const group = new OBJLoader().parse(text);
  const geoms = [];
  group.updateMatrixWorld(true);
  group.traverse((o) => {
    if (o.isMesh) {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', o.geometry.attributes.position.clone());
      geoms.push(g);
    }
  });
  return geoms.length === 1 ? geoms[0] : mergeGeometries(geoms);
}

/** First-hit rays per second on static meshes: softpick (a batch, and one call per ray) against three-mesh-bvh's acceleratedRaycast (SAH, firstHitOnly). */
export async function staticRows({ models, n = 256, reps = 3 }) {
  const out = [];
  for (const [name, url] of models) {
    const geom = await objGeometry(url);
    const mesh = new THREE.Mesh(geom, new THREE.MeshBasicMaterial({ side: THREE.DoubleSide }));
    const root = new THREE.Scene();
    root.add(mesh);
    root.updateMatrixWorld(true);
    geom.computeBoundingBox();
    // the conventions' automatic framing: eye = centre + (0, 0.2 r, 2.2 r), 45°
    const b = geom.boundingBox;
    const c = b.getCenter(new THREE.Vector3());
    const r = b.getSize(new THREE.Vector3()).length() / 2;
    const camera = new THREE.PerspectiveCamera(45, 1, 0.01 * r, 10 * r);
    camera.position.set(c.x, c.y + 0.2 * r, c.z + 2.2 * r);
    camera.lookAt(c);
    camera.updateMatrixWorld(true);
    const grid = rays(camera, n);
    const [buildBvh] = time(() => { geom.boundsTree = new MeshBVH(geom, { strategy: SAH, indirect: true }); });
    mesh.raycast = acceleratedRaycast;
    const picker = await Picker.create();
    const [buildSp] = time(() => {
      picker.update(root);
      picker.intersectRays(grid.origins.subarray(0, 3), grid.dirs.subarray(0, 3));
    });
    const rc = new THREE.Raycaster();
    rc.firstHitOnly = true;
    const hits = [];
    const bvhRun = () => grid.list.map((ray) => {
      rc.ray.copy(ray);
      hits.length = 0;
      mesh.raycast(rc, hits);
      return hits.length ? hits[0].faceIndex : -1;
    });
    const spBatch = () => {
      const r = picker.intersectRays(grid.origins, grid.dirs);
      return Array.from(r.faceIndex, (f, k) => (r.object[k] ? f : -1));
    };
    const spCalls = () => grid.list.map((ray) => {
      rc.ray.copy(ray);
      return picker.intersectObject(rc, mesh, false)[0]?.faceIndex ?? -1;
    });
    const t = { bvh: [], batch: [], calls: [] };
    let a, s;
    for (let k = 0; k < reps; k++) {
      let d;
      [d, a] = time(bvhRun); t.bvh.push(d);
      [d, s] = time(spBatch); t.batch.push(d);
      [d] = time(spCalls); t.calls.push(d);
    }
    const hit = a.filter((v) => v >= 0).length;
    const same = a.filter((v, i) => v === s[i]).length;
    picker.free();
    const rps = (ms) => (n * n) / (ms / 1000);
    out.push({
      model: name, triangles: geom.attributes.position.count / 3, rays: n * n, hit,
      agree: same / (n * n),
      bvh_rays_per_s: rps(median(t.bvh)), softpick_batch_rays_per_s: rps(median(t.batch)), softpick_calls_rays_per_s: rps(median(t.calls)),
      bvh_build_ms: buildBvh, softpick_build_ms: buildSp,
    });
  }
  return out;
}

/** The wasm module's load time in this page: fetch, compile and instantiate (init). */
export async function load() {
  const { init } = await import('softpick');
  const t0 = performance.now();
  await init();
  return performance.now() - t0;
}
