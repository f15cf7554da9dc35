"""The HTTP service end to end: `paperkg serve` in a subprocess over the real demo KG,
driven by real clients (httpx, SPARQLWrapper) over loopback."""

from __future__ import annotations

import csv
import io
import json
import socket
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.compare import isomorphic
from SPARQLWrapper import CSV, JSON, JSONLD, POST, TSV, TURTLE, XML, SPARQLWrapper

from paperkg.kg import open_kg
from paperkg.query import concepts_of, related

SR = "{http://www.w3.org/2005/sparql-results#}"
VOID = Namespace("http://rdfs.org/ns/void#")
XSS = "<script>alert(1)</script>"
SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
ROW_CAP = 100
COUNT_TRIPLES = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(kg: Path, *flags: str) -> Iterator[str]:
    """`paperkg serve` in a subprocess; yields its base URL once /healthz answers."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "paperkg.cli", "serve", "--kg", str(kg), "--port", str(port),
         *flags], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {proc.stdout.read() if proc.stdout else ''}")
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            raise RuntimeError("server did not start within 60 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def base(demo_kg: Path) -> Iterator[str]:
    yield from _serve(demo_kg, "--deadline", "1", "--row-cap", str(ROW_CAP),
                      "--query-workers", "2", "--cors-origins", "https://example.org")


@pytest.fixture(scope="module")
def client(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=30) as c:
        yield c


@pytest.fixture(scope="module")
def dpc(demo_kg: Path) -> str:
    res = open_kg(demo_kg).store.query(
        'SELECT ?id WHERE { ?p <http://www.w3.org/2000/01/rdf-schema#label> "DPC" ; '
        "<http://purl.org/dc/terms/identifier> ?id }")
    return str(res.rows[0][0].value)


def _error(resp: httpx.Response, status: int, code: str | None = None) -> dict[str, object]:
    """Every error has one shape: {"error": {"status", "code", "message", ...}}."""
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/json")
    err = resp.json()["error"]
    assert err["status"] == status and err["message"]
    if code:
        assert err["code"] == code
    return dict(err)


def _sparql(client: httpx.Client, query: str, **params: str) -> httpx.Response:
    return client.get("/sparql", params={"query": query, **params})


def _count(client: httpx.Client) -> int:
    resp = _sparql(client, COUNT_TRIPLES, format="json")
    return int(resp.json()["results"]["bindings"][0]["n"]["value"])


# ------------------------------------------------------------------ service


def test_health_docs_and_cors(client: httpx.Client, demo_kg: Path) -> None:
    health = client.get("/healthz").json()
    assert health["status"] == "ok" and health["papers"] == 38
    assert health["concepts"] == json.loads((demo_kg / "manifest.json").read_text())[
        "counts"]["concepts"]
    assert "swagger" in client.get("/docs").text.lower()
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/sparql", "/api/search", "/api/papers/{paper_id}/related",
                 "/api/nodes/{node_id}/neighbours", "/api/concepts/{concept_id}/papers"):
        assert path in paths
    cors = client.get("/healthz", headers={"Origin": "https://example.org"})
    assert cors.headers["access-control-allow-origin"] == "https://example.org"
    assert "access-control-allow-origin" not in client.get(
        "/healthz", headers={"Origin": "https://evil.example"}).headers


def test_void_describes_the_dataset(client: httpx.Client, base: str, demo_kg: Path) -> None:
    manifest = json.loads((demo_kg / "manifest.json").read_text())
    for accept, fmt in (("text/turtle", "turtle"), ("application/n-triples", "nt"),
                        ("application/ld+json", "json-ld")):
        resp = client.get("/.well-known/void", headers={"Accept": accept})
        assert resp.status_code == 200 and resp.headers["content-type"].startswith(accept)
        g = Graph().parse(data=resp.text, format=fmt)
        dataset = URIRef(base + "/.well-known/void#dataset")
        assert g.value(dataset, VOID.triples).toPython() == manifest["counts"]["triples"]
        assert g.value(dataset, VOID.sparqlEndpoint) == URIRef(base + "/sparql")


# ------------------------------------------------------------------ SPARQL protocol

PAPERS = "SELECT ?p ?label WHERE { ?p a pkg:Paper ; rdfs:label ?label } ORDER BY ?p"


def test_select_in_every_format_agrees(client: httpx.Client) -> None:
    js = _sparql(client, PAPERS)
    assert js.headers["content-type"].startswith("application/sparql-results+json")
    rows = [(b["p"]["value"], b["label"]["value"]) for b in js.json()["results"]["bindings"]]
    assert len(rows) == 38 and "DPC" in {label for _, label in rows}
    xml = client.get("/sparql", params={"query": PAPERS},
                     headers={"Accept": "application/sparql-results+xml"})
    assert xml.headers["content-type"].startswith("application/sparql-results+xml")
    results = ET.fromstring(xml.content).find(f"{SR}results")
    assert results is not None
    xml_rows = [tuple(b.find("*").text for b in r.findall(f"{SR}binding"))  # type: ignore
                for r in results.findall(f"{SR}result")]
    assert xml_rows == rows
    csv_resp = _sparql(client, PAPERS, format="csv")
    assert csv_resp.headers["content-type"].startswith("text/csv")
    assert [tuple(r) for r in csv.reader(io.StringIO(csv_resp.text))] == [("p", "label"), *rows]
    tsv = client.get("/sparql", params={"query": PAPERS},
                     headers={"Accept": "text/tab-separated-values"})
    lines = tsv.text.splitlines()
    assert lines[0] == "?p\t?label" and len(lines) == 39
    assert lines[1].split("\t") == [f"<{rows[0][0]}>", json.dumps(rows[0][1])]


def test_post_form_and_sparql_query_body_match_get(client: httpx.Client) -> None:
    get = _sparql(client, PAPERS).json()
    form = client.post("/sparql", data={"query": PAPERS})
    body = client.post("/sparql", content=PAPERS.encode(),
                       headers={"Content-Type": "application/sparql-query"})
    assert form.json() == get == body.json()
    wrong = client.post("/sparql", content=PAPERS, headers={"Content-Type": "text/plain"})
    _error(wrong, 415)


def test_ask_construct_describe(client: httpx.Client, dpc: str, demo_kg: Path) -> None:
    ask = f"ASK {{ paper:{dpc} rdfs:label 'DPC' }}"
    assert _sparql(client, ask).json() == {"head": {}, "boolean": True}
    assert _sparql(client, "ASK { ?x rdfs:label 'no such thing' }", format="csv").text == \
        "false\r\n"
    ask_xml = ET.fromstring(_sparql(client, ask, format="xml").content)
    assert ask_xml.findtext(f"{SR}boolean") == "true"
    construct = f"CONSTRUCT {{ ?c skos:prefLabel ?l }} WHERE {{ paper:{dpc} pkg:mentions ?c . " \
                "?c skos:prefLabel ?l }"
    graphs = {}
    for accept, fmt in (("text/turtle", "turtle"), ("application/n-triples", "nt"),
                        ("application/ld+json", "json-ld")):
        resp = client.get("/sparql", params={"query": construct}, headers={"Accept": accept})
        assert resp.headers["content-type"].startswith(accept)
        graphs[fmt] = Graph().parse(data=resp.text, format=fmt)
    expected = {c.label for c in concepts_of(open_kg(demo_kg), dpc)}
    assert {str(o) for o in graphs["turtle"].objects()} == expected
    assert isomorphic(graphs["turtle"], graphs["nt"])
    assert isomorphic(graphs["nt"], graphs["json-ld"])
    describe = _sparql(client, f"DESCRIBE paper:{dpc}", format="ttl")
    g = Graph().parse(data=describe.text, format="turtle")
    abstract = g.value(URIRef(f"https://w3id.org/paperkg/paper/{dpc}"),
                       URIRef("http://purl.org/dc/terms/abstract"))
    assert isinstance(abstract, Literal) and "Prompt Tuning" in str(abstract)


def test_sparqlwrapper_works_unchanged(base: str, dpc: str) -> None:
    def run(query: str, fmt: str, post: bool = False) -> object:
        sw = SPARQLWrapper(base + "/sparql")
        sw.setQuery("PREFIX pkg: <https://w3id.org/paperkg/ontology#>\n" + query)
        sw.setReturnFormat(fmt)
        if post:
            sw.setMethod(POST)
        return sw.query().convert()

    select = "SELECT (COUNT(?p) AS ?n) WHERE { ?p a pkg:Paper }"
    for post in (False, True):
        doc = run(select, JSON, post)
        assert isinstance(doc, dict)
        assert doc["results"]["bindings"][0]["n"]["value"] == "38"
    xml_doc = run(select, XML)
    assert xml_doc.getElementsByTagName("literal")[0].firstChild.data == "38"  # type: ignore
    assert run(select, CSV) == b"n\r\n38\r\n"
    assert run(select, TSV).decode().splitlines()[1].startswith('"38"')  # type: ignore
    assert run("ASK { ?p a pkg:Paper }", JSON) == {"head": {}, "boolean": True}
    construct = "CONSTRUCT { ?p a pkg:Paper } WHERE { ?p a pkg:Paper }"
    turtle = run(construct, TURTLE)
    assert len(Graph().parse(data=turtle, format="turtle")) == 38  # type: ignore[arg-type]
    jsonld = run(construct, JSONLD)
    assert isinstance(jsonld, Graph) and len(jsonld) == 38


@pytest.mark.parametrize("update", [
    "INSERT DATA { <urn:x> <urn:y> <urn:z> }",
    "DELETE WHERE { ?s ?p ?o }",
    "LOAD <http://example.org/data.ttl>",
    "CLEAR ALL",
    "DROP DEFAULT",
])
def test_updates_are_refused_and_change_nothing(client: httpx.Client, update: str) -> None:
    before = _count(client)
    _error(_sparql(client, update), 403, "query_refused")
    _error(client.post("/sparql", data={"query": update}), 403, "query_refused")
    _error(client.post("/sparql", data={"update": update}), 403, "update_refused")
    _error(client.get("/sparql", params={"update": update}), 403, "update_refused")
    _error(client.post("/sparql", content=update,
                       headers={"Content-Type": "application/sparql-update"}),
           403, "update_refused")
    assert _count(client) == before
    assert _sparql(client, "ASK { <urn:x> ?p ?o }").json()["boolean"] is False


def test_malformed_query_points_at_the_users_text(client: httpx.Client) -> None:
    err = _error(_sparql(client, "SELECT ?x WHERE {\n  ?x ?y\n}"), 400, "malformed_query")
    assert err["position"] == {"line": 3, "column": 1}
    assert "line 3, column 1" in str(err["message"])
    _error(_sparql(client, "   "), 400)
    png = client.get("/sparql", params={"query": PAPERS}, headers={"Accept": "image/png"})
    assert "formats offered: json, xml, csv, tsv" in str(_error(png, 406)["message"])


def test_row_cap_cuts_answers_and_says_so(client: httpx.Client) -> None:
    resp = _sparql(client, "SELECT * WHERE { ?s ?p ?o }")
    assert len(resp.json()["results"]["bindings"]) == ROW_CAP
    assert resp.headers["x-result-truncated"] == f"row cap {ROW_CAP}"
    graph = _sparql(client, "CONSTRUCT WHERE { ?s ?p ?o }", format="nt")
    assert len(graph.text.splitlines()) == ROW_CAP
    small = _sparql(client, "SELECT * WHERE { ?s ?p ?o } LIMIT 3")
    assert small.headers["x-result-rows"] == "3" and "x-result-truncated" not in small.headers


def test_deadline_stops_a_slow_query_without_blocking_others(base: str,
                                                              client: httpx.Client) -> None:
    outcome: dict[str, object] = {}

    def slow() -> None:
        began = time.perf_counter()
        with httpx.Client(base_url=base, timeout=30) as c:
            outcome["resp"] = c.get("/sparql", params={"query": SLOW})
        outcome["seconds"] = time.perf_counter() - began

    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.3)  # the slow query is now running in a worker
    began = time.perf_counter()
    assert client.get("/healthz").status_code == 200
    assert client.get("/api/search", params={"q": "prompt"}).json()["total"] > 0
    assert _sparql(client, "ASK { ?s ?p ?o }").json()["boolean"] is True
    assert time.perf_counter() - began < 0.5
    thread.join(10)
    resp = outcome["resp"]
    assert isinstance(resp, httpx.Response)
    err = _error(resp, 503, "deadline_exceeded")
    assert "1 s deadline" in str(err["message"])
    assert float(outcome["seconds"]) < 2.0  # type: ignore[arg-type]
    assert client.get("/healthz").json()["queries_killed"] >= 1
    assert _sparql(client, PAPERS).status_code == 200  # the pool recovered


# ------------------------------------------------------------------ JSON API


def test_related_matches_the_library(client: httpx.Client, demo_kg: Path, dpc: str) -> None:
    got = client.get(f"/api/papers/{dpc}/related", params={"limit": 5}).json()["related"]
    want = related(open_kg(demo_kg), dpc, 5)
    assert [(r["id"], r["score"]) for r in got] == [(w.paper_id, w.score) for w in want]
    assert [[s["concept"] for s in r["shared"]] for r in got] == \
        [[c for c, _ in w.shared] for w in want]
    assert got and all(r["shared"] for r in got)


def test_neighbours(client: httpx.Client, demo_kg: Path, dpc: str) -> None:
    own = {f"concept:{c.concept_id}" for c in concepts_of(open_kg(demo_kg), dpc)}
    one = client.get(f"/api/nodes/paper:{dpc}/neighbours", params={"depth": 1}).json()
    ids = {n["id"] for n in one["nodes"]}
    assert one["center"] == f"paper:{dpc}" and ids == own | {f"paper:{dpc}"}
    assert {(e["source"], e["target"]) for e in one["edges"]} <= \
        {(a, b) for a in ids for b in ids}
    assert all(e["kind"] == "mentions" and 0 < e["score"] <= 1 for e in one["edges"])
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
    _error(client.get(f"/api/nodes/{dpc}/neighbours", params={"depth": 4}), 400)
    _error(client.get(f"/api/nodes/{dpc}/neighbours", params={"types": "planet"}), 400)


def test_concept_papers(client: httpx.Client, demo_kg: Path, dpc: str) -> None:
    cid = concepts_of(open_kg(demo_kg), dpc)[0].concept_id
    doc = client.get(f"/api/concepts/{cid}/papers").json()
    assert doc["concept"]["id"] == cid and doc["total"] >= 1
    assert dpc in {p["id"] for p in doc["papers"]}
    assert client.get(f"/api/concepts/concept:{cid}").json()["id"] == cid


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
    _error(client.get("/api/search"), 400)


@pytest.mark.parametrize("path", [
    "/api/papers/nope", "/api/papers/nope/related", "/api/concepts/nope/papers",
    "/api/concepts/nope", "/api/nodes/paper:nope/neighbours", "/papers/nope",
    "/concepts/nope", "/no/such/route",
])
def test_unknown_ids_are_404(client: httpx.Client, path: str) -> None:
    _error(client.get(path), 404, "not_found")


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
    cid = concepts_of(open_kg(demo_kg), dpc)[0].concept_id
    assert f'href="/concepts/{cid}"' in page
    assert f"/api/nodes/paper:{dpc}/neighbours" in page
    concept = client.get(f"/concepts/{cid}").text
    assert f'href="/papers/{dpc}"' in concept
    search = client.get("/search", params={"q": "prompt corruption"}).text
    assert f'href="/papers/{dpc}"' in search
    form = client.get("/sparql", headers={"Accept": "text/html"}).text
    assert "<textarea" in form and "<script" not in form


# ------------------------------------------------------------------ escaping


@pytest.fixture(scope="module")
def xss_base(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Iterator[str]:
    from paperkg.kg import build_kg
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
    yield from _serve(root / "kg", "--deadline", "5")


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
