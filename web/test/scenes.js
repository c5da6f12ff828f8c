// Scenes the browser tests and the benchmark pick in (run in the page;
// `three` is the release of the page's import map): the built-in OBJ,
// instanced meshes, the Fox, AnimatedMorphCube and a generated mesh that
// is both skinned and morphed. Each is { root, pose(k), poses, camera }.

import * as THREE from 'three';
import { OBJLoader } from 'three/addons/loaders/OBJLoader.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

/** A perspective camera looking at `box` from `dir` (default: the front and a little above), `reach` half-diagonals away. */
export function frame(box, aspect = 1, dir = new THREE.Vector3(0.35, 0.4, 2.4), reach = 1) {
  const c = box.getCenter(new THREE.Vector3());
  const r = box.getSize(new THREE.Vector3()).length() / 2;
  const cam = new THREE.PerspectiveCamera(45, aspect, r * 0.01, r * 10);
  cam.position.copy(c).add(dir.clone().multiplyScalar(r * reach));
  cam.lookAt(c);
  cam.updateMatrixWorld(true);
  return cam;
}

/** A seeded random number generator in [0, 1). */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** three.js must see each posed mesh's current bounds (its raycast skips by stale ones). */
export function refreshBounds(root) {
  root.updateMatrixWorld(true);
  root.traverse((o) => {
    if (o.isSkinnedMesh) {
      o.skeleton.update();
      o.computeBoundingBox();
      o.computeBoundingSphere();
    } else if (o.isMesh && o.morphTargetInfluences) {
      o.geometry.computeBoundingBox();
      o.geometry.computeBoundingSphere();
    } else if (o.isInstancedMesh) {
      o.computeBoundingBox?.();
      o.computeBoundingSphere?.();
    }
  });
}

async function gltf(url) {
  return new GLTFLoader().loadAsync(url);
}

/** The repository's built-in scene (models/builtin.obj), as three.js's OBJLoader reads it. */
export async function obj() {
  const text = await (await fetch('/models/builtin.obj')).text();
  const root = new THREE.Scene();
  root.add(new OBJLoader().parse(text));
  root.updateMatrixWorld(true);
  return { root, poses: 1, pose() {}, camera: frame(new THREE.Box3().setFromObject(root)) };
}

/** Two instanced meshes (one double-sided, some instances mirrored, under a scaled and rotated group: sheared placements) and a back-sided mesh. */
export async function instanced() {
  const rand = rng(11);
  const root = new THREE.Scene();
  const group = new THREE.Group();
  group.scale.set(1.5, 0.7, 1.1);
  group.rotation.set(0.3, 0.2, -0.1);
  root.add(group);
  const geo = new THREE.IcosahedronGeometry(0.5, 2);
  const box = new THREE.BoxGeometry(0.8, 0.5, 0.6, 2, 2, 2);
  const m = new THREE.Matrix4();
  const q = new THREE.Quaternion();
  const place = (mesh, n, mirror) => {
    for (let i = 0; i < n; i++) {
      q.setFromEuler(new THREE.Euler(rand() * 6, rand() * 6, rand() * 6));
      const s = new THREE.Vector3(0.5 + rand(), 0.5 + rand(), 0.5 + rand());
      if (mirror && i % 5 === 0) s.x = -s.x;
      m.compose(new THREE.Vector3(rand() * 8 - 4, rand() * 6 - 3, rand() * 6 - 3), q, s);
      mesh.setMatrixAt(i, m);
    }
    mesh.instanceMatrix.needsUpdate = true;
  };
  const a = new THREE.InstancedMesh(geo, new THREE.MeshBasicMaterial(), 60);
  place(a, 60, true);
  const b = new THREE.InstancedMesh(box, new THREE.MeshBasicMaterial({ side: THREE.DoubleSide }), 40);
  place(b, 40, false);
  b.count = 32; // only the first 32 are drawn (and hit)
  const back = new THREE.Mesh(new THREE.TorusKnotGeometry(1, 0.3, 64, 8), new THREE.MeshBasicMaterial({ side: THREE.BackSide }));
  back.position.set(0, 0, -2);
  a.name = 'icosahedra';
  b.name = 'boxes';
  back.name = 'knot';
  group.add(a, b);
  root.add(back);
  root.updateMatrixWorld(true);
  // three.js's raycast skips a mesh whose bounding sphere, scaled by the
  // longest column of its matrix, the ray misses; under shear (these
  // instances under the scaled and rotated group) the matrix stretches
  // further than its longest column, so that test drops real hits: the
  // reference gets spheres no ray misses
  for (const g of [geo, box]) {
    g.computeBoundingSphere();
    g.boundingSphere.radius = 1e6;
  }
  refreshBounds(root);
  return { root, poses: 1, pose() {}, camera: frame(new THREE.Box3().setFromObject(root, true)) };
}

