// The three.js side of the adapter: what of a scene softpick must know
// (geometries once, per version; matrices, instances, bone matrices and
// morph influences when they change) as a list of commands for a backend
// (the wasm scene here, or in a worker), and softpick's packed answers as
// three.js-shaped intersections.

import { Matrix4, Vector2, Vector3 } from 'three';
import { Batch, batchable, label, same } from './batched.js';

const S = 16; // numbers per packed hit

const _m = new Matrix4();
const _inv = new Matrix4();
const _dir = new Vector3();
const EMPTY64 = new Float64Array(0);
const EMPTY32 = new Float32Array(0);
const EMPTY_U32 = new Uint32Array(0);
const NO_IDS = Object.freeze([]);

/** three.js Planes as four values each: normal x, y, z, constant (what is kept: normal · p + constant >= 0). */
function planeValues(planes) {
  if (planes.length === 0) return EMPTY32;
  const out = new Float32Array(planes.length * 4);
  planes.forEach((p, i) => {
    if (!p?.isPlane) throw new Error(`softpick: clipping plane ${i} is not a three.js Plane`);
    out.set([p.normal.x, p.normal.y, p.normal.z, p.constant], 4 * i);
  });
  return out;
}

/** The Float32Array of an attribute's first `size` components (a view of its own array when it already is one). */
function floats(attr, size, copy) {
  if (!attr.isInterleavedBufferAttribute && !attr.normalized && attr.array instanceof Float32Array && attr.itemSize === size) {
    const a = attr.array.subarray(0, attr.count * size);
    return copy ? a.slice() : a;
  }
  const out = new Float32Array(attr.count * size);
  const get = [attr.getX, attr.getY, attr.getZ, attr.getW];
  for (let i = 0; i < attr.count; i++) {
    for (let k = 0; k < size; k++) out[i * size + k] = get[k].call(attr, i);
  }
  return out;
}

/** The commands about a geometry (their `id` is the geometry's); the others' is an object's. */
const GEOMETRY_OPS = new Set(['addGeometry', 'setGeometryPositions', 'setSkin', 'setMorphTargets', 'removeGeometry']);

function sideCode(material) {
  // FrontSide 0, BackSide 1, DoubleSide 2 in every three.js release
  return material ? material.side : 0;
}

/** An object's material sides, one per primitive (one for a single material): `prev` when they are its values (no new array per frame). */
function sidesOf(o, prims, prev) {
  const multi = Array.isArray(o.material);
  const n = multi ? prims.length : 1;
  if (prev && prev.length === n) {
    let unchanged = true;
    for (let i = 0; unchanged && i < n; i++) {
      if (prev[i] !== sideCode(multi ? o.material[prims[i].materialIndex] : o.material)) unchanged = false;
    }
    if (unchanged) return prev;
  }
  return multi ? Uint8Array.from(prims, (p) => sideCode(o.material[p.materialIndex])) : new Uint8Array([sideCode(o.material)]);
}

/** What softpick is told of one object; the commands go to a backend. */
export class Mirror {
  constructor({ copy = false } = {}) {
    this.copy = copy;
    this.objects = new Map(); // Object3D -> record
    this.byId = [];
    this.geometries = new Map(); // BufferGeometry -> { single, multi } records
    this.batches = new Map(); // BatchedMesh -> Batch (batched.js; its parts' records are in byId)
    this.nextObject = 0;
    this.nextGeometry = 0;
    this.freeObjects = [];
    this.root = null;
    this.revision = 0;
    this.stamp = 0;
    this.layerMasks = new Set();
    this.retired = new Set();
    this.clipAll = EMPTY32;
    this.localClipping = false;
    this.one = [0];
    /** Whether a geometry may have lost its last user (then sync looks for ones to remove). */
    this.sweep = false;
  }

