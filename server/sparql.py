"""The SPARQL 1.1 Protocol endpoint (query operation only) at /sparql.

GET ?query=, POST form-encoded and POST application/sparql-query; the answer format comes
from `format=` or `Accept` (see `server.negotiate`). Updates are refused with 403 before
they reach the store; queries run in the killable worker pool under the deadline.
"""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from paperkg_server.context import Context, get_context
from paperkg_server.errors import ApiError, error_response
from paperkg_server.negotiate import known_formats, negotiate
from paperkg_server.pages import render
from paperkg_server.pool import Busy, DeadlineExceeded, Job, Reply, WorkerLost

from paperkg.results import QueryResult
from paperkg.sparqltext import explain_query_error, with_prefixes

__all__ = ["graph_response", "router", "run_query"]

router = APIRouter(tags=["sparql"])
MAX_BODY = 1 << 20
_POSITION = re.compile(r"error at line (-?\d+), column (\d+)")
_UPDATE_REFUSAL = ("this endpoint is read-only: SPARQL Update (INSERT, DELETE, LOAD, CLEAR, "
                   "CREATE, DROP, COPY, MOVE, ADD) is refused")

QueryParam = Annotated[str | None, Query(description="the SPARQL query (SELECT, ASK, "
                                                     "CONSTRUCT or DESCRIBE)")]
FormatParam = Annotated[str | None, Query(description="json, xml, csv, tsv (SELECT/ASK); "
                                                      "ttl, nt, jsonld (CONSTRUCT/DESCRIBE); "
                                                      "html; overrides Accept")]


@router.get("/sparql", summary="SPARQL 1.1 query via GET", response_model=None)
async def sparql_get(request: Request, ctx: Annotated[Context, Depends(get_context)],
                     query: QueryParam = None, format: FormatParam = None) -> Response:
    params = request.query_params
    if "update" in params:
        raise ApiError(403, _UPDATE_REFUSAL, "update_refused")
    if query is None:
        return render(request, "sparql.html", query=_EXAMPLE, result=None)
    return await execute(request, ctx, query, format)


@router.post("/sparql", summary="SPARQL 1.1 query via POST (form or sparql-query body)",
             response_model=None)
async def sparql_post(request: Request,
                      ctx: Annotated[Context, Depends(get_context)]) -> Response:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise ApiError(413, f"request body over {MAX_BODY} bytes")
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    fmt = request.query_params.get("format")
    if ctype == "application/sparql-update":
        raise ApiError(403, _UPDATE_REFUSAL, "update_refused")
    if ctype == "application/sparql-query":
        return await execute(request, ctx, _decode(body), fmt)
    if ctype == "application/x-www-form-urlencoded":
        form = parse_qs(_decode(body), keep_blank_values=True)
        if "update" in form:
            raise ApiError(403, _UPDATE_REFUSAL, "update_refused")
        if "query" not in form:
            raise ApiError(400, "no 'query' field in the form")
        return await execute(request, ctx, form["query"][0], form.get("format", [fmt])[0])
    raise ApiError(415, f"POST a query as application/sparql-query or "
                        f"application/x-www-form-urlencoded, not {ctype or 'no content type'!r}")


def _decode(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ApiError(400, f"the request body is not UTF-8 ({err.reason} at byte "
                            f"{err.start})") from None


async def execute(request: Request, ctx: Context, query: str, fmt: str | None) -> Response:
    """Run one query in the pool; map each outcome to a status code and the error shape."""
    reply = await run_query(ctx, query, request.headers.get("accept"), fmt)
    if isinstance(reply, Response):
        return reply
    headers = {"Vary": "Accept", "X-Result-Rows": str(reply.rows)}
    if reply.truncated:
        headers["X-Result-Truncated"] = f"row cap {ctx.settings.row_cap}"
    if isinstance(reply.result, QueryResult):
        page = render(request, "sparql.html", query=query, result=reply.result,
                      row_cap=ctx.settings.row_cap)
        page.headers.update(headers)
        return page
    return Response(reply.body, media_type=reply.media_type, headers=headers)


async def run_query(ctx: Context, query: str, accept: str | None,
                    fmt: str | None) -> Reply | Response:
    """One query through the pool: its Reply, or the error answer (the one JSON shape).
    `fmt="html"` gets the QueryResult itself back (the HTML table and graph views)."""
    if not query.strip():
        raise ApiError(400, "empty query")
    full = with_prefixes(query)
    shift = full.count("\n") - query.count("\n")
    job = Job(full, accept, fmt, ctx.settings.row_cap)
    try:
        reply = await ctx.pool.run(job)
    except DeadlineExceeded as err:
        return error_response(503, str(err), "deadline_exceeded",
                              deadline_s=ctx.settings.deadline)
    except Busy as err:
        return error_response(503, str(err), "busy", headers={"Retry-After": "1"})
    except WorkerLost as err:
        return error_response(500, str(err), "worker_lost")
    if reply.status == "refused":
        raise ApiError(403, reply.message, "query_refused")
    if reply.status == "malformed":
        message = explain_query_error(reply.message, shift)
        where = _POSITION.search(message)
        position = {"line": int(where[1]), "column": int(where[2])} if where else None
        raise ApiError(400, message, "malformed_query", position=position)
    if reply.status == "not_acceptable":
        raise ApiError(406, reply.message)
    if reply.status == "failed":
        raise ApiError(500, reply.message, "query_failed")
    return reply


def graph_response(result: QueryResult, request: Request, fmt: str | None) -> Response:
    """A graph answered in the serialisation the client asked for (Turtle by default)."""
    choice = negotiate("graph", request.headers.get("accept"), fmt)
    if choice is None:
        raise ApiError(406, f"formats offered: {', '.join(known_formats('graph'))}")
    if choice.fmt == "html":
        return Response(result.to_turtle(), media_type="text/plain; charset=utf-8")
    return Response(result.serialize(choice.fmt), media_type=choice.media_type,
                    headers={"Vary": "Accept"})


_EXAMPLE = """SELECT ?label ?n WHERE {
  ?c a skos:Concept ; skos:prefLabel ?label ; pkg:paperCount ?n .
} ORDER BY DESC(?n) LIMIT 10"""
