#!/usr/bin/env python3
"""Generate softpick's built-in default scene: models/builtin.obj + models/builtin.mtl.

Deterministic, Python 3 standard library only (no randomness).

Usage:  python3 scripts/gen_builtin.py [--preview out.png]

The scene is laid out for softpick's automatic camera:
    r      = half the diagonal of the bounding box of all vertices
    target = bbox centre
    eye    = centre + (0, 0.2 r, 2.2 r), up = +Y
    fovy   = 45 deg, near = 0.01 r, far = 10 r, aspect 1, 360x360 pixels
    right-handed look-at / OpenGL-style perspective.

Hard requirements (asserted below; the script exits non-zero if violated):
  * exactly 362 triangles after fan triangulation of quads
  * >= 20 separately named meshes (`o` groups), each with a `usemtl`
  * >= 2 exactly zero-area triangles (three distinct, exactly collinear vertices)
  * some triangles project to < 1 px^2; the scene fits in and fills the frame
  * nothing behind the camera / across the near plane
"""

import math
import os
import struct
import sys
import zlib

TARGET_TRIANGLES = 362
MIN_MESHES = 20
WIDTH = HEIGHT = 360

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.normpath(os.path.join(HERE, "..", "models"))
OBJ_PATH = os.path.join(MODELS, "builtin.obj")
MTL_PATH = os.path.join(MODELS, "builtin.mtl")
README_PATH = os.path.join(MODELS, "README.md")

# --------------------------------------------------------------------------
# Materials (diffuse colours only)
# --------------------------------------------------------------------------
MATERIALS = [
    ("slate",      (0.32, 0.36, 0.42)),
    ("terracotta", (0.80, 0.42, 0.28)),
    ("sand",       (0.90, 0.78, 0.55)),
    ("sage",       (0.52, 0.68, 0.50)),
    ("teal",       (0.16, 0.55, 0.60)),
    ("sky",        (0.45, 0.66, 0.90)),
    ("plum",       (0.55, 0.33, 0.60)),
    ("mustard",    (0.88, 0.70, 0.20)),
    ("coral",      (0.95, 0.50, 0.45)),
    ("ivory",      (0.93, 0.91, 0.84)),
    ("crimson",    (0.78, 0.15, 0.22)),
    ("mint",       (0.60, 0.90, 0.78)),
]
MATERIAL_NAMES = {m[0] for m in MATERIALS}


# --------------------------------------------------------------------------
# Mesh building
# --------------------------------------------------------------------------
class Mesh:
    def __init__(self, name, material):
        assert material in MATERIAL_NAMES, material
        self.name = name
        self.material = material
        self.verts = []   # list of (x, y, z)
        self.faces = []   # list of tuples of local 0-based indices (3 or 4)

    def v(self, p):
        self.verts.append(tuple(float(c) for c in p))
        return len(self.verts) - 1

    def tri(self, a, b, c):
        self.faces.append((a, b, c))

    def quad(self, a, b, c, d):
        self.faces.append((a, b, c, d))

    def triangles(self):
        """Triangles (as coordinate triples) in file order, quads fan-split."""
        out = []
        for f in self.faces:
            for k in range(1, len(f) - 1):
                out.append((self.verts[f[0]], self.verts[f[k]], self.verts[f[k + 1]]))
        return out


def rot_y(p, angle_deg, centre):
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    x, y, z = p[0] - centre[0], p[1], p[2] - centre[2]
    return (centre[0] + c * x + s * z, y, centre[2] - s * x + c * z)


def make_grid(name, mat, x0, x1, z0, z1, nx, nz, y=0.0, z_rows=None):
    """Axis-aligned flat grid of quads at height y, facing +Y (CCW from above).
    z_rows optionally replaces the z of whole grid rows (row j -> z)."""
    m = Mesh(name, mat)
    idx = {}
    for j in range(nz + 1):
        for i in range(nx + 1):
            x = x0 + (x1 - x0) * i / nx
            z = z0 + (z1 - z0) * j / nz
            if z_rows and j in z_rows:
                z = z_rows[j]
            idx[i, j] = m.v((x, y, z))
    for j in range(nz):
        for i in range(nx):
            # CCW seen from +Y: (i,j+1) -> (i+1,j+1) -> (i+1,j) -> (i,j)
            m.quad(idx[i, j + 1], idx[i + 1, j + 1], idx[i + 1, j], idx[i, j])
    return m


