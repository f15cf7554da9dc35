"""Load benchmark of `paperkg serve`: requests/s and p50/p99 latency per endpoint.

Starts `paperkg serve --kg KG_DIR` on a free loopback port, then drives it with an async
client (asyncio keep-alive HTTP/1.1, N concurrent connections, each endpoint for a fixed
time) over 127.0.0.1:

    python bench/bench_server.py --kg kg-iclr2025 [--duration 20] [--concurrency 16]

Endpoints: related papers, neighbourhood depth 2, search, and a SPARQL "papers sharing
concepts with X" query; then the same again while one slow SPARQL query (a cross product)
is kept in flight, to show it does not hold the others up. Not a test: numbers go in the
issue's closing note. The client shares the machine's cores with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlencode, urlparse

import httpx

SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
SHARING = """SELECT ?other ?label (COUNT(?c) AS ?shared) WHERE {{
  paper:{id} pkg:mentions ?c . ?other pkg:mentions ?c ; rdfs:label ?label .
  FILTER(?other != paper:{id})
}} GROUP BY ?other ?label ORDER BY DESC(?shared) LIMIT 10"""


@dataclass
class Stats:
    endpoint: str
    requests: int
    errors: int
    seconds: float
    rps: float
    p50_ms: float
    p99_ms: float
    max_ms: float


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(kg: Path, port: int, extra: list[str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "paperkg.cli", "serve", "--kg", str(kg),
                             "--host", "127.0.0.1", "--port", str(port), *extra])
    url = f"http://127.0.0.1:{port}/healthz"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"paperkg serve exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("paperkg serve did not become healthy within 300 s")


def _pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


class _Connection:
    """A minimal keep-alive HTTP/1.1 GET client: httpx spends ~4x the server's CPU per
    request, which on a shared 2-core machine would measure the client, not the server."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def get(self, path: str, params: dict[str, object]) -> int:
        if self._writer is None or self._reader is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        target = path + ("?" + urlencode(params) if params else "")
        self._writer.write(f"GET {target} HTTP/1.1\r\nHost: {self.host}\r\n"
                           "Accept: */*\r\n\r\n".encode())
        status_line = await self._reader.readline()
        if not status_line:
            raise ConnectionError("server closed the connection")
        status = int(status_line.split()[1])
        length, close = 0, False
        while (line := await self._reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
            elif name.strip().lower() == b"connection" and b"close" in value.lower():
                close = True
        await self._reader.readexactly(length)
        if close:
            self.close()
        return status

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


async def _drive(base: str, name: str, make: Callable[[], tuple[str, dict[str, object]]],
                 duration: float, concurrency: int) -> Stats:
    url = urlparse(base)
    latencies: list[float] = []
    errors = 0
    end = time.perf_counter() + duration

    async def one_connection() -> None:
        nonlocal errors
        conn = _Connection(url.hostname or "127.0.0.1", url.port or 80)
        while time.perf_counter() < end:
            path, params = make()
            began = time.perf_counter()
            try:
                ok = await conn.get(path, params) == 200
            except (OSError, ValueError, asyncio.IncompleteReadError):
                ok = False
                conn.close()
            latencies.append((time.perf_counter() - began) * 1000)
            errors += not ok
        conn.close()

    began = time.perf_counter()
    await asyncio.gather(*(one_connection() for _ in range(concurrency)))
    took = time.perf_counter() - began
    latencies.sort()
    return Stats(name, len(latencies), errors, round(took, 1), round(len(latencies) / took, 1),
                 round(_pct(latencies, 0.50), 2), round(_pct(latencies, 0.99), 2),
                 round(latencies[-1] if latencies else 0.0, 2))


async def _samples(client: httpx.AsyncClient) -> tuple[list[str], list[str]]:
    """Paper ids and search words taken from the KG itself."""
    async def column(query: str) -> list[str]:
        resp = await client.get("/sparql", params={"query": query})
        resp.raise_for_status()
        return [next(iter(b.values()))["value"] for b in resp.json()["results"]["bindings"]]

    papers = await column("SELECT ?id WHERE { ?p a pkg:Paper ; dcterms:identifier ?id } "
                          "LIMIT 5000")
    labels = await column("SELECT ?l WHERE { ?c skos:prefLabel ?l ; pkg:paperCount ?n } "
                          "ORDER BY DESC(?n) LIMIT 400")
    words = [w for w in labels if len(w) > 3]
    rng = random.Random(7)
    rng.shuffle(papers)
    rng.shuffle(words)
    return papers, words


async def _slow_forever(client: httpx.AsyncClient, stop: asyncio.Event) -> int:
    """Keep one slow query in flight until `stop`; returns how many were sent."""
    sent = 0
    while not stop.is_set():
        sent += 1
        try:
            await client.get("/sparql", params={"query": SLOW})
        except httpx.HTTPError:
            await asyncio.sleep(0.1)
    return sent


_WRK_SCRIPT = """
paths = {%s}
i = 0
request = function()
  i = i %% #paths + 1
  return wrk.format("GET", paths[i])
end
"""
_WRK_UNIT = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _wrk(base: str, name: str, make: Callable[[], tuple[str, dict[str, object]]],
         duration: float, concurrency: int) -> Stats:
    """The same load from `wrk` (C, one thread): the client then costs the 2 cores little."""
    import re
    import tempfile

    targets = []
    for _ in range(3000):
        path, params = make()
        targets.append(path + ("?" + urlencode(params) if params else ""))
    lua = _WRK_SCRIPT % ", ".join(json.dumps(t) for t in targets)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(lua)
    out = subprocess.run(["wrk", "-t1", f"-c{concurrency}", f"-d{duration:g}s", "--latency",
                          "--timeout", "30s", "-s", fh.name, base],
                         capture_output=True, text=True, check=True).stdout

    def ms(label: str) -> float:
        m = re.search(rf"^\s*{re.escape(label)}\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        return round(float(m.group(1)) * _WRK_UNIT[m.group(2)], 2) if m else float("nan")

    total = re.search(r"(\d+) requests in ([\d.]+)(\w+)", out)
    requests = int(total.group(1)) if total else 0
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
                     out)
    errors = (int(bad.group(1)) if bad else 0) + (sum(map(int, sock.groups())) if sock else 0)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    mx = re.search(r"Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)", out)
    return Stats(name, requests, errors, duration, float(rps.group(1)) if rps else 0.0,
                 ms("50%"), ms("99%"),
                 round(float(mx.group(1)) * _WRK_UNIT[mx.group(2)], 2) if mx else float("nan"))


async def _bench(base: str, duration: float, concurrency: int, tool: str) -> list[Stats]:
    limits = httpx.Limits(max_connections=concurrency + 2, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        papers, words = await _samples(client)
        ids, terms = itertools.cycle(papers), itertools.cycle(words)
        endpoints: list[tuple[str, Callable[[], tuple[str, dict[str, object]]]]] = [
            ("related", lambda: (f"/api/papers/{next(ids)}/related", {"limit": 10})),
            ("neighbours depth 2", lambda: (f"/api/nodes/paper:{next(ids)}/neighbours",
                                            {"depth": 2, "limit": 50})),
            ("search", lambda: ("/api/search", {"q": next(terms), "limit": 20})),
            ("sparql sharing concepts", lambda: ("/sparql", {
                "query": SHARING.format(id=next(ids))})),
        ]
        async def drive(name: str, make: Callable[[], tuple[str, dict[str, object]]]) -> Stats:
            if tool == "wrk":
                return await asyncio.to_thread(_wrk, base, name, make, duration, concurrency)
            return await _drive(base, name, make, duration, concurrency)

        out = []
        for name, make in endpoints:
            out.append(await drive(name, make))
            _print(out[-1])
        stop = asyncio.Event()
        async with httpx.AsyncClient(base_url=base, timeout=120) as slow_client:
            slow = asyncio.create_task(_slow_forever(slow_client, stop))
            await asyncio.sleep(0.5)
            for name, make in endpoints:
                out.append(await drive(f"{name} + slow query", make))
                _print(out[-1])
            stop.set()
            slow.cancel()
        return out


def _print(s: Stats) -> None:
    print(f"{s.endpoint:34s} {s.requests:7d} req {s.rps:8.1f} req/s  p50 {s.p50_ms:7.2f} ms  "
          f"p99 {s.p99_ms:7.2f} ms  max {s.max_ms:8.1f} ms  errors {s.errors}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kg", type=Path, default=Path("kg"), help="KG directory to serve")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds per endpoint")
    ap.add_argument("--concurrency", type=int, default=16, help="concurrent connections")
    ap.add_argument("--deadline", type=float, default=10.0, help="server query deadline (s)")
    ap.add_argument("--out", type=Path, help="also write the numbers here as JSON")
    ap.add_argument("--http-workers", type=int, default=2, help="paperkg serve --http-workers")
    ap.add_argument("--client", choices=("python", "wrk"), default="python",
                    help="load generator: this script's asyncio client, or wrk (apt install "
                         "wrk), which costs the shared cores far less")
    args = ap.parse_args()
    port = _free_port()
    proc = _start(args.kg, port, ["--deadline", str(args.deadline),
                                  "--http-workers", str(args.http_workers)])
    try:
        print(f"paperkg serve --kg {args.kg} on 127.0.0.1:{port}; {args.concurrency} "
              f"connections, {args.duration:g} s per endpoint", flush=True)
        stats = asyncio.run(_bench(f"http://127.0.0.1:{port}", args.duration,
                                   args.concurrency, args.client))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    if args.out:
        args.out.write_text(json.dumps([asdict(s) for s in stats], indent=2) + "\n")


if __name__ == "__main__":
    main()
