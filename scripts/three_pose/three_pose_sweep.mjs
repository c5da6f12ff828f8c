#!/usr/bin/env node
// three.js picking of a skinned glTF at a time t, for BENCHMARKS.md: the
// plain Raycaster on the SkinnedMesh (three.js poses every vertex on the
// CPU for each ray), and three-mesh-bvh's pipeline for posed meshes
// (StaticGeometryGenerator bakes the pose, refit() updates the BVH, then a
// firstHitOnly sweep). One ray per pixel centre, the camera of a softpick
// camera JSON (look_at_rh, perspective_rh_gl, row 0 on top).
//
// usage: node three_pose_sweep.mjs MODEL.gltf CAMERA.json ANIMATION T OUT_PREFIX [--brute] [--reps N]
// Writes OUT_PREFIX_bvh.u32 (and OUT_PREFIX_brute.u32 with --brute): the
// triangle index + 1 of each pixel's first hit, 0 for background; prints
// one JSON line of timings.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { StaticGeometryGenerator, MeshBVH, acceleratedRaycast, computeBoundsTree } from 'three-mesh-bvh';

globalThis.ProgressEvent ??= class ProgressEvent extends Event {
  constructor(type, init = {}) { super(type); Object.assign(this, init); }
};

const args = process.argv.slice(2);
const flag = (f) => args.includes(f);
const opt = (f, d) => { const i = args.indexOf(f); return i >= 0 ? args[i + 1] : d; };
const [model, camPath, animName, tStr, out] = args.filter((a, i) => !a.startsWith('--') && !['--reps'].includes(args[i - 1]));
const reps = parseInt(opt('--reps', '5'), 10);
const t = parseFloat(tStr);

// the glTF without images (Node has no image decoder) and with its buffers inline
const json = JSON.parse(readFileSync(model, 'utf8'));
delete json.images; delete json.textures; delete json.samplers;
for (const m of json.materials ?? []) {
  if (m.pbrMetallicRoughness) { delete m.pbrMetallicRoughness.baseColorTexture; delete m.pbrMetallicRoughness.metallicRoughnessTexture; }
  delete m.normalTexture; delete m.occlusionTexture; delete m.emissiveTexture;
}
for (const b of json.buffers) {
  if (b.uri && !b.uri.startsWith('data:')) {
    b.uri = 'data:application/octet-stream;base64,' + readFileSync(join(dirname(model), decodeURIComponent(b.uri))).toString('base64');
  }
}
const gltf = await new Promise((res, rej) => new GLTFLoader().parse(JSON.stringify(json), '', res, rej));
const clip = gltf.animations.find((a) => a.name === animName);
if (!clip) { console.error(`no animation ${animName}`); process.exit(2); }
const mixer = new THREE.AnimationMixer(gltf.scene);
mixer.clipAction(clip).play();
mixer.setTime(t);
gltf.scene.updateMatrixWorld(true);
let skinned = null;
gltf.scene.traverse((o) => { if (o.isSkinnedMesh) skinned = o; });
if (!skinned) { console.error('no skinned mesh'); process.exit(2); }
skinned.skeleton.update();

const cam = JSON.parse(readFileSync(camPath, 'utf8'));
const [W, H] = [cam.width, cam.height];
const camera = new THREE.PerspectiveCamera(cam.fov_y_deg, W / H, cam.near, cam.far);
camera.position.fromArray(cam.eye);
camera.up.fromArray(cam.up);
camera.lookAt(new THREE.Vector3().fromArray(cam.target));
camera.updateMatrixWorld(true);

const raycaster = new THREE.Raycaster();
const ndc = new THREE.Vector2();
function sweep(object, firstOnly) {
  raycaster.firstHitOnly = firstOnly;
  const ids = new Uint32Array(W * H);
  const hits = [];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      ndc.set(((x + 0.5) / W) * 2 - 1, 1 - ((y + 0.5) / H) * 2);
      raycaster.setFromCamera(ndc, camera);
      raycaster.near = 0; raycaster.far = Infinity;
      hits.length = 0;
      object.raycast(raycaster, hits);
      if (hits.length) {
        let best = hits[0];
        for (const h of hits) if (h.distance < best.distance) best = h;
        ids[y * W + x] = best.faceIndex + 1;
      }
    }
  }
  return ids;
}
const ms = (f) => { const t0 = process.hrtime.bigint(); const r = f(); return [Number(process.hrtime.bigint() - t0) / 1e6, r]; };
const median = (v) => v.slice().sort((a, b) => a - b)[Math.floor(v.length / 2)];
const result = { model, animation: animName, t, width: W, height: H, triangles: skinned.geometry.index ? skinned.geometry.index.count / 3 : skinned.geometry.attributes.position.count / 3 };

// three-mesh-bvh: bake the pose, build once, then per frame bake + refit + sweep
const gen = new StaticGeometryGenerator(skinned);
gen.applyWorldTransforms = true;
const baked = gen.generate();
// (indirect: the geometry keeps its triangle order, so face indices compare)
baked.boundsTree = new MeshBVH(baked, { indirect: true });
const mesh = new THREE.Mesh(baked);
mesh.raycast = acceleratedRaycast;
const bake = [], refit = [], refitOnly = [], swp = [];
let ids;
for (let r = 0; r < reps + 1; r++) {
  const [b] = ms(() => gen.generate(baked));
  const [f] = ms(() => baked.boundsTree.refit());
  const [s, got] = ms(() => sweep(mesh, true));
  ids = got;
  if (r > 0) { bake.push(b); refit.push(f); swp.push(s); }
}
for (let r = 0; r < 20; r++) refitOnly.push(ms(() => baked.boundsTree.refit())[0]);
writeFileSync(`${out}_bvh.u32`, Buffer.from(ids.buffer));
Object.assign(result, { bvh_bake_ms: median(bake), bvh_refit_ms: median(refit), bvh_refit_only_ms: median(refitOnly), bvh_sweep_ms: median(swp) });

if (flag('--brute')) {
  // the plain Raycaster on the SkinnedMesh: each ray poses every vertex
  const [s, got] = ms(() => sweep(skinned, false));
  writeFileSync(`${out}_brute.u32`, Buffer.from(got.buffer));
  result.brute_sweep_ms = s;
}
console.log(JSON.stringify(result));
