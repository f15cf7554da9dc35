"""What an update changes, found without generating the whole KG's triples.

A KG's triples fall into units that are each a function of a few values: a concept's own
triples (labels, paper count, kind, its broader link both ways), its weight, the merge
decisions of a concept, a topic with its members, a field with its topics, and a paper
with its mentions and source records (plus the author and venue nodes it names). An
update compares the units of the old KG (the scheme as written, `kgdir.SCHEME`, and the
papers' stored mentions, `kgdir.RANKED`) with the new ones and generates triples
(`rdf.iter_triples`, the one writer of triples) only for the units that differ, on both
sides; the difference of those is the difference of the whole graphs, since unchanged
units give equal triples.

A concept's weight `log((1+N)/(1+df)) + 1` changes only with its own paper count: N is
the size of the corpus the statistics were learned from, which an update keeps (before,
N was the current paper count, and every add rewrote all 60k weights). The same units are
what SHACL re-checks (`changed_scheme`). A changed topic brings its field, and a changed
field its topics: a topic's shape wants its field typed, a field's its member topics. The
concepts a changed unit links to (a topic's members, a broader concept) are named, not
regenerated: `rdf.iter_triples(linked=...)`, and SHACL gets their types.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from paperkg.build.canon import Concept, ConceptScheme, Mention, Merge
from paperkg.build.gcpause import paused_gc
from paperkg.build.hierarchy import Field, Topic
from paperkg.build.ingest import Paper
from paperkg.errors import KGNotFound

__all__ = ["Delta", "SchemeChange", "changed_scheme", "load_scheme", "paper_side", "plan",
           "linked_concepts", "save_scheme", "sub_scheme"]


def save_scheme(path: Path, scheme: ConceptScheme) -> None:
    """The concept scheme as written (no mentions): what the next update compares with."""
    row = {
        "concepts": [[c.id, c.pref_label, list(c.alt_labels), c.paper_count, c.weight, c.kind,
                      c.broader, c.topic] for c in scheme.concepts.values()],
        "merges": [[m.label, m.concept_id, m.rule, m.detail, m.paper_id, m.local]
                   for m in scheme.merges],
        "topics": [[t.id, t.label, list(t.members), t.field, t.note] for t in scheme.topics],
        "fields": [[f.id, f.label, list(f.members), f.note] for f in scheme.fields],
        "casing": {"code": _casing_code(), "memo": scheme.casing},
    }
    with gzip.open(path, "wb", compresslevel=1) as fh:
        fh.write(orjson.dumps(row))


@paused_gc()
def load_scheme(path: Path) -> ConceptScheme | None:
    """The scheme saved by `save_scheme`; None when the KG has none (an older build)."""
    if not path.is_file():
        return None
    try:
        with gzip.open(path, "rb") as fh:
            row = orjson.loads(fh.read())
        concepts = {c[0]: Concept(c[0], c[1], tuple(c[2]), int(c[3]), float(c[4]), c[5],
                                  c[6], c[7]) for c in row["concepts"]}
        merges = [Merge(m[0], m[1], m[2], m[3], m[4], bool(m[5])) for m in row["merges"]]
        topics = [Topic(t[0], t[1], tuple(t[2]), *t[3:5]) for t in row["topics"]]
        fields = [Field(f[0], f[1], tuple(f[2]), f[3]) for f in row.get("fields", [])]
        casing = row.get("casing") or {}
        memo = {k: (v[0], v[1]) for k, v in casing["memo"].items()} if casing.get(
            "code") == _casing_code() else {}  # other code may case otherwise
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError, KeyError,
            TypeError, IndexError) as err:
        raise KGNotFound(f"{path}: damaged ({err}); rebuild the KG") from None
    return ConceptScheme(concepts, {}, merges, topics, fields, memo)


def _casing_code() -> str:
    """The code that cases labels and the field's words it reads (`ConceptScheme.casing`
    is valid for them alone)."""
    from paperkg.build.fingerprint import source_fingerprint
    from paperkg.lexicon import field_words_digest

    return (source_fingerprint("paperkg.build.labels", "paperkg.build.text")
            + field_words_digest())


def _core(c: Concept) -> tuple[Any, ...]:
    """What a concept's own triples are made of: all but its topic (a topic's triples are
    the topic's unit)."""
    return (c.pref_label, c.alt_labels, c.paper_count, c.weight, c.kind, c.broader)


def _merges_by_concept(merges: Iterable[Merge]) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[tuple[Any, ...]]] = {}
    for m in merges:  # in order: the n-th merge of a concept is its n-th merge node
        out.setdefault(m.concept_id, []).append((m.label, m.rule, m.detail, m.paper_id))
    return out


@dataclass(frozen=True, slots=True)
class SchemeChange:
    """The scheme units that differ: concepts whose own triples or merges changed (or
    that came or went), and topics and fields that changed (with the fields of those
    topics and the topics of those fields)."""

    concepts: frozenset[str]
    topics: frozenset[str]
    fields: frozenset[str] = frozenset()


