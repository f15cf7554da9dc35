"""What every request handler shares: settings, the open KG, its reader, the query pool."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

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
    started: float = field(default_factory=time.time)


async def get_context(request: Request) -> Context:
    """The app's context. `async` on purpose: FastAPI runs a plain `def` dependency in its
    thread pool, and that hop cost more than a related-papers answer (py-spy, #9)."""
    ctx: Context = request.app.state.ctx
    return ctx
