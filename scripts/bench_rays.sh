#!/usr/bin/env bash
# The ray rows of BENCHMARKS.md: scripts/bench_rays.py (softpick's
# cast_rays, or with --every list_intersections, against Open3D's on the
# same random rays, one and two threads)
# in the venv of scripts/bench_python.sh (under target/, with softpick,
# numpy and Open3D), with the arguments given.
set -euo pipefail

cd "$(dirname "$0")/.."

VENV="${SOFTPICK_BENCH_VENV:-target/benchenv}"
if [ ! -x "$VENV/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet numpy open3d
"$VENV/bin/python" -m pip install --quiet --force-reinstall --no-deps ./python
"$VENV/bin/python" scripts/bench_rays.py "$@"
