"""What every request handler shares: settings, the KG version being served, its reader
and its query pool (`paperkg_server.versions` switches to a newer one as a whole)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import Request

from paperkg.read.kg import KnowledgeGraph
from paperkg.read.memory import MemoryReader
from paperkg.settings import Settings
from paperkg_server.pool import QueryPool

__all__ = ["Context", "get_context"]


@dataclass(slots=True)
class Context:
    settings: Settings
    kg: KnowledgeGraph
    reader: MemoryReader  # every question; SPARQL goes to `pool`
    pool: QueryPool
    snapshot: Path | None = None  # the private copy `kg` was opened from
    stamp: tuple[int, int, int] | None = None  # which version of the KG directory it is
    started: float = field(default_factory=time.time)


async def get_context(request: Request) -> Context:
    """The app's context: the version being served when the request came. `async` on
    purpose: FastAPI runs a plain `def` dependency in its thread pool, and that hop cost
    more than a related-papers answer (py-spy, #9)."""
    ctx: Context = request.app.state.ctx
    return ctx
