"""What each CLI command does: call the library, print something a person can read."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperkg.errors import UsageError
from paperkg.progress import Reporter
from paperkg.settings import Settings, given_settings

__all__ = ["format_table"]

if TYPE_CHECKING:
    from paperkg.read.kg import KnowledgeGraph

DEMO_QUERY = """\
# papers sharing concepts with the paper that proposes DPC, and what they share
SELECT ?other ?label (COUNT(?c) AS ?shared) (GROUP_CONCAT(?cl; separator=", ") AS ?concepts)
WHERE {
  ?p rdfs:label "DPC" ; pkg:mentions ?c .
  ?other pkg:mentions ?c ; rdfs:label ?label . ?c skos:prefLabel ?cl .
  FILTER(?other != ?p)
} GROUP BY ?other ?label ORDER BY DESC(?shared) ?other LIMIT 5"""


def open_kg(path: Path) -> KnowledgeGraph:
    """The read side, imported on first use: `add`, `remove` and `build` do not load
    networkx and scipy for it (0.6 s of an update's start)."""
    from paperkg.read.kg import open_kg as open_read_side

    return open_read_side(path)


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]], width: int = 60) -> str:
    """A plain aligned text table; long cells are cut with an ellipsis."""
    def cell(v: Any) -> str:
        s = "" if v is None else str(v).replace("\n", " ")
        return s if len(s) <= width else s[: width - 1] + "…"

    body = [[cell(v) for v in row] for row in rows]
    sizes = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(n) for h, n in zip(header, sizes, strict=True)),
             "  ".join("-" * n for n in sizes)]
    lines += ["  ".join(c.ljust(n) for c, n in zip(r, sizes, strict=True)).rstrip() for r in body]
    return "\n".join(lines)


