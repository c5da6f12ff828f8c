// softpick/three: exact picks of three.js scenes on the pose drawn.
//
//   const picker = await Picker.create();
//   picker.update(scene);                                   // after animating, before or after rendering
//   picker.intersectObjects(raycaster, scene.children, true) // as raycaster.intersectObjects returns them
//   picker.pickPixel(camera, x, y, width, height)           // the ID-buffer pick of that view
//
// `PickerWorker` has the same methods returning promises, the wasm scene in
// a Web Worker. `picker.install()` makes three.js's own raycasts of the
// mirrored meshes go through softpick (like three-mesh-bvh's
// acceleratedRaycast); `uninstall()` restores them.

import { BatchedMesh, InstancedMesh, Mesh, SkinnedMesh, Vector3 } from 'three';
import { init, _lassoValues, _rectArgs } from './index.js';
import { Engine } from './engine.js';
import { Mirror } from './mirror.js';

const METHODS = { buffer: 0, direct: 1, ray: 2 };
const _o = new Float64Array(3);
const _d = new Float64Array(3);
const _one = [0];
const _eye = new Vector3();

/** A three.js Ray's origin and direction into `_o` and `_d`, the arrays every ray query hands to wasm. */
function setRay(r) {
  _o[0] = r.origin.x; _o[1] = r.origin.y; _o[2] = r.origin.z;
  _d[0] = r.direction.x; _d[1] = r.direction.y; _d[2] = r.direction.z;
}
const _fwd = new Vector3();
/** A pixel hit's ray direction (the mirror only reads it). */
const _pixelRay = new Vector3();

function fail(errors) {
  if (!errors.length) return;
  const e = errors[0];
  if (errors.length > 1) e.message += ` (and ${errors.length - 1} more error${errors.length > 2 ? 's' : ''})`;
  throw e;
}

function method(m) {
  const c = METHODS[m];
  if (c === undefined) throw new Error(`softpick: pick method ${JSON.stringify(m)} is not "buffer", "direct" or "ray"`);
  return c;
}

function viewOf(camera, width, height) {
  if (!camera?.isCamera) throw new Error('softpick: pickPixel needs a three.js camera');
  // (below 2^32: the wasm layer takes a size modulo 2^32, 2^32 + 64 as 64)
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0 && width < 2 ** 32 && height < 2 ** 32)) {
    throw new Error(`softpick: the view size ${width} × ${height} must be whole positive numbers of pixels`);
  }
  return [Float64Array.from(camera.matrixWorldInverse.elements), Float64Array.from(camera.projectionMatrix.elements)];
}

/** three.js's Raycaster.setFromCamera distance of a world point: from the eye (perspective) or from the camera's plane (orthographic). */
function cameraDistance(camera, point) {
  _eye.setFromMatrixPosition(camera.matrixWorld);
  if (camera.isOrthographicCamera || camera.projectionMatrix.elements[15] === 1) {
    _fwd.set(0, 0, -1).transformDirection(camera.matrixWorld);
    return _fwd.dot(point.clone().sub(_eye));
  }
  return point.distanceTo(_eye);
}

/** A selection's entry: the object, and its instanceId (InstancedMesh) or batchId (BatchedMesh) when it has one. */
function entry(pl, withFace) {
  const e = { object: pl.object };
  if (pl.instanceId !== undefined) e.instanceId = pl.instanceId;
  if (pl.batchId !== undefined) e.batchId = pl.batchId;
  if (withFace) e.faceIndex = pl.faceIndex;
  return e;
}

function selection(mirror, s) {
  const n = s[1];
  const objects = [];
  for (let k = 0; k < n; k++) {
    const pl = mirror.place(s[2 + 2 * k], s[3 + 2 * k], 0);
    if (pl) objects.push(entry(pl, false));
  }
  const faces = [];
  for (let o = 2 + 2 * n; o + 2 < s.length; o += 3) {
    const pl = mirror.place(s[o], s[o + 1], s[o + 2]);
    if (pl) faces.push(entry(pl, true));
  }
  return { pixels: s[0], objects, faces };
}