/** The Fox (SkinnedMesh) posed at five times of each of two animations. */
export async function fox() {
  const g = await gltf('/web/test/fixtures/Fox/Fox.gltf');
  const root = new THREE.Scene();
  root.add(g.scene);
  const mixer = new THREE.AnimationMixer(g.scene);
  const clips = ['Survey', 'Walk'].map((n) => g.animations.find((a) => a.name === n));
  const poses = [];
  for (const clip of clips) for (let k = 0; k < 5; k++) poses.push([clip, (clip.duration * k) / 5 + 0.05]);
  let action = null;
  const pose = (k) => {
    const [clip, t] = poses[k];
    action?.stop();
    action = mixer.clipAction(clip);
    action.play();
    mixer.setTime(t);
    refreshBounds(root);
  };
  pose(0);
  // from its side (it walks along z), close: it fills the view
  const camera = frame(new THREE.Box3().setFromObject(root, true), 1, new THREE.Vector3(1.6, 0.5, 0.4));
  return { root, poses: poses.length, pose, camera, mixer, clips };
}

/** AnimatedMorphCube (morph targets, animated weights) at five times. */
export async function morphcube() {
  const g = await gltf('/web/test/fixtures/AnimatedMorphCube/AnimatedMorphCube.gltf');
  const root = new THREE.Scene();
  root.add(g.scene);
  const mixer = new THREE.AnimationMixer(g.scene);
  const clip = g.animations[0];
  mixer.clipAction(clip).play();
  const pose = (k) => {
    mixer.setTime((clip.duration * (k + 0.5)) / 5);
    refreshBounds(root);
  };
  pose(0);
  return { root, poses: 5, pose, camera: frame(new THREE.Box3().setFromObject(root, true)) };
}

/**
 * A tube that is both skinned (a chain of `bones` bones along it) and
 * morphed (a bulge and a twist, relative targets): `radial × rows × 2`
 * triangles plus the caps.
 */
export function skinmorphMesh({ radial = 24, rows = 40, bones = 4, height = 4, morph = true } = {}) {
  const geo = new THREE.CylinderGeometry(0.5, 0.5, height, radial, rows, false);
  const pos = geo.attributes.position;
  const n = pos.count;
  const skinIndex = new Uint16Array(n * 4);
  const skinWeight = new Float32Array(n * 4);
  const bulge = new Float32Array(n * 3);
  const twist = new Float32Array(n * 3);
  const seg = height / (bones - 1);
  for (let i = 0; i < n; i++) {
    const x = pos.getX(i), y = pos.getY(i), z = pos.getZ(i);
    const u = Math.min(bones - 1.0001, Math.max(0, (y + height / 2) / seg));
    const b = Math.floor(u);
    const w = u - b;
    skinIndex.set([b, b + 1, 0, 0], i * 4);
    skinWeight.set([1 - w, w, 0, 0], i * 4);
    const s = Math.sin(((y + height / 2) / height) * Math.PI);
    bulge.set([x * s * 0.8, 0, z * s * 0.8], i * 3);
    const a = ((y + height / 2) / height) * 0.9;
    twist.set([x * Math.cos(a) - z * Math.sin(a) - x, 0.1 * s, x * Math.sin(a) + z * Math.cos(a) - z], i * 3);
  }
  geo.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(skinIndex, 4));
  geo.setAttribute('skinWeight', new THREE.Float32BufferAttribute(skinWeight, 4));
  if (morph) {
    geo.morphAttributes.position = [new THREE.Float32BufferAttribute(bulge, 3), new THREE.Float32BufferAttribute(twist, 3)];
    geo.morphTargetsRelative = true;
  }
  const chain = [];
  for (let b = 0; b < bones; b++) {
    const bone = new THREE.Bone();
    bone.position.y = b === 0 ? -height / 2 : seg;
    if (b > 0) chain[b - 1].add(bone);
    chain.push(bone);
  }
  const mesh = new THREE.SkinnedMesh(geo, new THREE.MeshStandardMaterial());
  mesh.add(chain[0]);
  mesh.bind(new THREE.Skeleton(chain));
  if (morph) mesh.morphTargetInfluences = [0, 0];
  const pose = (t) => {
    chain.forEach((bone, b) => {
      bone.rotation.set(0.35 * Math.sin(t + b), 0.2 * Math.cos(0.7 * t + b), 0.3 * Math.sin(1.3 * t - b));
    });
    if (morph) {
      mesh.morphTargetInfluences[0] = Math.sin(t) ** 2;
      mesh.morphTargetInfluences[1] = 0.5 + 0.5 * Math.cos(1.7 * t);
    }
  };
  return { mesh, pose };
}

/** The skinned and morphed tube at five poses, placed off the origin. */
export async function skinmorph() {
  const root = new THREE.Scene();
  const { mesh, pose: at } = skinmorphMesh();
  mesh.position.set(1, -0.5, 0.3);
  mesh.rotation.z = 0.2;
  root.add(mesh);
  const pose = (k) => {
    at(0.4 + 1.1 * k);
    refreshBounds(root);
  };
  pose(0);
  return { root, poses: 5, pose, camera: frame(new THREE.Box3(new THREE.Vector3(-1.5, -3, -1.5), new THREE.Vector3(3, 2.5, 2))) };
}

export const SCENES = { obj, instanced, fox, morphcube, skinmorph };
