"""The Rust side of the package (python/src) in layers: lib.rs lists its
modules lowest first, and each module uses (`crate::name`) only modules
listed above it, so no two import each other, directly or around a
circle; no file is over 800 lines."""

import re
from typing import Dict, List, Set

from conftest import ROOT

SRC = ROOT / "python" / "src"


def listed_order() -> List[str]:
    """The modules in the order lib.rs's doc comment lists them."""
    doc = [line for line in (SRC / "lib.rs").read_text().splitlines() if line.startswith("//!")]
    return re.findall(r"^//! - `(\w+)`:", "\n".join(doc), re.M)


def uses() -> Dict[str, Set[str]]:
    """Each module file and the crate modules its code names."""
    out = {}
    for path in sorted(SRC.glob("*.rs")):
        if path.name == "lib.rs":
            continue
        code = "\n".join(line for line in path.read_text().splitlines()
                         if not line.lstrip().startswith("//"))
        out[path.stem] = set(re.findall(r"\bcrate::(\w+)", code)) - {path.stem}
    return out


def test_modules_use_only_modules_below_them() -> None:
    order = listed_order()
    found = uses()
    assert sorted(order) == sorted(found), f"lib.rs lists {order}, python/src has {sorted(found)}"
    # (an item of lib.rs itself, crate::load, is no listed module: a use back up)
    bad = [f"{m} uses {u}, which lib.rs lists after it, or not at all"
           for m, used in found.items() for u in used
           if u not in order or order.index(u) > order.index(m)]
    assert not bad, "\n".join(bad)


def test_no_file_is_over_800_lines() -> None:
    long = {p.name: n for p in SRC.glob("*.rs") if (n := len(p.read_text().splitlines())) > 800}
    assert not long, long
