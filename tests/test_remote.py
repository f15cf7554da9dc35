"""A SPARQL server as the KG's store: the same KG, the same answers, on the embedded store,
a real Oxigraph server and a real Virtuoso, each started here. Builds, `add` and `remove`
go through `--store`; partial answers (Virtuoso's row cap and time limit) are errors.

Virtuoso runs when `virtuoso-t` is installed (Debian's virtuoso-opensource); CI sets
PAPERKG_REQUIRE_VIRTUOSO=1, so there its absence fails instead of skipping.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from paperkg.build.pipeline import build_kg
from paperkg.build.update import update_kg
from paperkg.build.writer import read_papers_file
from paperkg.errors import QueryError, ResultTooLarge, UsageError
from paperkg.kgdir import PAPERS
from paperkg.progress import Reporter
from paperkg.read.kg import open_kg
from paperkg.remote import RemoteStore
from paperkg.settings import Settings, default_cache_dir
from paperkg.vocab import paper_iri
from tests.conftest import DATA_FILES

from .stores import (
    VIRTUOSO_ROW_CAP,
    free_port,
    oxigraph_url,
    stop,
    virtuoso_env,
    virtuoso_url,
    wait_for,
)

__all__ = ["oxigraph_url", "virtuoso_env", "virtuoso_url"]  # fixtures

def _settings(tmp: Path, store: str = "") -> Settings:
    models = default_cache_dir() / "models"
    models.mkdir(parents=True, exist_ok=True)
    cache = tmp / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    if not (cache / "models").exists():
        (cache / "models").symlink_to(models)
    return Settings(embedder="static", cache_dir=cache, store=store)


def _quiet() -> Reporter:
    return Reporter(stream=open(os.devnull, "w"), quiet=True)  # noqa: SIM115


def _lines(kg: Path) -> set[str]:
    """The KG's triples as N-Triples lines (the ontology's blank-node lists left out)."""
    store = open_kg(kg).store
    if isinstance(store, RemoteStore):
        return set(store.triples())  # paged: past the server's row cap
    res = store.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")
    return {f"{s.n3()} {p.n3()} {o.n3()} ." for s, p, o in res.triples
            if "bnode" not in (s.kind, o.kind)}


_NUMBERS = {"http://www.w3.org/2001/XMLSchema#double": float,
            "http://www.w3.org/2001/XMLSchema#integer": int}


def _canonical(lines: set[str]) -> set[tuple[str, str, object]]:
    """Triples compared by value: servers spell numbers their own way ("0.0" / "0.0E0")."""
    def value(term: object) -> object:
        if isinstance(term, ox.Literal) and term.datatype.value in _NUMBERS:
            return _NUMBERS[term.datatype.value](float(term.value))
        return str(term)

    body = "\n".join(lines).encode()
    return {(str(q.subject), str(q.predicate), value(q.object))
            for q in ox.parse(io.BytesIO(body), format=ox.RdfFormat.N_TRIPLES)}


def _answers(kg: Path) -> dict[str, object]:
    """The read questions, asked through the one Reader interface."""
    reader = open_kg(kg).reader("sparql")
    papers = sorted(p.id for p in read_papers_file(kg / PAPERS))
    top = reader.top_concepts(10)
    return {
        "counts": reader.counts(),
        "top": top,
        "concepts_of": [reader.concepts_of(p) for p in papers[:5]],
        "related": [reader.related(p, limit=5) for p in papers[:3]],
        "concept": [reader.concept_papers(c.id) for c in top[:3]],
        "search": reader.search("language", limit=10),
    }


BACKENDS = ["oxigraph", "virtuoso"]


@pytest.fixture()
def store_url(request: pytest.FixtureRequest) -> str:
    if request.param == "virtuoso":
        request.getfixturevalue("virtuoso_env")
    return str(request.getfixturevalue(f"{request.param}_url"))


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_build_add_remove_on_a_server_equal_the_embedded_kg(
        store_url: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    kgs = {}
    for name, url in (("embedded", ""), ("server", store_url)):
        kg = tmp_path / name
        settings = _settings(tmp_path, url)
        build_kg(DATA_FILES[:1], kg, settings, reporter=_quiet())
        if name == "server":
            manifest = open_kg(kg).manifest
            assert manifest["store"]["url"] == url and not (kg / "store").exists()
            assert isinstance(open_kg(kg).store, RemoteStore)
        kgs[name] = kg
    assert _canonical(_lines(kgs["server"])) == _canonical(_lines(kgs["embedded"]))
    assert _answers(kgs["server"]) == _answers(kgs["embedded"])

    gone = sorted(p.id for p in read_papers_file(kgs["embedded"] / PAPERS))[:4]
    for name, kg in kgs.items():
        settings = _settings(tmp_path, "")
        update_kg(kg, add=DATA_FILES[1:2], settings=settings, reporter=_quiet())
        old_graph = open_kg(kg).manifest.get("store", {}).get("graph")
        update_kg(kg, remove=gone, settings=settings, reporter=_quiet())
        if name == "server":
            new_graph = open_kg(kg).manifest["store"]["graph"]
            assert new_graph != old_graph
            with RemoteStore(store_url, old_graph) as old:
                assert old.triple_count() == 0  # the replaced graph was dropped
    assert _canonical(_lines(kgs["server"])) == _canonical(_lines(kgs["embedded"]))
    assert _answers(kgs["server"]) == _answers(kgs["embedded"])
    assert open_kg(kgs["server"]).manifest["counts"] == open_kg(kgs["embedded"]).manifest[
        "counts"]
    assert "Graph Store" not in capfd.readouterr().err  # loaded through the Graph Store


def _numbered(n: int, bad: int = -1) -> list[str]:
    """n N-Triples lines; line `bad` (0-based) malformed, as a server refuses it."""
    return [f'<https://example.org/s{i}> <https://example.org/p> "{i}"' +
            (" <broken" if i == bad else " .") for i in range(n)]


def _store(url: str, method: str, **env: str) -> RemoteStore:
    """A RemoteStore that loads through `method`, with the test's credentials."""
    return RemoteStore(url, env={**os.environ, "PAPERKG_STORE_LOAD": method, **env},
                       retries=0)


