"""Candidate phrases, KeyBERT-style ranking with the real MiniLM, and the embedding cache."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paperkg.build.asides import NO_ASIDES, Asides
from paperkg.build.embed import CachedEmbedder, MiniLMEmbedder
from paperkg.build.extract import (
    FEATURES,
    CorpusShare,
    ExtractSettings,
    candidate_features,
    extract_concepts,
)
from paperkg.build.ingest import Paper, read_papers
from paperkg.build.select import mmr, nested_pairs
from paperkg.build.terms import term_key
from paperkg.build.text import candidates, clean_text, document_text, tokens

from .conftest import DATA_FILES, SOURCES, seed_abstracts

LATEX_ABSTRACT = (
    r"We prove a regret bound of $O(\sqrt{T \log T})$ for contextual bandits with "
    r"$\mathcal{H}$-smooth losses, improving on \textbf{prior} bounds by 10\%."
)


def _phrases(text: str) -> set[str]:
    return {c.text.lower() for c in candidates(clean_text(text))}


def test_candidates_never_cross_punctuation_stop_words_or_verbs() -> None:
    first = seed_abstracts()[0]
    phrases = _phrases(first)
    # the fake phrases vanilla KeyBERT returns on this abstract
    for fake in ("pt emerged promising", "input maintaining competitive", "pt emerged"):
        assert fake not in phrases
    assert {"prompt tuning", "dynamic prompt corruption", "soft prompts", "gsm8k"} <= phrases
    assert all(len(p.split()) <= 4 for p in phrases)
    assert not any(p.endswith((" of", " the", " and")) for p in phrases)


def test_latex_is_stripped_before_candidates() -> None:
    cleaned = clean_text(LATEX_ABSTRACT)
    assert "$" not in cleaned and "\\" not in cleaned and "mathcal" not in cleaned
    assert "prior" in cleaned and "10%" in cleaned
    phrases = _phrases(LATEX_ABSTRACT)
    assert "contextual bandits" in phrases and "regret bound" in phrases
    assert not any(w in p for p in phrases for w in ("sqrt", "log", "mathcal"))


def test_a_symbol_hyphenated_to_a_word_stays_in_its_name() -> None:
    """413 uses in ICLR 2025's abstracts: "$k$-means", "$Q$-learning", "$n$-gram",
    "$\\epsilon$-stationary" lost their symbol with the math, leaving "means" (no concept)
    or "adic limit" (arXiv 0704.0013's "$p$-adic limit"). And "clustering" after "k-means"
    was read as a verb after a plural ("objectives form"): "k-means" is no plural. Math
    that is not one symbol still goes."""
    phrases = _phrases("We run $k$-means clustering, $Q$-learning with $n$-grams and the "
                       "$p$-adic limit under $\\varepsilon$-differential privacy, at cost "
                       "$O(n)$-time.")
    assert {"k-means clustering", "q-learning", "n-grams", "p-adic limit",
            "ε-differential privacy"} <= phrases, phrases
    assert not {"adic limit", "time"} & phrases, phrases
    assert "objectives form" not in _phrases("The objectives form a set.")
    # a number too (ICLR 2025: "employing $1$-step attacks" gave "step attacks")
    assert "1-step attacks" in _phrases("We find that employing $1$-step attacks fails.")


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_mmr_selects_what_keybert_selects(minilm: MiniLMEmbedder) -> None:
    keybert_mmr = pytest.importorskip("keybert._mmr").mmr
    doc = seed_abstracts()[0]
    words = sorted(_phrases(doc))
    vecs = minilm.encode(words)
    doc_vec = minilm.encode([clean_text(doc)])[0]
    ours = [(words[i], s) for i, s in mmr(doc_vec, vecs, top_n=8, diversity=0.5)]
    theirs = keybert_mmr(doc_vec.reshape(1, -1), vecs, words, top_n=8, diversity=0.5)
    assert [w for w, _ in ours] == [w for w, _ in theirs]
    assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], abs=1e-3)


def test_demo_extraction_ranks_real_concepts(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    papers = read_papers(DATA_FILES).papers
    cached = CachedEmbedder(minilm, tmp_path)
    out = extract_concepts(papers, cached, ExtractSettings(top_n=10))
    assert len(out) == 38
    for paper in papers:
        ranked = out[paper.id]
        # at least the best three and more; the tree-ensemble paper keeps four since its
        # "(NP-)hardness", named once, is an aside (`asides.lone_word`)
        assert len(ranked) >= 4, paper.label
        scores = [s for _, s in ranked]
        assert scores == sorted(scores, reverse=True)
        assert all(-1.0 <= s <= 1.0 for s in scores)
    dpc = {label.lower() for label, _ in out[papers[0].id]}
    assert "dynamic prompt corruption" in dpc
    # no idea fills the list: a pick has at most one other pick nested in it or around it
    # ("model fusion" / "deep model fusion", never also "model fusion techniques")
    for paper in papers:
        keys = [term_key(label) for label, _ in out[paper.id]]
        assert nested_pairs(keys).sum(axis=1).max() <= 1, (paper.label, keys)
    # a second run is served from the cache and gives exactly the same result
    misses = cached.misses
    again = extract_concepts(papers, CachedEmbedder(minilm, tmp_path), ExtractSettings(top_n=10))
    assert again == out
    assert misses > 0


def test_cache_returns_identical_vectors(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    texts = ["graph neural networks", "prompt tuning", "graph neural networks"]
    first = CachedEmbedder(minilm, tmp_path)
    a = first.encode(texts)
    assert first.misses == 2 and first.hits == 1
    second = CachedEmbedder(minilm, tmp_path)
    b = second.encode(texts)
    assert second.misses == 0 and second.hits == 3
    np.testing.assert_array_equal(a, b)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-2)


def test_cache_finds_every_key_and_reads_shard_by_shard_once_released(
        minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    """A key whose hash ends in a zero byte is found again (numpy drops trailing zeros of
    an "S12" value), through the index of the whole cache (a build's many texts) and shard
    by shard (a few texts, or a released cache: what a build does after extraction),
    which stores what it had to embed."""
    zero_end = next(t for i in range(5000) if CachedEmbedder._key(t := f"prompt tuning {i}")
                    .endswith(b"\0"))
    texts = ["graph neural networks", zero_end]
    a = CachedEmbedder(minilm, tmp_path).encode(texts)
    indexed = CachedEmbedder(minilm, tmp_path)
    indexed.FEW = 0  # as many texts as a build's: the whole cache is indexed
    np.testing.assert_array_equal(indexed.encode(texts), a)
    assert indexed.misses == 0 and indexed._index is not None
    second = CachedEmbedder(minilm, tmp_path)
    np.testing.assert_array_equal(second.encode(texts), a)
    assert second.misses == 0 and second.hits == 2 and second._index is None
    second.release()
    b = second.encode([zero_end, "diffusion models", "graph neural networks"])
    np.testing.assert_array_equal(b[[0, 2]], a[[1, 0]])
    assert second.misses == 1 and second.hits == 4
    third = CachedEmbedder(minilm, tmp_path)
    np.testing.assert_array_equal(third.encode(["diffusion models"]), b[[1]])
    assert third.misses == 0


def test_onnx_embedder_gives_minilms_vectors(minilm: MiniLMEmbedder, cache_dir: Path) -> None:
    """The ONNX export is the same model: same vectors, not an approximation."""
    from paperkg.build.onnx_embed import OnnxMiniLMEmbedder

    texts = ["graph neural networks", "GSM8K", seed_abstracts()[0], seed_abstracts()[1]]
    reference = minilm.encode(texts)
    exported = OnnxMiniLMEmbedder(cache_dir, quantize=False).encode(texts)
    assert exported.shape == reference.shape == (4, 384)
    assert (exported * reference).sum(axis=1).min() > 0.9999


def test_onnx_vectors_do_not_depend_on_their_batch(cache_dir: Path) -> None:
    """Batches hold texts of one token count only, so a text's vector is the same alone, in
    a mixed list, in other batch sizes and at another thread count: the batches of a
    distributed onnx build cannot change it (issue #12)."""
    from paperkg.build.onnx_embed import OnnxMiniLMEmbedder

    widths: list[set[int]] = []

    class Watched(OnnxMiniLMEmbedder):  # the real embedder, noting each batch's lengths
        def _run(self, session: Any, rows: list[list[int]]) -> np.ndarray:
            widths.append({len(r) for r in rows})
            return super()._run(session, rows)

    abstracts = [clean_text(a) for a in seed_abstracts()[:6]]
    phrases = sorted({c.text for a in abstracts for c in candidates(a)})
    texts = phrases + abstracts
    together = Watched(cache_dir, quantize=False, threads=2).encode(texts)
    assert len(widths) > 3 and all(len(w) == 1 for w in widths)  # never a padded batch
    assert len({w for ws in widths for w in ws}) > 3  # phrases and abstracts of many lengths
    small = OnnxMiniLMEmbedder(cache_dir, quantize=False, threads=1, max_tokens=40)
    alone = np.vstack([small.encode([t]) for t in abstracts + phrases[:20]])
    assert np.array_equal(alone, together[[*range(len(phrases), len(texts)), *range(20)]])
    shuffled = list(range(len(texts)))[::-3] + list(range(len(texts)))[1::3]
    again = small.encode([texts[i] for i in shuffled])
    assert np.array_equal(again, together[shuffled])


def test_static_embedder_is_distilled_offline_and_sensible(cache_dir: Path) -> None:
    from paperkg.build.embed import StaticEmbedder

    vecs = StaticEmbedder(cache_dir).encode(
        ["graph neural network", "graph neural networks", "protein folding"])
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2] + 0.2


@pytest.mark.skipif(not SOURCES.is_dir(), reason=f"needs {SOURCES}")
def test_static_vectors_are_mapped_onto_minilms(minilm: MiniLMEmbedder, cache_dir: Path,
                                                ) -> None:
    """The fast path's map (`staticmap.STATIC_MAP`): on real arXiv abstracts, text
    unlike the ICLR papers the map was fitted on, the static embedder ranks each paper's
    candidates against its abstract more as MiniLM does with the map than without it."""
    from scipy.stats import spearmanr

    from paperkg.build.embed import StaticEmbedder, make_embedder

    mapped, raw = make_embedder("static", cache_dir), StaticEmbedder(cache_dir)
    assert mapped.name.startswith(raw.name + "-map")  # the cache holds the model's own
    rho: dict[str, list[float]] = {"mapped": [], "raw": []}
    for paper in read_papers([SOURCES / "arxiv_oai.xml"]).papers[:12]:
        doc = document_text(paper)
        phrases = [c.text.lower() for c in candidates(doc)]
        ref = minilm.encode(phrases) @ minilm.encode([doc])[0]
        for name, emb in (("mapped", mapped), ("raw", raw)):
            rho[name].append(spearmanr(emb.encode(phrases) @ emb.encode([doc])[0], ref)[0])
    assert np.mean(rho["mapped"]) > np.mean(rho["raw"]) + 0.05, rho


def test_mapped_static_vectors_do_not_depend_on_their_batch(cache_dir: Path) -> None:
    """A phrase embedded alone (an `add` of one paper) gets the very vector it gets among
    hundreds (a build). BLAS sums a row differently by its place in a block (OpenBLAS
    0.3.31: 1e-7 on arXiv phrases under session 17's float32 map); the map computes in
    float64 and rounds to float16's precision."""
    from paperkg.build.embed import StaticEmbedder
    from paperkg.build.staticmap import MappedEmbedder

    static = StaticEmbedder(cache_dir)
    embedder = MappedEmbedder(static)  # no vector cache: the map's own arithmetic
    abstracts = [clean_text(a) for a in seed_abstracts()[:8]]
    texts = sorted({c.text for a in abstracts for c in candidates(a)}) + abstracts
    together = embedder.encode(texts)
    assert len(texts) > 130
    alone = np.vstack([embedder.encode([t]) for t in texts[:40]])
    assert np.array_equal(alone, together[:40])
    shuffled = list(range(len(texts)))[::-3] + list(range(len(texts)))[1::3]
    assert np.array_equal(embedder.encode([texts[i] for i in shuffled]), together[shuffled])


def test_a_few_static_texts_are_computed_as_the_cache_holds_them(
        cache_dir: Path, tmp_path: Path) -> None:
    """An update's few texts on the static path are mapped again, not looked up among the
    cache's shards (slower, and one more shard per update): the vectors are those a
    build's large batch stored in the cache, and the small request writes no shard."""
    from paperkg.build.embed import CachedEmbedder, StaticEmbedder
    from paperkg.build.staticmap import MappedEmbedder

    abstracts = [clean_text(a) for a in seed_abstracts()[:8]]
    texts = sorted({c.text for a in abstracts for c in candidates(a)}) + abstracts
    build = CachedEmbedder(MappedEmbedder(StaticEmbedder(cache_dir)), tmp_path)
    build.FEW = 10  # a build's batch: looked up in and written to the cache
    stored = build.encode(texts)
    shards = sorted((tmp_path / "embeddings").rglob("shard-*.npz"))
    assert shards and build.misses == len(set(texts))
    update = CachedEmbedder(MappedEmbedder(StaticEmbedder(cache_dir)), tmp_path)
    few = update.encode(texts[:60] + ["a phrase no build embedded"])
    assert np.array_equal(few[:60], stored[:60])
    assert update.hits == update.misses == 0  # computed, not looked up
    assert sorted((tmp_path / "embeddings").rglob("shard-*.npz")) == shards


def test_static_map_refuses_another_distillation(cache_dir: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A map fitted on another distillation (its probe vectors differ from this model's)
    is refused with what to do, never applied to vectors it does not fit."""
    from paperkg.build import embed, staticmap

    with np.load(staticmap.STATIC_MAP) as data:
        other = {k: data[k] for k in data.files}
    other["probes"] = np.roll(other["probes"], 1, axis=0)  # another model's probe vectors
    np.savez(tmp_path / "other_map.npz", **other)
    monkeypatch.setattr(staticmap, "STATIC_MAP", tmp_path / "other_map.npz")
    with pytest.raises(RuntimeError, match="differs from the distillation"):
        embed.make_embedder("static", cache_dir).encode(["graph neural network"])


def test_keybert_extractor_runs_keyberts_own_ranking_on_our_candidates(cache_dir: Path) -> None:
    from paperkg.build.embed import make_embedder

    papers = read_papers(DATA_FILES).papers[:4]
    embedder = make_embedder("static", cache_dir)
    out = extract_concepts(papers, embedder, ExtractSettings(extractor="keybert", top_n=5))
    for paper in papers:
        cands = {c.text for c in candidates(document_text(paper))}
        picked = out[paper.id]
        assert len(picked) == 5 and {label for label, _ in picked} <= cands
        # KeyBERT's MMR starts from the candidate closest to the document
        words = sorted(cands, key=str.lower)
        cos = embedder.encode([w.lower() for w in words]) @ embedder.encode(
            [document_text(paper)])[0]
        assert picked[0][0].lower() == words[int(np.argmax(cos))].lower()
    assert ExtractSettings(extractor="keybert").info(embedder.name).name == "keybert"


def test_a_kg_keeps_the_best_three_the_probable_and_the_most_specific(cache_dir: Path) -> None:
    """On arXiv text (the snapshot sample: physics and mathematics, far from the packaged
    ICLR statistics) the tail of a top 10 is what authors hardly ever choose; a KG keeps a
    paper's best three and beyond them only picks with the least probability, chosen for
    the embedder and keyword statistics unless given; and no broad pick (one English word,
    an umbrella term) whose words all lie in another kept pick. The ranking (`paperkg
    extract`) keeps the whole top-n."""
    from paperkg.build.embed import make_embedder
    from paperkg.build.extract import fitted_min_score
    from paperkg.build.keep import MIN_KEPT
    from paperkg.build.prior import packaged_prior
    from paperkg.build.terms import term_key
    from paperkg.lexicon import is_acronym

    papers = read_papers([SOURCES / "arxiv_snapshot.jsonl"]).papers
    embedder = make_embedder("static", cache_dir)
    prior = packaged_prior()
    full = extract_concepts(papers, embedder, ExtractSettings(ranking=True), prior=prior)
    settings = ExtractSettings()
    kept = extract_concepts(papers, embedder, settings, prior=prior)
    least = settings.least(prior, embedder.name)
    assert least == fitted_min_score("static", True) > 0
    # calibrated per embedder (with the packaged statistics both are 0.01 today)
    assert settings.least(None, embedder.name) != settings.least(None, "all-MiniLM-L6-v2")
    assert ExtractSettings(min_score=0.2).least(prior, embedder.name) == 0.2
    def broad(text: str) -> bool:  # one English word, no acronym, or an umbrella term
        return (" " not in term_key(text) and not is_acronym(text)
                and not prior.foreign(text)) or prior.umbrella(text)

    improbable = inside = 0
    for paper in papers:
        picks, every = kept[paper.id], full[paper.id]
        asides = _asides(paper, prior)
        assert picks and len(picks) <= len(every) <= 10
        words = {text: frozenset(term_key(text).split()) for text, _ in every}
        it = iter(every)
        assert all(pick in it for pick in picks), "the KG's picks keep the ranking's order"
        assert not any(broad(a) and words[a] < words[b] for a, _ in picks for b, _ in picks)
        first = [i for i, (text, _) in enumerate(picks)  # the best three concepts
                 if term_key(text) not in {term_key(t) for t, _ in picks[:i]}][:MIN_KEPT]
        assert all(score >= least for _, score in picks[first[-1] + 1:])
        for text, score in every:
            if (text, score) in picks:
                continue
            within = broad(text) and any(words[text] < words[other] for other, _ in picks)
            repeats = _repeats(text, [other for other, _ in picks])
            assert within or score < least or text in asides or repeats, (paper.id, text)
            improbable += not (within or repeats) and text not in asides
            inside += within or repeats or text in asides
        assert not asides & {text for text, _ in picks}
        assert len(first) >= min(MIN_KEPT, len({term_key(t) for t, _ in every}) - inside), \
            paper.id
    assert improbable >= len(papers) and inside >= 1, "both rules are at work on this text"
    assert sum(len(full[p.id]) == 10 for p in papers) >= len(papers) // 2, "the whole top-n"
    assert settings.info(embedder.name, prior).params["min_score"] == least
    assert "min_score" not in ExtractSettings(ranking=True).info(embedder.name, prior).params


def _kept(picks: list[tuple[str, float]]) -> list[str]:
    """The picks a KG keeps, by `keep.trusted` at the least probability 0.01."""
    from paperkg.build.keep import trusted

    return [text for (text, _), k in zip(picks, trusted(picks, 0.01), strict=True) if k]


def _repeats(text: str, kept: list[str]) -> bool:
    """A kind noun with evaluative words only; the stems of a kept pick's words (in any
    order without a linking word); or a kind noun as head after words a kept pick has, and
    no longer variant of it (or the kept pick is those words exactly, "ecosystem service"
    for "ecosystem service projects")."""
    import snowballstemmer

    from paperkg.lexicon import GENERIC_MODIFIERS, KIND_NOUNS, singular

    key = term_key(text).split()
    stem = snowballstemmer.stemmer("english").stemWords
    rest = [w for w in text.lower().split() if w not in GENERIC_MODIFIERS]
    if len(rest) == 1 < len(text.split()) and singular(rest[0]) in KIND_NOUNS:
        return True  # a kind noun with evaluative words only

    def same(a: list[str], b: list[str]) -> bool:
        if {"to", "of", "from", "for", "in", "on", "with", "by", "via"} & {*a, *b}:
            return stem(a) == stem(b)
        return sorted(stem(a)) == sorted(stem(b))

    if any(same(key, term_key(k).split()) for k in kept):
        return True
    if len(key) < 2 or key[-1] not in KIND_NOUNS:
        return False
    rest = text.rsplit(" ", 1)[0]
    if "-" not in rest.rsplit(" ", 1)[-1] and term_key(rest) in {term_key(k) for k in kept}:
        return True
    return any(set(key) - {key[-1]} <= set(term_key(k).split())
               and not set(key) <= set(term_key(k).split()) for k in kept)


def _asides(paper: Any, prior: Any) -> set[str]:
    """A paper's candidates named in passing (terms of the whole field, umbrella terms)
    or only as an example, used once, not in its title (`build.asides`, tested below)."""
    from paperkg.build.asides import asides

    doc = document_text(paper)
    title = f" {clean_text(paper.title).lower()} "
    cs = candidates(doc, known=prior.known())
    found = asides(cs, [f" {c.text.lower()} " in title for c in cs], prior, doc, paper.title)
    return set(found.passing | found.examples)


def _examples(text: str) -> set[str]:
    """The candidates of a cleaned text that it names as an example or a contrast."""
    from paperkg.build.asides import named_as_example

    toks = tokens(text)
    return {c.text for c in candidates(text) if named_as_example(toks, c.position)}


def test_a_term_named_only_as_an_example_or_a_contrast_is_an_aside() -> None:
    """ICLR 2025 phrasing: what "such as", "like", "e.g.", "similar (concept) to", "an
    alternative to", "rather than", "as with" or "unlike" introduce is an example or a
    road not taken, not what the abstract studies ("reminiscent of" and "analogous to" a likeness);
    "would like to" is no example, and a term
    the abstract names again, or in its title, stays, and a verb's -ing form opens
    another clause (`build.asides`)."""
    text = clean_text(
        "Gradient boosting for tables. Rather than replacing methods such as L2 or dropout, "
        "we regularize. It extends to applications like autonomous driving (e.g., robot "
        "navigation, finance). It is a similar concept to physics-informed neural networks. "
        "We offer an alternative to gradient-boosted decision trees. We would like to study "
        "model collapse. Unlike diffusion models, we use gradient boosting. Tools such as "
        "code interpreters, and employing chain-of-thought reasoning, help. A task "
        "reminiscent of multi-task learning is analogous to contextual bandits. Inspired by "
        "contrastive learning, we train without weight decay. Models tuned as with "
        "standard RLHF struggle.")
    example = _examples(text)
    assert {"dropout", "autonomous driving", "robot navigation", "finance",
            "physics-informed neural networks", "gradient-boosted decision trees",
            "diffusion models", "multi-task learning", "contextual bandits",
            "weight decay", "RLHF"} <= example, example
    assert not {"model collapse", "gradient boosting", "tables", "chain-of-thought reasoning",
                "chain-of-thought", "contrastive learning"} & example, example
    # an aside is named there only: a definition's short form is no second use, a longer
    # phrase or the short form later is
    from paperkg.build.asides import asides

    text = clean_text(
        "Priors for tables. Unlike diffusion models or physics-informed neural networks "
        "(PINNs) and large language models (LLMs), we use priors such as dropout. We build "
        "on a latent diffusion model and a frozen LLM.")
    cs = candidates(text)
    found = asides(cs, [c.position < 3 for c in cs], None, text).examples
    assert {"physics-informed neural networks", "dropout"} <= found, found
    assert not {"diffusion models", "large language models", "tables"} & found, found
    # an example among the best three keeps its place from a weak pick; a term of the
    # field named in passing leaves its place to the next
    from paperkg.build.keep import trusted

    picks = [("priors", 0.5), ("dropout", 0.4), ("tables", 0.3), ("weak pick", 0.001)]
    assert trusted(picks, 0.01, asides=Asides(examples=frozenset({"dropout"}))) == [
        True, False, True, False]
    assert trusted(picks, 0.01, asides=Asides(passing=frozenset({"dropout"}))) == [
        True, False, True, True]


def test_an_example_list_reaches_past_definitions_and_stops_at_a_verb() -> None:
    """ICLR 2025 phrasing: "its applications in distributionally robust optimization (DRO),
    meta-learning, and reinforcement learning" names three examples, the definition
    "(DRO)" passed over; an enumerator "(2)" is no definition, and a word known only as a
    verb ends the clause ("methods such as dropout degrade in adversarial training")."""
    example = _examples(clean_text(
        "Compositional optimization gained popularity due to its applications in "
        "distributionally robust optimization (DRO), meta-learning, and reinforcement "
        "learning. Methods such as dropout degrade in adversarial training. We study (1) "
        "feature learning rather than (2) large language models."))
    assert {"robust optimization", "meta-learning", "reinforcement learning",
            "dropout"} <= example, example
    assert not {"adversarial training", "large language models"} & example, example
    # "including" after a comma lists examples (ICLR 2025 EgJhwYR2tB, 0hyShAPeBj); after
    # "by" or before a determiner it is a verb (3usdM1AuI3)
    example = _examples(clean_text(
        "We evaluate on text generation tasks, including translation and question "
        "answering. BRAID learns dynamics by including a forecasting objective within "
        "recurrent neural networks."))
    assert {"translation", "question answering"} <= example, example
    assert "recurrent neural networks" not in example, example


def test_a_term_of_the_whole_field_named_in_passing_is_no_concept(cache_dir: Path) -> None:
    """"Deep learning" (offered by 5 % of ICLR papers, listed as a keyword by under a
    quarter of those) said once in an abstract about decoding speech from brain activity
    is where the paper stands, not what it is about: the ranking shows it, a KG does not
    keep it. In the title, or named again, it is the paper's subject and stays; a
    specific term of the field ("large language models", a keyword of 41 % of the papers
    offering it) stays even when named once. So does an umbrella term, which many papers
    offer and few choose ("convolutional neural network")."""
    from paperkg.build.embed import make_embedder
    from paperkg.build.ingest import make_paper
    from paperkg.build.prior import packaged_prior

    prior = packaged_prior()
    assert prior.field_term("deep learning") and prior.field_term("computer vision")
    assert not prior.field_term("large language models")
    assert not prior.field_term("speech decoding"), "too few papers offer it"
    assert prior.umbrella("convolutional neural network")
    assert not prior.field_term("convolutional neural network")
    body = ("We decode perceived speech from non-invasive magnetoencephalography "
            "recordings with deep learning and a convolutional neural network. A "
            "contrastive objective aligns brain "
            "responses with pretrained speech representations, and large language "
            "models rescore the decoded words. Speech decoding accuracy reaches 41 % "
            "on 1,000 held-out segments.")
    passing = make_paper(id="p1", abstract=body, title="Decoding speech from brain activity",
                         location="test:1", fmt="jsonl")
    subject = make_paper(id="p2", abstract=body, title="Deep learning decodes speech",
                         location="test:2", fmt="jsonl")
    embedder = make_embedder("static", cache_dir)
    marks: dict[str, list[bool]] = {}
    ranked = extract_concepts([passing, subject], embedder, ExtractSettings(ranking=True),
                              prior=prior, marks=marks)
    kg = extract_concepts([passing, subject], embedder, ExtractSettings(), prior=prior)
    shown = {pid: {text.lower() for text, _ in picks} for pid, picks in ranked.items()}
    kept = {pid: {text.lower() for text, _ in picks} for pid, picks in kg.items()}
    assert "deep learning" in shown["p1"] and "deep learning" not in kept["p1"]
    assert "convolutional neural network" in shown["p1"]
    assert "convolutional neural network" not in kept["p1"] | kept["p2"]
    assert "deep learning" in kept["p2"]
    assert "large language models" in kept["p1"]
    for pid, picks in ranked.items():  # `marks` says what the KG keeps
        assert {t.lower() for (t, _), k in zip(picks, marks[pid], strict=True) if k} == kept[pid]


def test_a_term_named_only_as_one_item_of_a_list_of_three_is_an_aside() -> None:
    """ICLR 2025 phrasing: the tasks a method was tried on and the domains it serves come
    as lists in sentences about evaluation ("experiments across A, B, C, and D tasks"); a
    term named only there is one of several the paper was measured on. Two items, a
    clause between commas ("the bandit, which is hard, and"), a list outside such a
    sentence ("the techniques employed are A, B, and C"), a term named again or in the
    title are not. A list in parentheses needs no "and" ("attacks (BadNets, LC,
    Trojan)")."""
    from paperkg.build.asides import asides, in_a_list

    title = "Low-rank gradients for code generation"
    doc = clean_text(
        f"{title}. We tune LoRA with low-rank gradients. Experiments across language "
        "understanding, dialogue generation, mathematical reasoning, code generation, and "
        "image classification tasks show gains, useful for drug discovery, materials "
        "science or robotics. We study the multi-armed bandit, which is hard, and link "
        "prediction. We combine diffusion models and transformers. Dialogue generation "
        "gains most. The techniques employed are pruning, quantization, and knowledge "
        "distillation.")
    toks, cs = tokens(doc), candidates(doc)
    listed = {c.text for c in cs if in_a_list(toks, c.position, len(tokens(c.text)))}
    assert {"mathematical reasoning", "dialogue generation", "drug discovery",
            "materials science", "robotics"} <= listed, listed
    assert not {"multi-armed bandit", "link prediction", "diffusion models", "transformers",
                "knowledge distillation", "code generation"} & listed, listed
    # (the last: first named in the title)
    # a list in parentheses needs no "and", and a name in capitals is an item (ICLR 2025)
    doc2 = clean_text("Experiments across six feature extractors (SimCLR, ViT, ALIGN, CLIP, "
                      "and BLIP-2) resist nine attacks (BadNets, WaNet, Trojan, BppAttack). "
                      "We defend with pruning (a simple method).")
    toks2, cs2 = tokens(doc2), candidates(doc2)
    listed2 = {c.text for c in cs2 if in_a_list(toks2, c.position, len(tokens(c.text)))}
    assert {"CLIP", "BLIP-2", "Trojan", "WaNet"} <= listed2, listed2
    assert "simple method" not in listed2 and "pruning" not in listed2
    low = f" {title.lower()} "
    found = asides(cs, [f" {c.text.lower()} " in low for c in cs], None, doc, title).examples
    assert {"mathematical reasoning", "drug discovery", "robotics"} <= found, found
    assert not {"code generation", "Dialogue generation", "dialogue generation"} & found


def test_a_common_word_named_once_outside_the_title_is_an_aside() -> None:
    """"Calibration" or "prompts" said once in a paper on clustering of bandits is what it
    reports or uses; the word its title names (in any form: "universality" after a title's
    "Universal"), a word it uses twice (once inside a longer phrase: "hallucination
    rates"), a coinage of the field ("equivariance"), a compound ("chain-of-thought") and
    an acronym stay. Without keyword statistics too: the rule reads the text only."""
    from paperkg.build.asides import asides, lone_word

    title = "Universal clustering of bandits"
    doc = clean_text(f"{title}. We study clustering of bandits with equivariance and "
                     "chain-of-thought, compare to a transformer and to UCB, and report "
                     "calibration with prompts. Clustering helps; the transformer too. "
                     "Hallucination rates fall, as does hallucination. We prove universality.")
    cs = candidates(doc)
    low = f" {title.lower()} "
    found = asides(cs, [f" {c.text.lower()} " in low for c in cs], None, doc, title).passing
    assert {"calibration", "prompts"} <= found, found
    assert not {"Clustering", "transformer", "equivariance", "chain-of-thought", "UCB",
                "hallucination", "universality"} & found, found
    assert "universality" in {c.text for c in cs if c.count == 1}
    assert "hallucination" in {c.text for c in cs if c.count == 1}
    assert lone_word("symmetries") and not lone_word("GSM8K") and not lone_word("actor-critic")


def test_a_short_form_of_a_term_named_in_passing_is_named_in_passing() -> None:
    """Held-out ICLR 2025 papers on LLM judges and on additive models kept "NLP", named
    once and never defined: the statistics judge an acronym by the long form the field
    defines it as ("natural language processing"), a term of the whole field; "DPO" (a
    method papers study) and "GSM8K" (no long form) stay."""
    from paperkg.build.asides import asides
    from paperkg.build.prior import packaged_prior, short_forms

    prior = packaged_prior()
    assert short_forms()["NLP"] == "natural language processing"
    assert prior.passing_term("NLP") and prior.passing_term("CNNs")
    assert not prior.passing_term("DPO") and not prior.passing_term("GSM8K")
    title = "Label errors in judge benchmarks"
    doc = clean_text(f"{title}. Benchmarks of NLP carry label errors. We align models with "
                     "DPO and show that DPO and a GAM reduce label errors.")
    cs = candidates(doc, known=prior.known())
    low = f" {title.lower()} "
    found = asides(cs, [f" {c.text.lower()} " in low for c in cs], prior, doc, title).passing
    assert "NLP" in found and "DPO" not in found, found


def test_a_generic_term_of_the_field_is_kept_only_when_the_title_names_it() -> None:
    """"Neural networks" and "machine learning" (terms of the whole field that few papers
    offering them choose) said again and again in an abstract about Lipschitz constants say
    what the paper works with, not what it is about; named in the title, even by the
    short form the abstract defines ("LMs" for "language models"), they stay, unless the
    title only makes them the modifier of its own noun ("Neural Network Representations"),
    and so they do in a paper without a title. A specific umbrella term ("attention
    mechanism") is left to the once-only rule."""
    from paperkg.build.asides import asides
    from paperkg.build.prior import packaged_prior

    prior = packaged_prior()
    assert prior.generic_term("neural networks") and prior.generic_term("machine learning")
    assert prior.generic_term("language models")
    assert not prior.generic_term("attention mechanism"), "an umbrella, not of the whole field"
    assert not prior.generic_term("interpretability"), "papers study it"
    body = clean_text(
        "Estimating the Lipschitz constant of neural networks matters for machine learning. "
        "We bound it for neural networks with an attention mechanism, and neural networks "
        "in machine learning practice with the attention mechanism. Language models (LMs) "
        "hallucinate; we read their internal representations.")

    def passing(title: str) -> set[str]:
        doc = f"{clean_text(title)}. {body}"
        cs = candidates(doc, known=prior.known())
        low = f" {clean_text(title).lower()} "
        return set(asides(cs, [f" {c.text.lower()} " in low for c in cs], prior, doc,
                          title).passing)

    found = passing("Lipschitz bounds with quantum annealing")
    assert {"neural networks", "machine learning", "Language models"} <= found, found
    assert "attention mechanism" not in found
    doc = f"Lipschitz bounds with quantum annealing. {body}"  # only the ranked picks asked
    cs = candidates(doc, known=prior.known())
    picked = asides(cs, [False] * len(cs), prior, doc, "Lipschitz bounds with quantum annealing",
                    picks={"machine learning"}).passing
    assert "machine learning" in picked and "neural networks" not in picked, picked
    found = passing("Lipschitz constants of neural networks, and hallucinations in LMs")
    assert not {"neural networks", "Language models"} & found, found
    assert "machine learning" in found
    # a title that uses it as the modifier of its own noun is about that noun (ICLR 2025:
    # "Optimizing Neural Network Representations of Boolean Networks")
    found = passing("Neural Network Representations of Lipschitz Bounds")
    assert "neural networks" in found, found
    assert "neural networks" not in passing("Neural Networks Meet Lipschitz Bounds")
    cs = candidates(body, known=prior.known())  # no title: only the abstract says
    untitled = asides(cs, [False] * len(cs), prior, body, None).passing
    assert "neural networks" not in untitled, untitled


def test_a_pick_that_only_adds_a_kind_noun_repeats_a_kept_one() -> None:
    """"OCR systems" and "OCR-2.0 model" say nothing "OCR-2.0" has not said ("web testing
    research" nothing "web testing" has); "OCR theory"
    (no kind noun) and "model selection" ("model" is no head there) do; a specific
    shorter variant stays beside the longer one it lies in, and a broad word still gives
    way to the longer pick it lies in ("diffusion" / "diffusion models"). In either
    order."""
    from paperkg.build.keep import trusted

    picks = [("OCR-2.0", 0.5), ("OCR systems", 0.4), ("OCR-2.0 model", 0.3),
             ("OCR theory", 0.2), ("multilayer stochastic block model", 0.1),
             ("stochastic block model", 0.09), ("model selection", 0.05),
             ("diffusion", 0.04), ("diffusion models", 0.03), ("language model", 0.03),
             ("language modeling", 0.02)]
    assert _kept(picks) == [
        "OCR-2.0", "OCR theory", "multilayer stochastic block model", "stochastic block model",
        "model selection", "diffusion models", "language model"]
    # the kinds of work about a term (arXiv, OpenAlex): research, projects, tools; a
    # simulation of a system, the synthesis a task names
    picks = [("web testing", 0.5), ("web testing research", 0.4),
             ("ecosystem service", 0.3), ("ecosystem service projects", 0.2),
             ("case study", 0.1), ("molecular dynamics", 0.09),
             ("molecular dynamics simulations", 0.08), ("text-to-speech", 0.07),
             ("text-to-speech synthesis", 0.06), ("program synthesis", 0.05)]
    assert _kept(picks) == [
        "web testing", "ecosystem service", "case study", "molecular dynamics",
        "text-to-speech", "program synthesis"]
    # in the other order the repetition, kept first, gives way (OpenAlex W2011193578, ICLR
    # 2025 UiEjzBRYeI); not where what is left is a hyphenated modifier: "Audio-Language"
    # and "long contexts" name no shorter term of "Audio-Language Models" and
    # "long-context models"
    picks = [("ecosystem service projects", 0.5), ("ecosystem service", 0.4),
             ("Segment Anything model", 0.3), ("Segment Anything", 0.2),
             ("Audio-Language Models", 0.1), ("Audio-Language", 0.09),
             ("long-context models", 0.08), ("long contexts", 0.07)]
    assert _kept(picks) == [
        "ecosystem service", "Segment Anything", "Audio-Language Models", "Audio-Language",
        "long-context models", "long contexts"]
    # a kind noun with evaluative words only names nothing (titles of ICLR 2025
    # TrVYEZtSQH, YK8eO7BEkJ, TDyE2iuvyc); "task-specific priors" says more
    picks = [("Comprehensive Benchmark", 0.5), ("Empirical Study", 0.4),
             ("efficient model", 0.3), ("task-specific priors", 0.2), ("optimal control", 0.1)]
    assert trusted(picks, 0.01) == [False, False, False, True, True]


def test_a_pick_with_the_stems_of_a_kept_one_repeats_it() -> None:
    """"adaptive optimizers" after "adaptive optimization" and "low-rank adapters" after
    "low-rank adaptation" are one idea twice (the same stems, in any order); "time series
    data" after "time series" only adds a kind noun. "Adaptive sampling" and "generative
    models" beside "generalized models" (Porter2 keeps "general" and "generat" apart) are
    other words."""
    from paperkg.build.keep import trusted

    picks = [("adaptive optimization", 0.5), ("adaptive optimizers", 0.4),
             ("Low-Rank Adaptation", 0.3), ("low-rank adapters", 0.2), ("time series", 0.1),
             ("time series data", 0.09), ("adaptive sampling", 0.08),
             ("generalized models", 0.07), ("generative models", 0.06)]
    assert _kept(picks) == [
        "adaptive optimization", "Low-Rank Adaptation", "time series", "adaptive sampling",
        "generalized models", "generative models"]
    # in any order (arXiv 1509.06161, ICLR 2025 Rz4UkJziFe), unless a linking word orders
    # them (YS5zdlSzvv: two mappers, one each way)
    picks = [("3D face reconstruction", 0.5), ("reconstructed 3D faces", 0.4),
             ("dataset pruning", 0.3), ("pruned datasets", 0.2),
             ("haze-to-parameter mapper", 0.1), ("parameter-to-haze mapper", 0.09)]
    assert trusted(picks, 0.01) == [True, False, True, False, True, True]
    # two spellings of one term are one concept: both kept, one of the best three
    picks = [("decision tree", 0.5), ("decision trees", 0.4), ("random forest", 0.3),
             ("gradient boosting", 0.002), ("bagging", 0.001)]
    assert trusted(picks, 0.01) == [True, True, True, True, False]


def test_a_known_term_cut_by_a_verb_form_is_read_whole() -> None:
    """"proving" ends most phrases ("methods proving that ..."), so the grammar cut
    "Real-world formal theorem | proving"; where the field knows "theorem proving" (the
    packaged statistics) the run goes on, and no truncated "formal theorem" is offered."""
    from paperkg.build.prior import packaged_prior

    text = ("Real-world formal theorem proving often depends on context. Agents face "
            "sequential decision making under uncertainty; robust methods proving bounds exist.")
    known = {c.text for c in candidates(text, known=packaged_prior().known())}
    assert {"Real-world formal theorem proving", "theorem proving",
            "sequential decision making", "decision making"} <= known
    assert not known & {"Real-world formal theorem", "formal theorem", "sequential decision",
                        "proving", "making"}
    assert "bounds" in known and not known & {"methods proving", "proving bounds"}
    # without known terms the grammar reads a gerund after a singular noun as the head of
    # a compound (`grammar._gerund_compound`), and after a plural as a verb
    alone = {c.text for c in candidates(text)}
    assert "formal theorem proving" in alone and "Real-world formal theorem" not in alone
    assert not alone & {"methods proving", "proving bounds", "proving"}, alone


def test_a_known_term_opened_by_an_evaluative_word_is_read_whole() -> None:
    """"natural", "whole", "free" end a phrase elsewhere ("natural images"), so the grammar
    cut "natural | language benchmarks" and offered the fragment "language benchmarks"
    (ICLR 2025 nUOmJ4Qop5). Where such a word opens a known term with the next words, the
    phrase is read whole and no tail cuts the term; a word that grades ("efficient") stays
    out even so."""
    from paperkg.build.prior import packaged_prior

    text = ("We test on computer vision and natural language benchmarks. Whole slide images "
            "are large; the free energy principle explains it. An efficient training recipe.")
    known = {c.text for c in candidates(text, known=packaged_prior().known())}
    assert {"natural language benchmarks", "Whole slide images",
            "free energy principle", "training recipe"} <= known, known
    assert not known & {"language benchmarks", "slide images", "energy principle",
                        "efficient training recipe"}, known
    alone = {c.text for c in candidates(text)}
    assert "language benchmarks" in alone and "natural language benchmarks" not in alone
    # an adverb that opens some of the field's terms opens the next word with it: "weakly
    # supervised" is not "supervised" (SciERC INTERSPEECH_2013_21, CSV sample rJNpifWAb);
    # a verb after it is no phrase ("fully parameterizes")
    text = ("It is based on a weakly supervised dependency parser with fully connected "
            "layers. The prior fully parameterizes the posterior.")
    known = {c.text for c in candidates(text, known=packaged_prior().known())}
    assert {"weakly supervised dependency parser", "dependency parser",
            "fully connected layers"} <= known, known
    assert not known & {"supervised dependency parser", "connected layers",
                        "fully parameterizes"}, known


def test_a_definition_inside_a_phrase_does_not_cut_it() -> None:
    """"visual autoregressive (VAR) modeling" gave "visual autoregressive", an adjective
    left without its noun (ICLR 2025 v46TPwU0Uy): a long form whose definition stands
    inside its phrase is read with the head that follows, and a long form that is no noun
    phrase is defined as that. A verb after the definition, a plural long form and a kind
    noun after a noun phrase are not heads."""
    text = ("ControlVAR explores visual autoregressive (VAR) modeling for generation. We "
            "study large language model (LLM) agents and zeroth-order (ZO) optimization. "
            "Retrieval-Augmented Generation (RAG) methods help. Continual Learning (CL) "
            "tackles the problem. Large language models (LLMs) hallucinate.")
    found = {c.text: c for c in candidates(text)}
    assert found["visual autoregressive modeling"].defined
    assert found["zeroth-order optimization"].defined
    assert {"large language model agents", "large language model"} <= found.keys()
    assert not found.keys() & {"visual autoregressive", "zeroth-order",
                               "Retrieval-Augmented Generation methods",
                               "Continual Learning tackles", "Large language models hallucinate"}


def test_a_verb_and_its_object_is_no_concept(cache_dir: Path) -> None:
    """A title or sentence opened by a verb's -ing form ("Understanding Learning with ...",
    "Screener: Learning Conditional Distribution of ...") or a gerund after a preposition
    ("for testing GUI apps") is a clause, not a concept, unless the field names a term
    that opens so ("learning rate"); after a determiner or an adjective the -ing form is a
    noun ("the signaling molecules", "discriminative imaging features"). Without the
    field's terms the grammar alone decides."""
    from paperkg.build.embed import make_embedder
    from paperkg.build.ingest import Paper
    from paperkg.build.prior import packaged_prior

    text = ("Understanding Learning with Sliced-Wasserstein. Screener: Learning Conditional "
            "Distribution of Dense Representations. Methods for testing GUI apps exist. "
            "Learning rate schedules matter; the signaling molecules form patterns. We "
            "learn discriminative imaging features.")
    known = packaged_prior().known()
    cands = {c.text: c for c in candidates(text, known=known)}
    clauses = {t for t, c in cands.items() if known.gerund_clause(c)}
    assert clauses == {"Understanding Learning", "Learning Conditional Distribution",
                       "testing GUI apps"}
    assert {"Learning rate schedules", "signaling molecules", "imaging features"} <= set(cands)
    papers = [Paper(id="g", abstract=text, label="g", source="test",
                    title="Understanding Learning with Sliced-Wasserstein")]
    ranked = extract_concepts(papers, make_embedder("static", cache_dir),
                              ExtractSettings(ranking=True), prior=packaged_prior())
    assert not clauses & {t for t, _ in ranked["g"]}


def test_a_pick_that_only_adds_a_generic_modifier_repeats_a_kept_one() -> None:
    """With keyword statistics "large vision-language models" repeats "vision-language
    models"; "large language models" does not give way to the umbrella "language models"
    (the umbrella gives way to it). Without statistics, which cannot tell an umbrella
    term, both pairs stay."""
    from paperkg.build.prior import packaged_prior

    picks = [("vision-language models", 0.5), ("large vision-language models", 0.4),
             ("language models", 0.3), ("large language models", 0.2)]
    settings = ExtractSettings()
    with_prior = settings.kg_rule(packaged_prior(), "all-MiniLM-L6-v2")(picks, NO_ASIDES)
    assert with_prior == [True, False, False, True]
    assert settings.kg_rule(None, "all-MiniLM-L6-v2")(picks, NO_ASIDES) == [True] * 4


def test_a_broad_pick_gives_way_to_the_longer_one_it_lies_in() -> None:
    """With keyword statistics, an umbrella term ("neural network": offered by 1,497 ICLR
    papers, a keyword of 61 of them) goes beside the longer concept it lies in; a specific
    term ("domain adaptation") stays beside its variant, since it links papers; a single
    word goes without statistics too."""
    from paperkg.build.prior import KeywordPrior, packaged_prior

    picks = [("neural network", 0.3), ("deep neural network", 0.2), ("domain adaptation", 0.1),
             ("feature-level domain adaptation", 0.05), ("emotion", 0.04),
             ("emotion-oriented summarization", 0.03), ("general pattern", 0.001)]
    settings = ExtractSettings()

    def kept(prior: KeywordPrior | None) -> list[str]:
        keeps = settings.kg_rule(prior, "all-MiniLM-L6-v2")(picks, NO_ASIDES)
        return [text for (text, _), k in zip(picks, keeps, strict=True) if k]

    assert kept(packaged_prior()) == ["deep neural network", "domain adaptation",
                                      "feature-level domain adaptation",
                                      "emotion-oriented summarization"]
    assert kept(None) == ["neural network", "deep neural network", "domain adaptation",
                          "feature-level domain adaptation", "emotion-oriented summarization"]
    assert ExtractSettings(extractor="keybert").kg_rule(None, "x")(picks, NO_ASIDES) == [
        True] * 7
    # a single word kept to fill the best three gives way to the term it lies in, though
    # that one is under the least probability (SciERC C04-1011: "grammar", then
    # "probabilistic context-free grammar"); a weak pick that replaces nothing stays out
    picks = [("Kullback-Leibler distance", 0.011), ("grammar", 0.0092),
             ("probabilistic finite automaton", 0.0092),
             ("probabilistic context-free grammar", 0.0072), ("relative entropy", 0.006)]
    assert _kept(picks) == ["Kullback-Leibler distance", "probabilistic finite automaton",
                            "probabilistic context-free grammar"]


def test_a_term_of_another_field_stays_beside_the_longer_pick_it_lies_in() -> None:
    """A single word the ICLR statistics never saw and English does not know is a term of
    another field, specific as a drug's or a material's name is: "semaglutide" stays
    beside "subcutaneous semaglutide" (the link to every paper on the drug), while an
    English word ("emotion") still gives way to the longer pick it lies in."""
    from paperkg.build.prior import packaged_prior

    prior = packaged_prior()
    assert prior.foreign("semaglutide") and not prior.foreign("emotion")
    picks = [("subcutaneous semaglutide", 0.3), ("semaglutide", 0.2),
             ("emotion-oriented summarization", 0.1), ("emotion", 0.05)]
    keeps = ExtractSettings().kg_rule(prior, "all-MiniLM-L6-v2")(picks, NO_ASIDES)
    assert keeps == [True, True, True, False]


def test_plus_and_minus_join_two_terms_into_no_candidate() -> None:
    """"semaglutide plus lifestyle intervention" (a trial's two arms) is two terms, as
    "A and B" is."""
    texts = {c.text for c in candidates(clean_text(
        "Adults were assigned to semaglutide plus lifestyle intervention, or placebo minus "
        "counselling."))}
    assert {"semaglutide", "lifestyle intervention"} <= texts, texts
    assert not any(" plus " in t or " minus " in t for t in texts), texts


def test_a_tail_only_ever_used_inside_a_longer_phrase_is_no_concept(cache_dir: Path) -> None:
    """arXiv 1104.4530 says "absolute value preconditioning", never "value preconditioning"
    alone: that tail only repeats the longer phrase. "the absolute value of the matrix"
    stands alone, and a tail the field names on its own ("neural networks" inside "graph
    neural networks") stays a candidate."""
    from paperkg.build.embed import make_embedder
    from paperkg.build.ingest import Paper
    from paperkg.build.prior import packaged_prior

    text = ("We introduce absolute value preconditioning. The strategy, called absolute value "
            "preconditioning, uses the absolute value of the matrix for graph neural networks.")
    cands = {c.text: c for c in candidates(clean_text(text))}
    assert cands["value preconditioning"].inside_only
    assert not cands["absolute value preconditioning"].inside_only
    assert not cands["absolute value"].inside_only
    assert cands["neural networks"].inside_only
    paper = Paper(id="p1", abstract=text, label="p1", source="test")
    picks = {label for label, _ in extract_concepts(
        [paper], make_embedder("static", cache_dir), ExtractSettings(ranking=True),
        prior=packaged_prior())["p1"]}
    assert "absolute value preconditioning" in picks and "value preconditioning" not in picks
    assert "neural networks" in picks


def test_a_paper_not_in_english_gets_no_concepts(cache_dir: Path) -> None:
    """A German abstract gave "Netze für die Bildsegmentierung" and "der Medizin" as
    concepts: the extractor reads English only, so such a paper gets none and is named
    with its language; every record of the real source samples is English."""
    from paperkg.build.embed import make_embedder
    from paperkg.build.language import english_part, language_of

    german = ("Wir stellen ein neues Verfahren zur semantischen Segmentierung medizinischer "
              "Bilder vor. Unser Modell kombiniert faltende neuronale Netze mit "
              "Aufmerksamkeitsmechanismen und erreicht bessere Ergebnisse als bisherige Methoden.")
    spanish = ("Proponemos un sistema basado en redes neuronales convolucionales para detectar "
               "enfermedades en hojas de plantas. El modelo se entrenó con imágenes tomadas en "
               "campo y alcanzó una precisión del 94 por ciento.")
    chinese = ("本文提出了一种基于图神经网络的分子性质预测方法。"
               "该方法利用消息传递机制学习分子表示，并取得了最好的结果。")
    assert [language_of(t) for t in (german, spanish, chinese)] == ["de", "es", "zh"]
    # a title alone is too little to tell (py3langid calls these Latin and Bikol)
    assert language_of("Feynman-Kac Operator Expectation Estimator") == "en"
    assert language_of("Spectro-Riemannian Graph Neural Networks") == "en"
    for source in sorted(SOURCES.glob("*")):
        if source.suffix != ".md":
            papers = read_papers([source]).papers
            assert {language_of(document_text(p)) for p in papers} == {"en"}, source
    papers = [Paper(id="de", abstract=german, label="de", source="test"),
              Paper(id="en", abstract="We segment medical images with convolutional neural "
                    "networks and attention mechanisms, beating earlier methods.", label="en",
                    source="test")]
    foreign: dict[str, str] = {}
    ranked = extract_concepts(papers, make_embedder("static", cache_dir), ExtractSettings(),
                              foreign=foreign)
    assert ranked["de"] == [] and foreign == {"de": "de"}
    assert "convolutional neural networks" in {t for t, _ in ranked["en"]}, ranked["en"]
    # a bilingual record (OpenAlex and SciELO carry a "Resumen" beside the abstract): its
    # English is read, in either order, and its other language gives nothing
    english = ("We propose a convolutional neural network to detect diseases in plant "
               "leaves. The model was trained on field images and reached an accuracy of 94 "
               "percent on held-out farms.")
    papers = [Paper(id="en-es", abstract=f"{english} Resumen: {spanish}", label="a",
                    source="test"),
              Paper(id="es-en", abstract=f"{spanish} Abstract: {english}", label="b",
                    source="test")]
    foreign = {}
    ranked = extract_concepts(papers, make_embedder("static", cache_dir), ExtractSettings(),
                              foreign=foreign)
    assert foreign == {}
    for pid in ("en-es", "es-en"):
        picks = {t.lower() for t, _ in ranked[pid]}
        assert "convolutional neural network" in picks, ranked[pid]
        assert not any(w in p for p in picks for w in ("redes", "hojas", "ciento", "campo",
                                                       "enfermedades")), ranked[pid]
    assert english_part(f"{english} Resumen: {spanish}") == ("en", english)
    assert english_part(f"{english} {chinese}") == ("en", english)  # another script
    # one short sentence, by two function words of its language ("un", "de"); a title in
    # capitals that py3langid calls Latin stays (ICLR 2025: "DynaPrompt: Dynamic Test-Time
    # Prompt Tuning.")
    assert english_part(f"Ce travail présente un réseau de neurones. {english}") == (
        "en", english)
    titled = f"DynaPrompt: Dynamic Test-Time Prompt Tuning. {english}"
    assert english_part(titled) == ("en", titled)
    maths = f"{english} Let α, β, γ ∈ ℝ be given."  # Greek symbols: English still
    assert english_part(maths) == ("en", maths)


def test_cold_model_load_prints_no_harmless_load_report() -> None:
    code = ("import logging; logging.basicConfig(); from paperkg.build.embed import "
            "MiniLMEmbedder; print(MiniLMEmbedder().encode(['graph neural networks']).shape)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, check=True)
    assert "(1, 384)" in done.stdout
    assert "LOAD REPORT" not in done.stderr and "position_ids" not in done.stderr


def test_extraction_in_batches_equals_one_pass(cache_dir: Path) -> None:
    """A build extracts a few thousand papers at a time (memory); a paper's concepts must
    not depend on which batch it fell in."""
    from paperkg.build.corpus import corpus_stats
    from paperkg.build.embed import make_embedder
    from paperkg.build.extraction import extract_papers, keyword_prior
    from paperkg.progress import Reporter
    from paperkg.settings import Settings

    papers = read_papers(DATA_FILES).papers
    rep = Reporter(quiet=True)
    stats = corpus_stats(papers, keyword_prior(papers, Settings(cache_dir=cache_dir), rep))
    embedder = make_embedder("static", cache_dir)
    whole = extract_papers(papers, embedder, ExtractSettings(), stats, rep)
    batched = extract_papers(papers[::-1], embedder, ExtractSettings(), stats, rep,
                             batch_size=5)
    assert len(whole) == len(papers) and all(whole.values())
    assert batched == whole


def test_the_code_fingerprint_follows_the_code_not_its_comments(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cached extractions are keyed by the code that made them: a comment, a docstring or a
    reformatting keeps them; a change to what the code does throws them away."""
    import importlib

    from paperkg.build.fingerprint import forget_code, source_fingerprint

    monkeypatch.syspath_prepend(str(tmp_path))
    probe = tmp_path / "fp_probe.py"

    def fingerprint(source: str) -> str:
        probe.write_text(source, encoding="utf-8")
        importlib.invalidate_caches()
        forget_code()
        return source_fingerprint("fp_probe")

    base = fingerprint('"""Doc."""\n\ndef f(x):\n    return x + 1\n')
    assert fingerprint('"""Other doc."""\n# a comment\n\n\ndef f( x ):\n    """Says why."""\n'
                       '    return (x + 1)  # why\n') == base
    assert fingerprint('"""Doc."""\n\ndef f(x):\n    return x + 2\n') != base
    assert fingerprint('"""Doc."""\n\ndef f(x):\n    "not a docstring" + ""\n    return x + 1\n'
                       ) != base
    forget_code()


def test_a_title_names_a_term_before_its_colon_or_question_mark() -> None:
    """ICLR 2025 9Qptgv0Eyw, SHeVc7efFz, Cnwz9jONi5: "in the title" looked for " term " in
    the title's text, so the name before a title's colon ("PtychoFormer: A …") or a
    phrase before its question mark ("… the Wrong Tree?") was not in it, and ranked and
    passed for an aside as a term the abstract names once."""
    title = "PtychoFormer: A Transformer-based Model for Phase Retrieval, or the Wrong Tree?"
    paper = Paper("p", "We present PtychoFormer for phase retrieval in ptychography.", "p",
                  "test", title=title)
    doc = document_text(paper)
    cs = candidates(doc)
    x = candidate_features(paper, doc, cs, np.zeros(len(cs)), None, CorpusShare([cs]))
    titled = {c.text for c, v in zip(cs, x[:, FEATURES.index("in_title")], strict=True) if v}
    assert {"PtychoFormer", "Phase Retrieval", "Wrong Tree"} <= titled, titled
    assert "ptychography" not in titled


def test_a_modifier_alone_gives_way_to_the_term_it_opens() -> None:
    """ICLR 2025 titles ("Transformers Learn Variable-order Markov Chains in-Context", "A
    Dual-branch Multi-Band Neural Vocoder …"): "in-context" and "dual-branch" alone are
    adjectives that name no thing; beside a kept term they open ("in-context learning"),
    they are not kept, even where the keyword statistics do not call them broad, and one
    kept only to fill the best three gives way to the longer term ("multi-agent", then
    "multi-agent framework"). A noun of a prefix ("cross-attention") stays."""
    from paperkg.build.keep import trusted

    def narrow(_text: str) -> bool:
        return False

    picks = [("in-context learning", 0.5), ("in-context", 0.4), ("cross-attention", 0.3),
             ("cross-attention layers", 0.2), ("dual-branch vocoder", 0.1), ("dual-branch", 0.09)]
    assert trusted(picks, 0.01, broad=narrow) == [True, False, True, True, True, False]
    picks = [("video generation", 0.5), ("multi-agent", 0.4), ("large language models", 0.3),
             ("multi-agent framework", 0.001)]
    assert trusted(picks, 0.01, broad=narrow) == [True, False, True, True]
