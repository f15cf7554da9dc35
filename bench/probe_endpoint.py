"""Issue 10's probes against a running `paperkg serve`: one line per probe, what it saw.

    python bench/probe_endpoint.py --url http://127.0.0.1:8000 [--pid SERVER_PID]

Run it against the server before and after a change to get the probe → before → after
table. The server should run with `--row-cap 1000 --deadline 3 --query-workers 2`.
`--pid` (the HTTP process) adds how much its peak memory grew while a 64 MiB body was sent.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def peak_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def show(resp: httpx.Response) -> str:
    ctype = resp.headers.get("content-type", "-").split(";")[0]
    return f"{resp.status_code} {ctype}"


def probes(c: httpx.Client, pid: int | None) -> Iterator[tuple[str, Callable[[], str]]]:
    def q(query: str, **params: str) -> httpx.Response:
        return c.get("/sparql", params={"query": query, **params})

    yield "ASK FROM <http://example.org/none> {?s ?p ?o}", lambda: (
        lambda r: f"{r.status_code} {r.text.strip()[:40]}")(q(
            "ASK FROM <http://example.org/none> { ?s ?p ?o }", format="json"))
    def capped() -> str:
        r = q("SELECT * { ?s ?p ?o }", format="json")
        rows = len(r.json().get("results", {}).get("bindings", []))
        return (f"{r.status_code}, {rows} rows, X-Result-Truncated: "
                f"{r.headers.get('x-result-truncated', '-')}")

    yield "SELECT * {?s ?p ?o} under --row-cap 1000", capped
    yield "query=ASK{}&query=SELECT", lambda: show(c.get(
        "/sparql", params={"query": ["ASK {}", "SELECT * {}"]}))
    yield "format=bogus", lambda: show(q("ASK {}", format="bogus"))
    yield "CONSTRUCT, Accept: application/rdf+xml", lambda: show(c.get(
        "/sparql", params={"query": "CONSTRUCT WHERE { ?s ?p ?o } LIMIT 2"},
        headers={"Accept": "application/rdf+xml"}))
    yield "CONSTRUCT { <s> <p> 1 } WHERE {}", lambda: show(q("CONSTRUCT { <s> <p> 1 } WHERE {}"))
    yield "GET /sparql, Accept: text/turtle", lambda: show(c.get(
        "/sparql", headers={"Accept": "text/turtle"}))
    yield "HEAD /", lambda: str(c.head("/").status_code)
    yield "OPTIONS /sparql: Allow", lambda: (
        lambda r: f"{r.status_code} Allow: {r.headers.get('allow', '-')}")(c.options("/sparql"))
    yield "/.well-known/void, Accept: text/html", lambda: show(c.get(
        "/.well-known/void", headers={"Accept": "text/html"}))

    def ssrf() -> str:
        lst = socket.socket()
        lst.bind(("127.0.0.1", 0))
        lst.listen()
        lst.settimeout(3)
        port = lst.getsockname()[1]
        got: list[bytes] = []

        def accept() -> None:
            try:
                conn, _ = lst.accept()
                got.append(conn.recv(200))
            except OSError:
                pass

        t = threading.Thread(target=accept)
        t.start()
        r = q(f"SELECT * WHERE {{ ?s ?p ?o .SERVICE SILENT <http://127.0.0.1:{port}/x> "
              "{?a ?b ?c} } LIMIT 1")
        t.join()
        lst.close()
        return f"{r.status_code}; listener got: {got[0][:30]!r}" if got else \
            f"{r.status_code}; listener got nothing"

    yield "SERVICE after '.', to a listener", ssrf
    yield "GET / security headers", lambda: (lambda r: "CSP" if "content-security-policy"
                                             in r.headers else "no CSP")(c.get("/")) + \
        (lambda r: f", nosniff={r.headers.get('x-content-type-options', '-')}")(c.get("/"))

    def body() -> str:
        before = peak_mb(pid) if pid else float("nan")

        def chunks() -> Iterator[bytes]:
            for _ in range(64):
                yield b"query=" + b"x" * (1 << 20)
        try:
            r = c.post("/sparql", content=chunks(),
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
            status = str(r.status_code)
        except httpx.TransportError as err:
            status = f"connection closed ({type(err).__name__})"
        grew = (peak_mb(pid) - before) if pid else float("nan")
        return f"{status}; HTTP process peak RSS +{grew:.0f} MB"

    yield "POST 64 MiB form body (streamed)", body
    yield "5,000 nested {", lambda: show(q("SELECT * WHERE " + "{" * 5000 + "}" * 5000))
    yield "/api/search offset=50060038462049280000", lambda: show(c.get(
        "/api/search", params={"q": "a", "offset": "50060038462049280000"}))

    def busy() -> str:
        def run() -> None:
            with httpx.Client(base_url=str(c.base_url), timeout=60) as other:
                other.get("/sparql", params={"query": SLOW})
        threads = [threading.Thread(target=run) for _ in range(8)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        began = time.perf_counter()
        r = q("ASK { ?s ?p ?o }")
        took = time.perf_counter() - began
        for t in threads:
            t.join()
        return f"{r.status_code} after {took:.2f} s, Retry-After: " \
               f"{r.headers.get('retry-after', '-')}"

    yield "ASK while 8 slow queries run", busy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", required=True)
    ap.add_argument("--pid", type=int)
    args = ap.parse_args()
    with httpx.Client(base_url=args.url, timeout=60) as c:
        for name, probe in probes(c, args.pid):
            try:
                result = probe()
            except httpx.HTTPError as err:
                result = f"error: {type(err).__name__}: {err}"
            print(f"{name}\t{result}", flush=True)


if __name__ == "__main__":
    main()
