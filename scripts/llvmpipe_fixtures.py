#!/usr/bin/env python3
"""Regenerate (or check) the Mesa llvmpipe reference fixtures for softpick's
TopLeft fill rule.

  python3 scripts/llvmpipe_fixtures.py [--peers DIR] [--out DIR]            # regenerate + check
  python3 scripts/llvmpipe_fixtures.py --check [--per-triangle]             # check only

Output (default DIR = tests/fixtures/llvmpipe under the repo root):
  2d/NAME.json        tri2d input {"width":W,"height":H,"triangles":[[[x,y]x3],...],...}
                      pixel coordinates, y down, pixel (px,py) centre at (px+0.5, py+0.5);
                      every coordinate is exactly representable in f32
  2d/NAME.d3d.u32     llvmpipe ID image, render_ids.py --tri2d NAME.json --orient d3d:
                      raw little-endian u32, W*H, row 0 = top, value = triangle index + 1,
                      0 = background, later triangles overwrite earlier ones, no depth test
  3d/mesh.obj         bumpy UV sphere + ground grid (two `o` groups, triangles only)
  3d/view_X.json      camera (shared/peers/CONVENTIONS.md)
  3d/view_X.d3d.u32   llvmpipe ID image, depth test LESS, --orient d3d --transform cpu
  3d/view_X.d3d.f32   matching llvmpipe depth buffer (D32F, window depth 0..1)
  manifest.json       cases, sizes, triangle/pixel counts, sha256 of every file, renderer
  README.md           description (written by this script)

The llvmpipe images are produced by the peer harness CLI
(shared/peers/llvmpipe/render_ids.py), one subprocess per file.  Everything is
seeded; rerunning gives byte-identical files on the same Mesa build.

--check needs only numpy (no GL): for every 2D case it compares the stored
llvmpipe image with conformance.model_masks(tri, W, H, 'd3d', 8, 'even', 'top')
composed in draw order, and for the 3D views it checks that the covered pixels
equal the union of the model's per-triangle coverage, that each pixel's ID is a
triangle whose model coverage includes that pixel, and how often the ID is the
nearest triangle by exact (f64) plane depth.  --per-triangle (needs GL) also
renders every 2D triangle alone with llvmpipe and compares it with its model mask.
"""
import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from fractions import Fraction

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
F32 = np.float32

# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def f32(v):
    """Python float holding exactly the f32 nearest to v."""
    return float(F32(v))


def pt(x, y):
    return [f32(x), f32(y)]


def qgrid(v, grid):
    return round(v * grid) / grid


def pix_centre(v):
    """Nearest pixel-centre coordinate (k + 0.5)."""
    return math.floor(v) + 0.5


def orient2d(t):
    (x0, y0), (x1, y1), (x2, y2) = t
    return (Fraction(x1) - Fraction(x0)) * (Fraction(y2) - Fraction(y0)) - \
           (Fraction(y1) - Fraction(y0)) * (Fraction(x2) - Fraction(x0))


def winding_counts(tris):
    """(cw, ccw, zero) in the y-down pixel frame as seen on screen (exact)."""
    cw = ccw = zero = 0
    for t in tris:
        a = orient2d(t)
        if a > 0:
            cw += 1      # y down: positive cross product = clockwise on screen
        elif a < 0:
            ccw += 1
        else:
            zero += 1
    return cw, ccw, zero


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        h.update(fh.read())
    return h.hexdigest()


def write_json(path, obj, compact=True):
    with open(path, "w") as fh:
        if compact:
            json.dump(obj, fh, separators=(",", ":"))
        else:
            json.dump(obj, fh, indent=1)
        fh.write("\n")


def read_u32(path, W, H):
    a = np.fromfile(path, dtype="<u4")
    if a.size != W * H:
        raise ValueError(f"{path}: {a.size} values, expected {W}x{H}")
    return a.reshape(H, W).astype(np.uint32)


def read_f32(path, W, H):
    return np.fromfile(path, dtype="<f4").reshape(H, W)


# --------------------------------------------------------------------------
# 2D cases of our own (all seeded)
# --------------------------------------------------------------------------


def case_grid_jitter(seed=20240601):
    """Jittered grid triangulation of the whole 128x128 frame.  Nodes sit on pixel
    centres (integer jitter), ~45% of them also get a +-1/512 px offset in x
    and/or y: (v - 0.5) * 256 is then exactly k + 1/2, a rounding tie that
    llvmpipe resolves half-to-even.  Diagonals and windings are random."""
    rng = np.random.default_rng(seed)
    W = H = 128
    n = 9  # nodes per axis: -8, 8, ..., 120, 136 (+0.5) before jitter
    nodes = {}
    for j in range(n + 1):
        for i in range(n + 1):
            x = -8 + 16 * i + 0.5
            y = -8 + 16 * j + 0.5
            if 0 < i < n:
                x += int(rng.integers(-5, 6))
            if 0 < j < n:
                y += int(rng.integers(-5, 6))
            if rng.random() < 0.45:
                x += float(rng.choice([-1, 1])) / 512
            if rng.random() < 0.45:
                y += float(rng.choice([-1, 1])) / 512
            nodes[i, j] = pt(x, y)
    tris = []
    for j in range(n):
        for i in range(n):
            a, b, c, d = nodes[i, j], nodes[i + 1, j], nodes[i + 1, j + 1], nodes[i, j + 1]
            if rng.random() < 0.5:
                pair = [[a, b, c], [a, c, d]]
            else:
                pair = [[a, b, d], [b, c, d]]
            for t in pair:
                if rng.random() < 0.5:
                    t = [t[0], t[2], t[1]]
                k = int(rng.integers(0, 3))
                tris.append(t[k:] + t[:k])
    return {"name": "grid_jitter", "width": W, "height": H, "triangles": tris, "tiling": True,
            "note": "jittered 9x9-quad grid triangulation covering the whole frame (each pixel exactly once);"
                    " nodes on pixel centres, ~45% with +-1/512 px offsets (rounding ties at 1/256);"
                    f" random diagonals and windings; seed {seed}"}


