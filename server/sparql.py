"""The SPARQL 1.1 Protocol endpoint (query operation only) at /sparql.

GET ?query=, POST form-encoded and POST application/sparql-query; the dataset from
default-graph-uri / named-graph-uri (else the query's FROM, else the union of all graphs);
relative IRIs resolve against the endpoint's URL; the answer format from `format=` or
`Accept` (see `server.negotiate`), streamed whole. Updates are refused with 403 before
they reach the store; queries run in the sandboxed worker pool under the deadline.
Without a query, GET answers the service description (or the query page for browsers).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response, StreamingResponse

from paperkg.results import QueryResult
from paperkg.screen import MAX_NESTING, nesting_depth
from paperkg.sparqltext import explain_query_error, with_prefixes
from paperkg.store import graph_bytes
from paperkg.vocab import SPARQL_PREFIXES
from paperkg_server.context import Context, get_context
from paperkg_server.errors import ApiError, error_response, responses
from paperkg_server.negotiate import (
    GRAPH_FORMATS,
    TABLE_FORMATS,
    format_values,
    is_known_format,
    known_formats,
    negotiate,
    pick_format,
)
from paperkg_server.pages import EXAMPLES, render
from paperkg_server.pool import (
    HTML_ROWS,
    Busy,
    DeadlineExceeded,
    Job,
    MemoryExceeded,
    Reply,
    WorkerLost,
)

__all__ = ["GRAPH_ANSWERS", "MAX_BODY", "FormatParam", "GraphFormatParam", "graph_response",
           "router", "run_query"]

router = APIRouter(tags=["sparql"])
MAX_BODY = 1 << 20
MAX_QUERY = 100_000  # characters; a query longer than this is not written by a person
_POSITION = re.compile(r"error at line (-?\d+), column (\d+)")
_UPDATE_REFUSAL = ("this endpoint is read-only: SPARQL Update (INSERT, DELETE, LOAD, CLEAR, "
                   "CREATE, DROP, COPY, MOVE, ADD) is refused")
_MEDIA_TYPES = sorted({m for table in (TABLE_FORMATS, GRAPH_FORMATS)
                       for m, _ in table.values()})

QueryParam = Annotated[str | None, Query(description="the SPARQL query (SELECT, ASK, "
                                                     "CONSTRUCT or DESCRIBE), at most once",
                                         min_length=1)]
# documented as an enum, checked by `pick_format` (clients repeat it: SPARQLWrapper)
FormatParam = Annotated[str | None, Query(description="json, xml, csv, tsv (SELECT/ASK); "
                                                      "ttl, nt, jsonld, rdfxml, nq, trig "
                                                      "(CONSTRUCT/DESCRIBE); html; or a media "
                                                      "type; overrides Accept",
                                          json_schema_extra={"enum": format_values()})]
GraphFormatParam = Annotated[str | None, Query(
    description="ttl, nt, jsonld, rdfxml, nq, trig, html or a media type; overrides Accept",
    json_schema_extra={"enum": format_values(("graph",))})]
GraphsParam = Annotated[list[str] | None, Query(description="an absolute IRI of a graph",
                                                json_schema_extra={"items": {
                                                    "type": "string", "format": "iri"}})]
_NAMES = list(dict.fromkeys(known_formats("select") + known_formats("graph")))
_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]*")
PartialParam = Annotated[bool, Query(description="with a row cap set by the operator: "
                                                 "answer its first rows instead of an error")]
_ANSWERS: dict[int | str, dict[str, Any]] = {
    200: {"description": "the answer (or, without a query, the service description)",
          "content": {m.split(";")[0]: {} for m in _MEDIA_TYPES}},
    **responses(400, 403, 406, 413, 415, 422, 500, 503, 507),
}
#: What a graph described by the server itself (VoID, service description) answers.
GRAPH_ANSWERS: dict[int | str, dict[str, Any]] = {
    200: {"description": "the graph in the format asked for",
          "content": {m.split(";")[0]: {} for m, _ in GRAPH_FORMATS.values()}},
    **responses(400, 406),
}


@router.get("/sparql", summary="SPARQL 1.1 query via GET; the service description without "
            "a query", response_model=None, responses=_ANSWERS)
async def sparql_get(
    request: Request, ctx: Annotated[Context, Depends(get_context)],
    query: QueryParam = None, format: FormatParam = None,
    default_graph_uri: Annotated[GraphsParam, Query(alias="default-graph-uri")] = None,
    named_graph_uri: Annotated[GraphsParam, Query(alias="named-graph-uri")] = None,
    partial: PartialParam = False,
) -> Response:
    params = request.query_params
    if "update" in params:
        raise ApiError(403, _UPDATE_REFUSAL, "update_refused")
    queries = params.getlist("query")
    fmt = pick_format(params.getlist("format"))
    if fmt is not None and not is_known_format(fmt):
        raise ApiError(400, f"unknown format={fmt!r}; formats: {', '.join(_NAMES)}")
    if not queries:
        if default_graph_uri or named_graph_uri:
            raise ApiError(400, "default-graph-uri / named-graph-uri without a query")
        return service_description(request, ctx, fmt)
    return await execute(request, ctx, _one(queries), fmt, default_graph_uri or [],
                         named_graph_uri or [], partial)


@router.post("/sparql", summary="SPARQL 1.1 query via POST (form or sparql-query body)",
             response_model=None, responses=_ANSWERS, openapi_extra={"requestBody": {
                 "required": True, "content": {
                     "application/sparql-query": {"schema": {"type": "string"}},
                     "application/x-www-form-urlencoded": {"schema": {
                         "type": "object", "required": ["query"],
                         "properties": {"query": {"type": "string"},
                                        "default-graph-uri": {"type": "array",
                                                              "items": {"type": "string"}},
                                        "named-graph-uri": {"type": "array",
                                                            "items": {"type": "string"}},
                                        "format": {"type": "string"}}}}}}})
async def sparql_post(request: Request,
                      ctx: Annotated[Context, Depends(get_context)]) -> Response:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    url = request.query_params
    if ctype == "application/sparql-update" or "update" in url:
        raise ApiError(403, _UPDATE_REFUSAL, "update_refused")
    body = await read_body(request)
    if ctype == "application/sparql-query":
        if "query" in url:
            raise ApiError(400, "a query in the body and another in the URL; send one")
        return await execute(request, ctx, _decode(body), pick_format(url.getlist("format")),
                             url.getlist("default-graph-uri"), url.getlist("named-graph-uri"),
                             _flag(url.get("partial")))
    if ctype == "application/x-www-form-urlencoded":
        form = parse_qs(_decode(body), keep_blank_values=True)
        if "update" in form:
            raise ApiError(403, _UPDATE_REFUSAL, "update_refused")
        if "query" not in form:
            raise ApiError(400, "no 'query' field in the form")
        if "query" in url:
            raise ApiError(400, "a query in the form and another in the URL; send one")
        fmt = pick_format(form.get("format", []) + url.getlist("format"))
        partial = form["partial"][0] if "partial" in form else url.get("partial")
        return await execute(request, ctx, _one(form["query"]), fmt,
                             form.get("default-graph-uri", []),
                             form.get("named-graph-uri", []), _flag(partial))
    raise ApiError(415, f"POST a query as application/sparql-query or "
                        f"application/x-www-form-urlencoded, not {ctype or 'no content type'!r}")


def _one(queries: list[str]) -> str:
    if len(queries) != 1:
        raise ApiError(400, f"{len(queries)} 'query' parameters; send exactly one")
    return queries[0]


def _flag(value: str | None) -> bool:
    if value in (None, "", "false", "0"):
        return False
    if value in ("true", "1"):
        return True
    raise ApiError(400, f"partial={value!r}: use true or false")


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request body, refused with 413 as soon as it passes `limit` bytes: a huge body
    is never held (the Content-Length, when sent, is checked before reading anything)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"request body of {declared} bytes; at most {limit} are accepted")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"request body over {limit} bytes")
    return bytes(body)


def _decode(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ApiError(400, f"the request body is not UTF-8 ({err.reason} at byte "
                            f"{err.start})") from None


def base_iri(request: Request) -> str:
    """Relative IRIs in a query resolve against the endpoint's own URL."""
    return str(request.base_url).rstrip("/") + "/sparql"