  /**
   * The commands that bring softpick to `root` as it is now; `errors`
   * collects what could not be mirrored (the objects are left out).
   */
  sync(root, errors, clipping = {}) {
    const cmds = [];
    this.root = root;
    const stamp = ++this.stamp;
    this.layerMasks.clear();
    // the planes of every object (renderer.clippingPlanes), and whether
    // materials' own planes count (renderer.localClippingEnabled)
    const all = planeValues(clipping.planes ?? []);
    if (!same(all, this.clipAll)) {
      cmds.push({ op: 'setClipPlanes', planes: this.copy ? all.slice() : all });
      this.clipAll = all;
    }
    this.localClipping = !!clipping.local;
    this.#visit(root, true, stamp, cmds, errors);
    // (deleting the entry being visited is allowed in a Map's iteration)
    for (const rec of this.objects.values()) {
      if (rec.stamp !== stamp) this.#drop(rec.object, rec, cmds);
    }
    for (const [o, b] of this.batches) {
      if (b.stamp !== stamp) {
        b.drop(this, cmds);
        this.batches.delete(o);
      }
    }
    // (what follows only matters when an object left a geometry or a new
    // version came: a frame that only moves and poses skips it)
    if (!this.sweep) {
      if (cmds.length) this.revision++;
      return cmds;
    }
    this.sweep = false;
    for (const [g, slot] of this.geometries) {
      for (const key of ['single', 'multi']) {
        const grec = slot[key];
        if (grec && grec.users === 0) {
          cmds.push({ op: 'removeGeometry', id: grec.id });
          slot[key] = null;
        }
      }
      if (!slot.single && !slot.multi) this.geometries.delete(g);
    }
    for (const grec of this.retired) {
      if (grec.users === 0) {
        cmds.push({ op: 'removeGeometry', id: grec.id });
        this.retired.delete(grec);
      }
    }
    if (cmds.length) this.revision++;
    return cmds;
  }