def make_box(name, mat, centre, size, angle=0.0, y0=0.0):
    """Closed box (8 shared vertices, 6 quads), standing on y0, rotated about Y."""
    m = Mesh(name, mat)
    cx, cz = centre
    sx, sy, sz = size
    c = [cx, 0, cz]
    idx = {}
    for ix in (0, 1):
        for iy in (0, 1):
            for iz in (0, 1):
                p = (cx + (ix - 0.5) * sx, y0 + iy * sy, cz + (iz - 0.5) * sz)
                idx[ix, iy, iz] = m.v(rot_y(p, angle, c))
    V = idx
    m.quad(V[0, 0, 1], V[1, 0, 1], V[1, 1, 1], V[0, 1, 1])  # +Z
    m.quad(V[1, 0, 0], V[0, 0, 0], V[0, 1, 0], V[1, 1, 0])  # -Z
    m.quad(V[1, 0, 1], V[1, 0, 0], V[1, 1, 0], V[1, 1, 1])  # +X
    m.quad(V[0, 0, 0], V[0, 0, 1], V[0, 1, 1], V[0, 1, 0])  # -X
    m.quad(V[0, 1, 1], V[1, 1, 1], V[1, 1, 0], V[0, 1, 0])  # +Y
    m.quad(V[0, 0, 0], V[1, 0, 0], V[1, 0, 1], V[0, 0, 1])  # -Y
    return m


def make_prism(name, mat, centre, radius, y0, y1, sides, phase=0.0):
    """Closed n-gon prism: side quads + fan-triangulated caps."""
    m = Mesh(name, mat)
    cx, cz = centre
    bot, top = [], []
    for k in range(sides):
        a = 2 * math.pi * k / sides + math.radians(phase)
        x, z = cx + radius * math.cos(a), cz - radius * math.sin(a)
        bot.append(m.v((x, y0, z)))
        top.append(m.v((x, y1, z)))
    for k in range(sides):
        k1 = (k + 1) % sides
        m.quad(bot[k], bot[k1], top[k1], top[k])
    for k in range(1, sides - 1):
        m.tri(top[0], top[k], top[k + 1])
    for k in range(1, sides - 1):
        m.tri(bot[0], bot[k + 1], bot[k])
    return m


def make_pyramid(name, mat, centre, half, height, angle=0.0, y0=0.0):
    m = Mesh(name, mat)
    cx, cz = centre
    c = [cx, 0, cz]
    corners = [(-1, 1), (1, 1), (1, -1), (-1, -1)]
    b = [m.v(rot_y((cx + sx * half, y0, cz + sz * half), angle, c)) for sx, sz in corners]
    apex = m.v((cx, y0 + height, cz))
    for k in range(4):
        m.tri(b[k], b[(k + 1) % 4], apex)
    m.quad(b[3], b[2], b[1], b[0])  # base, facing -Y
    return m


def make_uv_sphere(name, mat, centre, radius, stacks, slices):
    m = Mesh(name, mat)
    cx, cy, cz = centre
    top = m.v((cx, cy + radius, cz))
    rings = []
    for i in range(1, stacks):
        th = math.pi * i / stacks
        ring = []
        for j in range(slices):
            ph = 2 * math.pi * j / slices
            ring.append(m.v((cx + radius * math.sin(th) * math.cos(ph),
                             cy + radius * math.cos(th),
                             cz - radius * math.sin(th) * math.sin(ph))))
        rings.append(ring)
    bottom = m.v((cx, cy - radius, cz))
    for j in range(slices):
        j1 = (j + 1) % slices
        m.tri(top, rings[0][j], rings[0][j1])
    for i in range(len(rings) - 1):
        a, b = rings[i], rings[i + 1]
        for j in range(slices):
            j1 = (j + 1) % slices
            m.quad(a[j], b[j], b[j1], a[j1])
    for j in range(slices):
        j1 = (j + 1) % slices
        m.tri(bottom, rings[-1][j1], rings[-1][j])
    return m


