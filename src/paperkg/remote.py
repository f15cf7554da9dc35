"""A SPARQL 1.1 server as the KG's store: the `Store` protocol over HTTP, plus writing.

Reading goes through the SPARQL 1.1 Protocol (POST, JSON results for SELECT/ASK,
N-Triples for CONSTRUCT/DESCRIBE), with the KG's named graph as the request's default
graph (`default-graph-uri`), so the read questions run unchanged. Writing goes through
the Graph Store HTTP Protocol or SPARQL Update, in chunks, each retried, and resumable (a
killed load skips the chunks a progress file says the server already has): see
`paperkg.remote_write`.

A server may answer with less than the whole answer and still say 200. paperkg never
passes such an answer on as complete: Virtuoso's partial answer at its time limit
(`X-SQL-State: S1TAT`), an answer as long as the server's row cap (Virtuoso's
`ResultSetMaxRows`, 10,000 by default: set `PAPERKG_STORE_MAX_ROWS` to the server's cap,
0 for none) and a body cut short (Oxigraph server's timeout ends the stream) are errors.

Credentials come from the environment only (PAPERKG_STORE_USER, PAPERKG_STORE_PASSWORD;
PAPERKG_STORE_AUTH=basic for basic instead of digest authentication), never from flags.
Loads go through the Graph Store Protocol where the server takes it, else SPARQL Update
(PAPERKG_STORE_LOAD=auto, the default; gsp or update to choose). The Graph Store endpoint
is the query URL's `…/query` → `…/store` (Oxigraph server), or `…/sparql` →
`…/sparql-graph-crud-auth` with credentials, `…/sparql-graph-crud` without (Virtuoso), or
PAPERKG_STORE_GSP_URL. The update endpoint is `…/query` → `…/update` (Oxigraph, Fuseki),
or `…/sparql` → `…/sparql-auth` with credentials (Virtuoso), or PAPERKG_STORE_UPDATE_URL.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import httpx
import pyoxigraph as ox

from paperkg.errors import QueryError, QueryRefused, ResultTooLarge, UsageError
from paperkg.remote_write import GraphWriter, write_urls
from paperkg.results import QueryResult, Term
from paperkg.screen import screen
from paperkg.store import Answer, Dataset, term_of

__all__ = ["GRAPH_BASE", "RemoteStore", "graph_for"]

GRAPH_BASE: Final = "https://w3id.org/paperkg/graph/"
_RESULTS_JSON = "application/sparql-results+json"
_NTRIPLES = "application/n-triples"
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_FINAL_LIMIT = re.compile(r"\bLIMIT\s+(\d+)\s*(?:OFFSET\s+\d+\s*)?$", re.IGNORECASE)


def graph_for(name: str) -> str:
    """A fresh graph IRI for a KG called `name`: each build writes a new graph, and the
    KG directory's manifest says which one is current."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "kg"
    # the time for people, a random part so two builds in one second never share a graph
    return f"{GRAPH_BASE}{slug}/{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:12]}"


def _auth(env: Mapping[str, str]) -> httpx.Auth | None:
    user, password = env.get("PAPERKG_STORE_USER"), env.get("PAPERKG_STORE_PASSWORD")
    if not user:
        return None
    if env.get("PAPERKG_STORE_AUTH", "digest").lower() == "basic":
        return httpx.BasicAuth(user, password or "")
    return httpx.DigestAuth(user, password or "")


