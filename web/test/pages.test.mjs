// The demo pages' tests (web/pages, served by web/scripts/serve.mjs): each
// page opened in headless Chromium and driven as a visitor would, run by
// `node --test` (web/scripts/test.sh). Each test writes a screenshot of its
// page to target/web-pages/; with UPDATE_SHOTS=1 into web/pages/shots/,
// the pictures the README shows.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve, WEB, REPO } from '../scripts/serve.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const SHOTS = process.env.UPDATE_SHOTS ? join(WEB, 'pages', 'shots') : join(REPO, 'target', 'web-pages');

let server, context, profile;
const logs = [];

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the page tests need Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set CHROMIUM)`);
  }
  if (!existsSync(join(WEB, 'pkg', 'softpick_web_bg.wasm'))) {
    throw new Error('the page tests need the wasm build: run web/scripts/build.sh');
  }
  server = await serve();
  profile = mkdtempSync(join(tmpdir(), 'softpick-pages-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 760 },
  });
  mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await context?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Opens a page and waits until it says it is ready (or fails with its console). */
async function open(name, query = '') {
  const page = await context.newPage();
  page.on('console', (m) => logs.push(`[${name} ${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[${name} pageerror] ${e.message}`));
  await page.goto(`${server.url}/web/pages/${name}.html${query}`);
  try {
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  } catch (e) {
    e.message += `\n${logs.slice(-20).join('\n')}`;
    throw e;
  }
  return page;
}

/**
 * A screenshot of the page, scaled down in the browser to `scale` and
 * written as a PNG of at most 100 KB (the README's pictures).
 */
async function shot(page, name, scale = 0.5) {
  await page.evaluate(() => window.scrollTo(0, 0));
  const png = (await page.screenshot({ type: 'png' })).toString('base64');
  const small = await page.evaluate(async ({ png, scale }) => {
    const img = new Image();
    img.src = `data:image/png;base64,${png}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = Math.round(img.width * scale);
    c.height = Math.round(img.height * scale);
    const g = c.getContext('2d');
    g.imageSmoothingQuality = 'high';
    g.drawImage(img, 0, 0, c.width, c.height);
    return c.toDataURL('image/png').split(',')[1];
  }, { png, scale });
  const file = join(SHOTS, `${name}.png`);
  writeFileSync(file, Buffer.from(small, 'base64'));
  const kb = statSync(file).size / 1024;
  assert.ok(kb <= 100, `${file} is ${kb.toFixed(0)} KB`);
}

const text = (page, sel) => page.locator(sel).innerText();

