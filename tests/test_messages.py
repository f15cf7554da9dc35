"""Messages a newcomer meets in the first minutes: one line on stderr, exit 1, saying what is
wrong and what to do; never a traceback, an `[Errno 2]` or a parser's token dump."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from paperkg.sparqltext import explain_query_error, with_prefixes

from .conftest import ROOT


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paperkg.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def _one_line_error(proc: subprocess.CompletedProcess[str], command: str) -> str:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"paperkg {command}: error: "), lines[0]
    assert "Traceback" not in proc.stderr and "Errno" not in proc.stderr
    return lines[0]


def test_build_of_a_directory_offers_the_files_inside(tmp_path: Path) -> None:
    line = _one_line_error(_cli("build", "data", "--out", str(tmp_path / "kg")), "build")
    assert "data is a directory" in line and "data/*.txt" in line
    assert "000_dd58be64e0faa253.txt" in line
    assert not (tmp_path / "kg").exists()


def test_a_malformed_setting_in_the_environment_is_named(tmp_path: Path) -> None:
    """Flags take their defaults from PAPERKG_* variables; a bad one is the person's to
    fix, named in one line, before any command runs."""
    for name, value in (("PAPERKG_MIN_SCORE", "high"), ("PAPERKG_TOP_N", "ten")):
        proc = subprocess.run([sys.executable, "-m", "paperkg.cli", "extract", "x.jsonl",
                               "--out", str(tmp_path / "out.jsonl")], cwd=ROOT,
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, name: value})
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"paperkg: error: {name}={value!r}: ")
        assert not (tmp_path / "out.jsonl").exists()


def test_build_of_a_missing_file_says_so(tmp_path: Path) -> None:
    line = _one_line_error(_cli("build", "nope.txt", "--out", str(tmp_path / "kg")), "build")
    assert "nope.txt: no such file" in line


def test_demo_without_seed_files_says_what_to_pass(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    line = _one_line_error(_cli("demo", "--data", str(empty), cwd=tmp_path), "demo")
    assert "no seed .txt files" in line and "--data FOLDER" in line


def test_query_from_a_missing_file(demo_kg: Path, tmp_path: Path) -> None:
    line = _one_line_error(_cli("query", "@nofile.rq", "--kg", str(demo_kg), cwd=tmp_path),
                           "query")
    assert "nofile.rq: no such file" in line and "leave out the @" in line


@pytest.mark.parametrize(("query", "expected"), [
    ("SELEC ?x WHERE { ?x ?p ?o }",
     "at line 1, column 1: 'SELEC' is not a SPARQL keyword; did you mean SELECT?"),
    ("SELECT ?x WHERE { ?x ?p ?o } LIMT 5",
     "at line 1, column 30: 'LIMT' is not a SPARQL keyword; did you mean LIMIT?"),
    ("SELECT * WHERE { ?s ?p ?o FILTER(CONTAIN(?o, \"x\")) }",
     "'CONTAIN' is not a SPARQL keyword; did you mean CONTAINS?"),
    ("SELECT ?x WHERE {\n  ?x foo:bar ?o\n}",
     "at line 2, column 6: unknown prefix 'foo:'; declare it (PREFIX foo: <IRI>) or use a "
     "known one: author, concept, dcterms,"),
    ("SELECT ?x WHERE { ?x ?p ?o } LIMIT x",
     "'x' is not a keyword, a variable (?x) or a prefixed name (prefix:x)"),
])
def test_sparql_errors_name_the_token_and_the_fix(demo_kg: Path, query: str,
                                                  expected: str) -> None:
    line = _one_line_error(_cli("query", query, "--kg", str(demo_kg)), "query")
    assert expected in line, line
    assert "expected one of" not in line and "\\u{" not in line


def test_a_declared_prefix_is_known_and_listed() -> None:
    query = "PREFIX ex: <http://example.org/>\nSELECT * WHERE { ?s ex:p ?o . ?s no:p ?o }"
    message = _parser_error(query)
    assert "unknown prefix 'no:'" in message and "ex, " in message
    assert "line 2, column 34" in message


def test_without_the_query_the_parser_message_is_tidied() -> None:
    """The server may pass only the parser's message: still one short line, no dump."""
    query = "SELECT ?x WHERE { ?x foo:bar ?o }"
    full = with_prefixes(query)
    message = _raw(full)
    tidy = explain_query_error(message, full.count("\n") - query.count("\n"))
    assert tidy.startswith("SPARQL syntax error at line 1, column ")
    assert "a prefix is not declared" in tidy and "pkg" in tidy and "\\u{" not in tidy
    assert len(tidy) <= 320


def test_cache_dir_help_names_its_default_once() -> None:
    proc = _cli("build", "--help")
    text = " ".join(proc.stdout.split())
    assert "~/.cache/paperkg" in text and "default: None" not in text


def _raw(full: str) -> str:
    try:
        ox.Store().query(full)
    except SyntaxError as err:
        return str(err)
    raise AssertionError(f"parsed: {full}")


def _parser_error(query: str) -> str:
    full = with_prefixes(query)
    return explain_query_error(_raw(full), full.count("\n") - query.count("\n"), query)
