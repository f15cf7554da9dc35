"""SPARQL as text a person writes: the standard prefixes added, errors pointed at their text.

Shared by the CLI, the read side and the server, so a query and its error message read the
same everywhere. The store's parser reports the furthest point it reached and every token it
could have taken there ("expected one of Prefix not found, ['%'], …"); a person needs the
token they got wrong and what to write instead, so the common mistakes (a prefix nobody
declared, a misspelt keyword, a bare word) are found in their own text.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from paperkg.screen import OPAQUE
from paperkg.vocab import PREFIXES, SPARQL_PREFIXES

__all__ = ["explain_query_error", "with_prefixes"]

_ERROR_AT = re.compile(r"error at (\d+):(\d+)")
_PREFIX_DECL = re.compile(r"PREFIX\s+([A-Za-z][\w-]*)?:", re.IGNORECASE)
_MAX_CHARS = 320

_PREFIXED = re.compile(r"(?<![\w?$.:@-])([A-Za-z][\w-]*(?:\.[\w-]+)*)?:")
# A bare word: not a variable, a prefixed name's part, a language tag or a number.
_WORD = re.compile(r"(?<![\w?$:@.^-])([A-Za-z][\w]*)(?![\w:-])")

#: SPARQL 1.1 keywords and built-in functions (and the updates the store refuses by name).
KEYWORDS: frozenset[str] = frozenset("""
    BASE PREFIX SELECT CONSTRUCT DESCRIBE ASK DISTINCT REDUCED AS FROM NAMED WHERE ORDER BY
    GROUP HAVING ASC DESC LIMIT OFFSET VALUES OPTIONAL UNION MINUS GRAPH SERVICE SILENT BIND
    FILTER EXISTS NOT IN UNDEF A TRUE FALSE SEPARATOR LATERAL
    STR LANG LANGMATCHES DATATYPE BOUND IRI URI BNODE RAND ABS CEIL FLOOR ROUND CONCAT
    STRLEN UCASE LCASE ENCODE_FOR_URI CONTAINS STRSTARTS STRENDS STRBEFORE STRAFTER YEAR
    MONTH DAY HOURS MINUTES SECONDS TIMEZONE TZ NOW UUID STRUUID MD5 SHA1 SHA256 SHA384
    SHA512 COALESCE IF STRLANG STRDT SAMETERM ISIRI ISURI ISBLANK ISLITERAL ISNUMERIC REGEX
    SUBSTR REPLACE COUNT SUM MIN MAX AVG SAMPLE GROUP_CONCAT TRIPLE SUBJECT PREDICATE OBJECT
    ISTRIPLE LANGDIR HASLANG HASLANGDIR STRLANGDIR
    INSERT DELETE DATA LOAD CLEAR CREATE DROP COPY MOVE ADD WITH USING INTO TO DEFAULT ALL
