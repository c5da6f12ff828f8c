// softpick: exact CPU picking in the browser. The small JavaScript API over
// the WebAssembly core: typed arrays in, hits, frames and selections out.
// Classes hold wasm memory: call free() when done. Every error is a thrown
// Error carrying the core's message after "softpick: "; a failed call
// changes nothing.

import initWasm, * as raw from '../pkg/softpick_web.js';

let loading = null;
let loaded = false;
let memory = null;

/**
 * Loads the WebAssembly module once (later calls return the same promise).
 * `source`: what wasm-bindgen's init accepts (a URL, a Response, bytes or a
 * WebAssembly.Module); by default the .wasm file beside this package (read
 * from disk under Node.js).
 */
export function init(source) {
  loading ??= (async () => {
    let input = await source;
    if (input === undefined) {
      const url = new URL('../pkg/softpick_web_bg.wasm', import.meta.url);
      if (url.protocol === 'file:') {
        const fs = 'node:fs/promises';
        const { readFile } = await import(/* @vite-ignore */ fs);
        input = await readFile(url).catch((e) => {
          throw new Error(`softpick: could not read the WebAssembly module ${url.pathname}: ${e.message}`);
        });
      } else {
        input = url;
      }
    }
    // a URL is fetched here, so that a missing file says so (wasm-bindgen
    // would compile the error page and report its first bytes)
    const where = typeof input === 'string' || input instanceof URL ? String(input) : null;
    if (where !== null) {
      let r;
      try {
        r = await fetch(input);
      } catch (e) {
        throw new Error(`softpick: could not fetch the WebAssembly module ${where}: ${e.cause?.message ?? e.message}`);
      }
      if (!r.ok) throw new Error(`softpick: could not fetch the WebAssembly module ${where}: HTTP ${r.status} ${r.statusText}`);
      input = r;
    }
    try {
      memory = (await initWasm({ module_or_path: input })).memory;
    } catch (e) {
      throw new Error(`softpick: the WebAssembly module${where ? ` ${where}` : ''} did not load: ${e.message}`);
    }
    loaded = true;
  })();
  loading.catch(() => { loading = null; });
  return loading;
}

function ready() {
  if (!loaded) throw new Error('softpick: call `await init()` first (it loads the WebAssembly module)');
}

/** The version of the softpick core inside. */
export function version() {
  ready();
  return raw.version();
}

const SIDES = { front: 0, back: 1, double: 2 };
const RULES = { 'top-left': 0, '>0': 1, '>=0': 2, '>=0 area': 3 };
const METHODS = { buffer: 0, direct: 1, ray: 2 };

function f32(a, what) {
  if (a instanceof Float32Array) return a;
  if (ArrayBuffer.isView(a) || Array.isArray(a)) return Float32Array.from(a);
  throw new Error(`softpick: ${what} must be a Float32Array (or an array of numbers), not ${describe(a)}`);
}

function f64(a, n, what) {
  if (!(ArrayBuffer.isView(a) || Array.isArray(a))) {
    throw new Error(`softpick: ${what} must be ${n} numbers, not ${describe(a)}`);
  }
  if (a.length !== n) throw new Error(`softpick: ${what} must be ${n} numbers, not ${a.length}`);
  return a instanceof Float64Array ? a : Float64Array.from(a);
}

function u32(a, what) {
  if (a instanceof Uint32Array) return a;
  if (a instanceof Uint16Array || a instanceof Uint8Array || Array.isArray(a)) return Uint32Array.from(a);
  throw new Error(`softpick: ${what} must be a Uint16Array or Uint32Array, not ${describe(a)}`);
}

/**
 * An id, size or index for a u32 argument of the wasm layer, which would
 * otherwise take it modulo 2^32 (2^32 as 0, 0.5 and NaN as 0: another
 * object than the one meant): an integer in [0, 2^32), else an Error.
 */
function u32n(v, what) {
  if (!(Number.isInteger(v) && v >= 0 && v <= 0xffffffff)) throw new Error(`softpick: ${what} ${describeValue(v)} is not an integer from 0 to 2^32 - 1`);
  return v;
}

