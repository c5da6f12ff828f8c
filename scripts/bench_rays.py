#!/usr/bin/env python3
"""softpick's cast_rays against Open3D's RaycastingScene.cast_rays on the
same seeded random rays, at one and two threads: the ray rows of
BENCHMARKS.md; with --every, list_intersections (every hit) on both sides.

    scripts/bench_rays.sh [--models builtin,bunny_3k,...] [--rays 1000000]
                          [--reps 5] [--threads 1,2] [--every] [--out DIR]

The rays and models are scripts/bench_python.py's (its cast_rays rows):
origins on a sphere of twice the model box's half-diagonal, aimed at
random points of the box (numpy's default_rng(1)); the peer gets
softpick's triangles in global order as one mesh, so its primitive ids are
softpick's global triangle ids. softpick's BVHs and Open3D's are built
before the timing (Open3D's by a first cast). Per model and thread count:
the median of --reps casts after one warm-up, on both sides alternately,
and the time per ray and thread (ms * threads / rays); ratio = Open3D ms /
softpick ms; "ids = Open3D" is the share of rays hit by either where both
name the same triangle (with --every: where both count the same hits). One
JSON line per row goes to OUT/rays.jsonl (OUT/every.jsonl), the Markdown
table to stdout and OUT/rays.md (OUT/every.md).
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import softpick

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_python import DEFAULT_MODELS, ROOT, agreement, model_path  # noqa: E402


def random_rays(scene, n):
    """bench_python.py's rays (the same seed and draws)."""
    rng = np.random.default_rng(1)
    lo, hi = (np.asarray(b) for b in scene.bounds)
    c, r = (lo + hi) / 2, np.linalg.norm(hi - lo) / 2
    d = rng.normal(size=(n, 3))
    o = c + 2 * r * d / np.linalg.norm(d, axis=1, keepdims=True)
    dirs = (c + rng.uniform(-0.5, 0.5, (n, 3)) * (hi - lo)) - o
    return o.astype(np.float32), dirs.astype(np.float32)


def alternate(fns, reps):
    """Median seconds of each function, run in turn after one warm-up each."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(reps):
        for fn, t in zip(fns, times):
            start = time.perf_counter()
            fn()
            t.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def hit_counts(splits):
    """Hits per ray of a list_intersections answer (its ray_splits)."""
    return np.diff(np.asarray(splits).astype(np.int64))


def bench_model(name, path, n_rays, threads, reps, rows, every=False):
    import open3d as o3d

    scene = softpick.load(path)
    scene.build_bvhs()
    verts, faces, base = [], [], 0
    for m in range(scene.mesh_count):
        v = scene.mesh_vertices(m)
        verts.append(v)
        faces.append(scene.mesh_triangles(m).astype(np.int64) + base)
        base += len(v)
    verts, faces = np.concatenate(verts), np.concatenate(faces)
    o3d_scene = o3d.t.geometry.RaycastingScene()
    o3d_scene.add_triangles(o3d.core.Tensor(verts.astype(np.float32)),
                            o3d.core.Tensor(faces.astype(np.uint32)))
    o, d = random_rays(scene, n_rays)
    o3 = o3d.core.Tensor(np.concatenate([o, d], 1))
    o3d_scene.cast_rays(o3, nthreads=1)  # builds Open3D's BVH
    for t in threads:
        if every:
            sp, op = alternate([lambda: scene.list_intersections(o, d, threads=t),
                                lambda: o3d_scene.list_intersections(o3, nthreads=t)["t_hit"].numpy()],
                               reps)
            a = hit_counts(scene.list_intersections(o, d, threads=t)["ray_splits"])
            b = hit_counts(o3d_scene.list_intersections(o3, nthreads=t)["ray_splits"].numpy())
            either = (a > 0) | (b > 0)
            agree, hits = float((a == b)[either].mean()) if either.any() else 1.0, int(a.sum())
        else:
            sp, op = alternate([lambda: scene.cast_rays(o, d, threads=t),
                                lambda: o3d_scene.cast_rays(o3, nthreads=t)["primitive_ids"].numpy()],
                               reps)
            a = scene.cast_rays(o, d, threads=t)["triangle_ids"].astype(np.int64)
            b = o3d_scene.cast_rays(o3, nthreads=t)["primitive_ids"].numpy().astype(np.int64)
            a[a == softpick.INVALID_ID] = -1
            b[b == softpick.INVALID_ID] = -1
            agree, hits = agreement(a, b), int((a >= 0).sum())
        rows.append({"model": name, "triangles": scene.triangle_count, "rays": n_rays,
                     "query": "list_intersections" if every else "cast_rays",
                     "threads": t, "ms": sp * 1e3, "open3d_ms": op * 1e3,
                     "ns_per_ray_thread": sp * 1e9 * t / n_rays,
                     "open3d_ns_per_ray_thread": op * 1e9 * t / n_rays,
                     "agree_open3d": agree, "hits": hits})
        print(json.dumps(rows[-1]), file=sys.stderr)


def table(rows, header):
    ts = sorted({r["threads"] for r in rows})
    every = rows and rows[0].get("query") == "list_intersections"
    agree_name = "hit counts = Open3D" if every else "ids = Open3D"
    cols = []
    for t in ts:
        cols += [f"softpick ms ({t}T)", f"Open3D ms ({t}T)", f"ratio ({t}T)"]
    out = [header, "", "| model | triangles | " + " | ".join(cols)
           + f" | ns/ray, 1 thread: softpick / Open3D | {agree_name} |",
           "|---|---:|" + "---:|" * len(cols) + "---:|---:|"]
    for name in dict.fromkeys(r["model"] for r in rows):
        by_t = {r["threads"]: r for r in rows if r["model"] == name}
        cells = []
        for t in ts:
            r = by_t[t]
            cells += [f"{r['ms']:.1f}", f"{r['open3d_ms']:.1f}", f"{r['open3d_ms'] / r['ms']:.2f}×"]
        one = by_t.get(1) or by_t[ts[0]]
        per = f"{one['ns_per_ray_thread']:.0f} / {one['open3d_ns_per_ray_thread']:.0f}"
        agree = min(r["agree_open3d"] for r in by_t.values())
        out.append(f"| {name} | {one['triangles']:,} | " + " | ".join(cells)
                   + f" | {per} | {100 * agree:.3f} % |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--rays", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--every", action="store_true",
                    help="time list_intersections (every hit) instead of cast_rays")
    ap.add_argument("--out", default=str(ROOT / "target" / "bench_python"))
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    threads = [int(t) for t in a.threads.split(",")]
    import open3d as o3d
    rows = []
    load = os.getloadavg()[0]
    for name in a.models.split(","):
        bench_model(name, model_path(name, out), a.rays, threads, a.reps, rows, a.every)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    query = "list_intersections" if a.every else "cast_rays"
    header = (f"{query}: {time.strftime('%Y-%m-%d')}, commit {commit}, {platform.machine()}, "
              f"{os.cpu_count()} cores, load average {load:.1f} at the start; "
              f"{a.rays:,} rays, median of {a.reps}; Python {platform.python_version()}, "
              f"numpy {np.__version__}, Open3D {o3d.__version__}")
    text = table(rows, header)
    stem = "every" if a.every else "rays"
    (out / f"{stem}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (out / f"{stem}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
