"""What every request handler shares: settings, the open KG, its indexes, the query pool."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from fastapi import Request
from paperkg_server.pool import QueryPool

from paperkg.read.kg import KnowledgeGraph
from paperkg.read.memory import CorpusIndex
from paperkg.read.walk import Walker
from paperkg.settings import Settings

__all__ = ["Context", "get_context"]


@dataclass(slots=True)
class Context:
    settings: Settings
    kg: KnowledgeGraph
    index: CorpusIndex
    pool: QueryPool
    walker: Walker
    started: float = field(default_factory=time.time)


def get_context(request: Request) -> Context:
    ctx: Context = request.app.state.ctx
    return ctx
