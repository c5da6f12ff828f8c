"""The dataset example (scripts/export_dataset.py): shards cover every view
once, the files hold the frames of the views' cameras, and runs sharded
by the command line, a Slurm array or a Dask cluster write the same bytes
as one process."""

import importlib.util
import os
import subprocess
import sys
import zlib
from pathlib import Path
from types import ModuleType
from typing import Dict, List

import numpy as np
import pytest

import softpick
from conftest import ROOT, parts, write_obj


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("export_dataset", ROOT / "scripts" / "export_dataset.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_export_dataset_shards_and_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ex = load_example()
    model = tmp_path / "m.obj"
    write_obj(model, parts())
    out = tmp_path / "out"
    for shard in range(2):
        assert ex.main([str(model), str(out), "--views", "5", "--size", "48x32",
                        "--shard", str(shard), "--shards", "2"]) == 0
    assert "5/5" not in capsys.readouterr().err  # each shard counts its own views
    npz = sorted(out.glob("view_*.npz"))
    assert [p.name for p in npz] == [f"view_{i:05d}.npz" for i in range(5)]
    scene = softpick.load(model)
    for i, p in enumerate(npz):
        d = np.load(p)
        frame = scene.render(ex.view_camera(scene, i, 5, 48, 32))
        np.testing.assert_array_equal(d["ids"], frame.ids)
        np.testing.assert_array_equal(d["instance_ids"], frame.instance_ids)
        assert (d["ids"] > 0).any() and (d["ids"] == 0).any()
        for kind in ("instances", "depth"):
            png = Path(f"{p.with_suffix('')}_{kind}.png").read_bytes()
            assert png[:8] == b"\x89PNG\r\n\x1a\n"
            w, h = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
            assert (w, h) == (48, 32)
            # the image data decompresses to H rows of filter byte + pixels
            start = png.index(b"IDAT") + 4
            size = int.from_bytes(png[start - 8:start - 4], "big")
            raw = zlib.decompress(png[start:start + size])
            assert len(raw) == 32 * (1 + 48 * (3 if kind == "instances" else 2))


def files(folder: Path) -> Dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_distributed_runs_equal_one_process_byte_for_byte(tmp_path: Path) -> None:
    """The example's claim: it needs no scheduler of its own. The same
    views exported by one process, by the per-shard command line (and
    Slurm's array variables), and by a Dask LocalCluster of two worker
    processes mapping `export_view` over shards give the same files."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        pytest.fail("dask.distributed is not installed: pip install dask distributed (scripts/test does)")
    model = tmp_path / "m.obj"
    write_obj(model, parts())
    script = ROOT / "scripts" / "export_dataset.py"
    views, size, shards = 7, (40, 30), 3
    common = ["--views", str(views), "--size", f"{size[0]}x{size[1]}", "--quiet"]

    one = tmp_path / "one"
    assert load_example().main([str(model), str(one), *common]) == 0
    expected = files(one)
    assert len(expected) == 3 * views

    # the per-shard command line, one process per shard, all at once
    cli = tmp_path / "cli"
    procs = [subprocess.Popen([sys.executable, str(script), str(model), str(cli), *common,
                               "--shard", str(k), "--shards", str(shards)]) for k in range(shards)]
    assert [p.wait(timeout=300) for p in procs] == [0] * shards
    assert files(cli) == expected

    # a Slurm array: the shard from SLURM_ARRAY_TASK_ID / _COUNT
    slurm = tmp_path / "slurm"
    for k in range(shards):
        env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(k), SLURM_ARRAY_TASK_COUNT=str(shards))
        subprocess.run([sys.executable, str(script), str(model), str(slurm), *common], env=env, check=True)
    assert files(slurm) == expected

    # Dask: each task loads the model once and exports its views (README's
    # recipe), in two worker processes
    dask_out = tmp_path / "dask"
    dask_out.mkdir()

    def shard(k: int) -> List[str]:
        import importlib.util

        import softpick
        spec = importlib.util.spec_from_file_location("export_dataset", script)
        assert spec is not None and spec.loader is not None
        ex = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ex)
        scene = softpick.load(model)
        return [ex.export_view(scene, i, views, dask_out, *size) for i in range(k, views, shards)]

    # (distributed has no type annotations)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,  # type: ignore[no-untyped-call]
                           dashboard_address=None)
    with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
        assert len(client.scheduler_info()["workers"]) == 2
        futures = client.map(shard, range(shards))
        written = [p for f in client.gather(futures) for p in f]
        pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids, "two worker processes"
    assert sorted(Path(p).name for p in written) == sorted(n for n in expected if n.endswith(".npz"))
    assert files(dask_out) == expected
