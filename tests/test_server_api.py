"""The HTTP service end to end: `paperkg serve` in a subprocess over the real demo KG,
driven by real clients (httpx, SPARQLWrapper) over loopback. JSON API, pages, escaping."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from paperkg.read.kg import open_kg

from .serving import base, client, dpc, error, serve

__all__ = ["base", "client", "dpc"]  # fixtures

XSS = "<script>alert(1)</script>"

# ------------------------------------------------------------------ JSON API


def test_related_matches_the_library(client: httpx.Client, demo_kg: Path, dpc: str) -> None:
    got = client.get(f"/api/papers/{dpc}/related", params={"limit": 5}).json()["related"]
    want = open_kg(demo_kg).reader().related(dpc, 5)
    assert [(r["id"], r["score"]) for r in got] == [(w.paper_id, w.score) for w in want]
    assert [[s["concept"] for s in r["shared"]] for r in got] == \
        [[c for c, _ in w.shared] for w in want]
    assert got and all(r["shared"] for r in got)


def test_neighbours(client: httpx.Client, demo_kg: Path, dpc: str) -> None:
    own = {f"concept:{c.concept_id}" for c in open_kg(demo_kg).reader().concepts_of(dpc)}
    one = client.get(f"/api/nodes/paper:{dpc}/neighbours", params={"depth": 1}).json()
    ids = {n["id"] for n in one["nodes"]}
    assert one["center"] == f"paper:{dpc}" and ids == own | {f"paper:{dpc}"}
    assert {(e["source"], e["target"]) for e in one["edges"]} <= \
        {(a, b) for a in ids for b in ids}
    paper_edges = [e for e in one["edges"] if f"paper:{dpc}" in (e["source"], e["target"])]
    assert paper_edges and all(e["kind"] == "mentions" and 0 <= e["score"] <= 1
                               for e in paper_edges)
    # the rest link two of the paper's concepts: one is a kind of the other
    assert all(e["kind"] == "broader" for e in one["edges"] if e not in paper_edges)
    two = client.get(f"/api/nodes/{dpc}/neighbours", params={"depth": 2, "limit": 200}).json()
    kinds = {n["kind"] for n in two["nodes"]}
    assert "paper" in kinds and len(two["nodes"]) > len(one["nodes"])
    cut = client.get(f"/api/nodes/{dpc}/neighbours", params={"depth": 2, "limit": 4}).json()
    assert len(cut["nodes"]) == 4
    only = client.get(f"/api/nodes/{dpc}/neighbours",
                      params={"depth": 2, "types": "concept"}).json()
    assert {n["kind"] for n in only["nodes"] if n["id"] != only["center"]} == {"concept"}
    concept = next(iter(own))
    around = client.get(f"/api/nodes/{concept}/neighbours").json()
    assert f"paper:{dpc}" in {n["id"] for n in around["nodes"]}
    error(client.get(f"/api/nodes/{dpc}/neighbours", params={"depth": 4}), 400)
    error(client.get(f"/api/nodes/{dpc}/neighbours", params={"types": "planet"}), 400)


def test_concept_papers(client: httpx.Client, demo_kg: Path, dpc: str) -> None:
    cid = open_kg(demo_kg).reader().concepts_of(dpc)[0].concept_id
    doc = client.get(f"/api/concepts/{cid}/papers").json()
    assert doc["concept"]["id"] == cid and doc["total"] >= 1
    assert dpc in {p["id"] for p in doc["papers"]}
    assert client.get(f"/api/concepts/concept:{cid}").json()["id"] == cid
    top = open_kg(demo_kg).reader().top_concepts(1)[0]  # in a topic and a field
    doc = client.get(f"/api/concepts/{top.id}").json()
    assert (doc["topic"], doc["field"]) == (top.topic, top.field) and doc["topic"]
    page = client.get(f"/concepts/{top.id}").text
    assert f">{top.topic}</span> in the field" in page


def test_search_ranks_and_paginates(client: httpx.Client, dpc: str, demo_kg: Path) -> None:
    doc = client.get("/api/search", params={"q": "dynamic prompt corruption"}).json()
    assert doc["hits"][0]["label"] == "Dynamic Prompt Corruption"
    assert dpc in [h["id"] for h in doc["hits"][:3]]
    everything = client.get("/api/search", params={"q": "model", "limit": 100}).json()
    assert everything["total"] > 10
    page2 = client.get("/api/search", params={"q": "model", "limit": 5, "offset": 5}).json()
    assert [h["id"] for h in page2["hits"]] == [h["id"] for h in everything["hits"][5:10]]
    papers = client.get("/api/search", params={"q": "model", "kind": "paper"}).json()
    assert {h["kind"] for h in papers["hits"]} == {"paper"}
    res = open_kg(demo_kg).store.query(
        "SELECT ?c ?alt WHERE { ?c <http://www.w3.org/2004/02/skos/core#altLabel> ?alt } "
        "LIMIT 1")
    if res.rows:  # altLabels are searchable too
        iri, alt = res.rows[0]
        assert iri is not None and alt is not None
        hits = client.get("/api/search", params={"q": alt.value, "kind": "concept"}).json()
        assert iri.value.rsplit("/", 1)[1] in [h["id"] for h in hits["hits"]]
    error(client.get("/api/search"), 400)


@pytest.mark.parametrize("path", [
    "/api/papers/nope", "/api/papers/nope/related", "/api/concepts/nope/papers",
    "/api/concepts/nope", "/api/nodes/paper:nope/neighbours", "/papers/nope",
    "/concepts/nope", "/no/such/route",
])
def test_unknown_ids_are_404(client: httpx.Client, path: str) -> None:
    err = error(client.get(path), 404, "not_found")
    # the server's own paths (its KG snapshot) are none of a client's business
    assert ".serving-" not in str(err["message"]) and "/tmp/" not in str(err["message"])


# ------------------------------------------------------------------ pages


def test_home_page_and_one_click_examples(client: httpx.Client) -> None:
    home = client.get("/", headers={"Accept": "text/html"})
    assert home.headers["content-type"].startswith("text/html")
    assert "38 papers" in home.text and 'action="/search"' in home.text
    links = [line.split('href="', 1)[1].split('"', 1)[0] for line in home.text.splitlines()
             if 'href="/sparql?' in line]
    assert len(links) >= 4
    for link in links:
        url = link.replace("&amp;", "&")
        query = parse_qs(urlparse(url).query)["query"][0]
        page = client.get(url)
        assert page.status_code == 200, query
        assert "<table>" in page.text or "<pre>" in page.text or "Answer" in page.text


def test_paper_concept_search_pages(client: httpx.Client, dpc: str, demo_kg: Path) -> None:
    page = client.get(f"/papers/{dpc}").text
    assert "Dynamic Prompt Corruption" in page and "<h2>Related papers</h2>" in page
    cid = open_kg(demo_kg).reader().concepts_of(dpc)[0].concept_id
    assert f'href="/concepts/{cid}"' in page
    assert f"/api/nodes/paper:{dpc}/neighbours" in page
    concept = client.get(f"/concepts/{cid}").text
    assert f'href="/papers/{dpc}"' in concept
    search = client.get("/search", params={"q": "prompt corruption"}).text
    assert f'href="/papers/{dpc}"' in search
    form = client.get("/sparql", headers={"Accept": "text/html"}).text
    # the query page works without JavaScript; its editor is a script file of ours, no inline code
    assert "<textarea" in form and form.count("<script") == form.count('<script src="/static/')


# ------------------------------------------------------------------ escaping


@pytest.fixture(scope="module")
def xss_base(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Iterator[str]:
    from paperkg.build.pipeline import build_kg
    from paperkg.progress import Reporter
    from paperkg.settings import Settings

    root = tmp_path_factory.mktemp("xss")
    src = root / "xss.jsonl"
    rows = [
        {"id": "xss1", "title": XSS,
         "abstract": "We study graph neural networks for molecule property prediction "
                     "and show that message passing with attention improves accuracy."},
        {"id": "xss2", "title": "Plain & <b>bold</b> title",
         "abstract": "Graph neural networks with attention are applied to protein "
                     "structure prediction, improving message passing efficiency."},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    build_kg([src], root / "kg", Settings(cache_dir=cache_dir), reporter=Reporter(quiet=True))
    yield from serve(root / "kg", "--deadline", "5")


def test_titles_are_escaped_in_pages_and_raw_in_json(xss_base: str) -> None:
    with httpx.Client(base_url=xss_base, timeout=30) as c:
        for path in ("/papers/xss1", "/papers/xss2", "/search?q=alert",
                     "/sparql?format=html&query=SELECT%20%3Ft%20WHERE%20%7B%3Fp%20"
                     "dcterms%3Atitle%20%3Ft%7D"):
            html = c.get(path).text
            assert "<script>alert" not in html and "<b>bold" not in html, path
            assert ("&lt;script&gt;alert(1)&lt;/script&gt;" in html
                    or "&lt;b&gt;bold&lt;/b&gt;" in html), path
        assert c.get("/api/papers/xss1").json()["title"] == XSS
        related_doc = c.get("/api/papers/xss2/related").json()
        assert related_doc["related"][0]["title"] == XSS
        hits = c.get("/api/search", params={"q": "alert"}).json()["hits"]
        assert hits[0]["label"] == XSS
        rows = c.get("/sparql", params={"query": "SELECT ?t WHERE { ?p dcterms:title ?t }"})
        assert XSS in {b["t"]["value"] for b in rows.json()["results"]["bindings"]}
