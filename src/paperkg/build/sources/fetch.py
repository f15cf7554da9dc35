"""`paperkg fetch`: download a venue, an arXiv query or an OpenAlex filter as JSON Lines
that `paperkg build` reads. For people with internet; tested against a local replay.

Each source is paged the way its documentation says (OpenReview: offset/limit on
/notes; arXiv API: start/max_results, one request per 3 s; OpenAlex: cursor paging,
per-page 200). Requests are spaced by a polite minimum interval, retried with
exponential back-off on 429/5xx and network errors (Retry-After honoured), and the run is
resumable: after every page the output is flushed and `OUT.state.json` records the
cursor and the output's size, so a rerun truncates any half-written page and continues.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode

import httpx

from paperkg.errors import UsageError, UserError
from paperkg.progress import Reporter

__all__ = ["SOURCES", "FetchError", "FetchSource", "fetch"]

USER_AGENT: Final = "paperkg-fetch/0.1 (+https://w3id.org/paperkg)"


class FetchError(UserError):
    """A source that keeps failing, or answers something we cannot page through."""


@dataclass(frozen=True, slots=True)
class FetchSource:
    """Where a source lives and how politely to ask it."""

    base_url: str
    interval: float  # seconds between requests (the source's documented courtesy)
    page_size: int


#: The sources `paperkg fetch` knows, with their documented limits.
SOURCES: Final[dict[str, FetchSource]] = {
    # api2 serves API v2 venues (2023 on); older venues: --base-url https://api.openreview.net
    "openreview": FetchSource("https://api2.openreview.net", 1.0, 1000),
    # "no more than one request every three seconds" (arXiv API terms of use)
    "arxiv": FetchSource("https://export.arxiv.org/api/query", 3.0, 200),
    # polite pool: at most 10 requests/s; per-page at most 200
    "openalex": FetchSource("https://api.openalex.org/works", 0.2, 200),
}


@dataclass(slots=True)
class State:
    """What a rerun needs: the next page's cursor, records and bytes written, done."""

    cursor: Any
    records: int = 0
    bytes: int = 0
    pages: int = 0
    done: bool = False
    query: str = ""