""".split())
_SUGGESTIONS = sorted(KEYWORDS - {"A", "BY", "AS", "IN", "TO"}) + ["ORDER BY", "GROUP BY"]


def with_prefixes(sparql: str) -> str:
    """Prepend, on one extra first line, the standard PREFIXes the query does not declare."""
    declared = {m.group(1) or "" for m in _PREFIX_DECL.finditer(sparql)}
    missing = [
        line for line in SPARQL_PREFIXES.splitlines()
        if line.split()[1].rstrip(":") not in declared
    ]
    return " ".join(missing) + "\n" + sparql if missing else sparql


def explain_query_error(message: str, shift: int = 0, query: str | None = None) -> str:
    """One line (at most 320 characters) saying where the query is wrong and what to write.

    `message` is the store's parser error, `shift` the number of lines `with_prefixes`
    added in front of the person's text, `query` that text (without it, only the parser's
    position and its expected tokens, tidied, can be given). The position is written
    "error at line L, column C", which the server turns into JSON.
    """
    at = _ERROR_AT.search(message)
    if at is None:
        return _one_line(f"SPARQL syntax error: {message}")
    line, column = int(at[1]) - shift, int(at[2])
    hint = _hint(query, line, column) if query is not None else None
    if hint is None:
        hint = _Hint(line, column, _expected(message, query, line, column))
    return _one_line(f"SPARQL syntax error at line {hint.line}, column {hint.column}: "
                     f"{hint.text}")


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 1] + "…"


@dataclass(frozen=True, slots=True)
class _Hint:
    line: int
    column: int
    text: str


def _hint(query: str, line: int, column: int) -> _Hint | None:
    """The first mistake found in the person's own text: a prefix nobody declared, or a
    bare word where the parser stopped or before (valid SPARQL has no bare words but its
    keywords); None to fall back on the parser's own report."""
    # strings, IRIs and comments blanked (same length, newlines kept) before looking for
    # prefixes and words, so "a:b" inside a string is not a prefix
    masked = OPAQUE.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), query)
    known = set(PREFIXES) | {m.group(1) or "" for m in _PREFIX_DECL.finditer(masked)}
    found: list[tuple[int, str]] = []
    for m in _PREFIXED.finditer(masked):
        name = m.group(1) or ""
        if name not in known and not _is_declaration(masked, m.start()):
            found.append((m.start(), _unknown_prefix(name, known)))
            break
    stop = _offset(query, line, column)
    for m in _WORD.finditer(masked):
        if m.start() > stop:
            break
        if m[1].upper() not in KEYWORDS:
            found.append((m.start(), _bare_word(m[1])))
            break
    if not found:
        return None
    offset, text = min(found)
    return _Hint(*_line_col(query, offset), text)


def _unknown_prefix(name: str | None, known: set[str]) -> str:
    listed = ", ".join(sorted(p for p in known if p))
    what, decl = (f"unknown prefix '{name}:'", name) if name is not None else (
        "a prefix is not declared", "NAME")
    return f"{what}; declare it (PREFIX {decl}: <IRI>) or use a known one: {listed}"


def _bare_word(word: str) -> str:
    close = difflib.get_close_matches(word.upper(), _SUGGESTIONS, n=1, cutoff=0.75)
    if close:
        return f"'{word}' is not a SPARQL keyword; did you mean {close[0]}?"
    return (f"'{word}' is not a keyword, a variable (?{word}) or a prefixed name "
            f"(prefix:{word})")


def _is_declaration(masked: str, start: int) -> bool:
    """True for the `foo:` of `PREFIX foo: <…>` (a declaration, not a use)."""
    return re.search(r"PREFIX\s+$", masked[:start], re.IGNORECASE) is not None


def _line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _offset(text: str, line: int, column: int) -> int:
    """The character offset of a 1-based line and column (clamped to the text)."""
    lines = text.split("\n")
    if line < 1:
        return 0
    if line > len(lines):
        return len(text)
    return sum(len(x) + 1 for x in lines[: line - 1]) + min(column - 1, len(lines[line - 1]))


_CHAR_CLASS = re.compile(r"\[(?:'[^']*'|[^\]'])*\]")
_ITEM = re.compile(r'\s*("[^"]*"|[^,]+)')


def _expected(message: str, query: str | None, line: int, column: int) -> str:
    """What the parser found and the tokens it expected, without its character classes."""
    tail = message.split("expected", 1)[1] if "expected" in message else ""
    tail = _CHAR_CLASS.sub("", tail).replace("one of", "", 1)
    items = [i.strip() for i in _ITEM.findall(tail)]
    tokens = list(dict.fromkeys(i for i in items if i.startswith('"')
                                or re.fullmatch(r"[A-Z][A-Z_]*", i)))
    found = ""
    if query is not None:
        rest = query[_offset(query, line, column):].split()
        found = f"found '{rest[0][:30]}'" if rest else "found the end of the query"
    if "Prefix not found" in tail:
        return f"{found}{'; ' if found else ''}{_unknown_prefix(None, set(PREFIXES))}"
    if not tokens:
        return f"{found or 'the parser stopped here'}; check the text just before it"
    shown = ", ".join(tokens[:8]) + (", …" if len(tokens) > 8 else "")
    return f"{found}{'; ' if found else ''}expected {shown}"
