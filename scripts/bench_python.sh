#!/usr/bin/env bash
# The Python benchmark of BENCHMARKS.md ("Python"): a venv under target/
# with softpick (pip install ./python), numpy, Open3D, trimesh and embreex,
# then scripts/bench_python.py with the arguments given (default: every
# model, 640x480 and 1920x1080, 2 threads, 1M random rays).
set -euo pipefail

cd "$(dirname "$0")/.."

VENV="${SOFTPICK_BENCH_VENV:-target/benchenv}"
if [ ! -x "$VENV/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet numpy open3d trimesh embreex
"$VENV/bin/python" -m pip install --quiet --force-reinstall --no-deps ./python
"$VENV/bin/python" scripts/bench_python.py "$@"
