// The browser tests: softpick's npm package in headless Chromium, against
// three.js's own Raycaster (three 0.187 and 0.160), run by `node --test`
// (web/scripts/test.sh, the README's scripts/test).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { browser, pageRunner, THREES, REPO } from './harness.mjs';

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

const inPage = pageRunner(() => b, 'cases.js');

for (const three of Object.keys(THREES)) {
  for (const name of ['obj', 'instanced', 'fox', 'morphcube', 'skinmorph']) {
    test(`first hits agree with three.js ${three}'s Raycaster: ${name}`, async () => {
      const r = await inPage(three, 'compare', { name, n: name === 'fox' ? 80 : 100 });
      assert.ok(r.three.startsWith(three.split('.')[1]), `the page runs three r${r.three}`);
      r.poses.forEach((p, k) => {
        assert.ok(p.threeHits > 100, `pose ${k}: three.js hits only ${p.threeHits} rays`);
        const share = p.agree / p.threeHits;
        assert.ok(share >= 0.999, `pose ${k}: ${p.agree} of ${p.threeHits} agree (${(100 * share).toFixed(3)} %): ${JSON.stringify(p.examples)}`);
        assert.ok(p.onlySoftpick <= Math.max(1, p.threeHits * 0.001), `pose ${k}: ${p.onlySoftpick} rays hit only by softpick`);
        const w = p.worst;
        assert.ok(w.point < 1e-4 && w.faceNormal < 1e-4, `pose ${k}: points or face normals differ: ${JSON.stringify(w)}`);
        assert.equal(w.corners, 0, `pose ${k}: face corners differ`);
        assert.equal(w.materialIndex, 0, `pose ${k}: material indices differ`);
        if (w.barycoord !== undefined) assert.ok(w.barycoord < 1e-3, `pose ${k}: barycoords differ by ${w.barycoord}`);
        if (w.uv !== undefined) assert.ok(w.uv < 1e-3, `pose ${k}: uvs differ by ${w.uv}`);
        if (w.normal !== undefined) assert.ok(w.normal < 1e-3, `pose ${k}: normals differ by ${w.normal}`);
      });
      assert.ok(r.all.sorted, 'every hit of a ray comes nearest first');
      assert.deepEqual(r.all.softpick.length, r.all.three.length, `all hits: ${JSON.stringify(r.all)}`);
    });
  }
}

for (const name of ['fox', 'skinmorph']) {
  test(`ray queries in place (the scene's buffers) give the packed hits of the arrays of their own, bit for bit: ${name}`, async () => {
    const r = await inPage('0.187', 'sharedQuery', { name, n: 40, double: name === 'skinmorph' });
    assert.equal(r.same, r.rays, `${r.rays - r.same} of ${r.rays} rays differ: ${JSON.stringify(r.examples)}`);
    assert.equal(r.sameObjects, r.rays, `${r.rays - r.sameObjects} of ${r.rays} rays' intersections differ: ${JSON.stringify(r.examples)}`);
    assert.ok(r.hits >= 500, `only ${r.hits} of ${r.rays} rays hit`);
    assert.ok(r.many > 10, `only ${r.many} rays have more than one hit`);
    assert.ok(r.moved > 0, 'the packed-hits buffer never moved (no ray had more hits than it had room for)');
  });
}

for (const name of ['fox', 'skinmorph']) {
  test(`a ray on a fresh pose (skinning only what it reaches) answers as the pose applied in full, field for field: ${name}`, async () => {
    const r = await inPage('0.187', 'lazyPose', { name });
    assert.equal(r.same, r.rays, `${r.rays - r.same} of ${r.rays} rays differ: ${JSON.stringify(r.examples)}`);
    assert.ok(r.hits >= r.rays / 4, `only ${r.hits} of ${r.rays} rays hit`);
  });
}

