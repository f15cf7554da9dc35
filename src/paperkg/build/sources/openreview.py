"""OpenReview notes, API v2 (`content.title.value`) and API v1 (`content.title`).

A page is `{"notes": [...]}` (what /notes returns); `paperkg fetch openreview` writes the
notes one per line, and both shapes may be mixed. Documented shapes:
https://docs.openreview.net/reference/api-v2/openapi-definition (v2) and the v1 notes API.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from paperkg.build.ingest import Paper, Reject, make_paper, venue_name
from paperkg.build.sources.common import jget, json_records, records

__all__ = ["decision_of", "paper_from_note", "read_openreview"]

# The venue string OpenReview shows after decisions → our decision individuals.
_DECISIONS = (
    (re.compile(r"desk[ _-]?reject", re.I), "desk_reject"),
    (re.compile(r"withdrawn", re.I), "withdrawn"),
    (re.compile(r"\boral\b|notable[- ]top[- ]5", re.I), "oral"),
    (re.compile(r"\bspotlight\b|notable[- ]top[- ]25", re.I), "spotlight"),
    (re.compile(r"\bposter\b", re.I), "poster"),
    (re.compile(r"^submitted to\b|\breject", re.I), "reject"),
)


def decision_of(venue: str | None) -> str | None:
    """"ICLR 2025 Oral" → "oral", "Submitted to ICLR 2025" → "reject"; None if unknown."""
    if not venue:
        return None
    for pattern, decision in _DECISIONS:
        if pattern.search(venue):
            return decision
    return None


def _field(content: dict[str, Any], key: str) -> Any:
    """v2 wraps every value as {"value": …}; v1 stores it bare."""
    value = content.get(key)
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def _text(content: dict[str, Any], key: str) -> str | None:
    value = _field(content, key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"content.{key} must be a string, got {type(value).__name__}")
    return value


def _strings(content: dict[str, Any], key: str) -> list[str]:
    value = _field(content, key)
    if value is None:
        return []
    if isinstance(value, str):  # some v1 venues store keywords as one comma-separated string
        return [v.strip() for v in value.split(",")]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"content.{key} must be a list of strings")
    return value


def paper_from_note(note: Any, where: str) -> Paper:
    """One note (v1 or v2) → Paper; id is the forum id (the paper's page on OpenReview)."""
    if not isinstance(note, dict):
        raise ValueError("expected a note object")
    content = note.get("content")
    if not isinstance(content, dict):
        raise ValueError("note has no 'content' object")
    pid = note.get("forum") or note.get("id")
    venue_raw = _text(content, "venue")
    venueid = _text(content, "venueid")
    venue = venue_name(venueid) if venueid and "/" in venueid else venue_name(venue_raw)
    when = note.get("pdate") or note.get("cdate") or note.get("tcdate")
    year = None
    if isinstance(when, int | float) and not isinstance(when, bool):
        year = datetime.fromtimestamp(when / 1000, UTC).year
    if venue and (m := re.search(r"\b(19|20)\d\d\b", venue)):
        year = int(m.group(0))
    return make_paper(
        id=pid, abstract=_text(content, "abstract"), location=where, fmt="openreview",
        title=_text(content, "title"), authors=_strings(content, "authors"),
        keywords=_strings(content, "keywords"),
        subjects=[s for s in [_text(content, "primary_area")] if s],
        decision=decision_of(venue_raw), year=year, venue=venue,
        url=f"https://openreview.net/forum?id={pid}" if isinstance(pid, str) else None,
    )


def read_openreview(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    yield from records(json_records(path, ("notes",)), path, paper_from_note)


def version_of(note: dict[str, Any]) -> int:
    """2 if the note uses v2's {"value": …} wrappers, else 1 (used by the fetcher)."""
    title = jget(note, "content", "title")
    return 2 if isinstance(title, dict) else 1
