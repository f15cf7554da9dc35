"""Settings, declared once with their help text, read from flags or PAPERKG_* variables.

Nothing here is read at import: `Settings.from_env()` and `add_arguments()` look at the
environment when they are called, and the resulting frozen object is passed down.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Mapping
from dataclasses import Field, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from paperkg.errors import UsageError

__all__ = ["BUILD_SETTINGS", "CONCEPT_SETTINGS", "READ_SETTINGS", "SERVE_SETTINGS", "Settings",
           "add_arguments", "default_cache_dir", "from_args", "given_settings"]


#: The weight of word similarity (TF-IDF of title and abstract) against shared concepts in
#: related papers' ranking. Chosen on co-authorship, a relatedness signal built from
#: nothing the extractor sees, without losing on shared author keywords
#: (bench/bench_related_authors.py, bench/bench_related.py).
RELATED_BLEND = 0.9
#: Concepts kept per paper, and MMR's diversity: the extractor's defaults (bench/fit_ranker.py).
TOP_N = 10
DIVERSITY = 0.1


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
    extractor: str = _opt(
        "paperkg",
        "how concepts are ranked: 'paperkg' (a logistic model over cosine, keyword prior and "
        "position, then MMR) or 'keybert' (KeyBERT's own extract_keywords: cosine + MMR, on "
        "paperkg's candidates with the same embedder)", "build", choices=("paperkg", "keybert"))
    no_packaged_prior: bool = _opt(
        False, "do not rank with the packaged ICLR 2025 keyword statistics when the input "
        "has too few papers with author keywords (under 200) to learn its own", "build")
    top_n: int = _opt(TOP_N, "concepts kept per paper", "build")
    diversity: float = _opt(
        DIVERSITY, "MMR diversity, 0 (none) to 1 (most); 0.1 keeps near-duplicates apart at "
        "little cost to keyword F1 (bench/fit_ranker.py)", "build")
    min_score: float | None = _opt(
        None, "least keyword probability of a KG concept beyond a paper's best three, 0 for "
        "none (default: chosen per embedder and keyword statistics where it costs no keyword "
        "F1, bench/bench_min_score.py; the 'paperkg' extractor only). 'extract' lists the "
        "whole top-n unless this is given, marking with 'kept' what a KG keeps", "build",
        kind=float)
    no_cache: bool = _opt(False, "do not read or write the embedding cache", "build")
    statistics_from: Path = _opt(
        None, "build: rank every paper under the corpus statistics (keyword prior, corpus "
        "share) stored in this KG directory instead of learning them from the input; the "
        "result is what 'paperkg add' to that KG gives", "build")
    store: str = _opt(
        "", "URL of a SPARQL 1.1 query endpoint to keep the KG in instead of the embedded "
        "store (build; add/remove and readers follow the KG's manifest); credentials only "
        "from PAPERKG_STORE_USER / PAPERKG_STORE_PASSWORD", "build")
    dask_scheduler: str = _opt(
        "", "extract concepts on an existing Dask cluster: its scheduler's address, e.g. "
        "tcp://10.0.0.5:8786 (workers need paperkg installed; see README, running at scale)",
        "build")
    workers: int = _opt(
        0, "extract concepts on a local Dask cluster of this many worker processes, started "
        "for this run on 127.0.0.1 (0: in this process)", "build")
    input_format: str = _opt(
        "auto", "format of the input files: auto (detected from content and extension) or "
        "one of paperkg, seed, openreview, arxiv-oai, arxiv-atom, arxiv-snapshot, openalex, "
        "s2, bibtex, ris, csv, tsv (paperkg.build.sources.FORMATS)", "build")
    columns: str = _opt(
        "", "CSV/TSV column names, e.g. 'id=PID,title=Title,decision=Decision' (fields: "
        "id title abstract authors keywords year venue doi arxiv_id url subjects decision)",
        "build")
    debug: bool = _opt(False, "show tracebacks on errors", "common")
    host: str = _opt("127.0.0.1", "address the HTTP service listens on", "serve")
    port: int = _opt(8000, "port the HTTP service listens on", "serve")
    deadline: float = _opt(
        10.0, "seconds a SPARQL query may run before it is stopped and answered with 503",
        "serve")
    row_cap: int = _opt(
        0, "most rows (or triples) one SPARQL answer may have; a longer answer is an error "
        "unless the client asks for partial=true (0: no cap, answers stream whole)", "serve")
    query_queue: int = _opt(
        2, "SPARQL queries that may wait for a busy worker; more are answered 503 busy "
        "with Retry-After at once", "serve")
    query_memory_mb: int = _opt(
        1024, "memory (MB) one SPARQL worker may take beyond what it holds at rest; a "
        "query needing more is stopped with 507 (0: no ceiling)", "serve")
    query_workers: int = _opt(
        2, "worker processes answering SPARQL (a query past its deadline kills its worker)",
        "serve")
    http_workers: int = _opt(
        2, "HTTP server processes (2 uses both cores of a 2-core machine); each loads the "
        "KG's index and has its own SPARQL workers", "serve")
    reload_interval: float = _opt(
        2.0, "seconds between checks for a new version of the KG directory (a build, add or "
        "remove); it is loaded beside the one being served and replaces it as a whole "
        "(0: serve the version opened at start until a restart)", "serve")
    cors_origins: str = _opt(
        "", "comma-separated origins allowed to call the service from a browser ('*' = any)",
        "serve")

    @property
    def cache(self) -> Path | None:
        if self.no_cache:
            return None
        return self.cache_dir or default_cache_dir()

    @property
    def on_cluster(self) -> bool:
        """Per-paper extraction runs on Dask (`build.distributed`)."""
        return bool(self.dask_scheduler or self.workers)

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
                values[f.name] = _convert(f.name, raw, _kind(f))
        return replace(cls(), **values)


def _kind(f: Field[Any]) -> type:
    """What a setting's text is read as: its default's type, else what it declares (a path
    when it declares nothing)."""
    return f.metadata.get("kind") or (type(f.default) if f.default is not None else Path)


def _group(*names: Group) -> tuple[str, ...]:
    return tuple(f.name for f in fields(Settings) if f.metadata["group"] in names)


#: The flags of each kind of command, derived from the fields' groups.
BUILD_SETTINGS: tuple[str, ...] = _group("build", "common")
READ_SETTINGS: tuple[str, ...] = _group("common")
SERVE_SETTINGS: tuple[str, ...] = _group("serve", "common")


#: The settings that shape a KG's concepts. A KG records them (its manifest's "settings");
#: `add` and `remove` follow them unless a flag or PAPERKG_* variable chooses otherwise.
CONCEPT_SETTINGS: tuple[str, ...] = ("embedder", "extractor", "no_packaged_prior", "top_n",
                                     "diversity", "min_score")

_GIVEN = "_given_settings"


class _Given(argparse.Action):
    """Stores a flag's value and notes that it was given (argparse does not say whether a
    value is a default)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, True if self.nargs == 0 else values)
        setattr(namespace, _GIVEN, {*getattr(namespace, _GIVEN, ()), self.dest})


def given_settings(args: argparse.Namespace, env: Mapping[str, str] | None = None
                   ) -> frozenset[str]:
    """The settings chosen by a flag or a PAPERKG_* variable, not left at their default."""
    env = os.environ if env is None else env
    in_env = {f.name for f in fields(Settings) if f"PAPERKG_{f.name.upper()}" in env}
    return frozenset({*getattr(args, _GIVEN, ()), *in_env})


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
            parser.add_argument(flag, action=_Given, nargs=0, default=default,
                                help=meta["help"])
            continue
        kind = _kind(f)
        shown = "" if default is None else "; default: %(default)s"
        parser.add_argument(
            flag, action=_Given, type=kind, default=default, choices=meta.get("choices"),
            help=f"{meta['help']} (env PAPERKG_{name.upper()}{shown})",
        )


def from_args(args: argparse.Namespace) -> Settings:
    base = Settings.from_env()
    given = {f.name: getattr(args, f.name) for f in fields(Settings) if hasattr(args, f.name)}
    return replace(base, **given)