def make_cone(name, mat, centre, radius, height, slices, y0=0.0):
    m = Mesh(name, mat)
    cx, cz = centre
    ring = []
    for j in range(slices):
        ph = 2 * math.pi * j / slices
        ring.append(m.v((cx + radius * math.cos(ph), y0, cz - radius * math.sin(ph))))
    apex = m.v((cx, y0 + height, cz))
    for j in range(slices):
        m.tri(ring[j], ring[(j + 1) % slices], apex)
    for j in range(1, slices - 1):
        m.tri(ring[0], ring[j + 1], ring[j])
    return m


def make_octahedron(name, mat, centre, radius, height_scale=1.4):
    """Small gem: octahedron (8 triangles, 6 shared vertices)."""
    m = Mesh(name, mat)
    cx, cy, cz = centre
    px = m.v((cx + radius, cy, cz))
    nz = m.v((cx, cy, cz - radius))
    nx = m.v((cx - radius, cy, cz))
    pz = m.v((cx, cy, cz + radius))
    top = m.v((cx, cy + radius * height_scale, cz))
    bot = m.v((cx, cy - radius * height_scale, cz))
    eq = [px, nz, nx, pz]
    for k in range(4):
        m.tri(eq[k], eq[(k + 1) % 4], top)
        m.tri(eq[(k + 1) % 4], eq[k], bot)
    return m


def make_disc(name, mat, centre, radius, y, segments):
    """Flat finely tessellated disc (fan around a centre vertex), facing +Y."""
    m = Mesh(name, mat)
    cx, cz = centre
    c = m.v((cx, y, cz))
    ring = []
    for j in range(segments):
        ph = 2 * math.pi * j / segments
        ring.append(m.v((cx + radius * math.cos(ph), y, cz - radius * math.sin(ph))))
    for j in range(segments):
        m.tri(c, ring[j], ring[(j + 1) % segments])
    return m


def make_wedge(name, mat, centre, size, angle=0.0):
    """Ramp: triangular prism (2 triangle ends + 3 quads = 8 triangles)."""
    m = Mesh(name, mat)
    cx, cz = centre
    sx, sy, sz = size
    c = [cx, 0, cz]

    def P(x, y, z):
        return m.v(rot_y((cx + x, y, cz + z), angle, c))

    a0, b0, t0 = P(-sx / 2, 0, sz / 2), P(sx / 2, 0, sz / 2), P(sx / 2, sy, sz / 2)
    a1, b1, t1 = P(-sx / 2, 0, -sz / 2), P(sx / 2, 0, -sz / 2), P(sx / 2, sy, -sz / 2)
    m.tri(a0, b0, t0)            # front end (+Z)
    m.tri(b1, a1, t1)            # back end (-Z)
    m.quad(b0, b1, t1, t0)       # vertical +X face
    m.quad(a0, t0, t1, a1)       # slope
    m.quad(a1, b1, b0, a0)       # bottom
    return m


def make_degenerate():
    """Two exactly zero-area triangles: three distinct, exactly collinear
    vertices each, along lines of constant y and z (direction (1, 0, 0)).
    With the automatic camera (eye.x = target.x = 0, up = +Y) such a line
    projects to a horizontal screen line, bit-identically for every x. The
    heights are tuned (by searching with softpick's own f32 projection) so
    the lines land within 1/512 px of the pixel-centre rows y = 284.5 and
    y = 204.5 at 360x360: after snapping, the naive inclusive rule (`>= 0`)
    claims every pixel centre of those rows, across background and meshes,
    which is the false claim of the original pick test."""
    m = Mesh("degenerate_slivers", "crimson")
    a = m.v((-1.5, 0.252544, 0.5))
    b = m.v((0.0, 0.252544, 0.5))
    c = m.v((1.25, 0.252544, 0.5))
    m.tri(a, b, c)
    d = m.v((-1.25, 1.24746, 0.5))
    e = m.v((-0.75, 1.24746, 0.5))
    f = m.v((0.0, 1.24746, 0.5))
    m.tri(d, e, f)
    return m


