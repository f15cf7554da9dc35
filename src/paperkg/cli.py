"""`paperkg`: build, query and explore the KG from a shell. A thin layer over the library."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from pathlib import Path

from paperkg import __version__
from paperkg.errors import UserError
from paperkg.kgdir import EXPORTS
from paperkg.settings import (
    BUILD_SETTINGS,
    READ_SETTINGS,
    RELATED_BLEND,
    Settings,
    add_arguments,
    from_args,
)

__all__ = ["main"]

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="paperkg",
        description="A knowledge graph of papers and the concepts they share.",
    )
    p.add_argument("--version", action="version", version=f"paperkg {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _build_commands(sub)
    _read_commands(sub)
    _view_commands(sub)
    _plugin_commands(sub)
    return p


def _format_alias(c: argparse.ArgumentParser) -> None:
    """`--format` names the input format wherever inputs are read (`build`, `add`)."""
    c.add_argument("--format", dest="input_format", default=argparse.SUPPRESS,
                   help="same as --input-format")


def _build_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Commands that make or change a KG (the build side)."""
    c = sub.add_parser("build", help="build a KG from seed .txt, .jsonl[.gz] and source "
                                     "files (OpenReview, arXiv, OpenAlex, S2, BibTeX, RIS, CSV)")
    c.add_argument("inputs", nargs="+", type=Path, metavar="INPUT")
    _format_alias(c)
    c.add_argument("-o", "--out", type=Path, required=True, metavar="KG_DIR",
                   help="the KG directory to write (replaced whole once it is built)")
    c.add_argument("--skip-invalid", action="store_true",
                   help="keep valid records; write rejected ones to KG_DIR/rejects.jsonl")
    add_arguments(c, BUILD_SETTINGS)

    # an update ranks under the KG's own statistics (or relearns them), never another's
    update_settings = tuple(n for n in BUILD_SETTINGS if n != "statistics_from")
    relearn = ("relearn the corpus statistics (keyword prior, corpus share) from all the "
               "KG's papers and extract every paper again: the KG a plain build gives (by "
               "default new and changed papers are ranked under the KG's stored statistics "
               "and the others keep their concepts)")
    c = sub.add_parser("add", help="add papers to a KG (or replace changed ones, same id) "
                                   "without a rebuild")
    c.add_argument("inputs", nargs="*", type=Path, metavar="INPUT",
                   help="papers to add (none: only --relearn-statistics)")
    _format_alias(c)
    c.add_argument("--skip-invalid", action="store_true",
                   help="keep valid records; write rejected ones to KG_DIR/rejects.jsonl")
    c.add_argument("--relearn-statistics", action="store_true", help=relearn)
    c.add_argument("--watch", type=Path, metavar="INBOX",
                   help="stay running and add every file dropped into this folder (moved "
                        "to INBOX/added, or to INBOX/failed with the reason); Ctrl-C stops")
    c.add_argument("--interval", type=float, default=2.0, metavar="SECONDS",
                   help="with --watch: how often the folder is looked at (default 2)")
    add_arguments(c, update_settings)

    c = sub.add_parser("remove", help="remove papers from a KG by id, without a rebuild")
    c.add_argument("ids", nargs="+", metavar="ID")
    c.add_argument("--relearn-statistics", action="store_true", help=relearn)
    add_arguments(c, update_settings)

    c = sub.add_parser("demo", help="build the demo corpus (38 abstracts) into ./kg and show "
                                    "what is in it")
    c.add_argument("--data", type=Path, metavar="FOLDER",
                   help="folder of seed .txt files (default: the 38 demo abstracts shipped "
                        "with paperkg)")
    c.add_argument("-o", "--out", type=Path, default=Path("kg"), metavar="KG_DIR",
                   help="the KG directory to write (default: kg)")
    add_arguments(c, BUILD_SETTINGS)

    c = sub.add_parser("fetch", help="download OpenReview, arXiv or OpenAlex records as "
                                     "JSON Lines for build (needs internet; resumable)")
    c.add_argument("source", choices=("openreview", "arxiv", "openalex"))
    c.add_argument("query", help="openreview: a venue id (ICLR.cc/2025/Conference) or an "
                                 "invitation (…/-/Blind_Submission); arxiv: "
                                 "an API search_query (cat:cs.LG AND abs:graph); openalex: a "
                                 "works filter (concepts.id:C154945302,publication_year:2024)")
    c.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.jsonl",
                   help="where to write; a rerun continues an interrupted fetch")
    c.add_argument("--from", dest="since", metavar="YYYY-MM-DD",
                   help="arxiv: only papers submitted on or after this day")
    c.add_argument("--base-url", help="another server speaking the same API (a mirror, "
                                      "a replay, or api.openreview.net for API v1 venues)")
    c.add_argument("--interval", type=float,
                   help="seconds between requests (default: each source's documented limit)")
    add_arguments(c, ("debug",))

    c = sub.add_parser("extract", help="canonical, typed concepts per record, as JSON Lines")
    c.add_argument("input", type=Path, help=".jsonl[.gz] with id, abstract and optional title")
    c.add_argument("-o", "--out", type=Path, required=True, help="FILE.jsonl to write")
    c.add_argument("--skip-invalid", action="store_true", help="skip bad records, say which")
    c.add_argument("--keywords-from", type=Path, action="append", default=[], metavar="FILE",
                   help="learn which phrases authors choose as keywords from the author "
                        "keywords in this .jsonl[.gz] (repeatable; default: the input's own "
                        "when at least 200 of its papers have keywords, each paper's left out "
                        "of its own scoring, else the packaged ICLR 2025 statistics)")
    add_arguments(c, BUILD_SETTINGS)