def _fresh_graph(what: str) -> str:
    return f"https://w3id.org/paperkg/graph/test-{what}/{time.time_ns()}"


def test_the_write_endpoints_follow_the_query_url() -> None:
    cases = {  # query URL, credentials → update URL, Graph Store URL
        ("http://h:7878/query", False): ("http://h:7878/update", "http://h:7878/store"),
        ("http://h:8890/sparql", True): ("http://h:8890/sparql-auth",
                                         "http://h:8890/sparql-graph-crud-auth"),
        ("http://h:8890/sparql", False): ("http://h:8890/sparql",
                                          "http://h:8890/sparql-graph-crud"),
        ("http://h/ds", False): ("http://h/ds", None),
    }
    for (url, auth), (update, gsp) in cases.items():
        env = {"PAPERKG_STORE_USER": "u", "PAPERKG_STORE_PASSWORD": "p"} if auth else {}
        with RemoteStore(url, env=env) as store:
            assert (store.update_url, store.gsp_url, store.load_method) == (update, gsp, "auto")
    env = {"PAPERKG_STORE_GSP_URL": "http://g/data", "PAPERKG_STORE_UPDATE_URL": "http://u/",
           "PAPERKG_STORE_LOAD": "GSP"}
    with RemoteStore("http://h:7878/query", env=env) as store:
        assert (store.update_url, store.gsp_url, store.load_method) == (
            "http://u/", "http://g/data", "gsp")
    with RemoteStore("http://h:7878/query", env={"PAPERKG_STORE_LOAD": "bulk"}) as store, \
            pytest.raises(UsageError, match="PAPERKG_STORE_LOAD='bulk': choose one of auto"):
        store.load(_numbered(3), _fresh_graph("none"))  # refused before anything is sent
    with RemoteStore("http://h/ds", env={"PAPERKG_STORE_LOAD": "gsp"}) as store, \
            pytest.raises(UsageError, match="set PAPERKG_STORE_GSP_URL"):
        store.load(_numbered(3), _fresh_graph("none"))
    with RemoteStore("http://127.0.0.1:1/query") as store, \
            pytest.raises(UsageError, match="line 2 has a blank node"):
        # refused before anything is sent (nothing listens on port 1)
        store.load(['<https://e.org/a> <https://e.org/p> "_:x" .',
                    "<https://e.org/a> <https://e.org/p> _:b1 ."], _fresh_graph("bnode"))


