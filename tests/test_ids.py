"""Real identifiers: DOIs, old arXiv ids, ids with `/`, `.`, `..`, `true` — accepted,
%-encoded in IRIs by one reversible function, and usable in every CLI command and route.

The DOI-keyed papers are real Semantic Scholar records (../shared/data/sources), keyed by
their own DOI. The other odd ids (`hep-th/9901001`, `Inspec/1473`, `.`, `..`, `true`)
are the identifier shapes the issue names; they are given to demo abstracts, which ship
without ids of their own, only to exercise identifier handling.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from paperkg.build.ingest import MAX_ID_LENGTH, check_id, read_papers
from paperkg.cli import main
from paperkg.vocab import decode_id, encode_id, iri_of, key_of, paper_iri, parse_iri

from .conftest import SOURCES, seed_abstracts
from .serving import serve

ODD_IDS = ["hep-th/9901001", "Inspec/1473", ".", "..", "true", "10.48550/arXiv.2401.00001",
           "a b?c#d%2F", "ünïcode/ид", "...", "x/../y"]


@pytest.mark.parametrize("pid", ODD_IDS)
def test_any_printable_id_round_trips_through_one_iri_encoding(pid: str) -> None:
    assert check_id(pid) == pid
    iri = paper_iri(pid)
    assert parse_iri(iri) == ("paper", pid)
    assert key_of(iri_of(f"paper:{pid}")) == f"paper:{pid}"
    segment = str(iri).rsplit("/", 1)[-1]
    assert decode_id(segment) == pid and encode_id(pid) == segment
    assert str(iri).startswith("https://w3id.org/paperkg/paper/")
    # one path segment that no URL library resolves away
    path = str(iri)[len("https://w3id.org"):]
    assert posixpath.normpath(path) == path and "/" not in segment
    assert segment.strip(".") != "", "a dots-only segment would be resolved away"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("", "missing field 'id'"),
        (None, "missing field 'id'"),
        ("   ", "empty field 'id'"),
        ("a\x01b", "non-printable character U+0001 at position 2"),
        ("tab\there", "non-printable character U+0009"),
        ("x" * (MAX_ID_LENGTH + 1), "1,001 characters long; at most 1,000"),
        (True, "must be a string, got bool"),
        (["a"], "must be a string, got list"),
    ],
)
def test_what_cannot_be_an_id_is_refused_with_a_reason(value: Any, reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        check_id(value)


def test_odd_ids_read_and_bad_ones_rejected_per_record(tmp_path: Path) -> None:
    abstracts = seed_abstracts()
    rows = [{"id": pid, "abstract": abstracts[i]} for i, pid in enumerate(ODD_IDS)]
    rows += [{"id": "bad\x07id", "abstract": abstracts[20]},
             {"id": "y" * 2000, "abstract": abstracts[21]}, {"id": 1473, "abstract": abstracts[22]}]
    path = tmp_path / "ids.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = read_papers([path])
    assert [p.id for p in result.papers] == [*ODD_IDS, "1473"]
    assert [(r.line, r.reason.split(" holds")[0].split(" is ")[0]) for r in result.rejects] == [
        (len(ODD_IDS) + 1, "field 'id'"), (len(ODD_IDS) + 2, "field 'id'")]
    assert "U+0007" in result.rejects[0].reason and "2,000 characters" in \
        result.rejects[1].reason


# ---------------------------------------------------------------- end to end


def _doi_records() -> list[dict[str, Any]]:
    """Real S2 papers with a DOI and an abstract, keyed by their DOI, in paperkg's shape."""
    data = json.loads((SOURCES / "s2_papers.json").read_text(encoding="utf-8"))["data"]
    out = []
    for p in data:
        doi = (p.get("externalIds") or {}).get("DOI")
        if doi and p["abstract"]:
            out.append({"id": doi, "title": p["title"], "abstract": p["abstract"],
                        "authors": [a["name"] for a in p["authors"]], "year": p["year"]})
    return out[:3]


@pytest.fixture(scope="module")
def ids_kg(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> tuple[Path, list[str]]:
    from paperkg.build.pipeline import build_kg
    from paperkg.progress import Reporter
    from paperkg.settings import Settings

    tmp = tmp_path_factory.mktemp("ids")
    dois = _doi_records()
    abstracts = seed_abstracts()
    odd = [{"id": pid, "abstract": abstracts[i]} for i, pid in enumerate(ODD_IDS[:5])]
    path = tmp / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in dois + odd), encoding="utf-8")
    out = tmp / "kg"
    build_kg([path], out, Settings(cache_dir=cache_dir), reporter=Reporter(quiet=True))
    return out, [r["id"] for r in dois] + ODD_IDS[:5]


def test_every_cli_command_takes_the_ids(ids_kg: tuple[Path, list[str]], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    kg, ids = ids_kg
    assert "/" in ids[0], "a real DOI"
    for pid in ids:
        assert main(["concepts", pid, "--kg", str(kg), "--format", "json"]) == 0
        concepts = json.loads(capsys.readouterr().out)
        assert concepts and all(c["rank"] >= 1 for c in concepts), pid
        assert main(["related", pid, "--kg", str(kg), "--format", "json"]) == 0
        capsys.readouterr()
        assert main(["neighbours", pid, "--kg", str(kg), "--format", "json"]) == 0
        nodes = json.loads(capsys.readouterr().out)["nodes"]
        assert f"paper:{pid}" in {n["id"] for n in nodes}
        html = tmp_path / "view.html"
        assert main(["view", pid, "--kg", str(kg), "-o", str(html)]) == 0
        capsys.readouterr()
        assert html.stat().st_size > 1000
    assert main(["concepts", "10.0000/not-here", "--kg", str(kg)]) == 1
    assert "no paper with id '10.0000/not-here'" in capsys.readouterr().err


@pytest.fixture(scope="module")
def ids_base(ids_kg: tuple[Path, list[str]]) -> Iterator[str]:
    yield from serve(ids_kg[0])


def test_every_route_takes_the_ids(ids_kg: tuple[Path, list[str]], ids_base: str) -> None:
    _, ids = ids_kg
    with httpx.Client(base_url=ids_base, timeout=30) as client:
        for pid in ids:
            seg = encode_id(pid)
            doc = client.get(f"/api/papers/{seg}")
            assert doc.status_code == 200, (pid, doc.text[:300])
            assert doc.json()["id"] == pid
            related = client.get(f"/api/papers/{seg}/related")
            assert related.status_code == 200, (pid, related.text[:300])
            assert isinstance(related.json(), list | dict)
            assert doc.json()["page"] == f"/papers/{seg}"
            page = client.get(f"/papers/{seg}")
            assert page.status_code == 200 and "text/html" in page.headers["content-type"]
            # its links keep the id one segment: "..", "x/y" would be resolved away
            assert f'href="/view/node/paper:{seg}?depth=1"' in page.text, pid
            assert f'href="/api/papers/{seg}/related"' in page.text, pid
            neighbours = client.get(f"/api/nodes/{encode_id('paper:' + pid)}/neighbours")
            assert neighbours.status_code == 200, (pid, neighbours.text[:300])
            view = client.get(f"/view/node/{encode_id('paper:' + pid)}")
            assert view.status_code == 200, (pid, view.text[:300])
        raw = client.get(f"/api/papers/{ids[0]}")  # a DOI with its "/" left as it is
        assert raw.status_code == 200
        assert client.get("/api/papers/10.0000%2Fnot-here").status_code == 404
