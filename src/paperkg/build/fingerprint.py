"""A hash of the code behind a cached result, derived from the imports, not a hand list.

A cache of extractions (or of SHACL verdicts) is valid only for the code that made it.
Listing that code by hand goes stale the moment a rule moves to another module, so the
fingerprint covers every paperkg module the given roots import, directly or not.
"""

from __future__ import annotations

import ast
import hashlib
from functools import cache
from importlib.util import find_spec
from pathlib import Path

__all__ = ["source_fingerprint"]


def _file(module: str) -> Path | None:
    try:
        spec = find_spec(module)
    except (ImportError, ValueError):
        return None
    origin = spec.origin if spec is not None else None
    return Path(origin) if origin and origin.endswith(".py") else None


def _imports(path: Path) -> set[str]:
    """The paperkg modules a source file imports anywhere (lazy imports included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return {m for m in found if m.split(".")[0] == "paperkg"}


@cache
def source_fingerprint(*roots: str) -> str:
    """12 hex of the source of `roots` and every paperkg module they import."""
    todo, seen = list(roots), set()
    files: dict[str, Path] = {}
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = _file(module)
        if path is not None:
            files[module] = path
            todo += _imports(path)
    h = hashlib.sha256()
    for module in sorted(files):
        h.update(module.encode() + b"\0" + files[module].read_bytes())
    return h.hexdigest()[:12]
