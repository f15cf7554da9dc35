"""Fit the static embedder's map onto MiniLM's space (issue 14: the fast path).

    python bench/fit_static_map.py [--papers 6000] [--hidden 1024] [--epochs 60] [--write]

The static embedder (model2vec's distillation of MiniLM) averages context-free token
vectors, so its phrase-to-abstract cosines rank a paper's candidates differently from
MiniLM's (Spearman about 0.6-0.7 on the arXiv, OpenAlex, Semantic Scholar and BibTeX
samples). A map from its vectors onto MiniLM's (through ONNX, fp32), the same for phrases
and abstracts, brings them closer: a linear map beside one hidden ReLU layer
(`paperkg.build.staticmap.StaticMap`), trained with torch (fixed seed, AdamW, cosine
loss; each abstract counted three times, since a paper has one abstract and ~40
phrases). It is fitted on the candidate phrases and the abstracts of `--papers` ICLR 2025
papers outside the keyword benchmark's held-out sample (bench/keywords_eval.held_out, seed
11), and measured on the real source samples (../shared/data/sources), text unlike ICLR
that the fit never saw: within-paper Spearman of the phrase-abstract cosines against
MiniLM's and the overlap of the ten nearest phrases, unmapped, under a plain linear map
(ridge regression, the map of session 17) and under the network. `--write` stores the map,
with the unmapped vectors of a few probe phrases that tell a different distillation apart,
as paperkg/build/data/static_map.npz (weights fitted on the corpus, no text of it).
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

from paperkg.build.embed import Embedder, StaticEmbedder, make_embedder  # noqa: E402
from paperkg.build.ingest import Paper, read_papers  # noqa: E402
from paperkg.build.prior import packaged_prior  # noqa: E402
from paperkg.build.staticmap import STATIC_MAP, STATIC_PROBES, StaticMap  # noqa: E402
from paperkg.build.text import MAX_WORDS, KnownTerms, candidates, document_text  # noqa: E402

SOURCES = Path(__file__).resolve().parents[2] / "shared" / "data" / "sources"
SAMPLES = ("arxiv_oai.xml", "openalex_works.json", "arxiv_snapshot.jsonl", "s2_papers.json",
           "papers.bib", "papers.csv")
ABSTRACT_WEIGHT = 3  # each abstract counts this many times in the fit


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)


def _texts(papers: list[Paper], known: KnownTerms) -> tuple[list[str], list[list[str]]]:
    docs = [document_text(p) for p in papers]
    return docs, [[c.text.lower() for c in candidates(d, MAX_WORDS, known)] for d in docs]


def _linear(x: np.ndarray, y: np.ndarray, ridge: float = 1.0) -> StaticMap:
    """Ridge regression with a bias: the linear map alone, for comparison."""
    x1 = np.hstack([x, np.ones((len(x), 1))])
    w = np.linalg.solve(x1.T @ x1 + ridge * np.eye(x1.shape[1]), x1.T @ y)
    zero = np.zeros((x.shape[1], 1), dtype=np.float32)
    return StaticMap(hidden=zero, hidden_bias=np.zeros(1, dtype=np.float32),
                     out=np.zeros((1, y.shape[1]), dtype=np.float32),
                     linear=w[:-1].astype(np.float32), bias=w[-1].astype(np.float32))


def _network(x: np.ndarray, y: np.ndarray, hidden: int, epochs: int) -> StaticMap:
    """The linear path and one hidden ReLU layer, trained together on the cosine to
    MiniLM's vector (torch here; numpy applies the weights in paperkg)."""
    import torch

    torch.manual_seed(0)
    xs, ys = torch.tensor(x, dtype=torch.float32), torch.tensor(_unit(y), dtype=torch.float32)
    inner, out = torch.nn.Linear(x.shape[1], hidden), torch.nn.Linear(hidden, y.shape[1])
    linear = torch.nn.Linear(x.shape[1], y.shape[1], bias=False)
    params = [*inner.parameters(), *out.parameters(), *linear.parameters()]
    opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=1e-4)
    for epoch in range(epochs):
        order, total = torch.randperm(len(xs)), 0.0
        for start in range(0, len(xs), 512):
            idx = order[start : start + 512]
            got = out(torch.relu(inner(xs[idx]))) + linear(xs[idx])
            loss = 1 - torch.nn.functional.cosine_similarity(got, ys[idx]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        if epoch % 10 == 9 or epoch == epochs - 1:
            print(f"  epoch {epoch + 1}/{epochs}: mean cosine {1 - total / len(xs):.4f}",
                  flush=True)
    with torch.no_grad():
        return StaticMap(hidden=inner.weight.T.numpy().copy(),
                         hidden_bias=inner.bias.numpy().copy(),
                         out=out.weight.T.numpy().copy(), linear=linear.weight.T.numpy().copy(),
                         bias=out.bias.numpy().copy())


def _agreement(raw: StaticEmbedder, onnx: Embedder, maps: dict[str, StaticMap],
               known: KnownTerms) -> None:
    from scipy.stats import spearmanr

    kinds = ["unmapped", *maps]
    print(f"{'sample':22s} papers  Spearman ({' / '.join(kinds)})   top-10 overlap (same)")
    for name in SAMPLES:
        docs, cands = _texts(read_papers([SOURCES / name]).papers, known)
        rho: dict[str, list[float]] = {k: [] for k in kinds}
        top: dict[str, list[float]] = {k: [] for k in kinds}
        for doc, cs in zip(docs, cands, strict=True):
            if len(cs) < 12:
                continue
            ref = _unit(onnx.encode(cs)) @ _unit(onnx.encode([doc]))[0]
            near = set(np.argsort(-ref)[:10])
            ps, ds = raw.encode(cs), raw.encode([doc])
            for kind in kinds:
                cos = (ps @ ds[0] if kind == "unmapped"
                       else maps[kind].apply(ps) @ maps[kind].apply(ds)[0])
                rho[kind].append(float(spearmanr(cos, ref).correlation))
                top[kind].append(len(near & set(np.argsort(-cos)[:10])) / 10)
        print(f"{name:22s} {len(rho['unmapped']):6d}  "
              + " / ".join(f"{np.mean(rho[k]):.3f}" for k in kinds) + "      "
              + " / ".join(f"{np.mean(top[k]):.3f}" for k in kinds))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=6000)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--epochs", type=int, default=60)
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
    docs_x, docs_y = raw.encode(docs), onnx.encode(docs)
    x = np.vstack([raw.encode(vocab), *[docs_x] * ABSTRACT_WEIGHT]).astype(np.float64)
    y = np.vstack([onnx.encode(vocab), *[docs_y] * ABSTRACT_WEIGHT]).astype(np.float64)
    print(f"embedded in {time.perf_counter() - began:.0f} s; fitting", flush=True)
    maps = {"linear": _linear(x, _unit(y)), "network": _network(x, y, args.hidden, args.epochs)}
    _agreement(raw, onnx, maps, known)
    if args.write:
        from importlib.metadata import version

        np.savez_compressed(STATIC_MAP, **maps["network"].arrays(),
                            probes=raw.encode(list(STATIC_PROBES)).astype(np.float32),
                            model2vec=np.array(version("model2vec")),
                            papers=np.array(args.papers), epochs=np.array(args.epochs))
        print(f"written to {STATIC_MAP}")


if __name__ == "__main__":
    main()
