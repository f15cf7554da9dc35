"""Variant merging into concepts, rarity weights, and the NetworkX view of the same data."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson

from paperkg.build.canon import build_scheme, concept_key
from paperkg.build.graph import build_nx, node_link, write_graph
from paperkg.build.ingest import Paper
from paperkg.kgdir import load_graph
from paperkg.read.kg import cooccurrence
from paperkg.read.walk import neighbourhood


def test_case_hyphen_and_plural_variants_share_a_key() -> None:
    assert concept_key("Language Models") == concept_key("language model")
    assert concept_key("self-training") == concept_key("self training")
    assert concept_key("Graph Neural Networks") == concept_key("graph neural network")
    assert concept_key("strategies") == "strategy" and concept_key("analyses") == "analysis"
    # words that only look plural stay as they are
    for word in ("bias", "loss", "analysis", "robustness", "dynamics", "GANs"):
        assert concept_key(word) == word.lower() or word == "GANs"
    # near-synonyms that are different concepts stay apart
    assert concept_key("graph neural network") != concept_key("graph transformer")


def _scheme():
    extracted = {
        "p1": [("language models", 0.6), ("prompt tuning", 0.5), ("GSM8K", 0.4)],
        "p2": [("language model", 0.7), ("self-training", 0.3), ("language-models", 0.2)],
        "p3": [("language models", 0.5), ("self training", 0.4), ("GSM8K", 0.1)],
    }
    return build_scheme(extracted)


def test_scheme_merges_variants_and_weights_rarity() -> None:
    scheme = _scheme()
    lm = scheme.concepts["language-model"]
    assert lm.paper_count == 3
    assert lm.pref_label == "language models"  # the most common form
    assert set(lm.alt_labels) == {"language model", "language-models"}
    assert scheme.concepts["self-training"].paper_count == 2
    assert scheme.concepts["prompt-tuning"].weight > scheme.concepts["gsm8k"].weight \
        > lm.weight
    # a paper links to a concept once, at the rank of its best form
    assert [m.concept_id for m in scheme.mentions["p2"]] == ["language-model", "self-training"]
    assert [m.rank for m in scheme.mentions["p2"]] == [1, 2]
    labels = [c.pref_label for c in scheme.concepts.values()]
    assert len(labels) == len(set(labels)), "prefLabels are unique in the scheme"


def test_graph_neighbourhood_and_cooccurrence() -> None:
    scheme = _scheme()
    papers = [Paper(id=p, abstract="x " * 10, label=p.upper(), source="t:1",
                    authors=("Ann Lee",) if p != "p3" else ()) for p in ("p1", "p2", "p3")]
    g = build_nx(papers, scheme)
    assert g.nodes["paper:p1"]["kind"] == "paper"
    assert g.edges["paper:p1", "concept:language-model"]["score"] == 0.6
    assert g.has_edge("paper:p1", "author:ann-lee") and g.has_edge("paper:p2", "author:ann-lee")
    co = cooccurrence(g)
    assert co[("concept:gsm8k", "concept:language-model")] == 2
    one = neighbourhood(g, "paper:p1", depth=1)
    assert set(one) == {"paper:p1", "concept:language-model", "concept:prompt-tuning",
                        "concept:gsm8k", "author:ann-lee"}
    two = neighbourhood(g, "paper:p1", depth=2, limit=6)
    assert len(two) == 6 and set(one) <= set(two), "nearer nodes are kept first"
    only_concepts = neighbourhood(g, "paper:p1", depth=1, kinds=["concept"])
    assert {d["kind"] for _, d in only_concepts.nodes(data=True)} == {"paper", "concept"}


def test_written_graph_is_the_node_link_data(tmp_path: Path) -> None:
    """The graph file is written a few nodes or links at a time: the same JSON as the
    node-link data in one piece, batch boundaries included, an author listed twice one
    edge."""
    scheme = _scheme()
    papers = [Paper(id=p, abstract="x " * 10, label=p.upper(), source="t:1",
                    authors=("Ann Lee", "Bo Chen", "Ann Lee") if p == "p2" else ("Ann Lee",))
              for p in ("p1", "p2", "p3")]
    whole = node_link(papers, scheme)
    for batch in (1, 2, 5000):
        path = tmp_path / f"graph-{batch}.json.gz"
        counts = write_graph(papers, scheme, path, batch=batch)
        with gzip.open(path, "rb") as fh:
            assert orjson.loads(fh.read()) == whole
        assert counts == (len(whole["nodes"]), len(whole["links"]))
    creators = [(e["source"], e["target"]) for e in whole["links"] if e["kind"] == "creator"]
    assert creators.count(("paper:p2", "author:ann-lee")) == 1
    g = load_graph(path)
    assert set(g.edges) == set(build_nx(papers, scheme).edges)
