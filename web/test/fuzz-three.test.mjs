// A seeded fuzz test of the three.js adapter (`softpick/three`) in Node.js:
// scenes of random three.js meshes with bad parts (NaN or singular matrices,
// position attributes of itemSize 1, 2 or 4 and of other array kinds, index
// attributes with huge values or a count not a multiple of 3, groups and
// draw ranges out of bounds, morph attributes missing or of the wrong
// count, NaN influences, instanced meshes with NaN instance matrices,
// skinned meshes whose joints point past their skeleton, bad sides and
// clipping planes), each mirrored by `Picker.update` next to a good mesh.
// Every update either works or throws an Error naming a bad object; the
// picks after it work; the good mesh answers its ray and pixel picks as
// before, and a later update of a good scene alone still works. Seeded as
// test/fuzz.test.mjs (SOFTPICK_FUZZ_SEED, SOFTPICK_FUZZ_SCENES).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { Picker } from '../js/three.js';
import * as sp from '../js/index.js';
import { rng as prng } from './scenes.js'; // mulberry32, seeded, uniform in [0, 1)

const SEED = Number(process.env.SOFTPICK_FUZZ_SEED ?? 20261207);
const SCENES = Number(process.env.SOFTPICK_FUZZ_SCENES ?? 400);

const TRAP = /unreachable|memory access out of bounds|RuntimeError|recursive use of an object|null pointer passed to rust|Maximum call stack|out of memory|allocation failed/i;

