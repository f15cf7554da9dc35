"""Build faults (#10, items 14, 15, 17, 18): concurrent builds, leftovers of killed builds,
damaged caches, unusable targets, hostile or odd input files. Each ends in one clear line
or a per-record reject, never a traceback or a wrong KG. Real builds, static embedder."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paperkg.build.cache import ExtractionCache
from paperkg.build.ingest import read_papers
from paperkg.build.pipeline import build_kg
from paperkg.build.prior import cached_prior
from paperkg.build.text import document_text
from paperkg.build.writer import kg_lock
from paperkg.errors import BuildError, UsageError
from paperkg.progress import Reporter
from paperkg.settings import Settings, default_cache_dir
from tests.conftest import DATA_FILES, ROOT, seed_abstracts

RECORDS = [{"id": f"p{i}", "title": f"Paper {i}", "abstract": text,
            "keywords": ["language models", "benchmarks"]}
           for i, text in enumerate(seed_abstracts()[:6])]


def _jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _settings(cache: Path, **extra: object) -> Settings:
    models = default_cache_dir() / "models"
    models.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    if not (cache / "models").exists():
        (cache / "models").symlink_to(models)
    return Settings(**{"embedder": "static", "cache_dir": cache, **extra})  # type: ignore[arg-type]


def _quiet() -> Reporter:
    return Reporter(stream=open(os.devnull, "w"), quiet=True)  # noqa: SIM115


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PAPERKG_EMBEDDER": "static"}
    return subprocess.run([sys.executable, "-m", "paperkg.cli", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=300)


def _one_line_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 1, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]


# ---------------------------------------------------------------- the target directory


def test_a_second_writer_is_stopped_with_a_clear_message(tmp_path: Path) -> None:
    out = tmp_path / "kg"
    with kg_lock(out, _quiet().stream):
        proc = _cli("build", str(DATA_FILES[0]), "--out", str(out))
    _one_line_error(proc, f"{out} is being written by paperkg pid {os.getpid()}", "wait")
    assert not out.exists()


def test_leftovers_of_killed_builds_are_removed_and_reported(tmp_path: Path) -> None:
    out = tmp_path / "kg"
    for name in (".kg.building-99999", ".kg.old-4242"):
        (tmp_path / name / "store").mkdir(parents=True)
        (tmp_path / name / "store" / "000001.sst").write_bytes(b"x" * 1000)
    (tmp_path / ".other.building-1").mkdir()  # another KG's: not ours to touch
    cache = _settings(tmp_path / "cache").cache_dir
    proc = _cli("build", str(DATA_FILES[0]), "--out", str(out), "--cache-dir", str(cache))
    assert proc.returncode == 0, proc.stderr
    assert "left over from an interrupted build: removed" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [
        ".kg.lock", ".other.building-1"]


@pytest.mark.parametrize("make", ["file-parent", "non-kg-dir"])
def test_an_unusable_out_is_refused_before_any_work(tmp_path: Path, make: str) -> None:
    bad_input = tmp_path / "bad.jsonl"
    bad_input.write_text("not json\n")  # the target must be refused before this is read
    if make == "file-parent":
        (tmp_path / "afile").write_text("x")
        out, needle = tmp_path / "afile" / "sub", "is a file, not a directory"
    else:
        (tmp_path / "notes").mkdir()
        (tmp_path / "notes" / "todo.txt").write_text("keep me")
        out, needle = tmp_path / "notes", "is not a paperkg KG directory"
    _one_line_error(_cli("build", str(bad_input), "--out", str(out)), needle)
    if make == "non-kg-dir":
        assert (tmp_path / "notes" / "todo.txt").read_text() == "keep me"


@pytest.mark.parametrize(("flag", "value", "needle"), [
    ("--top-n", "0", "at least 1"), ("--top-n", "-5", "at least 1"),
    ("--diversity", "7", "between 0 and 1")])
def test_meaningless_extraction_settings_are_refused(tmp_path: Path, flag: str, value: str,
                                                     needle: str) -> None:
    _one_line_error(_cli("build", str(DATA_FILES[0]), "--out", str(tmp_path / "kg"), flag,
                         value), needle)
    with pytest.raises(UsageError, match=needle):
        build_kg(DATA_FILES[:1], tmp_path / "kg",
                 Settings(**{flag[2:].replace("-", "_"): float(value) if flag == "--diversity"
                             else int(value)}), reporter=_quiet())


# ---------------------------------------------------------------- damaged caches


def test_damaged_cache_entries_are_recomputed_not_trusted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = [_jsonl(tmp_path / "p.jsonl", RECORDS)]
    # MiniLM: the static path maps a build this small again rather than read its cache,
    # and writes no embedding shard to damage
    settings = _settings(tmp_path / "cache", embedder="minilm")
    build_kg(inputs, tmp_path / "first", settings, reporter=_quiet())
    shards = sorted((tmp_path / "cache" / "embeddings").rglob("shard-*.npz"))
    rows = sorted((tmp_path / "cache" / "extractions").glob("*.jsonl"))
    assert shards and rows
    shards[0].write_bytes(shards[0].read_bytes()[:100])  # cut short
    for extra in shards[1:]:
        extra.write_bytes(b"garbage")
    rows[0].write_text("{\"k\": \"x\", \"r\": [[1, 2, 3]]}\n[[[[\n" + rows[0].read_text()[:50])
    (tmp_path / "cache" / "validated").mkdir(exist_ok=True)
    capsys.readouterr()
    build_kg(inputs, tmp_path / "second", settings, reporter=_quiet())
    first = (tmp_path / "first" / "merges.jsonl").read_text()
    assert (tmp_path / "second" / "merges.jsonl").read_text() == first
    a = json.loads((tmp_path / "first" / "manifest.json").read_text())["counts"]
    b = json.loads((tmp_path / "second" / "manifest.json").read_text())["counts"]
    assert a == b
    from paperkg.read.kg import open_kg

    def concepts(kg: Path) -> list[tuple[str, ...]]:
        res = open_kg(kg).store.query(
            "SELECT ?p ?c ?s WHERE { ?p <https://w3id.org/paperkg/ontology#hasMention> ?m . "
            "?m <https://w3id.org/paperkg/ontology#concept> ?c ; "
            "<https://w3id.org/paperkg/ontology#score> ?s }")
        return sorted(tuple(str(t.value) for t in row if t) for row in res.rows)

    assert concepts(tmp_path / "second") == concepts(tmp_path / "first")
    warnings = capsys.readouterr().err
    assert "damaged embedding cache shard" in warnings, warnings
    assert "damaged cache row(s) discarded" in warnings, warnings


def test_damaged_extraction_rows_are_discarded_with_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from paperkg.build.extract import ExtractorInfo

    info = ExtractorInfo("x", "m", "1")
    papers = read_papers([_jsonl(tmp_path / "p.jsonl", RECORDS[:2])]).papers
    cache = ExtractionCache(tmp_path, info)
    cache.add(papers, {papers[0].id: [("a", 0.5)], papers[1].id: [("b", 0.25)]})
    with cache.path.open("a") as fh:
        fh.write('{"k": "zz", "r": [["c", "not a number"]]}\n{"k": 1, "r": []}\n{"k": "y", "r')
    again = ExtractionCache(tmp_path, info)
    hits, todo = again.split(papers)
    assert hits == {papers[0].id: [("a", 0.5)], papers[1].id: [("b", 0.25)]} and todo == []
    assert again.discarded == 3
    assert "3 damaged cache row(s) discarded" in capsys.readouterr().err
    # a split parses only its papers' rows; another split finds the rows skipped before,
    # and adding known papers writes nothing
    one = ExtractionCache(tmp_path, info)
    assert one.split(papers[:1]) == ({papers[0].id: [("a", 0.5)]}, [])
    assert one.split(papers[1:]) == ({papers[1].id: [("b", 0.25)]}, [])
    size = cache.path.stat().st_size
    ExtractionCache(tmp_path, info).add(papers, {p.id: [("z", 1.0)] for p in papers})
    assert cache.path.stat().st_size == size


def test_a_damaged_cached_prior_is_learned_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    papers = read_papers([_jsonl(tmp_path / "p.jsonl", RECORDS)]).papers
    first = cached_prior(papers, document_text, tmp_path)
    [path] = (tmp_path / "priors").glob("*.json.gz")
    path.write_bytes(gzip.compress(b'{"papers": 3, "keyword": [1, 2]')[:-4])
    again = cached_prior(papers, document_text, tmp_path)
    assert "damaged cached keyword prior" in capsys.readouterr().err
    assert (again.keyword, again.candidate, again.both, again.papers) == (
        first.keyword, first.candidate, first.both, first.papers)


def test_a_damaged_distilled_model_is_detected(tmp_path: Path) -> None:
    from paperkg.build.embed import _damaged_model, _write_model_sums

    model = tmp_path / "model"
    model.mkdir()
    (model / "model.safetensors").write_bytes(b"\x00" * 4096)
    (model / "tokenizer.json").write_text("{}")
    _write_model_sums(model)
    assert not _damaged_model(model)
    (model / "model.safetensors").write_bytes(b"\x00" * 100)  # cut short
    assert _damaged_model(model)


# ---------------------------------------------------------------- odd and hostile input


def test_hostile_records_are_rejected_one_by_one(tmp_path: Path) -> None:
    good = [json.dumps(r) for r in RECORDS[:2]]
    lines = [good[0], "[" * 100_000 + "]" * 100_000, '{"id": ' + "7" * 5000 + ', "abstract":'
             ' "one two three four five six"}', good[1]]
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = read_papers([path])
    assert [p.id for p in result.papers] == ["p0", "p1"]
    assert [(r.line, r.reason.split(":")[0]) for r in result.rejects] == [
        (2, "unreadable JSON"), (3, "unreadable JSON")]
    assert "nested too deeply" in result.rejects[0].reason
    kg = tmp_path / "kg"
    manifest = build_kg([path], kg, _settings(tmp_path / "cache"), skip_invalid=True,
                        reporter=_quiet())
    assert manifest["counts"]["papers"] == 2 and manifest["counts"]["rejected"] == 2


def test_a_truncated_gzip_keeps_the_records_before_the_damage(tmp_path: Path) -> None:
    body = "".join(json.dumps(r) + "\n" for r in RECORDS * 40).encode()
    data = gzip.compress(body)
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    result = read_papers([path])
    assert 0 < len(result.papers) < len(RECORDS)
    assert "cut short after line" in result.rejects[-1].reason
    with pytest.raises(Exception, match="cut short after line"):
        build_kg([path], tmp_path / "kg", _settings(tmp_path / "cache"), reporter=_quiet())
    manifest = build_kg([path], tmp_path / "kg", _settings(tmp_path / "cache"),
                        skip_invalid=True, reporter=_quiet())
    rejects = (tmp_path / "kg" / "rejects.jsonl").read_text()
    assert manifest["counts"]["papers"] == len(result.papers) and "cut short" in rejects


def test_an_empty_input_is_named(tmp_path: Path) -> None:
    empty = tmp_path / "nothing.jsonl"
    empty.write_text("")
    with pytest.raises(BuildError, match=f"{empty} is empty"):
        build_kg([empty], tmp_path / "kg", _settings(tmp_path / "cache"), reporter=_quiet())


@pytest.mark.parametrize("variant", ["bom", "cr-only", "upper-case-gz"])
def test_bom_cr_only_and_upper_case_gz_are_read(tmp_path: Path, variant: str) -> None:
    text = "".join(json.dumps(r) + "\n" for r in RECORDS[:3])
    if variant == "bom":
        path = tmp_path / "p.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    elif variant == "cr-only":
        path = tmp_path / "p.jsonl"
        path.write_bytes(text.replace("\n", "\r").encode())
    else:
        path = tmp_path / "P.JSONL.GZ"
        path.write_bytes(gzip.compress(text.encode()))
    result = read_papers([path])
    assert [p.id for p in result.papers] == ["p0", "p1", "p2"] and not result.rejects
    assert [p.source for p in result.papers] == [f"{path}:{i}" for i in (1, 2, 3)]