async def execute(request: Request, ctx: Context, query: str, fmt: str | None,
                  default_graphs: list[str], named_graphs: list[str],
                  partial: bool = False) -> Response:
    """Run one query in the pool; map each outcome to a status code and the error shape."""
    for iri in (*default_graphs, *named_graphs):
        if not _IRI.fullmatch(iri):
            raise ApiError(400, f"graph {iri!r} is not an absolute IRI")
    if fmt is not None and not is_known_format(fmt):
        raise ApiError(400, f"unknown format={fmt!r}; formats: {', '.join(_NAMES)}")
    reply = await run_query(ctx, query, request.headers.get("accept"), fmt,
                            dataset=(tuple(default_graphs), tuple(named_graphs)),
                            base=base_iri(request), partial=partial)
    if isinstance(reply, Response):
        return reply
    headers = {"Vary": "Accept"}
    if isinstance(reply.result, QueryResult):
        page = render(request, "sparql.html", query=query, result=reply.result,
                      examples=EXAMPLES, shown=HTML_ROWS, prefixes=SPARQL_PREFIXES)
        page.headers.update(headers)
        return page
    if reply.chunks is not None:
        return StreamingResponse(reply.chunks, media_type=reply.media_type, headers=headers)
    if reply.rows is not None:
        headers["X-Result-Rows"] = str(reply.rows)
    if reply.truncated:
        headers["X-Result-Truncated"] = (f"first {reply.rows} rows only (partial=true; row "
                                         f"cap {ctx.settings.row_cap})")
    return Response(reply.body, media_type=reply.media_type, headers=headers)


