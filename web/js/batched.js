// A three.js BatchedMesh as softpick sees it: one softpick geometry per
// batch geometry id (its vertices copied out of the batch's buffers, its
// index range rebased to them) and one instanced softpick object per
// geometry id whose instances are that geometry's visible, active batch
// instances (the BatchedMesh's matrixWorld × each instance's matrix, as
// three.js's BatchedMesh.raycast places them), with a table from instance
// slot back to the batch's instance id. Geometry is copied again only when
// the batch's position or index attribute has a new version (setGeometryAt,
// addGeometry, optimize bump it) and a geometry id's vertices or rebased
// index differ from what was sent (one that optimize only moved keeps its
// copy); a frame that only moves, shows or hides instances sends instance
// matrices.

import { Matrix4 } from 'three';

const _m = new Matrix4();
const EMPTY32 = new Float32Array(0);
const EMPTY_U32 = new Uint32Array(0);
const EMPTY_I32 = new Int32Array(0);
/** A part's one primitive (a batch has one material: three.js's raycast gives materialIndex 0). */
const PRIMS = Object.freeze([Object.freeze({ first: 0, materialIndex: 0 })]);

/**
 * How errors name a three.js object: its class, name and uuid. (three.js
 * sets no `type` of their own on InstancedMesh and BatchedMesh, so theirs
 * says Mesh: they are named by their flags.)
 */
export function label(o) {
  const kind = o.isInstancedMesh ? 'InstancedMesh' : o.isBatchedMesh ? 'BatchedMesh' : o.type;
  return `${kind} "${o.name}" (${o.uuid})`;
}

/**
 * Whether softpick can mirror BatchedMesh `o`: three.js releases whose
 * BatchedMesh keeps instances apart from geometries (getGeometryIdAt,
 * getGeometryRangeAt and the instances' active flags in _instanceInfo, as
 * 0.187 does). Older ones (0.160: one instance per geometry, private draw
 * ranges) are left out, as every BatchedMesh was before: no error, and
 * softpick's picks never return them.
 */
export function batchable(o) {
  return typeof o.getGeometryIdAt === 'function' && typeof o.getGeometryRangeAt === 'function' && Array.isArray(o._instanceInfo);
}

