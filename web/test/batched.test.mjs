// The browser tests of BatchedMesh (test/batched.js runs in the page):
// first hits against three.js's own Raycaster pose after pose, what an
// update sends, pixel picks and selections, the worker, install(), the
// three.js releases it is left out on, bad input. Run by `node --test`
// (web/scripts/test.sh).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, pageRunner } from './harness.mjs';

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

const inPage = pageRunner(() => b, 'batched.js');

test('BatchedMesh: first hits agree with three.js 0.187\'s Raycaster (object, batchId, faceIndex, distance) after each update, and an update sends geometry only where it changed', async () => {
  const r = await inPage('0.187', 'compareBatched', { n: 100 });
  assert.ok(r.three.startsWith('187'), `the page runs three r${r.three}`);
  assert.equal(r.poses.length, 3);
  r.poses.forEach((p, k) => {
    assert.ok(p.threeHits > 1000, `pose ${k}: three.js hits only ${p.threeHits} rays`);
    const share = p.agree / p.threeHits;
    assert.ok(share >= 0.999, `pose ${k}: ${p.agree} of ${p.threeHits} agree (${(100 * share).toFixed(3)} %): ${JSON.stringify(p.examples)}`);
    assert.ok(p.onlySoftpick <= Math.max(1, p.threeHits * 0.001), `pose ${k}: ${p.onlySoftpick} rays hit only by softpick`);
    const w = p.worst;
    assert.ok(w.point < 1e-4 && w.faceNormal < 1e-4, `pose ${k}: points or face normals differ: ${JSON.stringify(w)}`);
    assert.equal(w.corners, 0, `pose ${k}: face corners (the batch geometry's vertex numbers) differ`);
    assert.equal(w.materialIndex, 0, `pose ${k}: material indices differ`);
    assert.ok(w.barycoord < 1e-3, `pose ${k}: barycoords differ by ${w.barycoord}`);
    assert.ok(w.uv < 1e-3, `pose ${k}: uvs differ by ${w.uv}`);
    assert.ok(w.normal < 1e-3, `pose ${k}: normals differ by ${w.normal}`);
    assert.ok(p.noInstanceId, `pose ${k}: a batch hit has an instanceId`);
    assert.ok(p.seen.length >= 15, `pose ${k}: only ${p.seen.length} instances hit: ${p.seen}`);
    for (const key of r.never[k]) assert.ok(!p.seen.includes(key), `pose ${k}: ${key} (hidden or deleted) was hit`);
  });
  // pose 1 only moved and hid instances and moved a batch: matrices and
  // visibility, no geometry
  const ops = (k) => r.poses[k].ops.reduce((m, op) => ({ ...m, [op]: (m[op] ?? 0) + 1 }), {});
  assert.ok(r.poses[0].ops.filter((op) => op === 'addGeometry').length === 7, `pose 0: ${JSON.stringify(ops(0))}`);
  assert.deepEqual(Object.keys(ops(1)).sort(), ['setMatrix'], `pose 1: ${JSON.stringify(ops(1))}`);
  // pose 2: one geometry set anew (its vertices sent again; the rest not,
  // those optimize() moved neither), two deleted (their objects and
  // geometries removed)
  const o2 = ops(2);
  assert.equal((o2.setGeometryPositions ?? 0) + (o2.addGeometry ?? 0), 1, `pose 2: ${JSON.stringify(o2)}`);
  assert.equal(o2.removeObject, 2, `pose 2: ${JSON.stringify(o2)}`);
  assert.equal(o2.removeGeometry, 2, `pose 2: ${JSON.stringify(o2)}`);
  assert.ok(r.all.same >= 0.999 * r.all.rays, `every hit of a ray, nearest first: ${JSON.stringify(r.all)}`);
  assert.ok(r.all.many > 100, `only ${r.all.many} rays hit more than one triangle`);
  assert.equal(r.rays.same, r.rays.n, `intersectRays: ${JSON.stringify(r.rays)}`);
  assert.ok(r.rays.hits > 200, JSON.stringify(r.rays));
});

test('BatchedMesh: pickPixel equals the ray through the pixel centre (and three.js\'s), pickRect, pickLasso and objectsAt report the batches with batchId', async () => {
  const r = await inPage('0.187', 'batchedPixels', { w: 96, h: 96 });
  assert.ok(r.covered > 1500, `only ${r.covered} pixels covered`);
  assert.equal(r.rayOffEdge, 0, `buffer and ray picks differ away from ID edges: ${JSON.stringify(r.examples)}`);
  assert.equal(r.threeOffEdge, 0, `three.js's ray through a pixel centre away from ID edges hits another triangle: ${JSON.stringify(r.examples)}`);
  assert.ok(r.bufferIsRay >= 0.99 * r.covered, `the ray pick agrees on ${r.bufferIsRay} of ${r.covered} covered pixels`);
  assert.ok(r.agreeThree >= 0.99 * r.threeHits, `${r.agreeThree} of ${r.threeHits} agree with three.js`);
  assert.ok(r.objectsAgree, 'objectsAt gives the objects pickPixel gives');
  assert.ok(r.shown.length >= 15 && r.shown.every((k) => !k.endsWith('/undefined')), JSON.stringify(r.shown));
  assert.deepEqual(r.rect, r.shown, 'pickRect over the view: the instances the pixels show');
  assert.deepEqual(r.lasso, r.shown, 'pickLasso around the view: the instances the pixels show');
  assert.ok(r.rectFaces, 'every face pickRect gives has a batchId, no instanceId');
  assert.ok(r.rectFacesArePixels, 'pickRect\'s faces (object, batchId, faceIndex) are those pickPixel gives');
  assert.ok(r.faceCount > 300, `only ${r.faceCount} faces seen`);
});

