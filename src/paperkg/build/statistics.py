"""Statistics epochs: the corpus statistics a KG was extracted under, and each paper's
extraction result, kept in the KG directory.

A paper's ranked concepts depend on two statistics of its corpus (`build.corpus`): the
keyword prior (with the known terms it implies) and the corpus share. A build learns them
from all its papers and stores them here (`kgdir.STATISTICS`), with every paper's ranked
concepts (`kgdir.RANKED`). `paperkg add`/`remove` then extract only new and changed
papers, under the stored statistics, and take the other papers' results from the KG
itself, never from the cache: the KG stays a function of its papers and its statistics.
Relearning the statistics (`add --relearn-statistics`, or a plain build) starts a new
epoch; `build --statistics-from KG_DIR` builds under another KG's statistics, which is
what an `add` equals.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from paperkg.build.canon import TextFacts
from paperkg.build.corpus import CorpusStats
from paperkg.build.extract import CorpusShare
from paperkg.build.gcpause import paused_gc
from paperkg.build.ingest import Paper
from paperkg.build.kinds import PaperRoles
from paperkg.build.prior import KeywordPrior
from paperkg.build.terms import Abbreviation
from paperkg.errors import KGNotFound
from paperkg.kgdir import RANKED, STATISTICS

__all__ = ["STALE_SHARE", "Epoch", "PaperResult", "content_key", "facts_code", "load_epoch",
           "read_results", "save_epoch", "statistics_entry", "write_results"]

Ranked = list[tuple[str, float]]
MentionRow = tuple[str, str, float, int, str]  # concept id, surface, score, rank, role
FORMAT = 1


@dataclass(frozen=True, slots=True)
class Epoch:
    """Corpus statistics and when they were learned: from `papers` papers (their content
    keys in `learned`), at `learned_at`; `corpus` is the extractor's "corpus" parameter."""

    stats: CorpusStats
    corpus: str
    learned_at: str
    max_words: int
    learned: Mapping[str, str]  # paper id -> content key, the papers counted

    @property
    def papers(self) -> int:
        return len(self.learned)

    def new_since(self, keys: Mapping[str, str]) -> int:
        """Papers (content keys by id) not counted in these statistics (new, or changed
        since)."""
        return sum(1 for i, k in keys.items() if self.learned.get(i) != k)


@dataclass(frozen=True, slots=True)
class PaperResult:
    """One paper's extraction result, what the scheme read from its text, and the
    mentions the KG made of it."""

    key: str
    ranked: Ranked
    mentions: tuple[MentionRow, ...]
    facts: TextFacts


def facts_code() -> str:
    """The code that reads a paper's text facts (abbreviations, what it proposes and
    evaluates on). A KG records it: stored facts made by other code are read again from
    the texts, or an update would differ from a build of the same papers."""
    from paperkg.build.fingerprint import source_fingerprint

    return source_fingerprint("paperkg.build.kinds", "paperkg.build.terms",
                              "paperkg.build.text")


def content_key(paper: Paper) -> str:
    """A hash of what a paper's extraction and text facts read of it: title, abstract and
    keywords (as given: cleaning them for the cache's key took seconds per update)."""
    text = "\x00".join((paper.title or "", paper.abstract, "\x1f".join(paper.keywords)))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def save_epoch(kg: Path, epoch: Epoch) -> None:
    prior = epoch.stats.prior
    row: dict[str, Any] = {
        "format": FORMAT, "corpus": epoch.corpus, "learned_at": epoch.learned_at,
        "max_words": epoch.max_words, "fingerprint": epoch.stats.fingerprint,
        "learned": dict(sorted(epoch.learned.items())),
        "share": {"papers": epoch.stats.share.papers, "df": epoch.stats.share.df},
        "prior": None if prior is None else {
            "papers": prior.papers, "source": prior.source, "packaged": prior.packaged,
            "keyword": prior.keyword, "candidate": prior.candidate, "both": prior.both,
            # hashing the counts again took 0.6 s of every `paperkg add`
            "fingerprint": prior.fingerprint()},
    }
    with gzip.open(kg / STATISTICS, "wt", encoding="utf-8", compresslevel=3) as fh:
        fh.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")))


