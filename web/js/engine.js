// The wasm side of the three.js adapter, without three.js (it also runs in
// the worker): a scene that applies a mirror's commands, translating the
// mirror's ids, and answers queries in them; the ID buffer of the last
// camera, kept until the scene or the camera changes.

import { _raw as raw, _memory as memory } from './index.js';

const S = 16; // numbers per packed hit

export class Engine {
  constructor() {
    this.scene = new raw.RawScene();
    this.geometries = new Map();
    this.objects = new Map();
    this.toMirror = [];
    this.frame = null;
    this.frameKey = null;
    /** One more than the largest wasm object id in use (the length of an object mask). */
    this.maskLength = 0;
    this.maskStale = false;
    // reused by every query: the object mask (of a batch); and views of
    // the scene's in-place buffers in the wasm memory (src/io.rs): the
    // pose, the ray, its object mask and its packed hits. A pose or a ray
    // query allocates nothing on either side (no garbage to collect in an
    // app's frame) and passes no array through wasm-bindgen's glue. A
    // view is made again when it is too short or the memory grew (which
    // empties every view of it).
    this.maskBuffer = new Uint8Array(0);
    this.floats = null;
    this.rayIo = null;
    this.maskIo = null;
    this.out = new Float64Array(0);
    /** BVHs built again by a pose instead of refit (their boxes grew too much). */
    this.rebuilt = 0;
  }

  /** Applies commands in order; returns the refused ones with their errors (the rest are applied). */
  apply(cmds) {
    const refused = [];
    for (const c of cmds) {
      try {
        this.#one(c);
      } catch (e) {
        refused.push({ cmd: c, message: e instanceof Error ? e.message : String(e) });
      }
    }
    return refused;
  }

