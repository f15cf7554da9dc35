"""SPARQL through `paperkg serve` against Oxigraph's own server, side by side, one run.

    python bench/bench_sparql_overhead.py --kg KG_DIR [--runs 30]

Both servers open the same store directory read-only (`oxigraph serve-read-only
--location KG_DIR/store`) and answer the README's example queries, sent one at a time
(JSON results, keep-alive); reported per query: the median and p90 latency of each, and
the ratio. The client is httpx in this process, so both pay the same client cost.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

PREFIXES = """PREFIX pkg: <https://w3id.org/paperkg/ontology#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
PREFIX concept: <https://w3id.org/paperkg/concept/>
"""
QUERIES = {
    "top concepts": """SELECT ?label ?n WHERE { ?c a skos:Concept ; skos:prefLabel ?label ;
        pkg:paperCount ?n } ORDER BY DESC(?n) LIMIT 10""",
    "why extracted": """SELECT ?p ?rank ?surface ?score WHERE { ?p pkg:hasMention ?m .
        ?m pkg:rank ?rank ; pkg:surfaceForm ?surface ; pkg:score ?score .
        FILTER(?rank = 1) } LIMIT 100""",
    "merges": """SELECT ?label ?rule ?why WHERE { ?c skos:prefLabel "large language models" ;
        pkg:merge ?m . ?m pkg:label ?label ; pkg:rule ?rule ; rdfs:comment ?why . }
        ORDER BY ?rule ?label""",
    "proposes": """SELECT ?paper ?name WHERE { ?p pkg:proposes ?c . ?p rdfs:label ?paper .
        ?c skos:prefLabel ?name . } ORDER BY ?paper ?name LIMIT 200""",
    "broader": """SELECT ?narrower ?broader WHERE { ?n skos:broader ?b .
        ?n skos:prefLabel ?narrower . ?b skos:prefLabel ?broader . }
        ORDER BY ?broader ?narrower LIMIT 20""",
    "authors of a concept": """SELECT ?name (COUNT(?p) AS ?papers) WHERE {
        ?p pkg:mentions concept:diffusion-model ; dcterms:creator ?a . ?a foaf:name ?name .
        } GROUP BY ?name ORDER BY DESC(?papers) ?name LIMIT 10""",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(1200):
        if proc.poll() is not None:
            sys.exit(f"server exited with {proc.returncode}")
        try:
            httpx.get(url, params={"query": "ASK {}"}, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    sys.exit(f"{url} did not start")


def _time(client: httpx.Client, url: str, query: str, runs: int) -> list[float]:
    out = []
    for i in range(runs + 2):
        t = time.perf_counter()
        r = client.post(url, data={"query": PREFIXES + query},
                        headers={"Accept": "application/sparql-results+json"})
        r.raise_for_status()
        if i >= 2:  # two warm-up runs
            out.append(1000 * (time.perf_counter() - t))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kg", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--queries", default=",".join(QUERIES),
                    help="comma-separated names of the queries to run (default: all)")
    args = ap.parse_args()
    ox_port, pk_port = _free_port(), _free_port()
    ox = subprocess.Popen([shutil.which("oxigraph") or "oxigraph", "serve-read-only",
                           "--location", str(args.kg / "store"), "--bind",
                           f"127.0.0.1:{ox_port}"], stderr=subprocess.DEVNULL)
    pk = subprocess.Popen(["paperkg", "serve", "--kg", str(args.kg), "--port", str(pk_port),
                           "--http-workers", "1", "--query-workers", "1"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    servers = {"oxigraph": f"http://127.0.0.1:{ox_port}/query",
               "paperkg": f"http://127.0.0.1:{pk_port}/sparql"}
    try:
        _wait(servers["oxigraph"], ox)
        _wait(servers["paperkg"], pk)
        print(f"{'query':22s} {'oxigraph p50':>13s} {'paperkg p50':>12s} {'ratio':>6s}"
              f" {'oxigraph p90':>13s} {'paperkg p90':>12s}")
        ratios = []
        with httpx.Client(timeout=60) as client:
            for name in args.queries.split(","):
                query = QUERIES[name]
                t = {s: _time(client, url, query, args.runs) for s, url in servers.items()}
                p50 = {s: statistics.median(v) for s, v in t.items()}
                p90 = {s: statistics.quantiles(v, n=10)[-1] for s, v in t.items()}
                ratios.append(p50["paperkg"] / p50["oxigraph"])
                print(f"{name:22s} {p50['oxigraph']:11.2f}ms {p50['paperkg']:10.2f}ms "
                      f"{ratios[-1]:5.2f}x {p90['oxigraph']:11.2f}ms {p90['paperkg']:10.2f}ms")
        print(f"median ratio {statistics.median(ratios):.2f}x, worst {max(ratios):.2f}x")
    finally:
        for proc in (ox, pk):
            proc.terminate()
            proc.wait(20)


if __name__ == "__main__":
    main()
