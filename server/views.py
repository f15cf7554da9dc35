"""Graph views in the browser: a node's neighbourhood, what connects two papers, a SPARQL
answer as a picture; and the vis-network files they load, served from here so a view
requests nothing from another host. The drawing is `paperkg.views`/`paperkg.views.page`;
this module only resolves ids, picks the graph and answers."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse, Response

from paperkg.errors import UsageError
from paperkg.results import QueryResult
from paperkg.views import draw as views
from paperkg.views.page import ASSETS, asset, render_page
from paperkg_server.api import Depth, NodeId, ok
from paperkg_server.context import Context, get_context
from paperkg_server.errors import ApiError
from paperkg_server.sparql import run_query

__all__ = ["router"]

router = APIRouter(tags=["views"])
Ctx = Annotated[Context, Depends(get_context)]
STATIC = "/static/vis/"
_HEADERS = {"Cache-Control": "no-store"}


def _page(ctx: Context, view: views.View, center: str | None = None) -> HTMLResponse:
    views.fill_labels(view.graph, ctx.reader.labels)
    links = {"home": "/"}
    if center:
        page = views.page_of(center, "")
        if page:
            links["its page"] = page
    html = render_page(view, assets=STATIC, pages="", expand="/view/expand/", links=links)
    return HTMLResponse(html, headers=_HEADERS)


@router.get("/view/node/{node_id:path}", response_class=HTMLResponse,
            summary="the neighbourhood of a paper, concept or author, drawn")
async def node_view(
    ctx: Ctx,
    node_id: NodeId,
    depth: Depth = 1,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> HTMLResponse:
    found = ctx.reader.neighbours(node_id, depth, limit)
    view = views.neighbourhood_view(found.graph(), found.center, depth, limit)
    return _page(ctx, view, found.center)


@router.get("/view/expand/{node_id:path}", summary="a node's nearest neighbours as "
                                                   "vis-network data (what shift-click adds "
                                                   "to a view)")
async def expand(ctx: Ctx, node_id: str,
                 limit: Annotated[int, Query(ge=1, le=200)] = 25) -> Response:
    found = ctx.reader.neighbours(node_id, 1, limit)
    view = views.neighbourhood_view(found.graph(), found.center, 1, limit)
    view.centers = ()
    views.fill_labels(view.graph, ctx.reader.labels)
    data = views.vis_data(view, pages="")
    return ok({"center": found.center, "nodes": data["nodes"], "edges": data["edges"]})


@router.get("/view/connect", response_class=HTMLResponse,
            summary="what connects two papers: shared concepts and shortest paths, drawn")
async def connect_view(
    ctx: Ctx,
    a: Annotated[str, Query(min_length=1, description="a paper id (or any node)")],
    b: Annotated[str, Query(min_length=1, description="another paper id (or any node)")],
) -> HTMLResponse:
    conn = await asyncio.to_thread(ctx.reader.connection, a, b)
    return _page(ctx, views.connect_view(conn))


@router.get("/view/sparql", response_class=HTMLResponse,
            summary="the graph of a SPARQL CONSTRUCT/DESCRIBE answer or of a SELECT "
                    "returning node pairs, drawn")
async def sparql_view(
    ctx: Ctx,
    query: Annotated[str, Query(min_length=1, max_length=20_000,
                                description="CONSTRUCT, DESCRIBE, or SELECT ?a ?b …")],
    limit: Annotated[int, Query(ge=1, le=1000)] = 500,
) -> Response:
    reply = await run_query(ctx, query, None, "html")
    if isinstance(reply, Response):
        return reply
    if not isinstance(reply.result, QueryResult):
        raise ApiError(500, "the query worker sent no result", "query_failed")
    try:
        view = views.sparql_view(reply.result, max_nodes=limit)
    except UsageError as err:
        raise ApiError(400, str(err), "not_a_graph") from None
    return _page(ctx, view)


@router.get("/static/vis/{name}", summary="vis-network, as shipped inside pyvis")
async def static_asset(name: str) -> Response:
    if name not in ASSETS:
        raise ApiError(404, f"no static file {name!r}; files: {', '.join(ASSETS)}")
    return Response(asset(name), media_type=ASSETS[name],
                    headers={"Cache-Control": "public, max-age=86400"})

