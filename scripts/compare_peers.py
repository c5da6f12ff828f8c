#!/usr/bin/env python3
"""Runs softpick and the peer harnesses of ../shared/peers on the same models and
cameras in one run, and prints the ratio table of issue 6 (Markdown).

Called by scripts/compare_peers.sh after the installs; it can also run on its own:

  scripts/compare_peers.py [--quick] [--out DIR] [--models NAME,...] [--max-wait S]
                           [--ray-cap S] [--table-only RESULTS.jsonl]

Every timed run waits first until the machine is idle (see wait_idle), records the
1-minute load average before it and the CPU that *other* processes used during it,
and repeats a disturbed run (keeping the least disturbed one). Raw JSON lines go to
OUT/results.jsonl (one per measured configuration), the table to OUT/table.md.
"""
import argparse
import datetime
import json
import os
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.normpath(os.path.join(ROOT, "..", "shared", "peers"))
SHARED_MODELS = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))

# name -> (path relative to OUT/models or absolute); order = triangle count
# in order of priority (the issue-6 targets name 362, ~70k and ~1M triangles)
FULL_MODELS = ["builtin", "sphere70k", "sphere1m", "bunny_3k", "snowden_bust",
               "city_san_francisco", "blob362"]
QUICK_MODELS = ["builtin", "sphere70k"]
SIZES = [(360, 360), (1920, 1080)]

LOAD_MAX = 0.8          # 1-minute load average under which the machine counts as idle
OTHER_IDLE = 0.10       # ... or: cores used by other processes in a 2 s sample
OTHER_RETRY = 0.25      # a run during which others used more cores than this is repeated


def log(*a):
    print("[compare_peers]", *a, file=sys.stderr, flush=True)


def loadavg1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def cpu_busy_jiffies():
    """(busy, total) jiffies of all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]  # idle + iowait
    total = sum(v[:8])  # guest time is already counted in user
    return total - idle, total


def children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def self_cpu_s():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


HZ = os.sysconf("SC_CLK_TCK")
NCPU = os.cpu_count() or 1


def others_busy(seconds):
    """Cores used by processes other than this one over `seconds` (we sleep meanwhile)."""
    b0, _ = cpu_busy_jiffies()
    s0 = self_cpu_s()
    time.sleep(seconds)
    b1, _ = cpu_busy_jiffies()
    own = self_cpu_s() - s0
    return max(0.0, ((b1 - b0) / HZ - own) / seconds)


def wait_idle(max_wait):
    """Waits until the machine is idle: the 1-minute load average below LOAD_MAX with
    other processes using < 0.3 cores in a 1 s sample, or other processes using less
    than OTHER_IDLE cores in that sample (our own previous runs keep the load average
    up for a minute or more, and on a shared machine quiet moments are short, so the
    sample is taken continuously). Gives up after max_wait seconds. Returns (load
    before, others' cores in the last sample, seconds waited, idle reached)."""
    t0 = time.time()
    last_log = 0.0
    while True:
        la = loadavg1()
        busy = others_busy(1.0)
        if (la < LOAD_MAX and busy < 0.3) or busy < OTHER_IDLE:
            return la, busy, time.time() - t0, True
        if time.time() - t0 > max_wait:
            log(f"machine still busy after {max_wait:.0f} s (load {la:.2f}, others {busy:.2f} cores); running anyway")
            return la, busy, time.time() - t0, False
        if time.time() - last_log > 20:
            log(f"waiting for an idle machine: load {la:.2f}, other processes {busy:.2f} cores")
            last_log = time.time()


class Runner:
    def __init__(self, args, out):
        self.args = args
        self.out = out
        self.results = open(os.path.join(out, "results.jsonl"), "w")
        self.records = []
        self.failures = []
        self.commit = args.commit or git_commit()
        self.last_idle = True

    def write(self, rec):
        self.results.write(json.dumps(rec) + "\n")
        self.results.flush()
        self.records.append(rec)

    def measure(self, tool, model, size, cmd, cwd=None, env=None, tries=None):
        """Runs cmd (prints JSON lines on stdout) on an idle machine; returns the list
        of parsed JSON objects of the least disturbed try (or [] on failure)."""
        tries = tries or self.args.tries
        best = None
        for i in range(tries):
            # after a wait that timed out, wait less: on a saturated machine waiting is
            # wasted, while a quiet moment is still caught by the continuous sampling
            la, busy0, waited, idle = wait_idle(self.args.max_wait if self.last_idle
                                                else max(10.0, self.args.max_wait / 4))
            self.last_idle = idle
            b0, _ = cpu_busy_jiffies()
            c0, s0 = children_cpu_s(), self_cpu_s()
            t0 = time.time()
            try:
                p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, timeout=self.args.timeout)
            except subprocess.TimeoutExpired:
                self.failures.append(f"{tool} {model} {size}: timed out after {self.args.timeout} s")
                log(self.failures[-1])
                return []
            wall = time.time() - t0
            b1, _ = cpu_busy_jiffies()
            child = children_cpu_s() - c0
            own = self_cpu_s() - s0
            other = max(0.0, ((b1 - b0) / HZ - child - own) / wall)
            if p.returncode != 0:
                err = (p.stderr or "").strip().splitlines()[-3:]
                self.failures.append(f"{tool} {model} {size}: exit {p.returncode}: {' | '.join(err)}")
                log(self.failures[-1])
                return []
            lines = []
            for ln in p.stdout.splitlines():
                ln = ln.strip()
                if ln.startswith("{"):
                    try:
                        lines.append(json.loads(ln))
                    except json.JSONDecodeError:
                        pass
            if not lines:
                self.failures.append(f"{tool} {model} {size}: no JSON on stdout")
                log(self.failures[-1])
                return []
            meta = {"load1_before": la, "others_before": round(busy0, 3),
                    "others_during": round(other, 3), "waited_s": round(waited, 1),
                    "idle_reached": idle, "wall_s": round(wall, 2), "try": i + 1}
            if best is None or other < best[0]["others_during"]:
                best = (meta, lines)
            if other <= OTHER_RETRY or not idle:
                break  # good, or the machine was busy anyway: a retry would not help
            log(f"{tool} {model} {size}: other processes used {other:.2f} cores during the run; again")
        meta, lines = best
        for d in lines:
            self.write({"tool": tool, "model": model, "size": size, "commit": self.commit,
                        "cmd": " ".join(shlex_quote(c) for c in cmd), **meta, "data": d})
        log(f"{tool:<16} {model:<20} {size:<10} load {meta['load1_before']:.2f} "
            f"others {meta['others_during']:.2f} wall {meta['wall_s']:.1f} s")
        return lines