def _read_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Commands that ask a KG questions (the read side)."""
    c = sub.add_parser("query", help="run a SPARQL query (standard prefixes are added)")
    c.add_argument("sparql", help="the query text, or - to read it from stdin, or @FILE")
    c.add_argument("--format", choices=("table", "json", "csv", "tsv"), default="table")
    add_arguments(c, READ_SETTINGS)

    c = sub.add_parser("related", help="papers sharing the most (rare) concepts with a paper")
    c.add_argument("paper_id")
    c.add_argument("--limit", type=int, default=10)
    c.add_argument("--blend", type=float, default=RELATED_BLEND,
                   help="weight of word similarity (title and abstract) against shared "
                        "concepts in the ranking, 0 to 1; results always share concepts "
                        "(default: %(default)s)")
    c.add_argument("--format", choices=("table", "json"), default="table")
    add_arguments(c, READ_SETTINGS)

    c = sub.add_parser("concepts", help="a paper's concepts, ranked, with scores")
    c.add_argument("paper_id")
    c.add_argument("--format", choices=("table", "json"), default="table")
    add_arguments(c, READ_SETTINGS)

    c = sub.add_parser("neighbours", help="the nodes around a paper, concept or author")
    c.add_argument("node", help="paper id, concept:<slug>, author:<slug> or a concept label")
    c.add_argument("--depth", type=int, default=1, choices=(1, 2, 3))
    c.add_argument("--limit", type=int, default=50, help="keep at most this many nodes")
    c.add_argument("--format", choices=("table", "json"), default="table")
    add_arguments(c, READ_SETTINGS)

    c = sub.add_parser("export", help="write the KG as Turtle, N-Triples, JSON-LD or GraphML")
    c.add_argument("--format", choices=EXPORTS, required=True)
    c.add_argument("-o", "--output", type=Path, help="file to write (default KG_DIR/export/)")
    add_arguments(c, READ_SETTINGS)


def _view_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Commands that draw part of a KG."""
    c = sub.add_parser("view", help="draw a neighbourhood, two papers' links or a SPARQL "
                                    "answer as an interactive HTML file that works offline")
    c.add_argument("node", nargs="?",
                   help="paper id, concept:<slug>, author:<slug> or a concept label")
    c.add_argument("--depth", type=int, default=1, choices=(1, 2, 3))
    c.add_argument("--limit", type=int, default=100, help="keep at most this many nodes")
    c.add_argument("--connect", nargs=2, metavar=("A", "B"),
                   help="instead of NODE: what connects A and B (shared concepts, paths)")
    c.add_argument("--sparql", metavar="QUERY",
                   help="instead of NODE: a CONSTRUCT/DESCRIBE, or a SELECT of node pairs "
                        "(text, - for stdin or @FILE)")
    c.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write")
    c.add_argument("--link-base", metavar="URL",
                   help="clicking a node opens its page on this paperkg service, e.g. "
                        "http://127.0.0.1:8000 (default: nodes are not links)")
    add_arguments(c, READ_SETTINGS)


def _plugin_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Subcommands that installed front ends register (entry point group
    `paperkg.commands`): `serve` comes from paperkg_server, so the core never imports it.
    Each entry point is a function that adds its subparser and sets `handler`."""
    for ep in sorted(entry_points(group="paperkg.commands"), key=lambda e: e.name):
        ep.load()(sub)


def main(argv: Sequence[str] | None = None) -> int:
    try:  # the flags' defaults come from PAPERKG_* variables, which may be malformed
        parser = _parser()
    except UserError as err:
        print(f"paperkg: error: {err}", file=sys.stderr)
        return 1
    args = parser.parse_args(argv)
    settings = from_args(args)
    try:
        return _run(args, settings)
    except UserError as err:
        if settings.debug:
            raise
        return _fail(args.command, str(err))
    except OSError as err:
        # a file or folder the person named (missing, unreadable, a directory, a full
        # disk): theirs to fix; an OSError without a file name is ours and keeps its trace
        if settings.debug or err.filename is None:
            raise
        return _fail(args.command, f"{err.filename}: {err.strerror or err}")
    except KeyboardInterrupt:
        print("paperkg: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `paperkg ... | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _fail(command: str, message: str) -> int:
    print(f"paperkg {command}: error: {message}", file=sys.stderr)
    return 1


def _run(args: argparse.Namespace, settings: Settings) -> int:
    handler = getattr(args, "handler", None)
    if handler is None:
        from paperkg import commands

        handler = getattr(commands, f"cmd_{args.command}")
    result: int = handler(args, settings)
    return result


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
