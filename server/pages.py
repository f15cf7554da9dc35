"""HTML pages: home (search box, corpus statistics, one-click example queries), search
results, a paper, a concept. Plain server-rendered HTML, readable without JavaScript;
Jinja autoescaping escapes every title, abstract and label."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape

from paperkg.vocab import encode_id
from paperkg_server.context import Context, get_context

__all__ = ["EXAMPLES", "render", "router"]

router = APIRouter(tags=["pages"], include_in_schema=False)
Ctx = Annotated[Context, Depends(get_context)]
_ENV = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                   autoescape=select_autoescape(default=True, default_for_string=True))


def _url_part(value: object) -> str:
    """Jinja's urlencode, stricter: an id in a link is one %-encoded path segment (`/`
    and a dots-only id included, vocab.encode_id); query text is encoded the same way."""
    text = str(value)
    return encode_id(text) if text else ""


_ENV.filters["urlencode"] = _url_part
_ENV.filters["sparql_link"] = lambda q: "/sparql?" + urlencode({"query": q, "format": "html"})
# Only http(s) links are clickable: a record's `url` could be "javascript:…" (stored XSS).
_ENV.tests["web_link"] = lambda url: isinstance(url, str) and url.lower().startswith(
    ("http://", "https://"))
PAGE_SIZE = 20

EXAMPLES: list[tuple[str, str]] = [
    ("Top concepts by number of papers", """SELECT ?concept ?label ?papers WHERE {
  ?concept a skos:Concept ; skos:prefLabel ?label ; pkg:paperCount ?papers .
} ORDER BY DESC(?papers) LIMIT 20"""),
    ("Concept pairs that occur together most", """SELECT ?a ?b (COUNT(?p) AS ?papers) WHERE {
  ?p pkg:mentions ?x , ?y . ?x skos:prefLabel ?a . ?y skos:prefLabel ?b .
  FILTER(STR(?x) < STR(?y))
} GROUP BY ?a ?b ORDER BY DESC(?papers) LIMIT 20"""),
    ("Papers with their top-ranked concept", """SELECT ?paper ?label ?concept ?score WHERE {
  ?paper a pkg:Paper ; rdfs:label ?label ; pkg:hasMention ?m .
  ?m pkg:rank 1 ; pkg:score ?score ; pkg:concept/skos:prefLabel ?concept .
} ORDER BY DESC(?score) LIMIT 20"""),
    ("How the concepts were extracted (model, parameters)", """SELECT ?x ?model ?name ?value {
  ?x a pkg:Extractor ; pkg:model ?model ; pkg:parameter ?param .
  ?param pkg:name ?name ; pkg:value ?value .
}"""),
    ("Everything about one concept, as RDF", """DESCRIBE ?c WHERE {
  ?c a skos:Concept ; pkg:paperCount ?n .
} ORDER BY DESC(?n) LIMIT 1"""),
]


def render(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    html = _ENV.get_template(template).render(request=request, **values)
    return HTMLResponse(html, status_code=status)


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, ctx: Ctx) -> HTMLResponse:
    counts = ctx.kg.manifest.get("counts", {})
    top = ctx.reader.top_concepts(15)
    return render(request, "home.html", counts=counts, top=top, examples=EXAMPLES,
                  built_at=ctx.kg.manifest.get("built_at", ""))


@router.get("/search", response_class=HTMLResponse)
def search_page(request: Request, ctx: Ctx, q: str = "",
                page: Annotated[int, Query(ge=1, le=1000)] = 1) -> HTMLResponse:
    total, hits = ctx.reader.search(q, PAGE_SIZE, (page - 1) * PAGE_SIZE) if q else (0, [])
    pages = (total + PAGE_SIZE - 1) // PAGE_SIZE
    return render(request, "search.html", q=q, total=total, hits=hits, page=page, pages=pages)


@router.get("/papers/{paper_id:path}", response_class=HTMLResponse)
async def paper_page(request: Request, paper_id: str, ctx: Ctx) -> HTMLResponse:
    p = ctx.reader.paper(paper_id)
    concepts = [(ctx.reader.concept(link.concept_id), link.score, link.rank)
                for link in ctx.reader.concepts_of(p.id)]
    related = ctx.reader.related(p.id, 10)
    describe = f"DESCRIBE paper:{p.id}" if p.id.isalnum() else f"DESCRIBE <{_iri(p.id)}>"
    return render(request, "paper.html", p=p, concepts=concepts, related=related,
                  describe=describe)


@router.get("/concepts/{concept_id}", response_class=HTMLResponse)
async def concept_page(request: Request, concept_id: str, ctx: Ctx) -> HTMLResponse:
    c = ctx.reader.concept(concept_id)
    _, papers = ctx.reader.concept_papers(c.id, 100)
    return render(request, "concept.html", c=c, papers=papers,
                  describe=f"DESCRIBE <{_iri(c.id, 'concept')}>")


def _iri(ident: str, kind: str = "paper") -> str:
    from paperkg.vocab import concept_iri, paper_iri

    return str(concept_iri(ident) if kind == "concept" else paper_iri(ident))
