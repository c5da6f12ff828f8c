#!/usr/bin/env python3
"""Exports ID, depth and instance masks of N camera views of a model, one
`.npz` and two PNG files per view, for synthetic-data and segmentation
pipelines.

    scripts/export_dataset.py MODEL OUT --views 100 [--size 640x480]
                              [--shard I --shards S] [--threads T]

Views are spread evenly over a sphere around the model (a Fibonacci
lattice), each looking at the model's centre; view i is the same camera,
and its files the same bytes, in every run. The work shards per view: shard I of S exports the views i with
i % S == I (default: shard from SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT
when set, else everything), so a Slurm array, a Ray or Dask map over
`export_view`, or a shell loop runs it in parallel with no scheduler here.

Per view i, in OUT:
  view_{i:05d}.npz          ids (H, W) uint32 (triangle + 1, 0 = background),
                            depth (H, W) float32 window depth, z (H, W) float32
                            camera-space depth (inf = background),
                            instance_ids, mesh_ids (H, W) uint32
                            (INVALID_ID = background), K (3, 3), extrinsic (4, 4)
  view_{i:05d}_instances.png  one color per instance, black background
  view_{i:05d}_depth.png      16-bit grey z, 0 = background, 65535 = the far plane
"""
import argparse
import os
import struct
import sys
import time
import zipfile
import zlib
from pathlib import Path
from typing import Any, List, Optional, TextIO, Union

import numpy as np
from numpy.typing import NDArray

import softpick


def view_camera(scene: softpick.Scene, i: int, n: int, width: int, height: int) -> softpick.Camera:
    """Camera i of n on a Fibonacci sphere around the scene, 2.5 radii out."""
    lo, hi = (np.asarray(b, np.float64) for b in scene.bounds)
    centre, r = (lo + hi) / 2, max(float(np.linalg.norm(hi - lo)) / 2, 1e-6)
    y = 1 - 2 * (i + 0.5) / n
    th = np.pi * (3 - np.sqrt(5)) * i
    d = np.array([np.sqrt(1 - y * y) * np.cos(th), y, np.sqrt(1 - y * y) * np.sin(th)])
    up = (0, 0, 1) if abs(y) > 0.99 else (0, 1, 0)
    return softpick.Camera.look_at(centre + 2.5 * r * d, centre, up=up, fov_y_deg=45,
                                   width=width, height=height, near=0.05 * r, far=6 * r)


def png(path: Union[str, Path], pixels: Union[NDArray[np.uint8], NDArray[np.uint16]]) -> None:
    """Writes an 8-bit RGB (H, W, 3) or 16-bit grey (H, W) PNG (stdlib only)."""
    if pixels.ndim == 3:
        color, raw = 2, pixels.astype(">u1")
    else:
        color, raw = 0, pixels.astype(">u2")
    h, w = pixels.shape[:2]
    bits = 8 if color == 2 else 16
    rows = raw.reshape(h, -1).view(np.uint8)
    data = b"".join(b"\0" + rows[y].tobytes() for y in range(h))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    head = struct.pack(">IIBBBBB", w, h, bits, color, 0, 0, 0)
    Path(path).write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head)
                           + chunk(b"IDAT", zlib.compress(data, 6)) + chunk(b"IEND", b""))


def save_npz(path: Union[str, Path], **arrays: NDArray[Any]) -> None:
    """`np.savez_compressed` with a fixed time stamp on each member, so
    the same view gives the same bytes in every run (numpy stamps the
    members with the time of writing)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, value in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o600 << 16
            with zf.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(value), allow_pickle=False)


def palette(ids: NDArray[np.uint32]) -> NDArray[np.uint8]:
    """A distinct color per id (golden-ratio hues), black for INVALID_ID."""
    h = (ids.astype(np.float64) * 0.618034 + 0.13) % 1.0
    sector = np.floor(h * 6).astype(int) % 6
    f = h * 6 - np.floor(h * 6)
    v, s = np.full_like(h, 0.95), 0.7
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    table = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    rgb = np.zeros(h.shape + (3,))
    for k, (r, g, b) in enumerate(table):
        m = sector == k
        rgb[m] = np.stack([r[m], g[m], b[m]], -1)
    out = (rgb * 255).astype(np.uint8)
    out[ids == softpick.INVALID_ID] = 0
    return out


def export_view(scene: softpick.Scene, i: int, n: int, out: Union[str, Path], width: int = 640,
                height: int = 480, threads: Optional[int] = None) -> str:
    """Renders view i of n and writes its three files; returns the npz path."""
    cam = view_camera(scene, i, n, width, height)
    frame = scene.render(cam, threads=threads)
    stem = Path(out) / f"view_{i:05d}"
    save_npz(f"{stem}.npz", ids=frame.ids, depth=frame.depth, z=frame.z,
                        instance_ids=frame.instance_ids, mesh_ids=frame.mesh_ids,
                        K=np.asarray(cam.intrinsic_matrix), extrinsic=cam.extrinsic_matrix)
    png(f"{stem}_instances.png", palette(frame.instance_ids))
    z = frame.z
    grey = np.where(np.isfinite(z), np.clip(z / cam.far, 0, 1) * 65535, 0)
    png(f"{stem}_depth.png", grey.astype(np.uint16))
    return f"{stem}.npz"


def progress(done: int, total: int, started: float, stream: TextIO = sys.stderr) -> None:
    """A one-line progress bar with the rate and the time left."""
    width = 30
    filled = int(width * done / max(total, 1))
    rate = done / max(time.perf_counter() - started, 1e-9)
    left = (total - done) / rate if rate > 0 else 0
    stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} views"
                 f"  {rate:.1f}/s  {left:.0f} s left ")
    stream.flush()
    if done == total:
        stream.write("\n")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="OBJ, STL or PLY file")
    ap.add_argument("out", help="output directory (created)")
    ap.add_argument("--views", type=int, default=24)
    ap.add_argument("--size", default="640x480", help="WxH")
    ap.add_argument("--shard", type=int, default=None, help="this shard (0-based)")
    ap.add_argument("--shards", type=int, default=None, help="number of shards")
    ap.add_argument("--threads", type=int, default=None, help="render threads per process")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    shard = a.shard if a.shard is not None else int(os.environ.get("SLURM_ARRAY_TASK_ID", 0))
    shards = a.shards if a.shards is not None else int(os.environ.get("SLURM_ARRAY_TASK_COUNT", 1))
    if not 0 <= shard < shards:
        ap.error(f"need 0 <= shard < shards (got {shard} of {shards})")
    width, height = (int(v) for v in a.size.lower().split("x"))
    Path(a.out).mkdir(parents=True, exist_ok=True)
    scene = softpick.load(a.model)
    mine = [i for i in range(a.views) if i % shards == shard]
    started = time.perf_counter()
    for k, i in enumerate(mine):
        export_view(scene, i, a.views, a.out, width, height, a.threads)
        if not a.quiet:
            progress(k + 1, len(mine), started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
