"""The HTTP service end to end: `paperkg serve` in a subprocess over the real demo KG,
driven by real clients (httpx, SPARQLWrapper) over loopback. Service, SPARQL protocol, safety."""

from __future__ import annotations

import csv
import io
import json
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
import pytest
from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.compare import isomorphic
from SPARQLWrapper import CSV, JSON, JSONLD, POST, TSV, TURTLE, XML, SPARQLWrapper

from paperkg.read.kg import open_kg

from .serving import ROW_CAP, base, client, count, dpc, error, sparql

__all__ = ["base", "client", "dpc"]  # fixtures

SR = "{http://www.w3.org/2005/sparql-results#}"
VOID = Namespace("http://rdfs.org/ns/void#")
SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


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
    js = sparql(client, PAPERS)
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
    csv_resp = sparql(client, PAPERS, format="csv")
    assert csv_resp.headers["content-type"].startswith("text/csv")
    assert [tuple(r) for r in csv.reader(io.StringIO(csv_resp.text))] == [("p", "label"), *rows]
    tsv = client.get("/sparql", params={"query": PAPERS},
                     headers={"Accept": "text/tab-separated-values"})
    lines = tsv.text.splitlines()
    assert lines[0] == "?p\t?label" and len(lines) == 39
    assert lines[1].split("\t") == [f"<{rows[0][0]}>", json.dumps(rows[0][1], ensure_ascii=False)]


def test_post_form_and_sparql_query_body_match_get(client: httpx.Client) -> None:
    get = sparql(client, PAPERS).json()
    form = client.post("/sparql", data={"query": PAPERS})
    body = client.post("/sparql", content=PAPERS.encode(),
                       headers={"Content-Type": "application/sparql-query"})
    assert form.json() == get == body.json()
    wrong = client.post("/sparql", content=PAPERS, headers={"Content-Type": "text/plain"})
    error(wrong, 415)


def test_ask_construct_describe(client: httpx.Client, dpc: str, demo_kg: Path) -> None:
    ask = f"ASK {{ paper:{dpc} rdfs:label 'DPC' }}"
    assert sparql(client, ask).json() == {"head": {}, "boolean": True}
    assert sparql(client, "ASK { ?x rdfs:label 'no such thing' }",
                  format="csv").text.strip() == "false"
    ask_xml = ET.fromstring(sparql(client, ask, format="xml").content)
    assert ask_xml.findtext(f"{SR}boolean") == "true"
    construct = f"CONSTRUCT {{ ?c skos:prefLabel ?l }} WHERE {{ paper:{dpc} pkg:mentions ?c . " \
                "?c skos:prefLabel ?l }"
    graphs = {}
    for accept, fmt in (("text/turtle", "turtle"), ("application/n-triples", "nt"),
                        ("application/ld+json", "json-ld")):
        resp = client.get("/sparql", params={"query": construct}, headers={"Accept": accept})
        assert resp.headers["content-type"].startswith(accept)
        graphs[fmt] = Graph().parse(data=resp.text, format=fmt)
    expected = {c.label for c in open_kg(demo_kg).reader().concepts_of(dpc)}
    assert {str(o) for o in graphs["turtle"].objects()} == expected
    assert isomorphic(graphs["turtle"], graphs["nt"])
    assert isomorphic(graphs["nt"], graphs["json-ld"])
    describe = sparql(client, f"DESCRIBE paper:{dpc}", format="ttl")
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
    before = count(client)
    error(sparql(client, update), 403, "query_refused")
    error(client.post("/sparql", data={"query": update}), 403, "query_refused")
    error(client.post("/sparql", data={"update": update}), 403, "update_refused")
    error(client.get("/sparql", params={"update": update}), 403, "update_refused")
    error(client.post("/sparql", content=update,
                       headers={"Content-Type": "application/sparql-update"}),
           403, "update_refused")
    assert count(client) == before
    assert sparql(client, "ASK { <urn:x> ?p ?o }").json()["boolean"] is False


def test_malformed_query_points_at_the_users_text(client: httpx.Client) -> None:
    err = error(sparql(client, "SELECT ?x WHERE {\n  ?x ?y\n}"), 400, "malformed_query")
    position = err["position"]
    assert isinstance(position, dict) and position["line"] == 3  # not 3 + the prefix lines
    assert f"line 3, column {position['column']}" in str(err["message"])
    error(sparql(client, "   "), 400)
    png = client.get("/sparql", params={"query": PAPERS}, headers={"Accept": "image/png"})
    assert "formats offered: json, xml, csv, tsv" in str(error(png, 406)["message"])


def test_row_cap_refuses_longer_answers_unless_partial_is_asked(client: httpx.Client) -> None:
    err = error(sparql(client, "SELECT * WHERE { ?s ?p ?o }"), 422, "row_cap_exceeded")
    assert err["row_cap"] == ROW_CAP and "partial=true" in str(err["message"])
    error(sparql(client, "CONSTRUCT WHERE { ?s ?p ?o }", format="nt"), 422, "row_cap_exceeded")
    resp = sparql(client, "SELECT * WHERE { ?s ?p ?o }", partial="true")
    assert len(resp.json()["results"]["bindings"]) == ROW_CAP
    assert resp.headers["x-result-truncated"].startswith(f"first {ROW_CAP} rows only")
    graph = sparql(client, "CONSTRUCT WHERE { ?s ?p ?o }", format="nt", partial="true")
    assert len(graph.text.splitlines()) == ROW_CAP
    small = sparql(client, "SELECT * WHERE { ?s ?p ?o } LIMIT 3")
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
    assert sparql(client, "ASK { ?s ?p ?o }").json()["boolean"] is True
    assert time.perf_counter() - began < 1.0  # three requests, while the slow one runs
    thread.join(10)
    resp = outcome["resp"]
    assert isinstance(resp, httpx.Response)
    err = error(resp, 503, "deadline_exceeded")
    assert "1 s deadline" in str(err["message"])
    assert float(outcome["seconds"]) < 2.0  # type: ignore[arg-type]
    assert client.get("/healthz").json()["queries_killed"] >= 1
    assert sparql(client, PAPERS).status_code == 200  # the pool recovered


def test_several_http_workers_serve_the_same_kg(demo_kg: Path) -> None:
    from contextlib import contextmanager

    from .serving import serve

    with contextmanager(serve)(demo_kg, "--http-workers", "2", "--query-workers", "1") as url:
        statuses = set()
        with httpx.Client(base_url=url, timeout=30) as c:
            for _ in range(20):
                health = c.get("/healthz").json()
                assert health["papers"] == 38
                statuses.add(c.get("/api/search", params={"q": "prompt"}).status_code)
            related = c.get("/api/papers/doesnotexist/related")
        assert statuses == {200} and related.status_code == 404