def case_fan_centers():
    """24-triangle fan, centre and ring vertices exactly on pixel centres; odd
    triangles have reversed winding."""
    W = H = 64
    c = pt(31.5, 32.5)
    ring = []
    for k in range(24):
        a = 2 * math.pi * k / 24 + 0.1
        ring.append(pt(pix_centre(31.5 + 28.2 * math.cos(a)), pix_centre(32.5 + 28.2 * math.sin(a))))
    tris = []
    for k in range(24):
        t = [c, ring[k], ring[(k + 1) % 24]]
        if k % 2:
            t = [c, ring[(k + 1) % 24], ring[k]]
        tris.append(t)
    return {"name": "fan_centers", "width": W, "height": H, "triangles": tris,
            "note": "24-triangle fan around the pixel centre (31.5,32.5); every vertex on a pixel centre;"
                    " odd triangles wound the other way"}


def _rand_coord(rng, v, mode):
    if mode == 0:
        return f32(v)                       # arbitrary f32
    if mode == 1:
        return qgrid(v, 256)                # on the 1/256 snap grid
    if mode == 2:
        return pix_centre(v)                # pixel centre
    if mode == 3:
        return float(round(v))              # pixel corner
    return pix_centre(v) + float(rng.choice([-1, 1])) / 512   # rounding tie


def case_soup_mixed(seed=4242, n=1200):
    """Large random soup: sizes log-uniform 0.3..90 px, both windings, coordinates
    a mix of arbitrary f32, 1/256 grid, pixel centres, pixel corners and
    half-snap ties; vertices may leave the frame by up to 20 px."""
    rng = np.random.default_rng(seed)
    W = H = 128
    tris = []
    for _ in range(n):
        c = rng.uniform(-10, [W + 10, H + 10])
        s = math.exp(rng.uniform(math.log(0.3), math.log(90.0)))
        mode = int(rng.integers(0, 5))
        t = []
        for _k in range(3):
            p = np.clip(c + rng.uniform(-s, s, size=2), -20, [W + 20, H + 20])
            t.append(pt(_rand_coord(rng, float(p[0]), mode), _rand_coord(rng, float(p[1]), mode)))
        tris.append(t)
    return {"name": "soup_mixed", "width": W, "height": H, "triangles": tris,
            "note": f"{n} random triangles, sizes 0.3..90 px (log-uniform), both windings, coordinates per"
                    " triangle: arbitrary f32 / 1/256 grid / pixel centres / pixel corners / centre+-1/512;"
                    f" later overwrite earlier; seed {seed}"}


