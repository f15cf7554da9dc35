"""Every read question, asked of every back end, on the real demo KG.

Each question is declared once (`paperkg.read.questions.Reader`); this suite runs each on
each back end — SPARQL on the embedded store, SPARQL on a real Oxigraph server and on a
real Virtuoso loaded with the same triples, and the in-memory indexes — checks what the
answer must satisfy, and that every back end gives the same answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperkg.errors import UnknownNode, UsageError
from paperkg.read.kg import KnowledgeGraph, open_kg
from paperkg.read.questions import Reader
from paperkg.read.sparql import SparqlReader
from paperkg.vocab import concept_iri, paper_iri

from .serving import dpc
from .stores import oxigraph_url, virtuoso_url

__all__ = ["dpc", "oxigraph_url", "virtuoso_url"]  # fixtures

BACKENDS = ("sparql", "memory", "oxigraph-server", "virtuoso")
VIRTUOSO_ADMIN = {"PAPERKG_STORE_USER": "dba", "PAPERKG_STORE_PASSWORD": "dba"}


def _on_server(url: str, kg: KnowledgeGraph, name: str) -> SparqlReader:
    """The SPARQL back end on a real server holding the demo KG's triples in a graph."""
    from paperkg.remote import RemoteStore

    graph = f"https://w3id.org/paperkg/graph/test-questions/{name}"
    store = RemoteStore(url, graph, env=VIRTUOSO_ADMIN)  # ignored by Oxigraph
    res = kg.store.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")
    store.load([f"{s.n3()} {p.n3()} {o.n3()} ." for s, p, o in res.triples
                if "bnode" not in (s.kind, o.kind)], graph)  # the ontology's lists left out
    return SparqlReader(store, lexicon=lambda: kg.lexicon)


@pytest.fixture(scope="module")
def readers(demo_kg: Path, oxigraph_url: str, virtuoso_url: str) -> dict[str, Reader]:
    kg = open_kg(demo_kg)
    return {"sparql": kg.reader("sparql"), "memory": kg.reader("memory"),
            "oxigraph-server": _on_server(oxigraph_url, kg, "oxigraph"),
            "virtuoso": _on_server(virtuoso_url, kg, "virtuoso")}


def _all(readers: dict[str, Reader], ask: object) -> dict[str, object]:
    assert callable(ask)
    return {name: ask(reader) for name, reader in readers.items()}


def _same(answers: dict[str, object]) -> object:
    first = answers["sparql"]
    for name, answer in answers.items():
        assert answer == first, f"{name} disagrees with sparql"
    return first


@pytest.mark.parametrize("backend", BACKENDS)
def test_papers_and_concepts(readers: dict[str, Reader], backend: str, dpc: str) -> None:
    r = readers[backend]
    counts = r.counts()
    assert counts["papers"] == 38 and counts["concepts"] > 100
    p = r.paper(dpc)
    assert p.id == dpc and p.label == "DPC" and "prompt" in p.abstract.lower()
    links = r.concepts_of(dpc)
    assert [c.rank for c in links] == sorted(c.rank for c in links) and len(links) >= 5
    assert {"proposes", "mentions"} <= {c.role for c in links}
    assert all(0 <= c.score <= 1 and c.weight > 0 for c in links)
    top = r.top_concepts(5)
    assert [c.paper_count for c in top] == sorted((c.paper_count for c in top), reverse=True)
    c = r.concept(top[0].id)
    assert c == top[0] and r.concept(f"concept:{c.id}") == c
    total, papers = r.concept_papers(c.id, limit=3)
    assert total == c.paper_count and len(papers) == min(3, total)
    assert [s for _, s in papers] == sorted((s for _, s in papers), reverse=True)
    grouped = [c for c in r.top_concepts(30) if c.topic]  # field → topic, as OpenAlex nests
    assert len(grouped) >= 5 and all(c.field for c in grouped)
    assert r.concept(grouped[0].id).topic == grouped[0].topic
    with pytest.raises(UnknownNode):
        r.paper("no-such-paper")
    with pytest.raises(UnknownNode):
        r.concept("no-such-concept")