async def run_query(ctx: Context, query: str, accept: str | None, fmt: str | None, *,
                    dataset: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
                    base: str | None = None, partial: bool = False) -> Reply | Response:
    """One query through the pool: its Reply, or the error answer (the one JSON shape).
    `fmt="html"` gets the QueryResult itself back (the HTML table and graph views)."""
    if not query.strip():
        raise ApiError(400, "empty query")
    if len(query) > MAX_QUERY:
        raise ApiError(413, f"query of {len(query)} characters; at most {MAX_QUERY}")
    depth = nesting_depth(query)  # the parser recurses per level: refuse before it runs
    if depth > MAX_NESTING:
        raise ApiError(400, f"brackets nested {depth} deep; at most {MAX_NESTING} levels "
                            "are accepted", "malformed_query")
    full = with_prefixes(query)
    shift = full.count("\n") - query.count("\n")
    job = Job(full, accept, fmt, ctx.settings.row_cap, partial, dataset[0], dataset[1], base)
    try:
        reply = await ctx.pool.run(job)
    except DeadlineExceeded as err:
        return error_response(503, str(err), "deadline_exceeded",
                              deadline_s=ctx.settings.deadline)
    except Busy as err:
        return error_response(503, str(err), "busy",
                              headers={"Retry-After": str(err.retry_after)})
    except MemoryExceeded as err:
        return error_response(507, f"{str(err)}; narrow it (LIMIT, more specific patterns)",
                              "memory_exceeded", ceiling_mb=ctx.settings.query_memory_mb)
    except WorkerLost as err:
        return error_response(500, str(err), "worker_lost")
    if reply.status == "refused":
        raise ApiError(403, reply.message, "query_refused")
    if reply.status == "malformed":
        message = explain_query_error(reply.message, shift, query)
        where = _POSITION.search(message)
        position = {"line": int(where[1]), "column": int(where[2])} if where else None
        raise ApiError(400, message, "malformed_query", position=position)
    if reply.status == "not_acceptable":
        raise ApiError(406, reply.message)
    if reply.status == "too_large":
        raise ApiError(422, reply.message, "row_cap_exceeded", row_cap=ctx.settings.row_cap)
    if reply.status == "unavailable":
        return error_response(503, reply.message, "store_unavailable")
    if reply.status == "failed":
        raise ApiError(500, reply.message, "query_failed")
    return reply


def service_description(request: Request, ctx: Context, fmt: str | None) -> Response:
    """GET /sparql without a query: the query page for browsers, else the SPARQL Service
    Description (with the VoID of the dataset) in the RDF format asked for."""
    from paperkg_server.void import void_graph

    choice = negotiate("graph", request.headers.get("accept"), fmt)
    if choice is not None and choice.fmt == "html":
        return render(request, "sparql.html", query=EXAMPLES[0][1], result=None,
                      examples=EXAMPLES, prefixes=SPARQL_PREFIXES)
    base = str(request.base_url).rstrip("/")
    return graph_response(void_graph(ctx, base), request, fmt)


def graph_response(result: QueryResult, request: Request, fmt: str | None) -> Response:
    """A small graph answered in the serialisation the client asked for (Turtle by
    default, a page for browsers)."""
    if fmt is not None and fmt not in format_values(("graph",)):
        raise ApiError(400, f"unknown format={fmt!r}; formats: "
                            f"{', '.join(known_formats('graph'))}")
    choice = negotiate("graph", request.headers.get("accept"), fmt)
    if choice is None:
        raise ApiError(406, f"formats offered: {', '.join(known_formats('graph'))}")
    if choice.fmt == "html":
        page = render(request, "graph.html", result=result, path=request.url.path)
        page.headers["Vary"] = "Accept"
        return page
    return Response(graph_bytes(result, choice.fmt), media_type=choice.media_type,
                    headers={"Vary": "Accept"})


_STATIC = Path(__file__).parent / "static"
_EDITOR = {"sparql-editor.js": "text/javascript; charset=utf-8",
           "sparql-editor.css": "text/css; charset=utf-8"}


@router.get("/static/editor/{name}", include_in_schema=False)
async def editor_asset(name: str) -> Response:
    """The query page's editor (our own code, shipped in this package)."""
    if name not in _EDITOR:
        raise ApiError(404, f"no static file {name!r}; files: {', '.join(_EDITOR)}")
    return Response((_STATIC / name).read_bytes(), media_type=_EDITOR[name],
                    headers={"Cache-Control": "public, max-age=3600"})
