"""SPARQL as text a person writes: the standard prefixes added, errors pointed at their text.

Shared by the CLI, the read side and the server, so a query and its error message read the
same everywhere.
"""

from __future__ import annotations

import re

from paperkg.vocab import SPARQL_PREFIXES

__all__ = ["explain_query_error", "with_prefixes"]

_ERROR_AT = re.compile(r"error at (\d+):(\d+)")
_PREFIX_DECL = re.compile(r"PREFIX\s+([A-Za-z][\w-]*)?:", re.IGNORECASE)


def with_prefixes(sparql: str) -> str:
    """Prepend, on one extra first line, the standard PREFIXes the query does not declare."""
    declared = {m.group(1) or "" for m in _PREFIX_DECL.finditer(sparql)}
    missing = [
        line for line in SPARQL_PREFIXES.splitlines()
        if line.split()[1].rstrip(":") not in declared
    ]
    return " ".join(missing) + "\n" + sparql if missing else sparql


def explain_query_error(message: str, shift: int = 0) -> str:
    """The store's error message pointing at the person's text: `shift` is the number of
    lines `with_prefixes` added; one line, at most 240 characters."""
    msg = _ERROR_AT.sub(lambda m: f"error at line {int(m[1]) - shift}, column {m[2]}", message)
    msg = " ".join(msg.split())
    return msg if len(msg) <= 240 else msg[:239] + "…"
