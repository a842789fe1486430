"""JUnit XML for GitLab and Jenkins test reports: a testsuite per file, a
testcase per finding, named so that names are unique and survive line moves.

The shape follows the schema consumers validate against, the Jenkins xunit
plugin's junit-10.xsd (a superset of what GitLab reads): `file` belongs to a
testsuite, never a testcase, and `testsuites` carries no `skipped`. A finding is
a `<failure>` only at or above --fail-on, so an exit-0 run reports no failures;
one below it is a passing testcase with the finding in `<system-out>`.
Suppressed findings are `<skipped>`."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby
from typing import Dict, List, Optional, Set, TextIO

from ctxlint.engine import Report
from ctxlint.findings import Finding, at_least
from ctxlint.lazyre import lazy_compile
from ctxlint.reporters.context import ReportContext

# Rule families by the code's first digit. No dots: Jenkins splits classname at
# the last dot into package and class.
FAMILIES = {"0": "input", "1": "capacity", "2": "hardware", "3": "engine", "4": "advisory"}
CLEAN_CLASSNAME = "ctxlint"
# Characters XML 1.0 cannot carry even escaped; ElementTree would write them and
# produce a document no parser accepts (a parse-error message may quote them).
_NOT_XML = lazy_compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def classname(rule: str) -> str:
    digit = rule[3:4]
    return f"ctxlint-{FAMILIES.get(digit, 'other')}"


def _base_name(f: Finding) -> str:
    # Rule + logical locator + deployment, never the line: GitLab diffs reports by
    # name, and a name holding a line number would "fail anew" whenever lines move.
    name = f"{f.rule} {f.path or '(file)'}"
    return f"{name} [{f.deployment}]" if f.deployment else name


def _unique(name: str, used: Set[str]) -> str:
    # GitLab keeps only the first test of a given name; number the repeats.
    candidate, counter = name, 2
    while candidate in used:
        candidate = f"{name} #{counter}"
        counter += 1
    used.add(candidate)
    return candidate


def _case(suite: ET.Element, name: str, classname_: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", {"name": _xml(name), "classname": classname_, "time": "0"})


def to_element(report: Report, ctx: Optional[ReportContext] = None) -> ET.Element:
    by_file: Dict[str, List[Finding]] = {file: [] for file in report.files}
    for file, group in groupby(report.findings, key=lambda f: f.file):
        by_file.setdefault(file, []).extend(group)
    suppressed: Dict[str, List[tuple]] = {}
    for f, why in (ctx.suppressed if ctx else ()):
        suppressed.setdefault(f.file, []).append((f, why))
        by_file.setdefault(f.file, [])
    used: Set[str] = set()
    fail_on = ctx.fail_on if ctx else "error"
    root = ET.Element("testsuites", {"name": "ctxlint", "time": "0"})
    total = failures = 0
    for file, findings in by_file.items():
        suite = ET.SubElement(root, "testsuite", {"name": _xml(file), "file": _xml(file), "time": "0"})
        failed = 0
        for f in findings:
            case = _case(suite, _unique(_base_name(f), used), classname(f.rule))
            text = _xml(f"{file}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message} ({f.name})")
            if at_least(f.severity, fail_on):
                failed += 1
                failure = ET.SubElement(case, "failure", {"type": f.severity, "message": _xml(f.message)})
                failure.text = text
            else:  # below the gate: reported, but the test passes, as the run does
                ET.SubElement(case, "system-out").text = text
        for f, why in sorted(suppressed.get(file, ()), key=lambda pair: pair[0]):
            case = _case(suite, _unique(_base_name(f), used), classname(f.rule))
            ET.SubElement(case, "skipped", {"message": _xml(f"suppressed: {why}")})
        if not findings and not suppressed.get(file):
            # A clean file is a passing test, so a clean run is still a valid, non-empty report.
            _case(suite, _unique(f"ctxlint {file}", used), CLEAN_CLASSNAME)
        tests, skips = len(suite), len(suppressed.get(file, ()))
        suite.attrib.update({"tests": str(tests), "failures": str(failed), "errors": "0", "skipped": str(skips)})
        total, failures = total + tests, failures + failed
    root.attrib.update({"tests": str(total), "failures": str(failures), "errors": "0"})
    return root


def write(report: Report, stream: TextIO, ctx: Optional[ReportContext] = None) -> None:
    root = to_element(report, ctx)
    ET.indent(root)
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(ET.tostring(root, encoding="unicode") + "\n")