function lassoPoints(points) {
  let flat = points;
  if (!(points instanceof Float32Array)) {
    flat = [];
    for (const p of points) {
      if (typeof p === 'number') flat.push(p);
      else if (p?.isVector2) flat.push(p.x, p.y);
      else flat.push(p?.[0], p?.[1]);
    }
    flat = Float32Array.from(flat);
  }
  return _lassoValues(flat);
}

/** What Picker and PickerWorker share: the mirror, the queries' arguments and the answers' shapes. */
class Base {
  constructor(copy) {
    this.mirror = new Mirror({ copy });
  }

  _sync(root, opts = {}) {
    if (!root?.isObject3D) throw new Error('softpick: update(scene) needs a three.js Object3D');
    if (opts.updateMatrixWorld !== false) root.updateMatrixWorld();
    const errors = [];
    const r = opts.renderer;
    const clipping = {
      planes: opts.clippingPlanes ?? r?.clippingPlanes ?? [],
      local: opts.localClippingEnabled ?? r?.localClippingEnabled ?? false,
    };
    const cmds = this.mirror.sync(root, errors, clipping);
    return { cmds, errors };
  }

  /**
   * Undoes what the backend refused and throws its errors, each naming the
   * three.js object it was about (an object whose geometry was refused
   * adds no error of its own: the geometry's names it).
   */
  _refused(refused, errors) {
    const geometries = new Set();
    for (const r of refused) {
      const cmd = r.cmd;
      const skip = cmd.op === 'addObject' && geometries.has(cmd.geometry);
      if (cmd.op === 'addGeometry') geometries.add(cmd.id);
      // (named before the mirror forgets the object)
      const about = this.mirror.describe(cmd);
      this.mirror.refused(cmd);
      if (skip) continue;
      const message = r.message.replace(/^softpick: /, '');
      errors.push(new Error(about ? `softpick: ${about}: ${message}` : `softpick: ${message}`));
    }
    fail(errors);
  }

  /** Throws unless a scene was mirrored (`update`): every pick needs one. */
  _mirrored() {
    if (!this.mirror.root) throw new Error('softpick: call picker.update(scene) before picking');
  }

  /** The mirror ids a ray query over `objects` tests (null: all), with the ray in `_o` and `_d`. */
  _rayIds(raycaster, objects, recursive) {
    if (!raycaster?.ray) throw new Error('softpick: intersectObjects needs a three.js Raycaster');
    this._mirrored();
    const ids = Array.isArray(objects)
      ? this.mirror.select(objects, recursive !== false, raycaster.layers)
      : this.mirror.selectOne(objects, recursive !== false, raycaster.layers);
    setRay(raycaster.ray);
    return ids;
  }

  _ray(raycaster, objects, recursive) {
    const ids = this._rayIds(raycaster, objects, recursive);
    const all = raycaster.firstHitOnly !== true;
    return [_o.slice(), _d.slice(), raycaster.near, raycaster.far, ids && ids.slice(), all];
  }

  _hits(p, raycaster, target, n) {
    return this.mirror.intersections(p, raycaster.ray.direction, target, n);
  }

  /** A view query's matrices (after the checks every view query makes). */
  _view(camera, width, height) {
    const view = viewOf(camera, width, height);
    this._mirrored();
    return view;
  }

  _pixelHit(p, camera) {
    if (!p.length) return null;
    // the pixel's ray (for the normal's facing): from the eye to the point,
    // or the view direction of an orthographic camera
    const dir = _pixelRay;
    if (camera.isOrthographicCamera || camera.projectionMatrix.elements[15] === 1) {
      dir.set(0, 0, -1).transformDirection(camera.matrixWorld);
    } else {
      dir.set(p[5], p[6], p[7]).sub(_eye.setFromMatrixPosition(camera.matrixWorld));
    }
    const h = this.mirror.intersection(p, 0, dir);
    if (h) h.distance = cameraDistance(camera, h.point);
    return h;
  }

  _rays(origins, directions, opts) {
    this._mirrored();
    const ids = opts.objects ? this.mirror.select(opts.objects, opts.recursive !== false, { mask: 0xffffffff }) : null;
    return [Float32Array.from(origins), Float32Array.from(directions), opts.near ?? 0, opts.far ?? Infinity, ids];
  }