def build_scene():
    meshes = []
    add = meshes.append
    # ---- big, axis-aligned floor grid (long shared edges) ----------------
    # Rows 2, 4 and 5 (z = -0.5, 0.5, 1.0) are nudged (by searching with
    # softpick's own f32 projection) so these long shared edges land within
    # 1/512 px of the pixel-centre rows y = 278.5, 304.5 and 321.5 at 360x360
    # under the automatic camera: the strict rule (`> 0`) then leaves gap rows
    # along them, the first failure of the original pick test.
    add(make_grid("floor", "slate", -1.5, 1.5, -1.5, 1.5, 6, 6,
                  z_rows={2: -0.512569, 4: 0.503784, 5: 1.010543}))          # 72
    # ---- back row: pillars and tall things ------------------------------
    add(make_prism("pillar_1", "ivory", (-1.2, -1.2), 0.17, 0.0, 3.0, 6))    # 20
    add(make_prism("pillar_2", "ivory", (1.2, -1.2), 0.17, 0.0, 2.7, 6, 30))  # 20
    # lintel rests on pillar_2 and pierces pillar_1 (intersecting meshes)
    add(make_box("lintel", "sand", (0.0, -1.2), (2.75, 0.16, 0.26), 0.0, 2.7))  # 12
    add(make_cone("cone_1", "mustard", (-0.45, -0.85), 0.24, 1.2, 8))        # 14
    add(make_pyramid("pyramid_1", "terracotta", (0.4, -0.65), 0.38, 1.3, 15))  # 6
    # ---- middle row ------------------------------------------------------
    add(make_box("crate_1", "sage", (-0.8, 0.05), (0.6, 0.6, 0.6), 20))      # 12
    add(make_box("crate_2", "teal", (-0.78, 0.05), (0.36, 0.36, 0.36), -15, 0.6))  # 12 (stacked)
    add(make_box("crate_3", "sage", (0.8, 0.2), (0.5, 0.5, 0.5), -30))       # 12
    add(make_uv_sphere("sphere_1", "sky", (0.8, 0.74, 0.2), 0.24, 6, 8))     # 80 (on crate_3)
    add(make_wedge("ramp_1", "plum", (0.0, 0.1), (0.6, 0.4, 0.5), 0))        # 8
    add(make_box("plank_1", "sand", (0.0, 0.1), (1.3, 0.05, 0.2), 0, 0.4))   # 12
    # ---- front row: small things in front of the others -----------------
    add(make_pyramid("pyramid_2", "coral", (-0.3, 0.8), 0.17, 0.34, 30))     # 6
    add(make_box("crate_4", "terracotta", (0.45, 0.85), (0.26, 0.26, 0.26), 40))  # 12
    add(make_disc("tiny_coin_1", "mustard", (0.45, 0.85), 0.04, 0.2625, 14))  # 14 (just above crate_4: no z-fight)
    # gem cluster: sizes from clearly visible down to far below one pixel
    gems = [
        ("tiny_gem_1", "mint",    (-0.05, 1.10), 0.05),
        ("tiny_gem_2", "plum",    (0.10, 1.16), 0.025),
        ("tiny_gem_3", "crimson", (0.02, 1.24), 0.012),
        ("tiny_gem_4", "sky",     (-0.10, 1.22), 0.006),
        ("tiny_gem_5", "mustard", (0.07, 1.30), 0.003),
        ("tiny_gem_6", "coral",   (-0.02, 1.34), 0.0015),
    ]
    for name, mat, (x, z), rad in gems:                                      # 6 * 8
        add(make_octahedron(name, mat, (x, rad * 1.4, z), rad))
    add(make_degenerate())                                                   # 2
    return meshes

# --------------------------------------------------------------------------
# Camera / projection check
# --------------------------------------------------------------------------
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def normalize(a):
    n = math.sqrt(dot(a, a))
    return (a[0] / n, a[1] / n, a[2] / n)


def auto_camera(points):
    lo = [min(p[k] for p in points) for k in range(3)]
    hi = [max(p[k] for p in points) for k in range(3)]
    centre = tuple((lo[k] + hi[k]) / 2 for k in range(3))
    r = 0.5 * math.sqrt(sum((hi[k] - lo[k]) ** 2 for k in range(3)))
    eye = (centre[0], centre[1] + 0.2 * r, centre[2] + 2.2 * r)
    return lo, hi, centre, r, eye


def make_projector(eye, target, up, fovy_deg, aspect, near, far, w, h):
    # right-handed look-at (gluLookAt)
    f = normalize(sub(target, eye))
    s = normalize(cross(f, up))
    u = cross(s, f)
    t = 1.0 / math.tan(math.radians(fovy_deg) / 2)

    def project(p):
        d = sub(p, eye)
        xe, ye, ze = dot(s, d), dot(u, d), -dot(f, d)  # eye space, looks along -Z
        # OpenGL perspective
        cx = t / aspect * xe
        cy = t * ye
        cz = (far + near) / (near - far) * ze + 2 * far * near / (near - far)
        cw = -ze
        assert cw > near * 0.999, "vertex behind camera / crossing near plane: %r" % (p,)
        nx, ny, nz = cx / cw, cy / cw, cz / cw
        sx = (nx * 0.5 + 0.5) * w
        sy = (1 - (ny * 0.5 + 0.5)) * h
        return sx, sy, nz, cw

    return project


