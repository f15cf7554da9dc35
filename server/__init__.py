"""The paperkg HTTP service: a SPARQL 1.1 endpoint, a JSON API and HTML pages over one KG.

A thin layer over `paperkg`; importing this package is cheap (FastAPI loads in `server.app`),
so the SPARQL worker processes, which import `server.pool`, never load the web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paperkg.settings import Settings

__all__ = ["run"]


def run(settings: Settings) -> None:
    """Serve the KG named by `settings` until interrupted (what `paperkg serve` does)."""
    from server.app import serve

    serve(settings)
