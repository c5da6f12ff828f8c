// A seeded fuzz test of the core JavaScript API (`softpick`) in Node.js:
// thousands of random calls with hostile values (NaN, infinities, huge and
// negative integers, wrong array kinds and lengths, freed objects), and
// Scene.load on mutated copies of the fixture models. Every call must either
// succeed or throw an Error with a message that is not a WebAssembly trap
// (a Rust panic or a failed allocation surfaces as `RuntimeError:
// unreachable`); after every throw, a scene built at the start must still
// answer its known ray and pixel picks exactly as before (the module is not
// poisoned). The PRNG is seeded, so a run is the same every time; a failure
// names the seed, the call number and the call (SOFTPICK_FUZZ_SEED=n
// runs another seed, SOFTPICK_FUZZ_CALLS=n more or fewer calls).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WEB } from './harness.mjs';
import * as sp from '../js/index.js';
import { rng as prng } from './scenes.js'; // mulberry32, seeded, uniform in [0, 1)

const SEED = Number(process.env.SOFTPICK_FUZZ_SEED ?? 20261207);
const CALLS = Number(process.env.SOFTPICK_FUZZ_CALLS ?? 4000);
const FIXTURES = join(WEB, 'test', 'fixtures');

/** The random choices of one run. */
class Gen {
  constructor(seed) { this.r = prng(seed); }
  below(n) { return Math.floor(this.r() * n); }
  chance(p) { return this.r() < p; }
  pick(a) { return a[this.below(a.length)]; }
  /** A float: often hostile, else an ordinary one in [-10, 10]. */
  num() {
    return this.chance(0.3)
      ? this.pick([NaN, Infinity, -Infinity, 1e38, -1e38, 3.5e38, -0, 0, 1e-45, 1e30, -1e30, 2 ** 32])
      : this.r() * 20 - 10;
  }
  /** An integer (id, index, count, size): often hostile. */
  int(small = 8) {
    return this.chance(0.3)
      ? this.pick([-1, -(2 ** 31), 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 1e9, 65535, 65536, NaN, Infinity, 0.5, -0])
      : this.below(small);
  }
  /** n floats in an array of a random kind (mostly Float32Array). */
  floats(n, f = () => this.num()) {
    const a = Array.from({ length: n }, f);
    const k = this.below(10);
    if (k < 6) return Float32Array.from(a);
    if (k < 8) return a;
    if (k < 9) return Float64Array.from(a);
    return this.pick([null, undefined, 'text', 7, {}, new Int8Array(n), new Uint32Array(n)]);
  }
  /** A length near `n` (often exact, sometimes off by some, empty or huge-ish). */
  len(n) {
    return this.chance(0.7) ? n : Math.max(0, this.pick([0, 1, 2, n - 1, n + 1, n + 3, 2 * n, 3 * n + 1]));
  }
  /** A 4×4 matrix: the identity with hostile entries, or the wrong length. */
  matrix() {
    const m = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, this.r() - 0.5, this.r() - 0.5, this.r() - 0.5, 1];
    if (this.chance(0.6)) return m;
    const n = this.chance(0.8) ? 16 : this.pick([0, 3, 12, 15, 17]);
    const out = m.slice(0, n);
    while (out.length < n) out.push(this.num());
    for (let k = this.below(3); k > 0; k--) out[this.below(n || 1)] = this.num();
    return this.chance(0.8) ? out : this.pick([Float32Array.from(out), Float64Array.from(out), null, 'm']);
  }
  vec3() { return this.chance(0.85) ? [this.num(), this.num(), this.num()] : this.floats(this.pick([0, 2, 4])); }
  size() { return this.pick([0, 1, 2, 3, 17, 64, 64, 64, 16384, 16385, 1e9, -1, NaN, 2 ** 32, 0.5]); }
}

/** A value as text for the failure report (NaN, infinities, typed arrays shortened). */
function show(v) {
  return JSON.stringify(v, (_, x) => {
    if (typeof x === 'number' && !Number.isFinite(x)) return String(x);
    if (Object.is(x, -0)) return '-0';
    if (ArrayBuffer.isView(x)) return `${x.constructor.name}(${x.length})[${Array.from(x.slice(0, 24)).map(String).join(', ')}${x.length > 24 ? ', …' : ''}]`;
    if (x === undefined) return 'undefined';
    return x;
  })?.slice(0, 600);
}

/** What a wasm trap or an allocation abort says (never a proper error). */
const TRAP = /unreachable|memory access out of bounds|RuntimeError|recursive use of an object|null pointer passed to rust|attempted to take ownership|Maximum call stack|out of memory|Array buffer allocation failed/i;