def changed_scheme(old: ConceptScheme, new: ConceptScheme) -> SchemeChange:
    concepts: set[str] = set()
    for cid in old.concepts.keys() | new.concepts.keys():
        a, b = old.concepts.get(cid), new.concepts.get(cid)
        if a is None or b is None or _core(a) != _core(b):
            concepts.add(cid)
    om, nm = _merges_by_concept(old.merges), _merges_by_concept(new.merges)
    concepts.update(cid for cid in om.keys() | nm.keys() if om.get(cid) != nm.get(cid))
    topics, fields = _changed(old.topics, new.topics), _changed(old.fields, new.fields)
    grown = True
    while grown:  # a topic with its field, a field with its topics, on both sides
        more_fields = {t.field for s in (old, new) for t in s.topics
                       if t.id in topics and t.field is not None}
        more_topics = {tid for s in (old, new) for f in s.fields if f.id in fields
                       for tid in f.members}
        grown = not (more_fields <= fields and more_topics <= topics)
        fields |= more_fields
        topics |= more_topics
    return SchemeChange(frozenset(concepts), frozenset(topics), frozenset(fields))


def _changed(old: Iterable[Topic | Field], new: Iterable[Topic | Field]) -> set[str]:
    a, b = {x.id: x for x in old}, {x.id: x for x in new}
    return {i for i in a.keys() | b.keys() if a.get(i) != b.get(i)}


def linked_concepts(scheme: ConceptScheme, change: SchemeChange,
                    mentioned: Iterable[str] = ()) -> frozenset[str]:
    """The concepts the changed units of `scheme` link to without describing them (the
    members of changed topics, the broader concepts of changed ones) and the `mentioned`
    ones: an update's SHACL check gets their types, not their triples."""
    out = set(mentioned)
    out.update(c for t in scheme.topics if t.id in change.topics for c in t.members)
    for cid in change.concepts:
        c = scheme.concepts.get(cid)
        if c is not None and c.broader:
            out.add(c.broader)
    return frozenset(out - change.concepts)


def sub_scheme(scheme: ConceptScheme, concepts: Collection[str], change: SchemeChange,
               mentions: Mapping[str, list[Mention]] | None = None) -> ConceptScheme:
    """The part of `scheme` made of the concepts `concepts`, the merge decisions of the
    changed concepts and the changed topics and fields, for `rdf.iter_triples`."""
    return ConceptScheme({cid: c for cid, c in scheme.concepts.items() if cid in concepts},
                         dict(mentions or {}),
                         [m for m in scheme.merges if m.concept_id in change.concepts],
                         [t for t in scheme.topics if t.id in change.topics],
                         [f for f in scheme.fields if f.id in change.fields])


@cache
def _author_node(name: str) -> str:
    """An author's IRI: every update names all 40k authors of the full ICLR KG (0.15 s),
    a resident process (`build.kgreads`) once each."""
    from paperkg.vocab import author_iri, author_slug

    return str(author_iri(author_slug(name)))


def named_by(papers: Sequence[Paper]) -> tuple[dict[str, str], dict[str, str]]:
    """(author IRI -> id of the first paper naming it, venue name -> the same): the
    paper whose triples carry an author's one foaf:name, or a venue's label."""
    authors: dict[str, str] = {}
    venues: dict[str, str] = {}
    for p in papers:
        for name in p.authors:
            authors.setdefault(_author_node(name), p.id)
        for venue in (p.venue, *(o.venue for o in p.origins)):
            if venue:
                venues.setdefault(venue, p.id)
    return authors, venues


def shared_nodes(papers: Iterable[Paper]) -> tuple[set[str], set[str]]:
    """(author IRIs, venue names) the papers name."""
    authors: set[str] = set()
    venues: set[str] = set()
    for p in papers:
        authors.update(_author_node(n) for n in p.authors)
        venues.update(v for v in (p.venue, *(o.venue for o in p.origins)) if v)
    return authors, venues


@dataclass(frozen=True, slots=True)
class Delta:
    """An update's changed units: the scheme's, the papers whose own triples may differ
    (`touched`: new, changed, removed, or with other mentions), and the papers, authors
    and venues whose triples are regenerated on both sides (`papers` adds, for each
    author and venue a touched paper names, the paper that now writes its name)."""

    old_scheme: ConceptScheme
    change: SchemeChange
    touched: frozenset[str]
    papers: frozenset[str]
    authors: frozenset[str]
    venues: frozenset[str]


@paused_gc()
def plan(old_papers: Mapping[str, Paper], old_mentions: Mapping[str, Sequence[Any]],
         old_scheme: ConceptScheme, papers: Sequence[Paper], scheme: ConceptScheme) -> Delta:
    """The units an update changes (`old_mentions`: per old paper, as stored)."""
    def rows(pid: str) -> tuple[Any, ...]:
        return tuple((m.concept_id, m.surface, m.score, m.rank, m.role)
                     for m in scheme.mentions.get(pid, ()))

    new = {p.id: p for p in papers}
    touched = {i for i in old_papers if i not in new}
    touched.update(i for i, p in new.items() if old_papers.get(i) != p
                   or tuple(old_mentions.get(i, ())) != rows(i))
    authors, venues = shared_nodes([*(old_papers[i] for i in touched if i in old_papers),
                                    *(new[i] for i in touched if i in new)])
    first_author, first_venue = named_by(papers)
    regenerate = set(touched)
    regenerate.update(first_author[a] for a in authors if a in first_author)
    regenerate.update(first_venue[v] for v in venues if v in first_venue)
    return Delta(old_scheme, changed_scheme(old_scheme, scheme), frozenset(touched),
                 frozenset(regenerate), frozenset(authors), frozenset(venues))


def paper_side(triples: Iterable[Any]) -> Iterator[Any]:
    """The triples `rdf.iter_triples` writes from the first paper on (no scheme part)."""
    from paperkg.vocab import PKG, RDF

    started = False
    for t in triples:
        if not started and t[1] == RDF.type and t[2] == PKG.Paper:
            started = True
        if started:
            yield t
