"""Papers + concepts → RDF on the paperkg ontology, and SHACL validation of the result.

The RDF is the published form of the KG (store, exports); the shapes are its contract.
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import pyshacl
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import NamespaceManager
from rdflib.term import Node

from paperkg.build.canon import Concept, ConceptScheme
from paperkg.build.collections_rdf import collection_and_merge_triples
from paperkg.build.extract import ExtractorInfo
from paperkg.build.ingest import Paper
from paperkg.build.text import code_links
from paperkg.vocab import (
    DCTERMS,
    FABIO,
    FOAF,
    PKG,
    PLAIN_CONCEPT,
    PREFIXES,
    PROV,
    RDF,
    RDFS,
    SCHEMA,
    SCHEME_IRI,
    SH,
    SKOS,
    XSD,
    author_iri,
    author_slug,
    concept_iri,
    decision_iri,
    extractor_iri,
    mention_iri,
    paper_iri,
    parameter_iri,
    record_iri,
    venue_iri,
)

__all__ = [
    "SCHEME_TITLE",
    "ValidationReport",
    "bind_prefixes",
    "build_graph",
    "concept_types",
    "iter_triples",
    "load_ontology",
    "load_shapes",
    "ontology_path",
    "validate",
]

SCHEME_TITLE = "paperkg concepts extracted from paper abstracts"
Triple = tuple[Node, Node, Node]

# Predicates as constants: Namespace attribute access mints a new URIRef on every call.
_TYPE, _LABEL = RDF.type, RDFS.label
_PAPER_TYPES = (PKG.Paper, SCHEMA.ScholarlyArticle, FABIO.ResearchPaper)
_IDENTIFIER, _ABSTRACT, _TITLE = DCTERMS.identifier, DCTERMS.abstract, DCTERMS.title
_CREATOR, _URL, _KEYWORDS = DCTERMS.creator, SCHEMA.url, SCHEMA.keywords
_PERSON, _NAME = FOAF.Person, FOAF.name
_DECISION, _MENTIONS, _HAS_MENTION = PKG.decision, PKG.mentions, PKG.hasMention
_MENTION, _CONCEPT, _SCORE, _RANK = PKG.Mention, PKG.concept, PKG.score, PKG.rank
_SURFACE, _ATTRIBUTED = PKG.surfaceForm, PROV.wasAttributedTo
_SKOS_CONCEPT, _IN_SCHEME = SKOS.Concept, SKOS.inScheme
_PREF, _ALT = SKOS.prefLabel, SKOS.altLabel
_PAPER_COUNT, _WEIGHT = PKG.paperCount, PKG.weight
_BROADER, _NARROWER = SKOS.broader, SKOS.narrower
_ROLE_PREDICATE = {"proposes": PKG.proposes, "evaluatesOn": PKG.evaluatesOn}
_CODE = SCHEMA.codeRepository
SHAPES_NS = "https://w3id.org/paperkg/shapes#"
_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|\\^`\[\]]')


def bind_prefixes(graph: Graph) -> Graph:
    """Bind the KG prefixes so Turtle/JSON-LD exports read like the example queries."""
    for prefix, namespace in PREFIXES.items():
        graph.bind(prefix, namespace, override=True, replace=True)
    return graph


def _double(value: float) -> Literal:
    """xsd:double rounded to 4 decimals (scores: at most 10,001 distinct values)."""
    return _rounded_double(round(float(value), 4))


@lru_cache(maxsize=1 << 16)  # Literal() is slow and the same values recur thousands of times
def _rounded_double(value: float) -> Literal:
    return Literal(value, datatype=XSD.double)


@lru_cache(maxsize=1 << 12)
def _integer(value: int) -> Literal:
    return Literal(int(value), datatype=XSD.integer)


def _url(url: str) -> URIRef:
    """An IRI for a source URL; characters illegal in IRIs are %-encoded, not dropped."""
    return URIRef(_IRI_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m[0].encode()), url))


def _param_literal(value: str | int | float) -> Literal:
    if isinstance(value, bool):
        return Literal(value, datatype=XSD.boolean)
    if isinstance(value, int):
        return _integer(value)
    if isinstance(value, float):
        return Literal(value, datatype=XSD.double)
    return Literal(str(value))


def build_graph(
    papers: Sequence[Paper], scheme: ConceptScheme, extractor: ExtractorInfo
) -> Graph:
    """The KG as an RDFLib graph (prefixes bound); see `iter_triples` for what is in it."""
    graph = bind_prefixes(Graph())
    add = graph.add
    for triple in iter_triples(papers, scheme, extractor):
        add(triple)
    return graph


def iter_triples(
    papers: Sequence[Paper], scheme: ConceptScheme, extractor: ExtractorInfo,
    linked: Collection[str] = (),
) -> Iterator[Triple]:
    """Every triple of the KG: scheme, extractor, concepts, then each paper with its
    authors and mentions. Papers are typed pkg:Paper, schema:ScholarlyArticle and
    fabio:ResearchPaper explicitly, because the store does no reasoning.

    Refuses (ValueError) mentions of papers not in `papers` or of concepts not in the
    scheme: a dangling link is a pipeline bug, better caught here than in SHACL.
    `linked`: ids of concepts outside `scheme` that its triples may link to without
    writing theirs (an update writes a part of the KG, `build.delta`).
    """
    stray = sorted(set(scheme.mentions) - {p.id for p in papers})
    if stray:
        raise ValueError(f"mentions for {len(stray)} unknown paper(s), e.g. {stray[:3]}")

    yield SCHEME_IRI, _TYPE, SKOS.ConceptScheme
    yield SCHEME_IRI, DCTERMS.title, Literal(SCHEME_TITLE)

    agent = extractor_iri(extractor.name)
    yield agent, _TYPE, PROV.SoftwareAgent
    yield agent, _TYPE, PKG.Extractor
    yield agent, _LABEL, Literal(extractor.name)
    yield agent, PKG.model, Literal(extractor.model)
    yield agent, PKG.version, Literal(extractor.version)
    for key, value in sorted(extractor.params.items()):
        param = parameter_iri(extractor.name, key)
        yield agent, PKG.parameter, param
        yield param, _TYPE, PKG.Parameter
        yield param, PKG.name, Literal(key)
        yield param, PKG.value, _param_literal(value)

    concepts = _ConceptIris(linked)
    for concept in scheme.concepts.values():
        c = concepts[concept.id] = concept_iri(concept.id)
        for kind in concept_types(concept):
            yield c, _TYPE, kind
        yield c, _IN_SCHEME, SCHEME_IRI
        yield c, _PREF, Literal(concept.pref_label)
        for alt in concept.alt_labels:
            yield c, _ALT, Literal(alt)
        yield c, _PAPER_COUNT, _integer(concept.paper_count)
        yield c, _WEIGHT, _double(concept.weight)
    for concept in scheme.concepts.values():
        if concept.broader:
            yield concepts[concept.id], _BROADER, concepts[concept.broader]
            yield concepts[concept.broader], _NARROWER, concepts[concept.id]
    yield from collection_and_merge_triples(scheme, concepts)  # topics, fields, merges

    authors: dict[str, URIRef] = {}
    named: set[URIRef] = set()
    for paper in papers:
        p = paper_iri(paper.id)
        for cls in _PAPER_TYPES:
            yield p, _TYPE, cls
        yield p, _IDENTIFIER, Literal(paper.id)
        yield p, _LABEL, Literal(paper.label)
        yield p, _ABSTRACT, Literal(paper.abstract)
        if paper.title:
            yield p, _TITLE, Literal(paper.title)
        if paper.decision:
            yield p, _DECISION, decision_iri(paper.decision)
        if paper.url:
            yield p, _URL, _url(paper.url)
        yield from _identity_triples(p, paper)
        for link in code_links(paper.abstract):
            yield p, _CODE, _url(link)
        for keyword in paper.keywords:
            yield p, _KEYWORDS, Literal(keyword)
        for name in paper.authors:
            a = authors.get(name)
            if a is None:
                a = authors[name] = author_iri(author_slug(name))
            yield p, _CREATOR, a
            if a not in named:  # one foaf:name per person: the spelling seen first
                named.add(a)
                yield a, _TYPE, _PERSON
                yield a, _NAME, Literal(name)
        for mention in scheme.mentions.get(paper.id, ()):
            try:
                target = concepts[mention.concept_id]
            except KeyError:
                raise ValueError(f"paper {paper.id}: mention of unknown concept "
                                 f"{mention.concept_id!r}") from None
            m = mention_iri(paper.id, mention.rank)
            yield p, _MENTIONS, target
            if mention.role in _ROLE_PREDICATE:
                yield p, _ROLE_PREDICATE[mention.role], target
            yield p, _HAS_MENTION, m
            yield m, _TYPE, _MENTION
            yield m, _CONCEPT, target
            yield m, _SCORE, _double(mention.score)
            yield m, _RANK, _integer(mention.rank)
            yield m, _SURFACE, Literal(mention.surface)
            yield m, _ATTRIBUTED, agent


def concept_types(concept: Concept) -> list[URIRef]:
    """The rdf:types `iter_triples` gives a concept."""
    return [_SKOS_CONCEPT] if concept.kind == PLAIN_CONCEPT else [_SKOS_CONCEPT,
                                                                  PKG[concept.kind]]


class _ConceptIris(dict[str, URIRef]):
    """Concept IRIs by id: the scheme's, and, made when first asked for, those of the
    `linked` ids (of the 64k concepts, an update links to a few thousand)."""

    def __init__(self, linked: Collection[str]) -> None:
        super().__init__()
        self._linked = linked

    def __missing__(self, cid: str) -> URIRef:
        if cid not in self._linked:
            raise KeyError(cid)
        iri = self[cid] = concept_iri(cid)
        return iri


def _identity_triples(p: URIRef, paper: Paper) -> Iterator[Triple]:
    """Identifiers, year, venues, source subjects, and one prov:Entity per source record
    the paper was read from (two when arXiv and OpenReview both had it), each with the
    venue and decision it states."""
    if paper.doi:
        yield p, PKG.doi, Literal(paper.doi)
    if paper.arxiv_id:
        yield p, PKG.arxivId, Literal(paper.arxiv_id)
    if paper.year is not None:
        yield p, PKG.year, _integer(paper.year)
    venues = dict.fromkeys([paper.venue, *(o.venue for o in paper.origins)])
    for name in venues:
        if name:
            v = venue_iri(name)
            yield p, PKG.venue, v
            yield v, _TYPE, PKG.Venue
            yield v, _LABEL, Literal(name)
    for subject in paper.subjects:
        yield p, DCTERMS.subject, Literal(subject)
    for n, origin in enumerate(paper.origins, start=1):
        r = record_iri(paper.id, n)
        yield p, PROV.wasDerivedFrom, r
        yield r, _TYPE, PKG.SourceRecord
        yield r, _TYPE, PROV.Entity
        yield r, PKG.sourceFormat, Literal(origin.format)
        yield r, _IDENTIFIER, Literal(origin.id)
        yield r, PKG.location, Literal(origin.location.replace("\\", "/").rsplit("/", 1)[-1])
        if origin.venue:
            yield r, PKG.venue, venue_iri(origin.venue)
        if origin.decision:
            yield r, _DECISION, decision_iri(origin.decision)


# ---------------------------------------------------------------- validation


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """What SHACL said: `text` lists the first violations as focus node, path, message."""

    conforms: bool
    violations: int
    text: str

    def __str__(self) -> str:
        return self.text


def validate(graph: Graph, max_listed: int = 20) -> ValidationReport:
    """Check `graph` against shapes.ttl with pySHACL, no inference.

    One run over the whole graph. The shapes are flat (every property shape has its own
    target), which pySHACL evaluates in one pass per shape: 37 s for the full corpus
    (1.4M triples), against 204 s for the same constraints nested under node shapes.
    `max_listed` bounds the violations spelled out in `text`; `violations` counts all.
    """
    conforms, results, _ = pyshacl.validate(
        graph,
        shacl_graph=_shapes(),
        inference="none",
        inplace=True,  # safe: without inference pySHACL writes nothing into the graph
        advanced=False,
        abort_on_first=False,
    )
    assert isinstance(results, Graph)
    nsm = _report_names()
    lines = []
    count = 0
    for result in results.subjects(RDF.type, SH.ValidationResult):
        if results.value(result, SH.resultSeverity) != SH.Violation:
            continue
        count += 1
        lines.append(_describe(results, result, nsm))
    lines.sort()
    shown = lines[:max_listed]
    if len(lines) > len(shown):
        shown.append(f"… and {len(lines) - len(shown)} more violation(s)")
    summary = "conforms" if conforms else f"{count} violation(s)"
    return ValidationReport(bool(conforms), count, "\n".join([summary, *shown]))


@cache
def _report_names() -> NamespaceManager:
    """KG prefixes plus pkgsh: for shape names, independent of what the data graph binds."""
    names = bind_prefixes(Graph()).namespace_manager
    names.bind("pkgsh", SHAPES_NS, override=True, replace=True)
    return names


def _describe(results: Graph, result: Node, nsm: NamespaceManager) -> str:
    """One readable line: focus node, path, message, offending value, shape."""
    def short(node: Node | None) -> str:
        if node is None:
            return "-"
        if isinstance(node, BNode):
            return "[]"
        text = node.n3(nsm)
        return text if len(text) <= 80 else text[:77] + "…"

    focus = short(results.value(result, SH.focusNode))
    path = short(results.value(result, SH.resultPath))
    message = results.value(result, SH.resultMessage) or "constraint failed"
    value = results.value(result, SH.value)
    shape = short(results.value(result, SH.sourceShape))
    tail = f" (value {short(value)})" if value is not None else ""
    return f"{focus} {path}: {message}{tail} [{shape}]"


# ---------------------------------------------------------------- ontology files


def ontology_path(name: str) -> Path:
    """The packaged file (src/paperkg/ontology → ../../ontology), else the repo copy."""
    try:
        packaged = importlib.resources.files("paperkg") / "ontology" / name
        if packaged.is_file():
            return Path(str(packaged))
    except (ModuleNotFoundError, NotADirectoryError):
        pass
    repo = Path(__file__).resolve().parents[3] / "ontology" / name
    if repo.is_file():
        return repo
    raise FileNotFoundError(f"ontology file {name!r} is neither packaged nor at {repo}")


def load_ontology() -> Graph:
    """The OWL ontology, freshly parsed (callers may add to it)."""
    return bind_prefixes(Graph().parse(ontology_path("paperkg.ttl"), format="turtle"))


def load_shapes() -> Graph:
    """The SHACL shapes graph, freshly parsed."""
    return Graph().parse(ontology_path("shapes.ttl"), format="turtle")


@cache
def _shapes() -> Graph:
    return load_shapes()