/** The problem with a thrown value, or null for a proper Error. */
function badThrow(e) {
  if (!(e instanceof Error)) return `threw a non-Error: ${String(e)}`;
  if (e instanceof WebAssembly.RuntimeError) return `a WebAssembly trap: ${e.message}`;
  if (!e.message) return 'an Error without a message';
  if (TRAP.test(e.message) || TRAP.test(e.name)) return `a trap: ${e.name}: ${e.message}`;
  // every Error the package throws says where it came from, its JavaScript
  // checks' and the wasm layer's alike (the wasm layer's had no prefix)
  if (e.constructor === Error && !e.message.startsWith('softpick: ')) return `an Error without the "softpick: " prefix: ${e.message}`;
  // a TypeError or RangeError from inside the package (not from the test's
  // own misuse) is JavaScript failing on a value it did not check: its
  // message names no argument
  const top = e.stack?.split('\n').find((l) => /^\s+at /.test(l)) ?? '';
  if ((e instanceof TypeError || e instanceof RangeError) && /\/(js|pkg)\//.test(top)) return `an unchecked ${e.name} inside the package: ${e.message}\n  ${top.trim()}`;
  return null;
}

/** A glTF file and its .bin as one GLB (images dropped: softpick reads geometry only). */
async function glb(dir, name) {
  const json = JSON.parse(await readFile(join(FIXTURES, dir, `${name}.gltf`), 'utf8'));
  const bin = await readFile(join(FIXTURES, dir, `${name}.bin`));
  delete json.buffers[0].uri;
  for (const k of ['images', 'textures', 'samplers']) delete json[k];
  for (const m of json.materials ?? []) {
    delete m.pbrMetallicRoughness?.baseColorTexture;
  }
  return { json, bin: new Uint8Array(bin) };
}

/** Packs glTF JSON and a binary chunk as GLB bytes. */
function pack(json, bin) {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jl = (text.length + 3) & ~3;
  const bl = (bin.length + 3) & ~3;
  const out = new Uint8Array(12 + 8 + jl + 8 + bl);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0x46546c67, true);
  dv.setUint32(4, 2, true);
  dv.setUint32(8, out.length, true);
  dv.setUint32(12, jl, true);
  dv.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jl);
  out.set(text, 20);
  dv.setUint32(20 + jl, bl, true);
  dv.setUint32(24 + jl, 0x004e4942, true);
  out.set(bin, 28 + jl);
  return out;
}

/** A random change to a glTF document's JSON (huge counts, bad references, cycles). */
function mutateJson(g, json) {
  const j = structuredClone(json);
  const pickOf = (a) => (a && a.length ? g.pick(a) : null);
  const huge = () => g.pick([2 ** 31, 2 ** 32 - 1, 2 ** 32, 1e9, 1e15, -1, 0, 3, 1e300]);
  for (let k = 1 + g.below(3); k > 0; k--) {
    switch (g.below(12)) {
      case 0: { const a = pickOf(j.accessors); if (a) a.count = huge(); break; }
      case 1: { const a = pickOf(j.accessors); if (a) a.byteOffset = huge(); break; }
      case 2: { const v = pickOf(j.bufferViews); if (v) v.byteLength = huge(); break; }
      case 3: { const v = pickOf(j.bufferViews); if (v) v.byteStride = g.pick([0, 1, 3, 4, 252, 256, huge()]); break; }
      case 4: { const n = pickOf(j.nodes); if (n) n.children = [g.below(j.nodes.length), ...(n.children ?? [])]; break; }
      case 5: { const m = pickOf(j.meshes); const p = m && pickOf(m.primitives); if (p) p.indices = g.int(j.accessors.length + 2); break; }
      case 6: { const m = pickOf(j.meshes); const p = m && pickOf(m.primitives); if (p) p.attributes.POSITION = g.int(j.accessors.length + 2); break; }
      case 7: { const s = pickOf(j.skins); if (s) s.joints = s.joints.map((x) => (g.chance(0.2) ? g.int(200) : x)); break; }
      case 8: { const a = pickOf(j.animations); const s = a && pickOf(a.samplers); if (s) { s.input = g.int(j.accessors.length + 2); s.output = g.int(j.accessors.length + 2); } break; }
      case 9: { const a = pickOf(j.accessors); if (a) a.componentType = g.pick([5120, 5121, 5122, 5123, 5125, 5126, 5124, 0, 9999]); break; }
      case 10: { const a = pickOf(j.accessors); if (a) a.type = g.pick(['SCALAR', 'VEC2', 'VEC3', 'VEC4', 'MAT4', 'MAT2', 'X']); break; }
      case 11: { const m = pickOf(j.meshes); const p = m && pickOf(m.primitives); if (p) p.mode = g.pick([0, 1, 2, 3, 4, 5, 6, 7, -1]); break; }
    }
  }
  return j;
}