def rasterize(tris, project):
    """Tiny flat-shaded z-buffer rasterizer (pixel centres, strict inside test,
    degenerate triangles skipped): used for overlap statistics and --preview."""
    kd = dict(MATERIALS)
    mat_of = {}
    for line in open(OBJ_PATH):
        t = line.split()
        if t and t[0] == "o":
            cur = t[1]
        elif t and t[0] == "usemtl":
            mat_of[cur] = t[1]
    W, H = WIDTH, HEIGHT
    depth = [float("inf")] * (W * H)
    owner = [None] * (W * H)
    image = [(0.08, 0.08, 0.10)] * (W * H)
    cover = {}
    light = normalize((0.4, 0.8, 0.5))
    for mname, a, b, c in tris:
        n = cross(sub(b, a), sub(c, a))
        if n == (0.0, 0.0, 0.0):
            continue
        shade = 0.35 + 0.65 * abs(dot(normalize(n), light))
        col = tuple(shade * k for k in kd[mat_of[mname]])
        (x0, y0, z0, _), (x1, y1, z1, _), (x2, y2, z2, _) = project(a), project(b), project(c)
        area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        if area == 0.0:
            continue
        ix0, ix1 = max(0, int(math.floor(min(x0, x1, x2)))), min(W - 1, int(math.ceil(max(x0, x1, x2))))
        iy0, iy1 = max(0, int(math.floor(min(y0, y1, y2)))), min(H - 1, int(math.ceil(max(y0, y1, y2))))
        for py in range(iy0, iy1 + 1):
            fy = py + 0.5
            for px in range(ix0, ix1 + 1):
                fx = px + 0.5
                w0 = ((x1 - fx) * (y2 - fy) - (x2 - fx) * (y1 - fy)) / area
                w1 = ((x2 - fx) * (y0 - fy) - (x0 - fx) * (y2 - fy)) / area
                w2 = 1.0 - w0 - w1
                if w0 < 0 or w1 < 0 or w2 < 0:
                    continue
                z = w0 * z0 + w1 * z1 + w2 * z2
                k = py * W + px
                cover.setdefault(k, set()).add(mname)
                if z < depth[k]:
                    depth[k] = z
                    owner[k] = mname
                    image[k] = col
    return {
        "covered": len(cover),
        "overlap": sum(1 for v in cover.values() if len(v) >= 2),
        "visible": set(o for o in owner if o is not None),
        "image": image,
    }


def write_png(path, image):
    raw = bytearray()
    for y in range(HEIGHT):
        raw.append(0)
        for x in range(WIDTH):
            raw.extend(max(0, min(255, int(round(c * 255)))) for c in image[y * WIDTH + x])

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    with open(path, "wb") as fh:
        fh.write(b"\x89PNG\r\n\x1a\n")
        fh.write(chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)))
        fh.write(chunk(b"IDAT", zlib.compress(bytes(raw), 9)))
        fh.write(chunk(b"IEND", b""))


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------
def fmt(x):
    s = "%.6f" % x
    if s == "-0.000000":
        s = "0.000000"
    return s


def write_files(meshes):
    os.makedirs(MODELS, exist_ok=True)
    with open(MTL_PATH, "w", newline="\n") as fh:
        fh.write("# softpick built-in scene materials (generated by scripts/gen_builtin.py)\n")
        for name, (r, g, b) in MATERIALS:
            fh.write("\nnewmtl %s\n" % name)
            fh.write("Ka 0.000000 0.000000 0.000000\n")
            fh.write("Kd %s %s %s\n" % (fmt(r), fmt(g), fmt(b)))
            fh.write("Ks 0.000000 0.000000 0.000000\n")
            fh.write("d 1.000000\n")
            fh.write("illum 1\n")
    total = sum(len(m.triangles()) for m in meshes)
    with open(OBJ_PATH, "w", newline="\n") as fh:
        fh.write("# softpick built-in default scene (generated by scripts/gen_builtin.py; do not edit)\n")
        fh.write("# %d meshes, %d triangles after fan triangulation\n" % (len(meshes), total))
        fh.write("mtllib builtin.mtl\n")
        base = 1
        for m in meshes:
            fh.write("\no %s\n" % m.name)
            for p in m.verts:
                fh.write("v %s %s %s\n" % tuple(fmt(c) for c in p))
            fh.write("usemtl %s\n" % m.material)
            for f in m.faces:
                fh.write("f " + " ".join(str(base + i) for i in f) + "\n")
            base += len(m.verts)


