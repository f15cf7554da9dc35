"""Shared pieces of the concept benchmarks: the fixed sample, stemming, P/R/F1, baselines.

Baseline outputs (vanilla KeyBERT, YAKE) are cached per paper in a JSON Lines file under
the work directory, so a rerun of the benchmark only recomputes paperkg's own side.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared/data/iclr2025/papers.jsonl.gz"
SEED = 2025


@dataclass(frozen=True)
class Record:
    id: str
    title: str
    abstract: str
    keywords: tuple[str, ...]
    decision: str | None


def load_corpus(path: Path = CORPUS) -> list[Record]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [Record(r["id"], r.get("title") or "", r["abstract"], tuple(r.get("keywords") or ()),
                   r.get("decision")) for r in rows]


def load_benchmark(path: Path) -> list[Record]:
    """A public keyphrase benchmark kept outside the repository, as JSON Lines with id,
    title, abstract and keywords (a list, or one string split at ';', as the SemEval-2010
    set ships them). Its keywords may come stemmed: `prf` matches a phrase's stem against
    a keyword's stem or the keyword as given. A repeated id keeps its first record."""
    out: dict[str, Record] = {}
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                kw = r["keywords"]
                if str(r["id"]) in out:
                    continue
                out[str(r["id"])] = Record(str(r["id"]), r.get("title") or "", r["abstract"],
                                           tuple(k.strip() for k in (kw.split(";") if isinstance(
                                               kw, str) else kw) if k.strip()), None)
            except (ValueError, KeyError, AttributeError) as err:
                raise SystemExit(f"{path}:{n}: not a benchmark record ({err}): each line "
                                 "needs id, abstract and keywords") from None
    return list(out.values())


def sample(records: Sequence[Record], n: int, seed: int = SEED) -> list[Record]:
    """A fixed random sample of papers that have author keywords."""
    pool = sorted((r for r in records if r.keywords), key=lambda r: r.id)
    return random.Random(seed).sample(pool, n)


HELD_OUT = 1000


def held_out(records: Sequence[Record]) -> list[Record]:
    """The benchmark's held-out papers: never in a fitted weight or the packaged prior.
    A benchmark of n papers scores the first n of them."""
    return sample(records, HELD_OUT)


def fitting_records() -> list[Record]:
    """The corpus less the benchmark's held-out papers: what packaged statistics may read."""
    records = load_corpus()
    skip = {r.id for r in held_out(records)}
    return [r for r in records if r.id not in skip]


def write_word_counts(path: Path, section: str, counts: dict[str, list[int]], rule: str,
                      legend: str) -> None:
    """A packaged word list (`build_verbs.py`, `build_field_words.py`): its rule, what the
    counts are, and one word a line, sorted, so a rebuilt list diffs word by word."""
    rows = ",\n".join(f"  {json.dumps(w)}: {json.dumps(c)}" for w, c in sorted(counts.items()))
    head = json.dumps({"rule": rule, "counts": legend})
    path.write_text(f'{head[:-1]},\n"{section}": {{\n{rows}\n}}}}\n', encoding="utf-8")


@cache
def _stemmer() -> Callable[[str], str]:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer().stem


def stem_phrase(phrase: str) -> str:
    """Porter-stemmed, lower-cased words joined by one space; hyphens split words."""
    stem = _stemmer()
    return " ".join(stem(w) for w in re.findall(r"[a-z0-9]+", phrase.lower()))


