"""Graph views without a browser: the subgraphs drawn from the real demo KG, their styling,
escaping of hostile labels, offline pages, the `paperkg view` command and the server routes."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import networkx as nx
import pytest

from paperkg.cli import main
from paperkg.read.kg import open_kg
from paperkg.views.draw import (
    EDGE_STYLES,
    NODE_STYLES,
    View,
    connect_view,
    fill_labels,
    neighbourhood_view,
    sparql_view,
    vis_data,
)
from paperkg.views.page import render_page

from .serving import base, client, dpc, error

__all__ = ["base", "client", "dpc"]  # fixtures

EVIL = '<img src=x onerror=alert(1)></script><script>alert(2)</script>'


class _Refs(HTMLParser):
    """Every src/href in the markup (not inside scripts), and the JSON data blocks."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.blocks: dict[str, str] = {}
        self.tags: list[str] = []
        self._json: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        a = dict(attrs)
        self.refs += [v for k, v in attrs if k in ("src", "href") and v]
        self._json = a.get("id") if a.get("type") == "application/json" else None

    def handle_data(self, data: str) -> None:
        if self._json:
            self.blocks[self._json] = data

    def handle_endtag(self, tag: str) -> None:
        self._json = None


def parse(html: str) -> _Refs:
    refs = _Refs()
    refs.feed(html)
    return refs


def assert_offline(html: str, host: str | None = None) -> None:
    """Nothing in the page points at another host (relative URLs or data: only)."""
    for ref in parse(html).refs:
        if ref.startswith(("data:", "/", "#")) and not ref.startswith("//"):
            continue
        assert host and ref.startswith(host), f"off-host reference {ref!r}"
    for cdn in ("cdnjs", "jsdelivr", "unpkg", "bootstrapcdn", "googleapis"):
        assert cdn not in html