/** A random change to bytes: flips, truncation, a spliced or repeated run, a huge number in text. */
function mutateBytes(g, bytes) {
  let b = bytes.slice();
  for (let k = 1 + g.below(3); k > 0; k--) {
    const at = g.below(b.length + 1);
    switch (g.below(5)) {
      case 0: for (let n = 1 + g.below(8); n > 0; n--) { const i = g.below(b.length); b[i] ^= 1 << g.below(8); } break;
      case 1: b = b.slice(0, at); break;
      case 2: { const from = g.below(b.length + 1); const run = b.slice(from, from + g.below(64)); b = new Uint8Array([...b.slice(0, at), ...run, ...b.slice(at)]); break; }
      case 3: b = new Uint8Array([...b.slice(0, at), ...b.slice(at + g.below(64))]); break;
      case 4: { const t = new TextEncoder().encode(g.pick(['4294967295', '99999999999999999999', '-1', 'nan', '1e400', ' f 1 2 0', '\nf 9999999 -9999999 1\n', '\nv 1e39 nan inf\n'])); b = new Uint8Array([...b.slice(0, at), ...t, ...b.slice(at)]); break; }
    }
  }
  return b;
}

/**
 * The known-good scene (the built-in one) and its answers to a ray and a
 * pixel pick: `check()` fails when they changed (the module was poisoned).
 */
function knownGood() {
  const good = sp.Scene.builtin();
  const goodCam = sp.Camera.auto(good, 96, 96);
  const goodFrame = good.render(goodCam);
  // (the probe pixel: the first covered one from the centre row down)
  const ids = goodFrame.ids();
  let at = 48 * 96 + 48;
  while (ids[at] === 0) at++;
  const [px, py] = [(at % 96) + 0.5, Math.floor(at / 96) + 0.5];
  const probe = () => {
    const ray = goodCam.rayThrough(px, py);
    return show({
      ray: good.raycast(ray.origin, ray.direction),
      pick: goodFrame.pick(px, py),
      all: good.raycastAll(ray.origin, ray.direction).length,
    });
  };
  const expected = probe();
  assert.notEqual(JSON.parse(expected).ray, null, 'the probe ray hits the built-in scene');
  return (where) => {
    const now = (() => { try { return probe(); } catch (e) { return `probe threw ${e}`; } })();
    if (now !== expected) assert.fail(`${where}\n  the known-good scene changed its answer after this call:\n  ${now}\n  not ${expected}`);
    // (bounded memory: no call may leave the module holding gigabytes)
    const mem = sp._memory().buffer.byteLength;
    if (mem > 1 << 30) assert.fail(`${where}\n  the module's memory grew to ${mem} bytes`);
  };
}

/** Runs a call: it returns, or throws a proper Error (returned); a trap or a thrown non-Error fails. */
function attempt(where, run) {
  try {
    run();
    return null;
  } catch (e) {
    const bad = badThrow(e);
    if (bad !== null) assert.fail(`${where}\n  ${bad}\n${e.stack ?? ''}`);
    return e;
  }
}

