#!/usr/bin/env bash
# Issue 6 measurement: softpick against the peers of ../shared/peers (llvmpipe, Embree,
# three-mesh-bvh, euc, parry3d) on the same models and cameras in one run, printing a
# Markdown table of ratios per target. Raw JSON lines: target/peers/results.jsonl.
#
#   scripts/compare_peers.sh [--quick] [--skip-install] [--models a,b,...] [--max-wait S]
#
#   --quick         fewer repetitions, only the built-in scene and sphere70k
#   --skip-install  do not install/build the peers (pip, npm, apt, cargo); softpick is
#                   still built
#   --worktree      measure the work tree as it is (default: a clean build of HEAD)
#   other options are passed to scripts/compare_peers.py (see its --help), e.g.
#   --out DIR (results elsewhere), --models builtin,sphere1m, --max-wait S, --ray-cap S
#
# Installs (all under target/, nothing is written to ../shared):
#   target/peers-venv      python venv: numpy moderngl glcontext embreex matplotlib
#   target/peers/raycast   copy of ../shared/peers/raycast + `npm ci` (three, three-mesh-bvh)
#   target/peers/rust      copy of ../shared/peers/rust, built with cargo (its own target/)
#   Debian Mesa (libegl1 libegl-mesa0 libgl1-mesa-dri) through apt-get if missing
#   target/peers/models    blob362 / sphere70k / sphere1m from llvmpipe/gen_models.py
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PEERS=$(cd "$ROOT/../shared/peers" && pwd)
OUT="$ROOT/target/peers"
VENV="$ROOT/target/peers-venv"
SKIP_INSTALL=0
FROM_WORKTREE=0
PASS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-install) SKIP_INSTALL=1 ;;
    --worktree) FROM_WORKTREE=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) PASS+=("$1") ;;
  esac
  shift
done
say() { echo "[compare_peers.sh] $*" >&2; }
T0=$(date +%s)
mkdir -p "$OUT/models"

if [ "$SKIP_INSTALL" = 0 ]; then
  # Debian's Mesa (llvmpipe through EGL)
  if ! dpkg -s libegl1 libegl-mesa0 libgl1-mesa-dri >/dev/null 2>&1; then
    say "installing Debian Mesa (libegl1 libegl-mesa0 libgl1-mesa-dri)"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq || say "apt-get update failed"
    $SUDO apt-get install -y -qq libegl1 libegl-mesa0 libgl1-mesa-dri || say "apt-get install of Mesa failed; llvmpipe will fail"
  fi
  # python venv
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV"
    python3 -m venv "$VENV"
  fi
  if ! "$VENV/bin/python" -c "import numpy, moderngl, glcontext, embreex, matplotlib" 2>/dev/null; then
    say "pip install numpy moderngl glcontext embreex matplotlib"
    "$VENV/bin/pip" install -q numpy moderngl glcontext "embreex==4.4.0.post1" matplotlib \
      || say "pip install failed (some peers will be missing)"
  fi
  # three.js + three-mesh-bvh in a writable copy of raycast/
  mkdir -p "$OUT/raycast"
  cp -r --no-preserve=mode "$PEERS/raycast/." "$OUT/raycast/"
  if command -v npm >/dev/null; then
    if [ ! -d "$OUT/raycast/node_modules/three-mesh-bvh" ] \
       || ! cmp -s "$PEERS/raycast/package-lock.json" "$OUT/raycast/node_modules/.package-lock.json.copy"; then
      say "npm ci (three, three-mesh-bvh)"
      if (cd "$OUT/raycast" && npm ci --no-audit --no-fund >&2); then
        cp "$PEERS/raycast/package-lock.json" "$OUT/raycast/node_modules/.package-lock.json.copy"
      else
        say "npm ci failed: three-mesh-bvh will be skipped"
      fi
    fi
  else
    say "no npm: three-mesh-bvh will be skipped"
  fi
  # Rust peers (euc 0.5.3, parry3d 0.31.1) in a writable copy with its own target dir
  mkdir -p "$OUT/rust"
  cp -r --no-preserve=mode "$PEERS/rust/." "$OUT/rust/"
  say "cargo build --release of the Rust peers (euc, parry3d)"
  (cd "$OUT/rust" && cargo build --release --quiet >&2) || say "building the Rust peers failed: euc/parry3d will be skipped"
  # euc master (euc-git/) needs a git clone of its repository: not done here (no network
  # besides the package registries); bench_all.sh treats it as optional too.
fi

PY="$VENV/bin/python"
[ -x "$PY" ] || PY=python3

# models: the peers' generated ones (the shared models are used in place)
if [ ! -f "$OUT/models/sphere1m.obj" ]; then
  say "generating blob362 / sphere70k / sphere1m"
  "$PY" "$PEERS/llvmpipe/gen_models.py" "$OUT/models" >&2
fi

# softpick itself: built from the committed HEAD (git archive) in target/peers/softpick-src
# with its own target dir, so uncommitted edits of the work tree and other builds that
# replace target/release/softpick during the run do not change what is measured.
# --worktree measures the work tree as it is instead (cargo build --release, then a copy).
mkdir -p "$OUT/bin"
if [ "$FROM_WORKTREE" = 1 ]; then
  COMMIT="$(git -C "$ROOT" rev-parse --short HEAD)+worktree"
  say "cargo build --release (softpick, work tree)"
  (cd "$ROOT" && cargo build --release --bin softpick --quiet >&2)
  cp "$ROOT/target/release/softpick" "$OUT/bin/softpick"
else
  COMMIT=$(git -C "$ROOT" rev-parse --short HEAD)
  say "cargo build --release (softpick at $COMMIT, clean copy of HEAD)"
  # re-extract only for a new commit (fresh mtimes would make cargo rebuild the crate)
  if [ "$(cat "$OUT/softpick-src/.commit" 2>/dev/null)" != "$(git -C "$ROOT" rev-parse HEAD)" ]; then
    rm -rf "$OUT/softpick-src" && mkdir -p "$OUT/softpick-src"
    git -C "$ROOT" archive HEAD | tar -x -C "$OUT/softpick-src"
    git -C "$ROOT" rev-parse HEAD > "$OUT/softpick-src/.commit"
  fi
  (cd "$OUT/softpick-src" && CARGO_TARGET_DIR="$OUT/softpick-target" cargo build --release --bin softpick --quiet >&2)
  cp "$OUT/softpick-target/release/softpick" "$OUT/bin/softpick"
fi
"$OUT/bin/softpick" bench-render --help >/dev/null || { say "this softpick has no bench-render"; exit 1; }
say "llvmpipe: $("$PY" "$PEERS/llvmpipe/render_ids.py" --info 2>&1 | sed -n 1p)"

set +e
"$PY" "$ROOT/scripts/compare_peers.py" --python "$PY" --work "$OUT" --softpick "$OUT/bin/softpick" --commit "$COMMIT" ${PASS[@]+"${PASS[@]}"}
rc=$?
say "done in $(( $(date +%s) - T0 )) s (installs included)"
exit $rc
