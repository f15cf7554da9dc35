"""The README's sample output of `paperkg demo`, kept equal to what the program prints.

`python -m tests.readme_demo` runs `paperkg demo` in an empty folder and writes its standard
output between the README's `demo-output` markers; tests/test_readme.py runs the demo again
and fails, with a diff and this command, when the two differ in more than the build time.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BEGIN, END = "<!-- demo-output:begin -->", "<!-- demo-output:end -->"
_BLOCK = re.compile(re.escape(BEGIN) + r"\n```\n(.*?)```\n" + re.escape(END), re.DOTALL)
_SECONDS = re.compile(r"\(\d+(?:\.\d+)? s\)")  # the build time, different on every run
UPDATE = "python -m tests.readme_demo"


def run_demo(folder: Path, *flags: str) -> str:
    """`paperkg demo` in `folder` (its KG goes to folder/kg); its standard output."""
    proc = subprocess.run([sys.executable, "-m", "paperkg.cli", "demo", *flags], cwd=folder,
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"paperkg demo failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc.stdout.strip("\n") + "\n"


def readme_block(text: str) -> str:
    """The sample output shown in the README (between the markers)."""
    found = _BLOCK.search(text)
    if found is None:
        raise ValueError(f"README.md has no ``` block between {BEGIN} and {END}")
    return found[1]


def comparable(output: str) -> str:
    """The output without what changes from run to run (the build time)."""
    return _SECONDS.sub("(… s)", output)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        output = run_demo(Path(tmp))
    text = README.read_text(encoding="utf-8")
    readme_block(text)  # the markers are there
    new = _BLOCK.sub(lambda _: f"{BEGIN}\n```\n{output}```\n{END}", text)
    README.write_text(new, encoding="utf-8")
    print(f"README.md: sample output {'updated' if new != text else 'already current'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