def shlex_quote(s):
    import shlex
    return shlex.quote(os.path.relpath(s, ROOT) if os.path.isabs(s) and s.startswith(ROOT) else s)


def git_commit():
    try:
        h = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                           capture_output=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "src"],
                               cwd=ROOT, text=True, capture_output=True).stdout.strip()
        return h + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"


def model_path(name, work):
    if name == "builtin":
        return os.path.join(ROOT, "models", "builtin.obj")
    gen = os.path.join(work, "models", name + ".obj")
    if os.path.exists(gen):
        return gen
    shared = os.path.join(SHARED_MODELS, name + ".obj")
    if os.path.exists(shared):
        return shared
    return None


def run_all(args):
    work = os.path.abspath(args.work)         # installs and generated models
    out = os.path.abspath(args.out or args.work)  # results
    os.makedirs(os.path.join(out, "img"), exist_ok=True)
    py = args.python
    sp = args.softpick
    rc = os.path.join(work, "raycast")          # the npm-installed copy
    rust = os.path.join(work, "rust", "target", "release")
    models = args.models.split(",") if args.models else (QUICK_MODELS if args.quick else FULL_MODELS)
    q = args.quick
    r = Runner(args, out)
    r.write({"tool": "meta", "date": datetime.datetime.now().isoformat(timespec="seconds"),
             "commit": r.commit, "nproc": NCPU, "quick": q, "models": models,
             "cpu": cpu_model(), "uname": os.uname().release})
    t_start = time.time()
    def thread_ceiling_at(when):
        # the machine's own ceiling for the 2-threads-vs-1 target
        r.measure("thread-ceiling", "-", when, [sp, "bench-threads", "--threads", "2", "--json"],
                  tries=1)

    thread_ceiling_at("start")  # and at the "end", after the models
    ray_ms = {}  # (model, threads) -> softpick ray sweep ms at 360x360
    have_three = os.path.exists(os.path.join(rc, "node_modules", "three-mesh-bvh"))
    have_euc = os.path.exists(os.path.join(rust, "euc_ids"))
    have_parry = os.path.exists(os.path.join(rust, "parry_sweep"))
    for name, why in [("three-mesh-bvh", have_three), ("euc", have_euc), ("parry3d", have_parry)]:
        if not why:
            r.failures.append(f"{name}: not installed/built, skipped")
            log(r.failures[-1])
    for name in models:
        m = model_path(name, work)
        if m is None:
            r.failures.append(f"model {name}: not found, skipped")
            log(r.failures[-1])
            continue
        big = os.path.getsize(m) > 5_000_000
        for (w, h) in SIZES:
            size = f"{w}x{h}"
            cam = os.path.join(PEERS, "raycast", "auto_360.json" if w == 360 else "auto_1080p.json")
            hd = w > 360
            frames = 5 if q else (20 if big or hd else 50)
            min_t = "0.3" if q else "1"
            sweep_reps = "2" if q else ("3" if hd or big else "5")
            emb_reps = "3" if q else "10"
            img = os.path.join(out, "img", f"{name}_{size}")
            # --- renders
            r.measure("llvmpipe", name, size,
                      [py, os.path.join(PEERS, "llvmpipe", "render_ids.py"), m, "--width", str(w),
                       "--height", str(h), "--bench", str(frames), "--threads", "2",
                       "--min-time", min_t])
            # llvmpipe's other ID path (flat per-vertex ID, de-indexed draw): same image,
            # faster on big meshes; the faster of the two is llvmpipe's best configuration
            r.measure("llvmpipe-attr", name, size,
                      [py, os.path.join(PEERS, "llvmpipe", "render_ids.py"), m, "--width", str(w),
                       "--height", str(h), "--bench", str(frames), "--threads", "2",
                       "--min-time", min_t, "--id-source", "attr"])
            r.measure("softpick-render", name, size,
                      [sp, "bench-render", m, "--size", size, "--threads", "2", "--frames",
                       str(frames), "--min-time", min_t, "--json"])
            if hd:  # the 2-threads-vs-1 target is about 1080p
                # both counts in one run, in alternating blocks of frames, so that a change
                # in the machine's load touches both (as two runs seconds apart, the city's 1080p
                # ratio was 1.77x and 1.94x in runs 37 and 38, same depth + ID render code)
                r.measure("softpick-render-scaling", name, size,
                          [sp, "bench-render", m, "--size", size, "--threads", "2", "--pass",
                           "ids", "--against-one-thread", "--frames", str(frames),
                           "--min-time", str(2 * float(min_t)), "--json"])
            if have_euc:
                r.measure("euc", name, size,
                          [os.path.join(rust, "euc_ids"), m, "--size", size, "--bench",
                           str(min(frames, 20)), "--min-time", min_t])
            # --- sweeps
            r.measure("embree-2t", name, size,
                      [py, os.path.join(PEERS, "raycast", "embree_sweep.py"), m, cam, img + "_embree.u32",
                       "--reps", emb_reps, "--threads", "2"])
            r.measure("embree-1t", name, size,
                      [py, os.path.join(PEERS, "raycast", "embree_sweep.py"), m, cam, img + "_embree1.u32",
                       "--reps", emb_reps, "--threads", "1", "--build-reps", "1"])
            if have_three and w == 360:
                r.measure("three-mesh-bvh", name, size,
                          ["node", os.path.join(rc, "three_sweep.mjs"), m, cam, img + "_three.u32",
                           "--bvh", "--reps", "2" if q else "3"], cwd=rc)
            if have_parry:
                r.measure("parry3d-2t", name, size,
                          [os.path.join(rust, "parry_sweep"), m, "--size", size, "--threads", "2",
                           "--reps", sweep_reps, "--build-reps", "3", "--min-time", min_t])
            # softpick's ray sweep can be very slow on scenes of many meshes: estimate it from
            # the 360x360 sweep and cut the repetitions, or skip it beyond --ray-cap seconds
            scale = w * h / (360 * 360)
            est2 = ray_ms.get((name, 2), 0) * scale / 1e3
            est1 = ray_ms.get((name, 1), 0) * scale / 1e3
            if est2 > args.ray_cap:
                for meth in ("buffer", "direct"):
                    r.measure("softpick-sweep", name, size,
                              [sp, "sweep", m, "--size", size, "--threads", "2", "--method", meth,
                               "--reps", sweep_reps, "--min-time", min_t, "--json"])
                r.failures.append(f"softpick ray sweep {name} {size}: skipped, about {est2:.0f} s (2T) / "
                                  f"{est1:.0f} s (1T) per sweep from the 360x360 figure (> --ray-cap {args.ray_cap:g} s)")
                log(r.failures[-1])
            else:
                reps2 = "1" if est2 * int(sweep_reps) > args.ray_cap else sweep_reps
                got = r.measure("softpick-sweep", name, size,
                                [sp, "sweep", m, "--size", size, "--threads", "2", "--reps", reps2,
                                 "--min-time", min_t, "--json"])
                for d in got:
                    if d.get("method") == "ray" and w == 360:
                        ray_ms[(name, 2)] = d["sweep_ms"]
                est1 = est1 or ray_ms.get((name, 2), 0) * 2 * scale / 1e3
                if est1 > args.ray_cap:
                    r.failures.append(f"softpick ray sweep 1T {name} {size}: skipped, about {est1:.0f} s per sweep")
                    log(r.failures[-1])
                else:
                    reps1 = "1" if est1 * int(sweep_reps) > args.ray_cap else sweep_reps
                    got = r.measure("softpick-sweep-1t", name, size,
                                    [sp, "sweep", m, "--size", size, "--threads", "1", "--method", "ray",
                                     "--reps", reps1, "--min-time", min_t, "--json"])
                    for d in got:
                        if w == 360:
                            ray_ms[(name, 1)] = d["sweep_ms"]
            # --- same picture? softpick's ID buffer and its ray picks against Embree's
            # (untimed; compare_u32.py with the model and camera also counts the pixels
            # where the two triangles lie at equal depth: coplanar overlaps, whose order
            # is each tool's own)
            spimg, rayimg = img + "_softpick.u32", img + "_softpick_ray.u32"
            for tool, made, cmd in (
                    ("agreement", spimg, [sp, "render", m, "--size", size, "--no-color",
                                          "--ids-raw", spimg]),
                    ("agreement-ray", rayimg, [sp, "pickmap", m, "--size", size, "--method",
                                               "ray", "--ids-raw", rayimg])):
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode == 0 and os.path.exists(img + "_embree.u32"):
                    c = subprocess.run([py, os.path.join(PEERS, "raycast", "compare_u32.py"), made,
                                        img + "_embree.u32", str(w), str(h), "--json",
                                        "--obj", m, "--camera", cam],
                                       capture_output=True, text=True)
                    for ln in c.stdout.splitlines():
                        if ln.startswith("{"):
                            r.write({"tool": tool, "model": name, "size": size,
                                     "data": json.loads(ln)})
            for f in (spimg, rayimg, img + "_embree.u32", img + "_embree1.u32", img + "_three.u32"):
                if os.path.exists(f):
                    os.remove(f)
    thread_ceiling_at("end")
    total = time.time() - t_start
    r.write({"tool": "meta-end", "total_s": round(total, 1), "failures": r.failures})
    r.results.close()
    return r.records, r.failures, total


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