def test_papers_and_concepts_agree(readers: dict[str, Reader], dpc: str) -> None:
    _same(_all(readers, lambda r: r.counts()))
    _same(_all(readers, lambda r: r.paper(dpc)))
    _same(_all(readers, lambda r: r.concepts_of(dpc)))
    top = _same(_all(readers, lambda r: r.top_concepts(10)))
    assert isinstance(top, list)
    for c in top[:3]:
        _same(_all(readers, lambda r, c=c: r.concept_papers(c.id, 5, 1)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_related(readers: dict[str, Reader], backend: str, dpc: str) -> None:
    r = readers[backend]
    rows = r.related(dpc, 5, blend=0.0)
    assert len(rows) == 5 and all(row.shared for row in rows)
    assert [x.score for x in rows] == sorted((x.score for x in rows), reverse=True)
    mine = {c.label: c.score for c in r.concepts_of(dpc)}
    for row in rows:  # the score is weight x score here x score there, summed
        theirs = {c.label: c.score for c in r.concepts_of(row.paper_id)}
        expected = sum(w * mine[lab] * theirs[lab] for lab, w in row.shared)
        assert row.score == pytest.approx(expected, abs=1e-3)
    # with word similarity (the default): every result still shares a concept, one both
    # mention or one whose every word the other's title or abstract holds
    blended = r.related(dpc, 37)
    assert len(blended) >= len(r.related(dpc, 37, blend=0.0)) and all(x.shared for x in blended)
    own = {c.label for c in r.concepts_of(dpc)}
    for x in blended:
        theirs = {c.label for c in r.concepts_of(x.paper_id)}
        assert {label for label, _ in x.shared} <= own | theirs
    with pytest.raises(UsageError):
        r.related(dpc, 5, blend=2)


def test_related_agrees(readers: dict[str, Reader], dpc: str) -> None:
    for blend in (0.0, 0.5, 0.9):
        _same(_all(readers, lambda r, b=blend: r.related(dpc, 10, b)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_resolve(readers: dict[str, Reader], backend: str, dpc: str) -> None:
    r = readers[backend]
    top = r.top_concepts(1)[0]
    key = f"concept:{top.id}"
    assert r.resolve(dpc) == f"paper:{dpc}" == r.resolve(f"paper:{dpc}")
    assert r.resolve(str(paper_iri(dpc))) == f"paper:{dpc}"
    assert r.resolve(top.id) == key == r.resolve(str(concept_iri(top.id)))
    assert r.resolve(top.label.upper()) == key
    assert r.resolve("LLMs") == "concept:large-language-model"  # an alternative label
    with pytest.raises(UnknownNode, match="nothing in"):
        r.resolve("no such thing anywhere")


@pytest.mark.parametrize("backend", BACKENDS)
def test_neighbours_and_labels(readers: dict[str, Reader], backend: str, dpc: str) -> None:
    r = readers[backend]
    one = r.neighbours(dpc, 1, 100)
    assert one.center == f"paper:{dpc}" and one.nodes[0][0] == one.center
    own = {f"concept:{c.concept_id}" for c in r.concepts_of(dpc)}
    assert own <= {n for n, _ in one.nodes}
    assert len(r.neighbours(dpc, 2, 7).nodes) == 7
    labels = r.labels([one.center, *own, "concept:no-such-thing"])
    assert labels[one.center]["label"] and "concept:no-such-thing" not in labels
    assert all(labels[k]["kind"] == "concept" and labels[k]["ctype"] for k in own)
    with pytest.raises(UsageError):
        r.neighbours(dpc, 4)


def test_neighbours_agree(readers: dict[str, Reader], dpc: str) -> None:
    start = readers["sparql"].resolve("language models")
    for depth in (1, 2, 3):
        found = _all(readers, lambda r, d=depth: r.neighbours(start, d, 10_000))
        _same({k: {n for n, _ in v.nodes} for k, v in found.items()})  # type: ignore[attr-defined]
        _same({k: {frozenset(e[:2]) for e in v.edges} for k, v in found.items()})  # type: ignore[attr-defined]
    keys = [n for n, _ in readers["memory"].neighbours(dpc, 2, 60).nodes]
    _same(_all(readers, lambda r: {k: (a["kind"], a["label"], a.get("ctype"))
                                   for k, a in r.labels(keys).items()}))


@pytest.mark.parametrize("backend", BACKENDS)
def test_connection(readers: dict[str, Reader], backend: str, dpc: str) -> None:
    r = readers[backend]
    other = r.related(dpc, 1, blend=0.0)[0]  # shares concepts both mention
    conn = r.connection(dpc, other.paper_id)
    assert {r.labels(conn.shared)[k]["label"] for k in conn.shared} == \
        {label for label, _ in other.shared}
    assert conn.paths and all(len(p) == 3 for p in conn.paths)  # paper-concept-paper
    with pytest.raises(UsageError, match="different"):
        r.connection(dpc, f"paper:{dpc}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_search(readers: dict[str, Reader], backend: str) -> None:
    r = readers[backend]
    total, hits = r.search("prompt corruption")
    assert total >= len(hits) > 0 and hits[0].kind in ("paper", "concept")
    assert "corruption" in hits[0].label.lower()
    _, papers = r.search("language models", kinds=["paper"])
    assert papers and all(h.kind == "paper" for h in papers)
    assert r.search("the of and") == (0, [])


def test_search_agrees(readers: dict[str, Reader]) -> None:
    for q in ("prompt corruption", "graph neural network", "diffusion", "LLMs reasoning"):
        _same(_all(readers, lambda r, q=q: r.search(q, 10)))
        _same(_all(readers, lambda r, q=q: r.search(q, 5, 5, ["concept"])))
