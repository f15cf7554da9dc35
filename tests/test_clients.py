"""Standard SPARQL clients against the real server, unchanged: SPARQLWrapper (every result
format, GET and POST, graph queries with its default RDF/XML) and rdflib's `SPARQLStore`
(SELECT, ASK, CONSTRUCT, and `triples()` over an answer longer than the old silent cap of
10,000 rows). An operator's row cap is an error a client sees, never a short answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.error import HTTPError

import httpx
import pyoxigraph as ox
import pytest
from rdflib import Graph, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import CSV, JSON, JSONLD, N3, POST, RDFXML, TSV, TURTLE, XML, SPARQLWrapper

from .endpoint import Server, copy_kg, running

PKG = "https://w3id.org/paperkg/ontology#"
MENTIONS = URIRef(PKG + "mentions")
EXTRA = 12_000  # synthetic links added to a copy of the demo KG: over the old cap alone
PAPERS = f"PREFIX pkg: <{PKG}>\nSELECT (COUNT(?p) AS ?n) WHERE {{ ?p a pkg:Paper }}"
CONSTRUCT = f"PREFIX pkg: <{PKG}>\nCONSTRUCT {{ ?p a pkg:Paper }} WHERE {{ ?p a pkg:Paper }}"


@pytest.fixture(scope="module")
def big_kg(demo_kg: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    kg = copy_kg(demo_kg, tmp_path_factory.mktemp("clients") / "kg")
    store = ox.Store(str(kg / "store"))
    store.extend(ox.Quad(ox.NamedNode(f"https://w3id.org/paperkg/paper/hsynthetic{i // 10}"),
                         ox.NamedNode(str(MENTIONS)),
                         ox.NamedNode(f"https://w3id.org/paperkg/concept/synthetic-{i}"))
                 for i in range(EXTRA))
    store.flush()
    del store
    return kg


@pytest.fixture(scope="module")
def server(big_kg: Path) -> Iterator[Server]:
    with running(big_kg, "--deadline", "20") as s:
        yield s


def _mentions(kg: Path) -> int:
    store = ox.Store.read_only(str(kg / "store"))
    return sum(1 for _ in store.quads_for_pattern(None, ox.NamedNode(str(MENTIONS)), None))


def wrapper(server: Server, query: str, fmt: str, post: bool = False) -> object:
    sw = SPARQLWrapper(server.url + "/sparql")
    sw.setQuery(query)
    sw.setReturnFormat(fmt)
    if post:
        sw.setMethod(POST)
    return sw.query().convert()


@pytest.mark.parametrize("post", [False, True])
def test_sparqlwrapper_select_and_ask_in_every_format(server: Server, post: bool) -> None:
    doc = wrapper(server, PAPERS, JSON, post)
    assert isinstance(doc, dict) and doc["results"]["bindings"][0]["n"]["value"] == "38"
    xml = wrapper(server, PAPERS, XML, post)
    assert xml.getElementsByTagName("literal")[0].firstChild.data == "38"  # type: ignore
    csv = wrapper(server, PAPERS, CSV, post)
    assert isinstance(csv, bytes) and csv.split() == [b"n", b"38"]
    tsv = wrapper(server, PAPERS, TSV, post)
    assert isinstance(tsv, bytes) and tsv.decode().splitlines()[0] == "?n"
    integer = '"38"^^<http://www.w3.org/2001/XMLSchema#integer>'
    assert tsv.decode().splitlines()[1] in ("38", integer)
    ask = f"PREFIX pkg: <{PKG}>\nASK {{ ?p a pkg:Paper }}"
    assert wrapper(server, ask, JSON, post) == {"head": {}, "boolean": True}
    ask_xml = wrapper(server, ask, XML, post)
    assert ask_xml.getElementsByTagName("boolean")[0].firstChild.data == "true"  # type: ignore
    assert wrapper(server, ask, CSV, post).strip() == b"true"  # type: ignore[union-attr]
    assert wrapper(server, ask, TSV, post).strip() == b"true"  # type: ignore[union-attr]


@pytest.mark.parametrize("fmt", [XML, RDFXML, TURTLE, N3, JSONLD])
def test_sparqlwrapper_graph_queries(server: Server, fmt: str) -> None:
    """XML is SPARQLWrapper's default, which it asks for as RDF/XML for CONSTRUCT."""
    for query in (CONSTRUCT, f"PREFIX pkg: <{PKG}>\nDESCRIBE ?p WHERE {{ ?p a pkg:Paper }} "
                             "LIMIT 1"):
        result = wrapper(server, query, fmt)
        graph = result if isinstance(result, Graph) else Graph().parse(
            data=result, format="turtle")  # type: ignore[arg-type]
        assert len(graph) == 38 if query == CONSTRUCT else len(graph) > 3


def test_sparqlwrapper_default_format_for_describe(server: Server) -> None:
    sw = SPARQLWrapper(server.url + "/sparql")  # no return format set: XML → RDF/XML
    sw.setQuery(f"PREFIX pkg: <{PKG}>\nDESCRIBE ?p WHERE {{ ?p a pkg:Paper }} LIMIT 1")
    graph = sw.query().convert()
    assert isinstance(graph, Graph) and len(graph) > 3


def test_rdflib_sparqlstore_round_trips(server: Server, big_kg: Path) -> None:
    g = Graph(store=SPARQLStore(server.url + "/sparql"))
    rows = list(g.query(PAPERS))
    assert int(rows[0][0]) == 38  # type: ignore[index]
    assert g.query(f"PREFIX pkg: <{PKG}>\nASK {{ ?p a pkg:Paper }}").askAnswer is True
    constructed = g.query(CONSTRUCT).graph
    assert constructed is not None and len(constructed) == 38
    expected = _mentions(big_kg)
    assert expected > 10_000 + 300  # more than the old silent cap
    assert sum(1 for _ in g.triples((None, MENTIONS, None))) == expected


def test_an_operator_row_cap_is_an_error_clients_see(big_kg: Path) -> None:
    with running(big_kg, "--deadline", "20", "--row-cap", "1000") as capped:
        g = Graph(store=SPARQLStore(capped.url + "/sparql"))
        with pytest.raises((ValueError, HTTPError)):  # rdflib's words for a 4xx
            sum(1 for _ in g.triples((None, MENTIONS, None)))
        raw = httpx.get(capped.url + "/sparql",
                        params={"query": f"SELECT * WHERE {{ ?s <{MENTIONS}> ?o }}"})
        assert raw.status_code == 422 and "row cap" in raw.json()["error"]["message"]
        sw = SPARQLWrapper(capped.url + "/sparql")
        sw.setQuery(f"SELECT * WHERE {{ ?s <{MENTIONS}> ?o }}")
        sw.setReturnFormat(JSON)
        with pytest.raises(HTTPError, match="422"):  # SPARQLWrapper passes urllib's error on
            sw.query().convert()
        small = wrapper(capped, PAPERS, JSON)
        assert isinstance(small, dict) and small["results"]["bindings"][0]["n"]["value"] == "38"
