"""The W3C SPARQL 1.1 Protocol test suite (w3c/rdf-tests, sparql/sparql11/protocol/
manifest.ttl), each query test re-expressed as our own request against the real server;
the update tests must be refused with 4xx (the endpoint is read-only).

The dataset tests need the suite's graphs data1.rdf … data3.rdf: they are added as named
graphs to a copy of the demo KG's store, each saying `<dataN.rdf> a foaf:Document`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pyoxigraph as ox
import pytest
from rdflib import Graph

from .endpoint import Server, copy_kg, running

DATA = "http://kasei.us/2009/09/sparql/data/data{}.rdf"
FOAF_DOCUMENT = "http://xmlns.com/foaf/0.1/Document"
BOOLEAN_TYPES = ("application/sparql-results+json", "application/sparql-results+xml")
RDF_TYPES = ("text/turtle", "application/rdf+xml", "application/n-triples",
             "application/ld+json")


@pytest.fixture(scope="module")
def server(demo_kg: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    kg = copy_kg(demo_kg, tmp_path_factory.mktemp("protocol") / "kg")
    store = ox.Store(str(kg / "store"))
    for n in (1, 2, 3):
        iri = ox.NamedNode(DATA.format(n))
        store.add(ox.Quad(iri, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                          ox.NamedNode(FOAF_DOCUMENT), iri))
    store.flush()
    del store
    with running(kg, "--deadline", "5") as s:
        yield s


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def boolean(resp: httpx.Response) -> bool:
    assert 200 <= resp.status_code < 400, resp.text
    assert resp.headers["content-type"].startswith(BOOLEAN_TYPES)
    value = resp.json()["boolean"]
    assert isinstance(value, bool)
    return value


def data(n: int) -> str:
    return DATA.format(n)


# ------------------------------------------------------------------ query tests


def test_query_post_form(client: httpx.Client) -> None:
    resp = client.post("/sparql", params={"default-graph-uri": data(0)},
                       data={"query": "ASK {}"})
    assert boolean(resp) is True


def test_query_dataset_default_graphs_get(client: httpx.Client) -> None:
    query = f"ASK {{ <{data(1)}> a ?type . <{data(2)}> a ?type . }}"
    resp = client.get("/sparql", params={"query": query,
                                         "default-graph-uri": [data(1), data(2)]})
    assert boolean(resp) is True
    # and the dataset is honoured, not ignored: one graph alone cannot answer it
    one = client.get("/sparql", params={"query": query, "default-graph-uri": data(1)})
    assert boolean(one) is False


def test_query_dataset_default_graphs_post(client: httpx.Client) -> None:
    query = f"ASK {{ <{data(1)}> a ?type . <{data(2)}> a ?type . }}"
    resp = client.post("/sparql", params={"default-graph-uri": [data(1), data(2)]},
                       content=query, headers={"Content-Type": "application/sparql-query"})
    assert boolean(resp) is True


def test_query_dataset_named_graphs_post(client: httpx.Client) -> None:
    query = (f"ASK {{ GRAPH ?g1 {{ <{data(1)}> a ?type }} "
             f"GRAPH ?g2 {{ <{data(2)}> a ?type }} }}")
    resp = client.post("/sparql", params={"named-graph-uri": [data(1), data(2)]},
                       content=query, headers={"Content-Type": "application/sparql-query"})
    assert boolean(resp) is True
    only_one = client.post("/sparql", params={"named-graph-uri": data(1)}, content=query,
                           headers={"Content-Type": "application/sparql-query"})
    assert boolean(only_one) is False


def test_query_dataset_named_graphs_get(client: httpx.Client) -> None:
    query = (f"ASK {{ GRAPH ?g1 {{ <{data(1)}> a ?type }} "
             f"GRAPH ?g2 {{ <{data(2)}> a ?type }} }}")
    resp = client.get("/sparql", params={"query": query,
                                         "named-graph-uri": [data(1), data(2)]})
    assert boolean(resp) is True


def test_query_dataset_full(client: httpx.Client) -> None:
    query = (f"ASK {{ <{data(3)}> a ?type GRAPH ?g1 {{ <{data(1)}> a ?type }} "
             f"GRAPH ?g2 {{ <{data(2)}> a ?type }} }}")
    resp = client.post("/sparql", params={"default-graph-uri": data(3),
                                          "named-graph-uri": [data(1), data(2)]},
                       content=query, headers={"Content-Type": "application/sparql-query"})
    assert boolean(resp) is True


def test_query_multiple_dataset(client: httpx.Client) -> None:
    """The protocol's dataset wins over the query's FROM."""
    query = f"ASK FROM <{data(3)}> {{ <{data(2)}> ?p ?o }}"
    resp = client.post("/sparql", params={"default-graph-uri": data(2)}, content=query,
                       headers={"Content-Type": "application/sparql-query"})
    assert boolean(resp) is True
    alone = client.post("/sparql", content=query,
                        headers={"Content-Type": "application/sparql-query"})
    assert boolean(alone) is False  # FROM <data3> alone: data2 is not in it


def test_from_in_the_query_is_honoured(client: httpx.Client) -> None:
    """Issue 10's first probe: FROM a graph that does not exist sees nothing."""
    resp = client.get("/sparql", params={"query": "ASK FROM <http://example.org/none> "
                                                  "{ ?s ?p ?o }"})
    assert boolean(resp) is False
    assert boolean(client.get("/sparql", params={"query": "ASK { ?s ?p ?o }"})) is True
    named = client.get("/sparql", params={
        "query": f"SELECT ?g FROM NAMED <{data(2)}> {{ GRAPH ?g {{ ?s ?p ?o }} }}"})
    assert [b["g"]["value"] for b in named.json()["results"]["bindings"]] == [data(2)]