  #visit(o, visible, stamp, cmds, errors) {
    const v = visible && o.visible;
    // (a BatchedMesh of a three.js release without its instance API,
    // batched.js's batchable, is left out)
    const batch = o.isBatchedMesh;
    if (o.isMesh && (!batch || batchable(o))) {
      try {
        if (batch) this.#batch(o, v, stamp, cmds);
        else this.#object(o, v, stamp, cmds);
      } catch (e) {
        errors.push(e instanceof Error ? e : new Error(String(e)));
      }
    }
    const ch = o.children;
    for (let i = 0; i < ch.length; i++) this.#visit(ch[i], v, stamp, cmds, errors);
  }

  #batch(o, visible, stamp, cmds) {
    let b = this.batches.get(o);
    if (!b && !(visible && o.material !== undefined && o.material !== null)) return; // nothing to say yet
    if (!b) {
      b = new Batch(o);
      try {
        b.sync(this, visible, stamp, cmds);
      } finally {
        // (a batch refused before its first command is tried again)
        if (b.parts.size || b.count) this.batches.set(o, b);
      }
      return;
    }
    b.sync(this, visible, stamp, cmds);
  }

  /** The three.js object a command is about, as errors name it (a geometry's: the first object using it), or null. */
  describe(cmd) {
    if (GEOMETRY_OPS.has(cmd.op)) {
      for (const rec of this.objects.values()) if (rec.geometry.id === cmd.id) return `${label(rec.object)}'s geometry`;
      for (const b of this.batches.values()) {
        const part = b.partOfGeometry(cmd.id);
        if (part) return `${label(b.object)}'s geometry ${part.gid}`;
      }
      return null;
    }
    const rec = this.byId[cmd.id];
    return rec && cmd.op !== 'setClipPlanes' ? label(rec.object) : null;
  }

  /** Undoes the record of a command the backend refused (so the next sync sends it again). */
  refused(cmd) {
    const rec = GEOMETRY_OPS.has(cmd.op) ? undefined : this.byId[cmd.id];
    if (rec?.batch) {
      rec.batch.refused(cmd, rec);
      if (cmd.op === 'addObject') this.byId[cmd.id] = undefined;
      return;
    }
    if (GEOMETRY_OPS.has(cmd.op)) for (const b of this.batches.values()) b.refused(cmd, null);
    if (cmd.op === 'addGeometry') {
      for (const [g, slot] of this.geometries) {
        for (const key of ['single', 'multi']) {
          if (slot[key]?.id === cmd.id) slot[key] = null;
        }
        if (!slot.single && !slot.multi) this.geometries.delete(g);
      }
    }
    if (cmd.op === 'addObject' && rec) {
      this.objects.delete(rec.object);
      this.byId[cmd.id] = undefined;
      rec.geometry.users--;
      this.sweep = true;
    } else if (cmd.op === 'setClipPlanes') {
      this.clipAll = null;
    } else if (rec && cmd.op === 'setObjectClipPlanes') {
      rec.clip = null;
    } else if (rec && (cmd.op === 'setMatrix' || cmd.op === 'pose' || cmd.op === 'setSides')) {
      rec.matrix.fill(NaN);
      rec.pose = null; // (the next pose sends everything, the bind matrices too)
      rec.sides = null;
      rec.instanceVersion = -1;
    }
  }

  #drop(o, rec, cmds) {
    cmds.push({ op: 'removeObject', id: rec.id });
    rec.geometry.users--;
    this.sweep = true;
    this.objects.delete(o);
    this.byId[rec.id] = undefined;
    this.freeObjects.push(rec.id);
  }

  /** Whether `rec` still describes `g` (every version, count and range as sent). */
  static #same(rec, g, multi) {
    const pos = g.attributes.position;
    const index = g.index;
    const dr = g.drawRange;
    const st = rec.state;
    if (st.pos !== pos || st.posVersion !== pos.version || st.posCount !== pos.count ||
        st.index !== index || (index && (st.indexVersion !== index.version || st.indexCount !== index.count)) ||
        st.drStart !== dr.start || st.drCount !== dr.count) return false;
    if (multi) {
      const gs = g.groups;
      if (gs.length !== st.groups.length) return false;
      for (let i = 0; i < gs.length; i++) {
        const a = gs[i], b = st.groups[i];
        if (a.start !== b.start || a.count !== b.count || a.materialIndex !== b.materialIndex) return false;
      }
    }
    const at = g.attributes;
    if (st.skinIndex !== (at.skinIndex?.version ?? -1) || st.skinWeight !== (at.skinWeight?.version ?? -1)) return false;
    const morph = g.morphAttributes?.position;
    const mv = st.morph;
    if ((morph?.length ?? 0) !== mv.length) return false;
    for (let i = 0; i < mv.length; i++) if (morph[i].version !== mv[i]) return false;
    return !mv.length || st.relative === !!g.morphTargetsRelative;
  }

  static #state(g) {
    const pos = g.attributes.position;
    const index = g.index;
    const at = g.attributes;
    return {
      pos, posVersion: pos.version, posCount: pos.count, index,
      indexVersion: index ? index.version : -1, indexCount: index ? index.count : -1,
      drStart: g.drawRange.start, drCount: g.drawRange.count,
      groups: g.groups.map((gr) => ({ start: gr.start, count: gr.count, materialIndex: gr.materialIndex })),
      skinIndex: at.skinIndex?.version ?? -1, skinWeight: at.skinWeight?.version ?? -1,
      morph: (g.morphAttributes?.position ?? []).map((a) => a.version), relative: !!g.morphTargetsRelative,
    };
  }

  #geometry(o, cmds) {
    const g = o.geometry;
    const multi = Array.isArray(o.material);
    const pos = g?.attributes?.position;
    if (!pos) throw new Error(`softpick: ${label(o)} has no position attribute`);
    let slot = this.geometries.get(g);
    const which = multi ? 'multi' : 'single';
    let rec = slot?.[which];
    if (rec && Mirror.#same(rec, g, multi)) return rec;
    const morph = g.morphAttributes?.position ?? null;
    // (before any command: a refused geometry sends nothing)
    morph?.forEach((a, t) => {
      if (a.count !== pos.count) {
        throw new Error(`softpick: ${label(o)}: morph target ${t} (morphAttributes.position[${t}]) has ${a.count} vertices, the geometry ${pos.count}`);
      }
    });
    if (!slot) this.geometries.set(g, (slot = { single: null, multi: null }));
    const index = g.index;
    const skin = o.isSkinnedMesh ? [g.attributes.skinIndex, g.attributes.skinWeight] : null;
    const dr = g.drawRange;
    const state = Mirror.#state(g);
    // the primitives, as three.js's raycast walks them
    const count = index ? index.count : pos.count;
    const ranges = [];
    const prims = [];
    if (multi) {
      for (const gr of g.groups) {
        const start = Math.max(gr.start, dr.start);
        const end = Math.min(count, gr.start + gr.count, dr.start + dr.count);
        ranges.push(start, Math.max(start, end));
        prims.push({ first: start, materialIndex: gr.materialIndex });
      }
    } else {
      const start = Math.max(0, dr.start);
      const end = Math.min(count, dr.start + dr.count);
      ranges.push(start, Math.max(start, end));
      prims.push({ first: start, materialIndex: 0 });
    }
    const positions = floats(pos, 3, this.copy);
    let idx = null;
    if (index) {
      const a = index.array;
      idx = a instanceof Uint32Array || a instanceof Uint16Array ? a.subarray(0, index.count) : Uint32Array.from(a.subarray(0, index.count));
      if (this.copy && idx.buffer === a.buffer) idx = idx.slice();
    }
    const st = rec?.state;
    const onlyPositions = st && st.pos === pos && st.posCount === pos.count && st.index === index &&
      st.indexVersion === state.indexVersion && st.indexCount === state.indexCount &&
      st.drStart === state.drStart && st.drCount === state.drCount && rec.rangeKey === ranges.join(',') &&
      st.skinIndex === state.skinIndex && st.skinWeight === state.skinWeight &&
      st.morph.join() === state.morph.join() && st.relative === state.relative;
    if (onlyPositions) {
      cmds.push({ op: 'setGeometryPositions', id: rec.id, positions });
      rec.state = state;
      rec.revision++;
      return rec;
    }
    const id = this.nextGeometry++;
    const old = rec;
    this.sweep = true; // (until an object uses it, and for the old version)
    rec = {
      id, state, users: 0, prims, vertices: pos.count, revision: 0, rangeKey: ranges.join(','),
      deformed: !!(skin || (morph && morph.length)),
    };
    cmds.push({ op: 'addGeometry', id, positions, index: idx, ranges: Uint32Array.from(ranges) });
    if (skin && skin[0] && skin[1]) {
      const j = floats(skin[0], 4, false);
      const joints = new Uint16Array(j.length);
      for (let i = 0; i < j.length; i++) joints[i] = j[i];
      cmds.push({ op: 'setSkin', id, joints, weights: floats(skin[1], 4, true) });
    }
    if (morph && morph.length) {
      const n = pos.count * 3;
      const targets = new Float32Array(n * morph.length);
      morph.forEach((a, t) => targets.set(floats(a, 3, false), t * n));
      cmds.push({ op: 'setMorphTargets', id, targets, count: morph.length, relative: !!g.morphTargetsRelative });
    }
    slot[which] = rec;
    // objects on the old version move to the new one (each sent again
    // when visited); the old one goes when none is left on it
    if (old) this.retired.add(old);
    return rec;
  }

  #object(o, visible, stamp, cmds) {
    let rec = this.objects.get(o);
    const hasMaterial = o.material !== undefined && o.material !== null;
    if (!rec && !(visible && hasMaterial)) return; // nothing to say yet
    const grec = this.#geometry(o, cmds);
    const m = o.matrixWorld.elements;
    for (let i = 0; i < 16; i++) {
      if (!Number.isFinite(m[i])) throw new Error(`softpick: ${label(o)} has a matrixWorld element ${i} of ${m[i]}`);
    }
    const instanced = !!o.isInstancedMesh;
    const sides = sidesOf(o, grec.prims, rec?.sides);
    if (rec && rec.geometry !== grec) {
      // a new geometry (or version of it): the object is sent again
      this.#drop(o, rec, cmds);
      rec = null;
    }
    const instances = () => {
      const a = o.instanceMatrix.array.subarray(0, o.count * 16);
      return this.copy ? a.slice() : a;
    };
    if (!rec) {
      const id = this.freeObjects.pop() ?? this.nextObject++;
      rec = {
        id, object: o, geometry: grec, matrix: Float64Array.from(m), visible: true, stamp,
        sides, instanceVersion: instanced ? o.instanceMatrix.version : 0, count: instanced ? o.count : 1,
        pose: null, layers: o.layers.mask, prims: grec.prims, clip: EMPTY32, clipCounts: EMPTY_U32,
      };
      grec.users++;
      this.objects.set(o, rec);
      this.byId[id] = rec;
      cmds.push({ op: 'addObject', id, geometry: grec.id, matrix: Float64Array.from(m), instances: instanced ? instances() : null, sides: this.copy ? sides.slice() : sides });
    } else {
      rec.stamp = stamp;
      let moved = false;
      for (let i = 0; i < 16; i++) if (rec.matrix[i] !== m[i]) { moved = true; break; }
      const instMoved = instanced && (rec.instanceVersion !== o.instanceMatrix.version || rec.count !== o.count);
      if (moved || instMoved) {
        rec.matrix.set(m);
        cmds.push({ op: 'setMatrix', id: rec.id, matrix: Float64Array.from(m), instances: instMoved ? instances() : null });
        if (instanced) { rec.instanceVersion = o.instanceMatrix.version; rec.count = o.count; }
      }
      if (sides !== rec.sides) cmds.push({ op: 'setSides', id: rec.id, sides: this.copy ? sides.slice() : sides });
      rec.sides = sides;
    }
    rec.stamp = stamp;
    rec.layers = o.layers.mask;
    const show = visible && hasMaterial;
    if (rec.visible !== show) {
      cmds.push({ op: 'setVisible', id: rec.id, visible: show });
      rec.visible = show;
    }
    if (show) this.layerMasks.add(o.layers.mask);
    if (grec.deformed && !instanced && show) this.#pose(o, rec, cmds);
    this.clip(o, rec, cmds);
  }

  /** An object's own clip planes: its materials' clippingPlanes (when local clipping is on), per primitive. */
  clip(o, rec, cmds) {
    // (no planes, as before: nothing to compare or send)
    if (!this.localClipping && rec.clip?.length === 0 && rec.clipCounts?.length === 0) return;
    const mats = Array.isArray(o.material) ? rec.prims.map((p) => o.material[p.materialIndex]) : [o.material];
    let values = EMPTY32;
    let counts = EMPTY_U32;
    if (this.localClipping && mats.some((m) => m?.clippingPlanes?.length)) {
      for (const m of mats) {
        if (m?.clippingPlanes?.length && m.clipIntersection) {
          throw new Error(`softpick: ${label(o)}: material.clipIntersection (the union of the clipped regions) is not supported; softpick keeps the intersection of the planes' sides, three.js's default`);
        }
      }
      const per = mats.map((m) => planeValues(m?.clippingPlanes ?? []));
      values = new Float32Array(per.reduce((n, p) => n + p.length, 0));
      let k = 0;
      for (const p of per) { values.set(p, k); k += p.length; }
      counts = Array.isArray(o.material) ? Uint32Array.from(per, (p) => p.length / 4) : EMPTY_U32;
    }
    if (same(values, rec.clip) && same(counts, rec.clipCounts)) return;
    const own = (a) => (this.copy ? a.slice() : a);
    cmds.push({ op: 'setObjectClipPlanes', id: rec.id, planes: own(values), counts: own(counts) });
    rec.clip = values;
    rec.clipCounts = counts;
  }

  #pose(o, rec, cmds) {
    const infl = o.morphTargetInfluences;
    const sk = o.isSkinnedMesh ? o.skeleton : null;
    const nb = sk ? sk.bones.length * 16 : 0;
    const ni = infl ? infl.length : 0;
    let p = rec.pose;
    if (!p || p.bones.length !== nb || p.influences.length !== ni) {
      p = rec.pose = {
        bones: new Float32Array(nb), next: new Float32Array(nb),
        influences: new Float32Array(ni), bind: new Float64Array(16).fill(NaN), bindInverse: new Float64Array(16).fill(NaN),
        revision: -1,
      };
    }
    // the bone matrices as Skeleton.update makes them, into the spare buffer
    const bones = p.next;
    for (let i = 0; sk && i < sk.bones.length; i++) {
      const b = sk.bones[i];
      if (b) _m.multiplyMatrices(b.matrixWorld, sk.boneInverses[i]);
      else _m.copy(sk.boneInverses[i]);
      _m.toArray(bones, i * 16);
    }
    let changed = p.revision !== rec.geometry.revision;
    for (let i = 0; !changed && i < nb; i++) if (bones[i] !== p.bones[i]) changed = true;
    for (let i = 0; i < ni; i++) {
      if (p.influences[i] !== infl[i]) { changed = true; p.influences[i] = infl[i]; }
    }
    let bindChanged = false;
    if (sk) {
      const be = o.bindMatrix.elements, bie = o.bindMatrixInverse.elements;
      for (let i = 0; i < 16; i++) {
        if (p.bind[i] !== be[i] || p.bindInverse[i] !== bie[i]) { bindChanged = true; break; }
      }
      if (bindChanged) { p.bind.set(be); p.bindInverse.set(bie); }
    }
    if (!changed && !bindChanged) return;
    p.next = p.bones;
    p.bones = bones;
    p.revision = rec.geometry.revision;
    const own = (a) => (this.copy ? a.slice() : a);
    cmds.push({
      op: 'pose', id: rec.id,
      bones: own(bones), influences: own(p.influences),
      bind: bindChanged ? p.bind.slice() : EMPTY64, bindInverse: bindChanged ? p.bindInverse.slice() : EMPTY64,
    });
  }

  /**
   * The mirrored objects a query over `objects` (and their descendants,
   * with `recursive`) tests on `layers`: null when that is every one of
   * them (no mask needed), else their ids.
   */
  select(objects, recursive, layers) {
    const root = this.root;
    let all = recursive && root && (objects.includes(root) ||
      (objects.length === root.children.length && objects.every((o, i) => o === root.children[i]) && !this.objects.has(root) && !this.batches.has(root)));
    if (all) {
      for (const mask of this.layerMasks) if ((mask & layers.mask) === 0) { all = false; break; }
      if (all) return null;
    }
    const ids = [];
    const visit = (o) => {
      const rec = this.objects.get(o);
      if (rec && (o.layers.mask & layers.mask) !== 0) ids.push(rec.id);
      const b = this.batches.get(o);
      if (b && (o.layers.mask & layers.mask) !== 0) b.ids(ids);
      if (recursive) for (const c of o.children) visit(c);
    };
    for (const o of objects) visit(o);
    return ids;
  }

  /**
   * `select([object], recursive, layers)` for one object, without
   * allocating when not recursive: the ids are in an array the mirror
   * reuses (read them before the next query).
   */
  selectOne(object, recursive, layers) {
    if (recursive || this.batches.has(object)) return this.select([object], recursive, layers);
    const rec = this.objects.get(object);
    if (!rec || (object.layers.mask & layers.mask) === 0) return NO_IDS;
    this.one[0] = rec.id;
    return this.one;
  }

  /** The three.js intersection of packed hit `k` (`ray`: the query's world ray, for the normal's facing). */
  intersection(p, k, rayDirection) {
    const o = k * S;
    const rec = this.byId[p[o]];
    if (!rec) return null;
    const object = rec.object;
    const g = object.geometry;
    // (a BatchedMesh's part: its index positions from the part's start in
    // the batch geometry, its instances slots of the part's table)
    const part = rec.part;
    const j = part ? p[o + 3] + part.base : p[o + 3];
    const index = g.index;
    const a = index ? index.getX(j) : j;
    const b = index ? index.getX(j + 1) : j + 1;
    const c = index ? index.getX(j + 2) : j + 2;
    const barycoord = new Vector3(p[o + 8], p[o + 9], p[o + 10]);
    const prim = rec.prims[p[o + 2]];
    const hit = {
      distance: p[o + 4],
      point: new Vector3(p[o + 5], p[o + 6], p[o + 7]),
      object,
      face: { a, b, c, normal: new Vector3(p[o + 11], p[o + 12], p[o + 13]), materialIndex: prim ? prim.materialIndex : 0 },
      faceIndex: Math.floor(j / 3),
      barycoord,
    };
    if (object.isInstancedMesh) hit.instanceId = p[o + 1];
    if (part) hit.batchId = part.slots[p[o + 1]];
    const at = g.attributes;
    const w0 = barycoord.x, w1 = barycoord.y, w2 = barycoord.z;
    const lerp = (attr, target) => {
      const x = attr.getX(a) * w0 + attr.getX(b) * w1 + attr.getX(c) * w2;
      const y = attr.getY(a) * w0 + attr.getY(b) * w1 + attr.getY(c) * w2;
      if (target.isVector2) return target.set(x, y);
      return target.set(x, y, attr.getZ(a) * w0 + attr.getZ(b) * w1 + attr.getZ(c) * w2);
    };
    if (at.uv) hit.uv = lerp(at.uv, new Vector2());
    if (at.uv1) hit.uv1 = lerp(at.uv1, new Vector2());
    if (at.normal) {
      hit.normal = lerp(at.normal, new Vector3());
      // facing the ray, as three.js does it in the object's space
      _m.copy(object.matrixWorld);
      if (object.isInstancedMesh || part) {
        object.getMatrixAt(part ? hit.batchId : p[o + 1], _inv);
        _m.multiply(_inv);
      }
      _inv.copy(_m).invert();
      _dir.copy(rayDirection).transformDirection(_inv);
      if (hit.normal.dot(_dir) > 0) hit.normal.multiplyScalar(-1);
    }
    return hit;
  }

  /**
   * Where a packed answer's (mirror id, instance, index position) is in
   * three.js's terms: `{ object, instanceId, batchId, faceIndex }`
   * (instanceId for an InstancedMesh, batchId for a BatchedMesh, else
   * undefined), or null for an object no longer mirrored.
   */
  place(id, instance, j) {
    const rec = this.byId[id];
    if (!rec) return null;
    const object = rec.object;
    const part = rec.part;
    return {
      object,
      instanceId: object.isInstancedMesh ? instance : undefined,
      batchId: part ? part.slots[instance] : undefined,
      faceIndex: Math.floor((part ? j + part.base : j) / 3),
    };
  }

  /** The three.js intersections of the first `n` packed hits (all of `p` by default) into `target`. */
  intersections(p, rayDirection, target, n = p.length / S) {
    for (let k = 0; k < n; k++) {
      const h = this.intersection(p, k, rayDirection);
      if (h) target.push(h);
    }
    return target;
  }
}