def _json(obj: object) -> None:
    json.dump(obj, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def _summary(manifest: dict[str, Any]) -> str:
    c = manifest["counts"]
    return (f"{c['papers']} papers, {c['concepts']} concepts, {c['mentions']} paper-concept "
            f"links, {c['triples']} triples ({manifest['build_seconds']} s)")


def _demo_data() -> Path:
    """The demo abstracts shipped inside the package (`paperkg/demo` is the repo's data/),
    so `paperkg demo` works from any folder after any install."""
    return Path(str(files("paperkg") / "demo"))


def _check_inputs(paths: Sequence[Path]) -> None:
    """Name a folder or a missing file before anything is read, with what to pass instead."""
    for path in paths:
        if path.is_dir():
            inside = sorted(p.name for p in path.iterdir()
                            if p.is_file() and not p.name.startswith("."))
            offer = (f"{path}/*.txt" if any(n.endswith(".txt") for n in inside)
                     else f"{path}/*")
            listed = f" (inside: {', '.join(inside[:3])}{', …' if len(inside) > 3 else ''})"
            raise UsageError(f"{path} is a directory; pass the files inside, e.g. "
                             f"{offer}{listed if inside else ''}")
        if not path.exists():
            raise UsageError(f"{path}: no such file; give input files (seed .txt, "
                             f".jsonl[.gz], …: paperkg build --help lists the formats)")


def cmd_build(args: argparse.Namespace, settings: Settings) -> int:
    _check_inputs(args.inputs)
    from paperkg.build.pipeline import build_kg

    manifest = build_kg(args.inputs, args.out, settings, skip_invalid=args.skip_invalid)
    print(f"built {args.out}: {_summary(manifest)}")
    if manifest["counts"]["rejected"]:
        print(f"{manifest['counts']['rejected']} record(s) rejected, with reasons, in "
              f"{args.out / 'rejects.jsonl'}")
    return 0


def cmd_add(args: argparse.Namespace, settings: Settings) -> int:
    from paperkg.build.update import update_kg

    if args.watch is not None:
        return _watch(args, settings)
    if not args.inputs and not args.relearn_statistics:
        raise UsageError("give the input files to add (or --relearn-statistics alone to "
                         "relearn the corpus statistics)")
    _check_inputs(args.inputs)
    manifest = update_kg(settings.kg, add=args.inputs, settings=settings,
                         skip_invalid=args.skip_invalid, relearn=args.relearn_statistics,
                         given=given_settings(args))
    u = manifest["update"]
    print(f"updated {settings.kg}: {u['added']} added, {u['changed']} changed; "
          f"{_summary(manifest)}")
    _statistics_hint(settings.kg, manifest)
    return 0


def _watch(args: argparse.Namespace, settings: Settings) -> int:
    from paperkg.build.watch import watch_inbox
    from paperkg.kgdir import read_manifest

    if args.inputs or args.relearn_statistics:
        raise UsageError("--watch adds the files dropped into its folder: give no INPUT "
                         "and no --relearn-statistics with it (run those as their own add)")
    if not args.watch.is_dir():
        what = "is a file, not a folder" if args.watch.exists() else "no such folder"
        raise UsageError(f"--watch {args.watch}: {what}; give a folder (create it), then "
                         "drop the files to add into it")
    if args.interval <= 0:
        raise UsageError(f"--interval {args.interval}: give a positive number of seconds")
    read_manifest(settings.kg)  # not a KG: say so before watching
    added = watch_inbox(settings.kg, args.watch, settings, given_settings(args),
                        skip_invalid=args.skip_invalid, interval=args.interval)
    print(f"stopped watching {args.watch}: {added} file(s) added")
    return 0


def cmd_remove(args: argparse.Namespace, settings: Settings) -> int:
    from paperkg.build.update import update_kg

    manifest = update_kg(settings.kg, remove=args.ids, settings=settings,
                         relearn=args.relearn_statistics, given=given_settings(args))
    print(f"updated {settings.kg}: {manifest['update']['removed']} removed; "
          f"{_summary(manifest)}")
    _statistics_hint(settings.kg, manifest)
    return 0


def _statistics_hint(kg: Path, manifest: dict[str, Any]) -> None:
    """One line when many of the KG's papers were not counted in its statistics."""
    st = manifest.get("statistics") or {}
    if st.get("stale"):
        print(f"hint: {st['new_since']} of {manifest['counts']['papers']} papers are new "
              f"since the corpus statistics were learned ({st['papers']} papers, "
              f"{st['learned_at']}); relearn them with 'paperkg add --kg {kg} "
              "--relearn-statistics'")


def cmd_fetch(args: argparse.Namespace, settings: Settings) -> int:
    from paperkg.build.sources.fetch import arxiv_query, fetch

    query = arxiv_query(args.query, args.since) if args.source == "arxiv" else args.query
    if args.since and args.source != "arxiv":
        raise UsageError("--from applies to arxiv only (put dates into an OpenAlex filter)")
    state = fetch(args.source, query, args.output, base_url=args.base_url,
                  interval=args.interval)
    print(f"wrote {args.output}: {state.records} records in {state.pages} page(s); build "
          f"with: paperkg build {args.output} --out KG_DIR")
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from paperkg.build.pipeline import build_kg

    data = args.data or _demo_data()
    inputs = sorted(data.glob("*.txt"))
    if not inputs:
        raise UsageError(f"{data}: no seed .txt files here; pass --data FOLDER (a folder of "
                         f"seed .txt files)")
    manifest = build_kg(inputs, args.out, settings)
    kg = open_kg(args.out)
    print(f"\nbuilt {args.out}: {_summary(manifest)}\n")
    print("Top concepts (papers mentioning each):")
    top = kg.reader().top_concepts(12)
    print(format_table(["concept", "papers"], [(c.label, c.paper_count) for c in top]))
    print(f"\nExample query (paperkg query --kg {args.out} '...'):\n{DEMO_QUERY}\n")
    res = kg.sparql(DEMO_QUERY)
    print(res.to_table())
    ids = kg.sparql('SELECT ?id WHERE { ?p rdfs:label "DPC" ; dcterms:identifier ?id }')
    first = ids.rows[0][0] if ids.rows else None
    example = first.value if first is not None else "<paper-id>"
    print(f"\nNext: paperkg related {example} --kg {args.out}\n      paperkg concepts {example} "
          f"--kg {args.out}\n      paperkg neighbours {example} --depth 2 --kg {args.out}")
    return 0


def _read_query(text: str) -> str:
    if text == "-":
        return sys.stdin.read()
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            what = "is a directory" if path.is_dir() else "no such file"
            raise UsageError(f"{path}: {what}; @FILE reads the query from a file (to pass "
                             f"the query text itself, leave out the @)")
        return path.read_text(encoding="utf-8")
    return text


def cmd_query(args: argparse.Namespace, settings: Settings) -> int:
    text = _read_query(args.sparql)
    res = open_kg(settings.kg).sparql(text)
    out = {"table": res.to_table, "json": res.to_json, "csv": res.to_csv, "tsv": res.to_tsv}
    sys.stdout.write(out[args.format]().rstrip("\n") + "\n")
    return 0


def cmd_related(args: argparse.Namespace, settings: Settings) -> int:
    rows = open_kg(settings.kg).reader().related(args.paper_id, args.limit, args.blend)
    if args.format == "json":
        _json([{"id": r.paper_id, "label": r.label, "score": r.score,
                "shared": [{"concept": c, "weight": w} for c, w in r.shared]} for r in rows])
        return 0
    if not rows:
        print(f"no paper shares a concept with {args.paper_id}")
        return 0
    print(format_table(
        ["score", "paper", "label", "shared concepts"],
        [(f"{r.score:.2f}", r.paper_id, r.label, "; ".join(c for c, _ in r.shared))
         for r in rows],
        width=50,
    ))
    return 0


def cmd_concepts(args: argparse.Namespace, settings: Settings) -> int:
    links = open_kg(settings.kg).reader().concepts_of(args.paper_id)
    if args.format == "json":
        _json([{"rank": c.rank, "concept": c.concept_id, "label": c.label, "score": c.score,
                "type": c.kind, "role": c.role} for c in links])
        return 0
    print(format_table(["rank", "concept", "type", "role", "score", "id"],
                       [(c.rank, c.label, c.kind, c.role, f"{c.score:.3f}", c.concept_id)
                        for c in links]))
    return 0


def cmd_neighbours(args: argparse.Namespace, settings: Settings) -> int:
    sub = open_kg(settings.kg).reader().neighbours(args.node, args.depth, args.limit).graph()
    nodes = [{"id": n, **d} for n, d in sub.nodes(data=True)]
    edges = [{"source": a, "target": b, **d} for a, b, d in sub.edges(data=True)]
    if args.format == "json":
        _json({"nodes": nodes, "edges": edges})
        return 0
    print(f"{len(nodes)} nodes, {len(edges)} edges within {args.depth} hop(s) of {args.node}")
    print(format_table(["node", "kind", "label", "degree"],
                       [(n["id"], n.get("kind"), n.get("label"), sub.degree(n["id"]))
                        for n in nodes]))
    return 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    reporter = Reporter()
    reporter.step(f"exporting {settings.kg} as {args.format}")
    path = open_kg(settings.kg).export(args.format, args.output)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


def cmd_extract(args: argparse.Namespace, settings: Settings) -> int:
    """Extract, then canonicalise within the input: each concept with its label and kind.

    Unless --min-score is given, this lists a paper's whole top-n, as a keyphrase ranking
    does, and marks with `kept` what a KG built with these settings keeps of it."""
    from paperkg.build.canon import build_scheme
    from paperkg.build.embed import make_embedder
    from paperkg.build.extract import ExtractSettings, extract_concepts
    from paperkg.build.extraction import keyword_prior
    from paperkg.build.ingest import read_papers
    from paperkg.build.language import foreign_note
    from paperkg.build.pipeline import check_settings
    from paperkg.errors import IngestError

    if settings.on_cluster:
        raise UsageError("--workers and --dask-scheduler apply to build and add; "
                         "paperkg extract runs in this process")
    check_settings(settings)
    _check_inputs([args.input, *args.keywords_from])
    rep = Reporter()
    result = read_papers([args.input])
    if result.rejects and not args.skip_invalid:
        raise IngestError(result.rejects[0], more=len(result.rejects) - 1)
    for r in result.rejects:
        print(f"skipped {r}", file=sys.stderr)
    teachers = result.papers
    if args.keywords_from:
        learned = read_papers(args.keywords_from)
        if learned.rejects:
            raise IngestError(learned.rejects[0], more=len(learned.rejects) - 1)
        teachers = learned.papers
    prior = keyword_prior(teachers, settings, rep)
    embedder = make_embedder(settings.embedder, settings.cache)
    kg = ExtractSettings.of(settings)
    ext = replace(kg, ranking=settings.min_score is None)  # then `kept` marks the KG's
    marks: dict[str, list[bool]] = {}
    foreign: dict[str, str] = {}
    ranked = extract_concepts(result.papers, embedder, ext, rep.stage, prior, marks=marks,
                              foreign=foreign)
    if foreign:
        rep.step(foreign_note(foreign))
    dropped = {(pid, text) for pid, picks in ranked.items()
               for (text, _), k in zip(picks, marks.get(pid, [True] * len(picks)),
                                       strict=True) if not k}
    scheme = build_scheme(ranked, result.papers)
    rep.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for paper in result.papers:
            concepts = []
            for m in scheme.mentions.get(paper.id, []):
                c = scheme.concepts[m.concept_id]
                concepts.append({"label": c.pref_label, "type": c.kind, "concept": c.id,
                                 "surface": m.surface, "score": m.score, "role": m.role,
                                 # a name it proposes or evaluates on is kept as such
                                 "kept": m.role != "mentions"
                                 or (paper.id, m.surface) not in dropped})
            row: dict[str, Any] = {"id": paper.id, "concepts": concepts}
            if paper.id in foreign:
                row["language"] = foreign[paper.id]  # why it has none
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(result.papers)} records to {args.out} ({len(scheme.concepts)} concepts, "
          f"{len(scheme.merges)} merged labels)"
          + (f" ({len(result.rejects)} skipped)" if result.rejects else ""))
    return 0


def cmd_view(args: argparse.Namespace, settings: Settings) -> int:
    """Write one view as a standalone HTML file (vis-network inlined: works offline)."""
    from paperkg.views import draw as views
    from paperkg.views.page import render_page

    chosen = [x for x in (args.node, args.connect, args.sparql) if x]
    if len(chosen) != 1:
        raise UsageError("give exactly one of NODE, --connect A B or --sparql QUERY")
    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1 (got {args.limit})")
    kg = open_kg(settings.kg)
    reader = kg.reader()
    if args.connect:
        view = views.connect_view(reader.connection(*args.connect))
    elif args.sparql:
        view = views.sparql_view(kg.sparql(_read_query(args.sparql)))
    else:
        found = reader.neighbours(args.node, args.depth, args.limit)
        start, sub = found.center, found.graph()
        view = views.neighbourhood_view(sub, start, args.depth, args.limit)
    views.fill_labels(view.graph, reader.labels)
    html = render_page(view, pages=args.link_base)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(html, encoding="utf-8")
    g = view.graph
    print(f"wrote {args.output}: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges "
          f"({view.subtitle}); {len(html.encode()):,} bytes, self-contained")
    return 0
