#!/usr/bin/env node
// The browser benchmark: softpick/three against three.js 0.187's Raycaster
// and three-mesh-bvh 0.9.17 in headless Chromium (one page, the harness of
// the tests, cross-origin isolated for 5 µs timers), and the wasm module's
// size and load time. Prints the BENCHMARKS.md table (markdown) and writes
// the raw results as JSON (bench/results.json, or --out FILE).
//
// usage: node bench/run.mjs [--frames N (100)] [--models DIR] [--out FILE] [--fox | --fox-cold]
//                           [--cpuprofile FILE]
// (from web/, after scripts/build.sh; DIR default ../shared/models from the
// repository root: bunny_3k, snowden_bust and city_san_francisco are required;
// --fox: only the Fox's rows, ~10 s, no models needed; --fox-cold: where a
// cold Fox frame's time goes, after warm, data-evicting and peers' work;
// --cpuprofile FILE: a CPU profile of the last part run, e.g. with --fox-cold)
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { browser, REPO, WEB } from '../test/harness.mjs';

const args = process.argv.slice(2);
const opt = (f, d) => { const i = args.indexOf(f); return i >= 0 ? args[i + 1] : d; };
// (100 frames: the Fox's 1-pick frame is ~0.03-0.09 ms, near the timer's
// 5 µs steps, and the median of 30 moved by 2x from run to run)
const frames = parseInt(opt('--frames', '100'), 10);
const modelsDir = resolve(REPO, opt('--models', '../shared/models'));
const out = opt('--out', join(WEB, 'bench', 'results.json'));
const foxOnly = args.includes('--fox');
const foxCold = args.includes('--fox-cold');
const MODELS = foxOnly || foxCold ? [] : ['bunny_3k', 'snowden_bust', 'city_san_francisco'];
for (const m of MODELS) {
  if (!existsSync(join(modelsDir, `${m}.obj`))) {
    console.error(`bench: needs ${m}.obj in ${modelsDir} (--models DIR)`);
    process.exit(2);
  }
}

const wasm = await readFile(join(WEB, 'pkg', 'softpick_web_bg.wasm'));
const b = await browser({ extraRoots: { '/shared-models/': modelsDir }, isolate: true });
const cpuprofile = opt('--cpuprofile', null);
const run = async (fn, a) => {
  const page = await b.page('0.187');
  // (--cpuprofile: Chromium's sampling profiler, every 25 µs, over the run;
  // the file opens in DevTools' Performance panel)
  const cdp = cpuprofile ? await page.context().newCDPSession(page) : null;
  try {
    if (cdp) {
      await page.evaluate(() => import('/web/bench/bench.js'));
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 25 });
      await cdp.send('Profiler.start');
    }
    const r = await page.evaluate(async ({ fn, a }) => (await import('/web/bench/bench.js'))[fn](a), { fn, a });
    if (cdp) await writeFile(cpuprofile, JSON.stringify((await cdp.send('Profiler.stop')).profile));
    return r;
  } finally {
    await page.close();
  }
};
const results = { wasm: { bytes: wasm.length, gzip_bytes: gzipSync(wasm, { level: 9 }).length } };
try {
  const loads = [];
  for (let k = 0; k < 5; k++) loads.push(await run('load', {}));
  results.wasm.load_ms = loads.sort((x, y) => x - y)[2];
  if (foxCold) {
    process.stderr.write('the Fox, cold and warm…\n');
    results.foxCold = await run('foxCold', { frames: parseInt(opt('--frames', '600'), 10) });
  }
  if (!foxCold) {
    process.stderr.write('skinned meshes…\n');
    results.skinned = await run('skinnedRows', { frames, n: 32, fox: foxOnly });
  }
  if (!foxOnly && !foxCold) {
    process.stderr.write('pickPixel…\n');
    results.pixels = await run('pixelRows', { frames, width: 1280, height: 720 });
    process.stderr.write('static meshes…\n');
    results.static = await run('staticRows', { models: MODELS.map((m) => [m, `/shared-models/${m}.obj`]), n: 256, reps: 3 });
  }
} catch (e) {
  console.error(e.message, b.logs.slice(-20).join('\n'));
  process.exitCode = 1;
} finally {
  await b.close();
}
await writeFile(out, JSON.stringify(results, null, 1));

const ms = (v) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const lines = [];
for (const s of results.skinned ?? []) {
  lines.push(`| ${s.label}, ${s.triangles.toLocaleString('en')} triangles | 1 pick | 1,024 picks (32×32) | same face as softpick |`);
  lines.push('|---|---:|---:|---:|');
  const sp = s.rows.softpick;
  for (const [k, r] of Object.entries(s.rows)) {
    const calls = r.grid_calls_ms !== undefined ? ` (1,024 calls: ${ms(r.grid_calls_ms)})` : '';
    const q = (v) => (v >= 10 ? v.toFixed(0) : v.toFixed(1));
    const x = k === 'softpick' ? '' : ` (${q(r.one_ms / sp.one_ms)}× / ${q(r.grid_ms / sp.grid_ms)}×)`;
    const same = s.agree.same[k];
    const agree = k === 'softpick' ? '' : `${((100 * same) / s.agree.of[k]).toFixed(2)} %`;
    lines.push(`| ${k}${x} | ${ms(r.one_ms)} ms | ${ms(r.grid_ms)} ms${calls} | ${agree} |`);
  }
  lines.push('');
}
if (results.foxCold) {
  lines.push('| Fox update + 1 pick, after | sync µs (mean) | pose call µs | pick µs | whole step, median µs |', '|---|---:|---:|---:|---:|');
  const u = (v) => v.toFixed(1);
  for (const r of results.foxCold) lines.push(`| ${r.label} | ${u(r.sync_us)} | ${u(r.pose_us)} | ${u(r.pick_us)} | ${u(r.median_us)} |`);
  lines.push('');
}
for (const p of results.pixels ?? []) {
  lines.push(`- ${p.label}, update + pickPixel at ${p.width}×${p.height}: ${ms(p.total_ms)} ms (update ${ms(p.update_ms)}, the ID buffer and the pick ${ms(p.first_pick_ms)}; another pick of the same frame ${ms(p.next_pick_ms)})`);
}
if (results.static) {
  lines.push('', '| static mesh | triangles | softpick batch | softpick per call | three-mesh-bvh | ratio |', '|---|---:|---:|---:|---:|---:|');
  for (const r of results.static) {
    const M = (v) => `${(v / 1e6).toFixed(2)} M/s`;
    lines.push(`| ${r.model} | ${r.triangles.toLocaleString('en')} | ${M(r.softpick_batch_rays_per_s)} | ${M(r.softpick_calls_rays_per_s)} | ${M(r.bvh_rays_per_s)} | ${(r.softpick_batch_rays_per_s / r.bvh_rays_per_s).toFixed(1)}× |`);
  }
}
const w = results.wasm;
lines.push('', `wasm: ${(w.bytes / 1024).toFixed(0)} KB, ${(w.gzip_bytes / 1024).toFixed(0)} KB gzipped; load (fetch, compile, instantiate) ${ms(w.load_ms ?? NaN)} ms`);
console.log(lines.join('\n'));
