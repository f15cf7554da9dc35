"""Each concept key's id, label, kind, weight and broader concept, from how papers write it.

The last corpus-wide stage of `canon` before topics, and the longest of an update: 65k
keys of the full ICLR 2025 KG, of which an add of 100 papers changes about 800. A
resident process (`build.kgreads`) keeps each key's inputs and result (`NamingMemo`), and
a key whose inputs are those of the last update is not named again: the result is the
same because naming is a function of those inputs (the label also of the labels other
keys took, which the memo checks).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache

from paperkg.build.evidence import NameEvidence
from paperkg.build.hierarchy import broader_of
from paperkg.build.kinds import vote_kind
from paperkg.build.labels import CleanAbstracts, label_choice, prose_case
from paperkg.build.scheme import Concept, Merge
from paperkg.lexicon import is_acronym, is_shouted
from paperkg.vocab import slugify

__all__ = ["NamingMemo", "Row", "name_concepts"]

Row = tuple[str, str, float, str, Merge | None]  # key, surface, score, role, why
Casing = tuple[str, dict[str, str]]  # a hash of a key's papers, its forms' prose case

_slug = cache(slugify)  # a concept id from its key: 0.25 s of each update, once per process
_NO_VOTES: Counter[str] = Counter()  # read only: most concepts have no kind votes


@dataclass(slots=True)
class _Named:
    """One key's naming: what it was made of, and what it gave."""

    forms: dict[str, int]
    users: set[str]
    votes: Counter[str] | None
    spelled: str | None  # the long form of a defined short form, as first written
    whys: tuple[Merge | None, ...]  # the recorded reason of each alternative label
    concept: Concept  # with its id and broader concept, without a topic
    merges: list[Merge]
    casing: Casing | None
    free: bool  # no label another key took turned a choice down (`labels.label_choice`)


class NamingMemo:
    """The keys named by a process's last update, kept for the next one.

    Valid only for the KG that update wrote: `stamp` says which (`KGReads` compares it
    with the KG's concept-scheme file). An update names keys between `begin` and
    `commit`; a KG another process changed, or an update that failed or named nothing
    (one that relearns the statistics), leaves nothing for the next."""

    def __init__(self) -> None:
        self.stamp: object = None
        self._last: dict[str, _Named] = {}
        self._n_papers = 0  # the N of the weights `_last` was named under
        self._next: dict[str, _Named] = {}
        self._next_n = 0
        self._open = False

    def begin(self, stamp: object) -> None:
        if stamp is None or stamp != self.stamp:
            self._last = {}
        self._next, self._open = {}, True

    def commit(self, stamp: object) -> None:
        if self._open:
            self._last, self._n_papers = self._next, self._next_n
        else:
            self._last = {}
        self._next, self._open, self.stamp = {}, False, stamp

    def named(self, n_papers: int) -> Mapping[str, _Named]:
        """The keys the last update named, if its weights had the same N."""
        return self._last if n_papers == self._n_papers else {}

    def keep(self, key: str, named: _Named, n_papers: int) -> None:
        self._next[key] = named
        self._next_n = n_papers

    def __len__(self) -> int:
        return len(self._last)


