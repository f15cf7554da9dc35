"""Shared by the server tests: `paperkg serve` in a subprocess, and the error-shape check."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx
import pytest

from paperkg.read.kg import open_kg

ROW_CAP = 100
COUNT_TRIPLES = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(kg: Path, *flags: str) -> Iterator[str]:
    """`paperkg serve` in a subprocess; yields its base URL once /healthz answers."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # its output goes to a file: a pipe nobody reads could fill and stall the server
    with tempfile.TemporaryFile() as log:
        # one HTTP process unless a test asks for more: /healthz counters are per process
        workers = () if "--http-workers" in flags else ("--http-workers", "1")
        proc = subprocess.Popen(
            [sys.executable, "-m", "paperkg.cli", "serve", "--kg", str(kg), "--port",
             str(port), *workers, *flags], stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_healthy(proc, url, log)
            yield url
        finally:
            stop(proc)


def stop(proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    """Stop a server started for a test: politely, then for sure."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _wait_healthy(proc: subprocess.Popen[bytes], url: str, log: IO[bytes]) -> None:
    end = time.monotonic() + 120
    while time.monotonic() < end:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"server exited: {log.read().decode(errors='replace')}")
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("server did not start within 120 s")


@pytest.fixture(scope="module")
def base(demo_kg: Path) -> Iterator[str]:
    yield from serve(demo_kg, "--deadline", "1", "--row-cap", str(ROW_CAP),
                      "--query-workers", "2", "--cors-origins", "https://example.org")


@pytest.fixture(scope="module")
def client(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=30) as c:
        yield c


@pytest.fixture(scope="module")
def dpc(demo_kg: Path) -> str:
    res = open_kg(demo_kg).store.query(
        'SELECT ?id WHERE { ?p <http://www.w3.org/2000/01/rdf-schema#label> "DPC" ; '
        "<http://purl.org/dc/terms/identifier> ?id }")
    return str(res.rows[0][0].value)


def error(resp: httpx.Response, status: int, code: str | None = None) -> dict[str, object]:
    """Every error has one shape: {"error": {"status", "code", "message", ...}}."""
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/json")
    err = resp.json()["error"]
    assert err["status"] == status and err["message"]
    if code:
        assert err["code"] == code
    return dict(err)


def sparql(client: httpx.Client, query: str, **params: str) -> httpx.Response:
    return client.get("/sparql", params={"query": query, **params})


def count(client: httpx.Client) -> int:
    resp = sparql(client, COUNT_TRIPLES, format="json")
    return int(resp.json()["results"]["bindings"][0]["n"]["value"])
