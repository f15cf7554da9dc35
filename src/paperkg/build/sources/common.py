"""What every reader shares: opening (plain or gzip), JSON records with their line numbers,
safe XML, TeX to text, names in byline order."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException
from pylatexenc.latex2text import LatexNodes2Text

from paperkg.build.ingest import Paper, Reject, jsonl_records, lines
from paperkg.errors import IngestError

__all__ = ["Located", "inverted_name", "jget", "json_records", "open_text", "parse_xml",
           "person_name", "records", "tex", "xml_record_lines"]

_TEX = LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True)
_TEX_HINT = re.compile(r"[\\{}~]")
# In metadata an unescaped & or % is the character itself; to TeX they are an alignment
# tab (dropped) and a comment (the rest of the line dropped: "by 5% on ... " lost).
_BARE_SPECIAL = re.compile(r"(?<!\\)([&%])")


def open_text(path: Path) -> str:
    """The whole file as text (gzip by magic bytes, UTF-8, BOM dropped)."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as err:
            raise IngestError(f"{path}: not a readable gzip file ({err})") from err
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise IngestError(f"{path}:{line}: not UTF-8 ({err.reason} at byte {err.start})") \
            from err


def records(
    items: Iterator[tuple[int, Any]], path: Path, make: Callable[[Any, str], Paper | None],
) -> Iterator[Paper | Reject]:
    """Run `make(record, "FILE:LINE")` on each (line, record); a ValueError becomes a
    Reject at that line, a None means "not a paper" (skipped: e.g. a @Proceedings entry).
    A `Located` record (one of many on a line of a JSON page) names its place too."""
    for line, item in items:
        if isinstance(item, Reject):
            yield item
            continue
        place = ""
        if isinstance(item, Located):
            place, item = f"{item.place}: ", item.record
        try:
            paper = make(item, f"{path}:{line}")
        except ValueError as err:
            yield Reject(str(path), line, f"{place}{err}", _snippet(item))
            continue
        if paper is not None:
            yield paper


@dataclass(frozen=True, slots=True)
class Located:
    """A record of a JSON document with its place in it ("results[14]")."""

    place: str
    record: Any


def _snippet(item: Any) -> str:
    if isinstance(item, Element):
        return SafeET.tostring(item, encoding="unicode")[:200]
    if isinstance(item, dict | list):
        return json.dumps(item, ensure_ascii=False)[:200]
    return str(item)[:200]


def json_records(path: Path, list_keys: tuple[str, ...]) -> Iterator[tuple[int, Any]]:
    """(line, record) for a JSON Lines file or for one JSON document whose records sit
    in a top-level array or under one of `list_keys` ({"results": [...]}), with each
    record's own line number. Malformed lines become Rejects; a malformed document stops.
    JSON Lines are streamed (a snapshot may be gigabytes); a document is read whole."""
    first = ""
    for _, line in lines(path):
        if isinstance(line, str) and line.strip():
            first = line
            break
    try:
        head = json.loads(first)
    except json.JSONDecodeError:
        head = None  # a pretty-printed document: its first line is not JSON by itself
    if isinstance(head, dict) and not any(k in head for k in list_keys):
        yield from jsonl_records(path)
        return
    yield from _json_document(path, open_text(path), list_keys)


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _json_document(path: Path, text: str, list_keys: tuple[str, ...]) -> Iterator[tuple[int, Any]]:
    """Walk the document with raw_decode so each array element keeps its offset."""
    def fail(pos: int, why: str) -> IngestError:
        return IngestError(f"{path}:{text.count(chr(10), 0, pos) + 1}: {why}")

    def skip(pos: int) -> int:
        return _WS.match(text, pos).end()  # type: ignore[union-attr]

    def value(pos: int) -> tuple[Any, int]:
        try:
            return _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as err:
            raise fail(err.pos, f"malformed JSON: {err.msg}") from err

    pos = skip(0)
    if text.startswith("[", pos):
        for i, (line, item) in enumerate(_array(text, pos, value, skip, fail)):
            yield line, Located(f"[{i}]", item)
        return
    if not text.startswith("{", pos):
        raise fail(pos, "expected a JSON object or array")
    pos = skip(pos + 1)
    found = False
    while not text.startswith("}", pos):
        key, pos = value(pos)
        pos = skip(pos)
        if not text.startswith(":", pos):
            raise fail(pos, "malformed JSON: expected ':'")
        pos = skip(pos + 1)
        if key in list_keys and text.startswith("[", pos):
            found = True
            for i, (line, item) in enumerate(_array(text, pos, value, skip, fail)):
                yield line, Located(f"{key}[{i}]", item)
            _, pos = value(pos)
        else:
            _, pos = value(pos)
        pos = skip(pos)
        if text.startswith(",", pos):
            pos = skip(pos + 1)
    if not found:
        raise fail(0, f"no list of records here (expected one of {list(list_keys)} or JSON "
                      f"Lines)")


