"""The JSON API: neighbourhoods, related papers, a concept's papers, search.

Every answer is a question of the KG's reader (`paperkg.read.questions.Reader`; the
server's is the memory back end, read from the store at startup), so each costs well
under a millisecond of work. They are `async def`: a thread-pool hop would cost more than the
work itself, and SPARQL (the only slow path) runs in worker processes.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import Response

from paperkg.read.questions import DEFAULT_BLEND, ConceptInfo, PaperInfo
from paperkg.vocab import CONCEPT_TYPES, author_iri, concept_iri, encode_id, paper_iri
from paperkg_server.context import Context, get_context
from paperkg_server.errors import ApiError

__all__ = ["node_json", "ok", "router"]

router = APIRouter(prefix="/api", tags=["api"])
Ctx = Annotated[Context, Depends(get_context)]
_CONCEPT_TYPES = {t.lower(): t for t in CONCEPT_TYPES}
NODE_TYPES = ("paper", "concept", "author", *_CONCEPT_TYPES)
_IRI = {"paper": paper_iri, "concept": concept_iri, "author": author_iri}
_PAGE = {"paper": "/papers/", "concept": "/concepts/"}


def ok(doc: object) -> Response:
    # orjson: 10x faster than json.dumps on a 50-node neighbourhood (48 vs 490 µs), which
    # matters at hundreds of requests per second on 2 cores (bench/bench_server.py)
    return Response(orjson.dumps(doc), media_type="application/json")


def paper_json(p: PaperInfo) -> dict[str, Any]:
    return {"id": p.id, "iri": str(paper_iri(p.id)), "label": p.label, "title": p.title,
            "decision": p.decision, "url": p.url, "authors": list(p.authors),
            "page": f"/papers/{encode_id(p.id)}"}


def concept_json(c: ConceptInfo) -> dict[str, Any]:
    return {"id": c.id, "iri": str(concept_iri(c.id)), "label": c.label,
            "alt_labels": list(c.alt_labels), "types": list(c.types),
            "paper_count": c.paper_count, "weight": c.weight, "topic": c.topic,
            "field": c.field, "page": f"/concepts/{c.id}"}


def node_json(key: str, data: dict[str, Any], ctx: Context) -> dict[str, Any]:
    kind, _, ident = key.partition(":")
    out: dict[str, Any] = {"id": key, "kind": kind, "label": data.get("label", ident),
                           "iri": str(_IRI[kind](ident)) if kind in _IRI else None}
    if kind in _PAGE:
        out["page"] = _PAGE[kind] + encode_id(ident)
    if kind == "concept" and ident in ctx.reader.data.concepts:
        c = ctx.reader.data.concepts[ident]
        out.update(types=list(c.types), paper_count=c.paper_count, weight=c.weight)
    elif kind == "paper":
        out["decision"] = data.get("decision", "")
    return out


@router.get("/papers/{paper_id:path}/related",
            summary="papers sharing concepts, ranked by the weight of what they share")
async def related(paper_id: str, ctx: Ctx,
                  limit: Annotated[int, Query(ge=1, le=200)] = 10,
                  blend: Annotated[float, Query(
                      ge=0.0, le=1.0, description="weight of word similarity (title and "
                      "abstract) against shared concepts in the ranking (0: shared concepts "
                      "only); results always share concepts")] = DEFAULT_BLEND,
                  ) -> Response:
    rows = ctx.reader.related(paper_id, limit, blend)
    return ok({"paper": paper_id, "related": [
        {**paper_json(ctx.reader.paper(r.paper_id)), "score": r.score,
         "shared": [{"concept": c, "weight": w} for c, w in r.shared]} for r in rows]})


# after /papers/{id}/related: a :path id would otherwise swallow the suffix
@router.get("/papers/{paper_id:path}", summary="a paper with its ranked concepts")
async def paper(paper_id: str, ctx: Ctx) -> Response:
    p = ctx.reader.paper(paper_id)
    concepts = [{**concept_json(ctx.reader.concept(c.concept_id)), "score": c.score,
                 "rank": c.rank, "role": c.role} for c in ctx.reader.concepts_of(p.id)]
    return ok({**paper_json(p), "abstract": p.abstract, "concepts": concepts})


@router.get("/concepts/{concept_id}", summary="a concept with its labels and counts")
async def concept(concept_id: str, ctx: Ctx) -> Response:
    return ok(concept_json(ctx.reader.concept(concept_id)))


@router.get("/concepts/{concept_id}/papers", summary="the papers mentioning a concept")
async def concept_papers(concept_id: str, ctx: Ctx,
                         limit: Annotated[int, Query(ge=1, le=500)] = 50,
                         offset: Annotated[int, Query(ge=0, le=10**9)] = 0) -> Response:
    c = ctx.reader.concept(concept_id)
    total, papers = ctx.reader.concept_papers(c.id, limit, offset)
    page = [{**paper_json(p), "score": s} for p, s in papers]
    return ok({"concept": concept_json(c), "total": total, "offset": offset,
               "limit": limit, "papers": page})


#: A node as a person names it, and how far to walk from it (shared with server.views).
NodeId = Annotated[str, Path(description="paper id, paper:ID, concept:slug, author:slug or a "
                                         "concept label")]
Depth = Annotated[int, Query(ge=1, le=3)]


@router.get("/nodes/{node_id:path}/neighbours",
            summary="nodes and edges within `depth` hops of a paper, concept or author")
async def neighbours(
    ctx: Ctx,
    node_id: NodeId,
    depth: Depth = 1,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    types: Annotated[str | None, Query(description="comma-separated: " +
                                       ", ".join(NODE_TYPES))] = None,
) -> Response:
    wanted = [t.strip().lower() for t in (types or "").split(",") if t.strip()]
    bad = [t for t in wanted if t not in NODE_TYPES]
    if bad:
        raise ApiError(400, f"unknown type(s) {bad}; choose from {list(NODE_TYPES)}")
    subtypes = {_CONCEPT_TYPES[t] for t in wanted if t in _CONCEPT_TYPES}
    kinds = {("concept" if t in _CONCEPT_TYPES else t) for t in wanted} or None
    found = ctx.reader.neighbours(node_id, depth, limit, kinds)
    start, links = found.center, found.edges
    nodes = [node_json(n, d, ctx) for n, d in found.nodes]
    if subtypes and "concept" not in wanted:
        nodes = [n for n in nodes if n["id"] == start or n["kind"] != "concept"
                 or subtypes & set(n.get("types", ()))]
    keep = {n["id"] for n in nodes}
    edges = [{"source": a, "target": b, "kind": d.get("kind"), "score": d.get("score"),
              "rank": d.get("rank")}
             for a, b, d in links if a in keep and b in keep]
    return ok({"center": start, "depth": depth, "nodes": nodes, "edges": edges})


@router.get("/search", summary="ranked full-text search over papers and concepts")
async def search(
    ctx: Ctx,
    q: Annotated[str, Query(min_length=1, max_length=500, description="words to find")],
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,  # bounded: orjson needs 64 bits
    kind: Annotated[str | None, Query(pattern="^(paper|concept)$")] = None,
) -> Response:
    total, hits = ctx.reader.search(q, limit, offset, [kind] if kind else None)
    return ok({"query": q, "total": total, "offset": offset, "limit": limit, "hits": [
        {"kind": h.kind, "id": h.id, "label": h.label, "score": h.score,
         "snippet": h.snippet, "page": _PAGE[h.kind] + encode_id(h.id)} for h in hits]})
