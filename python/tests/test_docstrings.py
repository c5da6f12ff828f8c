"""Every public callable and attribute of the compiled module has a
docstring, and a docstring that names what it returns: `Returns` for
methods that return something, each key of a returned dict (with its
dtype for arrays), the dtype of each returned array. The list of names
and their return types comes from the stub (python/pysrc/softpick/
_softpick.pyi), which stubtest holds equal to the module."""

import ast
import re
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple, get_args, get_type_hints

import softpick
import softpick.types
from softpick import _softpick

STUB = Path(softpick.__file__).resolve().parent / "_softpick.pyi"


def stub_members() -> Iterator[Tuple[str, object, ast.AST]]:
    """(qualified name, runtime object, stub node) of every public function,
    method, property and method alias of the stub."""
    tree = ast.parse(STUB.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, getattr(_softpick, node.name), node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            cls = getattr(_softpick, node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    yield f"{node.name}.{item.name}", getattr(cls, item.name), item
                elif isinstance(item, ast.Assign):
                    for target in item.targets:
                        assert isinstance(target, ast.Name)
                        yield f"{node.name}.{target.id}", getattr(cls, target.id), item


def dtype_names(annotation: str) -> List[str]:
    """The numpy dtypes named in an annotation: NDArray[np.uint32] -> uint32."""
    return re.findall(r"np\.(\w+)", annotation)


def typed_dict_fields(annotation: str) -> Dict[str, Any]:
    """The fields of the softpick.types TypedDict an annotation names, if any."""
    for name in re.findall(r"\b([A-Z]\w+)\b", annotation):
        td = getattr(softpick.types, name, None)
        if isinstance(td, type) and issubclass(td, dict):
            return get_type_hints(td)
    return {}


def test_every_public_member_has_a_docstring_naming_its_returns() -> None:
    problems = []
    members = list(stub_members())
    assert len(members) > 60, "the stub lists the whole API"
    for name, obj, node in members:
        doc = getattr(obj, "__doc__", None) or ""
        if len(doc.strip()) < 20:
            problems.append(f"{name}: no docstring")
            continue
        if isinstance(node, ast.Assign):
            # an alias: its docstring names the method it stands for
            target = ast.unparse(node.value)
            if f"`{target}`" not in doc and target not in doc:
                problems.append(f"{name}: an alias whose docstring does not name {target}")
            continue
        assert isinstance(node, ast.FunctionDef)
        returns = ast.unparse(node.returns) if node.returns else "None"
        is_property = any(ast.unparse(d) == "property" for d in node.decorator_list)
        if returns != "None" and not is_property and "Returns" not in doc:
            problems.append(f"{name}: the docstring does not say what it returns")
        for dtype in dtype_names(returns):
            if dtype not in doc or "(" not in doc:
                problems.append(f"{name}: returns {returns} but the docstring has no {dtype} (shape)")
        for key, hint in typed_dict_fields(returns).items():
            if f"`{key}`" not in doc:
                problems.append(f"{name}: returns a dict with `{key}`, not in the docstring")
                continue
            arrays = [a for a in get_args(hint) if get_args(a)]  # NDArray[...]'s dtype[...]
            for dtype in (t.__name__ for a in arrays[-1:] for t in get_args(a) if isinstance(t, type)):
                # "- `t_hit`: float32 (...)": the dtype and shape follow the key
                if not re.search(rf"`{key}`[^`]*?{dtype} \(", doc):
                    problems.append(f"{name}: the docstring gives `{key}` no {dtype} (shape)")
    assert not problems, "\n".join(problems)


def test_help_shows_the_ray_layouts() -> None:
    import pydoc

    text = pydoc.render_doc(softpick.Scene.cast_rays)
    for key in softpick.types.RayHits.__annotations__:
        assert f"`{key}`" in text, key
    assert "float32 (..., 2)" in text and "origins" in text
