"""Real SPARQL servers for tests, each started on 127.0.0.1 with its own database: an
Oxigraph server, and Virtuoso Open Source where `virtuoso-t` is installed (CI sets
PAPERKG_REQUIRE_VIRTUOSO=1, so there its absence fails instead of skipping)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .serving import free_port, stop

__all__ = ["VIRTUOSO_ROW_CAP", "free_port", "oxigraph_url", "stop", "virtuoso_env",
           "virtuoso_url", "wait_for"]

VIRTUOSO_INI = Path("/etc/virtuoso-opensource-7/virtuoso.ini")
VIRTUOSO_ROW_CAP = 1000


def wait_for(url: str, seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, params={"query": "ASK {}"}, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{url} did not come up in {seconds} s")


@pytest.fixture(scope="module")
def oxigraph_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("oxigraph")
    if binary is None:
        pytest.fail("the oxigraph server is missing: pip install oxigraph")
    port = free_port()
    proc = subprocess.Popen([binary, "serve", "--location",
                             str(tmp_path_factory.mktemp("oxigraph")),
                             "--bind", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/query"
    try:
        wait_for(url)
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def virtuoso_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("virtuoso-t")
    if binary is None or not VIRTUOSO_INI.is_file():
        if os.environ.get("PAPERKG_REQUIRE_VIRTUOSO") == "1":
            pytest.fail("Virtuoso is required here (PAPERKG_REQUIRE_VIRTUOSO=1) but "
                        "virtuoso-t is not installed")
        pytest.skip("Virtuoso is not installed (apt-get install virtuoso-opensource)")
    home = tmp_path_factory.mktemp("virtuoso")
    http_port, sql_port = free_port(), free_port()
    ini = VIRTUOSO_INI.read_text().replace("/var/lib/virtuoso-opensource-7/db", str(home))
    ini = re.sub(r"(?m)^ServerPort(\s*)= 1111", rf"ServerPort\g<1>= 127.0.0.1:{sql_port}", ini)
    ini = re.sub(r"(?m)^ServerPort(\s*)= 8890", rf"ServerPort\g<1>= 127.0.0.1:{http_port}", ini)
    ini = re.sub(r"(?m)^ResultSetMaxRows\s*=.*$", f"ResultSetMaxRows = {VIRTUOSO_ROW_CAP}", ini)
    (home / "virtuoso.ini").write_text(ini)
    proc = subprocess.Popen([binary, "-f", "-c", str(home / "virtuoso.ini")], cwd=home,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{http_port}/sparql"
    try:
        wait_for(url)
        yield url
    finally:
        stop(proc)


@pytest.fixture()
def virtuoso_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh Virtuoso database's administrator: credentials through the environment."""
    monkeypatch.setenv("PAPERKG_STORE_USER", "dba")
    monkeypatch.setenv("PAPERKG_STORE_PASSWORD", "dba")