def reread_obj(path):
    """Parse the written OBJ back (as tobj would: fan triangulation)."""
    verts, tris, meshes = [], [], []
    for line in open(path):
        t = line.split()
        if not t or t[0].startswith("#"):
            continue
        if t[0] == "v":
            verts.append(tuple(float(c) for c in t[1:4]))
        elif t[0] == "o":
            meshes.append([t[1], None, 0])
        elif t[0] == "usemtl":
            meshes[-1][1] = t[1]
        elif t[0] == "f":
            idx = [int(c) for c in t[1:]]
            idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
            for k in range(1, len(idx) - 1):
                tris.append((meshes[-1][0], verts[idx[0]], verts[idx[k]], verts[idx[k + 1]]))
                meshes[-1][2] += 1
        else:
            assert t[0] in ("mtllib",), t[0]
    return verts, tris, meshes


def main():
    preview = None
    if len(sys.argv) == 3 and sys.argv[1] == "--preview":
        preview = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit("usage: gen_builtin.py [--preview out.png]")
    meshes = build_scene()
    names = [m.name for m in meshes]
    assert len(set(names)) == len(names), "mesh names must be unique"
    write_files(meshes)

    # Everything below checks the file as written (6-decimal coordinates).
    verts, tris, mesh_list = reread_obj(OBJ_PATH)
    lo, hi, centre, r, eye = auto_camera(verts)
    project = make_projector(eye, centre, (0.0, 1.0, 0.0), 45.0, 1.0,
                             0.01 * r, 10.0 * r, WIDTH, HEIGHT)

    areas, zero = [], []
    sxs, sys_ = [], []
    for ti, (mname, a, b, c) in enumerate(tris):
        n = cross(sub(b, a), sub(c, a))
        if n == (0.0, 0.0, 0.0):
            zero.append((ti, mname, a, b, c))
        pa, pb, pc = project(a), project(b), project(c)
        for p in (pa, pb, pc):
            sxs.append(p[0])
            sys_.append(p[1])
            assert -1.0 <= p[2] <= 1.0, "vertex outside depth range"
        area = 0.5 * abs((pb[0] - pa[0]) * (pc[1] - pa[1]) - (pc[0] - pa[0]) * (pb[1] - pa[1]))
        areas.append(area)

    n_sub = sum(1 for a in areas if a < 1.0)
    n_sub_nonzero = sum(1 for i, a in enumerate(areas) if a < 1.0 and i not in {z[0] for z in zero})
    zero_ids = {z[0] for z in zero}
    nonzero = [a for i, a in enumerate(areas) if i not in zero_ids]
    bx0, bx1, by0, by1 = min(sxs), max(sxs), min(sys_), max(sys_)
    cover = (max(0.0, min(bx1, WIDTH) - max(bx0, 0.0)) *
             max(0.0, min(by1, HEIGHT) - max(by0, 0.0))) / (WIDTH * HEIGHT)

    print("scene bbox        : min (%.4f, %.4f, %.4f)  max (%.4f, %.4f, %.4f)" % (*lo, *hi))
    print("camera            : r = %.4f  target = (%.4f, %.4f, %.4f)  eye = (%.4f, %.4f, %.4f)"
          % (r, *centre, *eye))
    print("total triangles   : %d" % len(tris))
    print("meshes            : %d" % len(mesh_list))
    print("materials         : %d" % len(MATERIALS))
    print("tris < 1 px^2     : %d (of which %d non-degenerate)" % (n_sub, n_sub_nonzero))
    print("projected area    : min %.6g px^2, max %.6g px^2 (min over non-degenerate tris %.6g px^2)"
          % (min(areas), max(areas), min(nonzero)))
    print("zero-area tris    : %d (3D cross product exactly zero)" % len(zero))
    for ti, mname, a, b, c in zero:
        print("   tri #%d in %s: %s %s %s" % (ti, mname, a, b, c))
    print("projected bbox    : x [%.1f, %.1f]  y [%.1f, %.1f] px" % (bx0, bx1, by0, by1))
    print("frame coverage    : %.3f of %dx%d (projected scene bbox)" % (cover, WIDTH, HEIGHT, ))
    ras = rasterize(tris, project)
    print("raster (z-buffer) : %d px covered, %d px covered by >= 2 meshes, %d/%d meshes visible"
          % (ras["covered"], ras["overlap"], len(ras["visible"]), len(mesh_list)))
    for ti, mname, a, b, c in zero:
        pa, pb, pc = project(a), project(b), project(c)
        print("   zero-area tri #%d projects to (%.3f, %.3f) (%.3f, %.3f) (%.3f, %.3f) px"
              % (ti, pa[0], pa[1], pb[0], pb[1], pc[0], pc[1]))
    if preview:
        write_png(preview, ras["image"])
        print("preview written to %s" % preview)
    print("mesh list:")
    for name, mat, cnt in mesh_list:
        print("   %-20s %-11s %3d" % (name, mat, cnt))

    # ---- hard requirements -------------------------------------------
    errors = []
    if len(tris) != TARGET_TRIANGLES:
        errors.append("triangle count %d != %d" % (len(tris), TARGET_TRIANGLES))
    if len(mesh_list) < MIN_MESHES:
        errors.append("only %d meshes (< %d)" % (len(mesh_list), MIN_MESHES))
    if any(mat is None for _, mat, _ in mesh_list):
        errors.append("mesh without usemtl")
    if len(zero) < 2:
        errors.append("fewer than 2 zero-area triangles")
    for ti, mname, a, b, c in zero:
        if a == b or b == c or a == c:
            errors.append("zero-area triangle #%d has coincident vertices" % ti)
    if ras["overlap"] < 1000:
        errors.append("too little depth overlap between meshes")
    if n_sub_nonzero < 1:
        errors.append("no non-degenerate sub-pixel triangle")
    if not (bx0 >= 0 and by0 >= 0 and bx1 <= WIDTH and by1 <= HEIGHT):
        errors.append("scene does not fit in the frame")
    if cover < 0.5:
        errors.append("scene covers only %.3f of the frame" % cover)
    if errors:
        for e in errors:
            print("ERROR: " + e, file=sys.stderr)
        sys.exit(1)
    write_readme(mesh_list, len(tris))
    print("wrote %s, %s, %s" % (OBJ_PATH, MTL_PATH, README_PATH))


