"""Canonical concepts on real abstracts: abbreviations, merges (and non-merges), kinds,
roles, hierarchy, topics, the keyword prior's leave-one-out, and what lands in the KG."""

from __future__ import annotations

import json
from pathlib import Path

from paperkg.build.canon import build_scheme
from paperkg.build.hierarchy import broader_of
from paperkg.build.ingest import Paper, read_papers
from paperkg.build.kinds import head_kind, paper_roles
from paperkg.build.prior import KeywordPrior, learn_prior
from paperkg.build.terms import abbreviations, term_key
from paperkg.build.text import candidates, clean_text, code_links, document_text
from paperkg.read.kg import open_kg
from tests.conftest import DATA_FILES, seed_abstracts


def _defs(text: str) -> dict[str, str]:
    return {a.short: a.long for a in abbreviations(clean_text(text))}


def _seed(fragment: str) -> str:
    return next(a for a in seed_abstracts() if fragment in a)


def test_abbreviations_in_real_abstracts() -> None:
    dpc = _defs(_seed("Dynamic Prompt Corruption"))
    assert dpc == {"PT": "Prompt Tuning", "PEFT": "Parameter-Efficient Fine-Tuning",
                   "DPC": "Dynamic Prompt Corruption", "LLMs": "large language models"}
    found: dict[str, str] = {}
    for abstract in seed_abstracts():
        found.update(_defs(abstract))
    assert found["MoE"] == "Mixture of Experts"
    assert found["RLHF"].lower() == "reinforcement learning from human feedback"
    assert found["CoT"] == "Chain-of-Thought" and found["GNNs"].lower() == "graph neural networks"
    assert found["MILP"] == "Mixed Integer Linear Programming"
    # initials beat character matching; a window that does not spell the acronym is refused
    assert _defs("We train with Proximal Policy Optimization (PPO).") == {
        "PPO": "Proximal Policy Optimization"}
    assert _defs("we use language to direct language models (LLMs) here") == {}
    assert _defs("results (p < 0.05) and (see Fig. 2)") == {}


def test_merge_keys_fold_spelling_but_not_meaning() -> None:
    assert term_key("LLMs") == term_key("LLM") == "LLM"
    assert term_key("Large Language Models") == term_key("large-language model")
    assert term_key("time series") == "time series" and term_key("GNNs") == "GNN"
    assert term_key("graph neural network") != term_key("graph transformer")
    assert term_key("CLIP") != term_key("clips") and term_key("MATH") != term_key("math")


def test_scheme_merges_abbreviations_across_papers_and_explains_why() -> None:
    papers = read_papers(DATA_FILES).papers
    extracted = {p.id: [(c.text, 0.5) for c in candidates(document_text(p))[:12]]
                 for p in papers}
    # a paper that only uses the bare acronym, never defining it
    bare = Paper("bare", "LLMs are strong. We study GNNs and RL agents.", "bare", "test")
    extracted["bare"] = [("LLMs", 0.9), ("GNNs", 0.8), ("LLM agents", 0.7),
                         ("large language model's", 0.6)]
    scheme = build_scheme(extracted, [*papers, bare])
    llm = scheme.concepts["large-language-model"]
    assert llm.pref_label == "large language models"
    assert {"LLMs", "Large Language Models"} <= set(llm.alt_labels)
    assert scheme.mentions["bare"][0].concept_id == "large-language-model"
    assert scheme.mentions["bare"][1].concept_id == "graph-neural-network"
    # an unambiguous short form inside a longer term is spelled out; a possessive is no term
    assert scheme.mentions["bare"][2].concept_id == "large-language-model-agent"
    assert len(scheme.mentions["bare"]) == 3
    why = next(m for m in scheme.merges if m.label == "LLMs")
    assert why.rule == "abbreviation" and "large language models" in why.detail.lower()
    assert why.paper_id in {p.id for p in papers}
    variant = next(m for m in scheme.merges if m.label == "Large Language Models")
    assert variant.rule == "variant" and variant.paper_id is None
    labels = [c.pref_label.lower() for c in scheme.concepts.values()]
    assert len(labels) == len(set(labels)), "prefLabels are unique within the scheme"


def test_ambiguous_acronym_is_merged_only_where_defined() -> None:
    def paper(pid: str, text: str) -> Paper:
        return Paper(pid, text, pid, "test")

    papers = [paper("a", "We revisit prompt tuning (PT) for reasoning. PT is cheap."),
              paper("b", "Large-scale pre-training (PT) of vision models helps."),
              paper("c", "We show PT fails on small models.")]
    extracted = {"a": [("PT", 0.9)], "b": [("PT", 0.9)], "c": [("PT", 0.9)]}
    scheme = build_scheme(extracted, papers)
    assert scheme.mentions["a"][0].concept_id == "prompt-tuning"
    assert scheme.mentions["b"][0].concept_id == "pre-training"
    assert scheme.mentions["c"][0].concept_id == "pt"  # ambiguous: left alone
    assert len({"prompt-tuning", "pre-training", "pt"} & set(scheme.concepts)) == 3


