"""The same KG on the embedded store and on SPARQL servers: load time and query p50 (#11).

    python3 bench/bench_stores.py INPUT... --store URL [--store URL ...] [--repeat 5]
    python3 bench/bench_stores.py --load-from KG_DIR --store URL [--store URL ...]
        [--method gsp --method update] [--gsp-chunk 50000 ...] [--limit N]

Builds INPUT into the embedded store and into each server (`--store`; start them first,
e.g. `oxigraph serve --location DIR --bind 127.0.0.1:7878`, Virtuoso with
PAPERKG_STORE_USER/PAPERKG_STORE_PASSWORD set), then runs the README's example queries
(`paperkg query --kg kg '…'`) `--repeat` times on each and prints, per store, the build's
build time (the caches make the rest equal, so the difference is the store writing)
and the median time of each query. Every store must give the same rows.

With --load-from, nothing is built: the triples of an existing KG (its embedded store, or
the lines it loaded onto a server) are loaded into a fresh graph of each server through
each --method (the Graph Store Protocol, `gsp`, with each --gsp-chunk; SPARQL Update,
`update`, in paperkg's chunks), side by side, each load timed, its triples counted on the
server, and its graph dropped after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from paperkg.build.pipeline import build_kg
from paperkg.progress import Reporter
from paperkg.read.kg import open_kg
from paperkg.settings import Settings

README = Path(__file__).resolve().parents[1] / "README.md"
_EXAMPLE = re.compile(r"^paperkg query --kg kg '([^']*)'\n```", re.MULTILINE)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="*", type=Path)
    ap.add_argument("--store", action="append", default=[], metavar="URL")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--embedder", default="static")
    ap.add_argument("--load-from", type=Path, metavar="KG_DIR",
                    help="time loading this KG's triples instead of building INPUT")
    ap.add_argument("--method", action="append", choices=("gsp", "update"), default=[])
    ap.add_argument("--gsp-chunk", action="append", type=int, default=[])
    ap.add_argument("--limit", type=int, default=0, help="only the first N triples")
    args = ap.parse_args()
    if args.load_from:
        return load_bench(args)
    if not args.inputs:
        ap.error("give INPUT files to build, or --load-from KG_DIR")
    queries = _EXAMPLE.findall(README.read_text(encoding="utf-8"))
    out: dict[str, dict[str, object]] = {}
    answers: dict[str, list[object]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-stores-") as tmp:
        for url in ["", *args.store]:
            name = url or "embedded"
            rep = Reporter(stream=open(os.devnull, "w"), quiet=True)  # noqa: SIM115
            kg_dir = Path(tmp) / f"kg{len(out)}"
            build_kg(args.inputs, kg_dir, Settings(embedder=args.embedder, store=url),
                     reporter=rep)
            began = time.perf_counter()
            kg = open_kg(kg_dir)
            times: list[float] = []
            rows: list[object] = []
            for q in queries:
                samples = []
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    res = kg.sparql(q)
                    samples.append(time.perf_counter() - t)
                times.append(round(statistics.median(samples) * 1000, 1))
                rows.append(sorted(map(str, res.rows)))
            manifest = kg.manifest
            out[name] = {"build_seconds": manifest["build_seconds"],
                         "triples": manifest["counts"]["triples"],
                         "query_p50_ms": times,
                         "queries_seconds": round(time.perf_counter() - began, 1)}
            answers[name] = rows
    first = next(iter(answers.values()))
    for name, rows in answers.items():
        out[name]["same_rows_as_embedded"] = rows == first
    print(json.dumps(out, indent=2))
    return 0


def kg_lines(kg_dir: Path) -> Iterator[str]:
    """The N-Triples lines paperkg would load for this KG (no blank nodes)."""
    import gzip

    import pyoxigraph as ox

    from paperkg.kgdir import REMOTE_TRIPLES, STORE

    if (kg_dir / REMOTE_TRIPLES).is_file():  # a KG kept on a server: the lines it loaded
        with gzip.open(kg_dir / REMOTE_TRIPLES, "rt", encoding="utf-8") as fh:
            yield from (line.rstrip("\n") for line in fh)
        return
    store = ox.Store.read_only(str(kg_dir / STORE))
    for q in store.quads_for_pattern(None, None, None, ox.DefaultGraph()):
        if not (isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode)):
            yield f"{q.subject} {q.predicate} {q.object} ."


def load_bench(args: argparse.Namespace) -> int:
    """Load one KG's lines onto each server through each method: seconds, triples/s."""
    from itertools import islice

    from paperkg.remote import RemoteStore, graph_for
    from paperkg.remote_write import GSP_CHUNK

    lines = list(islice(kg_lines(args.load_from), args.limit or None))
    runs = [("gsp", c) for c in (args.gsp_chunk or [GSP_CHUNK])] \
        if "gsp" in (args.method or ["gsp"]) else []
    runs += [("update", 0)] if "update" in (args.method or ["update"]) else []
    out: dict[str, dict[str, object]] = {}
    for url in args.store:
        for method, chunk in runs:
            env = {**os.environ, "PAPERKG_STORE_LOAD": method}
            name = f"{method} {chunk:,}" if chunk else method
            graph = graph_for(f"bench-{method}")
            with RemoteStore(url, graph, env=env) as store:
                began = time.perf_counter()
                sent = store.load(lines, graph, gsp_chunk=chunk or GSP_CHUNK)
                seconds = time.perf_counter() - began
                count = store.triple_count()
                store.drop_graph(graph)
            out.setdefault(url, {})[name] = {
                "seconds": round(seconds, 1), "triples_per_s": round(sent / seconds),
                "triples": count, "all_there": count == len(lines)}
            print(f"{url}  {name:>14}: {seconds:7.1f} s  {sent / seconds:9,.0f} triples/s  "
                  f"({count:,} on the server)", flush=True)
    print(json.dumps({"triples": len(lines), "loads": out}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
