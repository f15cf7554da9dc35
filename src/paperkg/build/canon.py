"""Turn extracted phrases into corpus-wide concepts: one node per concept, not per spelling.

Two labels become one concept for one of two recorded reasons (`Merge.rule`):
- "variant": the same term up to case, hyphens, LaTeX residue or the plural of its last
  word ("Language-Models" / "language model"), see `terms.term_key`;
- "abbreviation": a short form the paper itself defines ("large language models
  (LLMs)"), or a bare short form used elsewhere whose definitions across the corpus all
  (at least 80 %) agree. An ambiguous short form ("PT": prompt tuning or pre-training)
  is merged only in the papers that define it.
Nothing else merges: "graph neural network" and "graph transformer" stay apart. Each
concept also gets a kind (`kinds`), a broader concept and a topic (`hierarchy`), and a
weight `log((1+N)/(1+df)) + 1` so sharing a rare concept counts for more. N is the size of
the corpus the statistics were learned from (`corpus_size`): like the keyword prior, it is
a corpus statistic an update keeps, so adding a paper changes the weights of the concepts
it mentions, not of all 60k.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from paperkg.build.hierarchy import Field, Topic, topic_hierarchy
from paperkg.build.ingest import Paper
from paperkg.build.kinds import PaperRoles, paper_roles
from paperkg.build.labels import CleanAbstracts
from paperkg.build.naming import NamingMemo, Row, name_concepts
from paperkg.build.scheme import Concept, ConceptScheme, Mention, Merge
from paperkg.build.terms import Abbreviation, abbreviations, term_key
from paperkg.build.text import document_text
from paperkg.build.variants import compact, variant_targets
from paperkg.lexicon import is_acronym
from paperkg.memo import WordMemo
from paperkg.vocab import slugify

__all__ = ["Concept", "ConceptScheme", "Mention", "Merge", "TextFacts", "build_scheme",
           "concept_key", "slugify", "text_facts"]

concept_key = term_key  # the merge key, under the name the rest of the code knows
# the same phrases recur across papers; keying them once (and, through `paperkg.memo`,
# once across builds) saves seconds of every full-corpus scheme and of every `paperkg add`
_key = WordMemo("term_key", term_key)
UNAMBIGUOUS_SHARE = 0.8


@lru_cache(maxsize=1 << 18)
def _has_acronym(surface: str) -> bool:
    """An acronym among the words, a hyphenated word's parts too: "LLM-as-a-judge",
    "KV-cache", "human-AI collaboration" are spelled out as their keys' words are."""
    return any(is_acronym(w) for w in _WORD_PARTS.split(surface) if w)


_WORD_PARTS = re.compile(r"[\s\-\u2010-\u2015/]+")


_compact = compact


class _Resolver:
    """Maps a paper's surface form to its concept key, remembering why."""

    def __init__(self, defs: Mapping[str, list[Abbreviation]]) -> None:
        self.local = {pid: {_key(a.short): _key(a.long) for a in ab}
                      for pid, ab in defs.items()}
        votes: dict[str, Counter[str]] = defaultdict(Counter)
        spellings: dict[str, Counter[str]] = defaultdict(Counter)
        self.short_forms: dict[str, Counter[str]] = defaultdict(Counter)
        self.example: dict[tuple[str, str], str] = {}
        self.long_form: dict[str, str] = {}
        for pid, ab in sorted(defs.items()):
            for a in ab:
                short, long = _key(a.short), _key(a.long)
                votes[short][_compact(long)] += 1
                spellings[_compact(long)][long] += 1
                self.short_forms[short][a.short] += 1
                self.example.setdefault((short, _compact(long)), pid)
                self.long_form.setdefault(long, a.long)
        self.votes = votes
        self.glob: dict[str, str] = {}
        for short, counter in votes.items():
            compact, n = counter.most_common(1)[0]
            if n >= UNAMBIGUOUS_SHARE * sum(counter.values()):
                self.glob[short] = spellings[compact].most_common(1)[0][0]

    def resolve(self, paper_id: str, surface: str) -> tuple[str, Merge | None]:
        key = _key(surface)
        if not _has_acronym(surface):
            return key, None
        local = self.local.get(paper_id, {}).get(key)
        if local is not None:
            return local, Merge(surface, "", "abbreviation",
                                f"{surface!r} is defined as {self.long_form.get(local, local)!r}"
                                f" in paper {paper_id} (other papers use it otherwise)",
                                paper_id, local=True)
        target = self.glob.get(key)
        if target is not None:
            return target, self.why(key, surface)
        return self._expand_inside(key, surface)

    def _expand_inside(self, key: str, surface: str) -> tuple[str, Merge | None]:
        """"multimodal LLMs" is "multimodal large language models": an unambiguous short
        form inside a longer term is spelled out too."""
        words = key.split()
        if len(words) < 2 or not any(w in self.glob for w in words):
            return key, None
        expanded = " ".join(self.glob.get(w, w) for w in words)
        short = next(w for w in words if w in self.glob)
        why = self.why(short, surface)
        return expanded, replace(why, detail=f"{surface!r} contains {short!r}, which is "
                                 + why.detail.split(" is ", 1)[1])

    def why(self, short: str, surface: str) -> Merge:
        """The corpus-wide reason a bare short form stands for its long form."""
        target = self.glob[short]
        n = sum(self.votes[short].values())
        agree = self.votes[short][_compact(target)]
        return Merge(surface, "", "abbreviation",
                     f"{surface!r} is defined as {self.long_form.get(target, target)!r} in "
                     f"{agree} of {n} defining paper(s)",
                     self.example[(short, _compact(target))])


