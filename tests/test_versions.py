"""A running server follows its KG directory: a new version (a build, add or remove puts
one in place by rename) is served once loaded, as a whole, and a damaged one is refused
while the old one goes on serving (`paperkg_server.versions`)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx

from .conftest import SOURCES
from .endpoint import copy_kg, running, swap_in_a_rebuild

COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


def _observe(c: httpx.Client) -> tuple[int, int, int]:
    """One look at the three sides of a version, one request each, in this order: the
    store's triples (query workers), the index's paper count, a paper page."""
    resp = c.get("/sparql", params={"query": COUNT, "format": "json"})
    triples = int(resp.json()["results"]["bindings"][0]["n"]["value"])
    return triples, c.get("/healthz").json()["papers"], c.get("/api/papers/hrebuilt").status_code


def _snapshots(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if ".serving-" in p.name]


def test_a_new_version_is_served_whole_once_loaded(demo_kg: Path, tmp_path: Path) -> None:
    kg = copy_kg(demo_kg, tmp_path / "kg")
    with running(kg, "--deadline", "1", "--query-workers", "1", "--reload-interval", "0.2") \
            as s, httpx.Client(base_url=s.url, timeout=30) as c:
        old = _observe(c)
        assert old[2] == 404
        assert len(_snapshots(tmp_path)) == 1
        new = (old[0] + 500, old[1] + 1, 200)
        swap_in_a_rebuild(kg, extra=500)
        seen = []
        end = time.monotonic() + 90
        while time.monotonic() < end:
            seen.append(_observe(c))
            if seen[-1] == new:
                break
            time.sleep(0.05)
        assert seen[-1] == new, seen[-3:]
        assert "now serving the new version" in s.output()
        # the store and the index switched together: within a look, old answers come
        # only before new ones (in request order), and no side ever went back
        flags = [[v == n for v, n in zip(look, new, strict=True)] for look in seen]
        assert all(look == sorted(look) for look in flags), seen
        for side in range(3):
            answers = [look[side] for look in flags]
            assert answers == sorted(answers), seen
        for _ in range(5):
            assert _observe(c) == new
        # the old version's snapshot goes once its requests are over (deadline + 2 s)
        end = time.monotonic() + 30
        while len(_snapshots(tmp_path)) > 1 and time.monotonic() < end:
            time.sleep(0.2)
        assert len(_snapshots(tmp_path)) == 1
    assert _snapshots(tmp_path) == []


def test_a_damaged_new_version_is_reported_and_the_old_one_served(
        demo_kg: Path, tmp_path: Path) -> None:
    kg = copy_kg(demo_kg, tmp_path / "kg")
    with running(kg, "--reload-interval", "0.2") as s, \
            httpx.Client(base_url=s.url, timeout=30) as c:
        old = _observe(c)
        broken = copy_kg(kg, tmp_path / "broken")
        (broken / "manifest.json").write_text("{ not json", encoding="utf-8")
        kg.rename(tmp_path / "kg.old")
        broken.rename(kg)
        end = time.monotonic() + 30
        while "could not be opened" not in s.output() and time.monotonic() < end:
            time.sleep(0.2)
        assert "could not be opened" in s.output() and "manifest.json" in s.output()
        assert "Traceback" not in s.output()
        assert _observe(c) == old


def test_a_paper_added_with_paperkg_add_is_served_without_a_restart(
        demo_kg: Path, cache_dir: Path, tmp_path: Path) -> None:
    """The living KG end to end: `paperkg add` of a real arXiv record (read in place from
    the shared samples) beside a running server; the server then answers for it."""
    kg = copy_kg(demo_kg, tmp_path / "kg")
    record = json.loads((SOURCES / "arxiv_snapshot.jsonl").read_text(
        encoding="utf-8").splitlines()[0])
    new = tmp_path / "new.jsonl"
    new.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with running(kg, "--reload-interval", "0.2") as s, \
            httpx.Client(base_url=s.url, timeout=30) as c:
        health = c.get("/healthz").json()
        papers = health["papers"]
        hits = c.get("/api/search", params={"q": record["title"], "kind": "paper"}).json()
        assert all(h["label"] != record["title"] for h in hits["hits"])
        added = subprocess.run(
            [sys.executable, "-m", "paperkg.cli", "add", "--kg", str(kg), str(new),
             "--format", "arxiv-snapshot", "--cache-dir", str(cache_dir)],
            capture_output=True, text=True, timeout=600)
        assert added.returncode == 0, added.stderr
        end = time.monotonic() + 60
        while c.get("/healthz").json()["papers"] != papers + 1 and time.monotonic() < end:
            time.sleep(0.2)
        now = c.get("/healthz").json()
        assert now["papers"] == papers + 1
        assert now["kg_written_at"] > health["kg_written_at"]  # the add's time, ISO 8601
        hits = c.get("/api/search", params={"q": record["title"], "kind": "paper"}).json()
        found = [h for h in hits["hits"] if h["label"] == " ".join(record["title"].split())]
        assert found, hits
        paper = c.get(f"/api/papers/{found[0]['id']}").json()
        assert paper["concepts"], paper
        ask = c.get("/sparql", params={"query": f"ASK {{ <{paper['iri']}> ?p ?o }}",
                                       "format": "json"}).json()
        assert ask["boolean"] is True