class RemoteStore(GraphWriter):
    """A KG held in graph `graph` of the SPARQL server at `url` (its query endpoint);
    writing (`load`, `apply`, `update`, …) comes from `GraphWriter`."""

    def __init__(self, url: str, graph: str | None = None, *, timeout: float = 300.0,
                 env: Mapping[str, str] | None = None, retries: int = 3,
                 params: Mapping[str, str] | None = None) -> None:
        """`params` are extra protocol parameters sent with every query (e.g. Virtuoso's
        `timeout`, in ms, which makes it answer "anytime": partially, flagged S1TAT)."""
        if not re.match(r"https?://", url):
            raise UsageError(f"--store {url!r}: give the http(s) URL of a SPARQL endpoint")
        env = os.environ if env is None else env
        self.url = url
        self.graph = graph
        auth = _auth(env)
        self.update_url, self.gsp_url, self.load_method = write_urls(url, env, auth is not None)
        self.max_rows = int(env.get("PAPERKG_STORE_MAX_ROWS", "10000") or 0)
        self.retries = retries
        self.params = dict(params or {})
        self._client: httpx.Client | None = httpx.Client(timeout=timeout, auth=auth)

    # ------------------------------------------------------------ reading

    def query(self, sparql: str, max_rows: int | None = None) -> QueryResult:
        """Run a read query on the KG's graph; a partial answer is an error, never a result."""
        screened = screen(sparql)
        data = {**self.params, "query": sparql}
        if self.graph and not screened.has_dataset:
            data["default-graph-uri"] = self.graph
        graph_form = _form(sparql) in ("CONSTRUCT", "DESCRIBE")
        response = self._post(self.url, data, _NTRIPLES if graph_form else _RESULTS_JSON)
        if response.status_code >= 400:
            raise QueryError(f"the SPARQL server refused the query ({response.status_code}): "
                             f"{response.text.strip()[:300]}")
        if response.headers.get("x-sql-state", "").upper() == "S1TAT":
            raise QueryError("the SPARQL server stopped this query at its time limit and sent "
                             "a partial answer (X-SQL-State: S1TAT); it is not shown as a "
                             "whole one: narrow the query or raise the server's limit")
        kind = response.headers.get("content-type", "").split(";")[0].strip()
        try:
            if kind in (_NTRIPLES, "text/plain"):
                result = _graph_result(response.content)
            else:
                result = _json_result(json.loads(response.content))
        except (ValueError, SyntaxError, KeyError, TypeError) as err:
            raise QueryError(f"the SPARQL server's answer is incomplete or malformed ({err}): "
                             "it may have been cut at the server's time limit") from None
        self._check_cap(sparql, result, response.headers.get("x-sparql-maxrows"))
        if max_rows is not None and len(result) > max_rows:
            return replace(result, rows=result.rows[:max_rows],
                           triples=result.triples[:max_rows], truncated=True)
        return result

    def evaluate(self, sparql: str, dataset: Dataset | None = None,
                 base_iri: str | None = None) -> Answer:
        """A person's query on the KG's graph, as the embedded store's `evaluate` answers it
        (the server's SPARQL endpoint over a KG kept on a SPARQL server). Only the KG's
        graph is reachable: a query or request naming graphs is refused, since the server
        may hold other graphs that this endpoint does not serve."""
        if (dataset is not None and (dataset.default or dataset.named)) or \
                screen(sparql).has_dataset:
            raise QueryRefused("this endpoint serves one KG kept on a SPARQL server; FROM, "
                               "FROM NAMED, default-graph-uri and named-graph-uri are not "
                               "available here")
        if base_iri:  # the protocol has no base parameter: the query's prologue says it
            sparql = f"BASE <{base_iri}> {sparql}"
        return Answer.from_result(self.query(sparql))

    def _check_cap(self, sparql: str, result: QueryResult, announced: str | None) -> None:
        """An answer as long as the server's row cap (announced by Virtuoso in
        X-SPARQL-MaxRows, else PAPERKG_STORE_MAX_ROWS) may have been cut: an error."""
        cap = int(announced) if announced and announced.isdigit() else self.max_rows
        n = len(result.rows) if result.kind == "select" else len(result.triples)
        if not cap or n < cap:
            return
        limit = _FINAL_LIMIT.search(sparql.strip())
        if limit and int(limit.group(1)) <= n:
            return  # the query asked for at most this many itself
        raise ResultTooLarge(
            f"the SPARQL server returned exactly its row cap ({cap} rows), so the "
            "answer may be cut short (Virtuoso's ResultSetMaxRows does that silently); add "
            "LIMIT/OFFSET to page through it, or raise the cap (PAPERKG_STORE_MAX_ROWS)")

    def values(self, sparql: str) -> Iterator[tuple[str, ...]]:
        """See `paperkg.store.Store.values`."""
        for row in self.query(sparql).rows:
            yield tuple("" if term is None else term.value for term in row)

    def triple_count(self) -> int:
        res = self.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        if not res.rows or res.rows[0][0] is None:
            raise QueryError(f"{self.url}: the server did not count the triples")
        return int(res.rows[0][0].value)

    def triples(self, page: int = 10_000, include_bnodes: bool = False) -> Iterator[str]:
        """Every triple of the graph as an N-Triples line, paged past any row cap (blank
        nodes, only in the ontology's lists, left out unless asked for)."""
        offset = 0
        page = min(page, self.max_rows - 1) if self.max_rows else page
        while True:
            try:
                # the sort in a subquery: Virtuoso refuses ORDER BY + OFFSET past its row
                # cap, but pages a sorted subquery (its "scrollable cursor")
                res = self.query("SELECT ?s ?p ?o WHERE { { SELECT ?s ?p ?o WHERE { ?s ?p ?o } "
                                 f"ORDER BY ?s ?p ?o }} }} LIMIT {page} OFFSET {offset}")
            except ResultTooLarge:
                if page <= 1:
                    raise
                page //= 2  # the server's cap is lower than ours: smaller pages
                continue
            for s, p, o in res.rows:
                assert s is not None and p is not None and o is not None
                if include_bnodes or "bnode" not in (s.kind, o.kind):
                    yield f"{s.n3()} {p.n3()} {o.n3()} ."
            if len(res.rows) < page:
                return
            offset += page

    def export(self, path: str | os.PathLike[str], fmt: str) -> Path:
        """Write the KG's graph as ttl / nt / jsonld (read back page by page)."""
        from paperkg.store import RDF_EXPORTS
        from paperkg.vocab import PREFIXES

        if fmt not in RDF_EXPORTS:
            raise UsageError(f"unknown export format {fmt!r}; choose one of {list(RDF_EXPORTS)}")
        body = "\n".join(self.triples(include_bnodes=True)).encode()
        target = Path(path)
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        try:
            ox.serialize(ox.parse(io.BytesIO(body), format=ox.RdfFormat.N_TRIPLES), str(tmp),
                         RDF_EXPORTS[fmt], prefixes=PREFIXES if fmt == "ttl" else None)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return target

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client = None

    def __enter__(self) -> RemoteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RemoteStore({self.url!r}, graph={self.graph!r})"


