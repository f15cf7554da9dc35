"""A KG is a function of its papers, settings and corpus statistics: whatever the cache
holds, and however it was reached (one build, or a build plus `add`/`remove`). A default
update equals a from-scratch build under the KG's stored statistics (`--statistics-from`);
one that relearns them equals a plain build. Real ICLR 2025 records, the static embedder,
real stores; every KG compared triple by triple with a from-scratch build."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pyoxigraph as ox
import pytest

from paperkg.build.pipeline import build_kg
from paperkg.build.statistics import load_epoch, read_results
from paperkg.build.update import update_kg
from paperkg.errors import UsageError
from paperkg.kgdir import GRAPH, MERGES, PAPERS, RANKED, STATISTICS, STORE, TERMS, load_graph
from paperkg.lexical import Lexicon
from paperkg.progress import Reporter
from paperkg.settings import Settings, default_cache_dir
from tests.conftest import CORPUS

pytestmark = pytest.mark.skipif(not CORPUS.is_file(), reason=f"needs {CORPUS}")

DPO_DEFINER = 402  # corpus line defining "DPO" as "Direct Preference Optimization"
DPO_USER = "0DZEs8NpUH"  # one of the first 100 papers: mentions "DPO" bare, never defines it


def _records(n: int) -> list[str]:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as fh:
        return list(itertools.islice(fh, n))


RECORDS = _records(DPO_DEFINER + 1) if CORPUS.is_file() else []
DPO_INPUT = "papers.jsonl"  # the first 100 records: the base KG


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _quiet() -> Reporter:
    return Reporter(stream=open(os.devnull, "w"), quiet=True)  # noqa: SIM115


def _settings(cache: Path, statistics_from: Path | None = None) -> Settings:
    """Static embedder, a private cache, the distilled model shared with the user's cache
    (distilling it takes minutes, and it is the same model)."""
    models = default_cache_dir() / "models"
    models.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    if not (cache / "models").exists():
        (cache / "models").symlink_to(models)
    return Settings(embedder="static", cache_dir=cache, statistics_from=statistics_from)


def _triples(kg: Path) -> set[str]:
    """The KG's triples; the ontology's blank-node lists are left out (labels are random)."""
    store = ox.Store.read_only(str(kg / STORE))
    return {str(q) for q in store.quads_for_pattern(None, None, None, None)
            if not isinstance(q.subject, ox.BlankNode) and not isinstance(q.object, ox.BlankNode)}


def assert_same_kg(a: Path, b: Path) -> None:
    ta, tb = _triples(a), _triples(b)
    assert ta == tb, (f"{len(ta - tb)} triples only in {a.name}, {len(tb - ta)} only in "
                      f"{b.name}: e.g. {sorted(ta ^ tb)[:3]}")
    # blank nodes only in the ontology, as many: an update (which compares triples
    # without looking for blank nodes) never wrote any twice
    sa, sb = ox.Store.read_only(str(a / STORE)), ox.Store.read_only(str(b / STORE))
    assert len(sa) - len(ta) == len(sb) - len(tb)
    assert (a / MERGES).read_text() == (b / MERGES).read_text()
    ga, gb = load_graph(a / GRAPH), load_graph(b / GRAPH)
    assert sorted(ga.nodes(data=True)) == sorted(gb.nodes(data=True))
    assert sorted(map(sorted, ga.edges)) == sorted(map(sorted, gb.edges))
    assert _term_counts(a) == _term_counts(b)


def _term_counts(kg: Path) -> dict[str, dict[str, float]]:
    """Each paper's words and word pairs (of two or more papers) with their counts: an
    update reuses the unchanged papers' counts, a build counts every paper."""
    lex = Lexicon.load(kg / TERMS)
    term = {i: t for t, i in lex.vocab.items()}
    return {pid: {term[int(j)]: float(n) for j, n in zip(row.indices, row.data, strict=True)}
            for pid, row in zip(lex.ids, lex.counts, strict=True)}


def _dpo_concept(kg: Path, paper: str) -> str:
    store = ox.Store.read_only(str(kg / STORE))
    rows = list(store.query(f"""
        PREFIX pkg: <https://w3id.org/paperkg/ontology#>
        SELECT ?label WHERE {{
          <https://w3id.org/paperkg/paper/{paper}> pkg:hasMention ?m .
          ?m pkg:surfaceForm "DPO" ; pkg:concept ?c .
          ?c <http://www.w3.org/2004/02/skos/core#prefLabel> ?label }}"""))
    assert len(rows) == 1, rows
    return str(rows[0]["label"].value)