/** Whether two typed arrays (or two nulls) hold the same values; the mirror's comparisons too. */
export function same(a, b) {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Vertices [start, start + count) of a position attribute as x, y, z floats (a copy of its own). */
function vertexRange(attr, start, count) {
  if (!attr.isInterleavedBufferAttribute && !attr.normalized && attr.array instanceof Float32Array && attr.itemSize === 3) {
    return attr.array.slice(start * 3, (start + count) * 3);
  }
  const out = new Float32Array(count * 3);
  for (let i = 0; i < count; i++) {
    out[3 * i] = attr.getX(start + i);
    out[3 * i + 1] = attr.getY(start + i);
    out[3 * i + 2] = attr.getZ(start + i);
  }
  return out;
}

/**
 * What softpick is told of one BatchedMesh. Its parts' records sit in the
 * mirror's `byId` like any object's (`object` the BatchedMesh, `part` the
 * geometry id's state: `slots` from instance slot to batch instance id,
 * `base` what a hit's index position in the part adds to be one of the
 * batch geometry's).
 */
export class Batch {
  constructor(object) {
    this.object = object;
    this.stamp = 0;
    this.parts = new Map(); // batch geometry id -> part
    // per batch instance id as last sent: its geometry id (−1: not active),
    // whether it is visible, its matrix; and the spare arrays a sync reads
    // the instances into (so a refused sync changes nothing)
    this.gid = EMPTY_I32;
    this.shown = new Uint8Array(0);
    this.mats = EMPTY32;
    this.nextGid = EMPTY_I32;
    this.nextShown = new Uint8Array(0);
    this.nextMats = EMPTY32;
    this.count = 0;
    this.matrix = new Float64Array(16).fill(NaN);
    this.pos = null;
    this.posVersion = -1;
    this.index = null;
    this.indexVersion = -1;
    this.visible = false;
    this.layers = 0;
  }

  /** The mirror ids of the parts. */
  ids(out = []) {
    for (const part of this.parts.values()) if (part.rec) out.push(part.rec.id);
    return out;
  }

  /** Reads the instances into the spare arrays, checking every shown instance's matrix: their number. */
  #readInstances() {
    const o = this.object;
    const info = o._instanceInfo;
    const n = info.length;
    if (this.nextGid.length < n) {
      this.nextGid = new Int32Array(n);
      this.nextShown = new Uint8Array(n);
      this.nextMats = new Float32Array(16 * n);
    }
    const gid = this.nextGid, shown = this.nextShown, mats = this.nextMats;
    for (let i = 0; i < n; i++) {
      // (getGeometryIdAt and getVisibleAt throw for a deleted instance)
      if (!info[i]?.active) { gid[i] = -1; shown[i] = 0; continue; }
      gid[i] = o.getGeometryIdAt(i);
      shown[i] = o.getVisibleAt(i) ? 1 : 0;
      if (!shown[i]) continue;
      const e = o.getMatrixAt(i, _m).elements;
      for (let k = 0; k < 16; k++) {
        if (!Number.isFinite(e[k])) throw new Error(`softpick: ${label(o)}: instance ${i}'s matrix (getMatrixAt) has an element ${k} of ${e[k]}`);
        mats[16 * i + k] = e[k];
      }
      // (the core refuses these too, but would name the instance by its
      // slot in a part, not by the batch's id)
      if (e[3] !== 0 || e[7] !== 0 || e[11] !== 0 || e[15] !== 1) {
        throw new Error(`softpick: ${label(o)}: instance ${i}'s matrix (getMatrixAt) is not affine: its last row is (${e[3]}, ${e[7]}, ${e[11]}, ${e[15]}), not (0, 0, 0, 1)`);
      }
    }
    return n;
  }

  /** Geometry id `g`'s vertices and rebased index, from the batch geometry (throws for an index outside its vertex range). */
  #extract(g) {
    const o = this.object;
    const geo = o.geometry;
    const r = o.getGeometryRangeAt(g, {});
    const vs = r.vertexStart, vc = r.vertexCount;
    const positions = vertexRange(geo.attributes.position, vs, vc);
    let index = null;
    let count = vc;
    let base = vs;
    if (geo.index) {
      const ix = geo.index;
      index = new Uint32Array(r.indexCount);
      for (let k = 0; k < r.indexCount; k++) {
        const v = ix.getX(r.indexStart + k) - vs;
        if (!(v >= 0 && v < vc)) {
          throw new Error(`softpick: ${label(o)}: geometry ${g}'s index ${r.indexStart + k} is vertex ${v + vs}, outside its vertices ${vs} to ${vs + vc - 1}`);
        }
        index[k] = v;
      }
      count = r.indexCount;
      base = r.indexStart;
    }
    return { positions, index, count, base, stale: false };
  }

  /**
   * The commands that bring softpick's parts to the BatchedMesh as it is
   * now (`visible`: its own and its ancestors' visibility). Everything that
   * can throw (bad matrices, a bad index, a material array) is checked
   * before the first command, so a batch that throws sends nothing and,
   * not stamped, is left out of the scene until an update can mirror it.
   */
  sync(mirror, visible, stamp, cmds) {
    const o = this.object;
    if (Array.isArray(o.material)) {
      throw new Error(`softpick: ${label(o)}: a BatchedMesh with an array of materials is not supported (three.js's raycast hits nothing on it)`);
    }
    const m = o.matrixWorld.elements;
    for (let i = 0; i < 16; i++) {
      if (!Number.isFinite(m[i])) throw new Error(`softpick: ${label(o)} has a matrixWorld element ${i} of ${m[i]}`);
    }
    const geo = o.geometry;
    const pos = geo?.attributes?.position;
    if (!pos) throw new Error(`softpick: ${label(o)} has no position attribute`);
    const index = geo.index;
    const n = this.#readInstances();
    const gid = this.nextGid, shown = this.nextShown, mats = this.nextMats;
    // the geometry ids of active instances (shown or not: hiding one keeps
    // its geometry), and those whose vertices or index must be sent again
    const used = new Set();
    for (let i = 0; i < n; i++) if (gid[i] >= 0) used.add(gid[i]);
    const newVersion = pos !== this.pos || pos.version !== this.posVersion ||
      index !== this.index || (index !== null && index.version !== this.indexVersion);
    const fresh = new Map();
    // (a geometry that only moved in the batch's buffers, as optimize()
    // moves them, keeps its softpick geometry: only its base changes)
    const moved = new Map();
    for (const g of used) {
      const part = this.parts.get(g);
      if (part?.geo && !part.geo.stale && !newVersion) continue;
      const data = this.#extract(g);
      const old = part?.geo;
      if (old && !old.stale && same(old.positions, data.positions) && same(old.index, data.index)) {
        if (old.base !== data.base) moved.set(part, data.base);
        continue;
      }
      fresh.set(g, data);
    }

    // (from here on nothing throws; a batch that threw is not stamped, and
    // so is left out, as a mesh that throws is)
    this.stamp = stamp;
    const own = (a) => (mirror.copy ? a.slice() : a);
    this.pos = pos;
    this.posVersion = pos.version;
    this.index = index;
    this.indexVersion = index ? index.version : -1;
    for (const [part, base] of moved) part.base = part.geo.base = base;
    for (const [g, part] of this.parts) {
      if (!used.has(g)) {
        this.#dropPart(mirror, part, cmds);
        this.parts.delete(g);
      }
    }
    // the geometry ids whose instance lists changed
    const dirty = new Set();
    const old = this.count;
    for (let i = 0; i < Math.max(n, old); i++) {
      const a = i < old && this.shown[i] ? this.gid[i] : -1;
      const b = i < n && shown[i] ? gid[i] : -1;
      if (a !== b) {
        if (a >= 0) dirty.add(a);
        if (b >= 0) dirty.add(b);
      } else if (b >= 0) {
        for (let k = 16 * i; k < 16 * i + 16; k++) {
          if (mats[k] !== this.mats[k]) { dirty.add(b); break; }
        }
      }
    }
    [this.gid, this.nextGid] = [gid, this.gid];
    [this.shown, this.nextShown] = [shown, this.shown];
    [this.mats, this.nextMats] = [mats, this.mats];
    this.count = n;

    for (const [g, data] of fresh) {
      let part = this.parts.get(g);
      if (!part) this.parts.set(g, (part = { gid: g, geo: null, rec: null, base: 0, slots: EMPTY_I32, sentSlots: EMPTY_I32 }));
      const geoRec = part.geo;
      if (geoRec && part.rec && geoRec.count === data.count && geoRec.positions.length === data.positions.length && same(geoRec.index, data.index)) {
        // the same triangles moved: new positions for the same geometry
        cmds.push({ op: 'setGeometryPositions', id: geoRec.id, positions: own(data.positions) });
        data.id = geoRec.id;
      } else {
        if (part.rec) this.#dropObject(mirror, part, cmds);
        if (geoRec) cmds.push({ op: 'removeGeometry', id: geoRec.id });
        data.id = mirror.nextGeometry++;
        cmds.push({
          op: 'addGeometry', id: data.id, positions: own(data.positions),
          index: data.index ? own(data.index) : null, ranges: Uint32Array.of(0, data.count),
        });
      }
      part.geo = data;
      part.base = data.base;
    }

    const show = visible && o.material !== undefined && o.material !== null;
    const side = o.material ? o.material.side : 0;
    const placed = !same(this.matrix, m);
    if (placed) this.matrix.set(m);
    // the instance lists of the parts that need one, in one pass
    const lists = new Map();
    for (const part of this.parts.values()) {
      if (!part.rec || dirty.has(part.gid) || part.rec.stale) lists.set(part.gid, []);
    }
    if (lists.size) {
      for (let i = 0; i < n; i++) if (shown[i]) lists.get(gid[i])?.push(i);
    }
    for (const part of this.parts.values()) {
      const list = lists.get(part.gid);
      let instances = null;
      if (list) {
        // (the table the backend has until it takes the new one: a refused
        // setMatrix leaves the old instances in place)
        part.sentSlots = part.slots;
        part.slots = Int32Array.from(list);
        instances = new Float32Array(16 * list.length);
        list.forEach((i, s) => instances.set(mats.subarray(16 * i, 16 * i + 16), 16 * s));
      }
      let rec = part.rec;
      if (!rec) {
        const id = mirror.freeObjects.pop() ?? mirror.nextObject++;
        rec = part.rec = {
          id, object: o, batch: this, part, prims: PRIMS, visible: true, stale: false,
          sides: new Uint8Array([side]), layers: o.layers.mask, clip: EMPTY32, clipCounts: EMPTY_U32,
        };
        mirror.byId[id] = rec;
        cmds.push({ op: 'addObject', id, geometry: part.geo.id, matrix: Float64Array.from(m), instances, sides: rec.sides.slice() });
      } else {
        if (placed || instances) cmds.push({ op: 'setMatrix', id: rec.id, matrix: Float64Array.from(m), instances });
        if (rec.sides === null || rec.sides[0] !== side) {
          rec.sides = new Uint8Array([side]);
          cmds.push({ op: 'setSides', id: rec.id, sides: rec.sides.slice() });
        }
      }
      rec.stale = false;
      rec.layers = o.layers.mask;
      if (rec.visible !== show) {
        cmds.push({ op: 'setVisible', id: rec.id, visible: show });
        rec.visible = show;
      }
      mirror.clip(o, rec, cmds);
    }
    this.visible = show;
    this.layers = o.layers.mask;
    if (show) mirror.layerMasks.add(o.layers.mask);
  }

  #dropObject(mirror, part, cmds) {
    cmds.push({ op: 'removeObject', id: part.rec.id });
    mirror.byId[part.rec.id] = undefined;
    mirror.freeObjects.push(part.rec.id);
    part.rec = null;
  }

  #dropPart(mirror, part, cmds) {
    if (part.rec) this.#dropObject(mirror, part, cmds);
    if (part.geo) cmds.push({ op: 'removeGeometry', id: part.geo.id });
    part.geo = null;
  }

  /** The commands that remove every part (the BatchedMesh left the scene). */
  drop(mirror, cmds) {
    for (const part of this.parts.values()) this.#dropPart(mirror, part, cmds);
    this.parts.clear();
  }

  /** The part whose softpick geometry is `id`, or null. */
  partOfGeometry(id) {
    for (const part of this.parts.values()) if (part.geo?.id === id) return part;
    return null;
  }

  /** Undoes the record of a command the backend refused, so the next sync sends it again. */
  refused(cmd, rec) {
    if (cmd.op === 'addGeometry' || cmd.op === 'setGeometryPositions') {
      const part = this.partOfGeometry(cmd.id);
      if (part && cmd.op === 'addGeometry') part.geo = null;
      else if (part) part.geo.stale = true;
      return;
    }
    if (!rec) return;
    if (cmd.op === 'addObject') {
      rec.part.rec = null;
      return;
    }
    // (setMatrix, setSides, setVisible, setObjectClipPlanes: sent again in
    // full; until then hits are of the instances the backend kept)
    if (cmd.op === 'setMatrix' && cmd.instances) rec.part.slots = rec.part.sentSlots;
    rec.stale = true;
    this.matrix.fill(NaN);
    rec.sides = null;
    rec.visible = null;
    rec.clip = null;
  }
}
