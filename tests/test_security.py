"""Hostile input against the real server (`paperkg serve` in a subprocess, real sockets):
SSRF through SERVICE, XSS through a record's url, security headers, oversized bodies, a
query past the memory ceiling, absurd nesting, huge numbers, a full queue, bad ports, and
a rebuild under a running server. Each test is one probe of issue 10; each must fail on
the server as it was."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .endpoint import Server, copy_kg, running, swap_in_a_rebuild
from .serving import error

CROSS_JOIN = "SELECT ?a ?c ?d ?f { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f LIMIT 1"
SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@pytest.fixture(scope="module")
def server(demo_kg: Path) -> Iterator[Server]:
    with running(demo_kg, "--deadline", "8", "--query-workers", "2",
                 "--query-memory-mb", "300") as s:
        yield s


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


# ------------------------------------------------------------------ SSRF (item 9)


class Listener:
    """A real TCP listener that records every connection made to it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self.stop = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(1)
                try:
                    self.received.append(conn.recv(4096) or b"(connected)")
                except OSError:
                    self.received.append(b"(connected)")

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    lst = Listener()
    yield lst
    lst.close()


def _service_queries(port: int) -> list[str]:
    target = f"<http://127.0.0.1:{port}/x>"
    return [
        f"SELECT * WHERE {{ ?s ?p ?o .SERVICE SILENT {target} {{?a ?b ?c}} }} LIMIT 1",
        f"select * where {{ service {target} {{ ?a ?b ?c }} }}",
        f"SELECT * WHERE {{ SeRvIcE SILENT {target} {{ ?a ?b ?c }} }}",
        f"SELECT * WHERE {{ \\u0053ERVICE SILENT {target} {{ ?a ?b ?c }} }}",
        f"SELECT * WHERE {{ ?s ?p ?o #comment\n SERVICE SILENT {target} {{ ?a ?b ?c }} }}",
        f"SELECT * WHERE {{ {{ {{ OPTIONAL {{ SERVICE SILENT {target} {{ ?a ?b ?c }} }} }} }} }}",
        f"SELECT * WHERE {{ {{ SELECT * WHERE {{ SERVICE SILENT {target} {{ ?a ?b ?c }} }} }} }}",
        f"ASK {{ FILTER EXISTS {{ SERVICE SILENT {target} {{ ?a ?b ?c }} }} }}",
        f"SELECT * WHERE {{ VALUES ?x {{ {target} }} SERVICE SILENT ?x {{ ?a ?b ?c }} }}",
        f"CONSTRUCT {{ ?a ?b ?c }} WHERE {{ SERVICE SILENT {target} {{ ?a ?b ?c }} }}",
    ]


def test_service_never_reaches_another_host(client: httpx.Client, listener: Listener) -> None:
    for query in _service_queries(listener.port):
        for resp in (client.get("/sparql", params={"query": query}),
                     client.post("/sparql", data={"query": query}),
                     client.post("/sparql", content=query.encode(),
                                 headers={"Content-Type": "application/sparql-query"})):
            assert 400 <= resp.status_code < 500, (query, resp.status_code, resp.text)
    time.sleep(0.5)
    assert listener.received == []


