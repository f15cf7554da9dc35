"""Shared fixtures: the demo corpus shipped in data/, and one real KG built from it per run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA_FILES = sorted((ROOT / "data").glob("*.txt"))
CORPUS = ROOT.parent / "shared" / "data" / "iclr2025" / "papers.jsonl.gz"
SOURCES = ROOT.parent / "shared" / "data" / "sources"  # real samples of each source format
ARTIFACTS = ROOT / "test-artifacts"


def seed_abstracts() -> list[str]:
    """The 38 demo abstracts, in file order (real ICLR 2025 abstracts shipped in data/)."""
    out: list[str] = []
    for path in DATA_FILES:
        lines = path.read_text(encoding="utf-8").splitlines()[1:]
        out += [line.strip() for line in lines if line.strip()]
    return out


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One embedding cache for the whole run (real vectors, computed once)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def demo_kg(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Path:
    """The KG of the demo corpus, built once with the real model and the real store."""
    from paperkg.build.pipeline import build_kg
    from paperkg.progress import Reporter
    from paperkg.settings import Settings

    out = tmp_path_factory.mktemp("kg") / "demo"
    build_kg(DATA_FILES, out, Settings(cache_dir=cache_dir), reporter=Reporter(quiet=True))
    return out


def corpus_tests_enabled() -> bool:
    return os.environ.get("PAPERKG_CORPUS_TESTS") == "1" and CORPUS.is_file()
