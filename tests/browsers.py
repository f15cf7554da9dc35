"""Whether the browser tests run: Chromium found, skipped with one line saying how to get it,
or (PAPERKG_REQUIRE_BROWSER=1, as .ci/run sets) required, so CI never skips them silently.

The README's test command must pass on a fresh machine, where Chromium is not installed.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

REQUIRE = "PAPERKG_REQUIRE_BROWSER"
BINARY = "PAPERKG_CHROMIUM"  # another Chromium binary (default: chromium on PATH)
DEBIAN_CHROMIUM = "/usr/bin/chromium"
INSTALL = "apt-get install -y chromium"


@dataclass(frozen=True, slots=True)
class Gate:
    """The decision: `path` to drive, else `message`, which fails the run if `required`."""

    path: Path | None
    message: str
    required: bool


def browser_gate(env: Mapping[str, str]) -> Gate:
    """Find Chromium: $PAPERKG_CHROMIUM if set, else `chromium` on PATH, else Debian's."""
    required = env.get(REQUIRE, "").strip().lower() in {"1", "true", "yes"}
    given = env.get(BINARY)
    candidate = given or shutil.which("chromium", path=env.get("PATH")) or DEBIAN_CHROMIUM
    if Path(candidate).is_file():
        return Gate(Path(candidate), "", required)
    where = f"{BINARY}={given}" if given else f"chromium on PATH or {DEBIAN_CHROMIUM}"
    action = ("required by " + REQUIRE + "=1" if required
              else f"browser tests skipped; {REQUIRE}=1 makes this a failure")
    return Gate(None, f"no Chromium ({where}): install it with '{INSTALL}' ({action})",
                required)
