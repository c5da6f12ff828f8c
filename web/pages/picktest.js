// The pick test page (the Magic Action post, live): the built-in scene, its
// pick map under each fill rule with `softpick rules`'s gap and
// double-claim counts, the triangle under the mouse, and the 360×360 sweep
// by the three pick methods.

import { Scene, Camera, Frame, analyzeRules } from 'softpick';
import { ready, idColor, showError, clearError, fmtUs } from './common.js';

const W = 360, H = 360;
/** The page's rule names and `softpick rules`'s (FillRule::name). */
const CLI_NAME = { '>0': 'strict', '>=0': 'inclusive', '>=0 area': 'area-guard', 'top-left': 'top-left' };
const LABEL = { '>0': '> 0', '>=0': '>= 0', '>=0 area': '>= 0 + area guard', 'top-left': 'top-left' };

const $ = (id) => document.getElementById(id);
const errorEl = $('error');

await ready();
const scene = Scene.builtin();
// the command line's default camera: automatic framing at 360×360
const camera = Camera.auto(scene, W, H);
const frame = new Frame();
const reports = analyzeRules(scene, camera);
const byRule = Object.fromEntries(reports.map((r) => [r.rule, r]));

// top-left's pick map, which the other rules are marked against
frame.render(scene, camera, { rule: 'top-left' });
const topLeft = frame.ids();

const tbody = $('counts').querySelector('tbody');
for (const r of reports) {
  const tr = document.createElement('tr');
  tr.dataset.rule = r.rule;
  for (const v of [LABEL[r.rule], CLI_NAME[r.rule], r.covered, r.gaps, r.double, r.falseClaims]) {
    const td = document.createElement('td');
    td.textContent = String(v);
    tr.append(td);
  }
  tbody.append(tr);
}

function paint(canvas, rgba) {
  canvas.getContext('2d').putImageData(new ImageData(rgba, W, H), 0, 0);
}

let rule = 'top-left';
let ids = topLeft;

function show(r) {
  rule = r;
  frame.render(scene, camera, { rule, color: true });
  ids = frame.ids();
  const color = frame.color();
  const c = new Uint8ClampedArray(W * H * 4);
  const p = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < W * H; i++) {
    const argb = color[i];
    c.set([(argb >>> 16) & 255, (argb >>> 8) & 255, argb & 255, 255], 4 * i);
    const id = ids[i];
    let rgb;
    if (id === 0 && topLeft[i] !== 0) rgb = [255, 0, 255];
    else if (id !== topLeft[i]) rgb = [255, 230, 0];
    else if (id === 0) rgb = [24, 24, 28];
    else rgb = idColor(id - 1);
    p.set([rgb[0], rgb[1], rgb[2], 255], 4 * i);
  }
  paint($('color'), c);
  paint($('pickmap'), p);
  const rep = byRule[rule];
  $('rule-gaps').textContent = String(rep.gaps);
  $('rule-double').textContent = String(rep.double);
  for (const tr of tbody.children) tr.classList.toggle('current', tr.dataset.rule === rule);
  document.body.dataset.rule = rule;
}

for (const input of document.querySelectorAll('input[name=rule]')) {
  input.addEventListener('change', () => {
    try {
      clearError(errorEl);
      show(input.value);
    } catch (e) {
      showError(errorEl, e);
    }
  });
}

function hover(ev) {
  const c = ev.currentTarget;
  const x = Math.floor((ev.offsetX * W) / c.clientWidth);
  const y = Math.floor((ev.offsetY * H) / c.clientHeight);
  if (x < 0 || y < 0 || x >= W || y >= H) return;
  const t0 = performance.now();
  const hit = frame.pick(x + 0.5, y + 0.5, 'buffer');
  const us = (performance.now() - t0) * 1000;
  $('hover').textContent = hit
    ? `pixel (${x}, ${y}): object ${hit.object}, triangle ${hit.faceIndex}, distance ${hit.distance.toFixed(4)}, picked in ${fmtUs(us)}`
    : `pixel (${x}, ${y}): nothing (${fmtUs(us)})`;
}
$('color').addEventListener('mousemove', hover);
$('pickmap').addEventListener('mousemove', hover);

/** The sweep: every pixel picked by each method, best of three runs; agreement with the buffer's answers. */
async function sweep() {
  const button = $('sweep');
  button.disabled = true;
  document.body.dataset.sweep = 'running';
  try {
    clearError(errorEl);
    const maps = {};
    for (const method of ['buffer', 'direct', 'ray']) {
      const row = $('sweep-table').querySelector(`tr[data-method="${method}"]`);
      row.querySelector('.t').textContent = '…';
      await new Promise((ok) => setTimeout(ok, 0)); // let the page show progress
      let best = Infinity;
      for (let k = 0; k < 3; k++) {
        const t0 = performance.now();
        maps[method] = frame.pickMap(method);
        best = Math.min(best, performance.now() - t0);
      }
      let agree = 0;
      for (let i = 0; i < W * H; i++) if (maps[method][i] === maps.buffer[i]) agree++;
      row.querySelector('.t').textContent = `${best.toFixed(2)} ms`;
      row.querySelector('.t').dataset.ms = String(best);
      row.querySelector('.per').textContent = `${((best * 1e6) / (W * H)).toFixed(1)} ns`;
      row.querySelector('.agree').textContent = `${agree} / ${W * H}`;
      row.querySelector('.agree').dataset.agree = String(agree);
    }
    document.body.dataset.sweep = 'done';
  } catch (e) {
    showError(errorEl, e);
    document.body.dataset.sweep = 'failed';
  } finally {
    button.disabled = false;
  }
}
$('sweep').addEventListener('click', sweep);

show('top-left');
document.body.dataset.ready = 'true';