function describeValue(v) {
  return typeof v === 'number' ? String(v) : describe(v);
}

/** A class's wasm object, or a clear Error once it was freed. */
function live(inner, what) {
  if (!inner) throw new Error(`softpick: this ${what} was freed (free() was called on it)`);
  return inner;
}

function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  return v.constructor?.name ?? typeof v;
}

function side(s) {
  // (a number goes to a byte: 256 would be 0, front, without this check)
  if (typeof s === 'number') {
    if (s !== 0 && s !== 1 && s !== 2) throw new Error(`softpick: side ${s} is not 0 (front), 1 (back) or 2 (double)`);
    return s;
  }
  const c = SIDES[s];
  if (c === undefined) throw new Error(`softpick: side ${JSON.stringify(s)} is not "front", "back" or "double"`);
  return c;
}

/** Numbers per packed hit (see `unpackHit`). */
let STRIDE = 16;

/**
 * A packed hit (the wasm layer's form) as an object: object id, instance,
 * primitive, `index` (the position of the triangle's first corner in the
 * index: three.js's `j`), `faceIndex` (`⌊index / 3⌋`), distance, point,
 * barycentric weights of the corners a, b, c, the triangle's unit normal in
 * the object's space, and whether the ray saw its front.
 */
export function unpackHit(p, k = 0) {
  const o = k * STRIDE;
  return {
    object: p[o],
    instance: p[o + 1],
    primitive: p[o + 2],
    index: p[o + 3],
    faceIndex: Math.floor(p[o + 3] / 3),
    distance: p[o + 4],
    point: [p[o + 5], p[o + 6], p[o + 7]],
    barycoord: [p[o + 8], p[o + 9], p[o + 10]],
    normal: [p[o + 11], p[o + 12], p[o + 13]],
    frontFace: p[o + 14] === 1,
  };
}

function hits(p) {
  const out = [];
  for (let k = 0; k * STRIDE < p.length; k++) out.push(unpackHit(p, k));
  return out;
}

function rayArgs(scene, origin, direction, opts = {}) {
  const near = opts.near ?? 0;
  const far = opts.far ?? Infinity;
  return [f64(origin, 3, 'origin'), f64(direction, 3, 'direction'), near, far, mask(scene, opts.objects)];
}

/**
 * The byte per object id of a query's `objects` (ids, or the bytes as
 * given). The mask is as long as the scene's ids run: an id past the last
 * object matches none, so a huge one costs nothing (a mask as long as the
 * largest id given would allocate without bound).
 */
function mask(scene, objects) {
  if (objects === undefined || objects === null) return undefined;
  if (objects instanceof Uint8Array) return objects;
  const m = new Uint8Array(scene.objectCount());
  for (const id of objects) {
    if (!Number.isInteger(id) || id < 0) throw new Error(`softpick: object id ${id} in \`objects\` is not an integer >= 0`);
    if (id < m.length) m[id] = 1;
  }
  return m;
}

/**
 * A scene: geometries (positions, indices, primitives), objects placing
 * them (a matrix, instances, material sides), skins and morph targets; or a
 * scene softpick made whole (`Scene.builtin()`, `Scene.load(bytes, name)`).
 */
export class Scene {
  #raw;

  constructor(inner) {
    ready();
    this.#raw = inner ?? new raw.RawScene();
  }

