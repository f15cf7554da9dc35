"""What a read-only store checks in a query before the engine parses it.

A lexical pass, not a parser: strings, IRIs and comments are blanked out first (after
SPARQL's \\u escapes are decoded), so only real keywords and brackets remain. It errs on
the side of refusing: a word that might be SERVICE counts as SERVICE. It is a courtesy
(a clear 403 instead of an engine error) and a guard for in-process queries; the query
workers of the server are also sandboxed (no network sockets), so a query that slipped
through could still not reach another host.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from paperkg.errors import QueryError, QueryRefused

__all__ = ["MAX_NESTING", "OPAQUE", "Screened", "nesting_depth", "screen"]

#: Deeper bracket nesting than any real query needs; the parser recurses per level, and
#: thousands of levels crash it (a segfault is a lost worker, not an error message).
MAX_NESTING: Final = 64

_UNICODE_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
#: Tokens whose content is not SPARQL syntax: strings, IRIs, comments.
OPAQUE = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'(?:[^'\\\n]|\\.)*'"
    r'|<[^<>"{}|^`\\\s]*>'
    r"|#[^\n]*",
    re.DOTALL,
)
# A keyword is a word not glued to a variable sigil or a prefixed name's colon; a '.'
# before it is a triple terminator ("?o .SERVICE"), so it does not hide the keyword.
_KEYWORD = re.compile(
    r"(?<![\w?$:])(SELECT|ASK|CONSTRUCT|DESCRIBE|INSERT|DELETE|LOAD|CLEAR|CREATE|DROP"
    r"|COPY|MOVE|ADD|WITH|SERVICE|FROM)(?![\w:-])",
    re.IGNORECASE,
)
_READ_FORMS: Final = frozenset({"SELECT", "ASK", "CONSTRUCT", "DESCRIBE"})
_OPEN: Final = frozenset("{([")
_CLOSE: Final = frozenset("})]")


@dataclass(frozen=True, slots=True)
class Screened:
    """What the screen learnt: whether the query names its own dataset (FROM …)."""

    has_dataset: bool


def _bare(sparql: str) -> str:
    """The query with escapes decoded and strings, IRIs and comments blanked."""
    text = _UNICODE_ESCAPE.sub(lambda m: chr(int(m[1] or m[2], 16)), sparql)
    return OPAQUE.sub(" ", text)


def nesting_depth(sparql: str) -> int:
    """The deepest bracket nesting ({, ( and [) outside strings, IRIs and comments."""
    return _depth(_bare(sparql))


def _depth(bare: str) -> int:
    depth = deepest = 0
    for ch in bare:
        if ch in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif ch in _CLOSE:
            depth -= 1
    return deepest


def screen(sparql: str, allow_service: bool = False) -> Screened:
    """Refuse updates, SERVICE and absurd nesting before parsing: pyoxigraph would call an
    update a syntax error ("expected CONSTRUCT"), and would run SERVICE as an HTTP request."""
    bare = _bare(sparql)
    keywords = [k.upper() for k in _KEYWORD.findall(bare)]
    if keywords and keywords[0] not in _READ_FORMS and keywords[0] != "FROM":
        raise QueryRefused(
            f"{keywords[0]} is a SPARQL update: this store only answers SELECT, ASK, "
            "CONSTRUCT and DESCRIBE queries"
        )
    if "SERVICE" in keywords and not allow_service:
        raise QueryRefused("SERVICE (federated query) is disabled: this endpoint answers "
                           "from its own data only")
    depth = _depth(bare)
    if depth > MAX_NESTING:
        raise QueryError(f"brackets nested {depth} deep; at most {MAX_NESTING} levels "
                           "are accepted")
    return Screened(has_dataset="FROM" in keywords)