  _rayHits(r) {
    const byId = this.mirror.byId;
    const n = r.object.length;
    const object = new Array(n).fill(null);
    const faceIndex = new Uint32Array(n);
    const batchId = new Int32Array(n).fill(-1);
    const instanceId = r.instance;
    for (let i = 0; i < n; i++) {
      const rec = r.object[i] >= 0 ? byId[r.object[i]] : undefined;
      if (!rec) continue;
      object[i] = rec.object;
      // (a BatchedMesh's part, as Mirror.place reads it: its hits say the
      // batch's instance by batchId, instanceId being 0 as for a mesh)
      const part = rec.part;
      faceIndex[i] = Math.floor((part ? r.index[i] + part.base : r.index[i]) / 3);
      if (part) { batchId[i] = part.slots[instanceId[i]]; instanceId[i] = 0; }
    }
    return { object, instanceId, batchId, faceIndex, distance: r.distance };
  }
}

/**
 * softpick's picks of a three.js scene, on the main thread: `update` mirrors
 * the scene into the wasm core, and every pick answers on the mirrored pose.
 */
export class Picker extends Base {
  /** Loads the wasm module (once) and makes a picker. Options: `wasm` (see init). */
  static async create(opts = {}) {
    await init(opts.wasm);
    return new Picker();
  }

  #engine;

  constructor() {
    super(false);
    this.#engine = new Engine();
    this.installed = null;
  }

  /** The wasm side (a clear Error once the picker is freed). */
  get engine() {
    if (!this.#engine) throw new Error('softpick: this Picker was freed (picker.free()); make a new one with Picker.create()');
    return this.#engine;
  }

  /**
   * Mirrors `root` (and its subtree): meshes, instanced meshes, skinned and
   * morphed meshes as posed now, batched meshes (batched.js), groups,
   * visibility. Geometry is sent once
   * per version; matrices, instances, bones and influences when they
   * change. Calls `root.updateMatrixWorld()` first unless
   * `{ updateMatrixWorld: false }`. Clipping planes as the renderer draws
   * them: `{ renderer }` (its clippingPlanes, and with localClippingEnabled
   * the materials' clippingPlanes), or `{ clippingPlanes,
   * localClippingEnabled }`; every pick then honours them. Throws for what
   * it cannot mirror (the rest is mirrored, and the picker stays usable).
   */
  update(root, opts) {
    const { cmds, errors } = this._sync(root, opts);
    this._refused(this.engine.apply(cmds), errors);
    return this;
  }

  /** As raycaster.intersectObjects(objects, recursive): three.js intersections, nearest first. */
  intersectObjects(raycaster, objects, recursive = true, intersects = []) {
    return this.#cast(raycaster, this._rayIds(raycaster, objects, recursive), intersects);
  }

  /** As raycaster.intersectObject(object, recursive). */
  intersectObject(raycaster, object, recursive = true, intersects = []) {
    return this.#cast(raycaster, this._rayIds(raycaster, object, recursive), intersects);
  }

  /** The ray in `_o`, `_d` against the objects `ids` (null: all), as three.js intersections into `intersects`. */
  #cast(raycaster, ids, intersects) {
    const e = this.engine;
    const n = e.raycastShared(_o, _d, raycaster.near, raycaster.far, ids, raycaster.firstHitOnly !== true);
    return this._hits(e.out, raycaster, intersects, n);
  }

  /**
   * The nearest hits of many world rays (x, y, z per ray in `origins` and
   * `directions`): `{ object (Object3D or null per ray), instanceId,
   * batchId (a BatchedMesh's instance, −1 for other objects), faceIndex,
   * distance }`. Options: near, far, objects (+ recursive).
   */
  intersectRays(origins, directions, opts = {}) {
    return this._rayHits(this.engine.firstHits(...this._rays(origins, directions, opts)));
  }

