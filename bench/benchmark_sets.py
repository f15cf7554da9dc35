"""Public keyphrase sets, as their public copies ship them, into `bench_keywords.py`'s
JSON Lines (id, title, abstract, keywords). The sets stay outside the repository and out of
every fit; this only rewrites a local copy.

    python bench/benchmark_sets.py inspec INSPEC_TEST.jsonl OUT.jsonl
    python bench/benchmark_sets.py pure SCIERC_TEST.json OUT.jsonl

- inspec: one JSON object a line with name, title, abstract and keywords (";"-separated),
  as `EMBEDDIA/tnt_kid` ships the Inspec test set (Hulth 2003: journal abstracts of
  computers, control and information technology, indexer-assigned keyphrases).
- pure: the tokenised form of SciERC (Luan et al. 2018: AI conference abstracts with their
  Task, Method, Metric, Material and OtherScientificTerm entities annotated), one document
  a line with sentences and ner spans, as the PURE and DyGIE code reads it. The gold
  keyphrases are the distinct entity strings; "Generic" entities ("method", "it") are left
  out, since they name nothing.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path

# Penn Treebank escapes of the tokenised sets, and the spacing they add
_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}",
        "``": '"', "''": '"'}
_SPACE_BEFORE = re.compile(r" ([.,;:?!)\]}%]|'s|n't)")
_SPACE_AFTER = re.compile(r"([(\[{]) ")


def detokenize(tokens: list[str]) -> str:
    text = " ".join(_PTB.get(t, t) for t in tokens)
    return _SPACE_AFTER.sub(r"\1", _SPACE_BEFORE.sub(r"\1", text))


def inspec(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                yield {"id": r["name"], "title": r["title"], "abstract": r["abstract"],
                       "keywords": [k.strip() for k in r["keywords"].split(";") if k.strip()]}


def pure(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            doc = json.loads(line)
            words = [w for sentence in doc["sentences"] for w in sentence]
            gold: list[str] = []
            for spans in doc["ner"]:
                for start, end, kind in spans:
                    phrase = detokenize(words[start:end + 1])
                    if kind != "Generic" and phrase.lower() not in {g.lower() for g in gold}:
                        gold.append(phrase)
            yield {"id": doc["doc_key"], "title": "",
                   "abstract": " ".join(detokenize(s) for s in doc["sentences"]),
                   "keywords": gold}


READERS = {"inspec": inspec, "pure": pure}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("format", choices=sorted(READERS))
    ap.add_argument("source", type=Path)
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    n = 0
    with args.out.open("w", encoding="utf-8") as fh:
        for record in READERS[args.format](args.source):
            fh.write(json.dumps(record) + "\n")
            n += 1
    print(f"{n} records of {args.source} ({args.format}) written to {args.out}")


if __name__ == "__main__":
    main()
