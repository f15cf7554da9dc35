"""Putting a KG's triples into its store, embedded or a SPARQL server, whole or as a diff.

Embedded: a new Oxigraph directory is bulk-loaded from a stream (build), or a checkpoint
of the current one (hard links) gets the difference (update). SPARQL server: every build
and every update writes a new named graph (loaded in retried, resumable chunks, or copied
server-side and given the difference) and the KG directory's manifest names the current
one, so readers, who go through the manifest, switch from the old graph to the new one at
the directory swap, never seeing a half-written graph. The old graph is dropped after.
The lines loaded to a server are kept gzipped beside the KG (`kgdir.REMOTE_TRIPLES`), so
an update computes its difference without reading the whole graph back.
"""

from __future__ import annotations

import gzip
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from paperkg.build.delta import Delta
from paperkg.build.gcpause import paused_gc
from paperkg.build.pipeline import Content, kg_triples
from paperkg.errors import KGNotFound
from paperkg.kgdir import REMOTE_TRIPLES, STORE
from paperkg.ntriples import ntriples_stream
from paperkg.progress import Reporter
from paperkg.remote import RemoteStore, graph_for, ntriples_lines
from paperkg.store import OxigraphStore
from paperkg.vocab import BASE

AUTHOR_BASE, VENUE_BASE, PAPER_BASE = BASE + "author/", BASE + "venue/", BASE + "paper/"

__all__ = ["create_store", "drop_old_graph", "update_store"]


def create_store(target: Path, content: Content, store_url: str, name: str, rep: Reporter
                 ) -> tuple[int, dict[str, Any] | None]:
    """(triple count, the manifest's "store" entry: None for the embedded store)."""
    if not store_url:
        rep.step("writing the Oxigraph store (the KG and its ontology)")
        with OxigraphStore.create(target / STORE, kg_triples(content)) as store:
            return store.triple_count(), None
    progress = target.parent / f".{name}.remote-load.json"
    with RemoteStore(store_url) as remote:
        graph = _resumed_graph(progress) or graph_for(name)
        rep.step(f"loading the KG into graph <{graph}> of {store_url}")
        lines = _kg_lines(content)
        _write_lines(target / REMOTE_TRIPLES, lines)
        sent = remote.load(_read_lines(target / REMOTE_TRIPLES), graph, progress_file=progress)
        remote.update(_ontology_insert(graph))  # in one request: its blank nodes stay linked
        remote.graph = graph
        count = remote.triple_count()
    progress.unlink(missing_ok=True)
    rep.step(f"{sent} KG triples loaded, {count} with the ontology")
    return count, {"url": store_url, "graph": graph}


def update_store(kg: Path, target: Path, content: Content, store: dict[str, Any] | None,
                 rep: Reporter, delta: Delta | None = None, total_before: int | None = None,
                 ) -> tuple[int, int, int, dict[str, Any] | None]:
    """(triples removed, added, total, the new "store" entry) after writing the difference
    between the KG at `kg` and `content` into a new store (or graph) for `target`. With
    `delta` (the embedded store), only the changed units' triples are compared.
    `total_before`: the embedded store's triple count as its manifest says (counting the
    store again took 0.4 s of an update)."""
    if not store:
        if delta is not None:
            removed, added = _update_units(kg / STORE, target / STORE, content, delta, rep)
        else:
            removed, added = _update_embedded(kg / STORE, target / STORE, content, rep)
        total = (total_before - removed + added if total_before is not None
                 else len(ox.Store.read_only(str(target / STORE))))
        return removed, added, total, None
    old = set(_read_lines(kg / REMOTE_TRIPLES))
    new = _kg_lines(content)
    gone = sorted(old.difference(new))
    came = sorted(set(new).difference(old))
    with RemoteStore(store["url"]) as remote:
        graph = graph_for(kg.name)
        rep.step(f"copying graph <{store['graph']}> to <{graph}> and writing the "
                 f"difference: {len(gone)} triples out, {len(came)} in")
        remote.copy_graph(store["graph"], graph)
        remote.apply(graph, gone, came)
        remote.graph = graph
        total = remote.triple_count()
    _write_lines(target / REMOTE_TRIPLES, new)
    return len(gone), len(came), total, {**store, "graph": graph}


