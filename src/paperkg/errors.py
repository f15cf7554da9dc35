"""Every exception type paperkg raises on purpose, in one place.

`UserError` and its subclasses are what a person can cause and fix (bad input, an unknown
id, a malformed query, a KG directory that is missing or damaged): front ends (CLI,
server) show them as one line or one JSON error shape. Anything else is a bug and keeps
its traceback; a plain `ValueError` from deep inside the pipeline is never shown as the
user's fault.
"""

from __future__ import annotations

__all__ = [
    "BuildError",
    "IngestError",
    "KGBusy",
    "KGNotFound",
    "QueryError",
    "QueryRefused",
    "ResultTooLarge",
    "UnknownNode",
    "UsageError",
    "UserError",
]


class UserError(Exception):
    """Something the person running paperkg can fix; the message says how."""


class UsageError(UserError, ValueError):
    """A flag, argument or parameter outside what the command accepts."""


class IngestError(UserError, ValueError):
    """Input that cannot be used; the message names the file and line."""

    def __init__(self, reject: object, more: int = 0) -> None:
        self.reject = reject
        hint = " (use --skip-invalid to keep the valid records and write rejects aside)"
        extra = f" and {more} more bad record(s)" if more else ""
        super().__init__(f"{reject}{extra}{hint}")


class BuildError(UserError, RuntimeError):
    """A build that cannot complete; the existing KG (if any) is left as it was."""


class KGBusy(BuildError):
    """A KG another process is writing: nothing was done; the same command works once that
    process is done (`paperkg add --watch` tries the file again)."""


class KGNotFound(UserError, FileNotFoundError):
    """A KG directory that is missing, incomplete or damaged; the message says which file
    and how to rebuild."""


class QueryError(UserError, ValueError):
    """A query that cannot run; the message is the parser's, with line:column."""


class QueryRefused(QueryError):
    """A well-formed request this store will not run (an update, or SERVICE)."""


class ResultTooLarge(QueryError):
    """An answer longer than the operator's row cap: refused whole, never cut silently."""


class UnknownNode(UserError, LookupError):
    """An id that names nothing in the KG; the message says how to find a valid one."""