  #obj(id) {
    const r = this.objects.get(id);
    if (r === undefined) throw new Error(`softpick: object ${id} was never added`);
    return r;
  }

  #geo(id) {
    const r = this.geometries.get(id);
    if (r === undefined) throw new Error(`softpick: geometry ${id} was never added`);
    return r;
  }

  #one(c) {
    const s = this.scene;
    switch (c.op) {
      case 'addGeometry': {
        const idx = c.index ? (c.index instanceof Uint32Array ? c.index : Uint32Array.from(c.index)) : undefined;
        this.geometries.set(c.id, s.addGeometry(c.positions, idx, c.ranges));
        break;
      }
      case 'setGeometryPositions': s.setGeometryPositions(this.#geo(c.id), c.positions); break;
      case 'setSkin': s.setSkin(this.#geo(c.id), c.joints, c.weights); break;
      case 'setMorphTargets': s.setMorphTargets(this.#geo(c.id), c.targets, c.count, c.relative); break;
      case 'removeGeometry': {
        const g = this.geometries.get(c.id);
        if (g !== undefined) { s.removeGeometry(g); this.geometries.delete(c.id); }
        break;
      }
      case 'addObject': {
        const id = s.addObject(this.#geo(c.geometry), c.matrix, c.instances ?? undefined, c.sides);
        this.objects.set(c.id, id);
        this.maskLength = Math.max(this.maskLength, id + 1);
        this.toMirror[id] = c.id;
        break;
      }
      case 'setMatrix': s.setMatrix(this.#obj(c.id), c.matrix, c.instances ?? undefined); break;
      case 'setSides': s.setSides(this.#obj(c.id), c.sides); break;
      case 'setVisible': s.setVisible(this.#obj(c.id), c.visible); break;
      case 'removeObject': {
        const id = this.objects.get(c.id);
        if (id !== undefined) { s.removeObject(id); this.objects.delete(c.id); this.toMirror[id] = undefined; this.maskStale = true; }
        break;
      }
      case 'setClipPlanes': s.setClipPlanes(c.planes); break;
      case 'setObjectClipPlanes': s.setObjectClipPlanes(this.#obj(c.id), c.planes, c.counts); break;
      case 'pose': this.rebuilt += this.#pose(this.#obj(c.id), c); break;
      default: throw new Error(`softpick: unknown command ${c.op}`);
    }
  }

  /** A pose command through the pose buffer: the bone matrices and the influences written into it in place. */
  #pose(id, c) {
    const s = this.scene;
    const nb = c.bones.length;
    const ni = c.influences.length;
    if (nb % 16 !== 0) return s.poseObject(id, c.bones, c.bind, c.bindInverse, c.influences); // (its error)
    let f = this.floats;
    if (f === null || f.length < nb + ni) f = this.floats = new Float32Array(memory().buffer, s.ioFloats(nb + ni), nb + ni);
    f.set(c.bones);
    f.set(c.influences, nb);
    const given = c.bind.length > 0 || c.bindInverse.length > 0;
    return s.poseObjectIo(id, nb / 16, ni, given ? c.bind : undefined, given ? c.bindInverse : undefined);
  }

  /** The mask's length, one more than the largest wasm object id in use. */
  #maskLength() {
    if (this.maskStale) {
      let n = 0;
      for (const id of this.objects.values()) n = Math.max(n, id + 1);
      this.maskLength = n;
      this.maskStale = false;
    }
    return this.maskLength;
  }

  /** Sets the bytes of the wasm objects of mirror ids `ids` in mask `m` (all zero). */
  #fill(m, ids) {
    for (let k = 0; k < ids.length; k++) {
      const w = this.objects.get(ids[k]);
      if (w !== undefined) m[w] = 1;
    }
  }

  /** A wasm object mask from mirror ids (undefined: every object), in the reused buffer (the wasm call copies it). */
  #mask(ids) {
    if (ids === null || ids === undefined) return undefined;
    const n = this.#maskLength();
    let m = this.maskBuffer;
    if (m.length !== n) m = this.maskBuffer = new Uint8Array(n);
    else m.fill(0);
    this.#fill(m, ids);
    return m;
  }

  /** The mask of mirror ids `ids` in the scene's mask buffer: its length (−1: none, every object). */
  #maskInPlace(ids) {
    if (ids === null || ids === undefined) return -1;
    const n = this.#maskLength();
    let m = this.maskIo;
    if (m === null || m.length !== n) m = this.maskIo = n ? new Uint8Array(memory().buffer, this.scene.ioMask(n), n) : new Uint8Array(0);
    m.fill(0);
    this.#fill(m, ids);
    return n;
  }

  /** Packed hits with the wasm's object ids turned into the mirror's (in place). */
  #translate(p) {
    for (let o = 0; o < p.length; o += S) p[o] = this.toMirror[p[o]] ?? -1;
    return p;
  }

  /**
   * The nearest hit (`all`: every hit) of a ray, packed in mirror ids into
   * `this.out` (a view of the scene's packed-hits buffer, valid until the
   * next query); the number of hits.
   */
  raycastShared(origin, direction, near, far, ids, all) {
    const s = this.scene;
    // (the mask first: making its buffer may grow the memory, and what is
    // written through a view of the memory before it grew is lost)
    const m = this.#maskInPlace(ids);
    let r = this.rayIo;
    if (r === null || r.length === 0) r = this.rayIo = new Float64Array(memory().buffer, s.ioRay(), 6);
    r[0] = origin[0]; r[1] = origin[1]; r[2] = origin[2];
    r[3] = direction[0]; r[4] = direction[1]; r[5] = direction[2];
    const n = s.raycastIo(near, far, m, all);
    let p = this.out;
    // (the first query; the buffer moved: it had no room for these hits;
    // or the memory grew)
    if (p.length === 0 || n * S > p.length) p = this.out = new Float64Array(memory().buffer, s.ioPacked(), Math.max(n, 1) * S);
    const t = this.toMirror;
    for (let o = 0; o < n * S; o += S) p[o] = t[p[o]] ?? -1;
    return n;
  }

  /** The nearest hit (`all`: every hit) of a ray, packed, in mirror ids (a copy of its own). */
  raycast(origin, direction, near, far, ids, all) {
    const n = this.raycastShared(origin, direction, near, far, ids, all);
    return this.out.slice(0, n * S);
  }

  /** The nearest hits of many rays: { object (mirror ids, −1: none), instance, index, distance }. */
  firstHits(origins, directions, near, far, ids) {
    const n = Math.floor(origins.length / 3);
    const out = {
      object: new Int32Array(n),
      instance: new Uint32Array(n),
      index: new Uint32Array(n),
      distance: new Float32Array(n),
    };
    this.scene.firstHits(origins, directions, near, far, this.#mask(ids), out.object, out.instance, out.index, out.distance);
    const t = this.toMirror;
    for (let i = 0; i < n; i++) if (out.object[i] >= 0) out.object[i] = t[out.object[i]] ?? -1;
    return out;
  }

  /** The frame of a camera (view and projection matrices, size), rendered unless the last one is still it. */
  #frame(view, projection, width, height, revision) {
    const key = [revision, width, height, ...view, ...projection];
    const last = this.frameKey;
    if (this.frame && last && last.length === key.length && key.every((v, i) => v === last[i])) return this.frame;
    const cam = raw.RawCamera.fromMatrices(view, projection, width, height);
    try {
      this.frame ??= new raw.RawFrame();
      this.frameKey = null;
      this.frame.render(this.scene, cam, 0, false);
      this.frameKey = key;
    } finally {
      cam.free();
    }
    return this.frame;
  }

  /** What is under pixel (x, y) of a camera's view (method 0 buffer, 1 direct, 2 ray), packed, in mirror ids. */
  pick(view, projection, width, height, revision, x, y, method) {
    const f = this.#frame(view, projection, width, height, revision);
    return this.#translate(f.pick(this.scene, x, y, method));
  }

  /** A selection in a camera's view: a rectangle [x0, y0, x1, y1] or a lasso (x, y pairs), in mirror ids. */
  select(view, projection, width, height, revision, rect, lasso, through) {
    const f = this.#frame(view, projection, width, height, revision);
    const s = rect
      ? f.selectRect(this.scene, rect[0], rect[1], rect[2], rect[3], through)
      : f.selectLasso(this.scene, lasso, through);
    const n = s[1];
    const t = this.toMirror;
    const out = Array.from(s);
    for (let k = 0; k < n; k++) out[2 + 2 * k] = t[s[2 + 2 * k]] ?? -1;
    for (let o = 2 + 2 * n; o + 2 < s.length; o += 3) out[o] = t[s[o]] ?? -1;
    return out;
  }

  /** The ID buffer of a camera's view, as mirror object ids per pixel (−1: none). */
  objectIds(view, projection, width, height, revision) {
    const f = this.#frame(view, projection, width, height, revision);
    const ids = f.objectIds(this.scene);
    const t = this.toMirror;
    for (let i = 0; i < ids.length; i++) if (ids[i] >= 0) ids[i] = t[ids[i]] ?? -1;
    return ids;
  }

  /** The ID buffer of a camera's view: per pixel a triangle's number + 1 (0: none); a copy. */
  triangleIds(view, projection, width, height, revision) {
    return this.#frame(view, projection, width, height, revision).ids();
  }

  free() {
    this.frame?.free();
    this.scene.free();
    this.frame = null;
  }
}
