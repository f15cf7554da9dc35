"""The extraction step of a build: corpus statistics, cache, cluster, batches.

`build.extract` ranks one batch of papers; this runs it over a corpus the way a build
needs: the statistics learned from all papers (`_extract`, counted here or on Dask) or
taken from a stored epoch (`_extract_under`), cached results reused, the rest extracted
in batches of EXTRACT_BATCH papers, here or on the cluster.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from paperkg.build.embed import Embedder
from paperkg.build.extract import ExtractorInfo, ExtractSettings
from paperkg.build.ingest import Paper
from paperkg.build.prior import KeywordPrior
from paperkg.build.statistics import Epoch
from paperkg.errors import UsageError
from paperkg.progress import Reporter
from paperkg.settings import Settings

if TYPE_CHECKING:
    from paperkg.build.counts import MapSum
    from paperkg.build.distributed import Cluster

__all__ = ["EXTRACT_BATCH", "Ranked", "extract_papers", "extractor_under", "keyword_prior"]

Ranked = list[tuple[str, float]]
EXTRACT_BATCH = 2_000  # papers extracted at a time (their phrases and vectors in memory)


def _extract(
    papers: Sequence[Paper], settings: Settings, rep: Reporter
) -> tuple[ExtractorInfo, dict[str, Ranked], Embedder, Any]:
    """`_extract_on` here, or on the Dask cluster the settings name: one client for the
    corpus counts and the extraction."""
    if not settings.on_cluster:
        return _extract_on(papers, settings, rep, None)
    from paperkg.build.distributed import Cluster

    with Cluster(settings, rep) as cluster:
        return _extract_on(papers, settings, rep, cluster)


def _extract_on(
    papers: Sequence[Paper], settings: Settings, rep: Reporter, cluster: Cluster | None
) -> tuple[ExtractorInfo, dict[str, Ranked], Embedder, Any]:
    """Ranked concepts per paper; papers whose text was extracted before (under the same
    corpus statistics) come from the cache."""
    from paperkg.build.cache import ExtractionCache
    from paperkg.build.corpus import corpus_stats
    from paperkg.build.embed import make_embedder

    embedder = make_embedder(settings.embedder, settings.cache)
    if cluster is None:
        _prepare(embedder)
    ext = ExtractSettings.of(settings)
    prior = keyword_prior(papers, settings, rep, cluster)
    rep.step("counting the corpus share of every candidate phrase")
    stats = corpus_stats(papers, prior, ext.max_words, rep.stage, cluster)
    info = ext.info(embedder.name, prior)
    info = replace(info, params={**info.params,
                                 "corpus": f"{len(papers)} papers, {stats.fingerprint}"})
    cache = ExtractionCache(settings.cache, info) if settings.cache else None
    hits, todo = cache.split(papers) if cache else ({}, list(papers))
    rep.step(f"extracting concepts: {len(todo)} papers to do, {len(hits)} from the cache")
    if todo and cluster is not None:  # the same step, on Dask workers
        from paperkg.build.distributed import extract_on_cluster
        fresh, embedder = extract_on_cluster(todo, embedder, ext, stats, rep, settings,
                                             cluster=cluster)
    else:
        fresh = extract_papers(todo, embedder, ext, stats, rep) if todo else {}
    if cache and todo:
        cache.add(todo, fresh)
    return (info, {p.id: hits[p.id] if p.id in hits else fresh[p.id] for p in papers},
            embedder, stats)


def _prepare(embedder: Embedder) -> None:
    """The static embedder's model made (`StaticEmbedder.prepare`) before the corpus
    statistics are in memory."""
    from paperkg.build.embed import CachedEmbedder
    from paperkg.build.staticmap import MappedEmbedder

    inner = embedder.inner if isinstance(embedder, CachedEmbedder) else embedder
    if isinstance(inner, MappedEmbedder):
        inner.static.prepare()


def extractor_under(epoch: Epoch, settings: Settings
                    ) -> tuple[ExtractorInfo, Embedder, ExtractSettings]:
    """The extractor (its provenance, embedder and settings) that ranks under `epoch`.
    An update compares it with the KG's: stored results made by another extractor
    (other settings, model or code) cannot be kept."""
    from paperkg.build.embed import make_embedder

    embedder = make_embedder(settings.embedder, settings.cache)
    ext = ExtractSettings.of(settings)
    info = ext.info(embedder.name, epoch.stats.prior)
    return replace(info, params={**info.params, "corpus": epoch.corpus}), embedder, ext


def _extract_under(
    papers: Sequence[Paper], epoch: Epoch, known: Mapping[str, Ranked], settings: Settings,
    rep: Reporter,
) -> tuple[ExtractorInfo, dict[str, Ranked], Embedder]:
    """`_extract` under stored statistics: nothing is counted; papers in `known` keep
    their results, the others come from the cache or are extracted."""
    from paperkg.build.cache import ExtractionCache

    info, embedder, ext = extractor_under(epoch, settings)
    if epoch.max_words != ext.max_words:
        raise UsageError(f"the stored statistics cut phrases of up to {epoch.max_words} "
                         f"words, this paperkg {ext.max_words}: relearn them")
    stats = epoch.stats
    rep.step(f"corpus statistics: stored ({epoch.papers} papers, learned {epoch.learned_at})")
    rest = [p for p in papers if p.id not in known]
    cache = ExtractionCache(settings.cache, info) if settings.cache and rest else None
    hits, todo = cache.split(rest) if cache else ({}, rest)
    rep.step(f"extracting concepts: {len(todo)} papers to do, {len(hits)} from the cache, "
             f"{len(papers) - len(rest)} kept from the KG")
    if todo and settings.on_cluster:
        from paperkg.build.distributed import extract_on_cluster
        fresh, embedder = extract_on_cluster(todo, embedder, ext, stats, rep, settings)
    else:
        fresh = extract_papers(todo, embedder, ext, stats, rep) if todo else {}
    if cache and todo:
        cache.add(todo, fresh)
    out = {p.id: known[p.id] if p.id in known else hits[p.id] if p.id in hits else fresh[p.id]
           for p in papers}
    return info, out, embedder


def extract_papers(
    todo: Sequence[Paper], embedder: Embedder, ext: ExtractSettings, stats: Any, rep: Reporter,
    batch_size: int = EXTRACT_BATCH, foreign: dict[str, str] | None = None,
) -> dict[str, Ranked]:
    """The per-paper step: papers in, ranked concepts per paper id out. Each result depends
    on its paper, the settings, the model and the corpus `stats` only, so any split of
    `todo` (cache misses, a worker's share) gives the same results. The papers not in
    English go into `foreign` (id → language) when it is given, for the caller to report
    (a worker's share), else they are reported here."""
    from paperkg.build.extract import extract_concepts
    from paperkg.build.language import foreign_note

    out: dict[str, Ranked] = {}
    report = foreign is None
    foreign = {} if foreign is None else foreign
    for start in range(0, len(todo), batch_size):  # memory per batch, not per corpus
        batch = todo[start:start + batch_size]
        if len(todo) > batch_size:
            rep.step(f"papers {start + 1}-{start + len(batch)} of {len(todo)}")
        out.update(extract_concepts(batch, embedder, ext, rep.stage, stats.prior, stats.share,
                                    foreign=foreign))
    if foreign and report:
        rep.step(foreign_note(foreign))
    return out


def keyword_prior(
    papers: Sequence[Paper], settings: Settings, rep: Reporter, counter: MapSum | None = None
) -> KeywordPrior | None:
    """The keyword prior (`prior.choose_prior`): these papers' own when enough of them have
    author keywords, else the packaged ICLR 2025 statistics (unless turned off), else None."""
    from paperkg.build.prior import choose_prior
    from paperkg.build.text import document_text

    n_kw = sum(1 for p in papers if p.keywords)
    prior = choose_prior(papers, document_text, settings.cache, not settings.no_packaged_prior,
                         rep.stage("keyword prior", n_kw), counter)
    rep.step(f"keyword prior: {prior.source} ({prior.papers} papers)" if prior else
             "keyword prior: none (ranking without keyword statistics)")
    return prior