def name_concepts(
    linked: Mapping[str, list[Row]], long_form: Mapping[str, str], abstracts: CleanAbstracts,
    n_papers: int, casing: Mapping[str, Casing] | None, fresh: set[str],
    memo: NamingMemo | None = None,
) -> tuple[dict[str, Concept], list[Merge], dict[str, Casing], dict[str, str]]:
    """(concepts, merge records, label memo, concept id by key): each key's id, label,
    kind, weight and broader concept, from how the papers write it. `long_form`: a
    defined short form's long form as first written, by key (`canon._Resolver`)."""
    surfaces: dict[str, dict[str, int]] = {}  # plain dicts: 64k Counters cost 0.4 s
    papers_of: dict[str, set[str]] = {}
    kind_votes: dict[str, Counter[str]] = defaultdict(Counter)
    merge_of: dict[tuple[str, str], Merge] = {}
    for paper_id, rows_ in linked.items():
        for key, phrase, _score, role, why in rows_:
            forms = surfaces.get(key)
            if forms is None:
                surfaces[key] = {phrase: 1}
                papers_of[key] = {paper_id}
            else:
                forms[phrase] = forms.get(phrase, 0) + 1
                papers_of[key].add(paper_id)
            if role == "evaluatesOn":
                kind_votes[key]["Dataset"] += 1
            elif role == "proposes":
                kind_votes[key]["Method"] += 1
            # the corpus-wide reason, when there is one, says more than one paper's
            if why is not None:
                known = merge_of.get((key, phrase))
                if known is None or known.local and not why.local:
                    merge_of[(key, phrase)] = why

    id_of_key: dict[str, str] = {}
    taken_ids: set[str] = set()
    for key in sorted(surfaces, key=lambda k: (-len(papers_of[k]), k)):
        cid = _slug(key)
        while cid in taken_ids:  # keys that slug alike ("c++" / "c"): keep them apart
            cid = _next_slug(cid)
        id_of_key[key] = cid
        taken_ids.add(cid)
    parents = broader_of(surfaces)
    names = NameEvidence(abstracts)
    used_labels: set[str] = set()
    concepts: dict[str, Concept] = {}
    merges: list[Merge] = []
    label_memo: dict[str, Casing] = {}
    last = memo.named(n_papers) if memo is not None else {}
    for key, cid in id_of_key.items():
        forms = surfaces[key]
        users = papers_of[key]
        votes = kind_votes.get(key)
        parent = parents.get(key)
        broader = id_of_key[parent] if parent else None
        spelled = long_form.get(key)
        done = last.get(key)
        if done is not None and not (
                done.free and done.concept.id == cid and done.concept.broader == broader
                and done.forms == forms and done.users == users and done.votes == votes
                and done.spelled == spelled and done.concept.pref_label not in used_labels
                and fresh.isdisjoint(users)):
            done = None  # its inputs changed, or its label might now differ: named again
        if done is not None:
            c, entry, free = done.concept, done.casing, True
            if entry is not None:
                label_memo[key] = entry
        else:
            before = casing.get(key) if casing else None
            sig = _users_hash(users) if before else None  # most keys have no memo: no hash
            cased = dict(before[1]) if before and before[0] == sig and fresh.isdisjoint(
                users) else {}
            pref, free = label_choice(forms, used_labels, names, users, cased)
            entry = None
            if cased:
                entry = label_memo[key] = (sig or _users_hash(users),
                                           {f: prose for f, prose in cased.items() if f in forms})
            written = spelled
            if written and is_shouted(written.split()):  # a shouted title's definition
                written = prose_case(written, names.is_name(written, users), names, users)
            if is_acronym(pref) and len(pref.split()) == 1 and written:
                free = False  # the label depends on whether `written` is taken: not kept
                if written not in used_labels:
                    pref = written  # a concept only ever written "LLM" is named by its long form
            count = len(users)
            n = max(n_papers, count)  # a corpus grown past its statistics: never below 1
            c = Concept(
                id=cid, pref_label=pref, alt_labels=tuple(sorted(f for f in forms if f != pref)),
                paper_count=count, weight=round(math.log((1 + n) / (1 + count)) + 1.0, 4),
                kind=vote_kind(key, votes or _NO_VOTES), broader=broader,
            )
        whys = tuple(merge_of.get((key, form)) for form in c.alt_labels)
        own = done.merges if done is not None and whys == done.whys else _merges(c, whys)
        used_labels.add(c.pref_label)
        concepts[cid] = c
        merges.extend(own)
        if memo is not None:
            memo.keep(key, done if done is not None and own is done.merges else _Named(
                forms, users, votes, spelled, whys, c, own, entry, free), n_papers)
    return concepts, merges, label_memo, id_of_key


def _merges(c: Concept, whys: tuple[Merge | None, ...]) -> list[Merge]:
    """The merge record of each alternative label of `c`, given its recorded reason."""
    out = []
    for form, why in zip(c.alt_labels, whys, strict=True):
        if why is None:
            out.append(Merge(form, c.id, "variant", f"{form!r} and {c.pref_label!r} are the "
                             "same term up to case, spacing, hyphens or plural"))
        else:
            out.append(Merge(form, c.id, why.rule, why.detail, why.paper_id))
    return out


def _users_hash(papers: Collection[str]) -> str:
    return hashlib.blake2b("\x00".join(sorted(papers)).encode(), digest_size=8).hexdigest()


def _next_slug(cid: str) -> str:
    m = re.fullmatch(r"(.*)-(\d+)", cid)
    return f"{m.group(1)}-{int(m.group(2)) + 1}" if m else f"{cid}-2"
