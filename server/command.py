"""`paperkg serve`: the subcommand this package adds to the paperkg CLI (entry point
group `paperkg.commands`), so the dependency points from the server to the core only."""

from __future__ import annotations

import argparse

from paperkg.settings import SERVE_SETTINGS, Settings, add_arguments

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    c = sub.add_parser("serve", help="serve the KG over HTTP: SPARQL endpoint, JSON API, pages")
    add_arguments(c, SERVE_SETTINGS)
    c.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Start the HTTP service; the reader, FastAPI and uvicorn load only here (every
    other paperkg command parses its arguments without them)."""
    from paperkg.read.kg import open_kg

    open_kg(settings.kg)  # a missing KG is a one-line error, before anything starts
    from paperkg_server.app import serve

    serve(settings)
    return 0