class Pager:
    """HTTP GET with spacing, retries and back-off."""

    def __init__(self, interval: float, retries: int = 5, backoff: float = 2.0,
                 timeout: float = 60.0, client: httpx.Client | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.interval, self.retries, self.backoff = interval, retries, backoff
        self.client = client or httpx.Client(timeout=timeout, follow_redirects=True,
                                             headers={"User-Agent": USER_AGENT})
        self.sleep = sleep
        self._last = 0.0

    def get(self, url: str, rep: Reporter) -> httpx.Response:
        for attempt in range(self.retries + 1):
            wait = self._last + self.interval - time.monotonic()
            if wait > 0:
                self.sleep(wait)
            try:
                response = self.client.get(url)
            except httpx.TransportError as err:
                problem = f"{type(err).__name__}: {err}"
                delay = self.backoff ** attempt
            else:
                self._last = time.monotonic()  # the gap runs from the end of an answer
                if response.status_code < 400:
                    return response
                if response.status_code != 429 and response.status_code < 500:
                    raise FetchError(f"{url}: HTTP {response.status_code}: "
                                     f"{response.text[:300]}")
                problem = f"HTTP {response.status_code}"
                told = _retry_after(response)
                delay = self.backoff ** attempt if told is None else told
            if attempt == self.retries:
                raise FetchError(f"{url}: {problem}, {self.retries} retries used up; rerun "
                                 f"the same command later to continue where it stopped")
            rep.step(f"{problem}; retrying in {delay:.1f} s ({attempt + 1}/{self.retries})")
            self.sleep(delay)
        raise AssertionError("unreachable")


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


# ---------------------------------------------------------------- the sources' paging

Page = tuple[list[str], Any, int | None]  # (JSON lines, next cursor or None, total)


def _openreview_page(src: FetchSource, venue: str, cursor: Any, pager: Pager,
                     rep: Reporter) -> Page:
    offset = int(cursor or 0)
    # a venue id means its submissions; a full invitation ("…/-/Blind_Submission", what
    # double-blind venues on API v1 use) is taken as given
    invitation = venue if "/-/" in venue else f"{venue}/-/Submission"
    params = {"invitation": invitation, "limit": src.page_size, "offset": offset}
    body = pager.get(f"{src.base_url}/notes?{urlencode(params)}", rep).json()
    notes = body.get("notes") if isinstance(body, dict) else None
    if not isinstance(notes, list):
        raise FetchError(f"{src.base_url}/notes: no 'notes' list in the answer")
    lines = [json.dumps(n, ensure_ascii=False) for n in notes]
    more = len(notes) == src.page_size
    return lines, offset + len(notes) if more else None, body.get("count")


def _arxiv_page(src: FetchSource, query: str, cursor: Any, pager: Pager,
                rep: Reporter) -> Page:
    """One Atom page, converted to paperkg's JSON Lines (the API answers XML)."""
    import tempfile

    from paperkg.build.ingest import Reject
    from paperkg.build.sources.arxiv import read_atom
    from paperkg.build.sources.common import parse_xml

    start = int(cursor or 0)
    params = {"search_query": query, "start": start, "max_results": src.page_size,
              "sortBy": "submittedDate", "sortOrder": "ascending"}
    text = pager.get(f"{src.base_url}?{urlencode(params)}", rep).text
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.atom"
        page.write_text(text, encoding="utf-8")
        root = parse_xml(page)
        total_el = root.find("{http://a9.com/-/spec/opensearch/1.1/}totalResults")
        total = int(total_el.text) if total_el is not None and total_el.text else None
        lines = []
        for item in read_atom(page):
            if isinstance(item, Reject):
                rep.step(f"arXiv entry skipped: {item.reason}")
                continue
            row = {k: v for k, v in asdict(item).items()
                   if k not in ("label", "source", "origins") and v not in (None, [], ())}
            row["format"] = "arxiv-atom"
            lines.append(json.dumps(row, ensure_ascii=False))
    n = len(root.findall("{http://www.w3.org/2005/Atom}entry"))
    done = n == 0 or (total is not None and start + n >= total)
    return lines, None if done else start + n, total


def _openalex_page(src: FetchSource, filt: str, cursor: Any, pager: Pager,
                   rep: Reporter) -> Page:
    params = {"filter": filt, "per-page": src.page_size, "cursor": cursor or "*"}
    if os.environ.get("PAPERKG_MAILTO"):
        params["mailto"] = os.environ["PAPERKG_MAILTO"]  # OpenAlex's "polite pool"
    body = pager.get(f"{src.base_url}?{urlencode(params)}", rep).json()
    results = body.get("results") if isinstance(body, dict) else None
    if not isinstance(results, list):
        raise FetchError(f"{src.base_url}: no 'results' list in the answer")
    meta = body.get("meta") or {}
    nxt = meta.get("next_cursor") if results else None
    return [json.dumps(w, ensure_ascii=False) for w in results], nxt, meta.get("count")


_PAGERS: Final = {"openreview": _openreview_page, "arxiv": _arxiv_page,
                  "openalex": _openalex_page}


def arxiv_query(query: str, since: str | None) -> str:
    """The API's search_query, limited to papers submitted on or after `since`."""
    if not since:
        return query
    day = since.replace("-", "")
    if len(day) != 8 or not day.isdigit():
        raise UsageError(f"--from {since!r}: expected a date YYYY-MM-DD")
    return f"({query}) AND submittedDate:[{day}0000 TO 300001010000]"


def fetch(source: str, query: str, out: Path, rep: Reporter | None = None,
          base_url: str | None = None, interval: float | None = None,
          pager: Pager | None = None, max_pages: int | None = None,
          page_size: int | None = None) -> State:
    """Fetch everything `query` names from `source` into `out` (JSON Lines), resuming a
    run that stopped. Returns the final state; raises FetchError after the retries."""
    rep = rep or Reporter()
    spec = SOURCES.get(source)
    if spec is None:
        raise UsageError(f"unknown source {source!r}; expected one of {list(SOURCES)}")
    spec = FetchSource(base_url or spec.base_url,
                       spec.interval if interval is None else interval,
                       page_size or spec.page_size)
    pager = pager or Pager(spec.interval)
    state_path = out.with_name(out.name + ".state.json")
    if not state_path.exists() and out.exists() and out.stat().st_size:
        raise UsageError(f"{out} exists and is not a fetch in progress (no "
                         f"{state_path.name}); choose another file or delete it")
    state = _load_state(state_path, query)
    if state.done:
        rep.step(f"{out}: already complete ({state.records} records); delete "
                 f"{state_path.name} to fetch again")
        return state
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("ab") as fh:
        fh.truncate(state.bytes)  # drop a page written after the last saved state
        fh.seek(state.bytes)
        if state.records:
            rep.step(f"resuming {out}: {state.records} records, {state.pages} pages done")
        for lines, cursor, total in _pages(source, spec, query, state, pager, rep, max_pages):
            data = "".join(line + "\n" for line in lines).encode("utf-8")
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            state.records += len(lines)
            state.bytes += len(data)
            state.pages += 1
            state.cursor = cursor
            state.done = cursor is None
            _save_state(state_path, state)
            of = f" of {total}" if total is not None else ""
            rep.step(f"{source}: page {state.pages}, {state.records}{of} records")
    return state


def _pages(source: str, spec: FetchSource, query: str, state: State, pager: Pager,
           rep: Reporter, max_pages: int | None) -> Iterator[Page]:
    page_of = _PAGERS[source]
    cursor, n = state.cursor, 0
    while max_pages is None or n < max_pages:
        page = page_of(spec, query, cursor, pager, rep)
        yield page
        n += 1
        cursor = page[1]
        if cursor is None:
            return


def _load_state(path: Path, query: str) -> State:
    if not path.is_file():
        return State(cursor=None, query=query)
    try:
        state = State(**json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError) as err:
        raise FetchError(f"{path}: damaged ({err}); delete it and the output to start "
                         f"again") from None
    if state.query != query:
        raise UsageError(f"{path}: it belongs to a fetch of {state.query!r}, not {query!r}; "
                         f"choose another output file or delete it")
    return state


def _save_state(path: Path, state: State) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(asdict(state)) + "\n", encoding="utf-8")
    tmp.replace(path)