test('pickPixel: the buffer equals the direct pick at every pixel and the ray pick away from ID edges (as the core checks them), and agrees with three.js rays', async () => {
  const r = await inPage('0.187', 'pixels', { w: 96, h: 72 });
  for (const kind of ['perspective', 'orthographic']) {
    const p = r[kind];
    assert.ok(p.covered > 500, `${kind}: only ${p.covered} pixels covered`);
    assert.equal(p.rayOffEdge, 0, `${kind}: buffer and ray picks differ away from ID edges: ${JSON.stringify(p.examples)}`);
    assert.ok(p.bufferIsRay >= 0.99 * p.covered, `${kind}: the ray pick agrees on ${p.bufferIsRay} of ${p.covered} covered pixels`);
    assert.equal(p.bufferIsDirect, p.pixels, `${kind}: buffer and direct picks differ`);
    assert.equal(p.threeOffEdge, 0, `${kind}: three.js's ray through a pixel centre away from ID edges hits another triangle`);
    assert.ok(p.agreeThree >= 0.99 * p.threeHits, `${kind}: ${p.agreeThree} of ${p.threeHits} agree with three.js`);
  }
  assert.equal(r.rect.objects, 1);
  assert.ok(r.rect.faces > 50 && r.rect.pixels === r.perspective.covered, JSON.stringify(r.rect));
  assert.ok(r.lasso.pixels > 0 && r.lasso.pixels < 96 * 72, JSON.stringify(r.lasso));
});

test('PickerWorker answers as Picker (intersections, pixel picks, batches, triangle numbers)', async () => {
  const r = await inPage('0.187', 'worker', { n: 30 });
  assert.equal(r.same, r.rays, JSON.stringify(r.examples));
  assert.equal(r.samePixels, r.pixels);
  assert.equal(r.batchSame, true);
  assert.equal(r.idsSame, true, 'triangleIdsAt: the worker gives the main thread\'s numbers');
  assert.equal(r.idsFaithful, true, 'triangleIdsAt: a number exactly where a pixel pick is, one per (object, face, instance)');
  assert.ok(r.idsSeen > 20, `triangleIdsAt: ${r.idsSeen} triangles seen`);
  assert.match(r.badError ?? '', /index 7 .*out of range/);
  assert.ok(r.afterBad > 0, 'the worker answers after a refused update');
  assert.match(r.afterTerminate, /this PickerWorker was terminated/);
});

test("pickPixel's normal faces the pixel's ray, as three.js's Raycaster gives it", async () => {
  const r = await inPage('0.187', 'pixelNormal');
  assert.ok(r.forwardDot > 0, 'the wall is turned away from the view direction');
  assert.ok(r.softpick && r.three, JSON.stringify(r));
  const dot = r.softpick.reduce((sum, v, i) => sum + v * r.three[i], 0);
  assert.ok(dot > 0.999, `softpick's normal ${r.softpick} is three.js's ${r.three}`);
});

test('a wasm source that is missing or not wasm says so, and the default still loads', async () => {
  const r = await inPage('0.187', 'wasmSource');
  assert.match(r.missing ?? '', /^softpick: could not fetch the WebAssembly module \/web\/pkg\/no-such-module\.wasm: HTTP 404/);
  assert.match(r.notWasm ?? '', /^softpick: the WebAssembly module \/web\/package\.json did not load: .*magic word/);
  assert.match(r.workerMissing ?? '', /could not fetch the WebAssembly module .*HTTP 404/);
  assert.match(r.after, /^\d+\.\d+\.\d+$/);
});

test('bad input throws a clear Error and the picker stays usable', async () => {
  const r = await inPage('0.187', 'badInput');
  assert.ok(r.before > 0);
  const want = {
    nanMatrix: /matrixWorld element 12 of NaN/,
    // (the core's message, naming the mesh, and only it: the mesh the
    // geometry was refused for adds no error of its own)
    indexOutOfRange: /^softpick: Mesh "badIndex" \([-0-9a-f]+\)'s geometry: index 99 at position 2 is out of range: the geometry has 3 vertices$/,
    morphTargetShort: /morph target 0 \(morphAttributes\.position\[0\]\) has 2 vertices, the geometry 3/,
    noPositions: /has no position attribute/,
    nanBone: /bone matrix value/,
    badCamera: /view size/,
    notARaycaster: /needs a three\.js Raycaster/,
  };
  for (const [k, re] of Object.entries(want)) {
    assert.ok(r[k].thrown && r[k].isError, `${k}: ${JSON.stringify(r[k])}`);
    assert.match(r[k].message, re);
    assert.equal(r[k].after, r.before, `${k}: the picker answers as before afterwards`);
  }
  assert.ok(r.mixed.thrown && /index 5/.test(r.mixed.message), JSON.stringify(r.mixed));
  assert.ok(r.mixed.goodHits > 0, 'the good mesh of a partly bad scene still answers');
  for (const k of ['pixelBeforeUpdate', 'raysBeforeUpdate']) {
    assert.ok(r[k].thrown && r[k].isError, `${k}: ${JSON.stringify(r[k])}`);
    assert.match(r[k].message, /call picker\.update\(scene\) before picking/);
  }
  assert.ok(r.afterFree.thrown && r.afterFree.isError, JSON.stringify(r.afterFree));
  assert.match(r.afterFree.message, /this Picker was freed/);
});