  /**
   * What is under pixel (x, y) of `camera`'s `width × height` view (pixels
   * from the top left; the pixel is the one containing the point): the
   * three.js intersection of the ID-buffer pick, or null. The ID buffer is
   * rendered at the first pick of a view and reused until the scene or the
   * camera changes. Options: `method` ("buffer", "direct" or "ray").
   */
  pickPixel(camera, x, y, width, height, opts = {}) {
    const [view, proj] = this._view(camera, width, height);
    const p = this.engine.pick(view, proj, width, height, this.mirror.revision, x, y, method(opts.method ?? 'buffer'));
    return this._pixelHit(p, camera);
  }

  /** The objects (and faces) in a pixel rectangle of the view, corners included: `{ objects, faces, pixels }`. Options: `through` (occluded ones too). */
  pickRect(camera, x0, y0, x1, y1, width, height, opts = {}) {
    const [view, proj] = this._view(camera, width, height);
    return selection(this.mirror, this.engine.select(view, proj, width, height, this.mirror.revision, _rectArgs(x0, y0, x1, y1), null, !!opts.through));
  }

  /** The objects (and faces) inside a lasso (points: [x, y] pairs, Vector2s or a flat list), by the even-odd rule on pixel centres. */
  pickLasso(camera, points, width, height, opts = {}) {
    const [view, proj] = this._view(camera, width, height);
    return selection(this.mirror, this.engine.select(view, proj, width, height, this.mirror.revision, null, lassoPoints(points), !!opts.through));
  }

  /** The ID buffer of a view as objects: per pixel (rows from the top) the Object3D under it, or null. */
  objectsAt(camera, width, height) {
    const [view, proj] = this._view(camera, width, height);
    const ids = this.engine.objectIds(view, proj, width, height, this.mirror.revision);
    return Array.from(ids, (id) => (id >= 0 ? this.mirror.byId[id]?.object ?? null : null));
  }

  /**
   * The ID buffer of a view as triangle numbers: per pixel (rows from the
   * top) a number + 1 of the triangle under it, 0 for none; one number per
   * triangle of each instance, the same at every pixel of it, until the
   * next `update` (for colouring and counting; `pickPixel` says which
   * object, face and instance a pixel shows).
   */
  triangleIdsAt(camera, width, height) {
    const [view, proj] = this._view(camera, width, height);
    return this.engine.triangleIds(view, proj, width, height, this.mirror.revision);
  }

  /**
   * three.js's own raycasts (Raycaster.intersectObject(s), and anything
   * calling Mesh.raycast) of mirrored meshes go through softpick from now
   * on, on the pose of the last update; other objects keep their own.
   */
  install() {
    if (this.installed) return this;
    const picker = this;
    // (BatchedMesh has a raycast of its own; where softpick leaves a
    // BatchedMesh out, raycastInto says so and three.js's raycast runs)
    const saved = [Mesh, SkinnedMesh, InstancedMesh, BatchedMesh].map((C) => [C, Object.getOwnPropertyDescriptor(C.prototype, 'raycast')]);
    for (const [C] of saved) {
      const original = C.prototype.raycast;
      C.prototype.raycast = function raycast(raycaster, intersects) {
        if (!picker.raycastInto(this, raycaster, intersects)) original.call(this, raycaster, intersects);
      };
    }
    this.installed = saved;
    return this;
  }

  /** Restores three.js's own raycasts. */
  uninstall() {
    for (const [C, desc] of this.installed ?? []) {
      if (desc) Object.defineProperty(C.prototype, 'raycast', desc);
      else delete C.prototype.raycast;
    }
    this.installed = null;
    return this;
  }

  /** One object's softpick hits into `intersects` (false when softpick does not mirror it). */
  raycastInto(object, raycaster, intersects) {
    const rec = this.mirror.objects.get(object);
    const batch = rec ? null : this.mirror.batches.get(object);
    if (!rec && !batch) return false;
    if (!(rec ?? batch).visible) return true;
    setRay(raycaster.ray);
    if (batch) {
      this.#cast(raycaster, batch.ids(), intersects);
      return true;
    }
    _one[0] = rec.id;
    this.#cast(raycaster, _one, intersects);
    return true;
  }

  /** Frees the wasm memory (and uninstalls). */
  free() {
    this.uninstall();
    this.#engine?.free();
    this.#engine = null;
  }
}

/**
 * A Picker whose wasm scene lives in a Web Worker: the same methods, each
 * returning a promise; typed arrays are transferred, not copied, where the
 * picker made them.
 */
