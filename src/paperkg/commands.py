"""What each CLI command does: call the library, print something a person can read."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from paperkg.build.pipeline import build_kg
from paperkg.errors import UsageError
from paperkg.progress import Reporter
from paperkg.read.kg import open_kg
from paperkg.settings import Settings

__all__ = ["format_table"]

DEMO_QUERY = """\
# papers sharing concepts with the paper that proposes DPC, and what they share
SELECT ?other ?label (COUNT(?c) AS ?shared) (GROUP_CONCAT(?cl; separator=", ") AS ?concepts)
WHERE {
  ?p rdfs:label "DPC" ; pkg:mentions ?c .
  ?other pkg:mentions ?c ; rdfs:label ?label . ?c skos:prefLabel ?cl .
  FILTER(?other != ?p)
} GROUP BY ?other ?label ORDER BY DESC(?shared) ?other LIMIT 5"""


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


def cmd_build(args: argparse.Namespace, settings: Settings) -> int:
    manifest = build_kg(args.inputs, args.out, settings, skip_invalid=args.skip_invalid)
    print(f"built {args.out}: {_summary(manifest)}")
    if manifest["counts"]["rejected"]:
        print(f"{manifest['counts']['rejected']} record(s) rejected, with reasons, in "
              f"{args.out / 'rejects.jsonl'}")
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from paperkg.read.questions import run_sparql, top_concepts

    inputs = sorted(args.data.glob("*.txt"))
    if not inputs:
        raise UsageError(f"{args.data}: no seed .txt files here (run from the repo root "
                                f"or pass --data)")
    manifest = build_kg(inputs, args.out, settings)
    kg = open_kg(args.out)
    print(f"\nbuilt {args.out}: {_summary(manifest)}\n")
    print("Top concepts (papers mentioning each):")
    print(format_table(["concept", "papers"], [(lab, n) for _, lab, n in top_concepts(kg, 12)]))
    print(f"\nExample query (paperkg query --kg {args.out} '...'):\n{DEMO_QUERY}\n")
    res = run_sparql(kg, DEMO_QUERY)
    print(res.to_table())
    ids = run_sparql(kg, 'SELECT ?id WHERE { ?p rdfs:label "DPC" ; dcterms:identifier ?id }')
    first = ids.rows[0][0] if ids.rows else None
    example = first.value if first is not None else "<paper-id>"
    print(f"\nNext: paperkg related {example} --kg {args.out}\n      paperkg concepts {example} "
          f"--kg {args.out}\n      paperkg neighbours {example} --depth 2 --kg {args.out}")
    return 0


def _read_query(text: str) -> str:
    if text == "-":
        return sys.stdin.read()
    if text.startswith("@"):
        return Path(text[1:]).read_text(encoding="utf-8")
    return text


def cmd_query(args: argparse.Namespace, settings: Settings) -> int:
    from paperkg.read.questions import run_sparql

    res = run_sparql(open_kg(settings.kg), _read_query(args.sparql))
    out = {"table": res.to_table, "json": res.to_json, "csv": res.to_csv, "tsv": res.to_tsv}
    sys.stdout.write(out[args.format]().rstrip("\n") + "\n")
    return 0


def cmd_related(args: argparse.Namespace, settings: Settings) -> int:
    from paperkg.read.questions import related

    rows = related(open_kg(settings.kg), args.paper_id, args.limit)
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
    from paperkg.read.questions import concepts_of

    links = concepts_of(open_kg(settings.kg), args.paper_id)
    if args.format == "json":
        _json([{"rank": c.rank, "concept": c.concept_id, "label": c.label, "score": c.score,
                "type": c.kind, "role": c.role} for c in links])
        return 0
    print(format_table(["rank", "concept", "type", "role", "score", "id"],
                       [(c.rank, c.label, c.kind, c.role, f"{c.score:.3f}", c.concept_id)
                        for c in links]))
    return 0


def cmd_neighbours(args: argparse.Namespace, settings: Settings) -> int:
    from paperkg.read.questions import neighbours

    sub = neighbours(open_kg(settings.kg), args.node, args.depth, args.limit)
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
    """Extract, then canonicalise within the input: each concept with its label and kind."""
    from paperkg.build.canon import build_scheme
    from paperkg.build.embed import make_embedder
    from paperkg.build.extract import ExtractSettings, extract_concepts
    from paperkg.build.ingest import read_papers
    from paperkg.build.pipeline import keyword_prior
    from paperkg.errors import IngestError

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
    ext = ExtractSettings(top_n=settings.top_n, diversity=settings.diversity)
    ranked = extract_concepts(result.papers, embedder, ext, rep.stage, prior)
    scheme = build_scheme(ranked, result.papers)
    rep.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for paper in result.papers:
            concepts = []
            for m in scheme.mentions.get(paper.id, []):
                c = scheme.concepts[m.concept_id]
                concepts.append({"label": c.pref_label, "type": c.kind, "concept": c.id,
                                 "surface": m.surface, "score": m.score, "role": m.role})
            fh.write(json.dumps({"id": paper.id, "concepts": concepts}, ensure_ascii=False)
                     + "\n")
    print(f"wrote {len(result.papers)} records to {args.out} ({len(scheme.concepts)} concepts, "
          f"{len(scheme.merges)} merged labels)"
          + (f" ({len(result.rejects)} skipped)" if result.rejects else ""))
    return 0


def cmd_view(args: argparse.Namespace, settings: Settings) -> int:
    """Write one view as a standalone HTML file (vis-network inlined: works offline)."""
    from paperkg.read.questions import neighbours, resolve_node, run_sparql
    from paperkg.views import draw as views
    from paperkg.views.page import render_page, store_lookup

    chosen = [x for x in (args.node, args.connect, args.sparql) if x]
    if len(chosen) != 1:
        raise UsageError("give exactly one of NODE, --connect A B or --sparql QUERY")
    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1 (got {args.limit})")
    kg = open_kg(settings.kg)
    if args.connect:
        a, b = (resolve_node(kg, x) for x in args.connect)
        view = views.connect_view(kg.graph, a, b)
    elif args.sparql:
        view = views.sparql_view(run_sparql(kg, _read_query(args.sparql)))
    else:
        start = resolve_node(kg, args.node)
        sub = neighbours(kg, start, args.depth, args.limit)
        view = views.neighbourhood_view(sub, start, args.depth, args.limit)
    views.fill_labels(view.graph, store_lookup(kg.store))
    html = render_page(view, pages=args.link_base)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(html, encoding="utf-8")
    g = view.graph
    print(f"wrote {args.output}: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges "
          f"({view.subtitle}); {len(html.encode()):,} bytes, self-contained")
    return 0