def _counts_and_weights(kg: Path) -> dict[str, tuple[int, float]]:
    store = ox.Store.read_only(str(kg / STORE))
    return {str(r["c"].value): (int(r["n"].value), float(r["w"].value)) for r in store.query("""
        PREFIX pkg: <https://w3id.org/paperkg/ontology#>
        SELECT ?c ?n ?w WHERE { ?c pkg:paperCount ?n ; pkg:weight ?w }""")}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("update")


@pytest.fixture(scope="module")
def base(work: Path) -> Path:
    """The KG of the first 100 corpus records, built once."""
    kg = work / "base"
    build_kg([_write(work / "a" / "papers.jsonl", RECORDS[:100])], kg,
             _settings(work / "cache"), reporter=_quiet())
    return kg


def _copy(kg: Path, name: str) -> Path:
    target = kg.with_name(name)
    shutil.copytree(kg, target)
    return target


def test_a_partly_filled_cache_gives_the_cold_build(work: Path) -> None:
    """#11: N of 100 cached rows used to change the KG (878 concepts cold, 879 at N=99)."""
    settings = _settings(work / "cold-cache")
    inputs = [_write(work / "c" / "papers.jsonl", RECORDS[:100])]
    build_kg(inputs, work / "cold", settings, reporter=_quiet())
    rows_file = next((work / "cold-cache" / "extractions").glob("*.jsonl"))
    rows = [line for line in rows_file.read_text().splitlines() if line.strip()]
    assert len(rows) == 100
    for keep in (30, 99, 100):
        rows_file.write_text("\n".join(rows[:keep]) + "\n")
        shutil.rmtree(work / "cold-cache" / "validated", ignore_errors=True)
        build_kg(inputs, work / f"partial-{keep}", settings, reporter=_quiet())
        assert_same_kg(work / f"partial-{keep}", work / "cold")


def test_add_under_the_stored_statistics_equals_a_build_under_them(work: Path, base: Path
                                                                    ) -> None:
    """Default `add`: the new paper is ranked under the KG's statistics, the others keep
    their stored concepts, and the merge votes still see every paper: adding a paper that
    defines "DPO" re-decides the merge of "DPO" in another paper. Equal, triple by triple,
    to `build --statistics-from` of the same papers."""
    assert _dpo_concept(base, DPO_USER) == "DPO"
    kg = _copy(base, "added")
    new = _write(work / "b" / "new.jsonl", [RECORDS[DPO_DEFINER]])
    manifest = update_kg(kg, add=[new], settings=_settings(work / "cache"), reporter=_quiet())
    assert manifest["update"]["added"] == 1 and manifest["counts"]["papers"] == 101
    assert manifest["update"]["statistics"] == "stored"
    assert manifest["update"]["triples_added"] > 0 and manifest["update"]["triples_removed"] > 0
    assert manifest["counts"]["triples"] == len(ox.Store.read_only(str(kg / STORE)))
    assert manifest["statistics"]["new_since"] == 1 and not manifest["statistics"]["stale"]
    assert _dpo_concept(kg, DPO_USER).lower() == "direct preference optimization"
    # the statistics are the base KG's, byte for byte; the old papers' results are kept
    assert (kg / STATISTICS).read_bytes() == (base / STATISTICS).read_bytes()
    # with the prior's fingerprint, kept rather than hashed again by every add: the hash
    # of the counts it was stored with
    epoch = load_epoch(kg)
    assert epoch is not None and epoch.stats.prior is not None
    kept = epoch.stats.prior._fingerprint  # as loaded: nothing asked it yet
    assert kept and kept == replace(epoch.stats.prior, _fingerprint="").fingerprint()
    before, after = read_results(base), read_results(kg)
    assert before is not None and after is not None
    assert all(after[i].ranked == r.ranked for i, r in before.items())
    # the weights' N is a statistic too: only the concepts whose paper count changed
    # have another weight (before, all of them did, with N)
    w0, w1 = _counts_and_weights(base), _counts_and_weights(kg)
    moved = {c for c in w0.keys() & w1.keys() if w0[c][1] != w1[c][1]}
    assert moved and all(w0[c][0] != w1[c][0] for c in moved), sorted(moved)[:3]
    build_kg([work / "a" / DPO_INPUT, new], work / "scratch-stats-added",
             _settings(work / "cache", statistics_from=base), reporter=_quiet())
    assert_same_kg(kg, work / "scratch-stats-added")