def data_of(html: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(parse(html).blocks["view-data"])
    return data


def test_neighbourhood_of_a_concept(demo_kg: Path) -> None:
    kg = open_kg(demo_kg)
    top = kg.reader().top_concepts(1)[0]
    cid, label, count = top.id, top.label, top.paper_count
    sub = kg.reader().neighbours(label, depth=2, limit=40).graph()
    view = neighbourhood_view(sub, f"concept:{cid}", 2, 40)
    fill_labels(view.graph, kg.reader().labels)
    data = vis_data(view, pages="")
    nodes = {n["id"]: n for n in data["nodes"]}
    assert len(nodes) == 40 and len(data["edges"]) >= 39
    center = nodes[f"concept:{cid}"]
    assert center["label"] == label[:36] and center["borderWidth"] == 3
    assert center["page"] == f"/concepts/{cid}"
    papers = [n for n in nodes.values() if n["kind"] == "paper"]
    mentioning = {n for n in kg.graph[f"concept:{cid}"] if n.startswith("paper:")}
    assert len(mentioning) == count and mentioning <= set(nodes)  # one hop: kept first
    for n in papers:
        assert n["color"] == NODE_STYLES["paper"].colour and n["shape"] == "dot"
        assert str(n["page"]).startswith("/papers/")
    for n in nodes.values():  # concepts drawn by their subtype (ctype), if the KG has one
        if n["kind"] == "concept":
            ctype = kg.graph.nodes[n["id"]].get("ctype") or "Concept"
            assert (n["color"], n["shape"]) == (NODE_STYLES[ctype].colour,
                                                NODE_STYLES[ctype].shape)
    # labels are cut for drawing; the tooltip keeps the whole label as text lines
    for n in nodes.values():
        assert len(str(n["label"])) <= 36 and isinstance(n["tip"], list)
    assert data["options"]["physics"]["stabilization"]["enabled"] is True


def test_types_shapes_and_edge_kinds_are_drawn_apart() -> None:
    g = nx.Graph()
    g.add_node("paper:p1", kind="paper", label="P1")
    for ctype in ("Concept", "Method", "Dataset", "Task", "Metric"):
        g.add_node(f"concept:{ctype.lower()}", kind="concept", label=ctype, ctype=ctype)
        g.add_edge("paper:p1", f"concept:{ctype.lower()}", kind="mentions", score=0.5)
    g.add_edge("paper:p1", "concept:dataset", kind="mentions", score=0.5, role="evaluatesOn")
    g.add_node("concept:odd", kind="concept", label="no type")
    g.add_node("author:jane-doe", kind="author", label="Jane Doe")
    g.add_node("https://example.org/x", kind="other", label="elsewhere")
    g.add_edge("paper:p1", "author:jane-doe", kind="creator", score=1.0)
    g.add_edge("concept:method", "concept:task", kind="broader", broader="concept:method")
    g.add_edge("paper:p1", "concept:odd", kind="mentions", score=0.9, proposes=True)
    g.add_edge("concept:odd", "https://example.org/x", kind="seeAlso")
    data = vis_data(View(g, "types"), pages=None)
    nodes = {n["id"]: n for n in data["nodes"]}
    shapes = {n["type"]: (n["shape"], n["color"]) for n in nodes.values()}
    assert len(set(shapes.values())) == len(shapes) == 8  # every type looks different
    assert nodes["concept:odd"]["type"] == "concept"  # no ctype: a plain concept
    assert nodes["concept:method"]["type"] == "method"
    assert all(n["page"] is None for n in nodes.values())  # no server: no links
    edges = {(e["from"], e["to"]): e for e in data["edges"]}
    assert edges[("concept:task", "concept:method")]["arrows"] == "to"  # to the broader
    assert edges[("concept:task", "concept:method")]["color"] == EDGE_STYLES["broader"][0]
    assert edges[("paper:p1", "concept:odd")]["color"] == EDGE_STYLES["proposes"][0]
    assert edges[("paper:p1", "author:jane-doe")]["dashes"] is True
    assert edges[("paper:p1", "concept:dataset")]["color"] == EDGE_STYLES["evaluatesOn"][0]
    assert edges[("concept:odd", "https://example.org/x")]["color"] == EDGE_STYLES["other"][0]
    mentions = [e for e in data["edges"] if e["color"] == EDGE_STYLES["mentions"][0]]
    assert {e["width"] for e in mentions} == {3.0}  # 1 + 4 × score 0.5
    html = render_page(View(g, "types"))
    for name in ("paper", "concept", "method", "dataset", "task", "metric", "author"):
        assert f"</span> {name}</li>" in html  # the legend


def test_hostile_labels_stay_data(tmp_path: Path) -> None:
    g = nx.Graph()
    g.add_node("paper:p1", kind="paper", label=EVIL)
    g.add_node("concept:c", kind="concept", label="<b>bold</b> & co")
    g.add_edge("paper:p1", "concept:c", kind="mentions", score=0.4)
    html = render_page(View(g, EVIL, subtitle=EVIL), pages="")
    assert "<img" not in html and "<script>alert" not in html and "<b>bold" not in html
    assert html.count("</script>") == parse(html).tags.count("script")
    nodes = {n["id"]: n for n in data_of(html)["nodes"]}
    assert nodes["paper:p1"]["tip"][0] == EVIL  # the exact text, for textContent
    assert nodes["concept:c"]["label"] == "<b>bold</b> & co"
    assert "&lt;img src=x onerror=alert(1)&gt;" in html  # the title, escaped


def test_pages_load_nothing_from_another_host(demo_kg: Path) -> None:
    kg = open_kg(demo_kg)
    cid = kg.reader().top_concepts(1)[0].id
    sub = kg.reader().neighbours(f"concept:{cid}", 1, 20).graph()
    view = neighbourhood_view(sub, f"concept:{cid}", 1, 20)
    standalone = render_page(view)
    assert_offline(standalone)
    assert "vis-network" in standalone
    assert not [r for r in parse(standalone).refs if not r.startswith("data:")]
    served = render_page(view, assets="/static/vis/", pages="", expand="/view/expand/")
    assert_offline(served)
    assert '<script src="/static/vis/vis-network.min.js">' in served
    assert "default-src 'none'" in served  # CSP: no other host, only our scripts


def test_what_connects_two_papers(demo_kg: Path, dpc: str) -> None:
    kg = open_kg(demo_kg)
    other = kg.reader().related(dpc, 1, blend=0.0)[0]  # shares concepts both mention
    view = connect_view(kg.reader().connection(f"paper:{dpc}", f"paper:{other.paper_id}"))
    shared = {n for n in view.graph if n.startswith("concept:")}
    labels = {view.graph.nodes[n]["label"] for n in shared}
    assert labels == {label for label, _ in other.shared}
    on_path = [e for e in view.graph.edges(data=True) if e[2]["on_path"]]
    assert len(on_path) == 2 * len(shared)  # each shared concept is a 2-hop path
    html = render_page(view)
    assert EDGE_STYLES["path"][0] in html and "shortest path" in view.subtitle
    # papers with nothing in common still get their paths (or "no path")
    far = next(p for p in kg.graph if p.startswith("paper:")
               and p != f"paper:{dpc}" and not set(kg.graph[p]) & set(kg.graph[f"paper:{dpc}"]))
    apart = connect_view(kg.reader().connection(f"paper:{dpc}", far))
    assert "0 shared" in apart.subtitle
    with pytest.raises(ValueError, match="different"):
        kg.reader().connection(far, far)


def test_sparql_construct_and_pairs(demo_kg: Path, dpc: str) -> None:
    kg = open_kg(demo_kg)
    res = kg.sparql(f'CONSTRUCT {{ ?p pkg:mentions ?c ; rdfs:label "{EVIL}" . '
                         f'?c a pkg:Method }} WHERE {{ ?p dcterms:identifier "{dpc}" ; '
                         f'pkg:mentions ?c }}')
    view = sparql_view(res)
    fill_labels(view.graph, kg.reader().labels)
    own = {f"concept:{c.concept_id}" for c in kg.reader().concepts_of(dpc)}
    assert set(view.graph) == own | {f"paper:{dpc}"}
    assert view.graph.nodes[f"paper:{dpc}"]["label"] == EVIL  # the query's label wins
    assert {view.graph.nodes[c]["ctype"] for c in own} == {"Method"}
    assert all(view.graph.nodes[c]["label"] for c in own)  # filled in from the store
    assert "<img" not in render_page(view)
    pairs = sparql_view(kg.sparql("SELECT ?p ?c ?s WHERE { ?p pkg:hasMention ?m . "
                                       "?m pkg:concept ?c ; pkg:score ?s } LIMIT 30"))
    assert pairs.graph.number_of_edges() == 30
    scores = [d["score"] for _, _, d in pairs.graph.edges(data=True)]
    assert len(set(scores)) > 1 and all(isinstance(x, float) for x in scores)
    with pytest.raises(ValueError, match="node pairs"):
        sparql_view(kg.sparql("SELECT ?l WHERE { ?c skos:prefLabel ?l } LIMIT 3"))
    with pytest.raises(ValueError, match="ASK"):
        sparql_view(kg.sparql("ASK { ?s ?p ?o }"))
    cut = sparql_view(kg.sparql("CONSTRUCT { ?p pkg:mentions ?c } WHERE "
                                     "{ ?p pkg:mentions ?c }"), max_nodes=10)
    assert cut.graph.number_of_nodes() == 10 and "cut at 10 nodes" in cut.subtitle


def test_cli_writes_standalone_views(demo_kg: Path, dpc: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lm.html"
    label = open_kg(demo_kg).reader().top_concepts(1)[0].label
    assert main(["view", label, "--depth", "2", "--limit", "30",
                 "--kg", str(demo_kg), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert re.search(rf"wrote {re.escape(str(out))}: 30 nodes, \d+ edges", said)
    html = out.read_text(encoding="utf-8")
    assert_offline(html)
    assert len(data_of(html)["nodes"]) == 30
    other = open_kg(demo_kg).reader().related(dpc, 1)[0].paper_id
    assert main(["view", "--connect", dpc, other, "--kg", str(demo_kg),
                 "-o", str(tmp_path / "c.html"), "--link-base", "http://127.0.0.1:8000"]) == 0
    pages = {n["page"] for n in data_of((tmp_path / "c.html").read_text())["nodes"]}
    assert f"http://127.0.0.1:8000/papers/{dpc}" in pages
    assert main(["view", "--sparql", "CONSTRUCT { ?p pkg:mentions ?c } WHERE { ?p "
                 "pkg:mentions ?c } LIMIT 5", "--kg", str(demo_kg),
                 "-o", str(tmp_path / "q.html")]) == 0
    capsys.readouterr()
    for argv, message in (
        (["view", "--kg", str(demo_kg), "-o", str(tmp_path / "x.html")], "exactly one of"),
        (["view", "no such thing", "--kg", str(demo_kg), "-o", str(tmp_path / "x.html")],
         "is called 'no such thing'"),
        (["view", "--sparql", "ASK {}", "--kg", str(demo_kg), "-o", str(tmp_path / "x.html")],
         "ASK query"),
    ):
        assert main(argv) == 1
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_server_views_and_links(client: httpx.Client, dpc: str) -> None:
    page = client.get(f"/view/node/paper:{dpc}", params={"depth": 2, "limit": 50})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert_offline(page.text)
    nodes = data_of(page.text)["nodes"]
    assert f"paper:{dpc}" in {n["id"] for n in nodes} and len(nodes) > 5
    js = client.get("/static/vis/vis-network.min.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert client.get("/static/vis/vis-network.css").status_code == 200
    error(client.get("/static/vis/secrets.txt"), 404)
    more = client.get(f"/view/expand/paper:{dpc}", params={"limit": 5}).json()
    assert len(more["nodes"]) == 5 and more["edges"]
    other = client.get(f"/api/papers/{dpc}/related").json()["related"][0]["id"]
    both = client.get("/view/connect", params={"a": dpc, "b": other})
    assert both.status_code == 200 and len(data_of(both.text)["nodes"]) >= 3
    error(client.get("/view/connect", params={"a": dpc, "b": dpc}), 400)
    error(client.get("/view/node/no-such-node"), 404)
    error(client.get("/view/node/paper:x", params={"depth": 9}), 400)
    error(client.get("/view/sparql", params={"query": "ASK {}"}), 400, "not_a_graph")
    error(client.get("/view/sparql", params={"query": "SELEC"}), 400, "malformed_query")
    error(client.get("/view/sparql", params={"query": "DROP ALL"}), 403)
    # the pages link to the views, and to each other
    paper = client.get(f"/papers/{dpc}").text
    assert f'href="/view/node/paper:{dpc}?depth=1"' in paper
    assert f"/view/connect?a={dpc}&amp;b={other}" in paper
    concept = client.get(f"/concepts/{concepts_of_first(client, dpc)}").text
    assert "/view/node/concept:" in concept
    found = client.get("/search", params={"q": "prompt"}).text
    assert "/papers/" in found and "/view/node/paper:" in found
    q = client.get("/sparql", params={"query": "CONSTRUCT { ?p pkg:mentions ?c } WHERE "
                                               "{ ?p pkg:mentions ?c } LIMIT 3",
                                      "format": "html"}).text
    assert "/view/sparql?query=" in q


def concepts_of_first(client: httpx.Client, paper_id: str) -> str:
    return str(client.get(f"/api/papers/{paper_id}").json()["concepts"][0]["id"])
