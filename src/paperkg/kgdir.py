"""The KG directory: its file names, its manifest and the NetworkX graph file.

Both sides use this module: the build writes a KG directory, the read side opens one. It
is the one place that knows the layout.

    KG_DIR/
      manifest.json   inputs (with sha256), counts, model, parameters, timings
      store/          Oxigraph on-disk store: the SPARQL source of truth
      graph.json.gz   the NetworkX graph (node-link JSON)
      doc_vectors.npz each paper's abstract vector (the extractor's embedder)
      merges.jsonl    every merge decision with its reason
      rejects.jsonl   refused records with reasons (only with skip_invalid)
      papers.jsonl.gz the papers it was built from (what `paperkg add`/`remove` recompute)
      statistics.json.gz  the corpus statistics its concepts were extracted under (keyword
                      prior, corpus share) and when they were learned (`build.statistics`)
      ranked.jsonl.gz each paper's ranked concepts and mentions: `add` extracts only new
                      and changed papers and reads the others' results from here
      scheme.json.gz  the concept scheme as written, with how its labels were cased: `add`
                      compares the new one with it and reuses the casing
      store-triples.nt.gz  with --store URL: the triples loaded into the server's graph
                      (the manifest's "store" names the server and graph; no store/ then)
      export/         kg.ttl, kg.nt, kg.jsonld, kg.graphml (written on demand)
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from paperkg.errors import KGNotFound

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "DOC_VECTORS",
    "EXPORTS",
    "GRAPH",
    "MANIFEST",
    "MERGES",
    "PAPERS",
    "RANKED",
    "REMOTE_TRIPLES",
    "REJECTS",
    "SCHEME",
    "STATISTICS",
    "STORE",
    "TERMS",
    "load_graph",
    "read_manifest",
]

#: What `paperkg export` writes into KG_DIR/export/: RDF (by file extension, Oxigraph's
#: serialisers) and GraphML for Gephi.
EXPORTS: Final = ("ttl", "nt", "jsonld", "graphml")
MANIFEST: Final = "manifest.json"
STORE: Final = "store"
GRAPH: Final = "graph.json.gz"
DOC_VECTORS: Final = "doc_vectors.npz"
TERMS: Final = "terms.npz"  # each paper's word and word-pair counts (paperkg.lexical)
MERGES: Final = "merges.jsonl"
REJECTS: Final = "rejects.jsonl"
PAPERS: Final = "papers.jsonl.gz"
REMOTE_TRIPLES: Final = "store-triples.nt.gz"
STATISTICS: Final = "statistics.json.gz"  # the statistics epoch (build.statistics)
RANKED: Final = "ranked.jsonl.gz"  # per-paper extraction results and mentions
SCHEME: Final = "scheme.json.gz"  # the concept scheme as written (build.delta)


def _rebuild_hint(path: Path) -> str:
    return f"rebuild it with 'paperkg build INPUT... --out {path}'"


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of the KG at `path`; a missing or damaged one is a one-line error."""
    manifest = path / MANIFEST
    if not manifest.is_file():
        raise KGNotFound(f"{path} is not a KG directory (no {MANIFEST}); build one with "
                         f"'paperkg build INPUT... --out {path}'")
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise KGNotFound(f"{manifest}: damaged manifest ({err}); {_rebuild_hint(path)}"
                         ) from None
    if not isinstance(data, dict) or "counts" not in data:
        raise KGNotFound(f"{manifest}: not a paperkg manifest; {_rebuild_hint(path)}")
    return data


def load_graph(path: Path) -> nx.Graph:
    """The graph written by `build.graph.write_graph` (node-link JSON, gzipped: about a
    second for the full corpus); a missing or damaged file is a one-line error."""
    import networkx as nx
    import orjson

    kg_dir = path.parent
    if not path.is_file():
        raise KGNotFound(f"{path}: missing from the KG; {_rebuild_hint(kg_dir)}")
    try:
        with gzip.open(path, "rb") as fh:
            data: dict[str, Any] = orjson.loads(fh.read())
        return nx.node_link_graph(data, edges="links")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, json.JSONDecodeError,
            KeyError, TypeError) as err:
        raise KGNotFound(f"{path}: damaged ({err}); {_rebuild_hint(kg_dir)}") from None
