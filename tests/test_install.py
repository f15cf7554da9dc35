"""A package that installs anywhere: `python -m build` makes an sdist and a wheel (built from
the sdist) that `twine check` accepts, the wheel holds every module and data file of the
source tree, and installed (not editable) into a fresh venv it works from another folder:
`--version`, `demo` (its abstracts shipped inside), `query`, `serve` with its pages and
static files.

The venv sees this environment's site-packages for the heavy dependencies (torch, the
model), but paperkg itself must come from the wheel: the test checks where it is imported
from. The tests share one build.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from .conftest import ROOT
from .serving import free_port

pytestmark = pytest.mark.install

#: Where each installed package's files come from (server/ installs as paperkg_server).
SOURCES = {"paperkg": ROOT / "src" / "paperkg", "paperkg_server": ROOT / "server"}


def _source_files() -> set[str]:
    """Every file the installed packages must hold, as wheel paths (symlinked folders such
    as ontology/ and demo/ followed, caches left out)."""
    out = set()
    for name, top in SOURCES.items():
        for folder, dirs, files in os.walk(top, followlinks=True):
            dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
            for f in files:
                if not f.endswith((".pyc", ".pyo")) and not f.startswith("."):
                    out.add(f"{name}/{(Path(folder) / f).relative_to(top).as_posix()}")
    return out


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out


def _one(dist: Path, pattern: str) -> Path:
    found = sorted(dist.glob(pattern))
    assert len(found) == 1, f"{pattern}: {found}"
    return found[0]


def test_twine_accepts_the_sdist_and_the_wheel(dist: Path) -> None:
    files = [str(p) for p in sorted(dist.iterdir())]
    proc = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *files],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASSED") == 2, proc.stdout


def test_the_wheel_holds_every_module_and_data_file(dist: Path) -> None:
    wheel = zipfile.ZipFile(_one(dist, "paperkg-*.whl"))
    names = set(wheel.namelist())
    missing = sorted(_source_files() - names)
    assert not missing, (f"not in the wheel (add them to [tool.setuptools] packages or "
                         f"package-data in pyproject.toml): {missing}")
    for needed in ("paperkg/ontology/paperkg.ttl", "paperkg/ontology/shapes.ttl",
                   "paperkg/views/templates/view.html", "paperkg_server/templates/home.html"):
        assert needed in names
    assert len([n for n in names if re.fullmatch(r"paperkg/demo/.+\.txt", n)]) >= 1
    meta = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    points = wheel.read(meta).decode()
    assert "paperkg = paperkg.cli:main" in points
    assert "serve = paperkg_server.command:register" in points


def test_the_sdist_holds_the_demo_as_real_files(dist: Path) -> None:
    with tarfile.open(_one(dist, "paperkg-*.tar.gz")) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
    demo = [m for name, m in members.items() if name.startswith("src/paperkg/demo/")
            and name.endswith(".txt")]
    assert demo and all(m.isfile() for m in demo), "the demo abstracts, not a link out"
    assert {"README.md", "pyproject.toml", "src/paperkg/ontology/shapes.ttl"} <= set(members)


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed (dependencies seen from this environment)."""
    env = tmp_path_factory.mktemp("venv") / "v"
    # without pip (Debian's python3 has no ensurepip): this pip installs into it
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(env)], check=True, timeout=300)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install",
         "--no-deps", "--no-index", "--ignore-installed", "--disable-pip-version-check", "-q",
         str(_one(dist, "paperkg-*.whl"))],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return env


def _run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(venv / "bin" / "paperkg"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=900)


def test_installed_wheel_works_from_another_folder(venv: Path, tmp_path: Path,
                                                   cache_dir: Path) -> None:
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import paperkg, paperkg_server; print(paperkg.__file__, paperkg_server.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert str(ROOT) not in where and str(venv) in where, where  # the wheel, not the tree

    version = _run(venv, tmp_path, "--version")
    assert version.returncode == 0 and re.fullmatch(r"paperkg \d+\.\d+\.\d+\S*\n",
                                                    version.stdout)

    demo = _run(venv, tmp_path, "demo", "--cache-dir", str(cache_dir))
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert re.search(r"^built kg: 38 papers, ", demo.stdout, re.MULTILINE), demo.stdout
    assert (tmp_path / "kg" / "manifest.json").is_file()

    query = _run(venv, tmp_path, "query", "--format", "csv",
                 "SELECT (COUNT(?p) AS ?n) WHERE { ?p a pkg:Paper }")
    assert query.returncode == 0 and query.stdout.split() == ["n", "38"], query.stderr

    with _serving(venv, tmp_path) as url:
        home = httpx.get(url + "/", timeout=30)
        assert home.status_code == 200 and "<form" in home.text  # a template from the wheel
        vis = httpx.get(url + "/static/vis/vis-network.min.js", timeout=30)
        assert vis.status_code == 200 and len(vis.content) > 100_000


class _serving:
    """`paperkg serve` of the installed wheel on a free port, stopped on exit."""

    def __init__(self, venv: Path, cwd: Path) -> None:
        self.port = free_port()
        self.log = (cwd / "serve.log").open("wb")
        self.proc = subprocess.Popen(
            [str(venv / "bin" / "paperkg"), "serve", "--port", str(self.port),
             "--http-workers", "1", "--query-workers", "1"],
            cwd=cwd, stdout=self.log, stderr=subprocess.STDOUT)

    def __enter__(self) -> str:
        url = f"http://127.0.0.1:{self.port}"
        end = time.monotonic() + 120
        while time.monotonic() < end and self.proc.poll() is None:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    return url
            except httpx.TransportError:
                time.sleep(0.2)
        self.__exit__()
        raise AssertionError(f"serve did not start: {Path(self.log.name).read_text()[-2000:]}")

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
