#!/usr/bin/env bash
# Runs softpick's fuzz targets for SECONDS each (default 600), one after
# the other: fuzz/run.sh [SECONDS] [TARGET...] (every target when none is
# named). A crash stops the script with libFuzzer's report; the input is
# saved in fuzz/artifacts/<target>/.
#
# Each target starts from three folders: fuzz/grown/<target>/ (what earlier
# runs found; new inputs go there; ignored by git), the committed
# hand-written seeds fuzz/corpus/<target>/ and the real-file seeds
# fuzz/seeds/<target>/ that fuzz/seed_corpus.py builds from the shared
# models (../shared/models beside the repository; ignored by git, rebuilt
# when that folder exists). -max_len is the largest of those inputs, so
# every real file is admitted whole.
#
# Only a stable toolchain is installed here: RUSTC_BOOTSTRAP=1 lets it take
# the nightly-only flags cargo-fuzz passes (-Z...). No sanitizer (softpick
# denies unsafe code but for the feature-checked AVX2 dispatch of ray rows);
# the targets are built with debug assertions, so integer overflow panics
# too.
set -euo pipefail
secs=${1:-600}
shift || true
cd "$(dirname "$0")/.."
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(obj_load_render_pick stl_ply_load_render_pick gltf_load_render_pick triangles_rasterize_pick)
fi
if [ -d ../shared/models ]; then
    python3 fuzz/seed_corpus.py ../shared/models fuzz/seeds
else
    echo "no ../shared/models: fuzzing from the committed corpus only"
fi
# FUZZ_JOBS=N runs N processes per target (libFuzzer then logs to fuzz-<i>.log)
jobs=()
if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS"); fi
# FUZZ_KEEP_GOING=1: fork mode (one child at a time), a crash is saved and
# the run goes on, so one known finding does not end it
if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then jobs+=(-fork=1 -ignore_crashes=1); fi
for target in "${targets[@]}"; do
    dirs=("fuzz/grown/$target" "fuzz/corpus/$target")
    [ -d "fuzz/seeds/$target" ] && dirs+=("fuzz/seeds/$target")
    mkdir -p "fuzz/grown/$target"
    # the largest input of any folder (4096 bytes at least, room to grow)
    max_len=$(find "${dirs[@]}" -type f -printf '%s\n' | sort -n | tail -1)
    max_len=$(( ${max_len:-0} > 4096 ? max_len : 4096 ))
    echo "== $target: ${secs}s, -max_len=$max_len, commit $(git rev-parse --short HEAD)"
    cargo fuzz run -s none "$target" "${dirs[@]}" -- \
        -max_total_time="$secs" -max_len="$max_len" -timeout=60 -rss_limit_mb=4096 \
        "${jobs[@]}" -print_final_stats=1
    echo "== $target: $(find "fuzz/grown/$target" -type f | wc -l) inputs grown"
done
