#!/usr/bin/env node
// three-mesh-bvh's refit() on a mesh deformed every frame by the wave of
// `softpick bench-pose` (each vertex moves along y by
// sin(6x/size + 4t) · cos(5z/size + 3t) · 0.02 · size, t advancing 1/30 s
// a frame), against building its BVH again; for BENCHMARKS.md.
// usage: node three_refit_wave.mjs MODEL.obj [--frames N]
import { readFileSync } from 'node:fs';
import * as THREE from 'three';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { MeshBVH } from 'three-mesh-bvh';

const args = process.argv.slice(2);
const i = args.indexOf('--frames');
const frames = i >= 0 ? parseInt(args[i + 1], 10) : 20;
const obj = new OBJLoader().parse(readFileSync(args[0], 'utf8'));
const geoms = [];
obj.traverse((o) => { if (o.isMesh) geoms.push(o.geometry); });
const geom = geoms.length === 1 ? geoms[0] : (await import('three/examples/jsm/utils/BufferGeometryUtils.js')).mergeGeometries(geoms);
geom.computeBoundingBox();
const b = geom.boundingBox;
const size = Math.max(b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z);
const pos = geom.attributes.position;
const rest = Float32Array.from(pos.array);
const bvh = new MeshBVH(geom, { indirect: true });
const ms = (f) => { const t0 = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - t0) / 1e6; };
const median = (v) => v.slice().sort((a, c) => a - c)[Math.floor(v.length / 2)];
const wave = [], refit = [], build = [];
for (let k = 0; k < frames + 2; k++) {
  const t = k / 30;
  const w = ms(() => {
    for (let v = 0; v < pos.count; v++) {
      const x = rest[3 * v], y = rest[3 * v + 1], z = rest[3 * v + 2];
      const s = Math.sin((x / size) * 6 + t * 4) * Math.cos((z / size) * 5 + t * 3);
      pos.array[3 * v + 1] = y + s * size * 0.02;
    }
    pos.needsUpdate = true;
  });
  const r = ms(() => bvh.refit());
  const bd = ms(() => new MeshBVH(geom, { indirect: true }));
  if (k >= 2) { wave.push(w); refit.push(r); build.push(bd); }
}
console.log(JSON.stringify({ model: args[0], triangles: pos.count / 3, frames, wave_ms: median(wave), refit_ms: median(refit), build_ms: median(build) }));
