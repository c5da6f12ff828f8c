// What the demo pages share: loading softpick's wasm, a colour per id, and
// showing an error on the page (the page keeps working).

import { init } from 'softpick';

/** Loads the wasm module once; the pages call it before anything else. */
export async function ready() {
  await init();
}

/** A distinct colour per id (golden-ratio hues), as [r, g, b] bytes. */
export function idColor(i) {
  const h = ((i * 0.618034 + 0.13) % 1) * 6;
  const s = 0.55 + 0.3 * (Math.floor(i / 7) % 2);
  const v = 0.95 - 0.25 * (Math.floor(i / 3) % 2);
  const k = Math.floor(h);
  const f = h - k;
  const p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  const [r, g, b] = [[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][k % 6];
  return [Math.round(r * 255), Math.round(g * 255), Math.round(b * 255)];
}

/** Shows `e` (an Error or text) in element `el` (cleared by `clearError`). */
export function showError(el, e) {
  el.textContent = e instanceof Error ? e.message : String(e);
  el.hidden = false;
  console.error(e);
}

export function clearError(el) {
  el.textContent = '';
  el.hidden = true;
}

/** Median of a few numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Formats microseconds: "12.3 µs", "4.56 ms". */
export function fmtUs(us) {
  if (!Number.isFinite(us)) return '–';
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`;
}
