"""SPARQL results as plain Python values, independent of the store that produced them.

`Term` and `QueryResult` are what every `Store` returns, so callers (CLI, server,
notebooks) never touch pyoxigraph or a remote endpoint's wire format. Serialisers follow
the SPARQL 1.1 Query Results JSON / CSV / TSV formats.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Literal
from xml.sax.saxutils import escape, quoteattr

from paperkg.errors import UsageError
from paperkg.vocab import PREFIXES

__all__ = ["FORMATS", "QueryKind", "QueryResult", "Term", "TermKind", "literal_n3"]

TermKind = Literal["iri", "literal", "bnode", "triple"]
QueryKind = Literal["select", "ask", "graph"]

_XSD = "http://www.w3.org/2001/XMLSchema#"
_XSD_STRING = _XSD + "string"
_INTEGER_TYPES = frozenset(_XSD + t for t in (
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort",
    "unsignedByte",
))
_FLOAT_TYPES = frozenset((_XSD + "double", _XSD + "float"))
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_PN_LOCAL = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_XML_NS = "http://www.w3.org/2005/sparql-results#"
_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"})
_RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def literal_n3(value: str, lang: str | None = None, datatype: str | None = None) -> str:
    """A literal in N-Triples / SPARQL syntax: the one escaper ("text"@en, "1"^^<…>)."""
    quoted = '"' + value.translate(_ESCAPES) + '"'
    if lang:
        return f"{quoted}@{lang}"
    if datatype and datatype not in (_XSD_STRING, _RDF_LANG_STRING):
        return f"{quoted}^^<{datatype}>"
    return quoted


@dataclass(frozen=True, slots=True)
class Term:
    """One RDF term. `datatype` is None for IRIs, blank nodes and plain strings."""

    value: str
    kind: TermKind
    datatype: str | None = None
    lang: str | None = None

    def __str__(self) -> str:
        return self.value

    def python(self) -> object:
        """int / float / Decimal / bool for those XSD types, else the lexical string."""
        if self.kind != "literal" or self.datatype is None:
            return self.value
        text = self.value.strip()
        try:
            if self.datatype in _INTEGER_TYPES:
                return int(text)
            if self.datatype in _FLOAT_TYPES:
                return float(text)  # also reads INF, -INF, NaN
            if self.datatype == _XSD + "decimal":
                return Decimal(text)
        except (ValueError, InvalidOperation):
            return self.value  # ill-typed literal: keep what the data says
        if self.datatype == _XSD + "boolean" and text in ("true", "false", "1", "0"):
            return text in ("true", "1")
        return self.value

    def n3(self) -> str:
        """N-Triples / SPARQL syntax: <iri>, _:b, "text"@en, "1"^^<…#integer>."""
        if self.kind == "iri":
            return f"<{self.value}>"
        if self.kind == "bnode":
            return f"_:{self.value}"
        if self.kind == "triple":
            return f"<< {self.value} >>"
        return literal_n3(self.value, self.lang, self.datatype)

    def short(self) -> str:
        """For people: IRIs compacted with the KG prefixes, literals as their text."""
        if self.kind == "iri":
            for prefix, ns in PREFIXES.items():
                if self.value.startswith(ns) and "/" not in self.value[len(ns):]:
                    return f"{prefix}:{self.value[len(ns):]}"
            return f"<{self.value}>"
        if self.kind == "bnode":
            return f"_:{self.value}"
        return self.value

    def to_json(self) -> dict[str, str]:
        """The SPARQL 1.1 JSON results encoding of this term."""
        if self.kind == "iri":
            return {"type": "uri", "value": self.value}
        if self.kind == "bnode":
            return {"type": "bnode", "value": self.value}
        if self.kind == "triple":
            return {"type": "triple", "value": self.value}
        out = {"type": "literal", "value": self.value}
        if self.lang:
            out["xml:lang"] = self.lang
        elif self.datatype and self.datatype != _XSD_STRING:
            out["datatype"] = self.datatype
        return out

    def to_xml(self) -> str:
        """The SPARQL 1.1 Query Results XML encoding of this term."""
        if self.kind == "literal":
            attr = ""
            if self.lang:
                attr = f" xml:lang={quoteattr(self.lang)}"
            elif self.datatype and self.datatype != _XSD_STRING:
                attr = f" datatype={quoteattr(self.datatype)}"
            return f"<literal{attr}>{escape(self.value)}</literal>"
        tag = {"iri": "uri", "bnode": "bnode"}.get(self.kind, "triple")
        return f"<{tag}>{escape(self.value)}</{tag}>"

    def turtle(self) -> str:
        """Turtle syntax: like n3() but IRIs compacted with the KG prefixes where valid."""
        if self.kind == "iri":
            if self.value == _RDF_TYPE:
                return "a"
            for prefix, ns in PREFIXES.items():
                local = self.value[len(ns):]
                if self.value.startswith(ns) and _PN_LOCAL.fullmatch(local):
                    return f"{prefix}:{local}"
        return self.n3()

    def to_jsonld(self) -> dict[str, str]:
        """An expanded JSON-LD value or node reference."""
        if self.kind == "iri":
            return {"@id": self.value}
        if self.kind == "bnode":
            return {"@id": f"_:{self.value}"}
        out = {"@value": self.value}
        if self.lang:
            out["@language"] = self.lang
        elif self.datatype and self.datatype != _XSD_STRING:
            out["@type"] = self.datatype
        return out