# ---------------------------------------------------------------- the table

def index(records):
    """(tool, model, size) -> list of data dicts, plus per-record meta."""
    idx = {}
    for rec in records:
        if rec.get("tool", "").startswith("meta"):
            continue
        idx.setdefault((rec["tool"], rec["model"], rec["size"]), []).append(rec)
    return idx


def pick(idx, tool, model, size, **match):
    for rec in idx.get((tool, model, size), []):
        d = rec["data"]
        if all(d.get(k) == v for k, v in match.items()):
            return d, (rec.get("load1_before"), rec.get("others_during")), None
    return None, (None, None), None


def fmt_ms(v):
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def tri_count(idx, model):
    for (tool, m, _), recs in idx.items():
        if m == model:
            for rec in recs:
                t = rec["data"].get("triangles")
                if t:
                    return int(t)
    return 0


def build_rows(records):
    idx = index(records)
    models = []
    for rec in records:
        if rec.get("tool") not in ("meta", "meta-end", "agreement", "agreement-ray", "thread-ceiling") and rec["model"] not in models:
            models.append(rec["model"])
    models.sort(key=lambda m: tri_count(idx, m))
    sizes = [f"{w}x{h}" for w, h in SIZES]
    big = lambda m: tri_count(idx, m) >= 50_000  # the ~70k and ~1M targets
    rows = []  # (target, model, size, peer label, peer ms, softpick label, sp ms, ratio, goal, applies, loads)

    def add(target, model, size, plabel, pv, plload, slabel, sv, slload, goal, applies=True):
        ratio = pv / sv if (pv and sv) else None
        rows.append(dict(target=target, model=model, tris=tri_count(idx, model), size=size,
                         peer=plabel, peer_ms=pv, sp=slabel, sp_ms=sv, ratio=ratio, goal=goal,
                         applies=applies, load=(plload, slload)))

    for model in models:
        for size in sizes:
            llvm, ll, _ = pick(idx, "llvmpipe", model, size)
            lattr, lla, _ = pick(idx, "llvmpipe-attr", model, size)
            ids, sl, _ = pick(idx, "softpick-render", model, size, **{"pass": "ids"})
            col, sl2, _ = pick(idx, "softpick-render", model, size, **{"pass": "color"})
            ids1, sl1, _ = pick(idx, "softpick-render-scaling", model, size, threads=1)
            ids2, sl2t, _ = pick(idx, "softpick-render-scaling", model, size, threads=2)
            euc, el, _ = pick(idx, "euc", model, size)
            e2, e2l, _ = pick(idx, "embree-2t", model, size)
            e1, e1l, _ = pick(idx, "embree-1t", model, size)
            th, thl, _ = pick(idx, "three-mesh-bvh", model, size)
            pa, pal, _ = pick(idx, "parry3d-2t", model, size)
            buf, bl, _ = pick(idx, "softpick-sweep", model, size, method="buffer")
            dire, dl, _ = pick(idx, "softpick-sweep", model, size, method="direct")
            ray, rl, _ = pick(idx, "softpick-sweep", model, size, method="ray")
            ray1, rl1, _ = pick(idx, "softpick-sweep-1t", model, size, method="ray")
            g = lambda d, k: d.get(k) if d else None
            # llvmpipe's best configuration: the faster of its two ID paths
            llv, llab = g(llvm, "ms_per_frame"), "llvmpipe ID+depth (primid)"
            lav = g(lattr, "ms_per_frame")
            if lav and (not llv or lav < llv):
                llv, ll, llab = lav, lla, "llvmpipe ID+depth (attr)"
            add("render ids (2T) vs llvmpipe", model, size, llab, llv, ll,
                "ids median", g(ids, "median_ms"), sl, 2.0)
            add("render color (2T) vs llvmpipe", model, size, llab, llv, ll,
                "color median", g(col, "median_ms"), sl2, 2.0)
            add("render ids vs euc 0.5.3 (1T)", model, size, "euc", g(euc, "ms_per_frame"), el,
                "ids median (2T)", g(ids, "median_ms"), sl, 1.0)
            if model == "builtin" and size == "1920x1080" and ids:
                add("builtin 1080p within 3× of fill floor", model, size, "3× fill floor",
                    3 * ids["fill_floor_ms"], sl, "ids median", ids["median_ms"], sl, 1.0)
            e2min = g(e2, "sweep_ms_min")
            bsum = (buf["setup_ms"] + buf["sweep_ms"]) if buf else None
            add("buffer sweep (render + W·H lookups, 2T) vs Embree 2T", model, size, "Embree 2T sweep",
                e2min, e2l, "render+lookups", bsum, bl, 10.0)
            add("direct sweep (2T) vs Embree 2T", model, size, "Embree 2T sweep", e2min, e2l,
                "direct sweep", g(dire, "sweep_ms"), dl, 1.0)
            add("ray sweep per thread (1T) vs Embree 1T", model, size, "Embree 1T sweep",
                g(e1, "sweep_ms_min"), e1l, "ray sweep 1T", g(ray1, "sweep_ms"), rl1, 1.0,
                applies=big(model))
            if th:
                add("ray sweep (1T) vs three-mesh-bvh (1T)", model, size, "three-mesh-bvh sweep",
                    g(th, "sweep_ms_min"), thl, "ray sweep 1T", g(ray1, "sweep_ms"), rl1, 10.0)
            add("ray sweep (2T) vs parry3d 2T", model, size, "parry3d 2T sweep", g(pa, "sweep_ms_min"),
                pal, "ray sweep 2T", g(ray, "sweep_ms"), rl, 1.0)
            add("BVH build vs Embree build", model, size, "Embree rtcCommitScene", g(e2, "build_ms"),
                e2l, "BVH build", g(ray, "setup_ms"), rl, 1.0)
            # the direct sweep's own acceleration structure (built after the render), for
            # the same comparison as the BVH build (not an issue-6 target of its own)
            add("direct cell index build vs Embree build", model, size, "Embree rtcCommitScene",
                g(e2, "build_ms"), e2l, "cell index build", g(dire, "index_ms"), dl, 1.0,
                applies=False)
            if ids1 and ids2:
                add("2 threads vs 1 (ids render)", model, size, "ids median 1T", g(ids1, "median_ms"),
                    sl1, "ids median 2T", g(ids2, "median_ms"), sl2t, 1.8,
                    applies=big(model) and size == "1920x1080")
    order = []
    for r in rows:
        if r["target"] not in order:
            order.append(r["target"])
    rows.sort(key=lambda r: order.index(r["target"]))  # stable: models and sizes stay in order
    return rows


