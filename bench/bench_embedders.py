"""Compare the ONNX MiniLM embedders with sentence-transformers on real ICLR 2025 text.

    HF_HUB_OFFLINE=1 PYTHONPATH=src python bench/bench_embedders.py [--abstracts 200]
        [--phrases 4000] [--agree 200] [--repeats 3] [--cache-dir DIR]
        [--corpus ../shared/data/iclr2025/papers.jsonl.gz] [--variants fp32,int8]

Texts: the first --abstracts abstracts (cleaned as the pipeline does) and the first --phrases
of their distinct lower-cased candidate phrases (shuffled, seeded). Speed: each round times
every embedder on both sets in turn; the table gives the median texts/s over --repeats rounds
and the median of the per-round speed-ups over sentence-transformers. Agreement with
sentence-transformers: cosine per text, and for the first --agree abstracts the overlap of the
top-10 candidate phrases ranked by cosine(abstract, phrase); and self-consistency: the min
cosine between a text's vectors when encoded among different batch-mates. Without
--cache-dir the ONNX models are exported afresh into a temporary folder, so the one-time
export is timed too ("first call s").
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from paperkg.build.embed import Embedder, MiniLMEmbedder  # noqa: E402
from paperkg.build.onnx_embed import OnnxMiniLMEmbedder  # noqa: E402
from paperkg.build.text import candidates, clean_text  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared/data/iclr2025/papers.jsonl.gz"


def read_abstracts(path: Path, n: int) -> list[str]:
    out: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            text = clean_text(json.loads(line).get("abstract") or "")
            if text:
                out.append(text)
            if len(out) >= n:
                break
    return out


def phrases_of(abstract: str) -> list[str]:
    return sorted({c.text.lower() for c in candidates(abstract)})


def timed(embedder: Embedder, texts: list[str]) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    vecs = embedder.encode(texts)
    return time.perf_counter() - start, vecs


def rebatched(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """The same texts encoded again with other batch-mates (odd and even rows apart)."""
    out = np.zeros((len(texts), 0), dtype=np.float32)
    for part in (slice(0, None, 2), slice(1, None, 2)):
        vecs = embedder.encode(texts[part])
        if out.shape[1] == 0:
            out = np.zeros((len(texts), vecs.shape[1]), dtype=np.float32)
        out[part] = vecs
    return out


def overlap_at_10(abstracts: np.ndarray, phrases: np.ndarray, ref_abs: np.ndarray,
                  ref_phr: np.ndarray, groups: list[np.ndarray]) -> tuple[float, int, int]:
    """Mean and min top-10 overlap, and how many abstracts had at least 10 candidates."""
    hits = []
    for k, idx in enumerate(groups):
        if len(idx) < 10:
            continue
        ref = idx[np.argsort(-(ref_phr[idx] @ ref_abs[k]), kind="stable")[:10]]
        got = idx[np.argsort(-(phrases[idx] @ abstracts[k]), kind="stable")[:10]]
        hits.append(len(set(ref.tolist()) & set(got.tolist())))
    return float(np.mean(hits)), int(min(hits)), len(hits)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--abstracts", type=int, default=200, help="abstracts timed")
    ap.add_argument("--phrases", type=int, default=4000, help="distinct phrases timed")
    ap.add_argument("--agree", type=int, default=200, help="abstracts for top-10 overlap")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--variants", default="fp32,int8", help="ONNX variants: fp32,int8,int8r")
    ap.add_argument("--cache-dir", type=Path, default=None)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = ap.parse_args(argv)

    abstracts = read_abstracts(args.corpus, max(args.abstracts, args.agree))
    all_phrases = sorted({p for a in abstracts[: args.abstracts] for p in phrases_of(a)})
    random.Random(0).shuffle(all_phrases)
    timed_abs, timed_phr = abstracts[: args.abstracts], all_phrases[: args.phrases]
    agree_abs = abstracts[: args.agree]
    agree_phr = sorted({p for a in agree_abs for p in phrases_of(a)})
    pos = {p: i for i, p in enumerate(agree_phr)}
    groups = [np.array([pos[p] for p in phrases_of(a)], dtype=np.int64) for a in agree_abs]
    print(f"# {len(timed_abs)} abstracts (mean {np.mean([len(a) for a in timed_abs]):.0f} chars), "
          f"{len(timed_phr)} phrases (mean {np.mean([len(p) for p in timed_phr]):.1f} chars) "
          f"timed; agreement on {len(agree_abs)} abstracts, {len(agree_phr)} phrases; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}", file=sys.stderr)

    tmp = None if args.cache_dir else tempfile.TemporaryDirectory(prefix="bench-onnx-")
    cache = args.cache_dir or Path(tmp.name)  # type: ignore[union-attr]
    kinds = {"fp32": (False, False), "int8": (True, False), "int8r": (True, True)}
    embedders: dict[str, Embedder] = {"sentence-transformers": MiniLMEmbedder()}
    setup: dict[str, float] = {}
    for v in args.variants.split(","):
        onnx = OnnxMiniLMEmbedder(cache, quantize=kinds[v][0], reduce_range=kinds[v][1])
        embedders[onnx.name] = onnx
    for name, emb in embedders.items():
        start = time.perf_counter()
        emb.encode(timed_phr[:64])  # load (and export), warm up
        setup[name] = time.perf_counter() - start
        print(f"# {name}: first call {setup[name]:.1f} s", file=sys.stderr)

    secs: dict[tuple[str, str], list[float]] = {}
    for r in range(args.repeats):
        for name, emb in embedders.items():
            for label, texts in (("abstracts", timed_abs), ("phrases", timed_phr)):
                secs.setdefault((name, label), []).append(timed(emb, texts)[0])
        print(f"# round {r + 1}/{args.repeats} done, load {os.getloadavg()[0]:.2f}",
              file=sys.stderr)

    ref = embedders["sentence-transformers"]
    ref_abs, ref_phr = ref.encode(agree_abs), ref.encode(agree_phr)
    print("| embedder | abstracts/s | x ST | phrases/s | x ST | cos abs mean/min "
          "| cos phr mean/min | top-10 overlap mean/min | self min cos | first call s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, emb in embedders.items():
        cells = []
        for label, n in (("abstracts", len(timed_abs)), ("phrases", len(timed_phr))):
            mine, base = secs[(name, label)], secs[("sentence-transformers", label)]
            cells.append(f"{n / statistics.median(mine):.1f}")
            cells.append(f"{statistics.median(b / m for b, m in zip(base, mine, strict=True)):.2f}")
        va, vp = emb.encode(agree_abs), emb.encode(agree_phr)
        ca, cp = (va * ref_abs).sum(1), (vp * ref_phr).sum(1)
        ov, ov_min, n_ov = overlap_at_10(va, vp, ref_abs, ref_phr, groups)
        self_cos = min(float((rebatched(emb, texts) * v).sum(1).min())
                       for texts, v in ((agree_abs, va), (agree_phr, vp)))
        cells += [f"{ca.mean():.4f} / {ca.min():.4f}", f"{cp.mean():.4f} / {cp.min():.4f}",
                  f"{ov:.2f} / {ov_min} (n={n_ov})", f"{self_cos:.4f}", f"{setup[name]:.1f}"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