# ---------------------------------------------------------------- helpers


def ntriples_lines(triples: Iterable[Any]) -> Iterator[str]:
    """N-Triples lines of rdflib triples, in Oxigraph's canonical form (so lines of two
    builds compare equal), blank nodes left out (only the ontology has them)."""
    from paperkg.ntriples import ntriples_stream

    for q in ox.parse(ntriples_stream(triples), format=ox.RdfFormat.N_TRIPLES):
        if isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode):
            continue
        yield f"{q.subject} {q.predicate} {q.object} ."


_OPAQUE = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|<[^<>"{}|^`\\\s]*>|#[^\n]*')
_FORM = re.compile(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)


def _form(sparql: str) -> str:
    """SELECT, ASK, CONSTRUCT or DESCRIBE: what to ask the server to answer in (Virtuoso
    answers a CONSTRUCT in JSON result rows when JSON is acceptable)."""
    found = _FORM.search(_OPAQUE.sub(" ", sparql))
    return found.group(1).upper() if found else "SELECT"


def _json_term(cell: Mapping[str, Any]) -> Term:
    kind, value = cell["type"], str(cell["value"])  # Virtuoso sends some numbers unquoted
    if kind == "uri":
        return Term(value, "iri")
    if kind == "bnode":
        return Term(value, "bnode")
    if kind == "triple":
        return Term(str(value), "triple")
    lang = cell.get("xml:lang")
    dt = cell.get("datatype")
    if lang:
        return Term(value, "literal", None, lang)
    return Term(value, "literal", None if dt in (None, _XSD_STRING) else dt)


def _json_result(doc: Mapping[str, Any]) -> QueryResult:
    if "boolean" in doc:
        return QueryResult("ask", boolean=bool(doc["boolean"]))
    names = list(doc["head"]["vars"])
    rows = [tuple(_json_term(b[n]) if n in b else None for n in names)
            for b in doc["results"]["bindings"]]
    return QueryResult("select", variables=names, rows=rows)


def _graph_result(body: bytes) -> QueryResult:
    triples = [(term_of(q.subject), term_of(q.predicate), term_of(q.object))
               for q in ox.parse(io.BytesIO(body), format=ox.RdfFormat.N_TRIPLES)]
    return QueryResult("graph", triples=triples)
