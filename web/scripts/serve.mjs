#!/usr/bin/env node
// The demo pages' static server (`npm --prefix web run demo`): serves the
// repository on 127.0.0.1 (the pages in web/pages, the package in web/js
// and web/pkg, three.js and three-mesh-bvh from web/node_modules, the
// built-in model in models/), and the shared sample models under
// /shared-models/ when `../shared/models` beside the repository exists.
// Pages are cross-origin isolated, so performance.now() resolves to a few
// microseconds (the pick times the pages show). No bundler: the pages load
// ES modules through an import map.
//
//   node web/scripts/serve.mjs [--port N]     (default 8044; 0: any free port)

import { createServer } from 'node:http';
import { readFile, stat, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join, normalize, resolve, dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = resolve(WEB, '..');
/** The shared sample models, when present beside the repository. */
export const SHARED = resolve(REPO, '..', 'shared', 'models');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.json': 'application/json', '.wasm': 'application/wasm', '.gltf': 'model/gltf+json',
  '.glb': 'model/gltf-binary', '.bin': 'application/octet-stream', '.png': 'image/png',
  '.jpg': 'image/jpeg', '.obj': 'text/plain', '.mtl': 'text/plain', '.css': 'text/css',
};

/** Cross-origin isolation: performance.now() to 5 µs instead of 100 µs. */
const ISOLATE = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
};

/** The .glb/.gltf files under the shared models' gltf folder (not bad/), as /shared-models/ paths. */
async function sharedModels() {
  const root = join(SHARED, 'gltf');
  if (!existsSync(root)) return [];
  const out = [];
  const walk = async (dir, depth) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory() && depth < 3 && e.name !== 'bad') await walk(p, depth + 1);
      else if (e.isFile() && /\.(glb|gltf)$/i.test(e.name)) out.push('/shared-models/' + p.slice(SHARED.length + 1).split(sep).join('/'));
    }
  };
  await walk(root, 0);
  return out.sort();
}

/** Serves the repository on 127.0.0.1; resolves to `{ url, close() }`. */
export async function serve({ port = 0, host = '127.0.0.1' } = {}) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://127.0.0.1');
      if (url.pathname === '/' || url.pathname === '/web/pages/' || url.pathname === '/web/pages') {
        res.writeHead(302, { location: '/web/pages/index.html' });
        res.end();
        return;
      }
      if (url.pathname === '/shared-models/index.json') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', ...ISOLATE });
        res.end(JSON.stringify(await sharedModels()));
        return;
      }
      let path = decodeURIComponent(url.pathname);
      let root = REPO;
      if (path.startsWith('/shared-models/')) {
        root = SHARED;
        path = path.slice('/shared-models'.length);
      }
      const file = normalize(join(root, path));
      if (!file.startsWith(root + sep)) throw new Error('outside');
      const s = await stat(file);
      if (!s.isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
        'cache-control': 'no-store',
        ...ISOLATE,
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain', ...ISOLATE });
      res.end('not found');
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, ok);
  });
  const a = server.address();
  return {
    url: `http://${host}:${a.port}`,
    close: () => new Promise((ok) => server.close(ok)),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--port');
  const port = i > 0 ? Number(process.argv[i + 1]) : 8044;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve.mjs: --port ${process.argv[i + 1]}: expected a port number (0 for any free port)`);
    process.exit(2);
  }
  for (const [what, file] of [['the wasm build (web/scripts/build.sh)', join(WEB, 'pkg', 'softpick_web_bg.wasm')],
    ['three.js (npm --prefix web ci)', join(WEB, 'node_modules', 'three', 'build', 'three.module.js')]]) {
    if (!existsSync(file)) console.error(`serve.mjs: warning: ${file} is missing: the pages need ${what}`);
  }
  const s = await serve({ port }).catch((e) => {
    console.error(`serve.mjs: cannot listen on 127.0.0.1:${port}: ${e.message}`);
    process.exit(2);
  });
  console.log(`softpick demo pages on ${s.url}/ (Ctrl-C stops)`);
  for (const p of ['picktest', 'inspector', 'playground']) console.log(`  ${s.url}/web/pages/${p}.html`);
}