@pytest.fixture(scope="module")
def embedded_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The demo KG's triples on the embedded store, ontology included (no blank nodes)."""
    tmp = tmp_path_factory.mktemp("embedded")
    build_kg(DATA_FILES[:1], tmp / "kg", _settings(tmp), reporter=_quiet())
    return sorted(_lines(tmp / "kg"))


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_graph_store_and_update_loads_give_the_same_triples(
        store_url: str, embedded_lines: list[str], capfd: pytest.CaptureFixture[str]) -> None:
    loaded = {}
    for method in ("gsp", "update"):
        graph = _fresh_graph(method)
        with _store(store_url, method) as store:  # gsp: no fallback, its errors are errors
            assert store.load(embedded_lines, graph, chunk=300, gsp_chunk=600) == len(
                embedded_lines)
            store.graph = graph
            loaded[method] = set(store.triples())
            assert store.triple_count() == len(loaded[method])
            store.drop_graph(graph)
    assert len(embedded_lines) > 1_800  # several Graph Store chunks
    assert loaded["gsp"] == loaded["update"]  # the server's own spelling, line for line
    assert _canonical(loaded["gsp"]) == _canonical(set(embedded_lines))
    assert "Graph Store" not in capfd.readouterr().err


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_auto_falls_back_to_update_where_there_is_no_graph_store(
        store_url: str, capfd: pytest.CaptureFixture[str]) -> None:
    nowhere = store_url.rsplit("/", 1)[0] + "/no-graph-store-here"  # a real 404
    graph, lines = _fresh_graph("fallback"), _numbered(95)
    with _store(store_url, "auto", PAPERKG_STORE_GSP_URL=nowhere) as store:
        assert store.load(lines, graph, chunk=10, gsp_chunk=30) == 95
        store.apply(graph, lines[:5], [])  # removals: always Update
        store.graph = graph
        assert store.triple_count() == 90
        store.drop_graph(graph)
    said = capfd.readouterr().err
    assert said.count(f"{nowhere} does not take Graph Store Protocol loads (HTTP 404)") == 1
    assert "loading through SPARQL Update" in said
    with _store(store_url, "gsp", PAPERKG_STORE_GSP_URL=nowhere) as strict, \
            pytest.raises(QueryError, match=r"404.*set PAPERKG_STORE_GSP_URL.*lines 1–30"):
        strict.load(lines, graph, gsp_chunk=30)


@pytest.mark.parametrize("method", ["gsp", "update"])
@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_an_interrupted_load_resumes(store_url: str, method: str, tmp_path: Path) -> None:
    graph, lines = _fresh_graph("resume"), _numbered(50)
    progress = tmp_path / "progress.json"

    def broken() -> Iterator[str]:
        yield from lines[:25]
        raise ConnectionError("the network went away")

    with _store(store_url, method) as store:
        with pytest.raises(ConnectionError):
            store.load(broken(), graph, chunk=10, gsp_chunk=10, progress_file=progress)
        store.graph = graph
        assert store.triple_count() == 20  # two whole chunks; the third never went
        # take a triple of a chunk the server had: a resumed load that sent that chunk
        # again would put it back
        store.update(f"DELETE DATA {{ GRAPH <{graph}> {{ {lines[3]} }} }}")
        assert store.load(iter(lines), graph, chunk=10, gsp_chunk=10,
                          progress_file=progress) == 50
        assert store.triple_count() == 49  # lines 20-49 sent, 0-19 skipped
        assert store.load(lines, graph, chunk=10, gsp_chunk=10, progress_file=progress) == 50
        assert store.triple_count() == 49  # all done already: nothing sent
        store.load(lines, graph, chunk=10, gsp_chunk=10)  # no progress file: all again
        assert store.triple_count() == 50
        store.drop_graph(graph)


@pytest.mark.parametrize("method", ["gsp", "update"])
@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_a_refused_chunk_is_never_counted_as_loaded(store_url: str, method: str,
                                                    tmp_path: Path) -> None:
    graph, progress = _fresh_graph("refused"), tmp_path / "progress.json"
    with _store(store_url, method) as store:
        with pytest.raises(QueryError, match=r"refused .*lines 21–30 into .*; lines 1–20 "
                                             "are in the graph, and the same load run"):
            store.load(_numbered(40, bad=25), graph, chunk=10, gsp_chunk=10,
                       progress_file=progress)
        # Virtuoso keeps the part of a refused POST before the error: never counted
        assert store.load(_numbered(40), graph, chunk=10, gsp_chunk=10,
                          progress_file=progress) == 40
        store.graph = graph
        assert store.triple_count() == 40
        store.drop_graph(graph)