def _as_given(phrase: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", phrase.lower()))


def dedupe_stemmed(phrases: Iterable[str]) -> list[str]:
    out: list[str] = []
    for p in phrases:
        s = stem_phrase(p)
        if s and s not in out:
            out.append(s)
    return out


def prf(predicted: Sequence[str], gold: Sequence[str], k: int) -> tuple[float, float, float]:
    """P, R, F1 at k for one paper: P divides by k, R by the number of gold keywords."""
    pred = set(dedupe_stemmed(predicted)[:k])
    # each keyword's accepted forms: its stem, and as given (a benchmark's keywords come
    # stemmed already); SemEval-2010 writes alternatives with "+"
    truth = {stem_phrase(g): {f(a) for a in g.split("+") for f in (stem_phrase, _as_given)}
             for g in gold if stem_phrase(g)}
    hits = sum(1 for forms in truth.values() if forms & pred)
    p = hits / k
    r = hits / len(truth) if truth else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def mean_prf(preds: dict[str, list[str]], sample_: Sequence[Record], k: int) -> dict[str, float]:
    rows = [prf(preds.get(r.id, []), r.keywords, k) for r in sample_]
    n = len(rows)
    return {f"P@{k}": 100 * sum(r[0] for r in rows) / n,
            f"R@{k}": 100 * sum(r[1] for r in rows) / n,
            f"F1@{k}": 100 * sum(r[2] for r in rows) / n}


class ResultCache:
    """Per-paper baseline output keyed by method+params and a hash of the input text."""

    def __init__(self, path: Path, method: str) -> None:
        self.path, self.method = path, method
        self.data: dict[str, list[str]] = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue
                self.data[row["k"]] = row["v"]

    def key(self, text: str) -> str:
        return hashlib.sha1(f"{self.method}\n{text}".encode()).hexdigest()

    def get(self, text: str) -> list[str] | None:
        return self.data.get(self.key(text))

    def put(self, text: str, value: list[str]) -> None:
        k = self.key(text)
        self.data[k] = value
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"k": k, "v": value}) + "\n")


def baseline_text(r: Record) -> str:
    return f"{r.title}. {r.abstract}" if r.title else r.abstract


def run_keybert(records: Sequence[Record], work: Path, top_n: int = 10) -> dict[str, list[str]]:
    """Vanilla KeyBERT as the issue states it: 1-3-grams, English stop words, MMR 0.5, MiniLM.

    KeyBERT's own batch mode (a list of documents: one CountVectorizer, each n-gram embedded
    once) with MiniLM run through paperkg's ONNX embedder, which gives the same vectors as
    sentence-transformers (tests/test_extract.py) about twice as fast here.
    """
    cache_ = ResultCache(work / "keybert.jsonl", f"keybert-1-3-english-mmr0.5-top{top_n}")
    todo = [r for r in records if cache_.get(baseline_text(r)) is None]
    if todo:
        from keybert import KeyBERT
        from keybert.backend import BaseEmbedder

        from paperkg.build.embed import make_embedder

        embedder = make_embedder("onnx", work / "cache")

        class Backend(BaseEmbedder):
            def embed(self, documents: list[str], verbose: bool = False) -> object:
                return embedder.encode(list(documents))

        kw_model = KeyBERT(Backend())
        for start in range(0, len(todo), 100):
            chunk = todo[start:start + 100]
            print(f"vanilla KeyBERT: papers {start + 1}-{start + len(chunk)} of {len(todo)}",
                  flush=True)
            outs = kw_model.extract_keywords(
                [baseline_text(r) for r in chunk], keyphrase_ngram_range=(1, 3),
                stop_words="english", use_mmr=True, diversity=0.5, top_n=top_n)
            for r, out in zip(chunk, outs, strict=True):
                cache_.put(baseline_text(r), [p for p, _ in out])
    return {r.id: cache_.get(baseline_text(r)) or [] for r in records}


def run_yake(records: Sequence[Record], work: Path, top_n: int = 10) -> dict[str, list[str]]:
    """YAKE with n=3 (its other settings at their defaults)."""
    cache_ = ResultCache(work / "yake.jsonl", f"yake-n3-top{top_n}")
    todo = [r for r in records if cache_.get(baseline_text(r)) is None]
    if todo:
        import yake

        ex = yake.KeywordExtractor(lan="en", n=3, top=top_n)
        for r in todo:
            cache_.put(baseline_text(r), [p for p, _ in ex.extract_keywords(baseline_text(r))])
    return {r.id: cache_.get(baseline_text(r)) or [] for r in records}
