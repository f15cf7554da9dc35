"""The FastAPI application: wiring, startup (KG, indexes, query workers), health, VoID.

`create_app(settings)` builds an app for one KG; `serve(settings)` runs it with uvicorn.
Startup loads a version of the KG (`paperkg_server.versions`): the NetworkX graph and the
search index live in this process, SPARQL runs in the worker pool (`paperkg_server.pool`);
a new version of the KG directory replaces it as a whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from fastapi import Depends, FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import Response
from fastapi_offline import FastAPIOffline

from paperkg import __version__
from paperkg.errors import UsageError
from paperkg.settings import Settings
from paperkg_server import api, pages, sparql, views
from paperkg_server.context import Context, get_context
from paperkg_server.errors import install_handlers
from paperkg_server.headers import SharedHeaders
from paperkg_server.openapi import document_errors
from paperkg_server.versions import close_version, open_version, watch
from paperkg_server.void import void_graph

__all__ = ["app_from_env", "create_app", "serve"]


def create_app(settings: Settings) -> FastAPI:
    """An app serving the KG at `settings.kg`; it opens it when the app starts."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        source = Path(settings.kg).resolve()
        app.state.ctx = await open_version(settings, source)
        watcher = (watch(app.state, settings, source) if settings.reload_interval > 0
                   else None)
        try:
            yield
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
            await close_version(app.state.ctx)

    # Swagger UI and ReDoc from the fastapi-offline package: /docs works offline
    app = FastAPIOffline(
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
    app.add_middleware(SharedHeaders, routes=lambda: app.routes)
    app.include_router(sparql.router)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(views.router)

    @app.get("/healthz", tags=["service"], summary="liveness and readiness")
    async def healthz(ctx: Annotated[Context, Depends(get_context)]) -> dict[str, object]:
        manifest = ctx.kg.manifest  # when the served version was written: it tells versions apart
        written = manifest.get("update", {}).get("at") or manifest.get("built_at")
        return {"status": "ok", "version": __version__, **ctx.reader.counts(),
                "kg_written_at": written, "query_workers_idle": ctx.pool.ready,
                "queries_killed": ctx.pool.killed,
                "uptime_s": round(time.time() - ctx.started, 1)}

    @app.get("/.well-known/void", tags=["service"], response_model=None,
             summary="VoID description of the dataset and SPARQL service description",
             responses=sparql.GRAPH_ANSWERS)
    def void(request: Request, ctx: Annotated[Context, Depends(get_context)],
             format: sparql.GraphFormatParam = None) -> Response:
        base = str(request.base_url).rstrip("/")
        return sparql.graph_response(void_graph(ctx, base), request, format)

    document_errors(app)
    return app


def app_from_env() -> FastAPI:
    """For other ASGI servers: `uvicorn --factory server.app:app_from_env` (PAPERKG_* vars)."""
    return create_app(Settings.from_env())


def serve(settings: Settings) -> None:
    """Run the service in the foreground (what `paperkg serve` does). Each process serves
    a snapshot of the KG, and switches to a new version as a whole
    (`paperkg_server.versions`)."""
    import uvicorn

    check_port(settings.host, settings.port)
    # uvicorn re-raises SIGTERM once shut down; exiting through Python ends cleanly
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    served = replace(settings, kg=Path(settings.kg).resolve())
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    log_level = "debug" if settings.debug else "warning"
    follows = (f"a new version (build, add, remove) is served once loaded, checked every "
               f"{settings.reload_interval:g} s" if settings.reload_interval > 0
               else "a new version is served after a restart")
    print(f"paperkg: serving {settings.kg} on http://{settings.host}:{settings.port}/ "
          f"(deadline {settings.deadline:g} s, row cap {settings.row_cap or 'none'}, "
          f"{settings.http_workers} HTTP worker(s) with {settings.query_workers} query "
          f"workers each; {follows})", flush=True)
    if settings.http_workers <= 1:
        uvicorn.run(create_app(served), host=settings.host, port=settings.port,
                    log_level=log_level, access_log=settings.debug)
        return
    # Several processes share the port; each builds its app from the same settings.
    os.environ.update(served.to_env())
    uvicorn.run("paperkg_server.app:app_from_env", factory=True,
                workers=settings.http_workers, host=settings.host, port=settings.port,
                log_level=log_level, access_log=settings.debug)


def check_port(host: str, port: int) -> None:
    """Fail with one line, before saying "serving", when the address cannot be used."""
    if not 0 < port < 65536:
        raise UsageError(f"--port {port}: a port is a number from 1 to 65535")
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            probe.bind((host, port))
        except OSError as err:
            raise UsageError(f"cannot listen on {host}:{port} ({err.strerror}); is another "
                             "server running there? pick another --port") from None
