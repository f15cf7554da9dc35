"""The README shows what the program does: its example queries answer on the demo KG, and its
sample output is what `paperkg demo` prints."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

from paperkg.read.kg import open_kg

from .conftest import ROOT
from .readme_demo import UPDATE, comparable, readme_block, run_demo

_EXAMPLE = re.compile(r"^paperkg query --kg kg '([^']*)'\n```", re.MULTILINE)


def test_readme_queries_run_and_answer(demo_kg: Path) -> None:
    queries = _EXAMPLE.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(queries) >= 3, "the README shows example queries"
    kg = open_kg(demo_kg)
    for query in queries:
        result = kg.sparql(query)
        assert result.rows, f"no rows for README query:\n{query}"


def test_readme_sample_output_is_what_demo_prints(tmp_path: Path, cache_dir: Path) -> None:
    """Run from an empty folder: the demo abstracts come from the package, not from ./data."""
    output = run_demo(tmp_path, "--cache-dir", str(cache_dir))
    shown = readme_block((ROOT / "README.md").read_text(encoding="utf-8"))
    diff = "".join(difflib.unified_diff(comparable(shown).splitlines(True),
                                        comparable(output).splitlines(True),
                                        "README.md", "paperkg demo"))
    assert not diff, f"the README's sample output is stale; run `{UPDATE}`:\n{diff}"
    # and what the demo says is what it built
    counts = json.loads((tmp_path / "kg" / "manifest.json").read_text())["counts"]
    summary = re.search(r"^built kg: (\d+) papers, (\d+) concepts, (\d+) paper-concept "
                        r"links, (\d+) triples \(\d+(?:\.\d+)? s\)$", output, re.MULTILINE)
    assert summary, output
    assert [int(x) for x in summary.groups()] == [
        counts["papers"], counts["concepts"], counts["mentions"], counts["triples"]]
