"""The FastAPI application: wiring, startup (KG, indexes, query workers), health, VoID.

`create_app(settings)` builds an app for one KG; `serve(settings)` runs it with uvicorn.
Startup loads the KG once: the NetworkX graph and the search index live in this process,
SPARQL runs in the worker pool (see `server.pool`).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated

from fastapi import Depends, FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import Response
from paperkg_server import api, pages, sparql, views
from paperkg_server.context import Context, get_context
from paperkg_server.errors import install_handlers
from paperkg_server.pool import QueryPool
from paperkg_server.void import void_graph

from paperkg import __version__
from paperkg.read.kg import open_kg
from paperkg.read.memory import CorpusIndex
from paperkg.read.walk import Walker
from paperkg.settings import Settings

__all__ = ["app_from_env", "create_app", "serve"]


def create_app(settings: Settings) -> FastAPI:
    """An app serving the KG at `settings.kg`; it opens it when the app starts."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        kg = open_kg(Path(settings.kg))
        index = await asyncio.to_thread(CorpusIndex.from_store, kg.store)
        vectors = await asyncio.to_thread(lambda: kg.doc_vectors)
        if vectors is not None:
            index.attach_vectors(*vectors)
        walker = await asyncio.to_thread(lambda: Walker(kg.graph))
        pool = QueryPool(str(kg.path / "store"), settings.query_workers, settings.deadline)
        await pool.start()
        app.state.ctx = Context(settings, kg, index, pool, walker)
        try:
            yield
        finally:
            await pool.close()

    app = FastAPI(
        title="paperkg",
        version=__version__,
        description="A knowledge graph of research papers and the concepts they share: a "
                    "SPARQL 1.1 endpoint, a JSON API and HTML pages. Read-only.",
        lifespan=lifespan,
    )
    if settings.cors_origin_list:
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origin_list,
                           allow_methods=["GET", "POST"], allow_headers=["*"])
    install_handlers(app)
    app.include_router(sparql.router)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(views.router)

    @app.get("/healthz", tags=["service"], summary="liveness and readiness")
    async def healthz(ctx: Annotated[Context, Depends(get_context)]) -> dict[str, object]:
        return {"status": "ok", "version": __version__, "papers": len(ctx.index.papers),
                "concepts": len(ctx.index.concepts), "query_workers_idle": ctx.pool.ready,
                "queries_killed": ctx.pool.killed,
                "uptime_s": round(time.time() - ctx.started, 1)}

    @app.get("/.well-known/void", tags=["service"],
             summary="VoID description of the dataset and SPARQL service description")
    def void(request: Request, ctx: Annotated[Context, Depends(get_context)],
             format: str | None = None) -> Response:
        base = str(request.base_url).rstrip("/")
        return sparql.graph_response(void_graph(ctx, base), request, format)

    return app


def app_from_env() -> FastAPI:
    """For other ASGI servers: `uvicorn --factory server.app:app_from_env` (PAPERKG_* vars)."""
    return create_app(Settings.from_env())


def serve(settings: Settings) -> None:
    """Run the service in the foreground (what `paperkg serve` does)."""
    import uvicorn

    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    print(f"paperkg: serving {settings.kg} on http://{settings.host}:{settings.port}/ "
          f"(deadline {settings.deadline:g} s, row cap {settings.row_cap}, "
          f"{settings.http_workers} HTTP worker(s) with {settings.query_workers} query "
          "workers each)", flush=True)
    log_level = "debug" if settings.debug else "warning"
    if settings.http_workers <= 1:
        uvicorn.run(create_app(settings), host=settings.host, port=settings.port,
                    log_level=log_level, access_log=settings.debug)
        return
    # Several processes share the port; each builds its app from the same settings.
    os.environ.update(settings.to_env())
    uvicorn.run("paperkg_server.app:app_from_env", factory=True, workers=settings.http_workers,
                host=settings.host, port=settings.port, log_level=log_level,
                access_log=settings.debug)
