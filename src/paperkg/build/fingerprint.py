"""A hash of the code behind a cached result, derived from the imports, not a hand list.

A cache of extractions (or of SHACL verdicts) is valid only for the code that made it.
Listing that code by hand goes stale the moment a rule moves to another module, so the
fingerprint covers every paperkg module the given roots import, directly or not. It hashes
each module's syntax tree without docstrings, so a comment, a docstring or a reformatting
does not throw away hours of cached extractions; any change to the code itself does.
"""

from __future__ import annotations

import ast
import hashlib
from functools import cache
from importlib.util import find_spec
from pathlib import Path

__all__ = ["forget_code", "source_fingerprint"]


def _file(module: str) -> Path | None:
    try:
        spec = find_spec(module)
    except (ImportError, ValueError):
        return None
    origin = spec.origin if spec is not None else None
    return Path(origin) if origin and origin.endswith(".py") else None


def _imports(tree: ast.Module) -> set[str]:
    """The paperkg modules a source file imports anywhere (lazy imports included)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return {m for m in found if m.split(".")[0] == "paperkg"}


def _code(tree: ast.Module) -> bytes:
    """The tree as text, docstrings left out (comments and layout are not in it)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree).encode()


@cache
def _module(module: str) -> tuple[frozenset[str], bytes] | None:
    """(the paperkg modules it imports, its code) of one module, read once per process:
    the fingerprints of an update (extractor, labels, SHACL) share most of their modules."""
    path = _file(module)
    if path is None:
        return None
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(_imports(tree)), _code(tree)


@cache
def source_fingerprint(*roots: str) -> str:
    """12 hex of the code of `roots` and every paperkg module they import."""
    todo, seen = list(roots), set()
    code: dict[str, bytes] = {}
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        found = _module(module)
        if found is not None:
            todo += found[0]
            code[module] = found[1]
    h = hashlib.sha256()
    for module in sorted(code):
        h.update(module.encode() + b"\0" + code[module])
    return h.hexdigest()[:12]


def forget_code() -> None:
    """Read the modules again at the next fingerprint (a test that rewrites one)."""
    _module.cache_clear()
    source_fingerprint.cache_clear()
