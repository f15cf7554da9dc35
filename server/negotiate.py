"""Content negotiation for SPARQL answers: which serialisation a client asked for.

Pure functions, no web framework: the query workers use them to serialise in their own
process, so the main process only forwards bytes. Format names are those of
`paperkg.store.RESULT_FORMATS` / `GRAPH_FORMATS`, plus "html" for people.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["GRAPH_FORMATS", "TABLE_FORMATS", "Choice", "is_known_format", "known_formats",
           "format_values", "negotiate", "parse_accept", "pick_format"]


@dataclass(frozen=True, slots=True)
class Choice:
    fmt: str  # a paperkg.store RESULT_FORMATS / GRAPH_FORMATS key, or "html"
    media_type: str


_HTML = ("text/html; charset=utf-8", ("text/html", "application/xhtml+xml"))
#: format name → (media type answered, media types accepted for it), preferred first
TABLE_FORMATS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "json": ("application/sparql-results+json", ("application/sparql-results+json",
                                                 "application/json")),
    "xml": ("application/sparql-results+xml", ("application/sparql-results+xml",
                                               "application/xml", "text/xml")),
    "csv": ("text/csv; charset=utf-8", ("text/csv",)),
    "tsv": ("text/tab-separated-values; charset=utf-8", ("text/tab-separated-values",)),
    "html": _HTML,
}
GRAPH_FORMATS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "ttl": ("text/turtle; charset=utf-8",
            ("text/turtle", "application/turtle", "application/x-turtle", "text/n3",
             "text/rdf+n3")),
    "nt": ("application/n-triples", ("application/n-triples", "text/plain")),
    "jsonld": ("application/ld+json", ("application/ld+json", "application/json")),
    "rdfxml": ("application/rdf+xml", ("application/rdf+xml", "application/xml",
                                       "text/xml")),
    "nq": ("application/n-quads", ("application/n-quads",)),
    "trig": ("application/trig", ("application/trig",)),
    "html": _HTML,
}
#: `format=` names people and clients (SPARQLWrapper) send, per kind of answer
_ALIASES: Final = {
    "table": {"srj": "json", "srx": "xml", "sparql-results+json": "json",
              "sparql-results+xml": "xml"},
    "graph": {"turtle": "ttl", "n3": "ttl", "ntriples": "nt", "n-triples": "nt",
              "json-ld": "jsonld", "json": "jsonld", "rdf": "rdfxml", "rdf+xml": "rdfxml",
              "rdf/xml": "rdfxml", "xml": "rdfxml", "owl": "rdfxml", "nquads": "nq",
              "n-quads": "nq"},
}


def _table(kind: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    return GRAPH_FORMATS if kind == "graph" else TABLE_FORMATS


def _named(kind: str, fmt: str) -> Choice | None:
    """The format a `format=` value names for this kind of answer (a name, an alias or a
    media type), or None."""
    table = _table(kind)
    name = fmt.strip().lower()
    name = _ALIASES["graph" if kind == "graph" else "table"].get(name, name)
    if name in table:
        return Choice(name, table[name][0])
    for key, (answer, accepted) in table.items():
        if name.split(";")[0].strip() in accepted:
            return Choice(key, answer)
    return None


def is_known_format(fmt: str) -> bool:
    """Whether `format=fmt` names a format of any kind of answer (else: 400)."""
    return any(_named(kind, fmt) for kind in ("select", "graph"))


def format_values(kinds: tuple[str, ...] = ("select", "graph")) -> list[str]:
    """Every value `format=` accepts (names, aliases, media types) for these kinds of
    answer, for the API document."""
    out: dict[str, None] = {}
    for kind in kinds:
        for name, (_, accepted) in _table(kind).items():
            out.update(dict.fromkeys((name, *accepted)))
        out.update(dict.fromkeys(_ALIASES["graph" if kind == "graph" else "table"]))
    return list(out)


def pick_format(values: Iterable[str]) -> str | None:
    """The `format` a request means: SPARQLWrapper repeats it (`format=tsv&format=text/
    tab-separated-values`), so the first non-empty known one; an unknown or empty one is
    returned for the caller to refuse."""
    values = list(values)
    given = [v for v in values if v.strip()]
    known = [v for v in given if is_known_format(v)]
    if not given:
        return values[0] if values else None
    return (known or given)[0]


def parse_accept(header: str | None) -> list[tuple[str, float]]:
    """(media type, q) pairs, highest q first; an absent header means */*."""
    out: list[tuple[str, float, int]] = []
    for i, part in enumerate((header or "*/*").split(",")):
        pieces = [p.strip() for p in part.split(";")]
        media = pieces[0].lower()
        if not media:
            continue
        q = 1.0
        for param in pieces[1:]:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        out.append((media, q, i))
    out.sort(key=lambda x: (-x[1], x[2]))
    return [(m, q) for m, q, _ in out if q > 0]


def negotiate(kind: str, accept: str | None, fmt: str | None) -> Choice | None:
    """The serialisation for a result of `kind` ("select", "ask" or "graph"): `format`
    wins when given (clients like SPARQLWrapper send one for every query), else the best
    `Accept` match, JSON / Turtle for */*. None when nothing offered fits (answer 406)."""
    if fmt:
        return _named(kind, fmt)
    table = _table(kind)
    default = "ttl" if kind == "graph" else "json"
    for media, _ in parse_accept(accept):
        if media in ("*/*", "application/*", "text/*"):
            if media == "text/*" and kind != "graph":
                return Choice("csv", table["csv"][0])
            return Choice(default, table[default][0])
        for name, (answer, accepted) in table.items():
            if media in accepted:
                return Choice(name, answer)
    return None


def known_formats(kind: str) -> list[str]:
    return list(_table(kind))
