"""The one place IRIs are minted: base IRI, ontology namespace, standard vocabularies.

Every IRI in the KG is derived from a stable id (OpenReview id or abstract hash, concept
slug, author slug), never from a list position, so rebuilding the KG keeps links valid.
Change `BASE` here and everything (RDF, SPARQL prefixes, parsing) follows.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Final, Literal
from urllib.parse import quote, unquote

from rdflib import Namespace, URIRef
from rdflib.namespace import DCTERMS, FOAF, OWL, PROV, RDF, RDFS, SKOS, XSD

__all__ = [
    "ACCEPTED",
    "BASE",
    "CONCEPT_TYPES",
    "NODE_KINDS",
    "PLAIN_CONCEPT",
    "ROLES",
    "DCTERMS",
    "DECISIONS",
    "FABIO",
    "FOAF",
    "OWL",
    "PKG",
    "PREFIXES",
    "PROV",
    "RDF",
    "RDFS",
    "SCHEMA",
    "SCHEME_IRI",
    "SH",
    "SKOS",
    "SPARQL_PREFIXES",
    "XSD",
    "IriKind",
    "author_iri",
    "author_slug",
    "concept_iri",
    "decision_iri",
    "decode_id",
    "encode_id",
    "extractor_iri",
    "field_iri",
    "iri_id",
    "iri_of",
    "key_of",
    "node_key",
    "type_name",
    "mention_iri",
    "paper_iri",
    "parameter_iri",
    "parse_iri",
    "record_iri",
    "topic_iri",
    "venue_iri",
    "slugify",
]

BASE: Final = "https://w3id.org/paperkg/"
PKG: Final = Namespace(BASE + "ontology#")
SCHEMA: Final = Namespace("https://schema.org/")
FABIO: Final = Namespace("http://purl.org/spar/fabio/")
SH: Final = Namespace("http://www.w3.org/ns/shacl#")

SCHEME_IRI: Final = URIRef(BASE + "scheme/concepts")

#: The decision individuals of the ontology (pkg:oral …): the only decisions a record may hold.
DECISIONS: Final = ("oral", "spotlight", "poster", "reject", "withdrawn", "desk_reject")
#: Decisions that mean the paper was accepted.
ACCEPTED: Final = ("oral", "spotlight", "poster")

#: Subclasses of skos:Concept a concept may also have (pkg:Method …), in display order.
CONCEPT_TYPES: Final = ("Method", "Dataset", "Task", "Metric")
#: The type name of a concept that has none of CONCEPT_TYPES.
PLAIN_CONCEPT: Final = "Concept"
#: What a paper does with a concept: the pkg: property refining pkg:mentions, if any.
ROLES: Final = ("mentions", "proposes", "evaluatesOn")

#: The kinds of node in the graph; a node key is "kind:id" ("paper:00SnKBGTsz").
NODE_KINDS: Final = ("paper", "concept", "author")

#: Prefix → namespace, bound on every RDFLib graph and declared in every SPARQL query.
PREFIXES: Final[dict[str, str]] = {
    "pkg": str(PKG),
    "dcterms": str(DCTERMS),
    "skos": str(SKOS),
    "schema": str(SCHEMA),
    "foaf": str(FOAF),
    "prov": str(PROV),
    "rdfs": str(RDFS),
    "xsd": str(XSD),
    "rdf": str(RDF),
    "fabio": str(FABIO),
    "paper": BASE + "paper/",
    "concept": BASE + "concept/",
    "author": BASE + "author/",
    "topic": BASE + "topic/",
    "field": BASE + "field/",
    "venue": BASE + "venue/",
}

#: The PREFIX lines every example query starts with.
SPARQL_PREFIXES: Final = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in PREFIXES.items())

IriKind = Literal["paper", "concept", "author"]

_SAFE = "-._~"  # RFC 3986 unreserved punctuation; everything else in an id is %-encoded
_PLAIN_NAME = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")
_PARSE = re.compile(re.escape(BASE) + r"(paper|concept|author)/([^/#?]+)")


def _segment(value: str, what: str) -> str:
    """One IRI path segment: refuse empties (they would collide), %-encode the rest.

    `/`, `?`, `#`, `%`, spaces and non-ASCII are %-encoded (UTF-8), so a DOI or an old
    arXiv id (`hep-th/9901001`) stays one segment. A segment of dots only (`.`, `..`)
    would be resolved away by browsers and URL libraries, so its dots become `%2E`.
    `unquote` reverses both: `parse_iri(paper_iri(x)) == ("paper", x)` for every id.
    """
    if not value:
        raise ValueError(f"empty {what} id: cannot mint an IRI")
    if value.strip(".") == "":
        return "%2E" * len(value)
    return quote(value, safe=_SAFE)


def encode_id(value: str) -> str:
    """An id as one URL path segment (the IRI's last part, also for page links)."""
    return _segment(value, "node")


def decode_id(segment: str) -> str:
    """The inverse of `encode_id`."""
    return unquote(segment)


def paper_iri(paper_id: str) -> URIRef:
    """`{BASE}paper/{id}` — the id is the OpenReview id or the abstract hash."""
    return URIRef(f"{BASE}paper/{_segment(paper_id, 'paper')}")


def concept_iri(slug: str) -> URIRef:
    """`{BASE}concept/{slug}` — the slug of the concept's preferred label."""
    return URIRef(f"{BASE}concept/{_segment(slug, 'concept')}")


def author_iri(slug: str) -> URIRef:
    """`{BASE}author/{slug}` — pass `author_slug(name)`."""
    return URIRef(f"{BASE}author/{_segment(slug, 'author')}")


def mention_iri(paper_id: str, rank: int) -> URIRef:
    """`{BASE}paper/{id}/mention/{rank}` — rank is unique within a paper."""
    if rank < 1:
        raise ValueError(f"mention rank must be >= 1, got {rank}")
    return URIRef(f"{paper_iri(paper_id)}/mention/{rank}")


def venue_iri(name: str) -> URIRef:
    """`{BASE}venue/{name}` — a venue in one year ("ICLR 2025"), as `venue_name` spells it."""
    return URIRef(f"{BASE}venue/{_segment(name, 'venue')}")


def record_iri(paper_id: str, n: int) -> URIRef:
    """`{BASE}paper/{id}/source/{n}` — the n-th source record merged into a paper."""
    if n < 1:
        raise ValueError(f"source record number must be >= 1, got {n}")
    return URIRef(f"{paper_iri(paper_id)}/source/{n}")


def topic_iri(topic_id: str) -> URIRef:
    """`{BASE}topic/{id}` — a group of co-occurring concepts (a skos:Collection)."""
    return URIRef(f"{BASE}topic/{_segment(topic_id, 'topic')}")


def field_iri(field_id: str) -> URIRef:
    """`{BASE}field/{id}` — a group of co-occurring topics (a skos:Collection of them)."""
    return URIRef(f"{BASE}field/{_segment(field_id, 'field')}")


def merge_iri(concept_slug: str, n: int) -> URIRef:
    """`{BASE}concept/{slug}/merge/{n}` — why the n-th alternative label was merged in."""
    return URIRef(f"{concept_iri(concept_slug)}/merge/{n}")


def extractor_iri(name: str) -> URIRef:
    """`{BASE}extractor/{name}` — the software agent that produced the mentions."""
    return URIRef(f"{BASE}extractor/{_segment(name, 'extractor')}")


def parameter_iri(extractor_name: str, key: str) -> URIRef:
    """`{BASE}extractor/{name}/param/{key}` — one parameter of an extractor."""
    return URIRef(f"{extractor_iri(extractor_name)}/param/{_segment(key, 'parameter')}")


def decision_iri(name: str) -> URIRef:
    """The ontology individual for a decision (`pkg:oral` …); unknown names are refused."""
    if name not in DECISIONS:
        raise ValueError(f"unknown decision {name!r}; expected one of {list(DECISIONS)}")
    return PKG[name]


def parse_iri(iri: str) -> tuple[IriKind, str] | None:
    """(kind, id) for a paper, concept or author IRI of this KG; None for anything else."""
    match = _PARSE.fullmatch(str(iri))
    if match is None:
        return None
    kind: IriKind = match.group(1)  # type: ignore[assignment]
    return kind, decode_id(match.group(2))


def slugify(text: str) -> str:
    """A concept's IRI slug from its label: lower-case ascii letters, digits and single
    hyphens ("Graph Neural Network" → "graph-neural-network")."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "concept"


def node_key(kind: str, ident: str) -> str:
    """The graph's key of a node ("paper:ID", "concept:slug", "author:slug")."""
    return f"{kind}:{ident}"


def iri_of(key: str) -> str:
    """The IRI of a node key ("paper:ID" → https://w3id.org/paperkg/paper/ID)."""
    kind, _, ident = key.partition(":")
    minted = {"paper": paper_iri, "concept": concept_iri, "author": author_iri}.get(kind)
    if minted is None:
        raise ValueError(f"unknown node kind {kind!r} in {key!r}")
    return str(minted(ident))


def key_of(iri: str) -> str | None:
    """The node key of one of our paper, concept or author IRIs; None for anything else."""
    parsed = parse_iri(iri)
    return node_key(*parsed) if parsed else None


def iri_id(iri: object) -> str:
    """The id in one of our IRIs (percent-decoded), else the IRI's last segment."""
    value = str(getattr(iri, "value", iri))
    parsed = parse_iri(value)
    return parsed[1] if parsed else value.rstrip("/").rsplit("/", 1)[-1]


def type_name(iri: str) -> str:
    """The local name of a class IRI ("…ontology#Method" → "Method")."""
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def _name_key(name: str) -> str:
    """Author identity: NFC, single spaces, case-folded ("Jane DOE" is "Jane Doe")."""
    return " ".join(unicodedata.normalize("NFC", name).split()).casefold()


def author_slug(name: str) -> str:
    """A stable, readable slug; a hash suffix keeps names that slug alike apart.

    Names made only of ASCII letters/digits and single spaces map one-to-one onto their
    slug ("Jane Doe" → "jane-doe"). Any other name ("José García", "Jean-Pierre Li",
    "王芳") gets `--` plus 6 hex of its hash ("jose-garcia--1f0c2a"); a plain slug never
    holds `--`, so the two families cannot collide. Pure function: no corpus state, so an
    author's IRI does not change when other papers are added.
    """
    key = _name_key(name)
    if not key:
        raise ValueError("empty author name: cannot mint an IRI")
    if _PLAIN_NAME.fullmatch(key):
        return key.replace(" ", "-")
    ascii_form = unicodedata.normalize("NFKD", key).encode("ascii", "ignore").decode("ascii")
    readable = re.sub(r"[^a-z0-9]+", "-", ascii_form).strip("-") or "author"
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:6]
    return f"{readable}--{digest}"
