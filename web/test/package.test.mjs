// The npm package as users get it: its .d.ts files compile under `strict`
// against the README's usage, and `npm pack` installs into a fresh folder
// beside `three` from the npm registry, where its adapter answers (in
// Node.js: the wasm module is read from the package's folder).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEB } from './harness.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

test('the TypeScript types describe the API (tsc --strict)', () => {
  execFileSync(join(WEB, 'node_modules', '.bin', 'tsc'), ['-p', join(WEB, 'test', 'types', 'tsconfig.json')], { stdio: 'pipe' });
});

const CHECK = `
import * as THREE from 'three';
import { Picker, PickerWorker } from 'softpick/three';
import { version } from 'softpick';

const scene = new THREE.Scene();
const box = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1, 4, 4, 4), new THREE.MeshBasicMaterial());
box.position.set(0.2, 0.1, 0);
box.rotation.set(0.3, 0.5, 0.1);
const inst = new THREE.InstancedMesh(new THREE.SphereGeometry(0.3, 16, 8), new THREE.MeshBasicMaterial(), 3);
for (let i = 0; i < 3; i++) inst.setMatrixAt(i, new THREE.Matrix4().makeTranslation(-1.5 + 1.5 * i, 1.2, -1));
scene.add(box, inst);
scene.updateMatrixWorld(true);
inst.computeBoundingSphere();

const picker = await Picker.create();
picker.update(scene, { renderer: { clippingPlanes: [], localClippingEnabled: false } }); // (the README's form; Node has no renderer)
const camera = new THREE.PerspectiveCamera(50, 1, 0.1, 100);
camera.position.set(0, 0.5, 5);
camera.lookAt(0, 0.3, 0);
camera.updateMatrixWorld(true);
const rc = new THREE.Raycaster();
let hits = 0, agree = 0;
for (let j = 0; j < 40; j++) for (let i = 0; i < 40; i++) {
  rc.setFromCamera(new THREE.Vector2((i + 0.5) / 20 - 1, 1 - (j + 0.5) / 20), camera);
  const t = rc.intersectObjects(scene.children, true)[0];
  const s = picker.intersectObjects(rc, scene.children, true)[0];
  if (!t) continue;
  hits++;
  if (s && s.object === t.object && s.faceIndex === t.faceIndex && s.instanceId === t.instanceId && Math.abs(s.distance - t.distance) <= 1e-5 * t.distance) agree++;
}
const px = picker.pickPixel(camera, 100, 100, 200, 200);
// what Node.js cannot do, and a freed picker, say so
const message = async (f) => { try { await f(); return null; } catch (e) { return e.message; } };
const worker = await message(() => PickerWorker.create());
picker.free();
const freed = await message(() => picker.pickPixel(camera, 100, 100, 200, 200));
console.log(JSON.stringify({ three: THREE.REVISION, version: version(), hits, agree, pixel: px && px.object === box, worker, freed }));
`;

test('npm pack installs beside three from the registry, and its adapter answers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'softpick-pack-'));
  try {
    execFileSync(npm, ['pack', '--pack-destination', dir], { cwd: WEB, stdio: 'pipe' });
    const tgz = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
    assert.ok(tgz, 'npm pack made a tarball');
    // the licence texts package.json's "MIT OR Apache-2.0" names, as the
    // repository's (web/ holds a copy for npm pack)
    for (const lic of ['LICENSE-MIT', 'LICENSE-APACHE']) {
      const packed = execFileSync('tar', ['-xzOf', join(dir, tgz), `package/${lic}`]);
      assert.deepEqual(packed, await readFile(join(WEB, '..', lic)), lic);
    }
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'pack-check', private: true, type: 'module' }));
    execFileSync(npm, ['install', '--no-audit', '--no-fund', `./${tgz}`, 'three@0.187.0'], { cwd: dir, stdio: 'pipe' });
    // the README npm shows links and embeds only what the package holds
    // (package.json names no repository, so npm cannot resolve the others)
    const installed = join(dir, 'node_modules', 'softpick');
    const readme = await readFile(join(installed, 'README.md'), 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^(https?:|#|mailto:)/.test(t));
    const missing = targets.filter((t) => !existsSync(join(installed, t.split('#')[0])));
    assert.deepEqual(missing, [], 'the packed README links to files outside the package');
    await writeFile(join(dir, 'check.mjs'), CHECK);
    const out = JSON.parse(execFileSync(process.execPath, ['check.mjs'], { cwd: dir, encoding: 'utf8' }));
    assert.equal(out.three, '187');
    assert.match(out.version, /^\d+\.\d+\.\d+$/);
    assert.ok(out.hits > 100, `three.js hits ${out.hits} rays`);
    assert.equal(out.agree, out.hits);
    assert.equal(out.pixel, true);
    assert.match(out.worker ?? '', /PickerWorker needs Web Workers/);
    assert.match(out.freed ?? '', /this Picker was freed/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