def table(rows):
    out = []
    target = None
    for r in rows:
        if r["target"] != target:
            target = r["target"]
            out.append("")
            out.append(f"**{target}** (goal: ratio ≥ {r['goal']:g})")
            out.append("")
            out.append("| model | triangles | size | peer | peer ms | softpick | softpick ms | ratio | met | load1 (others' cores): peer / softpick |")
            out.append("|---|---:|---|---|---:|---|---:|---:|---|---|")
        ratio = f"{r['ratio']:.2f}×" if r["ratio"] else "–"
        if r["ratio"] is None:
            met = "no data"
        else:
            met = "**met**" if r["ratio"] >= r["goal"] else "not met"
            if not r["applies"]:
                met = f"({'met' if r['ratio'] >= r['goal'] else 'not met'}; no target here)"
        lo = " / ".join("–" if v[0] is None else f"{v[0]:.1f} ({v[1]:.2f})" for v in r["load"])
        out.append(f"| {r['model']} | {r['tris']:,} | {r['size'].replace('x', '×')} | {r['peer']} | "
                   f"{fmt_ms(r['peer_ms'])} | {r['sp']} | {fmt_ms(r['sp_ms'])} | {ratio} | {met} | {lo} |")
    return "\n".join(out).strip() + "\n"


def summary(rows):
    """Met / not met counts per target (only rows where the target applies)."""
    s = {}
    for r in rows:
        if r["ratio"] is None or not r["applies"]:
            continue
        k = r["target"]
        a = s.setdefault(k, [0, 0])
        a[0 if r["ratio"] >= r["goal"] else 1] += 1
    lines = ["| target | goal | met | not met |", "|---|---:|---:|---:|"]
    goals = {r["target"]: r["goal"] for r in rows}
    for k, (m, n) in s.items():
        lines.append(f"| {k} | ≥ {goals[k]:g}× | {m} | {n} |")
    return "\n".join(lines) + "\n"


