// The worker of softpick/three's PickerWorker: a wasm scene that applies
// the main thread's commands and answers its queries (see engine.js).

import { init } from './index.js';
import { Engine } from './engine.js';

let engine = null;

function transfers(v, out = []) {
  if (ArrayBuffer.isView(v)) out.push(v.buffer);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) if (ArrayBuffer.isView(x)) out.push(x.buffer);
  return out;
}

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    if (op === 'init') {
      await init(args[0]);
      engine ??= new Engine();
      self.postMessage({ id, result: true });
      return;
    }
    if (!engine) throw new Error('softpick: the worker has not loaded the wasm module');
    if (typeof engine[op] !== 'function' || op === 'free') throw new Error(`softpick: the worker has no ${op}`);
    const result = engine[op](...args);
    self.postMessage({ id, result }, transfers(result));
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
