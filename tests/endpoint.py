"""Shared by the endpoint tests (security, protocol, clients): `paperkg serve` in a
subprocess with its process at hand (memory, logs), and KG copies a test may change."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx
import pyoxigraph as ox

from .serving import free_port, stop


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[bytes]
    log: IO[bytes]

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def rss_mb(self) -> float:
        """Resident memory of the HTTP process (not its query workers)."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")


@contextmanager
def running(kg: Path, *flags: str) -> Iterator[Server]:
    """`paperkg serve --kg KG FLAGS` on a free port, one HTTP process; stopped after."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paperkg.cli", "serve", "--kg", str(kg), "--port", str(port),
             "--http-workers", "1", *flags], stdout=log, stderr=subprocess.STDOUT)
        server = Server(url, proc, log)
        try:
            end = time.monotonic() + 120
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"server exited: {server.output()}")
                try:
                    if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > end:
                    raise RuntimeError("server did not start within 120 s")
                time.sleep(0.1)
            yield server
        finally:
            stop(proc)


def copy_kg(kg: Path, target: Path) -> Path:
    """A copy of a built KG directory that a test may change."""
    shutil.copytree(kg, target)
    return target


def swap_in_a_rebuild(kg: Path, extra: int) -> None:
    """What a rebuild does to a served directory: a new KG renamed into place, the old
    one removed. The new one has `extra` more triples, and one more paper ("hrebuilt")."""
    new = copy_kg(kg, kg.with_name(kg.name + ".new"))
    store = ox.Store(str(new / "store"))
    paper = ox.NamedNode("https://w3id.org/paperkg/paper/hrebuilt")
    pkg = "https://w3id.org/paperkg/ontology#"
    facts: list[tuple[str, ox.NamedNode | ox.Literal]] = [
        ("http://www.w3.org/1999/02/22-rdf-syntax-ns#type", ox.NamedNode(pkg + "Paper")),
        ("http://www.w3.org/2000/01/rdf-schema#label", ox.Literal("Rebuilt")),
        ("http://purl.org/dc/terms/abstract", ox.Literal("A paper added later."))]
    for p, o in facts:
        store.add(ox.Quad(paper, ox.NamedNode(p), o))
    for i in range(extra - 3):
        store.add(ox.Quad(paper, ox.NamedNode(pkg + "note"), ox.Literal(str(i))))
    store.flush()
    del store
    old = kg.with_name(kg.name + ".old")
    kg.rename(old)
    new.rename(kg)
    shutil.rmtree(old)
