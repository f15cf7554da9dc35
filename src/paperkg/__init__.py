"""paperkg: a knowledge graph of research papers and the concepts they share.

The public API is small; heavy parts (the embedding model, the store) load on first use.

    from pathlib import Path
    from paperkg import Settings, build_kg, open_kg
    build_kg([Path("data/000.txt")], Path("kg"), Settings())
    kg = open_kg(Path("kg"))
    reader = kg.reader()            # every question: paper, concepts_of, related, …
    reader.related("h9f7d08a750ef")
    kg.sparql("SELECT ?c WHERE { ?c a skos:Concept } LIMIT 5")
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "KnowledgeGraph",
    "Paper",
    "Reader",
    "Settings",
    "__version__",
    "build_kg",
    "open_kg",
    "read_papers",
]

_WHERE = {
    "KnowledgeGraph": "paperkg.read.kg",
    "open_kg": "paperkg.read.kg",
    "Reader": "paperkg.read.questions",
    "build_kg": "paperkg.build.pipeline",
    "Paper": "paperkg.build.ingest",
    "read_papers": "paperkg.build.ingest",
    "Settings": "paperkg.settings",
}

if TYPE_CHECKING:
    from paperkg.build.ingest import Paper, read_papers
    from paperkg.build.pipeline import build_kg
    from paperkg.read.kg import KnowledgeGraph, open_kg
    from paperkg.read.questions import Reader
    from paperkg.settings import Settings


def __getattr__(name: str) -> Any:
    """Import on first use, so `import paperkg` stays cheap (no rdflib, no model)."""
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'paperkg' has no attribute {name!r}")
