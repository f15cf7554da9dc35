"""One field of a paper record at a time: checked, cleaned, normalised.

Every reader's values pass through these (via `ingest.make_paper`), so an id, a DOI, a
venue or a year means the same whatever format it came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ["MAX_ID_LENGTH", "check_id", "clean_text", "normalise_doi", "unique", "venue_name",
           "year_of"]

#: Longer ids are refused: no real identifier scheme comes near (DOIs are < 300).
MAX_ID_LENGTH: Final = 1000
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_DOI_RE = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$",
                     re.IGNORECASE)


def clean_text(value: str) -> str | None:
    """Single-spaced text without control characters (a stray U+0002 in a CSV export
    becomes a space); None when nothing is left."""
    text = " ".join(_CONTROL_RE.sub(" ", value).split())
    return text or None


def check_id(value: object) -> str:
    """A paper id as given, refused only if it cannot be one: missing, empty, too long,
    or holding control or other non-printable characters. `/`, `:`, `.` and any printable
    Unicode are fine; IRIs %-encode them (`vocab.encode_id`)."""
    if value is None or value == "":
        raise ValueError("missing field 'id'")
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"field 'id' must be a string, got {type(value).__name__}")
    pid = str(value).strip()
    if not pid:
        raise ValueError("empty field 'id'")
    if len(pid) > MAX_ID_LENGTH:
        raise ValueError(f"field 'id' is {len(pid):,} characters long; at most "
                         f"{MAX_ID_LENGTH:,} are accepted")
    for i, ch in enumerate(pid):
        if not ch.isprintable():
            raise ValueError(f"field 'id' holds a non-printable character "
                             f"U+{ord(ch):04X} at position {i + 1}")
    return pid


def normalise_doi(value: str | None) -> str | None:
    """`10.x/y` from a bare DOI, `doi:` or a doi.org URL; None for anything else.
    DOIs are case-insensitive: the lower-case form is kept."""
    if not value:
        return None
    match = _DOI_RE.match(value.strip())
    return match.group(1).lower() if match else None


_OPENREVIEW_VENUE = re.compile(
    r"([\w-]+?)(?:\.cc|\.org|\.io|\.ai)?/(\d{4})/(?:Conference|Workshop)(?:/.*)?")
_DECISION_SUFFIX = re.compile(
    r"\s+(?:conference\s+)?(?:oral|poster|spotlight|notable[- ]top[- ]\d+%?|"
    r"(?:withdrawn|desk[- ]rejected|rejected)\s+submission)$", re.IGNORECASE)


def venue_name(raw: str | None) -> str | None:
    """One name per venue and year, whatever the decision: "ICLR 2025 Poster",
    "Submitted to ICLR 2025", "ICLR 2025 Conference Withdrawn Submission" and
    "ICLR.cc/2025/Conference" are all "ICLR 2025". Other names are kept as given."""
    text = clean_text(raw) if raw else None
    if not text:
        return None
    m = _OPENREVIEW_VENUE.fullmatch(text)
    if m:
        return f"{m.group(1)} {m.group(2)}"
    text = re.sub(r"^submitted to\s+", "", text, flags=re.IGNORECASE)
    return _DECISION_SUFFIX.sub("", text) or None


def unique(values: Iterable[str]) -> tuple[str, ...]:
    out = (clean_text(v) for v in values if isinstance(v, str))
    return tuple(dict.fromkeys(v for v in out if v))


def year_of(value: int | str | None) -> int | None:
    if value is None or value == "":
        return None
    text = str(value).strip()[:4]
    if not text.isdigit() or not 1000 <= int(text) <= 2999:
        raise ValueError(f"year {value!r} is not a year")
    return int(text)