test('install() routes three.js raycasts through softpick, uninstall() restores them', async () => {
  const r = await inPage('0.187', 'installed', { n: 30 });
  assert.equal(r.same, r.rays);
  assert.ok(r.restored);
});

test('the core API: typed arrays in; hits, batches, frames, selections out; errors as Errors', async () => {
  const r = await inPage('0.187', 'coreApi');
  assert.equal(r.first.object, true);
  assert.equal(r.first.faceIndex, 0);
  assert.ok(Math.abs(r.first.distance - 5) < 1e-6);
  assert.deepEqual(r.all.map((h) => h[0]), ['a', 'b']);
  assert.ok(Math.abs(r.all[1][2] - 7) < 1e-6);
  assert.ok(Math.abs(r.onlyB - 7) < 1e-6);
  assert.deepEqual(r.batch.faceIndex, [1, 0]);
  assert.equal(r.batch.object[1], -1);
  assert.ok(Math.abs(r.posed - 5) < 1e-6, `the posed quad (moved up 1, right 0.5) is hit at 5, not ${r.posed}`);
  assert.ok(r.pick && r.pick.object, JSON.stringify(r.pick));
  assert.equal(r.pickRay, r.pick.faceIndex);
  assert.ok(r.ids > 100);
  assert.equal(r.rect.objects.length, 1);
  assert.equal(r.builtin.triangles, 362);
  const tl = r.builtin.rules.find((x) => x.rule === 'top-left');
  assert.equal(tl.gaps, 0);
  assert.equal(tl.double, 0);
  assert.ok(r.builtin.rules.find((x) => x.rule === '>0').gaps > 0);
  assert.ok(r.builtinPick);
  for (const [k, m] of Object.entries(r.errors)) assert.ok(m && !m.startsWith('not an Error'), `${k}: ${m}`);
  assert.match(r.errors.badIndex, /out of range/);
  assert.match(r.errors.badMatrix, /element 0 is NaN/);
  assert.match(r.errors.noObject, /object 99 does not exist/);
  assert.match(r.errors.stlModel, /^softpick: part\.stl: STL files are not read by softpick's browser build, which reads OBJ and glTF/);
  assert.equal(r.afterErrors, 0, "the scene answers as before the errors");
  assert.match(r.errors.noFov, /needs `fov`.* or `orthoHeight`/);
  assert.deepEqual(r.freed, {
    scene: 'softpick: this Scene was freed (free() was called on it)',
    frame: 'softpick: this Frame was freed (free() was called on it)',
    camera: 'softpick: this Camera was freed (free() was called on it)',
    renderFreed: 'softpick: this Scene was freed (free() was called on it)',
  });
});

test('the wasm build renders and picks the built-in scene bit for bit as the native build', async () => {
  const file = process.env.SOFTPICK_WEB_PLATFORM ?? join(REPO, 'target', 'web-platform.json');
  assert.ok(existsSync(file), `needs ${file} (or SOFTPICK_WEB_PLATFORM): web/scripts/test.sh writes it (cargo run -p softpick-web --example platform_hashes)`);
  const native = JSON.parse(readFileSync(file, 'utf8'));
  const wasm = await inPage('0.187', 'platform');
  assert.deepEqual(wasm, native);
});

test('clipping planes: what a renderer and a material cut away is not hit, and the ray goes on behind', async () => {
  const r = await inPage('0.187', 'clipping', { n: 80 });
  assert.ok(r.cutHits > 100, `the planes cut the first hit of ${r.cutHits} rays`);
  assert.ok(r.agree >= 0.999 * r.threeHits, `${r.agree} of ${r.threeHits} agree: ${JSON.stringify(r.examples)}`);
  const p = r.pixels;
  assert.ok(p.covered > 300, JSON.stringify(p));
  assert.equal(p.offEdge, 0, `buffer and ray picks differ away from ID and cut edges: ${JSON.stringify(p)}`);
  assert.ok(p.rayAgree >= 0.98 * p.covered && p.threeAgree >= 0.98 * p.covered, JSON.stringify(p));
  assert.equal(r.unclipped, true);
  assert.match(r.intersectionError ?? '', /clipIntersection/);
});