@pytest.mark.usefixtures("virtuoso_env")
def test_virtuoso_partial_answers_are_errors_never_results(virtuoso_url: str) -> None:
    graph = f"https://w3id.org/paperkg/graph/test-cap/{time.time_ns()}"
    n = VIRTUOSO_ROW_CAP * 6
    with RemoteStore(virtuoso_url, graph) as remote:
        remote.load((f"<https://example.org/s{i}> <https://example.org/p> \"{i}\" ."
                     for i in range(n)), graph)
        assert remote.triple_count() == n
        with pytest.raises(ResultTooLarge, match=f"row cap \\({VIRTUOSO_ROW_CAP} rows\\)"):
            remote.query("SELECT ?s WHERE { ?s ?p ?o }")
        small = remote.query("SELECT ?s WHERE { ?s ?p ?o } LIMIT 10")
        assert len(small.rows) == 10
        assert len(list(remote.triples())) == n  # paged past the cap
        remote.drop_graph(graph)
    # an "anytime" query (Virtuoso's timeout parameter, as web clients send it): past its
    # time Virtuoso answers 200 with what it has so far, flagged only by X-SQL-State
    with RemoteStore(virtuoso_url, graph, params={"timeout": "200"}) as anytime:
        anytime.load((f"<https://example.org/s{i}> <https://example.org/p> \"{i}\" ."
                      for i in range(n)), graph)
        with pytest.raises(QueryError, match="S1TAT"):
            anytime.query("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f "
                          "FILTER(CONCAT(STR(?c), STR(?f)) < STR(?a)) }")
        anytime.drop_graph(graph)


def test_an_oxigraph_answer_cut_at_its_timeout_is_an_error(tmp_path: Path) -> None:
    """Oxigraph server's --timeout-s ends a streamed answer mid-way, still with 200."""
    binary = shutil.which("oxigraph")
    assert binary is not None, "pip install oxigraph"
    port = free_port()
    proc = subprocess.Popen([binary, "serve", "--location", str(tmp_path / "db"), "--bind",
                             f"127.0.0.1:{port}", "--timeout-s", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/query"
        wait_for(url)
        graph = "https://w3id.org/paperkg/graph/test-timeout"
        with RemoteStore(url, graph) as remote:
            remote.load((f"<https://example.org/s{i}> <https://example.org/p> \"{i}\" ."
                         for i in range(3000)), graph)
            assert len(remote.query("SELECT ?s WHERE { ?s ?p ?o }").rows) == 3000
            with pytest.raises(QueryError, match="incomplete or malformed"):
                remote.query("SELECT ?a ?f WHERE { ?a ?b ?c . ?d ?e ?f }")  # 9M rows
    finally:
        stop(proc)


@pytest.mark.parametrize("store_url", BACKENDS, indirect=True)
def test_serve_reads_a_kg_kept_on_a_sparql_server(store_url: str, tmp_path: Path) -> None:
    """`paperkg serve` on a KG built with --store: the API, the pages' questions and the
    SPARQL endpoint answer as they do for the same KG on the embedded store; only the
    KG's graph is reachable, and SERVICE is still refused."""
    import httpx

    from tests.serving import serve

    kgs = {}
    for name, url in (("embedded", ""), ("server", store_url)):
        kgs[name] = tmp_path / name
        build_kg(DATA_FILES[:1], kgs[name], _settings(tmp_path, url), reporter=_quiet())
    paper = sorted(p.id for p in read_papers_file(kgs["embedded"] / PAPERS))[0]
    select = ("SELECT ?label ?n WHERE { ?c a skos:Concept ; skos:prefLabel ?label ; "
              "pkg:paperCount ?n } ORDER BY DESC(?n) ?label LIMIT 5")
    iri = f"<{paper_iri(paper)}>"
    construct = f"CONSTRUCT {{ {iri} ?r ?o }} WHERE {{ {iri} ?r ?o }}"
    seen: dict[str, dict[str, object]] = {}
    for name, kg in kgs.items():
        gen = serve(kg)
        base = next(gen)
        try:
            with httpx.Client(base_url=base, timeout=60) as c:
                table = c.get("/sparql", params={"query": select, "format": "json"})
                assert table.status_code == 200, table.text
                graph = c.get("/sparql", params={"query": construct},
                              headers={"Accept": "application/n-triples"})
                assert graph.status_code == 200, graph.text
                related = c.get(f"/api/papers/{paper}/related")
                assert related.status_code == 200, related.text
                refused = c.get("/sparql", params={
                    "query": "SELECT * WHERE { SERVICE <http://127.0.0.1:1/> { ?s ?p ?o } }"})
                assert refused.status_code == 403, refused.text
                if name == "server":  # the server's other graphs stay out of reach
                    other = c.get("/sparql", params={
                        "query": "SELECT * FROM <urn:other> WHERE { ?s ?p ?o }"})
                    assert other.status_code == 403, other.text
                seen[name] = {
                    "table": [(b["label"]["value"], int(b["n"]["value"]))
                              for b in table.json()["results"]["bindings"]],
                    "graph": _canonical(set(graph.text.splitlines())),
                    "related": related.json()["related"],
                }
        finally:
            gen.close()
    assert seen["server"]["table"] and seen["server"]["graph"]
    assert seen["server"] == seen["embedded"]