def test_query_workers_have_no_network_even_if_the_screen_missed(listener: Listener) -> None:
    """The engine-level guard on its own: a sandboxed worker process running SERVICE
    straight through pyoxigraph (no screen) reaches nothing."""
    code = f"""
import socket
from paperkg_server.worker import _sandbox
import pyoxigraph as ox
print("warning:", _sandbox(0) or "none")
try:
    socket.create_connection(("127.0.0.1", {listener.port}), timeout=2)
    print("connected")
except PermissionError:
    print("socket refused")
target = "<http://127.0.0.1:{listener.port}/x>"
rows = list(ox.Store().query("SELECT * {{ SERVICE SILENT " + target + " {{ ?a ?b ?c }} }}"))
print("service rows", len(rows))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "warning: none" in out.stdout and "socket refused" in out.stdout
    time.sleep(0.5)
    assert listener.received == []


# ------------------------------------------------------------------ XSS, headers (item 10)


@pytest.fixture(scope="module")
def xss_server(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Iterator[Server]:
    from paperkg.build.pipeline import build_kg
    from paperkg.progress import Reporter
    from paperkg.settings import Settings

    root = tmp_path_factory.mktemp("xss-url")
    src = root / "urls.jsonl"
    rows = [
        {"id": "evil", "url": "javascript:alert(document.domain)",
         "abstract": "We study graph neural networks for molecule property prediction "
                     "and show that message passing with attention improves accuracy."},
        {"id": "good", "url": "https://openreview.net/forum?id=good",
         "abstract": "Graph neural networks with attention are applied to protein "
                     "structure prediction, improving message passing efficiency."},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    build_kg([src], root / "kg", Settings(cache_dir=cache_dir, embedder="static"),
             reporter=Reporter(quiet=True))
    with running(root / "kg", "--deadline", "5") as s:
        yield s


def test_only_http_links_are_clickable(xss_server: Server) -> None:
    with httpx.Client(base_url=xss_server.url, timeout=30) as c:
        evil = c.get("/papers/evil").text
        assert "javascript:" in evil  # shown as text …
        assert 'href="javascript:' not in evil.lower()  # … never as a link
        good = c.get("/papers/good").text
        assert 'href="https://openreview.net/forum?id=good"' in good


def test_every_page_has_security_headers(client: httpx.Client) -> None:
    paper = client.get("/api/search", params={"q": "prompt"}).json()["hits"][0]
    pages = ["/", "/search?q=prompt", paper["page"], "/sparql", "/docs", "/redoc",
             "/sparql?format=html&query=ASK%7B%7D", "/.well-known/void?format=html"]
    for path in pages:
        resp = client.get(path, headers={"Accept": "text/html"})
        assert resp.status_code == 200, path
        assert resp.headers["content-type"].startswith("text/html"), path
        assert "frame-ancestors 'none'" in resp.headers["content-security-policy"], path
        assert "default-src 'none'" in resp.headers["content-security-policy"], path
        assert resp.headers["x-frame-options"] == "DENY", path
        assert resp.headers["x-content-type-options"] == "nosniff", path
    # a JSON error echoing the client's text must not be sniffed as HTML
    echo = client.get("/api/papers/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert echo.status_code == 404 and echo.headers["x-content-type-options"] == "nosniff"
    bad = client.get("/sparql", params={"query": "<script>alert(1)</script>"})
    assert bad.status_code == 400 and bad.headers["x-content-type-options"] == "nosniff"
    # the docs run offline: their scripts come from this server, not a CDN
    docs = client.get("/docs").text
    assert "cdn" not in docs.lower() and 'src="/static-offline-docs/swagger-ui-bundle.js"' in docs
    assert client.get("/static-offline-docs/swagger-ui-bundle.js").status_code == 200


# ------------------------------------------------------------------ memory (item 11)


def test_oversized_body_is_refused_while_streaming(server: Server) -> None:
    before = server.rss_mb()

    def body() -> Iterator[bytes]:  # 64 MiB, no Content-Length: only streaming can stop it
        chunk = b"query=" + b"x" * (1 << 20)
        for _ in range(64):
            yield chunk

    with httpx.Client(base_url=server.url, timeout=60) as c:
        try:
            resp = c.post("/sparql", content=body(),
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
            error(resp, 413)
        except httpx.TransportError:
            pass  # the server answered 413 and closed while we were still sending
    # a declared 400 MB body is refused before one byte of it is read
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/"
                    b"sparql-query\r\nContent-Length: " + str(400 << 20).encode() +
                    b"\r\n\r\nASK {}")
        head = raw.recv(4096).decode()
    assert head.startswith("HTTP/1.1 413"), head
    assert server.rss_mb() - before < 30  # it never held the body
    assert httpx.get(server.url + "/healthz").status_code == 200


def test_a_query_over_the_memory_ceiling_ends_alone(server: Server,
                                                    client: httpx.Client) -> None:
    outcome: dict[str, httpx.Response] = {}

    def greedy() -> None:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            outcome["resp"] = c.get("/sparql", params={"query": CROSS_JOIN})

    thread = threading.Thread(target=greedy)
    thread.start()
    time.sleep(0.3)
    assert client.get("/sparql", params={"query": "ASK { ?s ?p ?o }"}).json()["boolean"]
    thread.join(60)
    err = error(outcome["resp"], 507, "memory_exceeded")
    assert err["ceiling_mb"] == 300
    assert client.get("/sparql", params={"query": COUNT}).status_code == 200  # recovered


# ------------------------------------------------------------------ 500s (item 12)


def test_absurd_nesting_and_numbers_are_400_not_500(client: httpx.Client) -> None:
    killed = client.get("/healthz").json()["queries_killed"]
    for query in ("SELECT * WHERE " + "{" * 5000 + "}" * 5000,
                  "SELECT * WHERE { FILTER(" + "(" * 10000 + "1" + ")" * 10000 + ") }",
                  "ASK { " + "[ <p> " * 3000 + "]" * 3000 + " }"):
        began = time.perf_counter()
        err = error(client.get("/sparql", params={"query": query}), 400, "malformed_query")
        assert "nested" in str(err["message"])
        assert time.perf_counter() - began < 2
    for path in ("/api/search?q=a&offset=50060038462049280000",
                 "/api/search?q=a&limit=99999999999999999999999",
                 "/api/concepts/x/papers?offset=50060038462049280000"):
        error(client.get(path), 400)
    assert client.get("/healthz").json()["queries_killed"] == killed  # no worker was lost


# ------------------------------------------------------------------ starvation (item 13)


def test_a_full_queue_answers_busy_at_once(demo_kg: Path) -> None:
    with running(demo_kg, "--deadline", "6", "--query-workers", "1",
                 "--query-queue", "1") as s:
        slow: list[httpx.Response] = []

        def run_slow() -> None:
            with httpx.Client(base_url=s.url, timeout=60) as c:
                slow.append(c.get("/sparql", params={"query": SLOW}))

        threads = [threading.Thread(target=run_slow) for _ in range(4)]
        for t in threads:
            t.start()
            time.sleep(0.2)
        began = time.perf_counter()
        busy = httpx.get(s.url + "/sparql", params={"query": "ASK { ?s ?p ?o }"}, timeout=30)
        waited = time.perf_counter() - began
        for t in threads:
            t.join(60)
        err = error(busy, 503, "busy")
        assert waited < 1.0 and 1 <= int(busy.headers["retry-after"]) <= 6, err
        statuses = sorted(r.status_code for r in slow)
        assert statuses == [503, 503, 503, 503]  # two refused busy, two past the deadline
        assert httpx.get(s.url + "/sparql", params={"query": "ASK { ?s ?p ?o }"},
                         timeout=30).json()["boolean"]


# ------------------------------------------------------------------ ports (item 18)


@pytest.mark.parametrize("port", ["99999", "0", "-1"])
def test_an_impossible_port_is_one_line_before_serving(demo_kg: Path, port: str) -> None:
    out = subprocess.run([sys.executable, "-m", "paperkg.cli", "serve", "--kg", str(demo_kg),
                          "--port", port], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "serving" not in out.stdout and "Traceback" not in out.stderr
    assert f"--port {port}" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_port_in_use_is_one_line_before_serving(demo_kg: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "paperkg.cli", "serve", "--kg",
                              str(demo_kg), "--port", str(port)],
                             capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "serving" not in out.stdout and "Traceback" not in out.stderr
    assert f"127.0.0.1:{port}" in out.stderr and "in use" in out.stderr


# ------------------------------------------------------------------ one KG version (item 16)


def test_a_rebuild_under_a_running_server_does_not_mix_versions(
        demo_kg: Path, tmp_path: Path) -> None:
    kg = copy_kg(demo_kg, tmp_path / "kg")
    # --reload-interval 0: it serves the version it opened (tests/test_versions.py: it
    # switches to a new one as a whole)
    with running(kg, "--deadline", "1", "--query-workers", "1", "--reload-interval", "0") \
            as s, httpx.Client(base_url=s.url, timeout=30) as c:
        def triples() -> int:
            resp = c.get("/sparql", params={"query": COUNT, "format": "json"})
            return int(resp.json()["results"]["bindings"][0]["n"]["value"])

        before, papers = triples(), c.get("/healthz").json()["papers"]
        swap_in_a_rebuild(kg, extra=500)
        # a query past the deadline gets its worker killed and a new one started
        error(c.get("/sparql", params={"query": SLOW}), 503, "deadline_exceeded")
        time.sleep(3)
        for _ in range(6):
            assert triples() == before
            assert c.get("/healthz").json()["papers"] == papers
            assert c.get("/api/papers/hrebuilt").status_code == 404
    leftovers = [p.name for p in tmp_path.iterdir() if ".serving-" in p.name]
    assert leftovers == []  # the server's snapshot went with it
    with running(kg, "--deadline", "5") as s2:  # a restart serves the rebuild
        resp = httpx.get(s2.url + "/sparql", params={"query": COUNT, "format": "json"})
        assert int(resp.json()["results"]["bindings"][0]["n"]["value"]) == before + 500

