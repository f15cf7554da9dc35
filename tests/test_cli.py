"""The `paperkg` commands end to end over a real KG of the demo corpus (real model, real store)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from rdflib import Graph

from paperkg.build.extract import ExtractSettings
from paperkg.build.keep import MIN_KEPT
from paperkg.build.prior import packaged_prior
from paperkg.cli import main
from paperkg.read.kg import open_kg

from .conftest import seed_abstracts


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """The installed console entry point, in a fresh process (what a person runs)."""
    return subprocess.run([sys.executable, "-m", "paperkg.cli", *argv],
                          capture_output=True, text=True, timeout=300)


def _dpc_id(kg_dir: Path) -> str:
    res = open_kg(kg_dir).store.query(
        'SELECT ?id WHERE { ?p <http://www.w3.org/2000/01/rdf-schema#label> "DPC" ; '
        "<http://purl.org/dc/terms/identifier> ?id }")
    return str(res.rows[0][0].value)


def test_demo_kg_has_38_papers_each_with_ranked_concepts(demo_kg: Path,
                                                          capsys: pytest.CaptureFixture[str]):
    """Every paper keeps its best three picks (`keep.MIN_KEPT`); beyond them only
    those above the least probability, and no aside, so the count varies (four to five
    on average; 4.4 since "including" lists examples). Picks that name one concept
    ("LLMs", "large language models") make one link."""
    manifest = json.loads((demo_kg / "manifest.json").read_text())
    assert manifest["counts"]["papers"] == 38
    code, out, _ = _run(capsys, "query", "--kg", str(demo_kg), "--format", "json", """
        SELECT ?p (COUNT(?m) AS ?n) WHERE { ?p a pkg:Paper ; pkg:hasMention ?m } GROUP BY ?p""")
    assert code == 0
    bindings = json.loads(out)["results"]["bindings"]
    assert len(bindings) == 38
    counts = [int(b["n"]["value"]) for b in bindings]
    assert min(counts) >= 2 and sum(counts) / len(counts) >= 4


def test_query_papers_sharing_concepts_is_sensible(demo_kg: Path,
                                                     capsys: pytest.CaptureFixture[str]):
    dpc = _dpc_id(demo_kg)
    code, out, _ = _run(capsys, "query", "--kg", str(demo_kg), "--format", "csv", f"""
        SELECT ?other ?label (COUNT(?c) AS ?shared) (GROUP_CONCAT(?cl; separator="|") AS ?cs)
        WHERE {{ paper:{dpc} pkg:mentions ?c . ?other pkg:mentions ?c ; rdfs:label ?label .
                 ?c skos:prefLabel ?cl . FILTER(?other != paper:{dpc}) }}
        GROUP BY ?other ?label ORDER BY DESC(?shared) LIMIT 5""")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].split(",")[:3] == ["other", "label", "shared"]
    assert len(lines) >= 2, "the DPC paper shares concepts with other LLM papers"
    # what it shares is about language models / reasoning, not noise
    assert any(w in out.lower() for w in ("language model", "llm", "reasoning", "prompt"))


def test_related_weights_rare_concepts_higher(demo_kg: Path, capsys: pytest.CaptureFixture[str]):
    kg = open_kg(demo_kg)
    dpc = _dpc_id(demo_kg)
    rows = kg.reader().related(dpc, limit=5, blend=0.0)  # shared concepts only
    assert rows, "some paper shares a concept with DPC"
    mine = {c.label: c.score for c in kg.reader().concepts_of(dpc)}
    for r in rows:  # each shared concept: its weight times its score in both papers
        theirs = {c.label: c.score for c in kg.reader().concepts_of(r.paper_id)}
        assert r.score == pytest.approx(
            sum(w * mine[label] * theirs[label] for label, w in r.shared), abs=1e-3)
    assert [r.score for r in rows] == sorted((r.score for r in rows), reverse=True)
    weights = dict(kg.store.query(
        "SELECT ?n ?w WHERE { ?c <https://w3id.org/paperkg/ontology#paperCount> ?n ; "
        "<https://w3id.org/paperkg/ontology#weight> ?w }").rows)
    by_count = sorted((int(n.value), float(w.value)) for n, w in weights.items())
    assert by_count[0][1] > by_count[-1][1], "a concept in fewer papers weighs more"
    code, out, _ = _run(capsys, "related", dpc, "--kg", str(demo_kg), "--blend", "0")
    assert code == 0 and rows[0].paper_id in out and rows[0].shared[0][0] in out


def test_concepts_and_neighbours(demo_kg: Path, capsys: pytest.CaptureFixture[str]):
    dpc = _dpc_id(demo_kg)
    links = open_kg(demo_kg).reader().concepts_of(dpc)
    assert [c.rank for c in links] == list(range(1, len(links) + 1))
    code, out, _ = _run(capsys, "concepts", dpc, "--kg", str(demo_kg), "--format", "json")
    assert code == 0 and [c["label"] for c in json.loads(out)] == [c.label for c in links]

    code, out, _ = _run(capsys, "neighbours", dpc, "--kg", str(demo_kg), "--format", "json")
    hood = json.loads(out)
    kinds = {n["id"]: n["kind"] for n in hood["nodes"]}
    assert kinds[f"paper:{dpc}"] == "paper"
    assert {k for k, v in kinds.items() if v == "concept"} == {f"concept:{c.concept_id}"
                                                               for c in links}
    code, out, _ = _run(capsys, "neighbours", dpc, "--kg", str(demo_kg), "--depth", "2",
                        "--format", "json", "--limit", "200")
    papers = [n for n in json.loads(out)["nodes"] if n["kind"] == "paper"]
    assert len(papers) > 1, "depth 2 reaches the papers that share a concept"


def test_exports_round_trip(demo_kg: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    store_count = open_kg(demo_kg).store.triple_count()
    for fmt, rdflib_fmt in (("ttl", "turtle"), ("nt", "nt"), ("jsonld", "json-ld")):
        target = tmp_path / f"kg.{fmt}"
        code, out, _ = _run(capsys, "export", "--kg", str(demo_kg), "--format", fmt, "-o",
                            str(target))
        assert code == 0 and str(target) in out
        assert len(Graph().parse(target, format=rdflib_fmt)) == store_count
    target = tmp_path / "kg.graphml"
    assert _run(capsys, "export", "--kg", str(demo_kg), "--format", "graphml", "-o",
                str(target))[0] == 0
    g = nx.read_graphml(target)
    assert sum(1 for _, d in g.nodes(data=True) if d["kind"] == "paper") == 38


def test_extract_writes_ranked_concepts(tmp_path: Path, cache_dir: Path,
                                        capsys: pytest.CaptureFixture[str]):
    a, b = seed_abstracts()[:2]
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "X1", "abstract": a}) + "\n"
                   + json.dumps({"id": "X2", "title": "", "abstract": b}) + "\n")
    out_file = tmp_path / "out.jsonl"
    code, out, _ = _run(capsys, "extract", str(src), "--out", str(out_file),
                        "--cache-dir", str(cache_dir))
    assert code == 0 and "2 records" in out
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["X1", "X2"]
    least = ExtractSettings().least(packaged_prior(), "all-MiniLM-L6-v2")
    for r in rows:  # the whole top-n, as a ranking; `kept`: what a KG keeps of it
        scores = [c["score"] for c in r["concepts"]]
        assert len(scores) >= 3 and scores == sorted(scores, reverse=True)
        assert all(c["kept"] for c in r["concepts"] if c["role"] != "mentions")
        shown = [c for c in r["concepts"] if c["kept"] and c["role"] == "mentions"]
        assert len(shown) >= MIN_KEPT
        assert all(c["score"] >= least for c in shown[MIN_KEPT:])
    assert sum(not c["kept"] for r in rows for c in r["concepts"]) > 0, "a tail the KG drops"
    assert len(rows[0]["concepts"]) >= 10
    given = tmp_path / "given.jsonl"  # a least probability given: the list is cut there
    # `-o` is `--out`, as on every command that writes a file or a KG
    assert _run(capsys, "extract", str(src), "-o", str(given), "--min-score", "0.2",
                "--cache-dir", str(cache_dir))[0] == 0
    for r, cut in zip(rows, [json.loads(line) for line in given.read_text().splitlines()],
                      strict=True):
        # by concept: a label is chosen among the spellings the whole output uses
        ranking = [c["concept"] for c in r["concepts"] if c["role"] == "mentions"]
        kept = [c for c in cut["concepts"] if c["role"] == "mentions"]
        assert all(c["kept"] for c in cut["concepts"]) and len(kept) < len(ranking)
        it = iter(ranking)
        assert all(c["concept"] in it for c in kept), "what is kept keeps the ranking's order"
        assert all(c["score"] >= 0.2 for c in kept[MIN_KEPT:])
    dpc = {c["label"]: c for c in rows[0]["concepts"]}
    assert dpc["Dynamic Prompt Corruption"]["type"] == "Method"
    assert dpc["Dynamic Prompt Corruption"]["role"] == "proposes"
    assert {dpc[d]["type"] for d in ("GSM8K", "MATH", "AQuA")} == {"Dataset"}
    assert dpc["GSM8K"]["role"] == "evaluatesOn"


def test_bad_input_stops_the_build_and_keeps_the_old_kg(demo_kg: Path, tmp_path: Path):
    before = (demo_kg / "manifest.json").read_text()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "ok", "abstract": seed_abstracts()[0]}) + "\n{oops\n")
    proc = _cli("build", str(bad), "--out", str(demo_kg))
    assert proc.returncode == 1
    [error] = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert error.startswith("paperkg build: error: "), "one line for a person"
    assert f"{bad}:2: malformed JSON" in proc.stderr and "Traceback" not in proc.stderr
    assert (demo_kg / "manifest.json").read_text() == before, "the earlier KG is untouched"


def test_skip_invalid_keeps_valid_records_and_writes_rejects(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
):
    a, b = seed_abstracts()[:2]
    src = tmp_path / "mixed.jsonl"
    src.write_text("\n".join([
        json.dumps({"id": "V1", "title": "Dynamic prompt corruption", "abstract": a}),
        json.dumps({"id": "V2", "abstract": ""}),
        json.dumps({"id": "V3", "abstract": b, "authors": ["Ann Lee"], "decision": "oral"}),
        json.dumps({"id": "V1", "abstract": b}),
    ]) + "\n")
    out_dir = tmp_path / "kg"
    code, out, _ = _run(capsys, "build", str(src), "--out", str(out_dir), "--skip-invalid",
                        "--cache-dir", str(cache_dir))
    assert code == 0 and "2 record(s) rejected" in out
    rejects = [json.loads(line) for line in (out_dir / "rejects.jsonl").read_text().splitlines()]
    assert [(r["line"], r["reason"].split(" ")[0]) for r in rejects] == [(2, "empty"),
                                                                       (4, "duplicate")]
    kg = open_kg(out_dir)
    assert kg.manifest["counts"]["papers"] == 2
    assert kg.store.query("ASK { ?p <http://purl.org/dc/terms/title> "
                          '"Dynamic prompt corruption" }').boolean


def test_user_errors_are_one_line(demo_kg: Path):
    proc = _cli("related", "no-such-paper", "--kg", str(demo_kg))
    assert proc.returncode == 1 and "no paper with id 'no-such-paper'" in proc.stderr
    proc = _cli("query", "SELECT ?x WHERE { ?x ", "--kg", str(demo_kg))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("paperkg query: error: SPARQL syntax error at line 1, "
                                  "column 22"), "the position is in the user's own text"
    assert proc.stderr.strip().count("\n") == 0, proc.stderr
    proc = _cli("query", "SELECT * WHERE { ?s ?p ?o }", "--kg", str(demo_kg / "missing"))
    assert proc.returncode == 1 and "is not a KG directory" in proc.stderr


def test_rebuild_reuses_extractions_and_validation(demo_kg: Path, cache_dir: Path,
                                                    tmp_path: Path):
    from paperkg.build.pipeline import build_kg
    from paperkg.progress import Reporter
    from paperkg.settings import Settings

    from .conftest import DATA_FILES

    again = build_kg(DATA_FILES, tmp_path / "again", Settings(cache_dir=cache_dir),
                     reporter=Reporter(quiet=True))
    first = json.loads((demo_kg / "manifest.json").read_text())
    assert first["shacl"] == "conforms"
    assert again["shacl"].startswith("conforms (cached")
    assert again["counts"] == first["counts"]
    assert "embed phrases" not in again["timings_s"], "nothing was re-embedded"
    a, b = open_kg(demo_kg), open_kg(tmp_path / "again")
    query = "SELECT ?p ?c ?s WHERE { ?p pkg:hasMention ?m . ?m pkg:concept ?c ; pkg:score ?s }"
    rows_a, rows_b = a.sparql(query).rows, b.sparql(query).rows
    assert len(rows_a) == first["counts"]["mentions"]
    assert sorted(map(str, rows_a)) == sorted(map(str, rows_b))
