"""Fit the static embedder's linear map onto MiniLM's space (issue 14: the fast path).

    python bench/fit_static_map.py [--papers 3000] [--ridge 1.0] [--write]

The static embedder (model2vec's distillation of MiniLM) averages context-free token
vectors, so its phrase-to-abstract cosines rank a paper's candidates differently from
MiniLM's (Spearman about 0.6-0.7 on the arXiv, OpenAlex, Semantic Scholar and BibTeX
samples). One linear map (ridge regression with a bias, the same for phrases and abstracts)
from its vectors onto MiniLM's (through ONNX, fp32) brings them closer. It is fitted on
the candidate phrases and the abstracts of `--papers` ICLR 2025 papers outside the keyword
benchmark's held-out sample (bench/keywords_eval.held_out, seed 11), and measured on the
real source samples (../shared/data/sources), text unlike ICLR that the fit never saw:
within-paper Spearman of the phrase-abstract cosines against MiniLM's and the overlap of
the ten nearest phrases, unmapped and mapped. `--write` stores the map, with the unmapped
vectors of a few probe phrases that tell a different distillation apart, as
paperkg/build/data/static_map.npz (weights fitted on the corpus, no text of it).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import CORPUS, held_out, load_corpus  # noqa: E402

from paperkg.build.embed import (  # noqa: E402
    STATIC_MAP,
    STATIC_PROBES,
    Embedder,
    StaticEmbedder,
    make_embedder,
)
from paperkg.build.ingest import Paper, read_papers  # noqa: E402
from paperkg.build.prior import packaged_prior  # noqa: E402
from paperkg.build.text import MAX_WORDS, KnownTerms, candidates, document_text  # noqa: E402

SOURCES = Path(__file__).resolve().parents[2] / "shared" / "data" / "sources"
SAMPLES = ("arxiv_oai.xml", "openalex_works.json", "arxiv_snapshot.jsonl", "s2_papers.json",
           "papers.bib", "papers.csv")


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)


def _texts(papers: list[Paper], known: KnownTerms) -> tuple[list[str], list[list[str]]]:
    docs = [document_text(p) for p in papers]
    return docs, [[c.text.lower() for c in candidates(d, MAX_WORDS, known)] for d in docs]


def _agreement(raw: StaticEmbedder, onnx: Embedder, weights: np.ndarray, known: KnownTerms,
               ) -> None:
    from scipy.stats import spearmanr

    encode = onnx.encode
    print(f"{'sample':22s} papers  Spearman unmapped → mapped   top-10 overlap")
    for name in SAMPLES:
        docs, cands = _texts(read_papers([SOURCES / name]).papers, known)
        rho: dict[str, list[float]] = {"raw": [], "map": []}
        top: dict[str, list[float]] = {"raw": [], "map": []}
        for doc, cs in zip(docs, cands, strict=True):
            if len(cs) < 12:
                continue
            ref = _unit(encode(cs)) @ _unit(encode([doc]))[0]
            near = set(np.argsort(-ref)[:10])
            ps, ds = raw.encode(cs), raw.encode([doc])
            for kind, cos in (("raw", ps @ ds[0]),
                              ("map", _apply(weights, ps) @ _apply(weights, ds)[0])):
                rho[kind].append(float(spearmanr(cos, ref).correlation))
                top[kind].append(len(near & set(np.argsort(-cos)[:10])) / 10)
        print(f"{name:22s} {len(rho['raw']):6d}  {np.mean(rho['raw']):.3f} → "
              f"{np.mean(rho['map']):.3f}            {np.mean(top['raw']):.3f} → "
              f"{np.mean(top['map']):.3f}")


def _apply(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    return _unit(np.hstack([x, np.ones((len(x), 1), dtype=x.dtype)]) @ weights)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=3000)
    ap.add_argument("--ridge", type=float, default=1.0)
    ap.add_argument("--work", type=Path, default=Path("/tmp/pkg-bench"))
    ap.add_argument("--write", action="store_true", help=f"store the map in {STATIC_MAP}")
    args = ap.parse_args()

    skip = {r.id for r in held_out(load_corpus())}
    pool = [p for p in read_papers([CORPUS]).papers if p.id not in skip]
    train = random.Random(11).sample(pool, args.papers)
    known = packaged_prior().known()
    docs, cands = _texts(train, known)
    vocab = sorted({c for cs in cands for c in cs})
    cache = args.work / "cache"
    raw = StaticEmbedder(cache)
    onnx = make_embedder("onnx", cache)
    began = time.perf_counter()
    print(f"embedding {len(vocab)} phrases and {len(docs)} abstracts with both models",
          flush=True)
    x = np.vstack([raw.encode(vocab), raw.encode(docs)]).astype(np.float64)
    y = _unit(np.vstack([onnx.encode(vocab), onnx.encode(docs)])).astype(np.float64)
    print(f"embedded in {time.perf_counter() - began:.0f} s; fitting", flush=True)
    x1 = np.hstack([x, np.ones((len(x), 1))])
    weights = np.linalg.solve(x1.T @ x1 + args.ridge * np.eye(x1.shape[1]), x1.T @ y)
    weights = weights.astype(np.float32)
    _agreement(raw, onnx, weights, known)
    if args.write:
        from importlib.metadata import version

        np.savez_compressed(STATIC_MAP, weights=weights,
                            probes=raw.encode(list(STATIC_PROBES)).astype(np.float32),
                            model2vec=np.array(version("model2vec")),
                            papers=np.array(args.papers), ridge=np.array(args.ridge))
        print(f"written to {STATIC_MAP}")


if __name__ == "__main__":
    main()