def write_readme(mesh_list, total):
    lines = [
        "# models",
        "",
        "`builtin.obj` / `builtin.mtl` is softpick's built-in default scene. The OBJ is",
        "embedded into the binary and loaded with `tobj` (triangulate on, single index).",
        "",
        "It is **generated** — do not edit by hand. Regenerate with:",
        "",
        "    python3 scripts/gen_builtin.py",
        "",
        "(Python 3 standard library only, deterministic.) The script also projects the",
        "scene with the automatic camera (360×360) and asserts the requirements:",
        "exactly %d triangles after fan triangulation (the size of the model in the" % TARGET_TRIANGLES,
        "original 2006 pick test), >= 20 named meshes each with its own material, shared",
        "edges (grids, fans, closed boxes, sphere, cone), triangles down to sub-pixel size,",
        "overlapping objects at different depths, and 2 exactly zero-area triangles",
        "(three distinct collinear vertices, mesh `degenerate_slivers`) whose lines cross",
        "much of the frame.",
        "",
        "`python3 scripts/gen_builtin.py --preview /tmp/builtin.png` additionally writes a",
        "flat-shaded z-buffer preview of the default view.",
        "",
        "Meshes (file order; triangles after fan triangulation):",
        "",
        "| mesh | material | triangles |",
        "|------|----------|----------:|",
    ]
    for name, mat, cnt in mesh_list:
        lines.append("| `%s` | %s | %d |" % (name, mat, cnt))
    lines.append("| **total** | | **%d** |" % total)
    lines.append("")
    with open(README_PATH, "w", newline="\n") as fh:
        fh.write("\n".join(lines))


if __name__ == "__main__":
    main()