def _array(text: str, pos: int, value: Any, skip: Any, fail: Any) -> Iterator[tuple[int, Any]]:
    pos = skip(pos + 1)
    line, counted = 1, 0
    while not text.startswith("]", pos):
        line += text.count("\n", counted, pos)
        counted = pos
        item, pos = value(pos)
        yield line, item
        pos = skip(pos)
        if text.startswith(",", pos):
            pos = skip(pos + 1)
        elif not text.startswith("]", pos):
            raise fail(pos, "malformed JSON: expected ',' or ']'")


def parse_xml(path: Path) -> Element:
    """The document root; DTDs, entities and external references are refused (defusedxml)."""
    try:
        return SafeET.fromstring(open_text(path).encode("utf-8"))
    except SafeET.ParseError as err:
        line, col = err.position
        raise IngestError(f"{path}:{line}: malformed XML ({err.msg}, column {col})") from err
    except DefusedXmlException as err:
        raise IngestError(f"{path}:1: refused XML: {err}") from err


def xml_record_lines(path: Path, tag: str, count: int) -> list[int]:
    """Line of each of the `count` `<tag ...>` elements, in document order: ElementTree
    keeps no positions, so the start tags are found in the text. Should the text hold
    another number of them (a start tag inside a comment), every record is placed on
    line 1 rather than on a wrong line."""
    text = open_text(path)
    starts = re.finditer(rf"<(?:[\w.-]+:)?{tag}[\s>/]", text)
    out, counted, line = [], 0, 1
    for m in starts:
        line += text.count("\n", counted, m.start())
        counted = m.start()
        out.append(line)
    return out if len(out) == count else [1] * count


def tex(value: str | None) -> str | None:
    """TeX escapes to text (`Bal\\'azs` → Balázs, `{\\L}ukasz` → Łukasz, `15.53\\%` → 15.53%);
    math (`$\\alpha$`) is kept verbatim, as in other abstracts."""
    if not value:
        return value
    if not _TEX_HINT.search(value):
        return value
    try:
        return str(_TEX.latex_to_text(_BARE_SPECIAL.sub(r"\\\1", value)))
    except (ValueError, IndexError):  # pylatexenc gives up on some unbalanced input
        return value


def person_name(last: str, first: str = "", suffix: str = "") -> str:
    """"First Last Suffix" from parts, TeX escapes resolved."""
    parts = [tex(p.strip()) or "" for p in (first, last, suffix)]
    return " ".join(p for p in parts if p)


def inverted_name(name: str) -> str:
    """"Last, First" (BibTeX/RIS/Dublin Core) → "First Last"; other names unchanged."""
    if name.count(",") == 1:
        last, first = name.split(",")
        return person_name(last, first)
    if name.count(",") == 2:  # "Last, Jr, First"
        last, suffix, first = name.split(",")
        return person_name(last, first, suffix)
    return tex(name.strip()) or ""


def jget(record: Any, *keys: str | int) -> Any:
    """Nested get that tolerates None and missing keys: jget(w, "primary_location",
    "source", "display_name")."""
    for key in keys:
        if isinstance(key, int):
            if not isinstance(record, list) or len(record) <= key:
                return None
        elif not isinstance(record, dict):
            return None
        record = record[key] if isinstance(key, int) else record.get(key)
    return record