def drop_old_graph(old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
    """After the swap: the graph no manifest names any more goes."""
    if old and old.get("url") and (not new or new.get("graph") != old.get("graph")):
        with RemoteStore(old["url"]) as remote:
            remote.drop_graph(old["graph"])


def _checkpoint(current: Path, target: Path, rep: Reporter, what: str) -> ox.Store:
    """A writable hard-link copy of the store at `current`, at `target`."""
    try:
        source = ox.Store.read_only(str(current))
    except OSError as err:
        raise KGNotFound(f"{current}: cannot open the store ({err}); rebuild the KG") from None
    rep.step(f"checkpointing the store (hard links); {what}")
    source.backup(str(target))
    return ox.Store(str(target))


def _apply(store: ox.Store, removed: Collection[ox.Quad], added: Collection[ox.Quad],
           rep: Reporter) -> tuple[int, int]:
    """(triples removed, added), counting only those the store had and lacked: the new
    total is the old one plus the difference. Added ones are looked up after the removal:
    the store keeps a literal by value, so "0"^^xsd:double going out and "0.0" coming in
    are one stored term."""
    rep.step(f"writing the difference: {len(removed)} triples out, {len(added)} in")
    gone = 0
    for q in removed:
        if q in store:
            store.remove(q)
            gone += 1
    came = [q for q in added if q not in store]
    store.extend(came)
    store.flush()
    return gone, len(came)


def _update_embedded(current: Path, target: Path, content: Content, rep: Reporter
                     ) -> tuple[int, int]:
    store = _checkpoint(current, target, rep, "computing the difference")
    new = {q for q in ox.parse(ntriples_stream(kg_triples(content)),
                               format=ox.RdfFormat.N_TRIPLES) if _plain(q)}
    removed = []
    for q in store.quads_for_pattern(None, None, None, ox.DefaultGraph()):
        if _plain(q) and q not in new:
            removed.append(q)
        new.discard(q)
    return _apply(store, removed, new, rep)


@paused_gc()
def _update_units(current: Path, target: Path, content: Content, delta: Delta, rep: Reporter
                  ) -> tuple[int, int]:
    """`_update_embedded` over the changed units only (`build.delta`)."""
    from paperkg.build.delta import SchemeChange, paper_side, sub_scheme
    from paperkg.build.rdf import iter_triples
    from paperkg.vocab import paper_iri, venue_iri

    store = _checkpoint(current, target, rep, f"comparing {len(delta.change.concepts)} "
                        f"concepts, {len(delta.change.topics)} topics and {len(delta.papers)} "
                        "papers")
    old: set[ox.Quad] = set()
    for node in (*(str(venue_iri(v)) for v in delta.venues), *delta.authors):
        old.update(store.quads_for_pattern(ox.NamedNode(node), None, None, ox.DefaultGraph()))
    for pid in delta.touched & delta.papers:  # the others' own triples are as they were
        own = str(paper_iri(pid))
        for q in store.quads_for_pattern(ox.NamedNode(own), None, None, ox.DefaultGraph()):
            old.add(q)
            if isinstance(q.object, ox.NamedNode) and q.object.value.startswith(own + "/"):
                old.update(store.quads_for_pattern(q.object, None, None, ox.DefaultGraph()))
    info, scheme, change = content.info, content.scheme, delta.change
    # the changed units only; what they link to (a topic's members, a broader concept)
    # is named, not written: its own triples are unchanged on both sides
    old.update(_quads(iter_triples([], sub_scheme(delta.old_scheme, change.concepts, change),
                                   info, linked=delta.old_scheme.concepts)))
    # every regenerated paper, in order, so that each author and venue is named by its
    # first paper; of a paper regenerated only for that (not touched), only those names
    papers = [p for p in content.papers if p.id in delta.papers]
    mentions = {p.id: scheme.mentions.get(p.id, []) for p in papers if p.id in delta.touched}
    nothing = SchemeChange(frozenset(), frozenset(), frozenset())
    shared = {*delta.authors, *(str(venue_iri(v)) for v in delta.venues)}
    named_only = {str(paper_iri(p.id)) for p in papers if p.id not in delta.touched}
    new = {q for q in _quads(paper_side(iter_triples(
        papers, sub_scheme(scheme, (), nothing, mentions), info, linked=scheme.concepts)))
        if _compared(str(q.subject)[1:-1], shared, named_only)}
    new.update(_quads(iter_triples([], sub_scheme(scheme, change.concepts, change), info,
                                   linked=scheme.concepts)))
    return _apply(store, old - new, new - old, rep)


def _compared(iri: str, shared: Collection[str], named_only: Collection[str]) -> bool:
    """Whether a regenerated triple of this subject is compared with the store's: an
    author or venue `plan` chose, or a node of a touched paper (the paper, its mentions and
    source records)."""
    if _is_shared(iri):
        return iri in shared
    if not iri.startswith(PAPER_BASE):
        return True
    cut = iri.find("/", len(PAPER_BASE))  # a mention or source record: its paper's
    return (iri if cut < 0 else iri[:cut]) not in named_only


def _is_shared(iri: str) -> bool:
    """An author or venue node: named by many papers, its triples written with the first
    (its one foaf:name is that paper's spelling). A regenerated paper writes those of the
    authors it names whether or not it is their first: only the nodes `plan` chose (with
    their first papers) are compared; the others' triples are as they were."""
    return iri.startswith((AUTHOR_BASE, VENUE_BASE))


def _quads(triples: Iterable[Any]) -> set[ox.Quad]:
    """`rdf.iter_triples` writes no blank nodes (only the ontology has them), so nothing
    is filtered here: asking each parsed quad for its terms took 0.6 s of an add
    (`tests/test_update.py` checks that an update never adds blank-node triples)."""
    return set(ox.parse(ntriples_stream(triples), format=ox.RdfFormat.N_TRIPLES))


def _plain(q: ox.Quad) -> bool:
    """Blank nodes exist only in the ontology, which an update leaves as it is."""
    return not (isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode))


def _kg_lines(content: Content) -> list[str]:
    from paperkg.build.rdf import iter_triples

    return list(ntriples_lines(iter_triples(content.papers, content.scheme, content.info)))


def _ontology_insert(graph: str) -> str:
    from paperkg.build.rdf import load_ontology

    body = "\n".join(f"{q.subject} {q.predicate} {q.object} ." for q in ox.parse(
        ntriples_stream(load_ontology()), format=ox.RdfFormat.N_TRIPLES))
    # a template, not INSERT DATA: Virtuoso refuses blank nodes in DATA blocks
    return f"INSERT {{ GRAPH <{graph}> {{\n{body}\n}} }} WHERE {{}}"


def _resumed_graph(progress: Path) -> str | None:
    import json

    try:
        return str(json.loads(progress.read_text())["graph"]) if progress.is_file() else None
    except (ValueError, KeyError, TypeError):
        return None


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=3) as fh:
        for line in lines:
            fh.write(line + "\n")


def _read_lines(path: Path) -> Iterator[str]:
    if not path.is_file():
        raise KGNotFound(f"{path}: missing; rebuild the KG with 'paperkg build … --store URL'")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            yield line.rstrip("\n")
