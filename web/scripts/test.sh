#!/usr/bin/env bash
# The npm package's tests (scripts/test runs this): the wasm crate's unit
# tests on the host, the wasm build (scripts/build.sh), then node --test:
# the browser tests in headless Chromium (Debian's /usr/bin/chromium, or
# $CHROMIUM) against three.js 0.187 and 0.160, the TypeScript types, and
# `npm pack` installed beside three from the npm registry. Needs what
# .ci/run installs: node and npm, chromium, the wasm32 target, the pinned
# wasm-bindgen CLI; runs `npm ci` first when node_modules is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --release -p softpick-web
# the native build's hashes of the built-in scene's frame and pick maps,
# which the browser test compares with the wasm build's (in Cargo's target
# directory, wherever CARGO_TARGET_DIR or a build.target-dir setting puts it)
target_dir=$(cargo metadata --format-version 1 --no-deps \
    | node -e 'let s = ""; process.stdin.on("data", (d) => { s += d; }).on("end", () => console.log(JSON.parse(s).target_directory))')
export SOFTPICK_WEB_PLATFORM="$target_dir/web-platform.json"
cargo run --release --quiet -p softpick-web --example platform_hashes > "$SOFTPICK_WEB_PLATFORM"
scripts/build.sh
if [ ! -d node_modules ]; then
    npm ci --no-audit --no-fund
fi
node --test test/*.test.mjs