  /** The wasm scene (an Error once freed). */
  get raw() { return live(this.#raw, 'Scene'); }

  /** The built-in pick-test scene (362 triangles). */
  static builtin() {
    ready();
    return new Scene(raw.RawScene.builtin());
  }

  /** A model file's scene (OBJ, GLB, or glTF with data-URI buffers); `name` gives the format by its extension. */
  static load(bytes, name = 'model.glb') {
    ready();
    if (!(bytes instanceof Uint8Array)) {
      if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
      else throw new Error(`softpick: model bytes must be a Uint8Array or ArrayBuffer, not ${describe(bytes)}`);
    }
    return new Scene(raw.RawScene.load(bytes, String(name)));
  }

  /**
   * Adds a geometry: `positions` (x, y, z per vertex), `index` (Uint16Array
   * or Uint32Array; null: vertices in threes), `ranges` (pairs of index
   * positions [start, end) of its primitives; null: one over everything).
   * Returns its id.
   */
  addGeometry(positions, index = null, ranges = null) {
    return this.raw.addGeometry(
      f32(positions, 'positions'),
      index === null || index === undefined ? undefined : u32(index, 'index'),
      ranges === null || ranges === undefined ? undefined : u32(ranges, 'ranges'),
    );
  }

  /** New positions for a geometry (as many vertices). */
  setGeometryPositions(geometry, positions) {
    this.raw.setGeometryPositions(u32n(geometry, 'geometry'), f32(positions, 'positions'));
  }

  /** Joint influences: four joint indices and four weights per vertex. */
  setSkin(geometry, joints, weights) {
    // (joint indices go to 16 bits: 70000 would be joint 4464 without this check)
    const j = joints instanceof Uint16Array ? joints : Uint16Array.from(joints, (v, i) => {
      if (!(Number.isInteger(v) && v >= 0 && v <= 0xffff)) throw new Error(`softpick: joint index ${i} is ${v}, not an integer from 0 to 65535`);
      return v;
    });
    this.raw.setSkin(u32n(geometry, 'geometry'), j, f32(weights, 'weights'));
  }

  /** Morph targets (an array of Float32Arrays, x, y, z per vertex); `relative`: deltas, else absolute positions. */
  setMorphTargets(geometry, targets, relative = true) {
    if (!Array.isArray(targets)) throw new Error(`softpick: morph targets must be an array of Float32Arrays, not ${describe(targets)}`);
    const ts = targets.map((t, i) => f32(t, `morph target ${i}`));
    const all = new Float32Array(ts.reduce((s, t) => s + t.length, 0));
    let o = 0;
    for (const t of ts) { all.set(t, o); o += t.length; }
    this.raw.setMorphTargets(u32n(geometry, 'geometry'), all, targets.length, !!relative);
  }

  removeGeometry(geometry) { this.raw.removeGeometry(u32n(geometry, 'geometry')); }

  /**
   * Adds an object: `geometry` placed by `matrix` (16 numbers, column-major,
   * as three.js's Matrix4.elements); options: `instances` (16 numbers per
   * instance, each after `matrix`), `side` ("front", "back", "double", or
   * an array of one per primitive). Returns its id.
   */
  addObject(geometry, matrix, opts = {}) {
    return this.raw.addObject(
      u32n(geometry, 'geometry'),
      f64(matrix, 16, 'matrix'),
      opts.instances ? f32(opts.instances, 'instances') : undefined,
      sides(opts.side),
    );
  }

  /** Places an object again (and its instances, for an instanced object). */
  setMatrix(object, matrix, instances) {
    this.raw.setMatrix(u32n(object, 'object'), f64(matrix, 16, 'matrix'), instances ? f32(instances, 'instances') : undefined);
  }

  setSide(object, s) { this.raw.setSides(u32n(object, 'object'), sides(s)); }
  setVisible(object, visible) { this.raw.setVisible(u32n(object, 'object'), !!visible); }
  removeObject(object) { this.raw.removeObject(u32n(object, 'object')); }

  /**
   * Poses an object as three.js draws it: `bones` (16 numbers per bone,
   * three.js's skeleton.boneMatrices), `bindMatrix` and `bindMatrixInverse`
   * (given once: kept until given again; the identity before), `influences`
   * (the morph target influences). Its BVHs are refit.
   */
  pose(object, { bones, bindMatrix, bindMatrixInverse, influences } = {}) {
    const none = new Float64Array(0);
    const bind = bindMatrix || bindMatrixInverse;
    this.raw.poseObject(
      u32n(object, 'object'),
      bones ? f32(bones, 'bones') : new Float32Array(0),
      bind ? f64(bindMatrix, 16, 'bindMatrix') : none,
      bind ? f64(bindMatrixInverse, 16, 'bindMatrixInverse') : none,
      influences ? f32(influences, 'influences') : new Float32Array(0),
    );
  }

  /**
   * User clip planes for every object: an array of [nx, ny, nz, d]
   * (three.js's Plane: normal and constant), keeping the points with
   * n · p + d >= 0; every render and ray query honours them.
   */
  setClipPlanes(planes) {
    this.raw.setClipPlanes(f32(planes.flat ? planes.flat() : planes, 'clip planes'));
  }

  /** An object's own clip planes (as setClipPlanes; `counts`: planes per primitive, or none: all for every primitive). */
  setObjectClipPlanes(object, planes, counts = null) {
    this.raw.setObjectClipPlanes(u32n(object, 'object'), f32(planes.flat ? planes.flat() : planes, 'clip planes'), counts ? u32(counts, 'counts') : new Uint32Array(0));
  }

  /** A model file's animations (names). */
  get animations() { return this.raw.animations(); }

  /** The duration of animation `index`, seconds. */
  duration(index) { return this.raw.duration(u32n(index, 'animation')); }

  /** Poses a model file's scene at `time` seconds of animation `animation` (an index or a name). */
  poseAnimation(time, animation) {
    let a = animation;
    if (typeof a === 'string') {
      a = this.animations.indexOf(animation);
      if (a < 0) throw new Error(`softpick: no animation named ${JSON.stringify(animation)}`);
    }
    this.raw.poseAnimation(time, a === undefined || a === null ? undefined : u32n(a, 'animation'));
  }

  get objectCount() { return this.raw.objectCount(); }
  get triangleCount() { return this.raw.triangleCount(); }

  /** `{ min: [x, y, z], max: [x, y, z] }` around every object. */
  get bounds() {
    const b = this.raw.bounds();
    return { min: [b[0], b[1], b[2]], max: [b[3], b[4], b[5]] };
  }

  /** The nearest hit of a ray, or null. Options: near, far, objects (ids to test). */
  raycast(origin, direction, opts) {
    const p = this.raw.raycast(...rayArgs(this.raw, origin, direction, opts));
    return p.length ? unpackHit(p) : null;
  }

  /** Every hit of a ray, nearest first. */
  raycastAll(origin, direction, opts) {
    return hits(this.raw.raycastAll(...rayArgs(this.raw, origin, direction, opts)));
  }

  /**
   * The nearest hits of many rays (origins and directions: x, y, z each per
   * ray): `{ object (Int32Array, −1: none), instance, index, faceIndex
   * (Uint32Array), distance (Float32Array) }`.
   */
  firstHits(origins, directions, opts = {}) {
    const o = f32(origins, 'origins');
    const d = f32(directions, 'directions');
    const n = Math.floor(o.length / 3);
    const out = {
      object: new Int32Array(n),
      instance: new Uint32Array(n),
      index: new Uint32Array(n),
      distance: new Float32Array(n),
    };
    this.raw.firstHits(o, d, opts.near ?? 0, opts.far ?? Infinity, mask(this.raw, opts.objects),
      out.object, out.instance, out.index, out.distance);
    out.faceIndex = out.index.map((j) => Math.floor(j / 3));
    return out;
  }

  /**
   * Moves an object by a world displacement, stopping `skin` units before
   * it would touch another (softpick's sweep_move): `{ allowed: [x, y, z],
   * blocked, other (object id or −1), hit (or null) }`.
   */
  sweepMove(object, displacement, skin = 0) {
    const r = this.raw.sweepMove(u32n(object, 'object'), f64(displacement, 3, 'displacement'), skin);
    return {
      allowed: [r[0], r[1], r[2]],
      blocked: r[3] === 1,
      other: r[4],
      hit: r.length > 5 ? unpackHit(r.subarray(5)) : null,
    };
  }

  /** Renders this scene's ID and depth buffers from `camera` (see Frame.render). */
  render(camera, opts) {
    const f = new Frame();
    try {
      f.render(this, camera, opts);
    } catch (e) {
      f.free();
      throw e;
    }
    return f;
  }

  free() { this.#raw?.free(); this.#raw = null; }
}

function sides(s) {
  if (s === undefined || s === null) return new Uint8Array(0);
  if (Array.isArray(s)) return Uint8Array.from(s, side);
  return new Uint8Array([side(s)]);
}

/** A softpick camera. */
export class Camera {
  #raw;

  constructor(inner) { this.#raw = inner; }

  /** The wasm camera (an Error once freed). */
  get raw() { return live(this.#raw, 'Camera'); }

  /** From a view matrix (three.js's camera.matrixWorldInverse) and a projection matrix, for a width × height view. */
  static fromMatrices(view, projection, width, height) {
    ready();
    return new Camera(raw.RawCamera.fromMatrices(f64(view, 16, 'view'), f64(projection, 16, 'projection'), u32n(width, 'width'), u32n(height, 'height')));
  }

  /** softpick's automatic framing of a scene (the command line's default camera). */
  static auto(scene, width, height) {
    ready();
    return new Camera(raw.RawCamera.auto(scene.raw, u32n(width, 'width'), u32n(height, 'height')));
  }

  /** A look-at camera: eye, target, up; `fov` (vertical, degrees: perspective) or `orthoHeight` (world units: orthographic); near, far; width, height. */
  static lookAt({ eye, target, up = [0, 1, 0], fov, orthoHeight, near, far, width, height }) {
    ready();
    const ortho = orthoHeight !== undefined;
    if (!ortho && fov === undefined) throw new Error('softpick: Camera.lookAt needs `fov` (vertical, degrees: a perspective camera) or `orthoHeight` (world units: an orthographic one)');
    return new Camera(raw.RawCamera.lookAt(f32(eye, 'eye'), f32(target, 'target'), f32(up, 'up'),
      ortho ? orthoHeight : fov, ortho, near, far, u32n(width, 'width'), u32n(height, 'height')));
  }

  get width() { return this.raw.width(); }
  get height() { return this.raw.height(); }
  get eye() { return Array.from(this.raw.eye()); }

  /** `{ view, projection }`: 16 numbers each, as three.js's matrixWorldInverse and projectionMatrix. */
  get matrices() {
    const m = this.raw.matrices();
    return { view: m.slice(0, 16), projection: m.slice(16, 32) };
  }

  /** The world ray through window point (x, y) (pixels, y down; pixel centres at +0.5): `{ origin, direction }`. */
  rayThrough(x, y) {
    // (the wasm layer would answer a NaN ray for a point that is not finite)
    if (!(Number.isFinite(x) && Number.isFinite(y))) throw new Error(`softpick: window point (${x}, ${y}) is not finite`);
    const r = this.raw.rayThrough(x, y);
    return { origin: [r[0], r[1], r[2]], direction: [r[3], r[4], r[5]] };
  }

  free() { this.#raw?.free(); this.#raw = null; }
}

/**
 * A lasso's flat x, y values, each finite and in pairs (the wasm layer would
 * take a NaN corner as an edge selecting nothing, or a part, and drop an
 * odd last value, without a word); softpick/three's too.
 */
export function _lassoValues(p) {
  const bad = p.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) throw new Error(`softpick: lasso point ${bad >> 1} has a coordinate of ${p[bad]}, not a finite number`);
  if (p.length % 2 !== 0) throw new Error(`softpick: ${p.length} lasso values is not a whole number of (x, y) points`);
  return p;
}

/** A pixel rectangle's corners, each finite (the wasm layer would take NaN as 0); softpick/three's too. */
export function _rectArgs(x0, y0, x1, y1) {
  for (const v of [x0, y0, x1, y1]) {
    if (!Number.isFinite(v)) throw new Error(`softpick: rectangle corner ${v} is not a finite number`);
  }
  return [x0, y0, x1, y1];
}

function selection(s) {
  const pixels = s[0];
  const n = s[1];
  const objects = [];
  for (let k = 0; k < n; k++) objects.push({ object: s[2 + 2 * k], instance: s[3 + 2 * k] });
  const triangles = [];
  for (let o = 2 + 2 * n; o + 2 < s.length; o += 3) {
    triangles.push({ object: s[o], instance: s[o + 1], index: s[o + 2], faceIndex: Math.floor(s[o + 2] / 3) });
  }
  return { pixels, objects, triangles };
}

/**
 * A frame: the depth and ID buffers of a scene seen from a camera, and what
 * is under its pixels. Rendering again reuses the buffers.
 */
export class Frame {
  #raw;

  constructor() {
    ready();
    this.#raw = new raw.RawFrame();
    this.scene = null;
  }

  /** The wasm frame (an Error once freed). */
  get raw() { return live(this.#raw, 'Frame'); }

  /**
   * Renders `scene` from `camera`. Options: `rule` ("top-left" default,
   * ">0", ">=0", ">=0 area"), `color` (also the flat-shaded color buffer).
   */
  render(scene, camera, opts = {}) {
    const rule = typeof opts.rule === 'number' ? opts.rule : RULES[opts.rule ?? 'top-left'];
    if (rule === undefined) throw new Error(`softpick: fill rule ${JSON.stringify(opts.rule)} is not one of ${Object.keys(RULES).join(', ')}`);
    this.raw.render(scene.raw, camera.raw, rule, !!opts.color);
    this.scene = scene;
    return this;
  }

  get width() { return this.raw.width(); }
  get height() { return this.raw.height(); }

  /** The ID buffer (a copy): per pixel, rows from the top, the global triangle + 1, 0 for background. */
  ids() { return this.raw.ids(); }
  /** The depth buffer (a copy): window depth, 0 near to 1 far. */
  depth() { return this.raw.depth(); }
  /** The color buffer (a copy, 0xAARRGGBB), after a render with `color`. */
  color() { return this.raw.color(); }
  /** Per pixel, the object under it (−1: none). */
  objectIds() { return this.raw.objectIds(this.#scene()); }

  /** The object, instance and triangle of an ID-buffer value − 1. */
  describe(global) {
    const d = this.raw.describe(this.#scene(), u32n(global, 'global triangle'));
    return d.length ? { object: d[0], instance: d[1], primitive: d[2], index: d[3], faceIndex: Math.floor(d[3] / 3) } : null;
  }

  /** What is under pixel (x, y) by `method` ("buffer", "direct" or "ray"), or null. */
  pick(x, y, method = 'buffer') {
    const m = METHODS[method];
    if (m === undefined) throw new Error(`softpick: pick method ${JSON.stringify(method)} is not "buffer", "direct" or "ray"`);
    const p = this.raw.pick(this.#scene(), x, y, m);
    return p.length ? unpackHit(p) : null;
  }

  /** Every pixel's pick by `method`, as the ID buffer holds them (global triangle + 1, 0 for none): the pick test's sweep. */
  pickMap(method = 'buffer') {
    const m = METHODS[method];
    if (m === undefined) throw new Error(`softpick: pick method ${JSON.stringify(method)} is not "buffer", "direct" or "ray"`);
    return this.raw.pickMap(this.#scene(), m);
  }

  /** The objects and triangles in a pixel rectangle (corners inclusive); `through` also finds hidden ones. */
  pickRect(x0, y0, x1, y1, { through = false } = {}) {
    return selection(this.raw.selectRect(this.#scene(), ..._rectArgs(x0, y0, x1, y1), !!through));
  }

  /** The objects and triangles inside a lasso (x, y pairs in pixels). */
  pickLasso(points, { through = false } = {}) {
    const p = _lassoValues(f32(points?.flat ? points.flat() : points, 'lasso points'));
    return selection(this.raw.selectLasso(this.#scene(), p, !!through));
  }

  #scene() {
    if (!this.scene) throw new Error('softpick: render the frame first');
    return this.scene.raw; // (an Error if the scene was freed)
  }

  free() { this.#raw?.free(); this.#raw = null; }
}

/**
 * The fill-rule experiment of `softpick rules`: per rule, the covered,
 * gap, double-covered and falsely claimed pixels of `scene` from `camera`.
 */
export function analyzeRules(scene, camera) {
  ready();
  const r = raw.analyzeRules(scene.raw, camera.raw);
  return Object.keys(RULES).map((rule, i) => ({
    rule,
    covered: r[4 * i],
    gaps: r[4 * i + 1],
    double: r[4 * i + 2],
    falseClaims: r[4 * i + 3],
  }));
}

export { raw as _raw };

/** The module's memory (the adapter's views of its in-place buffers; after init). */
export function _memory() {
  return memory;
}