Row = tuple[Term | None, ...]
_GRAPH_VARS = ["subject", "predicate", "object"]


@dataclass(frozen=True, slots=True)
class QueryResult:
    """A materialised query answer.

    kind "select": `variables` + `rows` (None = unbound); "ask": `boolean`;
    "graph" (CONSTRUCT/DESCRIBE): `triples`. The tabular serialisers show a graph result
    as three columns subject/predicate/object; `to_ntriples()` gives it as RDF.
    """

    kind: QueryKind
    variables: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    boolean: bool | None = None
    triples: list[tuple[Term, Term, Term]] = field(default_factory=list)
    truncated: bool = False  # True when a row cap cut the answer short

    def __len__(self) -> int:
        return len(self.triples) if self.kind == "graph" else len(self.rows)

    def _table(self) -> tuple[list[str], list[Row]]:
        if self.kind == "graph":
            return _GRAPH_VARS, [tuple(t) for t in self.triples]
        return self.variables, self.rows

    def to_ntriples(self) -> str:
        """CONSTRUCT/DESCRIBE triples as N-Triples (one per line)."""
        return "".join(f"{s.n3()} {p.n3()} {o.n3()} .\n" for s, p, o in self.triples)

    def to_turtle(self) -> str:
        """CONSTRUCT/DESCRIBE triples as Turtle, grouped by subject, with the KG prefixes."""
        lines = [f"@prefix {p}: <{ns}> ." for p, ns in PREFIXES.items()]
        by_subject: dict[Term, list[str]] = {}
        for s, p, o in self.triples:
            by_subject.setdefault(s, []).append(f"{p.turtle()} {o.turtle()}")
        for s, pairs in by_subject.items():
            lines.append(f"\n{s.turtle()}\n    " + " ;\n    ".join(pairs) + " .")
        return "\n".join(lines) + "\n"

    def to_jsonld(self) -> str:
        """CONSTRUCT/DESCRIBE triples as expanded JSON-LD (one node object per subject)."""
        nodes: dict[str, dict[str, object]] = {}
        for s, p, o in self.triples:
            sid = s.to_jsonld()["@id"] if s.kind != "literal" else s.value
            node = nodes.setdefault(sid, {"@id": sid})
            if p.value == _RDF_TYPE and o.kind in ("iri", "bnode"):
                types = node.setdefault("@type", [])
                assert isinstance(types, list)
                types.append(o.to_jsonld()["@id"])
            else:
                values = node.setdefault(p.value, [])
                assert isinstance(values, list)
                values.append(o.to_jsonld())
        return json.dumps(list(nodes.values()), ensure_ascii=False)

    def to_xml(self) -> str:
        """SPARQL 1.1 Query Results XML (a graph result as subject/predicate/object)."""
        out = ['<?xml version="1.0" encoding="utf-8"?>', f'<sparql xmlns="{_XML_NS}">']
        if self.kind == "ask":
            out += ["<head/>", f"<boolean>{str(bool(self.boolean)).lower()}</boolean>"]
        else:
            names, rows = self._table()
            out.append("<head>" + "".join(f"<variable name={quoteattr(n)}/>" for n in names)
                       + "</head>")
            out.append("<results>")
            for row in rows:
                cells = "".join(f"<binding name={quoteattr(n)}>{t.to_xml()}</binding>"
                                for n, t in zip(names, row, strict=True) if t)
                out.append(f"<result>{cells}</result>")
            out.append("</results>")
        out.append("</sparql>")
        return "\n".join(out) + "\n"

    def serialize(self, fmt: str) -> str:
        """The answer in one of FORMATS (json, xml, csv, tsv for tables; ttl, nt, jsonld
        for graphs); ValueError for anything else."""
        writer = FORMATS.get(fmt)
        if writer is None:
            raise UsageError(f"unknown result format {fmt!r}; choose one of {list(FORMATS)}")
        return writer(self)

    def to_json(self) -> str:
        """SPARQL 1.1 Query Results JSON (a graph result as subject/predicate/object)."""
        if self.kind == "ask":
            return json.dumps({"head": {}, "boolean": bool(self.boolean)})
        names, rows = self._table()
        bindings = [
            {name: term.to_json() for name, term in zip(names, row, strict=True) if term}
            for row in rows
        ]
        doc = {"head": {"vars": names}, "results": {"bindings": bindings}}
        return json.dumps(doc, ensure_ascii=False)

    def to_csv(self) -> str:
        """SPARQL 1.1 CSV: plain values, RFC 4180 quoting, CRLF line ends."""
        if self.kind == "ask":
            return f"{str(bool(self.boolean)).lower()}\r\n"
        names, rows = self._table()
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\r\n")
        writer.writerow(names)
        for row in rows:
            writer.writerow(["" if t is None else _csv_value(t) for t in row])
        return buf.getvalue()

    def to_tsv(self) -> str:
        """SPARQL 1.1 TSV: ?-prefixed header, terms in N-Triples syntax."""
        if self.kind == "ask":
            return f"{str(bool(self.boolean)).lower()}\n"
        names, rows = self._table()
        lines = ["\t".join(f"?{n}" for n in names)]
        lines += ["\t".join("" if t is None else t.n3() for t in row) for row in rows]
        return "\n".join(lines) + "\n"

    def to_table(self, max_width: int = 60) -> str:
        """A fixed-width text table for terminals; long cells end in '…'."""
        if self.kind == "ask":
            return "yes" if self.boolean else "no"
        names, rows = self._table()
        cells = [[_clip(t.short() if t else "", max_width) for t in row] for row in rows]
        widths = [max([len(n), *(len(r[i]) for r in cells)]) for i, n in enumerate(names)]
        line = "  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)).rstrip()
        rule = "  ".join("-" * w for w in widths)
        body = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                for r in cells]
        noun = "triple" if self.kind == "graph" else "row"
        footer = f"({len(rows)} {noun}{'' if len(rows) == 1 else 's'})"
        return "\n".join([line, rule, *body, footer])


#: Result format name → serialiser.
FORMATS: dict[str, Callable[[QueryResult], str]] = {
    "json": QueryResult.to_json,
    "xml": QueryResult.to_xml,
    "csv": QueryResult.to_csv,
    "tsv": QueryResult.to_tsv,
    "ttl": QueryResult.to_turtle,
    "nt": QueryResult.to_ntriples,
    "jsonld": QueryResult.to_jsonld,
}


def _csv_value(term: Term) -> str:
    return f"_:{term.value}" if term.kind == "bnode" else term.value


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