def test_kinds_and_roles_in_the_dpc_abstract() -> None:
    text = clean_text(_seed("Dynamic Prompt Corruption"))
    roles = paper_roles(text, abbreviations(text))
    assert roles.proposes == ("Dynamic Prompt Corruption",)
    assert roles.evaluated_on == ("GSM8K", "MATH", "AQuA")
    assert head_kind("graph neural network") == "Method"
    assert head_kind("image classification") == "Task"
    assert head_kind("attack success rate") == "Metric"
    assert head_kind("reasoning benchmark") == "Dataset"
    assert head_kind("fairness") is None
    portllm = clean_text(_seed("PORTLLM"))
    assert "Mistral-7B" not in paper_roles(portllm, abbreviations(portllm)).evaluated_on
    assert code_links(r"Code: \url{https://github.com/a/b}.") == ["https://github.com/a/b"]


def test_broader_is_the_longest_concept_suffix() -> None:
    keys = ["offline reinforcement learning", "reinforcement learning", "learning",
            "deep reinforcement learning", "graph transformer", "transformer"]
    up = broader_of(keys)
    assert up["offline reinforcement learning"] == "reinforcement learning"
    assert up["deep reinforcement learning"] == "reinforcement learning"
    assert "reinforcement learning" not in up  # "learning" alone is too vague a parent
    assert "graph transformer" not in up


def test_keyword_prior_leaves_the_scored_paper_out() -> None:
    abstracts = seed_abstracts()[:6]
    papers = [Paper(f"p{i}", a, f"p{i}", "test", keywords=("large language models",))
              for i, a in enumerate(abstracts)]
    full = learn_prior(papers, document_text)
    rest = learn_prior(papers[1:], document_text)
    key = term_key("large language models")
    own_cands = frozenset(term_key(c.text) for c in candidates(document_text(papers[0]),
                                                                 known=full.known()))
    assert full.scores(key, frozenset({key}), own_cands) == rest.scores(key)
    assert full.scores(key) != rest.scores(key)
    assert not KeywordPrior()


def test_demo_kg_holds_kinds_roles_merges_and_hierarchy(demo_kg: Path) -> None:

    kg = open_kg(demo_kg)

    def ask(where: str) -> bool:
        res = kg.sparql(f"ASK {{ {where} }}")
        return bool(res.boolean)

    assert ask("?p pkg:proposes concept:dynamic-prompt-corruption . "
               "concept:dynamic-prompt-corruption a pkg:Method")
    assert ask("?p pkg:evaluatesOn concept:gsm8k . concept:gsm8k a pkg:Dataset")
    assert ask("concept:large-language-model skos:altLabel 'LLMs' ; pkg:merge ?m . "
               "?m pkg:label 'LLMs' ; pkg:rule 'abbreviation' ; prov:wasDerivedFrom ?paper .")
    assert ask("?c skos:broader ?b . ?b skos:narrower ?c")
    rows = [json.loads(line) for line in (demo_kg / "merges.jsonl").read_text().splitlines()]
    assert any(r["label"] == "LLMs" and r["concept"] == "large-language-model" for r in rows)
    manifest = json.loads((demo_kg / "manifest.json").read_text())
    assert manifest["shacl"].startswith("conforms")
    assert manifest["counts"]["typed_concepts"]["Dataset"] >= 3
    assert manifest["counts"]["topics"] >= 1


def test_code_links_become_valid_iris_in_the_store(tmp_path: Path) -> None:
    from paperkg.build.extract import ExtractSettings
    from paperkg.build.rdf import iter_triples
    from paperkg.store import OxigraphStore

    text = ("We release code at https://github.com/org/repo[v2] and "
            "https://anonymous.4open.science/r/X-1/ for review.")
    paper = Paper("p1", text, "p1", "test")
    scheme = build_scheme({"p1": [("code", 0.5)]}, [paper])
    store = OxigraphStore.create(tmp_path / "store",
                                 iter_triples([paper], scheme, ExtractSettings().info("m")))
    res = store.query("SELECT ?u WHERE { ?p <https://schema.org/codeRepository> ?u } ORDER BY ?u")
    assert [r[0].value for r in res.rows if r[0] is not None] == [
        "https://anonymous.4open.science/r/X-1/", "https://github.com/org/repo"]
