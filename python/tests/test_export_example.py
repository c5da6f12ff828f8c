"""The dataset example (scripts/export_dataset.py): shards cover every view
once, and the files hold the frames of the views' cameras."""

import importlib.util
import zlib
from pathlib import Path
from types import ModuleType

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