test('softpick/three: random bad three.js objects throw Errors naming them; the good scene keeps working', { timeout: 120_000 }, async () => {
  const r = prng(SEED);
  const below = (n) => Math.floor(r() * n);
  const chance = (p) => r() < p;
  const pick = (a) => a[below(a.length)];
  const num = () => (chance(0.15) ? pick([NaN, Infinity, -Infinity, 1e38, -1e38, -0]) : r() * 4 - 2);
  const huge = () => pick([-1, 2 ** 31, 2 ** 32 - 1, 1e9, 65535, 65536, NaN, Infinity, -Infinity, 0.5]);

  /** A random, often broken, BufferGeometry; `why` collects what is wrong with it. */
  function geometry() {
    const g = new THREE.BufferGeometry();
    const n = pick([0, 1, 2, 3, 4, 6, 9]);
    const item = chance(0.75) ? 3 : pick([1, 2, 4]);
    const vals = Array.from({ length: n * item }, num);
    const Kind = chance(0.8) ? Float32Array : pick([Float64Array, Int16Array, Uint8Array, Int8Array]);
    if (chance(0.95)) g.setAttribute('position', new THREE.BufferAttribute(Kind.from(vals), item, Kind !== Float32Array && Kind !== Float64Array && chance(0.5)));
    if (chance(0.5)) {
      const m = pick([0, 3, 6, 5, 7]);
      const ix = Array.from({ length: m }, () => (chance(0.85) ? below(Math.max(n, 1)) : huge()));
      const IKind = pick([Uint16Array, Uint32Array, Uint32Array, Uint8Array]);
      g.setIndex(new THREE.BufferAttribute(IKind.from(ix), 1));
    }
    if (chance(0.2)) g.setDrawRange(chance(0.5) ? below(6) : huge(), chance(0.5) ? below(9) : huge());
    if (chance(0.25)) {
      for (let k = pick([1, 2, 3]); k > 0; k--) g.addGroup(chance(0.6) ? 3 * below(3) : huge(), chance(0.6) ? 3 * below(3) : huge(), chance(0.8) ? below(2) : pick([5, -1, NaN]));
    }
    if (chance(0.3)) {
      const targets = Array.from({ length: pick([0, 1, 2]) }, () => {
        const c = chance(0.8) ? n : pick([0, n + 1, Math.max(0, n - 1)]);
        return new THREE.BufferAttribute(Float32Array.from({ length: c * 3 }, num), 3);
      });
      g.morphAttributes.position = targets;
      g.morphTargetsRelative = chance(0.5);
    }
    return g;
  }

  function material() {
    const m = new THREE.MeshBasicMaterial();
    if (chance(0.2)) m.side = pick([THREE.FrontSide, THREE.BackSide, THREE.DoubleSide, 3, NaN, -1]);
    if (chance(0.1)) m.clippingPlanes = [new THREE.Plane(new THREE.Vector3(num(), num(), num()), num())];
    return m;
  }

  /** A random mesh named `name`. */
  function object(name) {
    const g = geometry();
    const multi = g.groups.length > 0 && chance(0.8);
    const mat = multi ? [material(), material()] : material();
    let o;
    const kind = below(6);
    if (kind === 0) {
      const count = pick([0, 1, 2, 3]);
      o = new THREE.InstancedMesh(g, mat, count);
      for (let i = 0; i < count; i++) {
        const m = new THREE.Matrix4().makeTranslation(num(), num(), num());
        if (chance(0.2)) m.elements[below(16)] = num();
        o.setMatrixAt(i, m);
      }
    } else if (kind === 1) {
      const nv = g.attributes.position?.count ?? 0;
      const bones = Array.from({ length: pick([0, 1, 2, 3]) }, () => new THREE.Bone());
      for (const b of bones) { b.position.set(num(), num(), num()); }
      const joints = Array.from({ length: 4 * nv }, () => (chance(0.85) ? below(Math.max(bones.length, 1)) : pick([7, 200, 65535])));
      const weights = Array.from({ length: 4 * nv }, () => (chance(0.8) ? r() : num()));
      if (chance(0.9)) g.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(joints, 4));
      if (chance(0.9)) g.setAttribute('skinWeight', new THREE.Float32BufferAttribute(weights, 4));
      o = new THREE.SkinnedMesh(g, mat);
      if (bones.length) o.add(bones[0]);
      o.bind(new THREE.Skeleton(bones));
    } else {
      o = new THREE.Mesh(g, mat);
    }
    if (g.morphAttributes.position || chance(0.1)) {
      o.morphTargetInfluences = Array.from({ length: pick([0, 1, 2, 3]) }, () => (chance(0.8) ? r() : num()));
    }
    o.position.set(num(), num(), num());
    if (chance(0.1)) o.scale.set(pick([0, 1, -1, 1e-30]), 1, 1);
    if (chance(0.1)) o.matrixAutoUpdate = false, o.matrix.elements[below(16)] = num();
    o.name = name;
    kinds.set(name, kind === 0 ? 'InstancedMesh' : kind === 1 ? 'SkinnedMesh' : 'Mesh');
    return o;
  }
  /** Each bad object's class by its name: an error names the object as `Class "name"`. */
  const kinds = new Map();

  const picker = await Picker.create();
  const good = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshBasicMaterial());
  good.name = 'good';
  const camera = new THREE.PerspectiveCamera(50, 1, 0.1, 100);
  camera.position.set(0, 0, 5);
  camera.updateMatrixWorld();
  const ray = new THREE.Raycaster(new THREE.Vector3(0.1, 0.2, 5), new THREE.Vector3(0, 0, -1));
  // the good mesh's ray hit (whatever else is in the scene), and with the
  // good mesh alone, its pixel pick
  const rayAnswer = () => {
    const h = picker.intersectObject(ray, good, false)[0];
    return JSON.stringify([h?.distance, h?.faceIndex, h?.object === good]);
  };
  const answer = () => {
    const p = picker.pickPixel(camera, 32, 30, 64, 64);
    return JSON.stringify([rayAnswer(), p?.faceIndex, p?.object === good]);
  };
  const alone = new THREE.Scene();
  alone.add(good);
  picker.update(alone);
  const expected = answer();
  const expectedRay = rayAnswer();
  assert.equal(JSON.parse(expectedRay)[2], true, 'the probe ray hits the good mesh');

  // a view the module cannot hold a frame of (16384 × 16384 sides passed
  // the side checks and aborted the module when rendered) is refused
  assert.throws(() => picker.pickPixel(camera, 1, 1, 16384, 16384), /16384 × 16384 view is more than 33554432 pixels/);
  assert.equal(answer(), expected, 'the good scene answers as before after the refused view');

  assert.throws(() => picker.pickPixel(camera, 1, 1, 2 ** 32 + 64, 64), /the view size 4294967360 × 64 must be whole positive numbers of pixels/);
  // rectangle and lasso corners that are not finite (NaN was taken as 0, or
  // as an edge selecting nothing, without a word)
  assert.throws(() => picker.pickRect(camera, NaN, 0, 63, 63, 64, 64), /rectangle corner NaN is not a finite number/);
  assert.throws(() => picker.pickLasso(camera, [[0, 0], [Infinity, 0], [63, 63]], 64, 64), /lasso point 1 has a coordinate of Infinity/);
  assert.throws(() => picker.pickLasso(camera, [0, 0, 63, 0, 63], 64, 64), /5 lasso values is not a whole number/);

  // rays as the core API takes them (test/fuzz.test.mjs): a raycaster with a
  // zero direction hits nothing, as three.js's own; one that is not finite is
  // refused (three.js answers it with arbitrary faces), and so is a ray of
  // intersectRays; every message with the package's prefix
  const at = (d) => new THREE.Raycaster(new THREE.Vector3(0, 0, 5), new THREE.Vector3(...d));
  assert.deepEqual(picker.intersectObjects(at([0, 0, 0]), alone.children, true), []);
  assert.deepEqual(at([0, 0, 0]).intersectObjects(alone.children, true), [], 'three.js: a zero direction hits nothing');
  assert.throws(() => picker.intersectObjects(at([NaN, 0, -1]), alone.children, true), /^Error: softpick: the ray's direction \(NaN, 0, -1\) is not finite$/);
  assert.throws(() => picker.intersectRays([0, 0, 5, 0, 0, 5], [0, 0, -1, 0, Infinity, -1]), /^Error: softpick: ray 1's direction \(0, Infinity, -1\) is not finite$/);
  const far = at([0, 0, -1]);
  far.near = NaN;
  assert.throws(() => picker.intersectObjects(far, alone.children, true), /^Error: softpick: near NaN and far Infinity/);
  assert.equal(rayAnswer(), expectedRay, 'the good mesh answers its ray as before after the refused rays');

  let refused = 0;
  for (let k = 0; k < SCENES; k++) {
    const where = `seed ${SEED}, scene ${k}`;
    const scene = new THREE.Scene();
    scene.add(good);
    const names = [];
    for (let b = 1 + below(3); b > 0; b--) {
      const name = `bad${k}.${b}`;
      names.push(name);
      scene.add(object(name));
    }
    const outcome = (what, fn) => {
      try {
        fn();
      } catch (e) {
        const text = `${where}, ${what}: ${e?.name}: ${e?.message}\n${e?.stack ?? ''}`;
        if (!(e instanceof Error) || e instanceof WebAssembly.RuntimeError || TRAP.test(e.message)) assert.fail(`a trap or a non-Error: ${text}`);
        return e;
      }
      return null;
    };
    const e = outcome('update', () => picker.update(scene));
    if (e) {
      refused++;
      assert.match(e.message, /^softpick: /, `${where}: ${e.message}`);
      assert.ok(names.some((n) => e.message.includes(`${kinds.get(n)} "${n}"`)), `${where}: the error names none of ${names.map((n) => `${kinds.get(n)} "${n}"`).join(', ')}: ${e.message}`);
    }
    // the picks of what was mirrored work (or throw a proper Error)
    outcome('intersectObjects', () => picker.intersectObjects(new THREE.Raycaster(new THREE.Vector3(num(), num(), 5), new THREE.Vector3(0, 0, -1)), scene.children, true));
    outcome('pickRect', () => picker.pickRect(camera, 0, 0, 63, 63, 64, 64));
    assert.equal(rayAnswer(), expectedRay, `${where}: the good mesh's ray hit changed`);
    if (chance(0.3)) {
      alone.add(good);
      picker.update(alone);
      assert.equal(answer(), expected, `${where}: the good scene alone answers otherwise`);
    }
  }
  assert.ok(refused > SCENES / 10, `only ${refused} of ${SCENES} updates threw: the fuzzing is too tame`);
  // the adapter's memory stays bounded
  assert.ok(sp._memory().buffer.byteLength < 1 << 30);
  picker.free();
});
