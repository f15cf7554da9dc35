"""Topics and fields (issue #14): concepts that papers mention together form a topic, topics
that papers mention together form a field, both named like topics ("federated learning",
"X and Y"), never as "a, b, c" lists; what lands in the RDF, its SHACL shapes, SPARQL from
a paper up to its fields, and how an update compares them."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from rdflib import Literal

from paperkg.build.canon import Concept, ConceptScheme, Mention
from paperkg.build.delta import changed_scheme, load_scheme, save_scheme, sub_scheme
from paperkg.build.extract import ExtractorInfo
from paperkg.build.hierarchy import Field, Topic, topic_hierarchy
from paperkg.build.ingest import Paper
from paperkg.build.rdf import build_graph, validate
from paperkg.read.kg import open_kg
from paperkg.vocab import PKG, RDFS, SKOS, field_iri, topic_iri

HUB = "deep learning"


def _corpus(fields: int = 8, per_field: int = 3, size: int = 10, papers: int = 100
            ) -> tuple[dict[tuple[str, int], list[str]], list[list[str]]]:
    """Papers drawn from `fields` × `per_field` groups of `size` concepts: three concepts
    of one group, sometimes one of the next group of the same field, and in 40 % of the
    papers the hub "deep learning" (which every group meets)."""
    rnd = random.Random(7)
    groups = {(f, t): [f"{f} method {t}{k}" for k in range(size)]
              for f in "abcdefghij"[:fields] for t in range(per_field)}
    out: list[list[str]] = []
    for (f, t), members in sorted(groups.items()):
        for _ in range(papers):
            pick = rnd.sample(members, 3)
            if rnd.random() < 0.3:
                pick += rnd.sample(groups[f, (t + 1) % per_field], 1)
            if rnd.random() < 0.4:
                pick.append(HUB)
            out.append(pick)
    return groups, out


def _hierarchy() -> tuple[dict[tuple[str, int], list[str]], list[Topic], list[Field]]:
    groups, papers = _corpus()
    counts = Counter(c for p in papers for c in set(p))
    topics, fields = topic_hierarchy(counts, papers, {c: c for c in counts})
    return groups, topics, fields


def test_topics_find_the_groups_and_fields_the_groups_of_one_field() -> None:
    groups, topics, fields = _hierarchy()
    topic_of = {c: t.id for t in topics for c in t.members}
    assert len(topics) == len(groups) and len(fields) == 8
    for members in groups.values():  # concepts mentioned together share a topic
        assert len({topic_of[c] for c in members}) == 1
    assert topic_of["a method 00"] != topic_of["a method 10"]
    field_of = {t.id: t.field for t in topics}
    for f in "abcdefgh":  # the three groups of a field share a field, and only they
        assert len({field_of[topic_of[f"{f} method {t}0"]] for t in range(3)}) == 1
    assert len({field_of[topic_of[f"{f} method 00"]] for f in "abcdefgh"}) == 8
    # the hub, mentioned with everything, stays out of the communities but has a topic
    assert HUB in topic_of and sum(HUB in t.members for t in topics) == 1


def test_every_topic_is_in_exactly_one_field_both_ways() -> None:
    _, topics, fields = _hierarchy()
    listed = Counter(tid for f in fields for tid in f.members)
    assert set(listed) == {t.id for t in topics} and set(listed.values()) == {1}
    by_id = {f.id: f for f in fields}
    assert all(t.id in by_id[t.field].members for t in topics if t.field is not None)
    assert all(t.field is not None for t in topics)


def test_names_read_as_topics_and_are_unique() -> None:
    _, topics, fields = _hierarchy()
    names = [x.label for x in (*topics, *fields)]
    assert len({n.lower() for n in names}) == len(names), "a name names one collection"
    assert not any("," in n for n in names), names
    assert HUB not in {t.label for t in topics}, "a hub names no topic"
    assert HUB in {f.label for f in fields}, "a hub names its field"
    for t in topics:  # a topic is named by its own concepts ("X" or "X and Y")
        assert all(part in t.members for part in t.label.split(" and ")), t
        assert t.note.startswith("central concepts: ")


def test_the_hierarchy_is_deterministic_and_independent_of_paper_order() -> None:
    groups, papers = _corpus()
    counts = Counter(c for p in papers for c in set(p))
    labels = {c: c for c in counts}
    first = topic_hierarchy(counts, papers, labels)
    assert topic_hierarchy(counts, papers, labels) == first
    assert topic_hierarchy(counts, list(reversed(papers)), labels) == first


# ---------------------------------------------------------------- RDF and SHACL

EXTRACTOR = ExtractorInfo("test", "none", "0", {})


def _small_scheme() -> tuple[list[Paper], ConceptScheme]:
    labels = {"rl": "reinforcement learning", "orl": "offline reinforcement learning",
              "pg": "policy gradient", "gnn": "graph neural network"}
    concepts = {c: Concept(c, label, (), 2, 1.5) for c, label in labels.items()}
    papers = [Paper(f"p{i}", f"abstract {i}", f"p{i}", "t") for i in range(2)]
    mentions = {p.id: [Mention(c, labels[c], 0.5, r + 1) for r, c in enumerate(labels)]
                for p in papers}
    topics = [Topic("topic-rl", "offline reinforcement learning", ("rl", "orl", "pg"),
                    "field-rl", "central concepts: offline reinforcement learning"),
              Topic("topic-gnn", "graph neural network", ("gnn",), "field-rl")]
    fields = [Field("field-rl", "reinforcement learning", ("topic-rl", "topic-gnn"),
                    "topics: offline reinforcement learning, graph neural network")]
    return papers, ConceptScheme(concepts, mentions, [], topics, fields)


def test_topics_and_fields_are_skos_collections_that_conform() -> None:
    papers, scheme = _small_scheme()
    graph = build_graph(papers, scheme, EXTRACTOR)
    t, f = topic_iri("topic-rl"), field_iri("field-rl")
    assert (t, PKG.field, f) in graph and (f, SKOS.member, t) in graph
    assert (f, RDFS.label, Literal("reinforcement learning")) in graph
    assert (f, SKOS.member, topic_iri("topic-gnn")) in graph
    assert (t, SKOS.scopeNote, None) in graph
    report = validate(graph)
    assert report.conforms, report.text


def test_the_shapes_refuse_a_topic_without_field_or_two_fields() -> None:
    papers, scheme = _small_scheme()
    t, f = topic_iri("topic-rl"), field_iri("field-rl")
    graph = build_graph(papers, scheme, EXTRACTOR)
    graph.remove((t, PKG.field, f))
    report = validate(graph)
    assert not report.conforms and "exactly one pkg:Field" in report.text
    graph = build_graph(papers, scheme, EXTRACTOR)
    graph.add((t, PKG.field, field_iri("field-other")))
    report = validate(graph)
    assert not report.conforms and "exactly one pkg:Field" in report.text
    graph = build_graph(papers, scheme, EXTRACTOR)
    graph.add((f, SKOS.member, topic_iri("nothing")))
    report = validate(graph)
    assert not report.conforms and "skos:member topics" in report.text


# ---------------------------------------------------------------- updates


def test_the_scheme_file_keeps_fields_and_a_change_brings_its_other_level(tmp_path: Path
                                                                         ) -> None:
    _, scheme = _small_scheme()
    save_scheme(tmp_path / "scheme.json.gz", scheme)
    loaded = load_scheme(tmp_path / "scheme.json.gz")
    assert loaded is not None
    assert loaded.topics == scheme.topics and loaded.fields == scheme.fields
    renamed = ConceptScheme(scheme.concepts, {}, [], scheme.topics,
                            [Field("field-rl", "RL", ("topic-rl", "topic-gnn"))])
    change = changed_scheme(scheme, renamed)
    # a renamed field regenerates its topics too (a field's shape wants them typed)
    assert change.fields == {"field-rl"} and change.topics == {"topic-rl", "topic-gnn"}
    part = sub_scheme(renamed, set(renamed.concepts), change)
    assert [f.label for f in part.fields] == ["RL"] and len(part.topics) == 2
    moved = ConceptScheme(scheme.concepts, {}, [], [*scheme.topics[:1], Topic(
        "topic-gnn", "graph neural network", ("gnn",), "field-gnn")],
        [Field("field-rl", "reinforcement learning", ("topic-rl",)),
         Field("field-gnn", "graph neural network", ("topic-gnn",))])
    change = changed_scheme(scheme, moved)
    assert change.fields == {"field-rl", "field-gnn"} and change.topics == {"topic-rl",
                                                                            "topic-gnn"}


# ---------------------------------------------------------------- the demo KG


def test_demo_kg_topics_fields_and_the_path_from_paper_to_field(demo_kg: Path) -> None:
    kg = open_kg(demo_kg)
    rows = kg.sparql("""
        SELECT ?paper ?concept ?topic ?field WHERE {
          ?p rdfs:label ?paper ; pkg:mentions ?c . ?c skos:prefLabel ?concept ;
             pkg:topic ?t . ?t rdfs:label ?topic ; pkg:field/rdfs:label ?field .
        } ORDER BY ?paper ?concept""").rows
    assert len(rows) >= 10, "papers mention concepts with a topic in a field"
    assert all(r[3] is not None and r[3].value for r in rows)
    # every topic has one field, and the field lists it; every field has topics
    assert not kg.sparql("""SELECT ?t WHERE { ?t a pkg:Topic .
        FILTER NOT EXISTS { ?t pkg:field ?f . ?f a pkg:Field ; skos:member ?t } }""").rows
    assert not kg.sparql("""SELECT ?t WHERE { ?t pkg:field ?f1, ?f2 .
        FILTER(?f1 != ?f2) }""").rows
    assert kg.sparql("ASK { ?f a pkg:Field, skos:Collection ; skos:member ?t }").boolean
    labels = [r[0].value for r in kg.sparql("""SELECT ?l WHERE {
        { ?x a pkg:Topic } UNION { ?x a pkg:Field } ?x rdfs:label ?l }""").rows]
    assert labels and len(set(labels)) == len(labels)
    assert not any("," in label for label in labels)
    # a pair the demo papers keep together: its papers on parameter-efficient fine-tuning
    # tune large language models; that a graph neural network is a neural network, and
    # offline RL reinforcement learning, the hierarchy says
    same = kg.sparql("""ASK { ?a skos:prefLabel "parameter-efficient fine-tuning" ;
        pkg:topic ?t . ?b skos:prefLabel "large language models" ; pkg:topic ?t }""")
    assert same.boolean
    # (the broader concept's label is singular or plural as its papers' mentions go)
    # (and "offline RL" is named by its long form where its papers spell it out)
    for narrow, broad in (("graph neural network", "neural networks?"),
                          ("offline (RL|reinforcement learning)", "reinforcement learning")):
        assert kg.sparql(f"""ASK {{ ?a skos:prefLabel ?n ; skos:broader/skos:prefLabel ?b .
            FILTER(REGEX(?n, "^{narrow}$") && REGEX(?b, "^{broad}$")) }}""").boolean, \
            narrow