def test_query_get(client: httpx.Client) -> None:
    assert boolean(client.get("/sparql", params={"query": "ASK {}"})) is True


def test_query_post_direct(client: httpx.Client) -> None:
    resp = client.post("/sparql", content="ASK {}",
                       headers={"Content-Type": "application/sparql-query"})
    assert boolean(resp) is True


def test_query_content_type_select(client: httpx.Client) -> None:
    resp = client.get("/sparql", params={"query": "SELECT (1 AS ?value) {}"})
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith(BOOLEAN_TYPES + ("text/csv",
                                                                    "text/tab-separated"))
    assert resp.json()["results"]["bindings"][0]["value"]["value"] == "1"


def test_query_content_type_ask(client: httpx.Client) -> None:
    resp = client.get("/sparql", params={"query": "ASK {}"})
    assert boolean(resp) is True


@pytest.mark.parametrize("query", ["DESCRIBE <http://example.org/>",
                                   "CONSTRUCT { <s> <p> 1 } WHERE {}"])
def test_query_content_type_graph(client: httpx.Client, server: Server, query: str) -> None:
    resp = client.get("/sparql", params={"query": query})
    assert resp.status_code == 200 and resp.headers["content-type"].startswith(RDF_TYPES)
    g = Graph().parse(data=resp.text, format="turtle")
    if "CONSTRUCT" in query:  # relative IRIs resolve against the endpoint's URL
        assert {str(s) for s in g.subjects()} == {server.url + "/s"}


# ------------------------------------------------------------------ bad queries: 4xx


def assert_4xx(resp: httpx.Response) -> None:
    assert 400 <= resp.status_code < 500, (resp.status_code, resp.text)


def test_bad_query_method(client: httpx.Client) -> None:
    resp = client.put("/sparql", params={"query": "ASK {}"})
    assert_4xx(resp)
    assert "GET" in resp.headers["allow"] and "POST" in resp.headers["allow"]


def test_bad_multiple_queries(client: httpx.Client) -> None:
    assert_4xx(client.get("/sparql", params={"query": ["ASK {}", "SELECT * {}"]}))
    assert_4xx(client.post("/sparql", content="query=ASK%20%7B%7D&query=SELECT%20*%20%7B%7D",
                           headers={"Content-Type": "application/x-www-form-urlencoded"}))


