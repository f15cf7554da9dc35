"""paperkg: a knowledge graph of research papers and the concepts they share.

The public API is small; heavy parts (the embedding model, the store) load on first use.

    from paperkg import build_kg, open_kg, related, Settings
    build_kg([Path("data/000.txt")], Path("kg"), Settings())
    kg = open_kg(Path("kg"))
    related(kg, "00SnKBGTsz")
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "KnowledgeGraph",
    "Paper",
    "Settings",
    "__version__",
    "build_kg",
    "concepts_of",
    "neighbours",
    "open_kg",
    "read_papers",
    "related",
    "run_sparql",
]

_WHERE = {
    "KnowledgeGraph": "paperkg.read.kg",
    "build_kg": "paperkg.build.pipeline",
    "open_kg": "paperkg.read.kg",
    "Paper": "paperkg.build.ingest",
    "read_papers": "paperkg.build.ingest",
    "Settings": "paperkg.settings",
    "concepts_of": "paperkg.read.questions",
    "neighbours": "paperkg.read.questions",
    "related": "paperkg.read.questions",
    "run_sparql": "paperkg.read.questions",
}

if TYPE_CHECKING:
    from paperkg.build.ingest import Paper, read_papers
    from paperkg.build.pipeline import build_kg
    from paperkg.read.kg import KnowledgeGraph, open_kg
    from paperkg.read.questions import concepts_of, neighbours, related, run_sparql
    from paperkg.settings import Settings


def __getattr__(name: str) -> Any:
    """Import on first use, so `import paperkg` stays cheap (no rdflib, no model)."""
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'paperkg' has no attribute {name!r}")