/** `softpick rules --json` of the built-in scene (the command line's own run). */
function cliRules() {
  const dir = mkdtempSync(join(tmpdir(), 'softpick-rules-'));
  try {
    const r = spawnSync('cargo', ['run', '--release', '--quiet', '--bin', 'softpick', '--', 'rules', '--json', '--output', join(dir, 'rules.png')],
      { cwd: REPO, encoding: 'utf8' });
    if (r.error) throw new Error(`the pick test's check needs cargo to run \`softpick rules\`: ${r.error.message}`);
    assert.equal(r.status, 0, `softpick rules failed: ${r.stderr}`);
    return r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How many of the 360×360 ray picks of the built-in scene equal the
 * buffer's, as `softpick sweep --method ray` prints them (the same scene,
 * camera and fill rule as the pick test page). */
function cliRayAgreement() {
  const r = spawnSync('cargo', ['run', '--release', '--quiet', '--bin', 'softpick', '--', 'sweep', '--method', 'ray', '--reps', '1'],
    { cwd: REPO, encoding: 'utf8' });
  if (r.error) throw new Error(`the pick test's check needs cargo to run \`softpick sweep\`: ${r.error.message}`);
  assert.equal(r.status, 0, `softpick sweep failed: ${r.stderr}`);
  const m = r.stdout.match(/^ray\s.*?(\d+)\/129600/m);
  assert.ok(m, `no ray line in softpick sweep's output:\n${r.stdout}`);
  return Number(m[1]);
}

test('pick test page: each fill rule shows the gaps and double claims `softpick rules` prints; the sweep shows three times', async () => {
  const cli = cliRules();
  assert.equal(cli.length, 4, JSON.stringify(cli));
  const page = await open('picktest');
  try {
    const names = { '>0': 'strict', '>=0': 'inclusive', '>=0 area': 'area-guard', 'top-left': 'top-left' };
    const maps = new Set();
    for (const [rule, name] of Object.entries(names)) {
      await page.locator(`input[name=rule][value="${rule}"]`).check();
      await page.waitForSelector(`body[data-rule="${rule}"]`);
      const want = cli.find((r) => r.rule === name);
      assert.ok(want, `softpick rules printed no ${name} line`);
      assert.equal(Number(await text(page, '#rule-gaps')), want.gaps, `${rule}: gap pixels`);
      assert.equal(Number(await text(page, '#rule-double')), want.double, `${rule}: double claims`);
      const row = (await text(page, `#counts tr[data-rule="${rule}"]`)).split('\t').map((s) => s.trim());
      assert.deepEqual(row.slice(1).map((v, i) => (i ? Number(v) : v)), [name, want.covered, want.gaps, want.double, want.false_claims]);
      assert.equal(await page.locator(`#counts tr[data-rule="${rule}"]`).getAttribute('class'), 'current');
      maps.add(await page.evaluate(() => document.getElementById('pickmap').toDataURL()));
    }
    // the strict rule's gaps and the inclusive rules' claims change the picture
    assert.ok(maps.size >= 3, `only ${maps.size} distinct pick maps for four rules`);
    assert.ok(cli.find((r) => r.rule === 'strict').gaps > 0 && cli.find((r) => r.rule === 'top-left').gaps === 0);

    // hovering a covered pixel names a triangle
    const box = await page.locator('#pickmap').boundingBox();
    await page.mouse.move(box.x + 180.5, box.y + 330.5);
    assert.match(await text(page, '#hover'), /pixel \(18\d, 33\d\): object \d+, triangle \d+, distance [\d.]+, picked in [\d.]+ (µs|ms)/);
    await page.mouse.move(box.x + 180.5, box.y + 180.5);
    assert.match(await text(page, '#hover'), /pixel \(18\d, 18\d\): nothing/);

    await page.locator('#sweep').click();
    await page.waitForSelector('body[data-sweep="done"]', { timeout: 120_000 });
    for (const method of ['buffer', 'direct', 'ray']) {
      const row = page.locator(`#sweep-table tr[data-method="${method}"]`);
      const ms = Number(await row.locator('.t').getAttribute('data-ms'));
      assert.ok(ms > 0 && Number.isFinite(ms), `${method}: time ${ms}`);
      assert.match(await row.locator('.t').innerText(), /^[\d.]+ ms$/);
      const agree = Number(await row.locator('.agree').getAttribute('data-agree'));
      // top-left is on: the direct pick equals the buffer everywhere, the ray pick off ID edges
      if (method === 'ray') assert.equal(agree, cliRayAgreement(), `ray agrees at ${agree} pixels, as \`softpick sweep\` counts them`);
      else assert.equal(agree, 360 * 360, `${method} agrees at ${agree} pixels`);
    }
    assert.equal(await page.locator('#error').isHidden(), true);
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(page, 'picktest');
  } finally {
    await page.close();
  }
});

/**
 * In the page: softpick's own pick of the Fox as its core loads and poses
 * it (its glTF loader, its animation sampling), for the inspector's camera:
 * per pixel the triangle (−1: none). The test fixture's .gltf is packed
 * into a .glb first (its buffer inline; its texture left out, as picking
 * needs none).
 */
async function corePickMap(page, animation, time) {
  return page.evaluate(async ({ animation, time }) => {
    const { Scene, Camera, Frame } = await import('softpick');
    const json = await (await fetch('/web/test/fixtures/Fox/Fox.gltf')).json();
    const bin = new Uint8Array(await (await fetch('/web/test/fixtures/Fox/Fox.bin')).arrayBuffer());
    json.buffers = [{ byteLength: bin.length }];
    delete json.images; delete json.textures; delete json.samplers;
    for (const m of json.materials ?? []) delete m.pbrMetallicRoughness?.baseColorTexture;
    const enc = new TextEncoder().encode(JSON.stringify(json));
    const jlen = (enc.length + 3) & ~3, blen = (bin.length + 3) & ~3;
    const glb = new Uint8Array(12 + 8 + jlen + 8 + blen);
    const dv = new DataView(glb.buffer);
    dv.setUint32(0, 0x46546c67, true); dv.setUint32(4, 2, true); dv.setUint32(8, glb.length, true);
    dv.setUint32(12, jlen, true); dv.setUint32(16, 0x4e4f534a, true);
    glb.fill(0x20, 20, 20 + jlen); glb.set(enc, 20);
    dv.setUint32(20 + jlen, blen, true); dv.setUint32(24 + jlen, 0x004e4942, true);
    glb.set(bin, 28 + jlen);
    const scene = Scene.load(glb, 'Fox.glb');
    scene.poseAnimation(time, animation);
    const { camera, W, H } = window.inspector;
    const cam = Camera.fromMatrices(camera.matrixWorldInverse.elements, camera.projectionMatrix.elements, W, H);
    const frame = new Frame().render(scene, cam);
    const ids = frame.ids();
    const faces = Array.from(ids, (g) => (g ? frame.describe(g - 1).faceIndex : -1));
    frame.free(); cam.free(); scene.free();
    return { faces, W, H };
  }, { animation, time });
}

/** The pixel nearest the view's centre whose 7 × 7 neighbourhood is one triangle in `faces`. */
function innerPixel({ faces, W, H }) {
  let best = null;
  for (let y = 3; y < H - 3; y++) {
    for (let x = 3; x < W - 3; x++) {
      const f = faces[y * W + x];
      if (f < 0) continue;
      let same = true;
      for (let dy = -3; dy <= 3 && same; dy++) for (let dx = -3; dx <= 3 && same; dx++) same = faces[(y + dy) * W + x + dx] === f;
      const d = (x - W / 2) ** 2 + (y - H / 2) ** 2;
      if (same && (!best || d < best.d)) best = { x, y, f, d };
    }
  }
  return best;
}

test('glTF inspector: the Fox paused at a time, the hovered triangle is the core\'s pick of that pose; click, box, ID buffer, comparison; a bad file shows an error and the page keeps working', async () => {
  const page = await open('inspector');
  try {
    await page.waitForSelector('body[data-model="Fox.gltf"]');
    const gl = await page.locator('#gl').boundingBox();
    // choose Walk, pause, scrub to 0.4 s
    const walk = await page.locator('#anim option', { hasText: 'Walk' }).getAttribute('value');
    await page.selectOption('#anim', walk);
    await page.locator('#pause').click();
    await page.waitForSelector('body[data-paused="true"]');
    await page.locator('#time').evaluate((el) => { el.value = '0.4'; el.dispatchEvent(new Event('input')); });
    assert.equal(await page.evaluate(() => [window.inspector.animation, window.inspector.time].join()), 'Walk,0.4');

    const core = await corePickMap(page, 'Walk', 0.4);
    const covered = core.faces.filter((f) => f >= 0).length;
    assert.ok(covered > 5000, `the core's pick of the Fox covers only ${covered} pixels`);
    const p = innerPixel(core);
    assert.ok(p, 'no pixel inside one triangle of the core\'s pick');
    await page.mouse.move(gl.x + p.x + 0.5, gl.y + p.y + 0.5);
    await page.waitForFunction(({ x, y }) => {
      const d = document.getElementById('hover').dataset;
      return d.x === String(x) && d.y === String(y);
    }, { x: p.x, y: p.y });
    const hover = await page.locator('#hover').evaluate((el) => ({ ...el.dataset, text: el.innerText }));
    assert.equal(Number(hover.face), p.f, `pixel (${p.x}, ${p.y}): the page reports triangle ${hover.face}, the core's pick of the pose is ${p.f}`);
    assert.match(hover.text, /triangle \d+\s+distance [\d.]+, picked in [\d.]+ (µs|ms)/);
    assert.ok(Number(hover.distance) > 0);
    // the comparison panel: every picker names the same triangle at a pixel inside it
    for (const k of ['buffer', 'ray', 'three', 'bvh']) {
      const row = page.locator(`#compare tr[data-k="${k}"]`);
      assert.equal(Number(await row.locator('.f').getAttribute('data-face')), p.f, `${k} answers another triangle`);
      assert.match(await row.locator('.t').innerText(), /^[\d.]+ (µs|ms)$/);
    }

    // click selects, a second click releases
    await page.mouse.click(gl.x + p.x + 0.5, gl.y + p.y + 0.5);
    assert.equal(Number(await page.locator('#selected').getAttribute('data-face')), p.f);
    assert.match(await text(page, '#selected'), new RegExp(`triangle ${p.f}$`));
    await page.mouse.click(gl.x + p.x + 0.5, gl.y + p.y + 0.5);
    assert.equal(await page.locator('#selected').getAttribute('data-face'), '-1');
    await page.mouse.click(gl.x + p.x + 0.5, gl.y + p.y + 0.5);

    // drag: a box selection around the view's middle
    await page.mouse.move(gl.x + 200, gl.y + 120);
    await page.mouse.down();
    await page.mouse.move(gl.x + 400, gl.y + 300, { steps: 5 });
    await page.mouse.up();
    const box = await page.locator('#boxsel').evaluate((el) => ({ ...el.dataset }));
    assert.equal(Number(box.objects), 1, JSON.stringify(box));
    assert.ok(Number(box.faces) > 10 && Number(box.pixels) > 1000, JSON.stringify(box));

    // the ID buffer as colours
    await page.locator('#ids').check();
    await page.waitForFunction(() => {
      const c = document.getElementById('idbuf');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]) n++;
      return n > 5000;
    });
    await page.locator('#ids').uncheck();
    await page.mouse.move(gl.x + p.x + 0.5, gl.y + p.y + 0.5);
    await shot(page, 'inspector');

    // a bad file: a visible error naming it; the Fox stays and answers
    await page.setInputFiles('#file', { name: 'broken.glb', mimeType: 'model/gltf-binary', buffer: Buffer.from('glTF\u0002\u0000\u0000\u0000 not a real glb at all') });
    await page.waitForSelector('body[data-errors="1"]');
    assert.equal(await page.locator('#error').isVisible(), true);
    assert.match(await text(page, '#error'), /^broken\.glb: /);
    assert.equal(await page.evaluate(() => document.body.dataset.model), 'Fox.gltf');
    await page.mouse.move(gl.x + 5, gl.y + 5);
    await page.mouse.move(gl.x + p.x + 0.5, gl.y + p.y + 0.5);
    await page.waitForFunction((x) => document.getElementById('hover').dataset.x === String(x), p.x);
    assert.equal(Number(await page.locator('#hover').getAttribute('data-face')), p.f, 'the Fox answers as before the bad file');
    // not a model at all
    await page.setInputFiles('#file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await page.waitForSelector('body[data-errors="2"]');
    assert.match(await text(page, '#error'), /notes\.txt: choose a \.glb or \.gltf file/);

    // a drop of a .gltf with its .bin
    await page.evaluate(async () => {
      const dt = new DataTransfer();
      for (const f of ['AnimatedMorphCube.gltf', 'AnimatedMorphCube.bin']) {
        const bytes = await (await fetch(`/web/test/fixtures/AnimatedMorphCube/${f}`)).arrayBuffer();
        dt.items.add(new File([bytes], f));
      }
      document.getElementById('view').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.waitForSelector('body[data-loads="2"]');
    assert.equal(await page.evaluate(() => document.body.dataset.model), 'AnimatedMorphCube.gltf');
    await page.selectOption('#sample', { index: 0 });
    await page.waitForSelector('body[data-loads="3"]');
    assert.equal(await page.evaluate(() => document.body.dataset.model), 'Fox.gltf');

    // and another model loads after the errors, from a file with its buffer beside it
    const dir = join(WEB, 'test', 'fixtures', 'AnimatedMorphCube');
    await page.setInputFiles('#file', [join(dir, 'AnimatedMorphCube.gltf'), join(dir, 'AnimatedMorphCube.bin')]);
    await page.waitForSelector('body[data-loads="4"]');
    assert.equal(await page.evaluate(() => document.body.dataset.model), 'AnimatedMorphCube.gltf');
    assert.equal(await page.locator('#error').isHidden(), true);
    await page.mouse.move(gl.x + 5, gl.y + 5);
    await page.mouse.move(gl.x + gl.width / 2, gl.y + gl.height / 2);
    await page.waitForFunction(() => document.getElementById('hover').dataset.x === '360');
    assert.ok(Number(await page.locator('#hover').getAttribute('data-face')) >= 0, 'the cube is hit at the view\'s centre');
  } finally {
    await page.close();
  }
});

/** Holds `key` until `done(state)` holds (or `ms` pass); returns the last state. */
async function holdUntil(page, key, done, ms = 20_000) {
  await page.keyboard.down(key);
  const t0 = Date.now();
  let s;
  try {
    for (;;) {
      s = await page.evaluate(() => window.playground.state());
      if (done(s) || Date.now() - t0 > ms) return s;
      await page.waitForTimeout(50);
    }
  } finally {
    await page.keyboard.up(key);
  }
}

test('collision playground: select a sphere, hold W until it meets the wall and stops, the red line ends on the wall, G stops; two spheres stop at each other', async () => {
  const page = await open('playground');
  try {
    const gl = await page.locator('#gl').boundingBox();
    const at = (name) => page.evaluate((n) => window.playground.screenOf(n), name);
    const state = () => page.evaluate(() => window.playground.state());
    const a0 = await at('sphere_a');
    await page.mouse.click(gl.x + a0.x, gl.y + a0.y);
    let s = await state();
    assert.deepEqual(s.map((x) => x.selected), [true, false], 'a click on sphere_a selects it');
    assert.ok(s[0].lines.blue, 'the selected sphere has its blue forward line');
    // still: the red line looks along forward (+X), at the wall
    assert.equal(s[0].ahead?.name, 'wall', JSON.stringify(s[0].ahead));
    assert.equal(await page.locator('#spheres tr[data-name="sphere_a"]').getAttribute('class'), 'current');

    // hold W: speed builds, the green line grows, then the wall stops the sphere
    let maxSpeed = 0;
    let green = 0;
    s = await holdUntil(page, 'KeyW', (st) => {
      maxSpeed = Math.max(maxSpeed, st[0].speed);
      if (st[0].lines.green) {
        const g = st[0].lines.green;
        green = Math.max(green, Math.hypot(g[3] - g[0], g[4] - g[1], g[5] - g[2]));
      }
      return st[0].latched;
    });
    assert.ok(s[0].latched, `sphere_a never stopped: ${JSON.stringify(s[0])}`);
    assert.ok(maxSpeed > 0.5 && green > 0.5, `speed built up to ${maxSpeed}, the green line to ${green}`);
    const x = s[0].centre[0];
    const wallFace = -2.01;
    assert.ok(x <= wallFace - 1 && x > wallFace - 1 - 0.05, `sphere_a stopped with its centre at x = ${x}, not just short of the wall (x = ${wallFace} − radius 1)`);
    assert.ok(Math.abs(s[0].centre[1] - 1.05) < 1e-4 && Math.abs(s[0].centre[2] - 2) < 1e-4, `sphere_a left its lane: ${s[0].centre}`);
    assert.ok((await page.evaluate(() => window.playground.log())).some((l) => /^collide sphere_a with wall at \(-2\.01/.test(l)));
    // the red line: from the centre to the first other object ahead, the wall's face
    const red = s[0].lines.red;
    assert.ok(red, 'the red line is drawn');
    assert.ok(Math.abs(red[3] - wallFace) < 1e-3 && Math.abs(red[4] - 1.05) < 1e-3, `the red line ends at ${red.slice(3)}, not on the wall`);
    assert.equal(s[0].ahead.name, 'wall');
    await shot(page, 'playground');

    // G stops every sphere
    await page.keyboard.down('KeyD');
    await page.waitForTimeout(400);
    await page.keyboard.up('KeyD');
    assert.ok((await state())[0].speed > 0, 'D pushes sphere_a sideways');
    await page.keyboard.press('KeyG');
    await page.waitForTimeout(100);
    s = await state();
    assert.equal(s[0].speed, 0, 'G stops sphere_a');
    assert.equal(s[0].lines.green, null, 'no motion line once stopped');
    const after = s[0].centre;
    await page.waitForTimeout(300);
    assert.deepEqual((await state())[0].centre, after, 'a stopped sphere stays');

    // Space lifts it, Ctrl brings it down until the floor stops it
    const y0 = (await state())[0].centre[1];
    await page.keyboard.down('Space');
    await page.waitForTimeout(500);
    await page.keyboard.up('Space');
    await page.keyboard.press('KeyG');
    const y1 = (await state())[0].centre[1];
    assert.ok(y1 > y0 + 0.1, `Space lifted sphere_a from y = ${y0} to ${y1} only`);
    const aheadDown = new Set();
    s = await holdUntil(page, 'ControlLeft', (st) => {
      if (st[0].speed > 0 && st[0].ahead) aheadDown.add(st[0].ahead.name);
      return st[0].latched;
    });
    assert.ok(s[0].latched, 'the floor stops sphere_a');
    assert.deepEqual([...aheadDown], ['floor'], 'moving down, the red line points at the floor');
    assert.ok(s[0].centre[1] >= 1 && s[0].centre[1] < 1.05, `sphere_a stopped at y = ${s[0].centre[1]}, not just above the floor`);
    await page.keyboard.press('KeyG');

    // select sphere_b too: both move; sphere_b stops at sphere_a
    const b0 = await at('sphere_b');
    await page.mouse.click(gl.x + b0.x, gl.y + b0.y);
    assert.deepEqual((await state()).map((x) => x.selected), [true, true]);
    s = await holdUntil(page, 'KeyW', (st) => st[1].latched && st[1].speed === 0);
    const gap = Math.hypot(...s[0].centre.map((v, i) => v - s[1].centre[i]));
    assert.ok(s[1].latched, `sphere_b never stopped: ${JSON.stringify(s[1])}`);
    assert.ok(gap > 1.8 && gap < 2.1, `the spheres' centres are ${gap} apart, not touching`);
    assert.ok((await page.evaluate(() => window.playground.log())).some((l) => /^collide sphere_b with sphere_a/.test(l)));
    // a click releases
    const b1 = await at('sphere_b');
    await page.mouse.click(gl.x + b1.x, gl.y + b1.y);
    assert.equal((await state())[1].selected, false, 'a second click releases sphere_b');
    assert.equal(await page.locator('#error').isHidden(), true);
  } finally {
    await page.close();
  }
});

test('collision playground: ground following carries a sphere up the ramp and along the step', async () => {
  const page = await open('playground');
  try {
    const gl = await page.locator('#gl').boundingBox();
    const b0 = await page.evaluate(() => window.playground.screenOf('sphere_b'));
    await page.mouse.click(gl.x + b0.x, gl.y + b0.y);
    await page.keyboard.press('KeyU');
    assert.equal(await page.locator('#ground').isChecked(), true);
    // A: left of forward (+X) is −Z, into the ramp's lane (z = −3)
    let s = await holdUntil(page, 'KeyA', (st) => st[1].centre[2] <= -2.6);
    await page.keyboard.press('KeyG');
    await page.waitForTimeout(300);
    s = await page.evaluate(() => window.playground.state());
    const z = s[1].centre[2];
    assert.ok(z < -2 && z > -4, `sphere_b is at z = ${z}, not in the ramp's lane`);
    assert.ok(Math.abs(s[1].centre[1] - 1.05) < 0.06, `on the floor the sphere stays about two skins above it: y = ${s[1].centre[1]}`);
    // W: up the ramp (x −10 → −6, y 0 → 1) onto the step (1 high, x −6 → −2)
    const path = [];
    s = await holdUntil(page, 'KeyW', (st) => { path.push(st[1].centre.slice()); return st[1].centre[0] >= -3.5 || st[1].latched; });
    assert.ok(!s[1].latched, `the ramp stopped sphere_b at ${s[1].centre}`);
    const y = s[1].centre[1];
    assert.ok(y > 1.95 && y < 2.1, `on the step the sphere's centre is at y = ${y}, not one radius above its top`);
    const onRamp = path.filter((c) => c[0] > -9.5 && c[0] < -7);
    assert.ok(onRamp.length > 0 && onRamp.every((c) => c[1] > 1.05 && c[1] < 2.1), `the sphere did not climb the ramp: ${JSON.stringify(onRamp)}`);
    assert.equal(await page.locator('#error').isHidden(), true);
  } finally {
    await page.close();
  }
});

test("collision playground: its scene is softpick view --builtin collide's, mesh for mesh", async () => {
  const r = spawnSync('cargo', ['run', '--release', '--quiet', '-p', 'softpick-web', '--example', 'collide_scene'], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`the playground's scene check needs cargo (the collide_scene example): ${r.error.message}`);
  assert.equal(r.status, 0, `the collide_scene example failed: ${r.stderr}`);
  const core = JSON.parse(r.stdout);
  const page = await open('playground');
  try {
    const mine = await page.evaluate(() => window.playground.meshes());
    assert.deepEqual(mine.map((m) => m.name), core.map((m) => m.name), 'the meshes and their order');
    for (const [k, c] of core.entries()) {
      const m = mine[k];
      if (c.name.startsWith('pick_')) {
        // three.js's OBJLoader gives the pick test's meshes unindexed: compare the triangles' corners
        const corners = (x) => {
          const out = [];
          for (let t = 0; t < x.triangles.length; t++) { const i = x.triangles[t]; out.push(x.positions.slice(3 * i, 3 * i + 3)); }
          return out;
        };
        const a = corners(m), b = corners(c);
        assert.equal(a.length, b.length, `${c.name}: triangle corners`);
        const worst = Math.max(0, ...a.map((p, i) => Math.max(...p.map((v, j) => Math.abs(v - b[i][j])))));
        assert.ok(worst < 1e-5, `${c.name}: a corner is ${worst} away from the core's`);
      } else {
        assert.deepEqual(m.triangles, c.triangles, `${c.name}: triangles`);
        assert.equal(m.positions.length, c.positions.length, `${c.name}: vertices`);
        const worst = Math.max(...m.positions.map((v, i) => Math.abs(v - c.positions[i])));
        assert.ok(worst < 1e-5, `${c.name}: a vertex is ${worst} away from the core's`);
      }
    }
  } finally {
    await page.close();
  }
});