def _merge_variants(
    linked: dict[str, list[Row]],
    short_forms: Collection[str],
) -> None:
    """Give keys that name one term one key (`variants`): spacing, a coined name's case,
    a head noun after a name, a typo. The last two say why in their merge record."""
    used = Counter(row[0] for rows in linked.values() for row in rows)
    lower = {row[0] for rows in linked.values() for row in rows if row[1] == row[1].lower()}
    targets = variant_targets(used, short_forms, used.keys() - lower)
    for pid, rows in linked.items():
        if all(row[0] not in targets for row in rows):
            continue  # most papers: no key of theirs is a variant
        out = []
        for k, phrase, score, role, why in rows:
            target, reason = targets.get(k, (k, ""))
            if target != k and why is None and not reason.startswith("the same term"):
                why = Merge(phrase, "", "variant", f"{phrase!r} is {target!r}: {reason}", pid)
            out.append((target, phrase, score, role, why))
        linked[pid] = out


@dataclass(frozen=True, slots=True)
class TextFacts:
    """What the scheme reads from one paper's text: the abbreviations it defines and the
    names it proposes or evaluates on. A function of the text alone, so an update keeps
    an unchanged paper's (`build.statistics` stores them)."""

    defs: list[Abbreviation]
    roles: PaperRoles


def text_facts(paper: Paper) -> TextFacts:
    text = document_text(paper)
    defs = abbreviations(text)
    return TextFacts(defs, paper_roles(text, defs))


def build_scheme(
    extracted: Mapping[str, Sequence[tuple[str, float]]],
    papers: Sequence[Paper] = (),
    facts: Mapping[str, TextFacts] | None = None,
    casing: Mapping[str, tuple[str, dict[str, str]]] | None = None,
    fresh: Collection[str] = (),
    corpus_size: int | None = None,
    cleaned: MutableMapping[str, tuple[str, str]] | None = None,
    naming: NamingMemo | None = None,
) -> ConceptScheme:
    """Group every paper's ranked (phrase, score) list into concepts and mentions.

    With `papers` (their texts), abbreviations, kinds and roles are read from the text
    (or taken from `facts`, by paper id: `text_facts` of the same text); without, only
    spelling variants merge. `casing` is the label memo of the scheme an update starts
    from (`ConceptScheme.casing`) and `fresh` the papers whose text it has not read: a
    concept used by the same papers, none of them fresh, is cased as it was.

    In stages, each a function, so what a stage needs only for itself (the surface
    counts, the abstracts read for casing) is freed before the next: on a 4x corpus they
    were most of the build's peak. `corpus_size` is the N of the weights (default: the
    papers in `extracted`). `cleaned`: abstracts cleaned by an earlier scheme of this
    process (`labels.CleanAbstracts`), `naming` the keys named by its last update.
    """
    read = {p.id: facts[p.id] if facts and p.id in facts else text_facts(p) for p in papers}
    resolver = _Resolver({pid: f.defs for pid, f in read.items()})
    linked = _link(extracted, {pid: f.roles for pid, f in read.items()}, resolver)
    del read
    concepts, merges, memo, id_of_key = name_concepts(
        linked, resolver.long_form, CleanAbstracts(papers, cleaned),
        max(corpus_size or len(extracted), 1), casing, set(fresh), naming)
    _add_defined_short_forms(concepts, merges, resolver, id_of_key)
    del resolver
    mentions = _mentions(linked, id_of_key)
    del linked
    groups, fields = _topics(concepts, mentions, len(extracted))
    topic_of = {cid: t.id for t in groups for cid in t.members}
    for cid, topic in topic_of.items():
        c = concepts[cid]
        concepts[cid] = Concept(c.id, c.pref_label, c.alt_labels, c.paper_count, c.weight,
                                c.kind, c.broader, topic)
    return ConceptScheme(concepts, mentions, merges, groups, fields, memo)


