"""The browser tests skip with one line on a machine without Chromium, fail when CI requires
them, and CI does require them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .browsers import BINARY, INSTALL, REQUIRE, browser_gate
from .conftest import ROOT


def test_gate_finds_a_given_binary_and_names_a_missing_one(tmp_path: Path) -> None:
    fake = tmp_path / "chromium"
    fake.write_text("")
    assert browser_gate({BINARY: str(fake)}).path == fake
    missing = browser_gate({BINARY: str(tmp_path / "nope"), "PATH": str(tmp_path)})
    assert missing.path is None and not missing.required
    assert INSTALL in missing.message and str(tmp_path / "nope") in missing.message
    assert "\n" not in missing.message
    required = browser_gate({BINARY: str(tmp_path / "nope"), REQUIRE: "1"})
    assert required.path is None and required.required


_CHEAP = "test_gate_finds_a_given_binary_and_names_a_missing_one"


def _pytest_browser(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        # with one cheap test beside, as in the full run (a lone skip exits 5: "no tests")
        [sys.executable, "-m", "pytest", "tests/test_browser.py", f"{__file__}::{_CHEAP}",
         "-q", "-p", "no:cacheprovider"],
        cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=300,
    )


def test_without_chromium_the_browser_tests_skip_with_one_line(tmp_path: Path) -> None:
    proc = _pytest_browser({BINARY: str(tmp_path / "no-chromium"), REQUIRE: "0"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    reasons = [ln for ln in proc.stdout.splitlines() if ln.startswith("SKIPPED")]
    assert len(reasons) == 1 and INSTALL in reasons[0], proc.stdout
    assert "1 passed, 1 skipped" in proc.stdout


def test_when_required_a_missing_chromium_fails_the_run(tmp_path: Path) -> None:
    proc = _pytest_browser({BINARY: str(tmp_path / "no-chromium"), REQUIRE: "1"})
    assert proc.returncode != 0
    assert INSTALL in proc.stdout and "skipped" not in proc.stdout.splitlines()[-1]


def test_ci_installs_chromium_and_requires_the_browser_tests() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "chromium" in ci.split("python3 -m pytest")[0]
    assert f"export {REQUIRE}=1" in ci
