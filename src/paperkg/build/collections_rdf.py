"""The concept scheme's groups as RDF, for `rdf.iter_triples`: topics and fields (SKOS
collections, as OpenAlex nests field → topic) and the merge decision nodes.

- a topic: `pkg:Topic`, a skos:Collection with its concepts as skos:member (and
  `concept pkg:topic topic`), an rdfs:label that names it and a skos:scopeNote listing
  its most central concepts;
- a field: `pkg:Field`, a skos:Collection whose skos:members are topics (SKOS nests
  collections so), with `topic pkg:field field`, a label and a scopeNote of its topics.

Each link between levels is written with the upper level (concept → topic with the topic,
topic → field with the field), so a changed collection's triples are all its own
(`build.delta` regenerates them as a unit).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from rdflib import Literal, URIRef
from rdflib.term import Node

from paperkg.build.canon import ConceptScheme
from paperkg.vocab import PKG, PROV, RDF, RDFS, SKOS, field_iri, merge_iri, paper_iri, topic_iri

__all__ = ["collection_and_merge_triples"]

Triple = tuple[Node, Node, Node]
_TYPE, _LABEL, _NOTE, _MEMBER = RDF.type, RDFS.label, SKOS.scopeNote, SKOS.member
_COLLECTION = SKOS.Collection


def collection_and_merge_triples(scheme: ConceptScheme, concepts: Mapping[str, URIRef]
                                 ) -> Iterator[Triple]:
    """Topics and fields (members linked both ways) and one node per merge decision;
    `concepts` maps the scheme's concept ids to their IRIs."""
    for topic in scheme.topics:
        yield from _collection(topic_iri(topic.id), PKG.Topic, topic.label, topic.note,
                               [concepts[cid] for cid in topic.members], PKG.topic)
    for field in scheme.fields:
        yield from _collection(field_iri(field.id), PKG.Field, field.label, field.note,
                               [topic_iri(tid) for tid in field.members], PKG.field)
    count: dict[str, int] = {}
    for merge in scheme.merges:
        n = count[merge.concept_id] = count.get(merge.concept_id, 0) + 1
        node = merge_iri(merge.concept_id, n)
        yield concepts[merge.concept_id], PKG.merge, node
        yield node, _TYPE, PKG.MergeDecision
        yield node, PKG.label, Literal(merge.label)
        yield node, PKG.rule, Literal(merge.rule)
        yield node, RDFS.comment, Literal(merge.detail)
        if merge.paper_id is not None:
            yield node, PROV.wasDerivedFrom, paper_iri(merge.paper_id)


def _collection(node: URIRef, kind: URIRef, label: str, note: str,
                members: list[URIRef], up: URIRef) -> Iterator[Triple]:
    """A topic or field: a skos:Collection of `kind`, its members linked both ways (each
    member to it by `up`)."""
    yield node, _TYPE, _COLLECTION
    yield node, _TYPE, kind
    yield node, _LABEL, Literal(label)
    if note:
        yield node, _NOTE, Literal(note)
    for member in members:
        yield node, _MEMBER, member
        yield member, up, node
