// The browser tests' harness: a static server on 127.0.0.1 over the
// repository (the package in web/, its node_modules, models/), a page with
// an import map for a chosen three.js release, and Debian's headless
// Chromium driven by playwright-core with a fresh profile.

import { createServer } from 'node:http';
import { readFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = resolve(WEB, '..');

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json',
  '.wasm': 'application/wasm', '.gltf': 'model/gltf+json', '.glb': 'model/gltf-binary', '.bin': 'application/octet-stream',
  '.png': 'image/png', '.obj': 'text/plain', '.mtl': 'text/plain', '.css': 'text/css',
};

/** The three.js packages the tests run against (npm names in web/node_modules). */
export const THREES = { '0.187': 'three', '0.160': 'three-0.160' };

/** The test page: an import map for `three` (the release in ?three=), `softpick` and `softpick/three`. */
function page(three) {
  const pkg = THREES[three] ?? 'three';
  const map = {
    imports: {
      three: `/web/node_modules/${pkg}/build/three.module.js`,
      'three/addons/': `/web/node_modules/${pkg}/examples/jsm/`,
      'three-mesh-bvh': '/web/node_modules/three-mesh-bvh/src/index.js',
      softpick: '/web/js/index.js',
      'softpick/three': '/web/js/three.js',
    },
  };
  return `<!doctype html><meta charset="utf-8"><title>softpick tests</title>
<script type="importmap">${JSON.stringify(map)}</script>
<body></body>`;
}

/** The headers of a cross-origin isolated page (performance.now() to 5 µs, not 100 µs). */
const ISOLATE = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };

/** Serves the repository on 127.0.0.1 (a free port); `.url` and `.close()`. */
export async function serve(extraRoots = {}, isolate = false) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://127.0.0.1');
      if (url.pathname === '/__page') {
        res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store', ...(isolate ? ISOLATE : {}) });
        res.end(page(url.searchParams.get('three')));
        return;
      }
      let path = decodeURIComponent(url.pathname);
      let root = REPO;
      for (const [prefix, dir] of Object.entries(extraRoots)) {
        if (path.startsWith(prefix)) { root = dir; path = path.slice(prefix.length - 1); }
      }
      const file = normalize(join(root, path));
      if (!file.startsWith(root)) throw new Error('outside');
      const s = await stat(file);
      if (!s.isFile()) throw new Error('not a file');
      const body = await readFile(file);
      const headers = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' };
      if (isolate) Object.assign(headers, ISOLATE);
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => server.close(ok)) };
}

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Headless Chromium with a fresh profile; `.page(three)` opens the test page, `.close()` ends it all. */
export async function browser({ extraRoots = {}, isolate = false } = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the browser tests need Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set CHROMIUM)`);
  }
  if (!existsSync(join(WEB, 'pkg', 'softpick_web_bg.wasm'))) {
    throw new Error('the browser tests need the wasm build: run web/scripts/build.sh');
  }
  const server = await serve(extraRoots, isolate);
  const profile = await mkdtemp(join(tmpdir(), 'softpick-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  });
  const logs = [];
  return {
    url: server.url,
    logs,
    async page(three = '0.187') {
      const p = await context.newPage();
      p.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
      p.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
      await p.goto(`${server.url}/__page?three=${three}`);
      return p;
    },
    async close() {
      await context.close();
      await server.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Runs `fn(args)` of module `/web/test/<module>` in the page and returns its result. */
export async function run(page, module, fn, args = {}) {
  return page.evaluate(async ({ module, fn, args }) => {
    const m = await import(`/web/test/${module}`);
    return m[fn](args);
  }, { module, fn, args });
}

/**
 * A test file's `inPage(three, fn, args)`: `fn(args)` of `module` in a
 * fresh page of three.js release `three` on the browser `getBrowser()`
 * gives, the page's last console lines added to an error.
 */
export function pageRunner(getBrowser, module) {
  return async (three, fn, args) => {
    const b = getBrowser();
    const page = await b.page(three);
    try {
      return await run(page, module, fn, args);
    } catch (e) {
      e.message += `\n${b.logs.slice(-20).join('\n')}`;
      throw e;
    } finally {
      await page.close();
    }
  };
}