def test_bad_query_wrong_media_type(client: httpx.Client) -> None:
    assert_4xx(client.post("/sparql", content="ASK {}",
                           headers={"Content-Type": "text/plain"}))


def test_bad_query_missing_form_type(client: httpx.Client) -> None:
    assert_4xx(client.post("/sparql", content="query=ASK%20%7B%7D"))


def test_bad_query_missing_direct_type(client: httpx.Client) -> None:
    assert_4xx(client.post("/sparql", content="ASK {}"))


def test_bad_query_non_utf8(client: httpx.Client) -> None:
    body = "ASK { <http://example/dé> ?p ?o }".encode("iso-8859-1")
    assert_4xx(client.post("/sparql", content=body, headers={
        "Content-Type": "application/sparql-query; charset=ISO-8859-1"}))


def test_bad_query_syntax(client: httpx.Client) -> None:
    assert_4xx(client.get("/sparql", params={"query": "ASK {"}))


def test_unknown_format_is_refused(client: httpx.Client) -> None:
    resp = client.get("/sparql", params={"query": "ASK {}", "format": "bogus"})
    assert resp.status_code == 400 and "bogus" in resp.json()["error"]["message"]
    wrong_kind = client.get("/sparql", params={"query": "ASK {}", "format": "ttl"})
    assert wrong_kind.status_code == 406


# ------------------------------------------------------------------ update tests: refused

UPDATE = "INSERT DATA { <http://example.org/s> <http://example.org/p> 1 }"


@pytest.mark.parametrize("name,request_args", [
    ("update_dataset_default_graph", {"params": {"using-graph-uri": data(1)},
                                      "data": {"update": UPDATE}}),
    ("update_dataset_default_graphs", {"params": {"using-graph-uri": [data(1), data(2)]},
                                       "data": {"update": UPDATE}}),
    ("update_dataset_named_graphs", {"params": {"using-named-graph-uri": data(1)},
                                     "data": {"update": UPDATE}}),
    ("update_dataset_full", {"params": {"using-graph-uri": data(1),
                                        "using-named-graph-uri": data(2)},
                             "data": {"update": UPDATE}}),
    ("update_post_form", {"data": {"update": UPDATE}}),
    ("update_post_direct", {"content": UPDATE,
                            "headers": {"Content-Type": "application/sparql-update"}}),
    ("update_base_uri", {"content": "INSERT DATA { <s> <p> 1 }",
                         "headers": {"Content-Type": "application/sparql-update"}}),
    ("bad_multiple_updates", {"data": {"update": [UPDATE, UPDATE]}}),
    ("bad_update_wrong_media_type", {"content": UPDATE,
                                     "headers": {"Content-Type": "text/plain"}}),
    ("bad_update_missing_form_type", {"content": "update=" + UPDATE}),
    ("bad_update_non_utf8", {"content": UPDATE.encode("utf-16"), "headers": {
        "Content-Type": "application/sparql-update; charset=UTF-16"}}),
    ("bad_update_syntax", {"content": "INSERT DATA { <s> <p> ",
                           "headers": {"Content-Type": "application/sparql-update"}}),
    ("bad_update_dataset_conflict", {"params": {"using-graph-uri": data(1)}, "content":
                                     f"WITH <{data(1)}> DELETE {{ ?s ?p ?o }} WHERE {{}}",
                                     "headers": {"Content-Type":
                                                 "application/sparql-update"}}),
])
def test_updates_are_refused(client: httpx.Client, name: str,
                             request_args: dict[str, object]) -> None:
    before = client.get("/sparql", params={"query": "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"})
    assert_4xx(client.post("/sparql", **request_args))  # type: ignore[arg-type]
    after = client.get("/sparql", params={"query": "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"})
    assert before.json() == after.json(), name


def test_bad_update_get(client: httpx.Client) -> None:
    assert_4xx(client.get("/sparql", params={"update": UPDATE}))
    assert_4xx(client.get("/sparql", params={"query": UPDATE}))
