#!/usr/bin/env bash
# Runs every softpick fuzz target for SECONDS each (default 60), growing the
# corpus in fuzz/corpus/<target>/, then minimizes each corpus (cargo fuzz
# cmin) so the committed one stays small. A crash stops the script with
# libFuzzer's report; the input is saved in fuzz/artifacts/<target>/.
#
# Only a stable toolchain is installed here: RUSTC_BOOTSTRAP=1 lets it take
# the nightly-only flags cargo-fuzz passes (-Z...). No sanitizer (softpick
# denies unsafe code but for the feature-checked AVX2 dispatch of ray rows);
# the targets are built with debug assertions, so integer overflow panics
# too.
set -euo pipefail
secs=${1:-60}
cd "$(dirname "$0")/.."
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# FUZZ_JOBS=N runs N processes per target (libFuzzer then logs to fuzz-<i>.log)
jobs=()
if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS"); fi
for target in obj_load_render_pick triangles_rasterize_pick stl_ply_load_render_pick gltf_load_render_pick; do
    mkdir -p "fuzz/corpus/$target"
    echo "== $target: ${secs}s"
    cargo fuzz run -s none "$target" "fuzz/corpus/$target" -- \
        -max_total_time="$secs" -max_len=4096 -timeout=20 -rss_limit_mb=4096 \
        "${jobs[@]}" -print_final_stats=1
    # minimize; OBJ, STL and PLY inputs are cut to 384 bytes so the
    # committed corpus stays under 200 KB (the seeds are all shorter)
    keep=4096
    [ "$target" = obj_load_render_pick ] && keep=384
    [ "$target" = stl_ply_load_render_pick ] && keep=384
    cargo fuzz cmin -s none "$target" "fuzz/corpus/$target" -- -max_len="$keep" >/dev/null 2>&1 \
        || echo "cmin failed for $target (corpus kept as is)"
    echo "== $target: $(ls "fuzz/corpus/$target" | wc -l) corpus files, $(cat "fuzz/corpus/$target"/* | wc -c) bytes"
done