@paused_gc()
def load_epoch(kg: Path) -> Epoch | None:
    """The statistics stored in the KG at `kg`; None for a KG built before they were."""
    path = kg / STATISTICS
    if not path.is_file():
        return None
    import orjson  # half the time of json here: 0.25 s of every update

    try:
        with gzip.open(path, "rb") as fh:
            row = orjson.loads(fh.read())
        if row.get("format") != FORMAT:
            raise ValueError(f"format {row.get('format')!r}, expected {FORMAT}")
        p = row["prior"]
        prior = None if p is None else KeywordPrior(
            Counter(p["keyword"]), Counter(p["candidate"]), Counter(p["both"]),
            int(p["papers"]), str(p["source"]), bool(p["packaged"]),
            _fingerprint=str(p.get("fingerprint") or ""))  # stored before it: hashed when asked
        share = CorpusShare.from_counts(Counter(row["share"]["df"]), int(row["share"]["papers"]))
        stats = CorpusStats(prior, share, str(row["fingerprint"]))
        return Epoch(stats, str(row["corpus"]), str(row["learned_at"]), int(row["max_words"]),
                     dict(row["learned"]))
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError, KeyError,
            TypeError, AttributeError) as err:
        raise KGNotFound(f"{path}: damaged ({err}); relearn the statistics with 'paperkg "
                         f"add --kg {kg} --relearn-statistics' or rebuild the KG") from None


def write_results(path: Path, papers: Sequence[Paper], ranked: Mapping[str, Ranked],
                  mentions: Mapping[str, Sequence[Any]], facts: Mapping[str, TextFacts],
                  keys: Mapping[str, str]) -> None:
    """One line per paper: id, content key, ranked concepts, mentions, text facts
    (`kgdir.RANKED`)."""
    lines = []
    for p in papers:
        ms = [[m.concept_id, m.surface, m.score, m.rank, m.role]
              for m in mentions.get(p.id, ())]
        f = facts[p.id]
        lines.append(orjson.dumps([p.id, keys[p.id], ranked[p.id], ms,
                                   [[a.short, a.long] for a in f.defs], f.roles.proposes,
                                   f.roles.evaluated_on]))
    with gzip.open(path, "wb", compresslevel=3) as fh:
        fh.write(b"".join(line + b"\n" for line in lines))


@paused_gc()
def read_results(kg: Path) -> dict[str, PaperResult] | None:
    """The per-paper results stored in the KG at `kg`; None for a KG without them."""
    path = kg / RANKED
    if not path.is_file():
        return None
    out: dict[str, PaperResult] = {}
    try:
        with gzip.open(path, "rb") as fh:
            for line in fh:
                pid, key, ranked, ms, defs, proposes, evaluated = orjson.loads(line)
                facts = TextFacts([Abbreviation(a, b) for a, b in defs],
                                  PaperRoles(tuple(proposes), tuple(evaluated)))
                out[pid] = PaperResult(key, [(str(a), float(b)) for a, b in ranked],
                                       tuple((c, s, float(sc), int(r), role)
                                             for c, s, sc, r, role in ms), facts)
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError, TypeError) as err:
        raise KGNotFound(f"{path}: damaged ({err}); relearn the statistics with 'paperkg "
                         f"add --kg {kg} --relearn-statistics' or rebuild the KG") from None
    return out


#: `add` suggests relearning the statistics when more than this share of the KG's papers
#: were not counted in them.
STALE_SHARE = 0.1


def statistics_entry(epoch: Epoch, keys: Mapping[str, str]) -> dict[str, Any]:
    """The manifest's account of the statistics: when learned, from how many papers, and
    how many of the KG's papers (content keys by id) are new (or changed) since."""
    since = epoch.new_since(keys)
    return {"learned_at": epoch.learned_at, "papers": epoch.papers,
            "fingerprint": epoch.stats.fingerprint, "new_since": since,
            "stale": since > STALE_SHARE * max(epoch.papers, 1)}