test('BatchedMesh: PickerWorker answers as Picker (intersections, pixel picks, intersectRays, pickRect) after each update', async () => {
  const r = await inPage('0.187', 'batchedWorker', { n: 30 });
  assert.equal(r.same, r.rays, JSON.stringify(r.examples));
  assert.ok(r.hits > 300, `only ${r.hits} rays hit`);
  assert.equal(r.samePixels, r.pixels);
  assert.ok(r.raysSame, 'intersectRays');
  assert.ok(r.rectSame, 'pickRect');
});

test('BatchedMesh: install() routes three.js\'s BatchedMesh.raycast through softpick, uninstall() restores it', async () => {
  const r = await inPage('0.187', 'batchedInstall', { n: 40 });
  assert.equal(r.same, r.rays);
  assert.ok(r.hits > 300, `only ${r.hits} rays hit`);
  // (the instances moved after the update: three.js's own raycast sees
  // them elsewhere, the installed one where softpick mirrored them)
  assert.ok(r.staleThree > 20, `only ${r.staleThree} rays tell the installed raycast from three.js's own`);
  assert.ok(r.restored);
});

test('BatchedMesh: three.js 0.160 (no getGeometryIdAt, getGeometryRangeAt) is left out without an error, and its own raycast still answers', async () => {
  const r = await inPage('0.160', 'batchedLeftOut', { n: 40 });
  assert.ok(r.three.startsWith('160'), `the page runs three r${r.three}`);
  assert.equal(r.modern, false);
  assert.ok(r.threeHits > 300, `three.js hits the batches on only ${r.threeHits} rays`);
  assert.equal(r.softpickHits, 0);
  assert.equal(r.installedHits, r.threeHits, 'with install(), three.js\'s own BatchedMesh.raycast answers');
  assert.equal(r.pixel, true, 'pickPixel finds nothing');
});

test('BatchedMesh: bad input throws a clear Error naming the batch, the rest still answers, and the mended batch is mirrored again', async () => {
  const r = await inPage('0.187', 'batchedBadInput');
  assert.ok(r.before > 50, `only ${r.before} rays hit`);
  const want = {
    nanInstance: /^softpick: BatchedMesh "solids" \([-0-9a-f]+\): instance \d+'s matrix \(getMatrixAt\) has an element 0 of NaN$/,
    notAffine: /^softpick: BatchedMesh "solids" \([-0-9a-f]+\): instance \d+'s matrix \(getMatrixAt\) is not affine: its last row is \(0, 0, 0\.5, 1\)/,
    materials: /^softpick: BatchedMesh "flats" \([-0-9a-f]+\): a BatchedMesh with an array of materials is not supported/,
  };
  for (const [k, re] of Object.entries(want)) {
    assert.ok(r[k].thrown && r[k].isError, `${k}: ${JSON.stringify(r[k])}`);
    assert.match(r[k].message, re);
    assert.ok(r[k].afterHits > 0 && r[k].afterHits < r.before, `${k}: the other batch still answers, the bad one is left out: ${JSON.stringify(r[k])}`);
    assert.equal(r[k].mended, r.before, `${k}: mended, it answers as before`);
  }
});

test('BatchedMesh: what the backend refuses is sent again by the next update, which then answers as a fresh picker', async () => {
  const r = await inPage('0.187', 'batchedRefused', { n: 40 });
  assert.deepEqual(r.rounds.map((x) => x.name), ['addGeometry', 'setMatrix', 'setGeometryPositions']);
  for (const x of r.rounds) {
    assert.ok(x.thrown, `${x.name}: the update threw`);
    assert.match(x.message, /^softpick: BatchedMesh "solids" \([-0-9a-f]+\)('s geometry \d+)?: refused for the test/, x.name);
    // (so the refusal mattered: until the next update the answers differ)
    assert.ok(x.differedBefore > 0, `${x.name}: the refusal changed no answer`);
    assert.ok(x.hits > 200, `${x.name}: only ${x.hits} rays hit`);
    assert.equal(x.differAfter, 0, `${x.name}: ${x.differAfter} rays differ from a fresh picker's after the next update`);
  }
});

test('BatchedMesh: its material\'s side and clipping planes, its layers and visibility count as a mesh\'s', async () => {
  const r = await inPage('0.187', 'batchedState', { n: 60 });
  for (const [k, x] of Object.entries(r)) {
    assert.ok(x.threeHits > 200, `${k}: three.js hits only ${x.threeHits} rays`);
    assert.ok(x.agree >= 0.999 * x.threeHits, `${k}: ${x.agree} of ${x.threeHits} agree: ${JSON.stringify(x.examples)}`);
  }
  assert.ok(r.clipped.cut > 30, `the plane cuts the first hit of only ${r.clipped.cut} rays`);
  assert.ok(r.sides.solids > 100 && r.sides.flats > 100, JSON.stringify(r.sides));
  assert.equal(r.layers.solids, 0, 'the solids, on layer 3 only, are not hit by a raycaster on layer 0');
  assert.ok(r.layers.flats > 100, JSON.stringify(r.layers));
  assert.equal(r.hidden.flats, 0, 'the hidden batch is not hit');
  assert.ok(r.hidden.solids > 100, JSON.stringify(r.hidden));
});
