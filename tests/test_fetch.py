"""`paperkg fetch` against a local HTTP server (127.0.0.1) that replays real records:
the OpenAlex page and the arXiv Atom feed of ../shared/data/sources, and OpenReview v2
notes built from real ICLR 2025 records (see test_sources.note_v2). The replay pages
them the way each API documents (cursor, start/max_results, offset/limit), and can fail
on purpose. There is no internet here: only the real network is untested.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from paperkg.build.ingest import read_papers
from paperkg.build.sources.fetch import FetchError, Pager, arxiv_query, fetch
from paperkg.cli import main
from paperkg.errors import UsageError
from paperkg.progress import Reporter

from .test_sources import SOURCES, iclr_records, note_v2

ATOM = (SOURCES / "arxiv_atom.xml").read_text(encoding="utf-8")
ENTRIES = re.findall(r"  <entry>.*?</entry>\n", ATOM, flags=re.DOTALL)
ATOM_HEAD = ATOM[: ATOM.index("  <entry>")]
WORKS = json.loads((SOURCES / "openalex_works.json").read_text(encoding="utf-8"))["results"]
NOTES = [note_v2(r) for r in iclr_records(7)]


@dataclass
class Replay:
    """What the server answers, what it was asked, and failures to serve first."""

    fail: list[int] = field(default_factory=list)  # statuses to answer before succeeding
    fail_at: dict[str, int] = field(default_factory=dict)  # "offset=4" → status, always
    requests: list[tuple[float, str]] = field(default_factory=list)


def _page(replay: Replay, path: str, q: dict[str, str]) -> tuple[int, str, str]:
    if path.endswith("/works"):
        start = 0 if q["cursor"] == "*" else int(q["cursor"].removeprefix("c"))
        size = int(q["per-page"])
        chunk = WORKS[start : start + size]
        nxt = f"c{start + size}" if start + size < len(WORKS) else None
        body = {"meta": {"count": len(WORKS), "next_cursor": nxt}, "results": chunk}
        return 200, "application/json", json.dumps(body)
    if path.endswith("/notes"):
        assert q["invitation"] in ("ICLR.cc/2025/Conference/-/Submission",
                                   "ICLR.cc/2025/Conference/-/Blind_Submission")
        offset, limit = int(q["offset"]), int(q["limit"])
        body = {"notes": NOTES[offset : offset + limit], "count": len(NOTES)}
        return 200, "application/json", json.dumps(body)
    if path.endswith("/api/query"):
        start, size = int(q["start"]), int(q["max_results"])
        head = re.sub(r"<opensearch:totalResults>\d+<", f"<opensearch:totalResults>"
                      f"{len(ENTRIES)}<", ATOM_HEAD)
        return 200, "application/atom+xml", head + "".join(ENTRIES[start : start + size]) \
            + "</feed>\n"
    return 404, "text/plain", "no such path"


@pytest.fixture()
def replay() -> Iterator[tuple[str, Replay]]:
    state = Replay()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            url = urlsplit(self.path)
            q = {k: v[0] for k, v in parse_qs(url.query).items()}
            state.requests.append((time.monotonic(), self.path))
            hit = next((s for k, s in state.fail_at.items() if k in url.query), None)
            if state.fail or hit:
                status = state.fail.pop(0) if state.fail else hit
                self.send_response(status or 500)
                self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(b"replayed failure")
                return
            status, kind, body = _page(state, url.path, q)
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()


QUIET = Reporter(quiet=True)


def test_openalex_cursor_paging_into_what_build_reads(replay: tuple[str, Replay],
                                                      tmp_path: Path) -> None:
    base, state = replay
    out = tmp_path / "works.jsonl"
    done = fetch("openalex", "concepts.id:C41008148", out, QUIET, base_url=base + "/works",
                 interval=0, page_size=4)
    assert (done.records, done.pages, done.done) == (15, 4, True)
    assert [json.loads(line)["id"] for line in out.open()] == [w["id"] for w in WORKS]
    cursors = [parse_qs(urlsplit(p).query)["cursor"][0] for _, p in state.requests]
    assert cursors == ["*", "c4", "c8", "c12"]
    result = read_papers([out])  # detected as OpenAlex JSON lines
    assert len(result.papers) == 14 and result.rejects[0].line == 15
    # a rerun of a finished fetch asks nothing
    assert fetch("openalex", "concepts.id:C41008148", out, QUIET, base_url=base + "/works",
                 interval=0).records == 15
    assert len(state.requests) == 4


def test_openreview_offset_paging(replay: tuple[str, Replay], tmp_path: Path) -> None:
    base, state = replay
    out = tmp_path / "iclr.jsonl"
    done = fetch("openreview", "ICLR.cc/2025/Conference", out, QUIET, base_url=base,
                 interval=0, page_size=3)
    assert (done.records, done.pages) == (7, 3)
    asked = [parse_qs(urlsplit(p).query) for _, p in state.requests]
    assert [a["offset"][0] for a in asked] == ["0", "3", "6"]
    assert {a["invitation"][0] for a in asked} == {"ICLR.cc/2025/Conference/-/Submission"}
    v1 = fetch("openreview", "ICLR.cc/2025/Conference/-/Blind_Submission",
               tmp_path / "v1.jsonl", QUIET, base_url=base, interval=0)
    assert v1.records == 7 and "Blind_Submission" in state.requests[-1][1]
    papers = read_papers([out]).papers
    assert [p.id for p in papers] == [n["id"] for n in NOTES]
    assert {p.venue for p in papers} == {"ICLR 2025"}
    assert [p.decision for p in papers] == [r["decision"] for r in iclr_records(7)]


def test_arxiv_start_paging_and_from_date(replay: tuple[str, Replay], tmp_path: Path) -> None:
    base, state = replay
    out = tmp_path / "arxiv.jsonl"
    query = arxiv_query("all:testing", "2020-01-31")
    assert query == "(all:testing) AND submittedDate:[202001310000 TO 300001010000]"
    done = fetch("arxiv", query, out, QUIET, base_url=base + "/api/query", interval=0,
                 page_size=5)
    assert (done.records, done.pages) == (13, 3)
    asked = [parse_qs(urlsplit(p).query) for _, p in state.requests]
    assert [a["start"][0] for a in asked] == ["0", "5", "10"]
    assert asked[0]["search_query"] == [query]
    papers = read_papers([out]).papers
    assert [p.id for p in papers] == [p.id for p in read_papers([SOURCES /
                                                                  "arxiv_atom.xml"]).papers]
    assert papers[0].origins[0].format == "arxiv-atom" and papers[0].subjects == ("cs.SE",
                                                                                  "cs.LG")
    with pytest.raises(UsageError, match="--from '31/01/2020'"):
        arxiv_query("all:testing", "31/01/2020")


def test_retries_back_off_and_honour_retry_after(replay: tuple[str, Replay],
                                                 tmp_path: Path) -> None:
    base, state = replay
    waits: list[float] = []
    state.fail = [503, 429, 502]
    pager = Pager(interval=0, retries=3, backoff=2.0, sleep=waits.append)
    done = fetch("openalex", "x", tmp_path / "w.jsonl", QUIET, base_url=base + "/works",
                 pager=pager)
    assert done.records == 15 and len(state.requests) == 4
    assert waits == [0.0, 0.0, 0.0]  # Retry-After: 0 from the server wins over back-off
    state.fail = [503] * 10
    state.requests.clear()
    with pytest.raises(FetchError, match="HTTP 503, 3 retries used up; rerun"):
        fetch("openalex", "x", tmp_path / "w2.jsonl", QUIET, base_url=base + "/works",
              pager=Pager(interval=0, retries=3, sleep=waits.append))
    assert len(state.requests) == 4


def test_back_off_grows_without_retry_after(tmp_path: Path) -> None:
    waits: list[float] = []
    pager = Pager(interval=0, retries=3, backoff=2.0, sleep=waits.append)
    with pytest.raises(FetchError, match="ConnectError"):  # nothing listens on port 9
        fetch("openalex", "x", tmp_path / "w.jsonl", QUIET, base_url="http://127.0.0.1:9/w",
              pager=pager)
    assert waits == [1.0, 2.0, 4.0]


def test_polite_interval_between_requests(replay: tuple[str, Replay], tmp_path: Path) -> None:
    base, state = replay
    fetch("openalex", "x", tmp_path / "w.jsonl", QUIET, base_url=base + "/works",
          interval=0.2, page_size=5)
    times = [t for t, _ in state.requests]
    assert len(times) == 3
    assert all(b - a >= 0.19 for a, b in zip(times, times[1:], strict=False))


def test_an_interrupted_fetch_resumes_where_it_stopped(replay: tuple[str, Replay],
                                                       tmp_path: Path) -> None:
    base, state = replay
    out = tmp_path / "iclr.jsonl"
    state.fail_at = {"offset=4": 400}  # a hard error on the third page
    with pytest.raises(FetchError, match="HTTP 400"):
        fetch("openreview", "ICLR.cc/2025/Conference", out, QUIET, base_url=base,
              interval=0, page_size=2)
    saved = json.loads((tmp_path / "iclr.jsonl.state.json").read_text())
    assert (saved["records"], saved["cursor"], saved["done"]) == (4, 4, False)
    with out.open("ab") as fh:  # a page half written when the process died
        fh.write(b'{"id": "half')
    state.fail_at = {}
    state.requests.clear()
    done = fetch("openreview", "ICLR.cc/2025/Conference", out, QUIET, base_url=base,
                 interval=0, page_size=2)
    assert done.records == 7 and done.done
    offsets = [parse_qs(urlsplit(p).query)["offset"][0] for _, p in state.requests]
    assert offsets == ["4", "6"], "the rerun starts at the page that failed"
    assert [json.loads(line)["id"] for line in out.open()] == [n["id"] for n in NOTES]
    with pytest.raises(UsageError, match="belongs to a fetch of"):
        fetch("openreview", "NeurIPS.cc/2024/Conference", out, QUIET, base_url=base)
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"id": "kept"}\n')
    with pytest.raises(UsageError, match="exists and is not a fetch in progress"):
        fetch("openreview", "ICLR.cc/2025/Conference", mine, QUIET, base_url=base)
    assert mine.read_text() == '{"id": "kept"}\n', "a file of the user's is never truncated"


def test_fetch_command(replay: tuple[str, Replay], tmp_path: Path,
                       capsys: pytest.CaptureFixture[str]) -> None:
    base, _ = replay
    out = tmp_path / "iclr.jsonl"
    assert main(["fetch", "openreview", "ICLR.cc/2025/Conference", "-o", str(out),
                 "--base-url", base, "--interval", "0"]) == 0
    assert "wrote" in capsys.readouterr().out and len(out.read_text().splitlines()) == 7
    assert main(["fetch", "openalex", "x", "-o", str(tmp_path / "a.jsonl"), "--from",
                 "2024-01-01", "--base-url", base]) == 1
    assert "--from applies to arxiv only" in capsys.readouterr().err