def thread_ceiling(records):
    """The sentence on the machine's own 2-threads-vs-1 ceiling (softpick bench-threads)."""
    got, mem = [], []
    for rec in records:
        if rec.get("tool") == "thread-ceiling" and isinstance(rec.get("data"), dict):
            d = rec["data"]
            got.append(f"{d['ratio_median']:.2f}× median ({d['ratio_min']:.2f}–{d['ratio_max']:.2f}×, "
                        f"{d['rounds']} rounds) at the {rec['size']}")
            if "memory_ratio_median" in d:
                mem.append(f"{d['memory_ratio_median']:.2f}× median ({d['memory_ratio_min']:.2f}–"
                           f"{d['memory_ratio_max']:.2f}×) at the {rec['size']}")
    if not got:
        return ""
    out = ("This machine's own ceiling for the 2-threads-vs-1 target (`softpick bench-threads`: "
           "pure computation in registers, 2 threads at once vs 1 alone): "
           + "; ".join(got) + ".")
    if mem:
        out += (" For memory traffic (each thread writes 64 MiB and reads it back): "
                + "; ".join(mem) + ".")
    return out + "\n"


def agreement(records, tool="agreement"):
    """One line per frame of a comparison with Embree's IDs: pixels that differ, those
    inside a triangle (not on an ID boundary), and those where the two triangles tie in
    depth (coplanar overlaps)."""
    lines = []
    for rec in records:
        if rec.get("tool") == tool:
            d = rec["data"]
            hits = max(d.get("hit_pixels_a", 0), d.get("hit_pixels_b", 0), 1)
            tie = d.get("tri_vs_tri_depth_tie")
            lines.append(f"{rec['model']} {rec['size']}: {d.get('differ')} px differ "
                         f"({d.get('differ_interior')} interior"
                         + (f", {tie} at equal depth" if tie is not None else "")
                         + f"; {100 * (1 - d.get('differ', 0) / hits):.3f} % of hits agree)")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer reps; builtin and sphere70k only")
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "peers"),
                    help="where compare_peers.sh installed the peers and generated the models")
    ap.add_argument("--out", help="directory of results.jsonl and table.md (default: --work)")
    ap.add_argument("--models", help="comma list of model names (default: all, or the quick set)")
    ap.add_argument("--softpick", default=os.path.join(ROOT, "target", "peers", "bin", "softpick"),
                    help="softpick binary (the script copies target/release/softpick there)")
    ap.add_argument("--commit", help="what softpick was built from (default: git rev-parse HEAD)")
    ap.add_argument("--python", default=sys.executable, help="python with numpy/moderngl/embreex")
    ap.add_argument("--max-wait", type=float, default=180, help="seconds to wait for an idle machine per run")
    ap.add_argument("--tries", type=int, default=3, help="runs of a disturbed measurement")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run")
    ap.add_argument("--ray-cap", type=float, default=120,
                    help="skip softpick's ray sweep where one sweep is estimated to take longer (s)")
    ap.add_argument("--table-only", metavar="RESULTS.jsonl", help="only print the table of a results file")
    args = ap.parse_args()
    if args.table_only:
        with open(args.table_only) as f:
            records = [json.loads(ln) for ln in f if ln.strip()]
        failures, total = [], None
        for rec in records:
            if rec.get("tool") == "meta-end":
                failures, total = rec.get("failures", []), rec.get("total_s")
    else:
        records, failures, total = run_all(args)
    rows = build_rows(records)
    text = table(rows)
    meta = next((r for r in records if r.get("tool") == "meta"), {})
    head = (f"softpick {meta.get('commit')} vs peers, {meta.get('date')}, nproc {meta.get('nproc')}, "
            f"{meta.get('cpu')}{' (quick)' if meta.get('quick') else ''}\n")
    agree = agreement(records)
    ceiling = thread_ceiling(records)
    body = head + "\n" + summary(rows) + "\n" + (ceiling + "\n" if ceiling else "") + text
    if agree:
        body += "\nsoftpick ID buffer vs Embree 2T IDs (compare_u32.py): " + "; ".join(agree) + "\n"
    agree_ray = agreement(records, "agreement-ray")
    if agree_ray:
        body += ("\nsoftpick ray picks (`pickmap --method ray`) vs Embree 2T IDs (compare_u32.py): "
                 + "; ".join(agree_ray) + "\n")
    if failures:
        body += "\nFailed or skipped:\n" + "".join(f"- {f}\n" for f in failures)
    if total is not None:
        body += f"\nTotal time of the measurements: {total / 60:.1f} min\n"
    print(body)
    if not args.table_only:
        with open(os.path.join(os.path.abspath(args.out or args.work), "table.md"), "w") as f:
            f.write(body)


if __name__ == "__main__":
    main()
