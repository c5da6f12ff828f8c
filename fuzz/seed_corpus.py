#!/usr/bin/env python3
"""Builds each fuzz target's seed corpus from real model files.

Usage: fuzz/seed_corpus.py [MODELS_DIR] [OUT_DIR]

MODELS_DIR defaults to ../shared/models beside the repository, OUT_DIR to
fuzz/seeds (ignored by git). Every file found (recursively) becomes one
input of the targets that read its format, prefixed with the selector byte
the target expects (see fuzz/README.md):

- gltf_load_render_pick: byte 0 % 3 names the input `fuzz.gltf`,
  `fuzz.glb` or `fuzz.dat` (sniffed); bit 7 asks for scene 1.
  A `.gltf` has its external buffers inlined as base64 data URIs, so one input is the whole file (selector 0, and 0x80 too when the
  file has two scenes or more); a `.gltf` with one buffer is also packed
  as a GLB (selector 1); a `.glb` is taken as it is (selector 1, and 2).
- stl_ply_load_render_pick: byte 0 % 3 chooses `load_stl_bytes` (0),
  `load_ply_bytes` (1) or `load_model_bytes` (2, sniffed). STL files get
  0 and 2, PLY files 1 and 2, OBJ files up to OBJ_SNIFF_MAX bytes 2.
- obj_load_render_pick: the OBJ bytes as they are (no selector).

triangles_rasterize_pick reads screen-space triangles, not files: it has
no real-file seeds (its hand-written corpus is fuzz/corpus/).

Prints each target's input count and its largest input, the -max_len
fuzz/run.sh passes so that every real file is admitted whole.
"""

import base64
import json
import os
import struct
import sys

# OBJ files larger than this are not copied to the STL/PLY target's sniffed
# loader (the OBJ target takes every OBJ whole)
OBJ_SNIFF_MAX = 256 * 1024



def inline_uris(gltf_path):
    """The glTF JSON with every external buffer that exists beside the file
    inlined as a data URI (a missing one is left as written, so the loader's
    error path is seeded too). Images stay as written: softpick reads no
    texture, so their bytes would only slow the fuzzer down."""
    with open(gltf_path, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw)
    except ValueError:
        return raw, None  # a broken file stays as it is
    if not isinstance(doc, dict):
        return raw, None
    base = os.path.dirname(gltf_path)
    for key in ("buffers",):
        for item in doc.get(key, []) if isinstance(doc.get(key), list) else []:
            uri = item.get("uri") if isinstance(item, dict) else None
            if not isinstance(uri, str) or uri.startswith("data:"):
                continue
            file = os.path.join(base, uri.replace("%20", " "))
            if not os.path.isfile(file):
                continue
            with open(file, "rb") as f:
                data = base64.b64encode(f.read()).decode("ascii")
            item["uri"] = f"data:application/octet-stream;base64,{data}"
    return json.dumps(doc, separators=(",", ":")).encode(), doc


def to_glb(doc):
    """A GLB of a glTF document with one buffer (a data URI): the buffer
    moves to the BIN chunk. None when the document has other buffers."""
    buffers = doc.get("buffers") or []
    if len(buffers) != 1 or not str(buffers[0].get("uri", "")).startswith("data:"):
        return None
    doc = json.loads(json.dumps(doc))
    b = doc["buffers"][0]
    data = base64.b64decode(b.pop("uri").split(",", 1)[1])
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    data += b"\0" * (-len(data) % 4)
    chunks = struct.pack("<II", len(js), 0x4E4F534A) + js
    chunks += struct.pack("<II", len(data), 0x004E4942) + data
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    models = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, "..", "shared", "models")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(repo, "fuzz", "seeds")
    if not os.path.isdir(models):
        sys.exit(f"seed_corpus.py: no models folder at {models}")
    targets = ("gltf_load_render_pick", "stl_ply_load_render_pick", "obj_load_render_pick")
    written = {t: [] for t in targets}

    def put(target, name, selector, data):
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        prefix = b"" if selector is None else bytes([selector])
        fname = name if selector is None else f"{name}.{selector:02x}"
        with open(os.path.join(d, fname), "wb") as f:
            f.write(prefix + data)
        written[target].append(len(prefix) + len(data))

    for dirpath, _, files in sorted(os.walk(models)):
        for file in sorted(files):
            path = os.path.join(dirpath, file)
            name = os.path.relpath(path, models).replace(os.sep, "_")
            ext = os.path.splitext(file)[1].lower()
            if ext == ".gltf":
                data, doc = inline_uris(path)
                put("gltf_load_render_pick", name, 0, data)
                if doc is not None:
                    if isinstance(doc.get("scenes"), list) and len(doc["scenes"]) > 1:
                        put("gltf_load_render_pick", name, 0x80, data)
                    glb = to_glb(doc)
                    if glb is not None:
                        put("gltf_load_render_pick", name + ".glb", 1, glb)
            elif ext == ".glb":
                with open(path, "rb") as f:
                    data = f.read()
                put("gltf_load_render_pick", name, 1, data)
                put("gltf_load_render_pick", name, 2, data)
            elif ext in (".stl", ".ply", ".obj"):
                with open(path, "rb") as f:
                    data = f.read()
                if ext == ".stl":
                    put("stl_ply_load_render_pick", name, 0, data)
                    put("stl_ply_load_render_pick", name, 2, data)
                elif ext == ".ply":
                    put("stl_ply_load_render_pick", name, 1, data)
                    put("stl_ply_load_render_pick", name, 2, data)
                else:
                    put("obj_load_render_pick", name, None, data)
                    if len(data) <= OBJ_SNIFF_MAX:
                        put("stl_ply_load_render_pick", name, 2, data)
    for t in targets:
        sizes = written[t]
        print(f"{t}: {len(sizes)} inputs, largest {max(sizes, default=0)} bytes")


if __name__ == "__main__":
    main()
