"""Reading the seed and JSON Lines formats, and refusing bad records with file:line reasons."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from paperkg.build.ingest import paper_id_for, read_papers
from paperkg.errors import IngestError

from .conftest import DATA_FILES, seed_abstracts


def _write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(
        (r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_seed_corpus_has_38_papers_with_stable_ids_and_labels() -> None:
    result = read_papers(DATA_FILES)
    assert result.rejects == []
    assert len(result.papers) == 38
    ids = [p.id for p in result.papers]
    assert len(set(ids)) == 38
    assert all(p.title is None for p in result.papers), "seed papers have no title"
    first = result.papers[0]
    assert first.id == paper_id_for(first.abstract)
    assert first.label == "DPC"  # the abstract introduces Dynamic Prompt Corruption (DPC)
    assert first.source.endswith(":3")  # header on line 1, blank line 2
    assert read_papers(DATA_FILES).papers[0].id == first.id  # stable across reads


def test_jsonl_plain_and_gzipped(tmp_path: Path) -> None:
    abstracts = seed_abstracts()[:2]
    rows = [{"id": "A1", "title": "First", "abstract": abstracts[0], "authors": ["Ann Lee"],
             "keywords": ["prompt tuning"], "decision": "poster", "url": "https://x.org/A1"},
            {"id": "A2", "title": "", "abstract": abstracts[1]}]
    plain = _write_jsonl(tmp_path / "p.jsonl", rows)
    zipped = tmp_path / "p.jsonl.gz"
    zipped.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, zipped):
        papers = read_papers([path]).papers
        assert [p.id for p in papers] == ["A1", "A2"]
        assert papers[0].title == "First" and papers[0].authors == ("Ann Lee",)
        assert papers[0].decision == "poster"
        assert papers[1].title is None, "an empty title stays absent, never invented"
        assert papers[1].name == papers[1].label


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"id": "B1", "abstract": "x y z', "malformed JSON"),
        ('{"id": "B1", "title": "t"}', "missing field 'abstract'"),
        ('{"id": "B1", "abstract": "   "}', "empty field 'abstract'"),
        ('{"abstract": "a real abstract with words"}', "missing field 'id'"),
        ('["not", "an", "object"]', "expected a JSON object"),
        ('{"id": "B1", "abstract": "words here", "decision": "maybe"}', "field 'decision'"),
        ('{"id": "B1", "abstract": "words here", "authors": "Ann"}', "field 'authors'"),
    ],
)
def test_bad_records_name_file_line_and_reason(tmp_path: Path, line: str, reason: str) -> None:
    good = {"id": "G1", "abstract": seed_abstracts()[0]}
    path = _write_jsonl(tmp_path / "bad.jsonl", [good, line])
    result = read_papers([path])
    assert [p.id for p in result.papers] == ["G1"]
    [reject] = result.rejects
    assert reject.path == str(path) and reject.line == 2
    assert reason in reject.reason
    err = IngestError(reject)
    assert f"{path}:2" in str(err) and "--skip-invalid" in str(err)


def test_non_utf8_line_is_rejected_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    good = json.dumps({"id": "G1", "abstract": seed_abstracts()[0]}).encode()
    bad = '{"id": "B2", "abstract": "caf\u00e9 au lait and more words"}'.encode("latin-1")
    path.write_bytes(good + b"\n" + bad + b"\n")
    result = read_papers([path])
    assert [p.id for p in result.papers] == ["G1"]
    assert result.rejects[0].line == 2 and "not UTF-8" in result.rejects[0].reason


def test_duplicate_ids(tmp_path: Path) -> None:
    a, b = seed_abstracts()[:2]
    same = {"id": "D1", "abstract": a}
    path = _write_jsonl(tmp_path / "dup.jsonl", [same, same, {"id": "D1", "abstract": b}])
    result = read_papers([path])
    assert [p.id for p in result.papers] == ["D1"], "an identical repeat is the same paper"
    [reject] = result.rejects
    assert reject.line == 3 and "duplicate id 'D1' with different content" in reject.reason
    assert f"{path}:1" in reject.reason, "points at the first occurrence"


def test_unknown_format_and_missing_file(tmp_path: Path) -> None:
    csv = tmp_path / "papers.xlsx"  # CSV/TSV are read since issue 13; a workbook is not
    csv.write_text("id,abstract\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown format"):
        read_papers([csv])
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        read_papers([tmp_path / "nope.jsonl"])
