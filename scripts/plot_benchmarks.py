#!/usr/bin/env python3
"""Frame time against triangle count (log-log) for softpick and llvmpipe at 360×360
and 1920×1080, from the results of scripts/compare_peers.sh.

  scripts/plot_benchmarks.py [RESULTS.jsonl] [-o docs/frame_time_vs_triangles.png]

Default input target/peers/results.jsonl. Needs matplotlib (the peers' venv has it:
target/peers-venv/bin/python scripts/plot_benchmarks.py).
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (tool, pass or None, label, colour, line style)
SERIES = [
    ("softpick-render", "ids", "softpick depth+ID (2 threads)", "tab:blue", "-"),
    ("softpick-render", "color", "softpick with color (2 threads)", "tab:cyan", "-"),
    ("llvmpipe", None, "llvmpipe ID+depth, gl_PrimitiveID (2 threads)", "tab:red", "--"),
    ("llvmpipe-attr", None, "llvmpipe ID+depth, flat attribute (2 threads)", "tab:orange", "--"),
    ("euc", None, "euc 0.5.3 ID+depth (1 thread)", "tab:gray", ":"),
]
SIZES = [("360x360", "o", "360×360"), ("1920x1080", "s", "1920×1080")]


def load(path):
    pts = {}  # (tool, pass, size) -> {(triangles, model): ms}
    meta = {}
    with open(path) as f:
        for ln in f:
            if not ln.strip():
                continue
            rec = json.loads(ln)
            tool = rec.get("tool", "")
            if tool == "meta":
                meta = rec
                continue
            d = rec.get("data") or {}
            tris = d.get("triangles")
            if not tris:
                continue
            if tool == "softpick-render":
                ms, ps = d.get("median_ms"), d.get("pass")
            elif tool in ("llvmpipe", "llvmpipe-attr", "euc"):
                ms, ps = d.get("ms_per_frame"), None
            else:
                continue
            if ms:
                pts.setdefault((tool, ps, rec["size"]), {})[(int(tris), rec["model"])] = float(ms)
    return pts, meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="?", default=os.path.join(ROOT, "target", "peers", "results.jsonl"))
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "docs", "frame_time_vs_triangles.png"))
    ap.add_argument("--no-euc", action="store_true", help="leave out the euc series")
    args = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts, meta = load(args.results)
    if not pts:
        sys.exit(f"{args.results}: no render timings")
    fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
    for ax, (size, marker, title) in zip(axes, SIZES):
        for tool, ps, label, colour, style in SERIES:
            if tool == "euc" and args.no_euc:
                continue
            d = pts.get((tool, ps, size))
            if not d:
                continue
            keys = sorted(d)
            ax.plot([k[0] for k in keys], [d[k] for k in keys], style, marker=marker, color=colour,
                    label=label)
            if tool == "softpick-render" and ps == "ids":
                seen = {}
                for tris, model in keys:  # name the models under the softpick points
                    n = seen.get(tris, 0)
                    seen[tris] = n + 1
                    ax.annotate(model, (tris, d[(tris, model)]), textcoords="offset points",
                                xytext=(4, -12 - 10 * n), fontsize=7, color="tab:blue")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("triangles")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("frame time, ms (median)")
    axes[0].legend(loc="upper left", fontsize=9)
    fig.suptitle(f"Frame time vs triangle count — softpick {meta.get('commit', '?')}, "
                 f"{meta.get('date', '?')[:10]}, nproc {meta.get('nproc', '?')}, auto camera")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    fig.savefig(args.output, dpi=100)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