def case_slivers_angles(seed=9001, n=96):
    """Long thin slivers at many angles: 'needles' (base of width w, apex far
    away) and 'flat' slivers (three nearly collinear points, middle vertex w
    off the line).  w from 1/256 to 2 px, angles every 3.75 deg plus jitter;
    every 8th sliver runs exactly along a pixel-centre row/column/diagonal."""
    rng = np.random.default_rng(seed)
    W = H = 128
    widths = [1 / 256, 1 / 128, 1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0]
    tris = []
    for k in range(n):
        w = widths[k % len(widths)]
        L = float(rng.uniform(50, 170))
        if k % 8 == 0:
            # exact lines through pixel centres: horizontal, vertical, 45 deg, slope 1/2
            dirs = [(1, 0), (0, 1), (1, 1), (2, 1), (1, -1), (-1, 2)]
            dx, dy = dirs[(k // 8) % len(dirs)]
            x0 = pix_centre(rng.uniform(10, 60))
            y0 = pix_centre(rng.uniform(10, 60)) if dy >= 0 else pix_centre(rng.uniform(70, 118))
            m = int(L / math.hypot(dx, dy))
            a = pt(x0, y0)
            b = pt(x0 + m * dx, y0 + m * dy)
            nx, ny = -dy / math.hypot(dx, dy), dx / math.hypot(dx, dy)
            side = 1 if (k // 8) % 2 else -1
            c = pt(x0 + m * dx + side * w * nx, y0 + m * dy + side * w * ny)
            t = [a, b, c]
        else:
            ang = math.radians(3.75 * k + (rng.uniform(-1, 1) if k % 3 else 0.0))
            ux, uy = math.cos(ang), math.sin(ang)
            nx, ny = -uy, ux
            cx, cy = rng.uniform(20, 108, size=2)
            x0, y0 = cx - ux * L / 2, cy - uy * L / 2
            x1, y1 = cx + ux * L / 2, cy + uy * L / 2
            if k % 2:  # needle: base at (x0,y0) of width w, apex at (x1,y1)
                t = [pt(x0 - nx * w / 2, y0 - ny * w / 2), pt(x0 + nx * w / 2, y0 + ny * w / 2), pt(x1, y1)]
            else:      # flat: middle vertex w off the long edge
                f = float(rng.uniform(0.2, 0.8))
                t = [pt(x0, y0), pt(x1, y1), pt(x0 + f * (x1 - x0) + nx * w, y0 + f * (y1 - y0) + ny * w)]
        if rng.random() < 0.5:
            t = [t[0], t[2], t[1]]
        tris.append(t)
    return {"name": "slivers_angles", "width": W, "height": H, "triangles": tris,
            "note": f"{n} long slivers (50..170 px, widths 1/256..2 px) at angles every 3.75 deg;"
                    " needles and flat slivers; every 8th exactly along a pixel-centre line; both windings;"
                    f" seed {seed}"}


def case_corners_grid(seed=77):
    """Triangulation of the 64x64 frame with every vertex on a pixel corner
    (integer coordinates); integer jitter, random diagonals and windings."""
    rng = np.random.default_rng(seed)
    W = H = 64
    n = 8
    nodes = {}
    for j in range(n + 1):
        for i in range(n + 1):
            x, y = 8 * i, 8 * j
            if 0 < i < n:
                x += int(rng.integers(-3, 4))
            if 0 < j < n:
                y += int(rng.integers(-3, 4))
            nodes[i, j] = pt(x, y)
    tris = []
    for j in range(n):
        for i in range(n):
            a, b, c, d = nodes[i, j], nodes[i + 1, j], nodes[i + 1, j + 1], nodes[i, j + 1]
            pair = [[a, b, c], [a, c, d]] if rng.random() < 0.5 else [[a, b, d], [b, c, d]]
            for t in pair:
                if rng.random() < 0.5:
                    t = [t[0], t[2], t[1]]
                tris.append(t)
    return {"name": "corners_grid", "width": W, "height": H, "triangles": tris, "tiling": True,
            "note": "8x8-quad triangulation of the frame, every vertex on a pixel corner (integer coords);"
                    f" covers each pixel exactly once; seed {seed}"}


def case_corners_random(seed=78, n=160):
    """Random triangles with integer (pixel-corner) vertices, incl. axis-aligned
    right triangles and edges with small integer slopes (which pass through
    pixel centres)."""
    rng = np.random.default_rng(seed)
    W = H = 64
    tris = []
    for k in range(n):
        s = int(rng.integers(1, 30))
        x, y = (int(v) for v in rng.integers(-4, 68, size=2))
        if k % 4 == 0:   # axis-aligned right triangle
            sx = int(rng.choice([-1, 1])) * s
            sy = int(rng.choice([-1, 1])) * int(rng.integers(1, 30))
            t = [pt(x, y), pt(x + sx, y), pt(x, y + sy)]
        else:
            t = [pt(x + int(rng.integers(-s, s + 1)), y + int(rng.integers(-s, s + 1))) for _ in range(3)]
        if rng.random() < 0.5:
            t = [t[0], t[2], t[1]]
        tris.append(t)
    return {"name": "corners_random", "width": W, "height": H, "triangles": tris,
            "note": f"{n} random triangles with integer (pixel-corner) vertices, every 4th axis-aligned;"
                    f" both windings; seed {seed}"}


def case_offscreen(seed=31337, n=64):
    """Big triangles with vertices up to ~4000 px outside a 96x96 frame (llvmpipe
    clips them at its viewport); includes edges through pixel centres from far
    away, a frame-covering triangle, triangles entirely outside the frame."""
    rng = np.random.default_rng(seed)
    W = H = 96
    tris = [[pt(-3000.25, -2000.75), pt(4000.5, 40.0), pt(-100.0, 3900.125)]]   # covers the whole frame
    for k in range(1, n):
        kind = k % 4
        if kind == 0:      # entirely outside the frame, on one side of it
            side = (k // 4) % 4
            lo = [[-4000, -3000], [101, -3000], [-3000, -4000], [-3000, 101]][side]
            hi = [[-5, 3000], [4000, 3000], [3000, -5], [3000, 4000]][side]
            t = [pt(*rng.uniform(lo, hi)) for _ in range(3)]
        elif kind == 1:    # one vertex inside, two far away
            t = [pt(*rng.uniform(0, 96, size=2))]
            for _ in range(2):
                a = rng.uniform(0, 2 * math.pi)
                r = rng.uniform(500, 4000)
                t.append(pt(48 + r * math.cos(a), 48 + r * math.sin(a)))
        elif kind == 2:    # edge through pixel centres with integer direction, far-away end points
            x0, y0 = pix_centre(rng.uniform(8, 88)), pix_centre(rng.uniform(8, 88))
            dx, dy = int(rng.integers(-7, 8)), int(rng.integers(1, 8))
            m = int(rng.integers(300, 500))
            a = pt(x0 - m * dx, y0 - m * dy)
            b = pt(x0 + m * dx, y0 + m * dy)
            ang = rng.uniform(0, 2 * math.pi)
            r = rng.uniform(200, 3000)
            t = [a, b, pt(x0 + r * math.cos(ang), y0 + r * math.sin(ang))]
        else:              # all three far away, edges crossing the frame at grazing angles
            t = []
            for _ in range(3):
                a = rng.uniform(0, 2 * math.pi)
                r = rng.uniform(1000, 4000)
                t.append(pt(48 + r * math.cos(a), 48 + r * math.sin(a)))
        if rng.random() < 0.5:
            t = [t[0], t[2], t[1]]
        tris.append(t)
    # draw the triangles that cover most of the frame first, so that later ones stay visible
    import conformance as C
    cover = C.model_masks(np.asarray(tris, dtype=np.float64), W, H, "d3d").sum(axis=(1, 2))
    tris = [tris[i] for i in sorted(range(n), key=lambda i: -int(cover[i]))]
    return {"name": "offscreen", "width": W, "height": H, "triangles": tris,
            "note": f"{n} triangles with vertices up to ~4000 px outside the 96x96 frame (big triangles"
                    " clipped by the frame), edges through pixel centres from far away, some entirely outside;"
                    " drawn in order of decreasing frame coverage;"
                    f" seed {seed}"}


def case_offscreen_fan():
    """Fan around a far-away pixel centre whose 40 triangles sweep across the
    frame: a tiling of the frame by triangles whose vertices are all ~3000 px
    outside it."""
    W, H = 128, 96
    c = pt(-2000.5, 2600.5)
    # ring points on a line far beyond the opposite side; rays from c cross the frame
    # rays from c cross the frame for ring y in about [-4030, -3400]; the ring spans
    # [-4100, -3300], so each triangle is a ~5 px wide, ~7000 px long wedge at the frame
    ring = []
    for k in range(41):
        y = -4100.0 + k * 20.0 + (0.25 if k % 3 == 1 else 0.0)
        x = 3100.5 + (k % 5) * 0.125
        ring.append(pt(x, y))
    tris = []
    for k in range(40):
        t = [c, ring[k], ring[k + 1]]
        if k % 2:
            t = [ring[k + 1], c, ring[k]]
        tris.append(t)
    return {"name": "offscreen_fan", "width": W, "height": H, "triangles": tris, "tiling": True,
            "note": "40-triangle fan from (-2000.5,2600.5) to a ring ~3100 px beyond the other side; the"
                    " frame lies inside the fan, so each pixel is covered exactly once by triangles whose"
                    " vertices are all thousands of px outside the frame"}


def own_cases():
    return [case_grid_jitter(), case_fan_centers(), case_soup_mixed(), case_slivers_angles(),
            case_corners_grid(), case_corners_random(), case_offscreen(), case_offscreen_fan()]


# --------------------------------------------------------------------------
# 3D scene
# --------------------------------------------------------------------------


def _f32_correct(s):
    """Correctly rounded decimal -> f32 (what Rust's str::parse::<f32> gives)."""
    d = Fraction(s)
    c = F32(float(d))   # may be off by one ulp through double rounding
    cands = [np.nextafter(c, F32(-np.inf)), c, np.nextafter(c, F32(np.inf))]
    best = min(cands, key=lambda v: (abs(Fraction(float(v)) - d), int(np.float32(v).view(np.uint32)) & 1))
    return best


def _fmt(v):
    """'%.6f' text whose f64->f32 value equals the correctly rounded decimal->f32 value
    (nudged by 1e-6 in the rare double-rounding case), so every OBJ parser agrees."""
    x = v
    for _ in range(8):
        s = "%.6f" % x
        if s == "-0.000000":
            s = "0.000000"
        if F32(float(s)) == _f32_correct(s):
            return s
        x += 1e-6
    raise RuntimeError(f"cannot format {v}")


def make_mesh(seed=5150):
    """Bumpy UV sphere (48 slices x 24 stacks, 2208 triangles) floating above a
    16x16 ground grid (512 triangles): 2720 triangles in two `o` groups."""
    rng = np.random.default_rng(seed)
    S, R = 48, 24
    cx, cy, cz, rad = 0.15, 1.25, -0.1, 1.0
    ph0 = rng.uniform(0, 2 * math.pi)
    verts = [(cx, cy + rad * 1.0, cz)]
    for i in range(1, R):
        th = math.pi * i / R
        for j in range(S):
            ph = 2 * math.pi * j / S
            r = rad * (1.0 + 0.07 * math.sin(5 * ph + ph0) * math.sin(3 * th) + 0.03 * math.cos(9 * th))
            verts.append((cx + r * math.sin(th) * math.cos(ph), cy + r * math.cos(th), cz + r * math.sin(th) * math.sin(ph)))
    verts.append((cx, cy - rad * 1.0, cz))
    ring = lambda i, j: 1 + (i - 1) * S + (j % S)
    faces = []
    for j in range(S):
        faces.append((0, ring(1, j + 1), ring(1, j)))
    for i in range(1, R - 1):
        for j in range(S):
            a, b, c, d = ring(i, j), ring(i, j + 1), ring(i + 1, j + 1), ring(i + 1, j)
            faces.append((a, b, c))
            faces.append((a, c, d))
    last = len(verts) - 1
    for j in range(S):
        faces.append((last, ring(R - 1, j), ring(R - 1, j + 1)))
    # ground: 16x16 quads over [-3,3]^2 at y ~ 0 with a gentle height field
    G = 16
    gv = []
    for j in range(G + 1):
        for i in range(G + 1):
            x = -3.0 + 6.0 * i / G
            z = -3.0 + 6.0 * j / G
            y = 0.06 * math.sin(1.3 * x + 0.4) * math.cos(1.1 * z) + float(rng.uniform(-0.01, 0.01))
            gv.append((x, y, z))
    gf = []
    for j in range(G):
        for i in range(G):
            a = j * (G + 1) + i
            b, c, d = a + 1, a + G + 2, a + G + 1
            if (i + j) % 2:
                gf += [(a, d, c), (a, c, b)]
            else:
                gf += [(a, d, b), (b, d, c)]
    return [("blob", verts, faces), ("ground", gv, gf)]


def write_obj(path, groups):
    lines = ["# softpick llvmpipe fixture mesh, written by scripts/llvmpipe_fixtures.py\n",
             "# triangles only; '%.6f' coordinates (each parses to the same f32 via f64 or directly)\n"]
    base = 0
    ntri = 0
    for name, verts, faces in groups:
        lines.append(f"o {name}\n")
        lines += [f"v {_fmt(x)} {_fmt(y)} {_fmt(z)}\n" for x, y, z in verts]
        lines += [f"f {a + base + 1} {b + base + 1} {c + base + 1}\n" for a, b, c in faces]
        base += len(verts)
        ntri += len(faces)
    with open(path, "w") as fh:
        fh.write("".join(lines))
    return ntri


CAMERAS = {
    "view_a": {"eye": [3.5, 2.75, 5.25], "target": [0.0, 0.75, 0.0], "up": [0.0, 1.0, 0.0],
               "fov_y_deg": 45.0, "near": 0.5, "far": 20.0, "width": 200, "height": 150},
    "view_b": {"eye": [-4.25, 5.5, -3.0], "target": [0.25, 0.5, 0.25], "up": [0.0, 1.0, 0.0],
               "fov_y_deg": 40.0, "near": 1.0, "far": 25.0, "width": 160, "height": 160},
}


# --------------------------------------------------------------------------
# rendering through the harness CLI
# --------------------------------------------------------------------------


def exact_feed_p(W, H):
    P = 1
    while P < max(W, H):
        P *= 2
    return P


def canvas_width(coords, W, H):
    """Width to render at so that every |coordinate| <= P (no llvmpipe clipping)."""
    m = float(np.abs(coords).max()) if coords.size else 0.0
    if m <= exact_feed_p(W, H):     # |x| == P is on the clip boundary: inside, not clipped
        return W
    P = 1
    while P <= m:
        P *= 2
    return P


def run_harness(peers, args, cwd):
    cmd = [sys.executable, os.path.join(peers, "render_ids.py")] + args
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        raise RuntimeError(f"render_ids.py failed: {' '.join(args)}")
    return r.stdout.strip().splitlines()[-1], r.stderr


def generate(peers, out):
    d2 = os.path.join(out, "2d")
    d3 = os.path.join(out, "3d")
    for d in (d2, d3):
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
    info = json.loads(run_harness(peers, ["--info"], out)[0])
    print(f"renderer: {info['renderer']} | {info['version']}", file=sys.stderr)
    import conformance as C
    cases = C.all_cases() + own_cases()
    names = [c["name"] for c in cases]
    assert len(set(names)) == len(names)
    for case in cases:
        name, W, H = case["name"], case["width"], case["height"]
        # every coordinate must be exact in f32
        a = np.asarray(case["triangles"], dtype=np.float64)
        assert np.array_equal(a.astype(F32).astype(np.float64), a), f"{name}: non-f32 coordinate"
        case = dict(case)
        cw, ccw, zero = winding_counts(case["triangles"])
        case["windings"] = {"cw": cw, "ccw": ccw, "zero_area": zero}
        Wc = canvas_width(a, W, H)
        jpath = os.path.join(d2, name + ".json")
        fixture = os.path.join(d2, name + ".d3d.u32")
        if Wc == W:
            write_json(jpath, case)
            line, _ = run_harness(peers, ["--tri2d", f"2d/{name}.json", "--orient", "d3d", "--width", str(W),
                                          "--height", str(H), "--out", f"2d/{name}.d3d.u32"], out)
        else:
            # Some vertex lies outside llvmpipe's exact-feed viewport [-P, P] (P = pow2 >= max(W,H)),
            # where llvmpipe clips geometrically and the clipped vertices are rounded, which moves
            # pixels whose centre lies exactly on an edge.  Render on a canvas Wc wide (P = Wc >
            # every |coordinate|, nothing is clipped) and keep columns 0..W-1; for the record, also
            # count how many pixels the plain W x H render differs by.
            tmp_w = os.path.join(out, f".{name}.canvas.u32")
            tmp_p = os.path.join(out, f".{name}.plain.u32")
            write_json(jpath, case)
            line, _ = run_harness(peers, ["--tri2d", f"2d/{name}.json", "--orient", "d3d", "--width", str(Wc),
                                          "--height", str(H), "--out", tmp_w], out)
            run_harness(peers, ["--tri2d", f"2d/{name}.json", "--orient", "d3d", "--width", str(W),
                                "--height", str(H), "--out", tmp_p], out)
            ids = read_u32(tmp_w, Wc, H)[:, :W].copy()
            plain = read_u32(tmp_p, W, H)
            os.remove(tmp_w)
            os.remove(tmp_p)
            with open(fixture, "wb") as fh:
                fh.write(ids.astype("<u4").tobytes())
            case["llvmpipe"] = {"canvas_width": Wc, "plain_render_diff_px": int((plain != ids).sum()),
                                "comment": f"rendered --width {Wc} --height {H}, columns 0..{W - 1} kept, so"
                                           " that no vertex leaves llvmpipe's viewport; plain_render_diff_px ="
                                           f" pixels that differ in the plain --width {W} render (viewport clipping)"}
            write_json(jpath, case)
            line = line.replace(f'"width": {Wc}', f'"width": {W} (canvas {Wc})')
        print(f"  2d {name}: {line}", file=sys.stderr)
    ntri = write_obj(os.path.join(d3, "mesh.obj"), make_mesh())
    print(f"  3d mesh.obj: {ntri} triangles", file=sys.stderr)
    for view, cam in CAMERAS.items():
        write_json(os.path.join(d3, view + ".json"), cam, compact=False)
        line, _ = run_harness(peers, ["3d/mesh.obj", "--camera", f"3d/{view}.json", "--orient", "d3d",
                                      "--transform", "cpu", "--width", str(cam["width"]),
                                      "--height", str(cam["height"]), "--out", f"3d/{view}.d3d.u32",
                                      "--depth", f"3d/{view}.d3d.f32"], out)
        res = json.loads(line)
        if res.get("dropped_w_le_0", 0):
            raise RuntimeError(f"{view}: {res['dropped_w_le_0']} triangles with w <= 0")
        print(f"  3d {view}: {line}", file=sys.stderr)
    return info


# --------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------


def check_2d(out, per_triangle=False, peers=None):
    import conformance as C
    rows = []
    peer = None
    if per_triangle:
        import render_ids as R
        peer = R.Peer("egl")
    d2 = os.path.join(out, "2d")
    for fn in sorted(os.listdir(d2)):
        if not fn.endswith(".json"):
            continue
        name = fn[:-5]
        with open(os.path.join(d2, fn)) as fh:
            case = json.load(fh)
        W, H = case["width"], case["height"]
        tri = np.asarray(case["triangles"], dtype=np.float64).reshape(-1, 3, 2)
        ids = read_u32(os.path.join(d2, name + ".d3d.u32"), W, H)
        masks = C.model_masks(tri, W, H, "d3d", 8, "even", "top")
        model = C.compose(masks)
        row = {"case": name, "W": W, "H": H, "triangles": int(tri.shape[0]),
               "covered": int((ids != 0).sum()), "visible_ids": int(np.unique(ids[ids != 0]).size),
               "mismatch": int((model != ids).sum())}
        w = case.get("windings") or dict(zip(("cw", "ccw", "zero_area"), winding_counts(case["triangles"])))
        row["cw/ccw/zero"] = f"{w['cw']}/{w['ccw']}/{w['zero_area']}"
        hits = masks.sum(axis=0)
        row["max_hits"] = int(hits.max())
        if case.get("tiling"):
            row["tiling_ok"] = bool((hits == 1).all())
        Wc = case.get("llvmpipe", {}).get("canvas_width", W)
        row["canvas_W"] = Wc
        row["plain_diff"] = case.get("llvmpipe", {}).get("plain_render_diff_px", "")
        if peer is not None:
            import render_ids as R
            bad = 0
            for t in range(tri.shape[0]):
                one = R.render_tri2d(peer, tri[t:t + 1], Wc, H, "d3d")[:, :W] != 0
                bad += int((one != masks[t]).sum())
            row["per_tri_mismatch"] = bad
            row["rerender_equal"] = bool(np.array_equal(R.render_tri2d(peer, tri, Wc, H, "d3d")[:, :W], ids))
        rows.append(row)
    return rows


def check_3d(out):
    import conformance as C
    import render_ids as R
    d3 = os.path.join(out, "3d")
    pos, tris, tri_obj, ngroups = R.load_obj(os.path.join(d3, "mesh.obj"))
    rows = []
    for fn in sorted(os.listdir(d3)):
        if not (fn.startswith("view_") and fn.endswith(".json")):
            continue
        view = fn[:-5]
        cam = R.load_camera(os.path.join(d3, fn), pos)
        W, H = cam["width"], cam["height"]
        ids = read_u32(os.path.join(d3, view + ".d3d.u32"), W, H)
        win, w = R.window_coords_cpu(pos, cam)
        P = exact_feed_p(W, H)
        row = {"view": view, "W": W, "H": H, "triangles": int(tris.shape[0]), "groups": ngroups,
               "min_w": float(w.min()), "ndc_z": [float(win[:, 2].min()), float(win[:, 2].max())],
               "x_range": [float(win[:, 0].min()), float(win[:, 0].max())],
               "y_range": [float(win[:, 1].min()), float(win[:, 1].max())]}
        row["no_clipping"] = bool(w.min() > 0 and win[:, 2].min() > -1 and win[:, 2].max() < 1
                                  and np.abs(win[:, :2]).max() <= P)
        tw = win[tris]                                    # (T,3,3) f32 window coords
        masks = C.model_masks(tw[:, :, :2].astype(np.float64), W, H, "d3d", 8, "even", "top")
        union = masks.any(axis=0)
        row["covered"] = int((ids != 0).sum())
        row["visible_ids"] = int(np.unique(ids[ids != 0]).size)
        row["coverage_mismatch"] = int((union != (ids != 0)).sum())
        yy, xx = np.nonzero(ids)
        row["id_not_covering"] = int((~masks[ids[yy, xx].astype(np.int64) - 1, yy, xx]).sum())
        # exact plane depth (f64) of every covering triangle at each pixel centre
        best = np.full((H, W), np.inf)
        second = np.full((H, W), np.inf)
        arg = np.zeros((H, W), dtype=np.int64)
        py, px = np.mgrid[0:H, 0:W]
        cxp, cyp = px + 0.5, py + 0.5
        v = tw.astype(np.float64)
        for t in range(tris.shape[0]):
            m = masks[t]
            if not m.any():
                continue
            (x0, y0, z0), (x1, y1, z1), (x2, y2, z2) = v[t]
            den = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
            if den == 0:
                continue
            qx, qy = cxp[m], cyp[m]
            b1 = ((qx - x0) * (y2 - y0) - (x2 - x0) * (qy - y0)) / den
            b2 = ((x1 - x0) * (qy - y0) - (qx - x0) * (y1 - y0)) / den
            z = z0 + b1 * (z1 - z0) + b2 * (z2 - z0)
            bb, ss = best[m], second[m]
            closer = z < bb
            ss = np.where(closer, bb, np.minimum(ss, z))
            aa = np.where(closer, t + 1, arg[m])
            bb = np.where(closer, z, bb)
            best[m], second[m], arg[m] = bb, ss, aa
        cov = ids != 0
        row["id_is_nearest"] = int((arg[cov] == ids[cov]).sum())
        row["id_not_nearest"] = int((arg[cov] != ids[cov]).sum())
        two = np.isfinite(second)
        with np.errstate(invalid="ignore"):
            gap = np.where(two, second - best, np.inf) * 0.5   # window-depth units
        row["near_ties_1e-6"] = int((cov & (gap < 1e-6)).sum())
        row["min_depth_gap"] = float("%.2g" % gap[cov & two].min()) if (cov & two).any() else None
        row["not_nearest_gaps_max"] = float(gap[cov & (arg != ids)].max()) if row["id_not_nearest"] else 0.0
        depth_path = os.path.join(d3, view + ".d3d.f32")
        if os.path.exists(depth_path):
            dep = read_f32(depth_path, W, H)
            row["depth_bg_is_1"] = bool((dep[~cov] == 1.0).all())
            dd = np.abs(dep[cov].astype(np.float64) - (best[cov] * 0.5 + 0.5))
            row["depth_vs_plane_max_abs"] = float(dd.max()) if dd.size else 0.0
        rows.append(row)
    return rows


def table(rows, cols):
    s = [[str(r.get(c, "")) for c in cols] for r in rows]
    wid = [max(len(c), *(len(x[i]) for x in s)) for i, c in enumerate(cols)]
    out = ["| " + " | ".join(c.ljust(wid[i]) for i, c in enumerate(cols)) + " |",
           "|" + "|".join("-" * (w + 2) for w in wid) + "|"]
    out += ["| " + " | ".join(x[i].rjust(wid[i]) if i else x[i].ljust(wid[i]) for i in range(len(cols))) + " |"
            for x in s]
    return "\n".join(out)


COLS_2D = ["case", "W", "H", "triangles", "cw/ccw/zero", "covered", "visible_ids", "max_hits", "tiling_ok",
           "canvas_W", "plain_diff", "mismatch"]
COLS_3D = ["view", "W", "H", "triangles", "covered", "visible_ids", "coverage_mismatch", "id_not_covering",
           "id_is_nearest", "id_not_nearest", "near_ties_1e-6", "min_depth_gap", "no_clipping"]


# --------------------------------------------------------------------------
# manifest + README
# --------------------------------------------------------------------------


def write_manifest(out, info, rows2, rows3):
    files = {}
    for sub in ("2d", "3d"):
        for fn in sorted(os.listdir(os.path.join(out, sub))):
            p = os.path.join(out, sub, fn)
            files[f"{sub}/{fn}"] = {"bytes": os.path.getsize(p), "sha256": sha256(p)}
    man = {"renderer": info["renderer"], "gl_version": info["version"],
           "generator": "scripts/llvmpipe_fixtures.py",
           "rule": "softpick TopLeft ID buffer == llvmpipe --orient d3d image, pixel for pixel",
           "cases_2d": [{k: r[k] for k in ("case", "W", "H", "triangles", "covered", "canvas_W", "mismatch")}
                        | ({"tiling": True} if "tiling_ok" in r else {}) for r in rows2],
           "views_3d": [{k: r[k] for k in ("view", "W", "H", "triangles", "covered", "coverage_mismatch",
                                           "id_not_covering", "id_not_nearest", "near_ties_1e-6")}
                        for r in rows3],
           "files": files}
    write_json(os.path.join(out, "manifest.json"), man, compact=False)


README = """# llvmpipe reference fixtures (TopLeft fill rule)

Pixel-exact triangle-ID images rendered by Mesa's **llvmpipe** (CPU OpenGL) through the
peer harness in `shared/peers/llvmpipe/` (`render_ids.py`). They are the reference for
softpick's `TopLeft` fill rule.

* Renderer: `GL_RENDERER = {renderer}`, `GL_VERSION = {version}`
* Regenerated with (from the repo root; needs `pip install numpy moderngl glcontext` and
  Debian's `libegl1 libegl-mesa0 libgl1-mesa-dri`):

  ```
  python3 scripts/llvmpipe_fixtures.py            # [--peers ../shared/peers/llvmpipe] [--out tests/fixtures/llvmpipe]
  python3 scripts/llvmpipe_fixtures.py --check    # numpy only: re-verify the files against the model
  ```

  Every input is seeded, so a rerun on the same Mesa build is byte-identical
  (`manifest.json` has the sha256 of each file).

## The rule the Rust test asserts

For every 2D case, rasterize `triangles` in list order into a `width`×`height` ID buffer
(clear 0, triangle *i* writes `i+1`, later triangles overwrite earlier ones, no depth test,
no culling: both windings are drawn) with `FillRule::TopLeft`, treating each coordinate as an
`f32` window coordinate (x right, y **down**, pixel (px,py) centre at (px+0.5, py+0.5)).
The result must equal `NAME.d3d.u32` **pixel for pixel**.

For the 3D views, render `mesh.obj` with `view_X.json` (CONVENTIONS camera: glam `look_at_rh`,
`perspective_rh_gl`, window coordinates in f32 in glam's operation order; depth test LESS, clear
depth 1.0, TopLeft). Coverage (ID ≠ 0) must equal `view_X.d3d.u32` exactly, and so should the whole
ID image: at every covered pixel llvmpipe's ID is the triangle with the least exact (f64) plane depth,
and the nearest and second-nearest covering triangles are at least {min_gap} apart in window depth,
far more than f32 depth interpolation error. If the IDs ever differ, check first whether the two
triangles are near a depth tie (the script's `--check` computes this).

Executable spec of llvmpipe's coverage (matches every file here with 0 differing pixels):
`conformance.model_masks(tri, W, H, "d3d", 8, "even", "top")` in the peer dir: take the f32
coordinate v, compute `(v - 0.5)` in f32, times 256, round half to even (8 fractional bits);
evaluate integer edge functions at pixel (i, j) → (256·i, 256·j); a pixel is inside if every
edge function is > 0, or == 0 on a top edge (horizontal, interior below, in y-down space) or a
left edge; a triangle whose snapped area is 0 covers nothing.

## llvmpipe clips at its viewport: some cases are rendered on a wider canvas

The harness feeds window coordinates exactly through `glViewport(-P,-P,2P,2P)` with P the
smallest power of two ≥ max(W,H). A vertex outside [-P, P] is clipped geometrically by llvmpipe, and the
clipped vertices are rounded: the clipped edges move by a tiny amount, which flips pixels whose
centre lies on such an edge or extremely close to it (plain renders of the cases below differ from the
model on `plain_diff` pixels; when this was written, 201 of the 209 per-triangle differences were exact
ties, i.e. snapped edge function == 0, and they go both ways). A rasterizer that evaluates the
original edges without geometric clipping (the model, and softpick) never sees this, so those pixels
are not a fill-rule property. For every case with a coordinate beyond ±P the script renders on a
canvas `canvas_W` = 2^k ≥ every |coordinate| wide (`--width canvas_W --height H`, so nothing is
clipped) and keeps columns 0..W-1; the case's JSON records this under `"llvmpipe"`. The result then
matches the model with 0 differing pixels, also per triangle (`--check --per-triangle`). The 3D views
need no canvas: all their window coordinates are inside [-P, P] (`no_clipping`).

## Files

| file | what it is |
|---|---|
| `2d/NAME.json` | tri2d input: `{{"width":W,"height":H,"triangles":[[[x0,y0],[x1,y1],[x2,y2]],...]}}` in pixel coordinates (y down). Extra keys: `name`, `note`, `windings` (`cw`/`ccw` as seen on screen, `zero_area`), `tiling` (true = the triangles cover every pixel exactly once), `llvmpipe` (canvas used, see above), and for the conformance cases `pairs`/`probes`. Every number is exactly an f32 (parse as f64 then cast, or parse as f32: same value). |
| `2d/NAME.d3d.u32` | llvmpipe image: `render_ids.py --tri2d 2d/NAME.json --orient d3d --width W --height H --out 2d/NAME.d3d.u32` (with `--width canvas_W` and a crop to columns 0..W-1 where the JSON has `"llvmpipe": {{"canvas_width": ...}}`, see above). Raw little-endian u32, W·H values, row 0 = top, value = triangle index + 1, 0 = background. |
| `3d/mesh.obj` | {ntri} triangles: bumpy UV sphere (`o blob`, 2208 tris) floating above a wavy 16×16 ground grid (`o ground`, 512 tris). Triangle faces only, `%.6f` coordinates chosen so that f64→f32 and direct decimal→f32 parsing agree. |
| `3d/view_X.json` | camera in the CONVENTIONS format (eye/target/up/fov_y_deg/near/far/width/height). All vertices are in front of the near plane and inside the far plane, and all window coordinates stay inside llvmpipe's exact-feed viewport, so nothing is clipped. |
| `3d/view_X.d3d.u32` | `render_ids.py 3d/mesh.obj --camera 3d/view_X.json --orient d3d --transform cpu --width W --height H --out 3d/view_X.d3d.u32 --depth 3d/view_X.d3d.f32` (exact f32 window coordinates in glam's operation order, depth test LESS, D32F). |
| `3d/view_X.d3d.f32` | the matching depth buffer, raw little-endian f32 window depth (0..1, background 1.0). |
| `manifest.json` | renderer, per-case counts and sha256 of every file. |

2D cases: the first nine are `conformance.all_cases()` from the peer dir (shared edges, fans, pixel-centre
edges, zero area, slivers, two random sets, and sub-pixel probes where an edge moves k/2048 px across a
pixel centre). The others come from this script:

{case_notes}

## Verification (`--check`)

2D: llvmpipe image vs `compose(model_masks(...))`; `max_hits` = largest number of triangles covering
one pixel in the model; `tiling_ok` = every pixel covered exactly once.

{table2}

3D: `coverage_mismatch` = pixels where (ID ≠ 0) differs from the union of the model's per-triangle
coverage; `id_not_covering` = pixels whose ID's triangle does not cover them in the model;
`id_is_nearest`/`id_not_nearest` compare the ID with the triangle of least exact (f64) plane depth
at the pixel centre; `near_ties_1e-6` = covered pixels where the two nearest triangles are less than
1e-6 apart in window depth; `min_depth_gap` = the smallest such gap over all covered pixels.

{table3}
"""


def write_readme(out, info, rows2, rows3, cases):
    notes = []
    for c in cases:
        notes.append(f"* `{c['name']}` ({c['width']}×{c['height']}, {len(c['triangles'])} triangles): {c['note']}.")
    ntri = rows3[0]["triangles"] if rows3 else 0
    gaps = [r["min_depth_gap"] for r in rows3 if r.get("min_depth_gap") is not None]
    text = README.format(renderer=info["renderer"], version=info["version"], ntri=ntri,
                         min_gap=("%.1e" % min(gaps)) if gaps else "n/a",
                         case_notes="\n".join(notes), table2=table(rows2, COLS_2D), table3=table(rows3, COLS_3D))
    with open(os.path.join(out, "README.md"), "w") as fh:
        fh.write(text)


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peers", default=os.path.join(REPO, "..", "shared", "peers", "llvmpipe"),
                    help="llvmpipe peer harness dir (default: ../shared/peers/llvmpipe from the repo root)")
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "llvmpipe"))
    ap.add_argument("--check", action="store_true", help="only check the existing fixtures (no GL needed)")
    ap.add_argument("--per-triangle", action="store_true",
                    help="with the check, also render each 2D triangle alone with llvmpipe (needs GL)")
    args = ap.parse_args()
    peers = os.path.abspath(args.peers)
    out = os.path.abspath(args.out)
    if not os.path.exists(os.path.join(peers, "conformance.py")):
        sys.exit(f"peer harness not found in {peers} (use --peers)")
    sys.path.insert(0, peers)

    if not args.check:
        os.makedirs(out, exist_ok=True)
        info = generate(peers, out)
    rows2 = check_2d(out, args.per_triangle, peers)
    rows3 = check_3d(out)
    cols2 = COLS_2D + (["per_tri_mismatch", "rerender_equal"] if args.per_triangle else [])
    print(table(rows2, cols2))
    print()
    print(table(rows3, COLS_3D))
    for r in rows3:
        print(json.dumps({k: r[k] for k in ("view", "min_w", "ndc_z", "x_range", "y_range",
                                              "min_depth_gap", "not_nearest_gaps_max", "depth_bg_is_1",
                                              "depth_vs_plane_max_abs")
                          if k in r}))
    ok = all(r["mismatch"] == 0 and r.get("tiling_ok", True) and r.get("per_tri_mismatch", 0) == 0
             and r.get("rerender_equal", True) for r in rows2)
    ok = ok and all(r["coverage_mismatch"] == 0 and r["id_not_covering"] == 0 and r["no_clipping"]
                    for r in rows3)
    if not args.check:
        write_manifest(out, info, rows2, rows3)
        write_readme(out, info, rows2, rows3, own_cases())
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
