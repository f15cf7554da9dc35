"""The README's example queries work as written, on the demo KG."""

from __future__ import annotations

import re
from pathlib import Path

from paperkg.read.kg import open_kg
from paperkg.read.questions import run_sparql

from .conftest import ROOT

_EXAMPLE = re.compile(r"^paperkg query --kg kg '([^']*)'\n```", re.MULTILINE)


def test_readme_queries_run_and_answer(demo_kg: Path) -> None:
    queries = _EXAMPLE.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(queries) >= 3, "the README shows example queries"
    kg = open_kg(demo_kg)
    for query in queries:
        result = run_sparql(kg, query)
        assert result.rows, f"no rows for README query:\n{query}"
