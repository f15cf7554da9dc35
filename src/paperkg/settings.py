"""Settings, declared once with their help text, read from flags or PAPERKG_* variables.

Nothing here is read at import: `Settings.from_env()` and `add_arguments()` look at the
environment when they are called, and the resulting frozen object is passed down.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from paperkg.errors import UsageError

__all__ = ["BUILD_SETTINGS", "READ_SETTINGS", "SERVE_SETTINGS", "Settings", "add_arguments",
           "default_cache_dir", "from_args"]


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paperkg"


Group = str  # "common", "build" or "serve": which commands take the setting


def _opt(default: Any, help: str, group: Group, **extra: Any) -> Any:
    return field(default=default, metadata={"help": help, "group": group, **extra})


@dataclass(frozen=True, slots=True)
class Settings:
    kg: Path = _opt(Path("kg"), "the KG directory to build or read", "common")
    cache_dir: Path = _opt(
        None, "where embeddings, extractions and derived models are cached "
        "(default: $XDG_CACHE_HOME/paperkg, else ~/.cache/paperkg)", "build")
    embedder: str = _opt(
        "minilm",
        "text embedder: 'minilm' (all-MiniLM-L6-v2 through sentence-transformers), 'onnx' "
        "(the same model exported once to ONNX Runtime: the same vectors, faster on short "
        "phrases) or 'static' (a model2vec distillation of it: ~100x faster, different "
        "concepts)", "build",
        choices=("minilm", "onnx", "static"),
    )
    top_n: int = _opt(10, "concepts kept per paper", "build")
    diversity: float = _opt(
        0.1, "MMR diversity, 0 (none) to 1 (most); 0.1 keeps near-duplicates apart at "
        "little cost to keyword F1 (bench/fit_ranker.py)", "build")
    no_cache: bool = _opt(False, "do not read or write the embedding cache", "build")
    debug: bool = _opt(False, "show tracebacks on errors", "common")
    host: str = _opt("127.0.0.1", "address the HTTP service listens on", "serve")
    port: int = _opt(8000, "port the HTTP service listens on", "serve")
    deadline: float = _opt(
        10.0, "seconds a SPARQL query may run before it is stopped and answered with 503",
        "serve")
    row_cap: int = _opt(10_000, "most rows (or triples) one SPARQL answer returns", "serve")
    query_workers: int = _opt(
        2, "worker processes answering SPARQL (a query past its deadline kills its worker)",
        "serve")
    http_workers: int = _opt(
        2, "HTTP server processes (2 uses both cores of a 2-core machine); each loads the "
        "KG's index and has its own SPARQL workers", "serve")
    cors_origins: str = _opt(
        "", "comma-separated origins allowed to call the service from a browser ('*' = any)",
        "serve")

    @property
    def cache(self) -> Path | None:
        if self.no_cache:
            return None
        return self.cache_dir or default_cache_dir()

    def to_env(self) -> dict[str, str]:
        """The settings as PAPERKG_* variables: how worker processes receive them."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f"PAPERKG_{f.name.upper()}"] = str(value)
        return out

    @property
    def cors_origin_list(self) -> list[str]:
        return [o.strip() for o in self.cors_origins.split(",") if o.strip()]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Defaults overridden by PAPERKG_<NAME> variables (e.g. PAPERKG_EMBEDDER=static)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f"PAPERKG_{f.name.upper()}")
            if raw is not None:
                values[f.name] = _convert(f.name, raw, type(f.default) if f.default is not None
                                          else Path)
        return replace(cls(), **values)


def _group(*names: Group) -> tuple[str, ...]:
    return tuple(f.name for f in fields(Settings) if f.metadata["group"] in names)


#: The flags of each kind of command, derived from the fields' groups.
BUILD_SETTINGS: tuple[str, ...] = _group("build", "common")
READ_SETTINGS: tuple[str, ...] = _group("common")
SERVE_SETTINGS: tuple[str, ...] = _group("serve", "common")


def _convert(name: str, raw: str, kind: type) -> Any:
    try:
        if kind is bool:
            return raw.strip().lower() in {"1", "true", "yes", "on"}
        return kind(raw)
    except ValueError as err:
        raise UsageError(f"PAPERKG_{name.upper()}={raw!r}: {err}") from err


def add_arguments(parser: argparse.ArgumentParser, names: Iterable[str]) -> None:
    """Add `--name` flags for the named settings; their defaults come from the environment."""
    base = Settings.from_env()
    by_name = {f.name: f for f in fields(Settings)}
    for name in names:
        f = by_name[name]
        flag = "--" + name.replace("_", "-")
        default = getattr(base, name)
        meta = f.metadata
        if isinstance(f.default, bool):
            parser.add_argument(flag, action="store_true", default=default, help=meta["help"])
            continue
        kind = type(f.default) if f.default is not None else Path
        shown = "" if default is None else "; default: %(default)s"
        parser.add_argument(
            flag, type=kind, default=default, choices=meta.get("choices"),
            help=f"{meta['help']} (env PAPERKG_{name.upper()}{shown})",
        )


def from_args(args: argparse.Namespace) -> Settings:
    base = Settings.from_env()
    given = {f.name: getattr(args, f.name) for f in fields(Settings) if hasattr(args, f.name)}
    return replace(base, **given)
