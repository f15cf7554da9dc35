"""Content negotiation for SPARQL answers: which serialisation a client asked for.

Pure functions, no web framework: the query workers use them to serialise in their own
process, so the main process only forwards bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["TABLE_FORMATS", "GRAPH_FORMATS", "Choice", "negotiate", "parse_accept"]


@dataclass(frozen=True, slots=True)
class Choice:
    fmt: str  # a paperkg.results.FORMATS key, or "html"
    media_type: str


#: format name → (media type answered, media types accepted for it), preferred first
TABLE_FORMATS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "json": ("application/sparql-results+json", ("application/sparql-results+json",
                                                 "application/json")),
    "xml": ("application/sparql-results+xml", ("application/sparql-results+xml",
                                               "application/xml", "text/xml")),
    "csv": ("text/csv; charset=utf-8", ("text/csv",)),
    "tsv": ("text/tab-separated-values; charset=utf-8", ("text/tab-separated-values",)),
    "html": ("text/html; charset=utf-8", ("text/html", "application/xhtml+xml")),
}
GRAPH_FORMATS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "ttl": ("text/turtle; charset=utf-8",
            ("text/turtle", "application/turtle", "application/x-turtle")),
    "nt": ("application/n-triples", ("application/n-triples", "text/plain")),
    "jsonld": ("application/ld+json", ("application/ld+json", "application/json")),
    "html": ("text/html; charset=utf-8", ("text/html", "application/xhtml+xml")),
}
#: `format=` aliases people type
_ALIASES: Final = {"turtle": "ttl", "ntriples": "nt", "n-triples": "nt", "json-ld": "jsonld",
                   "srj": "json", "srx": "xml", "n3": "ttl"}


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
    """The serialisation for a result of `kind` ("select", "ask" or "graph"): a `format`
    offered for this kind wins (clients like SPARQLWrapper send one for every query),
    else the best `Accept` match, JSON / Turtle for */*. None when nothing offered is
    acceptable (answer 406)."""
    table = GRAPH_FORMATS if kind == "graph" else TABLE_FORMATS
    if fmt:  # a format name or a media type; one not offered for this kind falls to Accept
        name = _ALIASES.get(fmt.lower(), fmt.lower())
        if name in table:
            return Choice(name, table[name][0])
        for key, (answer, accepted) in table.items():
            if name in accepted:
                return Choice(key, answer)
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
    return list(GRAPH_FORMATS if kind == "graph" else TABLE_FORMATS)
