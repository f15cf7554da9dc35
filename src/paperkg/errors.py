"""The errors a person can cause and fix (bad input, unknown ids, bad queries).

Front ends (CLI, server) turn exactly these into one-line messages or one JSON error
shape; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from paperkg.ingest import IngestError
from paperkg.kg import BuildError
from paperkg.query import UnknownNode
from paperkg.store import QueryError

__all__ = ["USER_ERRORS"]

USER_ERRORS: tuple[type[BaseException], ...] = (
    IngestError,
    BuildError,
    QueryError,
    UnknownNode,
    FileNotFoundError,
    NotADirectoryError,
    PermissionError,
    ValueError,
)
