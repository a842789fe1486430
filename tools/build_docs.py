"""Build the generated parts of docs/ from the rule registry and the config schema.

- docs/rules/<ID>.md, one page per rule, and docs/rules/README.md, the index
  (ctxlint.reporters.rule_pages; SARIF helpUri points at these pages);
- docs/config.schema.json, the complete JSON Schema of .ctxlint.yaml: the shipped
  lint/data/config.schema.json with every rule's own options under rules.<ID> and
  rules.<name>, exactly what config loading validates against (ctxlint.config.full_schema).

    python tools/build_docs.py           # rewrite them
    python tools/build_docs.py --check   # exit 1 if a generated file is stale, missing or left over

tests/test_docs_site.py runs the same comparison, so CI fails on stale docs.
"""
from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Dict, List

from ctxlint.config import full_schema
from ctxlint.registry import all_rules
from ctxlint.reporters.rule_pages import DIRECTORY, INDEX, page_path, write_index, write_rule_page

REPO = Path(__file__).resolve().parents[1]
CONFIG_SCHEMA = "docs/config.schema.json"


def build() -> Dict[str, str]:
    """Every generated file: path relative to the repository root -> its text."""
    files = {}
    for rule in all_rules():
        out = io.StringIO()
        write_rule_page(rule, out)
        files[page_path(rule)] = out.getvalue()
    out = io.StringIO()
    write_index(all_rules(), out)
    files[f"{DIRECTORY}/{INDEX}"] = out.getvalue()
    files[CONFIG_SCHEMA] = json.dumps(full_schema(), indent=2) + "\n"
    return files


def stale(root: Path) -> List[str]:
    """Generated files that differ from what is under `root`, are missing, or are no longer generated."""
    files = build()
    wrong = [path for path, text in files.items()
             if not (root / path).is_file() or (root / path).read_text(encoding="utf-8") != text]
    extra = [str(p.relative_to(root)) for p in sorted((root / DIRECTORY).glob("*.md"))
             if str(p.relative_to(root)) not in files]
    return sorted(wrong + extra)


def write(root: Path) -> List[str]:
    files = build()
    for path in stale(root):
        if path not in files:
            (root / path).unlink()  # the page of a rule that no longer exists
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return sorted(files)


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale(REPO)
        for path in wrong:
            print(f"{path} is out of date: run python tools/build_docs.py", file=sys.stderr)
        return 1 if wrong else 0
    print(f"wrote {len(write(REPO))} files under docs/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
