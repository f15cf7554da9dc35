"""SPARQL results as plain Python values, independent of the store that produced them.

`Term` and `QueryResult` are what every `Store` returns, so callers (CLI, server,
notebooks) never touch pyoxigraph or a remote endpoint's wire format. Serialisers follow
the SPARQL 1.1 Query Results JSON / CSV / TSV formats.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Literal

from paperkg.vocab import PREFIXES

__all__ = ["QueryKind", "QueryResult", "Term", "TermKind"]

TermKind = Literal["iri", "literal", "bnode", "triple"]
QueryKind = Literal["select", "ask", "graph"]

_XSD = "http://www.w3.org/2001/XMLSchema#"
_XSD_STRING = _XSD + "string"
_RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_INTEGER_TYPES = frozenset(_XSD + t for t in (
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort",
    "unsignedByte",
))
_FLOAT_TYPES = frozenset((_XSD + "double", _XSD + "float"))
_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"})


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
        quoted = '"' + self.value.translate(_ESCAPES) + '"'
        if self.lang:
            return f"{quoted}@{self.lang}"
        if self.datatype and self.datatype != _XSD_STRING:
            return f"{quoted}^^<{self.datatype}>"
        return quoted

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

    def __len__(self) -> int:
        return len(self.triples) if self.kind == "graph" else len(self.rows)

    def _table(self) -> tuple[list[str], list[Row]]:
        if self.kind == "graph":
            return _GRAPH_VARS, [tuple(t) for t in self.triples]
        return self.variables, self.rows

    def to_ntriples(self) -> str:
        """CONSTRUCT/DESCRIBE triples as N-Triples (one per line)."""
        return "".join(f"{s.n3()} {p.n3()} {o.n3()} .\n" for s, p, o in self.triples)

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


def _csv_value(term: Term) -> str:
    return f"_:{term.value}" if term.kind == "bnode" else term.value


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