export class PickerWorker extends Base {
  /** Starts the worker and loads the wasm module in it. Options: `wasm` (for the worker's init), `workerURL`. */
  static async create(opts = {}) {
    const w = new PickerWorker(opts);
    try {
      await w.#call('init', [opts.wasm]);
    } catch (e) {
      w.terminate();
      throw e;
    }
    return w;
  }

  #next = 0;
  #pending = new Map();
  /** Set by terminate(): later calls reject with it (a terminated worker never answers). */
  #ended = null;

  constructor(opts = {}) {
    super(true);
    if (typeof Worker === 'undefined') {
      throw new Error('softpick: PickerWorker needs Web Workers (a browser); without them (Node.js), use Picker');
    }
    this.worker = new Worker(opts.workerURL ?? new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e) => {
      const { id, result, error } = e.data;
      const p = this.#pending.get(id);
      if (!p) return;
      this.#pending.delete(id);
      if (error !== undefined) p.reject(new Error(error));
      else p.resolve(result);
    };
    this.worker.onerror = (e) => {
      const err = new Error(`softpick: the worker failed: ${e.message ?? e}`);
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    };
  }

  #call(op, args, transfer = []) {
    if (this.#ended) return Promise.reject(new Error(this.#ended));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args }, transfer);
    });
  }

  async update(root, opts) {
    const { cmds, errors } = this._sync(root, opts);
    const transfer = [];
    for (const c of cmds) {
      // (what the mirror sends here are its own copies; empty ones are
      // not worth moving, and may be shared constants)
      for (const v of Object.values(c)) if (ArrayBuffer.isView(v) && v.byteLength > 0) transfer.push(v.buffer);
    }
    const refused = await this.#call('apply', [cmds], [...new Set(transfer)]);
    this._refused(refused, errors);
    return this;
  }

  async intersectObjects(raycaster, objects, recursive = true, intersects = []) {
    const args = this._ray(raycaster, objects, recursive);
    const p = await this.#call('raycast', args);
    return this._hits(p, raycaster, intersects);
  }

  intersectObject(raycaster, object, recursive = true, intersects = []) {
    return this.intersectObjects(raycaster, [object], recursive, intersects);
  }

  async intersectRays(origins, directions, opts = {}) {
    const args = this._rays(origins, directions, opts);
    return this._rayHits(await this.#call('firstHits', args, [args[0].buffer, args[1].buffer]));
  }

  async pickPixel(camera, x, y, width, height, opts = {}) {
    const [view, proj] = this._view(camera, width, height);
    const p = await this.#call('pick', [view, proj, width, height, this.mirror.revision, x, y, method(opts.method ?? 'buffer')]);
    return this._pixelHit(p, camera);
  }

  async pickRect(camera, x0, y0, x1, y1, width, height, opts = {}) {
    const [view, proj] = this._view(camera, width, height);
    return selection(this.mirror, await this.#call('select', [view, proj, width, height, this.mirror.revision, _rectArgs(x0, y0, x1, y1), null, !!opts.through]));
  }

  async pickLasso(camera, points, width, height, opts = {}) {
    const [view, proj] = this._view(camera, width, height);
    return selection(this.mirror, await this.#call('select', [view, proj, width, height, this.mirror.revision, null, lassoPoints(points), !!opts.through]));
  }

  async objectsAt(camera, width, height) {
    const [view, proj] = this._view(camera, width, height);
    const ids = await this.#call('objectIds', [view, proj, width, height, this.mirror.revision]);
    return Array.from(ids, (id) => (id >= 0 ? this.mirror.byId[id]?.object ?? null : null));
  }

  async triangleIdsAt(camera, width, height) {
    const [view, proj] = this._view(camera, width, height);
    return this.#call('triangleIds', [view, proj, width, height, this.mirror.revision]);
  }

  /** Stops the worker (its wasm memory goes with it). */
  terminate() {
    this.worker.terminate();
    this.#ended = 'softpick: this PickerWorker was terminated (terminate() or free()); make a new one with PickerWorker.create()';
    const err = new Error(this.#ended);
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }

  free() { this.terminate(); }
}
