#!/usr/bin/env bash
# Builds the npm package's WebAssembly: the softpick-web crate for
# wasm32-unknown-unknown (release, no debug info, link-time optimised), then
# wasm-bindgen's JavaScript glue for ES modules (`--target web`) into
# web/pkg/. The wasm-bindgen CLI must be the version of the crate in
# Cargo.lock (`cargo install wasm-bindgen-cli --version X`, as .ci/run does).
set -euo pipefail
cd "$(dirname "$0")/../.."

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
    echo "build.sh: needs wasm-bindgen $want (found: ${have:-none}); run: cargo install wasm-bindgen-cli --version $want" >&2
    exit 1
fi

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
# the loaders' dependencies (glTF JSON, OBJ text) optimised for size, the
# rest (softpick itself, glam) for speed (softpick's parallel loops run on
# the calling thread here, without rayon: src/par/); with WebAssembly's 128-bit
# SIMD (every current browser has it), glam's vector types take the lanes
# their SSE2 build takes on x86-64, in the same order of operations
CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_LTO=true CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
    cargo build --release --target wasm32-unknown-unknown -p softpick-web \
    --config 'target.wasm32-unknown-unknown.rustflags = ["-C", "target-feature=+simd128"]' \
    --config 'profile.release.package.gltf.opt-level="s"' \
    --config 'profile.release.package.gltf-json.opt-level="s"' \
    --config 'profile.release.package.serde_json.opt-level="s"' \
    --config 'profile.release.package.serde.opt-level="s"' \
    --config 'profile.release.package.tobj.opt-level="s"' \
    --config 'profile.release.package.base64.opt-level="s"' \
    --config 'profile.release.package.serde_core.opt-level="s"' \
    --config 'profile.release.package.zmij.opt-level="s"' \
    --config 'profile.release.package.itoa.opt-level="s"' \
    --config 'profile.release.package.memchr.opt-level="s"'
# (Cargo's target directory: CARGO_TARGET_DIR or a build.target-dir
# setting may move it; `cargo metadata` says where)
target_dir=$(cargo metadata --format-version 1 --no-deps \
    | node -e 'let s = ""; process.stdin.on("data", (d) => { s += d; }).on("end", () => console.log(JSON.parse(s).target_directory))')
wasm-bindgen --target web --out-dir web/pkg --remove-name-section --remove-producers-section \
    "$target_dir/wasm32-unknown-unknown/release/softpick_web.wasm"
ls -l web/pkg/softpick_web_bg.wasm