def test_text_facts_read_by_other_code_are_read_again(work: Path, base: Path) -> None:
    """A KG records the code that read its papers' text facts (abbreviations, roles). When
    that code has changed, an update reads them again from the texts instead of keeping
    the stored ones: here the stored ones are emptied and said to be another code's, and
    the update is still the build of the same papers under the same statistics."""
    kg = _copy(base, "other-facts")
    with gzip.open(kg / RANKED, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    assert any(row[4] for row in rows)  # some papers define abbreviations
    with gzip.open(kg / RANKED, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps([*row[:4], [], [], []]) + "\n" for row in rows)
    manifest = json.loads((kg / "manifest.json").read_text())
    (kg / "manifest.json").write_text(json.dumps({**manifest, "facts_code": "older"}))
    new = _write(work / "f" / "new.jsonl", [RECORDS[DPO_DEFINER]])
    update_kg(kg, add=[new], settings=_settings(work / "cache"), reporter=_quiet())
    build_kg([work / "a" / DPO_INPUT, new], work / "scratch-facts",
             _settings(work / "cache", statistics_from=base), reporter=_quiet())
    assert_same_kg(kg, work / "scratch-facts")


def test_relearning_add_equals_a_plain_build(work: Path, base: Path) -> None:
    """`add --relearn-statistics`: the statistics learned again from all papers, every
    paper re-ranked: the KG a from-scratch build gives, and a new epoch."""
    kg = _copy(base, "relearned")
    new = _write(work / "b" / "new.jsonl", [RECORDS[DPO_DEFINER]])
    manifest = update_kg(kg, add=[new], settings=_settings(work / "cache"), reporter=_quiet(),
                         relearn=True)
    assert manifest["update"]["statistics"] == "relearned"
    assert manifest["statistics"]["papers"] == 101 and manifest["statistics"]["new_since"] == 0
    assert _dpo_concept(kg, DPO_USER).lower() == "direct preference optimization"
    build_kg([work / "a" / DPO_INPUT, new], work / "scratch-added",
             _settings(work / "cache"), reporter=_quiet())
    assert_same_kg(kg, work / "scratch-added")
    # the statistics differ from the base KG's: what a default add would not have changed
    old_epoch, new_epoch = load_epoch(base), load_epoch(kg)
    assert old_epoch is not None and new_epoch is not None
    assert new_epoch.corpus != old_epoch.corpus


def test_a_changed_paper_is_replaced_as_a_fresh_build_would(work: Path, base: Path) -> None:
    """Same id, new content: the old paper's triples go, the new ones come, and what the
    new text defines reaches the other papers."""
    first = json.loads(RECORDS[0])
    definer = json.loads(RECORDS[DPO_DEFINER])
    changed = json.dumps({**first, **{k: definer[k] for k in ("title", "abstract", "keywords")
                                      if k in definer}}) + "\n"
    kg = _copy(base, "changed")
    manifest = update_kg(kg, add=[_write(work / "d" / "papers.jsonl", [changed])],
                         settings=_settings(work / "cache"), reporter=_quiet())
    assert manifest["update"]["changed"] == 1 and manifest["update"]["added"] == 0
    assert manifest["statistics"]["new_since"] == 1
    assert _dpo_concept(kg, DPO_USER).lower() == "direct preference optimization"
    scratch_input = _write(work / "e" / "papers.jsonl", [changed, *RECORDS[1:100]])
    build_kg([scratch_input], work / "scratch-changed",
             _settings(work / "cache", statistics_from=base), reporter=_quiet())
    assert_same_kg(kg, work / "scratch-changed")


def test_remove_equals_a_fresh_build_of_the_rest(work: Path, base: Path) -> None:
    """Under the stored statistics (== `--statistics-from`), and relearned (== a plain
    build of the rest)."""
    gone = [json.loads(line)["id"] for line in RECORDS[80:100]]
    rest = _write(work / "f" / "papers.jsonl", RECORDS[:80])
    kg = _copy(base, "removed")
    manifest = update_kg(kg, remove=gone, settings=_settings(work / "cache"), reporter=_quiet())
    assert manifest["counts"]["papers"] == 80 and manifest["update"]["removed"] == 20
    build_kg([rest], work / "scratch-stats-removed",
             _settings(work / "cache", statistics_from=base), reporter=_quiet())
    assert_same_kg(kg, work / "scratch-stats-removed")
    kg = _copy(base, "removed-relearned")
    update_kg(kg, remove=gone, settings=_settings(work / "cache"), reporter=_quiet(),
              relearn=True)
    build_kg([rest], work / "scratch-removed", _settings(work / "cache"), reporter=_quiet())
    assert_same_kg(kg, work / "scratch-removed")
    with pytest.raises(UsageError, match="no paper with id 'nope'"):
        update_kg(kg, remove=["nope"], settings=_settings(work / "cache"), reporter=_quiet())


def test_many_new_papers_ask_for_new_statistics(work: Path, base: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Over 10 % of the papers not counted in the statistics: the manifest says so and
    `add` prints a hint; relearning (no new input) clears it. A KG without stored
    statistics (an older build) relearns them. `add` without `--embedder` ranks with the
    KG's (static), not the default: another embedder would relearn the statistics."""
    from paperkg.cli import main

    monkeypatch.delenv("PAPERKG_EMBEDDER", raising=False)
    kg = _copy(base, "stale")
    more = _write(work / "g" / "more.jsonl", RECORDS[100:112])
    proc = _cli(main, ["add", "--kg", str(kg), str(more), "--cache-dir", str(work / "cache")])
    assert json.loads((kg / "manifest.json").read_text())["settings"]["embedder"] == "static"
    assert "hint: 12 of 112 papers are new since the corpus statistics were learned" in proc
    assert "--relearn-statistics" in proc
    manifest = update_kg(kg, settings=_settings(work / "cache"), reporter=_quiet(),
                         relearn=True)
    assert manifest["statistics"] == {**manifest["statistics"], "papers": 112,
                                      "new_since": 0, "stale": False}
    old = _copy(base, "older")
    (old / STATISTICS).unlink()
    (old / RANKED).unlink()
    update_kg(old, add=[more], settings=_settings(work / "cache"), reporter=_quiet())
    assert_same_kg(old, kg)  # both relearned from the same 112 papers
    bare = _copy(base, "bare")
    (bare / STATISTICS).unlink()
    with pytest.raises(UsageError, match="has no statistics.json.gz"):
        build_kg([more], work / "nope", _settings(work / "cache", statistics_from=bare),
                 reporter=_quiet())


def _cli(main: object, argv: list[str]) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert callable(main) and main(argv) == 0
    return out.getvalue()


def test_another_extractor_relearns(work: Path, base: Path) -> None:
    """Stored results made by another extractor (here: other settings) are not kept: the
    update relearns and re-ranks, and equals a plain build with those settings."""
    from dataclasses import replace

    kg = _copy(base, "top5")
    new = _write(work / "b" / "new.jsonl", [RECORDS[DPO_DEFINER]])
    settings = replace(_settings(work / "cache"), top_n=5)
    manifest = update_kg(kg, add=[new], settings=settings, reporter=_quiet())
    assert manifest["update"]["statistics"] == "relearned"
    build_kg([work / "a" / DPO_INPUT, new], work / "scratch-top5", settings, reporter=_quiet())
    assert_same_kg(kg, work / "scratch-top5")


def test_add_then_remove_gives_the_kg_back(work: Path, base: Path) -> None:
    """Under the stored statistics, adding papers and removing them again is the base KG,
    triple for triple (authors the new papers share with old ones keep their names)."""
    kg = _copy(base, "round-trip")
    more = _write(work / "h" / "more.jsonl", RECORDS[100:130])
    update_kg(kg, add=[more], settings=_settings(work / "cache"), reporter=_quiet())
    gone = [json.loads(line)["id"] for line in RECORDS[100:130]]
    manifest = update_kg(kg, remove=gone, settings=_settings(work / "cache"), reporter=_quiet())
    assert_same_kg(kg, base)
    # the manifest's count (the old count plus the difference) is the store's
    assert manifest["counts"]["triples"] == len(ox.Store.read_only(str(kg / STORE)))


def test_a_failed_update_stops_its_files_process_and_leaves_nothing(work: Path, base: Path
                                                                     ) -> None:
    """The files are written by a second process while the store is updated: when the
    store cannot be opened, the update fails in its words, that process is gone and no
    half-written directory is left beside the KG."""
    import multiprocessing

    from paperkg.errors import KGNotFound

    kg = _copy(base, "broken-store")
    shutil.rmtree(kg / STORE)
    (kg / STORE).mkdir()
    new = _write(work / "i" / "new.jsonl", [RECORDS[DPO_DEFINER]])
    with pytest.raises(KGNotFound, match="cannot open the store"):
        update_kg(kg, add=[new], settings=_settings(work / "cache"), reporter=_quiet())
    assert multiprocessing.active_children() == []
    assert [p.name for p in kg.parent.iterdir() if p.name.startswith(f".{kg.name}.building")] == []
    assert (kg / PAPERS).is_file() and len(read_results(kg) or {}) == 100


def test_a_watched_inbox_adds_each_file_as_separate_adds_would(
        work: Path, base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`paperkg add --watch INBOX` stays running and adds each file dropped into the folder,
    oldest first; between files it keeps what it read of the KG (`build.kgreads`). The KG
    equals the one the same files give as separate adds (the second re-decides a merge in
    a paper of the first KG), each file is moved to `added/`, and one that cannot be added
    goes to `failed/` with the reason, naming its line, while the loop goes on; while
    another process writes the KG, a file waits for it."""
    from paperkg.build.watch import watch_inbox
    from paperkg.cli import main

    inbox = work / "inbox"
    files = [_write(inbox / "1-more.jsonl", RECORDS[100:110]),
             _write(inbox / "2-dpo.jsonl", [RECORDS[DPO_DEFINER]]),
             _write(inbox / "3-bad.jsonl", ['{"id": "x1", "title": "No abstract"}\n'])]
    for n, path in enumerate(files):  # the order they were dropped in
        os.utime(path, ns=(10**18 + n * 10**9, 10**18 + n * 10**9))
    separate = _copy(base, "separate-adds")
    for path in files[:2]:
        copy = _write(work / "separate" / path.name, path.read_text().splitlines(keepends=True))
        update_kg(separate, add=[copy], settings=_settings(work / "cache"), reporter=_quiet())
    watched = _copy(base, "watched")
    added = watch_inbox(watched, inbox, _settings(work / "cache"), None, interval=0.05,
                        reporter=_quiet(),
                        stop=lambda: not any(p.is_file() for p in inbox.iterdir()))
    assert added == 2
    assert_same_kg(watched, separate)
    assert _dpo_concept(watched, DPO_USER).lower() == "direct preference optimization"
    assert sorted(p.name for p in (inbox / "added").iterdir()) == ["1-more.jsonl",
                                                                 "2-dpo.jsonl"]
    why = (inbox / "failed" / "3-bad.jsonl.error.txt").read_text()
    assert "3-bad.jsonl:1: missing field 'abstract'" in why, why
    # while another process writes the KG, a file waits in the inbox (not failed)
    from paperkg.build.writer import kg_lock

    late = _write(inbox / "4-late.jsonl", RECORDS[110:111])
    polls = iter(range(4))
    with kg_lock(watched):
        assert watch_inbox(watched, inbox, _settings(work / "cache"), None, interval=0.05,
                           reporter=_quiet(), stop=lambda: next(polls, None) is None) == 0
    assert late.is_file() and not (inbox / "failed" / "4-late.jsonl").exists()
    assert watch_inbox(watched, inbox, _settings(work / "cache"), None, interval=0.05,
                       reporter=_quiet(), stop=lambda: not late.exists()) == 1
    assert (inbox / "added" / "4-late.jsonl").is_file()
    # the command refuses what cannot be watched, in its words
    assert main(["add", "--kg", str(watched), "--watch", str(work / "no-inbox")]) == 1
    assert "no such folder" in capsys.readouterr().err


def test_a_resident_process_cleans_the_abstracts_while_idle(work: Path, base: Path) -> None:
    """Between updates (`KGReads.prefetch`) a watching process cleans every abstract that
    label casing may read, so an update does not (0.2-0.4 s of an add to the full ICLR
    KG); a changed abstract is cleaned again."""
    from paperkg.build.kgreads import KGReads
    from paperkg.build.text import clean_text

    reads = KGReads()
    reads.prefetch(base)
    papers = reads.papers(base)
    assert len(papers) > 50 and set(reads.cleaned) == {p.id for p in papers}
    assert all(reads.cleaned[p.id] == (p.abstract, clean_text(p.abstract)) for p in papers)
    first = papers[0]
    reads.cleaned[first.id] = ("an older abstract", "an older abstract")
    reads.prefetch(base)
    assert reads.cleaned[first.id] == (first.abstract, clean_text(first.abstract))


def test_a_watching_process_stops_on_sigterm_and_says_what_it_added(work: Path, base: Path
                                                                     ) -> None:
    """A service manager stops `paperkg add --watch` with SIGTERM (a background job
    ignores Ctrl-C): it ends cleanly and says how many files it added."""
    import signal
    import subprocess
    import sys
    import time

    inbox = work / "quiet-inbox"
    inbox.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "paperkg.cli", "add", "--kg", str(base), "--watch", str(inbox),
         "--interval", "0.1", "--cache-dir", str(work / "cache"), "--embedder", "static"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (inbox / "failed").is_dir() and time.monotonic() < deadline:
            time.sleep(0.1)  # the folders exist once it watches
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert f"stopped watching {inbox}: 0 file(s) added" in out, (out, err)
    assert "watching" in err and "SIGTERM" in err, err