const ID = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** Inputs that broke the module once, each with what it must throw now (null: it must succeed). */
const FIXED = [
  // a 16384 × 16384 frame (sides within MAX_FRAME_SIDE) needed over 2 GiB and aborted the module
  ['Camera.auto(16384, 16384), analyzeRules', /16384 × 16384 view is more than 33554432 pixels/, () => {
    const s = sp.Scene.builtin();
    try { sp.analyzeRules(s, sp.Camera.auto(s, 16384, 16384)); } finally { s.free(); }
  }],
  ['Camera.lookAt 16384 × 8192', /16384 × 8192 view is more than/, () => sp.Camera.lookAt({ eye: [0, 0, 5], target: [0, 0, 0], fov: 45, near: 0.1, far: 10, width: 16384, height: 8192 })],
  ['Camera.fromMatrices 10000 × 10000', /10000 × 10000 view is more than/, () => sp.Camera.fromMatrices(ID, sp.Camera.lookAt({ eye: [0, 0, 5], target: [0, 0, 0], fov: 45, near: 0.1, far: 10, width: 8, height: 8 }).matrices.projection, 10000, 10000)],
  // objects: [2 ** 31] made a 2 GiB mask, which the module could not copy in
  ['raycast with objects [2 ** 31]', null, () => {
    const s = sp.Scene.builtin();
    try { assert.equal(s.raycast([0, 0, 100], [0, 0, -1], { objects: [2 ** 31] }), null); } finally { s.free(); }
  }],
  ['firstHits with objects [2 ** 31]', null, () => {
    const s = sp.Scene.builtin();
    try { assert.equal(s.firstHits([0, 0, 100], [0, 0, -1], { objects: [2 ** 31] }).object[0], -1); } finally { s.free(); }
  }],
  ['raycast with objects [-1]', /object id -1 in `objects` is not an integer >= 0/, () => sp.Scene.builtin().raycast([0, 0, 100], [0, 0, -1], { objects: [-1] })],
  // per-primitive clip plane counts whose sum wraps in 32 bits passed the count check, then split_at panicked
  ['setObjectClipPlanes counts [2 ** 32 - 1, 2]', /1 clip planes in 2 counts for 2 primitives/, () => {
    const s = new sp.Scene();
    const g = s.addGeometry(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1]), null, [0, 3, 3, 6]);
    s.setObjectClipPlanes(s.addObject(g, ID), [[0, 0, 1, 0]], [2 ** 32 - 1, 2]);
  }],
  // setMorphTargets read `targets` unchecked: TypeErrors naming no argument
  ['setMorphTargets(g, 5)', /morph targets must be an array of Float32Arrays, not Number/, () => quad().s.setMorphTargets(0, 5)],
  ['setMorphTargets(g, [null])', /morph target 0 must be a Float32Array/, () => quad().s.setMorphTargets(0, [null])],
  // ids, sizes and sides went to the wasm layer modulo 2^32 (or 2^8, 2^16):
  // another object than the one meant, silently
  ['removeObject(2 ** 32) (was object 0)', /object 4294967296 is not an integer from 0 to 2\^32 - 1/, () => quad().s.removeObject(2 ** 32)],
  ['setVisible(0.5, false) (was object 0)', /object 0.5 is not an integer/, () => quad().s.setVisible(0.5, false)],
  ['setMatrix(NaN) (was object 0)', /object NaN is not an integer/, () => quad().s.setMatrix(NaN, ID)],
  ['addObject(-0.5) (was geometry 0)', /geometry -0.5 is not an integer/, () => quad().s.addObject(-0.5, ID)],
  ['Camera.lookAt width 2 ** 32 + 64 (was 64)', /width 4294967360 is not an integer/, () => sp.Camera.lookAt({ eye: [0, 0, 5], target: [0, 0, 0], fov: 45, near: 0.1, far: 10, width: 2 ** 32 + 64, height: 8 })],
  ['addObject side 256 (was front)', /side 256 is not 0 \(front\), 1 \(back\) or 2 \(double\)/, () => quad().s.addObject(0, ID, { side: 256 })],
  ['setSkin joint 70000 (was joint 4464)', /joint index 2 is 70000, not an integer from 0 to 65535/, () => quad().s.setSkin(0, [0, 0, 70000, 0, ...Array(12).fill(0)], new Float32Array(16).fill(0.25))],
  // a window point or lasso corner that is not finite answered quietly (a
  // NaN ray; a lasso selecting nothing), and an odd lasso value was dropped
  ['rayThrough(NaN, 1)', /window point \(NaN, 1\) is not finite/, () => sp.Camera.lookAt({ eye: [0, 0, 5], target: [0, 0, 0], fov: 45, near: 0.1, far: 10, width: 8, height: 8 }).rayThrough(NaN, 1)],
  ['pickLasso with a NaN corner', /lasso point 1 has a coordinate of NaN/, () => {
    const q = quad();
    q.s.render(sp.Camera.lookAt({ eye: [0.5, 0.5, 4], target: [0.5, 0.5, 0], fov: 30, near: 0.1, far: 100, width: 16, height: 16 })).pickLasso([[0, 0], [NaN, 0], [16, 16]]);
  }],
  ['pickLasso of 5 values', /5 lasso values is not a whole number/, () => {
    const q = quad();
    q.s.render(sp.Camera.lookAt({ eye: [0.5, 0.5, 4], target: [0.5, 0.5, 0], fov: 30, near: 0.1, far: 100, width: 16, height: 16 })).pickLasso([0, 0, 16, 0, 16]);
  }],
  // one rule for rays (docs/conventions.md, "Ray directions"): a ray that
  // is not finite is refused by every ray call (firstHits answered such a
  // ray "no hit" while raycast threw), and a zero direction hits nothing in
  // every call (raycast threw), as in three.js's Raycaster
  ['firstHits with a NaN origin in ray 1 (was no hit)', /^softpick: ray 1's origin \(0, NaN, 5\) is not finite$/,
    () => quad().s.firstHits([0.5, 0.5, 5, 0, NaN, 5], [0, 0, -1, 0, 0, -1])],
  ['firstHits with an infinite direction in ray 0 (was no hit)', /^softpick: ray 0's direction \(Infinity, 0, 0\) is not finite$/,
    () => quad().s.firstHits([0.5, 0.5, 5], [Infinity, 0, 0])],
  ['raycast with a zero direction (threw)', null, () => {
    const q = quad();
    assert.equal(q.s.raycast([0.5, 0.5, 5], [0, 0, 0]), null);
    assert.deepEqual(q.s.raycastAll([0.5, 0.5, 5], [0, 0, 0]), []);
    assert.equal(q.s.firstHits([0.5, 0.5, 5, 0.5, 0.5, 5], [0, 0, 0, 0, 0, -1]).object.join(), `-1,${q.o}`);
  }],
  ['raycast with an origin past f32 (was a silent miss)', /^softpick: the ray's origin has a coordinate beyond the range of 32-bit floats \(±3\.4e38\)$/,
    () => quad().s.raycast([1e39, 0, 5], [0, 0, -1])],
  ['raycast with a NaN direction', /^softpick: the ray's direction \(0, NaN, -1\) is not finite$/,
    () => quad().s.raycast([0.5, 0.5, 5], [0, NaN, -1])],
  // the wasm layer's messages had no "softpick: " prefix, the JavaScript checks' had
  ['a near of NaN', /^softpick: near NaN and far Infinity: need 0 <= near <= far$/,
    () => quad().s.raycast([0.5, 0.5, 5], [0, 0, -1], { near: NaN })],
  ['Scene.load of an STL file', /^softpick: part\.stl: STL files are not read by softpick's browser build/,
    () => sp.Scene.load(new TextEncoder().encode('solid x\nendsolid x\n'), 'part.stl')],
  // the objects these checks guard are untouched by the refused calls
  ['object 0 is still there and visible', null, () => {
    const q = quad();
    for (const bad of [() => q.s.removeObject(2 ** 32), () => q.s.setVisible(2 ** 32, false)]) assert.throws(bad);
    assert.equal(q.s.raycast([0.25, 0.25, 5], [0, 0, -1])?.object, q.o);
  }],
];