def _topics(concepts: Mapping[str, Concept], mentions: Mapping[str, Sequence[Mention]],
            papers: int) -> tuple[list[Topic], list[Field]]:
    """Topics and fields of the concepts; a demo-sized corpus (under 500 papers) gets
    looser thresholds, or it would have no topics."""
    small = papers < 500
    return topic_hierarchy(
        {c.id: c.paper_count for c in concepts.values()},
        ([m.concept_id for m in ms] for ms in mentions.values()),
        {c.id: c.pref_label for c in concepts.values()},
        min_papers=2 if small else 3, min_together=1 if small else 2,
        resolution=1.0 if small else 8.0, field_resolution=1.0 if small else 2.0,
        kinds={c.id: c.kind for c in concepts.values()})


def _link(extracted: Mapping[str, Sequence[tuple[str, float]]],
          roles: Mapping[str, PaperRoles], resolver: _Resolver) -> dict[str, list[Row]]:
    """Each paper's phrases (and the names it proposes or evaluates on) with their
    concept keys, variants of one term given one key."""
    linked: dict[str, list[Row]] = {}
    for paper_id, phrases in extracted.items():
        rows = [(phrase, score, "mentions") for phrase, score in phrases]
        r = roles.get(paper_id)
        if r is not None:
            rows += [(name, 0.0, "proposes") for name in r.proposes]
            rows += [(name, 0.0, "evaluatesOn") for name in r.evaluated_on]
        out: list[Row] = []
        for phrase, score, role in rows:
            key, why = resolver.resolve(paper_id, phrase)
            if key:
                out.append((key, phrase, score, role, why))
        linked[paper_id] = out
    _merge_variants(linked, resolver.votes.keys())
    return linked


def _mentions(linked: Mapping[str, list[Row]], id_of_key: Mapping[str, str],
              ) -> dict[str, list[Mention]]:
    """Each paper's concepts, once each, in rank order; a concept both mentioned and
    proposed (or evaluated on) takes the stronger role."""
    mentions: dict[str, list[Mention]] = {}
    for paper_id, rows_ in linked.items():
        links: dict[str, Mention] = {}
        for key, phrase, score, role, _why in rows_:
            cid = id_of_key[key]
            if cid in links:
                if role != "mentions" and links[cid].role == "mentions":
                    m = links[cid]
                    links[cid] = Mention(cid, m.surface, m.score, m.rank, role)
                continue
            links[cid] = Mention(cid, phrase, float(score), len(links) + 1, role)
        mentions[paper_id] = list(links.values())
    return mentions


def _add_defined_short_forms(
    concepts: dict[str, Concept], merges: list[Merge], resolver: _Resolver,
    id_of_key: Mapping[str, str],
) -> None:
    """An unambiguous short form is a label of its concept even where no paper's top
    concepts used it bare: "FL" finds "federated learning"."""
    by_compact = {_compact(k): cid for k, cid in id_of_key.items()}
    for short, long in resolver.glob.items():
        cid = by_compact.get(_compact(long))
        if cid is None:
            continue
        c = concepts[cid]
        have = {c.pref_label, *c.alt_labels}
        new = [f for f in resolver.short_forms[short] if f not in have]
        if not new:
            continue
        concepts[cid] = replace(c, alt_labels=tuple(sorted({*c.alt_labels, *new})))
        merges.extend(replace(resolver.why(short, f), concept_id=cid) for f in sorted(new))
