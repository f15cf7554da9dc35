"""The remembered word answers (`paperkg.memo`): saved by one process, read by the next,
never read by other code, and a damaged file is a cold start."""

from __future__ import annotations

import gzip
from pathlib import Path

from paperkg import lexicon, memo
from paperkg.build import canon


def _forget() -> None:
    """As a new process starts: no answers in memory, no file read."""
    for m in memo._MEMOS.values():
        m.data.clear()
    memo._IN_MEMORY.clear()


def test_answers_are_saved_and_read_back(tmp_path: Path) -> None:
    _forget()
    with memo.remembered(tmp_path, "code-a"):
        key = canon._key("Large Language Models")
        parts = lexicon.pos("learning")
    saved = tmp_path / "words" / "code-a.json.gz"
    assert saved.is_file()
    assert key == "large language model" and "NOUN" in parts
    _forget()
    stamp = saved.stat().st_mtime_ns
    with memo.remembered(tmp_path, "code-a"):
        # read back, not recomputed: the answers are in the memos before any call
        assert canon._key.data["Large Language Models"] == key
        assert lexicon.pos.data["learning"] == parts
        assert isinstance(lexicon.pos.data["learning"], frozenset)
    assert saved.stat().st_mtime_ns == stamp  # nothing new: not written again


def test_other_code_starts_cold(tmp_path: Path) -> None:
    _forget()
    with memo.remembered(tmp_path, "code-a"):
        canon._key("Graph Neural Networks")
    _forget()
    with memo.remembered(tmp_path, "code-b"):
        assert "Graph Neural Networks" not in canon._key.data
    assert not (tmp_path / "words" / "code-b.json.gz").exists()


def test_a_damaged_file_is_a_cold_start(tmp_path: Path) -> None:
    _forget()
    saved = tmp_path / "words" / "code-a.json.gz"
    saved.parent.mkdir()
    saved.write_bytes(b"not gzip at all")
    with memo.remembered(tmp_path, "code-a"):
        assert canon._key("Diffusion Models") == "diffusion model"
    with gzip.open(saved, "rb") as fh:  # written again, whole
        assert b'"Diffusion Models":"diffusion model"' in fh.read()



def test_a_file_another_process_replaced_is_read_again(tmp_path: Path) -> None:
    """A resident process reads the file once, and again only when it was replaced."""
    _forget()
    with memo.remembered(tmp_path, "code-a"):
        canon._key("Diffusion Models")
    saved = tmp_path / "words" / "code-a.json.gz"
    with gzip.open(saved, "rb") as fh:
        body = fh.read()
    # another process adds an answer: a new file in its place
    body = body.replace(b'"Diffusion Models":"diffusion model"',
                        b'"Diffusion Models":"diffusion model","Ghost Words":"ghost word"')
    replaced = saved.with_name("other")
    with gzip.open(replaced, "wb") as fh:
        fh.write(body)
    replaced.replace(saved)
    with memo.remembered(tmp_path, "code-a"):
        assert canon._key.data["Ghost Words"] == "ghost word"
