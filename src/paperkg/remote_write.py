"""Writing to a SPARQL 1.1 server: the writing half of `paperkg.remote.RemoteStore`.

Triples are added through the SPARQL 1.1 Graph Store HTTP Protocol (one N-Triples POST per
chunk, appended to the named graph) or through SPARQL 1.1 Update (`INSERT DATA` per
chunk); they are taken out through Update only (`DELETE DATA`: the Graph Store Protocol
replaces or drops whole graphs, never single triples). Every request is retried on
connection errors and 5xx answers. A load is resumable: with a progress file, each chunk
the server has taken (2xx, never a failed or partial answer) is recorded as how many
lines were sent and a hash of them, and a load of the same lines into the same graph
after an interruption skips that many lines. Appending triples twice leaves the graph as
it was, so a chunk sent again after a partial request (Virtuoso keeps the part of a
refused POST before the error) does no harm. Blank nodes are refused: each request is
its own document, so a label shared by two chunks would name two different nodes (the
KG's lines never have any: `remote.ntriples_lines` leaves them out, and the ontology,
which has them, goes in as one Update request).

The method is PAPERKG_STORE_LOAD: `auto` (the default: the Graph Store Protocol, falling
back to Update, said once on stderr, when the first POST answers 404, 405, 415 or 501 or
no Graph Store URL is known), `gsp` or `update`. The Graph Store URL is
PAPERKG_STORE_GSP_URL, else derived from the query URL: `…/query` → `…/store`
(Oxigraph server), `…/sparql` → `…/sparql-graph-crud-auth` with credentials,
`…/sparql-graph-crud` without (Virtuoso). The update URL is PAPERKG_STORE_UPDATE_URL,
else `…/query` → `…/update`, `…/sparql` → `…/sparql-auth` with credentials.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice
from pathlib import Path
from typing import Any, Final

import httpx

from paperkg.errors import KGNotFound, QueryError, UsageError

__all__ = ["GSP_CHUNK", "UPDATE_CHUNK", "GraphWriter", "write_urls"]

#: Triples per request: Update's `INSERT DATA` (Virtuoso halves it further), and the
#: Graph Store Protocol's POST (bench/bench_stores.py --load-from measures them).
UPDATE_CHUNK: Final = 5_000
GSP_CHUNK: Final = 50_000
METHODS: Final = ("auto", "gsp", "update")
# what Virtuoso answers when one update holds too many triples for its compiler
_TOO_BIG: Final = ("memory exhausted", "SQL text has exceeded")
# answers to the first POST that mean "no Graph Store Protocol here" (auto: use Update)
_NO_GSP: Final = frozenset({404, 405, 415, 501})
_BLANK = re.compile(r"\s*(?:_:|\S+\s+\S+\s+_:)")
_TAG = re.compile(r"<!DOCTYPE[^>]*>|</?[A-Za-z][A-Za-z0-9]*(?:\s[^>]*)?/?>")  # not <IRI>s


def write_urls(url: str, env: Mapping[str, str], with_auth: bool
               ) -> tuple[str, str | None, str]:
    """(update URL, Graph Store URL or None, load method) for the query endpoint `url`."""
    method = (env.get("PAPERKG_STORE_LOAD") or "auto").strip().lower()  # checked on load
    update, gsp = url, None
    if url.endswith("/query"):  # Oxigraph server (Fuseki's Graph Store is …/data)
        update, gsp = url[: -len("query")] + "update", url[: -len("query")] + "store"
    elif url.endswith("/sparql"):  # Virtuoso
        update = url + "-auth" if with_auth else url
        gsp = url + ("-graph-crud-auth" if with_auth else "-graph-crud")
    update = env.get("PAPERKG_STORE_UPDATE_URL") or update
    gsp = env.get("PAPERKG_STORE_GSP_URL") or gsp
    return update, gsp, method


class GraphWriter:
    """Retried requests, and writing: mixed into `RemoteStore`, which sets these."""

    url: str
    update_url: str
    gsp_url: str | None
    load_method: str  # auto, gsp or update
    retries: int
    _client: httpx.Client | None
    _gsp_ok: bool | None = None  # None until a first POST says whether GSP works

    @property
    def _http(self) -> httpx.Client:
        if self._client is None:
            raise RuntimeError(f"the store at {self.url} is closed")
        return self._client

    def _post(self, url: str, data: dict[str, str] | None = None, accept: str = "*/*",
              **request: Any) -> httpx.Response:
        """POST with retries on connection errors and 5xx answers (not on 4xx)."""
        headers = {"Accept": accept, **request.pop("headers", {})}
        for attempt in range(self.retries + 1):
            try:
                response = self._http.post(url, data=data, headers=headers, **request)
            except httpx.TransportError as err:
                if attempt == self.retries:
                    raise KGNotFound(f"{url}: the SPARQL server does not answer ({err})"
                                     ) from None
            else:
                if response.status_code < 500 or attempt == self.retries:
                    return response
            time.sleep(0.5 * 2 ** attempt)
        raise AssertionError("unreachable")

    def update(self, sparql: str) -> None:
        """One SPARQL Update request: one transaction on the server."""
        response = self._post(self.update_url, {"update": sparql})
        if response.status_code >= 400:
            raise _refused(self.update_url, "the update", response)

    def _send(self, verb: str, graph: str, block: list[str]) -> None:
        """INSERT/DELETE DATA one block; a block too big for the server's compiler (Virtuoso
        gives up past a few thousand triples) is sent again in halves."""
        response = self._post(self.update_url, {"update": _data_block(verb, graph, block)})
        if response.status_code < 400:
            return
        if len(block) > 1 and (response.status_code == 413 or any(
                sign in response.text for sign in _TOO_BIG)):
            half = len(block) // 2
            self._send(verb, graph, block[:half])
            self._send(verb, graph, block[half:])
            return
        raise _refused(self.update_url, f"{verb} DATA of {len(block)} triples", response)

    def _gsp(self, graph: str, block: list[str]) -> bool:
        """POST one block to the Graph Store; False if the server has no Graph Store there
        (only asked of the first POST in `auto`). A block too big is sent in halves."""
        assert self.gsp_url is not None
        param = "graph-uri" if "sparql-graph-crud" in self.gsp_url else "graph"
        # the URL's own parameters kept (e.g. Oxigraph's ?no_transaction, its bulk loader)
        target = httpx.URL(self.gsp_url).copy_merge_params({param: graph})
        body = ("\n".join(block) + "\n").encode()
        response = self._post(str(target), content=body,
                              headers={"Content-Type": "application/n-triples"})
        if response.status_code < 300:
            self._gsp_ok = True
            return True
        if response.status_code in _NO_GSP and not self._gsp_ok and \
                self.load_method == "auto":
            print(f"paperkg: {self.gsp_url} does not take Graph Store Protocol loads "
                  f"(HTTP {response.status_code}); loading through SPARQL Update at "
                  f"{self.update_url} instead (PAPERKG_STORE_LOAD=update skips this try)",
                  file=sys.stderr)
            self._gsp_ok = False
            return False
        if response.status_code == 413 and len(block) > 1:
            half = len(block) // 2
            return self._gsp(graph, block[:half]) and self._gsp(graph, block[half:])
        hint = "; set PAPERKG_STORE_GSP_URL to the server's Graph Store endpoint, or " \
            "PAPERKG_STORE_LOAD=update" if response.status_code in _NO_GSP else ""
        raise _refused(self.gsp_url, f"a POST of {len(block)} triples", response, hint)

    def _uses_gsp(self) -> bool:
        if self.load_method not in METHODS:  # not at start: a reader never needs it
            raise UsageError(f"PAPERKG_STORE_LOAD={self.load_method!r}: choose one of "
                             f"{', '.join(METHODS)}")
        if self.load_method == "update" or self._gsp_ok is False:
            return False
        if self.gsp_url is None:
            if self.load_method == "gsp":
                raise UsageError(f"no Graph Store Protocol endpoint is known for {self.url}: "
                                 "set PAPERKG_STORE_GSP_URL, or PAPERKG_STORE_LOAD=update")
            print(f"paperkg: no Graph Store Protocol endpoint is known for {self.url}; "
                  "loading through SPARQL Update (PAPERKG_STORE_GSP_URL names one)",
                  file=sys.stderr)
            self._gsp_ok = False
            return False
        return True

    def _add(self, graph: str, block: list[str], chunk: int) -> Iterator[list[str]]:
        """Add `block` to `graph`, yielding each part once the server has taken it."""
        if self._uses_gsp() and self._gsp(graph, block):
            yield block
            return
        for part in _chunks(block, chunk):
            self._send("INSERT", graph, part)
            yield part

    def load(self, lines: Iterable[str], graph: str, chunk: int = UPDATE_CHUNK,
             progress_file: Path | None = None, gsp_chunk: int = GSP_CHUNK) -> int:
        """Add the N-Triples `lines` to `graph`, `gsp_chunk` lines per Graph Store POST or
        `chunk` per INSERT DATA; the number of lines, those skipped included.

        With `progress_file`, what the server has taken is recorded after each request,
        and a load of the same lines into the same graph after an interruption skips it.
        """
        marks = _read_progress(progress_file, graph)
        lines = _no_blank_nodes(lines)
        digest, n, kept, retry = hashlib.sha256(), 0, [], []
        for upto, seen in marks:  # skip what the server has, as far as the lines agree
            retry = list(islice(lines, upto - n))
            trial = digest.copy()
            for line in retry:
                trial.update(line.encode() + b"\n")
            if len(retry) != upto - n or trial.hexdigest()[:16] != seen:
                break
            digest, n, retry = trial, upto, []
            kept.append([upto, seen])
        size = gsp_chunk if self._uses_gsp() else chunk
        for block in _chunks(chain(retry, lines), size):
            start = n
            try:
                for part in self._add(graph, block, chunk):
                    for line in part:
                        digest.update(line.encode() + b"\n")
                    n += len(part)
                    kept.append([n, digest.hexdigest()[:16]])
                    _write_progress(progress_file, graph, kept)
            except (QueryError, KGNotFound) as err:
                done = (f"lines 1–{n:,} are in the graph" if n else "no whole chunk is in "
                        "the graph yet") + (", and the same load run again resumes there"
                                            if progress_file else "")
                raise type(err)(f"{err} [lines {start + 1:,}–{start + len(block):,} into "
                                f"<{graph}>; {done}]") from None
        return n

    def apply(self, graph: str, removed: list[str], added: list[str],
              chunk: int = UPDATE_CHUNK) -> None:
        """Take `removed` out of `graph` (Update), then put `added` in (N-Triples lines)."""
        for block in _chunks(_no_blank_nodes(removed), chunk):
            self._send("DELETE", graph, block)
        self.load(added, graph, chunk)

    def copy_graph(self, source: str, target: str) -> None:
        self.update(f"COPY <{source}> TO <{target}>")

    def drop_graph(self, graph: str) -> None:
        self.update(f"DROP SILENT GRAPH <{graph}>")


def _refused(url: str, what: str, response: httpx.Response, hint: str = "") -> QueryError:
    text = response.text
    if "<xmp>" in text:  # Virtuoso's HTML error page: the message is in <xmp>
        text = text.split("<xmp>", 1)[1].split("</xmp>", 1)[0]
    text = re.sub(r"\s+", " ", _TAG.sub(" ", text)).strip()
    if "unsupported type" in text:  # Virtuoso, of N-Triples it could not parse
        hint += " (Virtuoso says this of a body it cannot parse)"
    if response.status_code in (401, 403):
        hint += "; check the credentials in PAPERKG_STORE_USER / PAPERKG_STORE_PASSWORD " \
            "(digest authentication; PAPERKG_STORE_AUTH=basic for basic)"
    return QueryError(f"{url} refused {what} (HTTP {response.status_code}): "
                      f"{text[:300] or response.reason_phrase}{hint}")


def _no_blank_nodes(lines: Iterable[str]) -> Iterator[str]:
    for i, line in enumerate(lines, 1):
        if "_:" in line and _BLANK.match(line):
            raise UsageError(
                f"line {i} has a blank node ({line[:80]}): lines are sent in independent "
                "chunks, in which one label would name different nodes; send triples with "
                "blank nodes in one request (`update` with an INSERT {…} WHERE {} template)")
        yield line


def _chunks(lines: Iterable[str], size: int) -> Iterator[list[str]]:
    it = iter(lines)
    while block := list(islice(it, size)):
        yield block


def _data_block(verb: str, graph: str, lines: list[str]) -> str:
    body = "\n".join(lines)
    return f"{verb} DATA {{ GRAPH <{graph}> {{\n{body}\n}} }}"


def _read_progress(path: Path | None, graph: str) -> list[tuple[int, str]]:
    """[(lines the server has, hash of them)], each a point a resumed load may skip to."""
    if path is None or not path.is_file():
        return []
    try:
        data = json.loads(path.read_text())
        marks = data["done"] if data.get("graph") == graph else []
        return [(int(upto), str(seen)) for upto, seen in marks]
    except (ValueError, KeyError, TypeError, AttributeError):
        return []  # a damaged or older progress file: load everything again


def _write_progress(path: Path | None, graph: str, marks: list[list[Any]]) -> None:
    if path is None:
        return
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps({"graph": graph, "done": marks}))
    os.replace(tmp, path)
