"""The paperkg HTTP service: a SPARQL 1.1 endpoint, a JSON API and HTML pages over one KG.

A thin layer over `paperkg`; importing this package is cheap (FastAPI loads in `server.app`),
so the SPARQL worker processes, which import `server.pool`, never load the web stack.
"""

from __future__ import annotations

__all__ = ["run"]


def run(settings: object) -> None:
    """Serve the KG named by `settings` (a `paperkg.settings.Settings`) until interrupted."""
    from server.app import serve

    serve(settings)  # type: ignore[arg-type]