/** A scene with one quad (geometry 0, 4 vertices) placed once (object 0). */
function quad() {
  const s = new sp.Scene();
  const g = s.addGeometry(new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]), new Uint32Array([0, 1, 2, 0, 2, 3]));
  return { s, o: s.addObject(g, ID) };
}

test('inputs that broke the module once throw proper Errors', async (t) => {
  await sp.init();
  const check = knownGood();
  for (const [what, want, run] of FIXED) {
    await t.test(what, () => {
      const e = attempt(what, run);
      if (want === null) assert.equal(e, null, `${what}: threw ${e?.message}`);
      else assert.match(e?.message ?? 'it did not throw', want, what);
      check(what);
    });
  }
});

test('the core API: random hostile calls throw proper Errors and never poison the module', { timeout: 120_000 }, async () => {
  await sp.init();
  const check = knownGood();

  const fox = await glb('Fox', 'Fox');
  const cube = await glb('AnimatedMorphCube', 'AnimatedMorphCube');
  const obj = new Uint8Array(await readFile(join(FIXTURES, 'tri.obj')));
  const models = [
    { name: 'Fox.glb', ...fox, bytes: pack(fox.json, fox.bin) },
    { name: 'AnimatedMorphCube.glb', ...cube, bytes: pack(cube.json, cube.bin) },
    { name: 'tri.obj', bytes: obj },
  ];
  for (const m of models) sp.Scene.load(m.bytes, m.name).free(); // the fixtures load as they are

  const g = new Gen(SEED);
  // the handles in use: scenes with the geometries ({ id, n: vertices }) and
  // objects added to them, cameras, frames; and freed ones, used again now and then
  const live = { scenes: [], cameras: [], frames: [] };
  const freed = [];
  let serial = 0;
  const any = (a) => (a.length ? g.pick(a) : undefined);
  const entry = (s, editable) => ({ s, editable, name: `${editable ? 'scene' : 'whole scene'} #${serial++}`, geoms: [], objs: [] });
  /** A scene to call (mostly an editable one; now and then a freed one). */
  const pickScene = () => {
    if (g.chance(0.03) && freed.length) return { s: g.pick(freed), name: 'a freed handle', geoms: [], objs: [] };
    const e = live.scenes.filter((x) => x.editable);
    const rich = e.filter((x) => x.geoms.length);
    if (g.chance(0.7) && rich.length) return g.pick(rich);
    return g.chance(0.8) && e.length ? g.pick(e) : any(live.scenes);
  };
  const geomOf = (e) => (g.chance(0.9) && e.geoms.length ? g.pick(e.geoms) : { id: g.int(), n: g.pick([3, 4, 6]) });
  const objectOf = (e) => (g.chance(0.9) && e.objs.length ? g.pick(e.objs) : g.int());
  const camera = () => (g.chance(0.03) && freed.length ? g.pick(freed) : any(live.cameras));
  const frame = () => (g.chance(0.03) && freed.length ? g.pick(freed) : any(live.frames));
  /** A call on scene entry `e`: [what, thunk]. */
  const on = (e, what, run) => [`${e.name}.${what}`, () => run(e.s)];

  /** The calls: each returns [what, thunk]. */
  const ops = [
    () => ['new Scene', () => live.scenes.push(entry(new sp.Scene(), true))],
    () => ['Scene.builtin', () => live.scenes.push(entry(sp.Scene.builtin(), false))],
    () => {
      const e = pickScene();
      const n = g.pick([0, 1, 2, 3, 4, 6, 9, 12]);
      const pos = g.chance(0.6) ? Float32Array.from({ length: 3 * n }, () => g.r() * 4 - 2) : g.floats(g.len(3 * n));
      const idx = g.chance(0.5) ? null : g.pick([Uint32Array, Uint32Array, Uint16Array, Array, Int32Array, Float32Array]).from(
        Array.from({ length: g.len(3 * Math.max(1, n - 2)) }, () => (g.chance(0.9) ? g.below(n + (g.chance(0.9) ? 0 : 1)) : g.int(n))));
      const ranges = g.chance(0.7) ? null : Array.from({ length: g.pick([0, 1, 2, 2, 4, 4, 3]) }, () => g.int(12));
      return on(e, `addGeometry(${show(pos)}, ${show(idx)}, ${show(ranges)})`, (s) => {
        e.geoms.push({ id: s.addGeometry(pos, idx, ranges), n: Math.floor((pos?.length ?? 0) / 3) });
      });
    },
    () => {
      const e = pickScene(); const { id, n } = geomOf(e); const p = g.floats(g.len(3 * n));
      return on(e, `setGeometryPositions(${id}, ${show(p)})`, (s) => s.setGeometryPositions(id, p));
    },
    () => {
      const e = pickScene(); const { id, n } = geomOf(e);
      const j = Array.from({ length: g.len(4 * n) }, () => (g.chance(0.9) ? g.below(4) : g.int(70000)));
      const w = g.floats(g.len(4 * n), () => (g.chance(0.7) ? g.r() : g.num()));
      return on(e, `setSkin(${id}, ${show(j)}, ${show(w)})`, (s) => s.setSkin(id, j, w));
    },
    () => {
      const e = pickScene(); const { id, n } = geomOf(e);
      const t = Array.from({ length: g.pick([0, 1, 2, 3]) }, () => g.floats(g.len(3 * n), () => (g.chance(0.9) ? g.r() : g.num())));
      const arg = g.chance(0.95) ? t : g.pick([null, 5, 'x', [null], [7]]);
      const rel = g.chance(0.5);
      return on(e, `setMorphTargets(${id}, ${show(arg)}, ${rel})`, (s) => s.setMorphTargets(id, arg, rel));
    },
    () => { const e = pickScene(); const { id } = geomOf(e); return on(e, `removeGeometry(${id})`, (s) => s.removeGeometry(id)); },
    () => {
      const e = pickScene(); const { id } = geomOf(e); const m = g.matrix();
      const inst = g.chance(0.6) ? undefined : g.floats(g.len(16 * g.pick([1, 2, 3])), () => (g.chance(0.8) ? g.pick([0, 1]) : g.num()));
      const side = g.chance(0.7) ? undefined : g.pick(['front', 'double', 'sideways', 0, 2, 3, 255, -1, NaN, [0, 1, 2, 3], [], ['back', 7]]);
      return on(e, `addObject(${id}, ${show(m)}, ${show({ instances: inst, side })})`, (s) => e.objs.push(s.addObject(id, m, { instances: inst, side })));
    },
    () => {
      const e = pickScene(); const id = objectOf(e); const m = g.matrix();
      const inst = g.chance(0.7) ? undefined : g.floats(g.len(16 * g.pick([0, 1, 2])));
      return on(e, `setMatrix(${id}, ${show(m)}, ${show(inst)})`, (s) => s.setMatrix(id, m, inst));
    },
    () => {
      const e = pickScene(); const id = objectOf(e); const side = g.pick(['back', 'double', 9, -1, NaN, [2, 2, 2, 2, 2], [], [1, 0]]);
      return on(e, `setSide(${id}, ${show(side)})`, (s) => s.setSide(id, side));
    },
    () => { const e = pickScene(); const id = objectOf(e); const v = g.chance(0.5); return on(e, `setVisible(${id}, ${v})`, (s) => s.setVisible(id, v)); },
    () => { const e = pickScene(); const id = objectOf(e); return on(e, `removeObject(${id})`, (s) => s.removeObject(id)); },
    () => {
      const e = pickScene(); const id = objectOf(e);
      const pose = {};
      if (g.chance(0.6)) pose.bones = g.floats(g.len(16 * g.pick([1, 4, 24])), () => (g.chance(0.9) ? g.pick([0, 1]) : g.num()));
      if (g.chance(0.3)) { pose.bindMatrix = g.matrix(); pose.bindMatrixInverse = g.chance(0.8) ? g.matrix() : undefined; }
      if (g.chance(0.5)) pose.influences = g.floats(g.len(g.pick([0, 1, 2, 3])), () => (g.chance(0.7) ? g.r() : g.num()));
      return on(e, `pose(${id}, ${show(pose)})`, (s) => s.pose(id, pose));
    },
    () => {
      const e = pickScene();
      const p = g.chance(0.5)
        ? Array.from({ length: g.pick([0, 1, 2, 8, 9, 40]) }, () => [g.num(), g.num(), g.num(), g.num()])
        : g.floats(g.len(4 * g.pick([0, 1, 2, 9])), () => (g.chance(0.3) ? 0 : g.num()));
      return on(e, `setClipPlanes(${show(p)})`, (s) => s.setClipPlanes(p ?? []));
    },
    () => {
      const e = pickScene(); const id = objectOf(e); const p = g.floats(g.len(4 * g.pick([0, 1, 3, 9])), () => (g.chance(0.3) ? 0 : g.num()));
      const c = g.chance(0.5) ? null : Array.from({ length: g.pick([0, 1, 2, 3]) }, () => g.int(4));
      return on(e, `setObjectClipPlanes(${id}, ${show(p)}, ${show(c)})`, (s) => s.setObjectClipPlanes(id, p ?? [], c));
    },
    () => {
      const e = any(live.scenes); const a = g.pick([g.int(), 0, 1, 'Walk', 'Survey', 'nope', undefined]); const t = g.chance(0.7) ? g.r() * 5 : g.num();
      return on(e, `poseAnimation(${show(t)}, ${show(a)})`, (s) => s.poseAnimation(t, a));
    },
    () => { const e = any(live.scenes); const a = g.int(); return on(e, `duration(${a})`, (s) => s.duration(a)); },
    () => on(any(live.scenes), 'bounds, counts, animations', (s) => [s.bounds, s.objectCount, s.triangleCount, s.animations]),
    () => {
      const e = any(live.scenes);
      const o = g.chance(0.5) ? [g.r() - 0.5, g.r() - 0.5, 10] : g.vec3(); const d = g.chance(0.2) ? [0, 0, 0] : g.chance(0.5) ? [0, 0, -1] : g.vec3();
      const opts = { near: g.chance(0.7) ? undefined : g.num(), far: g.chance(0.7) ? undefined : g.num() };
      if (g.chance(0.3)) opts.objects = g.pick([[0], [g.int()], [-1, 2], new Uint8Array(g.below(4)), [NaN], [2 ** 32]]);
      const all = g.chance(0.3);
      return on(e, `${all ? 'raycastAll' : 'raycast'}(${show(o)}, ${show(d)}, ${show(opts)})`, (s) => (all ? s.raycastAll(o, d, opts) : s.raycast(o, d, opts)));
    },
    () => {
      const e = any(live.scenes);
      const n = g.pick([0, 1, 2, 5]); const o = g.floats(g.len(3 * n)); const d = g.floats(g.len(3 * n), () => (g.chance(0.2) ? 0 : g.num()));
      const opts = { near: g.chance(0.7) ? undefined : g.num(), far: g.chance(0.7) ? undefined : g.num() };
      return on(e, `firstHits(${show(o)}, ${show(d)}, ${show(opts)})`, (s) => s.firstHits(o, d, opts));
    },
    () => {
      const e = pickScene(); const id = objectOf(e); const d = g.vec3(); const skin = g.chance(0.5) ? undefined : g.num();
      return on(e, `sweepMove(${id}, ${show(d)}, ${show(skin)})`, (s) => s.sweepMove(id, d, skin));
    },
    () => {
      const v = [g.matrix(), g.matrix(), g.size(), g.size()];
      return [`Camera.fromMatrices(${show(v)})`, () => live.cameras.push(sp.Camera.fromMatrices(...v))];
    },
    () => {
      const e = any(live.scenes); const w = g.size(); const h = g.size();
      return on(e, `Camera.auto(${w}, ${h})`, (s) => live.cameras.push(sp.Camera.auto(s, w, h)));
    },
    () => {
      const o = { eye: g.vec3(), target: g.vec3(), near: g.chance(0.5) ? 0.1 : g.num(), far: g.chance(0.5) ? 100 : g.num(), width: g.size(), height: g.size() };
      if (g.chance(0.5)) o.up = g.vec3();
      if (g.chance(0.7)) o.fov = g.chance(0.5) ? 45 : g.num(); else if (g.chance(0.8)) o.orthoHeight = g.num();
      return [`Camera.lookAt(${show(o)})`, () => live.cameras.push(sp.Camera.lookAt(o))];
    },
    () => { const x = g.num(); const y = g.num(); return [`camera.rayThrough(${x}, ${y})`, () => camera().rayThrough(x, y)]; },
    () => ['camera getters', () => { const c = camera(); return [c.width, c.height, c.eye, c.matrices]; }],
    () => {
      const e = any(live.scenes);
      const rule = g.pick([undefined, '>0', '>=0', '>=0 area', 'top-left', 'bad', 7, -1, NaN]);
      const color = g.chance(0.3);
      return on(e, `render(a camera, ${show({ rule, color })})`, (s) => {
        const f = g.chance(0.5) ? any(live.frames) ?? new sp.Frame() : new sp.Frame();
        if (!live.frames.includes(f)) live.frames.push(f);
        (g.chance(0.03) && freed.length ? g.pick(freed) : f).render(s, camera(), { rule, color });
      });
    },
    () => ['frame buffers', () => { const f = frame(); return [f.width, f.height, f.ids().length, f.depth().length, f.color().length, f.objectIds().length]; }],
    () => { const k = g.int(400); return [`frame.describe(${k})`, () => frame().describe(k)]; },
    () => {
      const x = g.chance(0.5) ? g.below(70) + 0.5 : g.num(); const y = g.chance(0.5) ? g.below(70) + 0.5 : g.num(); const m = g.pick(['buffer', 'direct', 'ray', 'rays', 3]);
      return [`frame.pick(${x}, ${y}, ${show(m)})`, () => frame().pick(x, y, m)];
    },
    () => { const m = g.pick(['buffer', 'direct', 'ray', 'x']); return [`frame.pickMap(${show(m)})`, () => frame().pickMap(m)]; },
    () => {
      const c = [g.num(), g.num(), g.num(), g.num()].map((v) => (g.chance(0.5) ? g.below(80) : v));
      const through = g.chance(0.5);
      return [`frame.pickRect(${show(c)}, ${show({ through })})`, () => frame().pickRect(...c, { through })];
    },
    () => {
      const n = g.pick([0, 1, 2, 3, 4, 5, 9]);
      const p = g.chance(0.5)
        ? Array.from({ length: n }, () => [g.chance(0.8) ? g.below(80) : g.num(), g.chance(0.8) ? g.below(80) : g.num()])
        : g.floats(g.len(2 * n), () => (g.chance(0.8) ? g.below(80) : g.num()));
      const through = g.chance(0.5);
      return [`frame.pickLasso(${show(p)}, ${show({ through })})`, () => frame().pickLasso(p ?? [], { through })];
    },
    () => on(any(live.scenes), 'analyzeRules(it, a camera)', (s) => sp.analyzeRules(s, camera())),
    () => {
      const m = g.pick(models);
      const bytes = m.json && g.chance(0.4) ? pack(mutateJson(g, m.json), g.chance(0.7) ? m.bin : mutateBytes(g, m.bin)) : mutateBytes(g, m.bytes);
      const name = g.chance(0.9) ? m.name : g.pick(['x.gltf', 'x.obj', 'x.glb', 'x', 'x.stl']);
      return [`Scene.load(${bytes.length} mutated bytes of ${m.name} as ${name})`, () => {
        const s = sp.Scene.load(bytes, name);
        live.scenes.push(entry(s, false));
        // what a page does next with a model it loaded
        s.poseAnimation(0.3, s.animations.length ? 0 : undefined);
        const c = sp.Camera.auto(s, 32, 32);
        const f = s.render(c);
        f.pick(16.5, 16.5, 'ray');
        f.pickRect(0, 0, 31, 31);
        s.raycast([0, 0, 100], [0, 0, -1]);
        for (const x of [f, c]) x.free();
      }];
    },
    () => ['free something', () => {
      const kind = g.pick(['scenes', 'cameras', 'frames']);
      const a = live[kind];
      if (a.length < 2) return;
      const [x] = a.splice(g.below(a.length), 1);
      const h = x.s ?? x;
      h.free();
      freed.push(h);
    }],
  ];

  // (building calls more often than the others, so that objects exist to pose, move and pick)
  const weighted = ops.flatMap((op, i) => Array([2, 4, 5, 7, 8, 12].includes(i) ? 3 : 1).fill(op));
  live.scenes.push(entry(new sp.Scene(), true), entry(sp.Scene.builtin(), false));
  live.cameras.push(sp.Camera.lookAt({ eye: [0, 0, 4], target: [0, 0, 0], fov: 60, near: 0.1, far: 100, width: 64, height: 48 }));
  live.frames.push(new sp.Frame());
  let throws = 0;
  for (let call = 0; call < CALLS; call++) {
    const [what, run] = g.pick(weighted)();
    const where = `seed ${SEED}, call ${call}: ${what}`;
    const thrown = attempt(where, run);
    if (thrown !== null) throws++;
    if (thrown !== null || call % 64 === 0) check(where);
    // keep the handles few, so that calls keep meeting used ones
    for (const k of ['scenes', 'cameras', 'frames']) {
      while (live[k].length > 6) { const x = live[k].shift(); const h = x.s ?? x; h.free(); freed.push(h); }
    }
    for (const e of live.scenes) {
      if (e.geoms.length > 12) e.geoms.splice(0, 6);
      if (e.objs.length > 12) e.objs.splice(0, 6);
    }
    if (freed.length > 50) freed.splice(0, 25);
  }
  assert.ok(throws > CALLS / 10, `only ${throws} of ${CALLS} calls threw: the fuzzing is too tame`);
});
