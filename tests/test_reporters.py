"""Output formats: exact text where the format is text, schema and structure
checks where it is a document, and the escaping and stability rules each
consumer (GitHub, GitLab, Jenkins) depends on."""
from __future__ import annotations

import hashlib
import inspect
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import MappingProxyType
from typing import Optional, Sequence

import pytest

from ctxlint.engine import Report, lint_paths, lint_text
from ctxlint.findings import Finding
from ctxlint.registry import all_rules
from ctxlint.reporters import LEVELS, REPORTERS, ReportContext, read_sources
from ctxlint.reporters import full, github, gitlab, json_report, junit, markdown, sarif, text

SARIF_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "sarif"
INCIDENT = "samples/incident/deployment.yaml"


def finding(file: str = "deploy/a.yaml", line: int = 3, column: int = 5, rule: str = "CTX101",
            severity: str = "error", message: str = "too big", path: str = "spec.x",
            deployment: Optional[str] = "prod", end_line: int = 0, end_column: int = 0,
            tags: Sequence[str] = ()) -> Finding:
    return Finding(file=file, line=line, column=column, rule=rule, name="window-exceeds-kv-pool",
                   severity=severity, message=message, path=path, deployment=deployment,
                   end_line=end_line or line, end_column=end_column, tags=tuple(tags))


def report_of(*findings: Finding, files: Sequence[str] = ()) -> Report:
    files = list(files) or sorted({f.file for f in findings})
    return Report(findings=sorted(findings), files=files)


def render(writer, report: Report, ctx: Optional[ReportContext] = None) -> str:
    stream = io.StringIO()
    writer(report, stream, ctx) if ctx is not None else writer(report, stream)
    return stream.getvalue()


@pytest.fixture
def incident(in_repo) -> Report:
    return lint_paths(["samples/incident"])


@pytest.fixture
def ctx(in_repo) -> ReportContext:
    return ReportContext(cwd=str(in_repo), tool_version="9.9.9")


# --- registry and signatures ---------------------------------------------------------------

def test_every_format_is_registered_with_the_uniform_signature():
    assert set(REPORTERS) == {"text", "concise", "full", "json", "sarif", "github", "junit", "gitlab", "markdown"}
    for name, writer in REPORTERS.items():
        params = list(inspect.signature(writer).parameters)
        assert params == ["report", "stream", "ctx"], name
        assert inspect.signature(writer).parameters["ctx"].default is None, name


def test_one_severity_table_covers_every_severity():
    assert {s: (l.sarif, l.github, l.gitlab) for s, l in LEVELS.items()} == {
        "error": ("error", "error", "major"),
        "warning": ("warning", "warning", "minor"),
        "info": ("note", "notice", "info"),
    }


def test_context_is_frozen_and_defaults_to_all_rules():
    context = ReportContext()
    assert context.rules == all_rules() and context.suppressed == () and not context.color
    with pytest.raises(Exception):
        context.color = True  # type: ignore[misc]


def test_read_sources_skips_stdin_and_missing_files(in_repo):
    sources = read_sources([INCIDENT, "-", "samples/does-not-exist.yaml"])
    assert list(sources) == [INCIDENT] and "kv_pool_tokens: 681280" in sources[INCIDENT]


# --- text and json keep their old two-argument form ----------------------------------------

def test_text_and_json_work_with_and_without_ctx(incident, ctx):
    assert render(text.write, incident) == render(text.write, incident, ctx)
    assert render(text.write, incident).startswith(f"{INCIDENT}:13:21: CTX102 [error] security: ")
    assert json.loads(render(json_report.write, incident)) == json.loads(render(json_report.write, incident, ctx))


def test_json_carries_suppressions_only_when_there_are_some(ctx):
    suppressed = ReportContext(cwd=ctx.cwd, suppressed=((finding(), "tracked in OPS-12"),))
    assert "suppressed" not in json.loads(render(json_report.write, report_of()))
    data = json.loads(render(json_report.write, report_of(), suppressed))
    assert data["suppressed"][0]["justification"] == "tracked in OPS-12"
    assert data["suppressed"][0]["rule"] == "CTX101"


# --- full -----------------------------------------------------------------------------------

SOURCE = "spec:\n  x: 1048576\n\tkv: 681280\n"


def test_full_golden_with_snippets_carets_and_summary_table():
    report = report_of(
        finding(line=2, column=6, end_column=13, message="window too big"),
        finding(line=3, column=6, end_column=12, rule="CTX108", severity="warning", message="disagree"),
        finding(file="deploy/b.yaml", line=1, column=1, message="no source here"),
    )
    context = ReportContext(sources=MappingProxyType({"deploy/a.yaml": SOURCE}))
    assert render(full.write, report, context) == (
        "deploy/a.yaml\n"
        "deploy/a.yaml:2:6: CTX101 [error] window too big (window-exceeds-kv-pool)\n"
        "   |\n"
        " 2 |   x: 1048576\n"
        "   |      ^^^^^^^\n"
        "\n"
        "deploy/a.yaml:3:6: CTX108 [warning] disagree (window-exceeds-kv-pool)\n"
        "   |\n"
        " 3 | \tkv: 681280\n"
        "   | \t    ^^^^^^\n"  # the tab is kept so the caret lines up in any terminal
        "\n"
        "deploy/b.yaml\n"
        "deploy/b.yaml:1:1: CTX101 [error] no source here (window-exceeds-kv-pool)\n"
        "\n"
        "file             errors    warnings    infos\n"
        "-------------  --------  ----------  -------\n"
        "deploy/a.yaml         1           1        0\n"
        "deploy/b.yaml         1           0        0\n"
        "total                 2           1        0\n"
    )


def test_full_on_the_incident_puts_carets_under_the_offending_values(incident, ctx):
    context = ReportContext(cwd=ctx.cwd, sources=read_sources(incident.files))
    out = render(full.write, incident, context)
    assert " 13 |     context_window: 1048576\n    |                     ^^^^^^^\n" in out
    assert " 24 |         kv_pool_tokens: 681280\n    |                         ^^^^^^\n" in out
    assert "\x1b[" not in out


def test_full_colours_only_when_asked():
    report = report_of(finding(line=2, column=6, end_column=13))
    sources = MappingProxyType({"deploy/a.yaml": SOURCE})
    plain = render(full.write, report, ReportContext(sources=sources))
    coloured = render(full.write, report, ReportContext(sources=sources, color=True))
    assert "\x1b[" not in plain and "\x1b[31m^^^^^^^\x1b[0m" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


def test_full_is_empty_on_a_clean_run():
    assert render(full.write, report_of(files=["deploy/a.yaml"]), ReportContext()) == ""


# --- SARIF ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sarif_validator():
    schema_path = SARIF_DIR / "sarif-schema-2.1.0.json"
    if not schema_path.is_file():
        pytest.skip(f"SARIF schema not found at {schema_path}")
    jsonschema = pytest.importorskip("jsonschema")
    return jsonschema.Draft4Validator(json.loads(schema_path.read_text(encoding="utf-8")))


def sarif_of(report: Report, context: ReportContext) -> dict:
    return json.loads(render(sarif.write, report, context))


def test_sarif_is_valid_against_the_official_schema(incident, ctx, sarif_validator, in_repo):
    everything = lint_paths(["samples"])
    suppressed = ReportContext(cwd=ctx.cwd, suppressed=((finding(), "accepted risk, OPS-12"),))
    for report, context in ((incident, ctx), (everything, ctx), (report_of(), suppressed)):
        errors = sorted(sarif_validator.iter_errors(sarif_of(report, context)), key=str)
        assert not errors, errors[0].message


def test_sarif_schema_validation_can_fail(sarif_validator, incident, ctx):
    log = sarif_of(incident, ctx)
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert list(sarif_validator.iter_errors(log))


def test_sarif_columns_are_code_points_and_say_so(ctx):
    # ctxlint counts a column in characters; SARIF readers assume UTF-16 code units unless told
    text = 'a: {note: "\U0001F600", b: 1, b: 2}\n'
    report = lint_text(text, "d.yaml")
    (duplicate,) = report.findings
    at = text.index("b: 2")
    assert duplicate.column == at + 1 == len(text[:at].encode("utf-16-le")) // 2  # 1 UTF-16 unit more before it
    run = sarif_of(report, ctx)["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] == duplicate.column


def test_sarif_run_shape_for_code_scanning(incident, ctx, in_repo):
    log = sarif_of(incident, ctx)
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("ctxlint", "9.9.9") and driver["informationUri"]
    assert [r["id"] for r in driver["rules"]] == [r.id for r in all_rules()]
    assert run["automationDetails"] == {"id": "ctxlint/"}
    assert run["invocations"][0]["executionSuccessful"] is True
    assert run["invocations"][0]["workingDirectory"]["uri"] == in_repo.as_uri() + "/"
    first = run["results"][0]
    assert driver["rules"][first["ruleIndex"]]["id"] == first["ruleId"] == "CTX102"
    assert first["level"] == "error"
    location = first["locations"][0]
    assert location["physicalLocation"] == {
        "artifactLocation": {"uri": INCIDENT, "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 13, "startColumn": 21, "endLine": 13, "endColumn": 28},
    }
    names = {l["kind"]: l["name"] for l in location["logicalLocations"]}
    assert names == {"object": "coder-moe-prod", "member": "spec.advertised.context_window"}
    assert re.fullmatch(r"[0-9a-f]{32}", first["partialFingerprints"]["ctxlint/v1"])


def test_sarif_rule_metadata_and_security_severity_only_on_security_rules(ctx):
    rules = {r["id"]: r for r in sarif_of(report_of(), ctx)["runs"][0]["tool"]["driver"]["rules"]}
    for spec in all_rules():
        rule = rules[spec.id]
        assert rule["name"] == spec.name and rule["shortDescription"]["text"] == spec.summary
        assert 0 < len(rule["fullDescription"]["text"]) <= 1024
        assert rule["help"]["text"] == spec.doc and "**Why**" in rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] == LEVELS[spec.severity].sarif
        assert rule["properties"]["tags"] == list(spec.tags) and rule["properties"]["precision"]
        assert ("security-severity" in rule["properties"]) == ("security" in spec.tags)
    assert "security-severity" in rules["CTX102"]["properties"]


def test_sarif_every_rule_has_a_help_uri_at_its_rule_page(ctx, monkeypatch):
    from ctxlint import links

    rules = sarif_of(report_of(), ctx)["runs"][0]["tool"]["driver"]["rules"]
    assert [r["helpUri"] for r in rules] == [
        f"https://github.com/ctxlint/ctxlint/blob/main/docs/rules/{spec.id}.md" for spec in all_rules()]
    # one constant decides them all
    monkeypatch.setattr(links, "DOCS_BASE_URL", "https://docs.example/")
    assert sarif_of(report_of(), ctx)["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] == \
        "https://docs.example/rules/CTX001.md"


def test_sarif_clean_run_still_has_results(ctx):
    assert sarif_of(report_of(files=["deploy/a.yaml"]), ctx)["runs"][0]["results"] == []


def test_sarif_suppressed_findings_are_results_with_a_justification(ctx):
    context = ReportContext(cwd=ctx.cwd, suppressed=((finding(), "accepted risk, OPS-12"),))
    (result,) = sarif_of(report_of(), context)["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "inSource", "justification": "accepted risk, OPS-12"}]


def test_sarif_multi_line_and_unknown_ends_give_valid_regions(ctx):
    report = report_of(finding(line=8, column=5, end_line=9, end_column=3),
                       finding(line=2, column=7, end_line=2, end_column=0))
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in sarif_of(report, ctx)["runs"][0]["results"]]
    assert regions == [{"startLine": 2, "startColumn": 7, "endLine": 2, "endColumn": 8},
                       {"startLine": 8, "startColumn": 5, "endLine": 9, "endColumn": 3}]


def test_sarif_absolute_paths_inside_cwd_become_relative(ctx, in_repo):
    report = report_of(finding(file=str(in_repo / INCIDENT)))
    artifact = sarif_of(report, ctx)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": INCIDENT, "uriBaseId": "%SRCROOT%"}


# --- fingerprints survive line moves --------------------------------------------------------

def _prints(report: Report, context: ReportContext):
    from_sarif = [r["partialFingerprints"]["ctxlint/v1"] for r in sarif_of(report, context)["runs"][0]["results"]]
    from_gitlab = [i["fingerprint"] for i in json.loads(render(gitlab.write, report, context))]
    return from_sarif, from_gitlab


def test_fingerprints_are_stable_when_lines_move(ctx, in_repo):
    source = (in_repo / INCIDENT).read_text(encoding="utf-8")
    before = lint_text(source, INCIDENT)
    after = lint_text("# a new comment\n# and another\n" + source, INCIDENT)
    assert [f.line + 2 for f in before.findings] == [f.line for f in after.findings]
    assert _prints(before, ctx) == _prints(after, ctx)


def test_fingerprints_differ_by_rule_path_deployment_and_file_and_are_unique(ctx):
    base = finding()
    variants = [base, finding(rule="CTX104"), finding(path="spec.y"), finding(deployment="staging"),
                finding(file="deploy/b.yaml"), finding(line=9)]  # the last repeats base's key
    sarif_prints, gitlab_prints = _prints(report_of(*variants), ctx)
    assert sarif_prints == gitlab_prints
    assert len(set(gitlab_prints)) == len(variants)
    key = "\x1f".join(["CTX101", "deploy/a.yaml", "spec.x", "prod"])
    assert hashlib.md5(key.encode()).hexdigest() in gitlab_prints


# --- GitHub annotations ---------------------------------------------------------------------

def test_github_golden_for_hand_made_findings():
    report = report_of(finding(line=2, column=6, end_column=13, message="window too big"),
                       finding(line=1, column=1, severity="info", rule="CTX108", message="fyi"),
                       finding(line=8, column=5, end_line=9, end_column=3, severity="warning", rule="CTX002",
                               message="missing"))
    assert render(github.write, report, ReportContext()) == (
        "::error file=deploy/a.yaml,line=2,col=6,endColumn=13,title=ctxlint (CTX101)::"
        "deploy/a.yaml:2:6: CTX101 [error] window too big (window-exceeds-kv-pool)\n"
        "::warning file=deploy/a.yaml,line=8,endLine=9,title=ctxlint (CTX002)::"
        "deploy/a.yaml:8:5: CTX002 [warning] missing (window-exceeds-kv-pool)\n"
        "::notice file=deploy/a.yaml,line=1,col=1,endColumn=2,title=ctxlint (CTX108)::"
        "deploy/a.yaml:1:1: CTX108 [info] fyi (window-exceeds-kv-pool)\n"
    )


def test_github_escapes_data_and_properties():
    assert github.escape_data("50% a:b, c\r\nd") == "50%25 a:b, c%0D%0Ad"
    assert github.escape_property("50% a:b, c\r\nd") == "50%25 a%3Ab%2C c%0D%0Ad"
    report = report_of(finding(file="dir,x/a:b%.yaml", message="100% full: a, b\nsecond line"))
    (line,) = render(github.write, report, ReportContext()).splitlines()
    assert line == ("::error file=dir%2Cx/a%3Ab%25.yaml,line=3,col=5,endColumn=6,title=ctxlint (CTX101)::"
                    "dir,x/a:b%25.yaml:3:5: CTX101 [error] 100%25 full: a, b\\nsecond line (window-exceeds-kv-pool)")


def test_github_most_severe_first_and_counts_the_overflow(tmp_path):
    findings = [finding(line=n, path=f"spec.e{n}") for n in range(1, 13)]
    findings += [finding(line=20 + n, severity="warning", rule="CTX106") for n in range(3)]
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    out = render(github.write, report_of(*findings), ReportContext(step_summary_path=str(summary)))
    lines = out.splitlines()
    assert [l.split()[0] for l in lines[:13]] == ["::error"] * 10 + ["::warning"] * 3
    assert lines[13] == ("ctxlint: 2 more errors beyond the first 10 per level (GitHub shows 10 annotations "
                         "per level per step); all findings are in the step summary:")
    assert lines[14:] == ["deploy/a.yaml:11:5: CTX101 [error] too big (window-exceeds-kv-pool)",
                          "deploy/a.yaml:12:5: CTX101 [error] too big (window-exceeds-kv-pool)"]
    written = summary.read_text(encoding="utf-8")
    assert written.startswith("earlier step\n### ctxlint: 12 errors, 3 warnings in 1 file, 0 deployments\n")
    assert written.count("\n| error | CTX101") == 12 and written.count("\n| warning | CTX106") == 3


def test_github_writes_no_summary_without_a_path_and_nothing_when_clean(tmp_path):
    assert render(github.write, report_of(files=["a.yaml"]), ReportContext()) == ""


# --- concise --------------------------------------------------------------------------------

def test_concise_cuts_the_message_to_the_width_and_keeps_the_location():
    from ctxlint.reporters import concise

    long = finding(message="1,048,576 > 681,280: the longest prompt exceeds the prefill KV pool by 367,296 tokens")
    report = report_of(long, finding(line=4, message="short", severity="warning"))
    # cut at the last whole word that fits, with an ellipsis; a short finding is whole
    assert render(concise.write, report, ReportContext(width=80)) == (
        "deploy/a.yaml:3:5: CTX101 [error] 1,048,576 > 681,280: the longest prompt…\n"
        "deploy/a.yaml:4:5: CTX101 [warning] short (window-exceeds-kv-pool)\n")
    assert render(concise.write, report_of(long), ReportContext(width=78)) == \
        "deploy/a.yaml:3:5: CTX101 [error] 1,048,576 > 681,280: the longest prompt…\n"
    # no width (0): the whole line, as `text` prints it
    assert render(concise.write, report, ReportContext(width=0)) == render(text.write, report)
    # a narrow terminal still shows the start of the message
    assert render(concise.write, report_of(long), ReportContext(width=10)) == \
        "deploy/a.yaml:3:5: CTX101 [error] 1,048,576 > 681,280…\n"


def test_concise_takes_the_width_from_columns(in_repo, monkeypatch):
    from helpers import run

    monkeypatch.setenv("COLUMNS", "100")
    out = run(["check", INCIDENT, "--format", "concise"]).out
    assert out.splitlines() == [
        "samples/incident/deployment.yaml:13:21: CTX102 [error] security: prompts up to 1,048,576 tokens…",
        "samples/incident/deployment.yaml:17:14: CTX401 [error] CTXA-2026-001: SGLang PD disaggregation…",
        "samples/incident/deployment.yaml:24:25: CTX101 [error] 1,048,576 > 681,280: the longest prompt (the…"]
    assert max(len(line) for line in out.splitlines()) == 100


# --- JUnit ----------------------------------------------------------------------------------

def parse_junit(out: str) -> ET.Element:
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    return ET.fromstring(out.encode("utf-8"))


def test_junit_incident_structure(incident, ctx):
    root = parse_junit(render(junit.write, incident, ctx))
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == INCIDENT and suite.get("failures") == "3"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [
        "CTX102 spec.advertised.context_window [coder-moe-prod]",
        "CTX401 spec.engine.version [coder-moe-prod]",
        "CTX101 spec.serving.roles[0].kv_pool_tokens [coder-moe-prod]",
    ]
    for case in cases:
        family = "advisory" if case.get("name").startswith("CTX4") else "capacity"
        assert case.get("classname") == f"ctxlint-{family}" and suite.get("file") == INCIDENT
        assert case.get("time") == "0" and "." not in case.get("classname")
        assert case.find("failure").get("type") == "error"
    assert cases[2].find("failure").text.startswith(f"{INCIDENT}:24:25: CTX101 [error] ")


def test_junit_names_are_unique_and_families_named():
    report = report_of(finding(rule="CTX001", path="", deployment=None), finding(line=9, rule="CTX001", path="",
                       deployment=None), finding(rule="CTX301"), finding(rule="CTX205"), finding(rule="CTX499"),
                       finding(file="b.yaml", message="bad \x00 <&> ]]>"))
    root = parse_junit(render(junit.write, report, ReportContext()))
    cases = root.iter("testcase")
    pairs = [(c.get("name"), c.get("classname")) for c in cases]
    names = [n for n, _ in pairs]
    assert len(names) == len(set(names))
    assert pairs == [("CTX101 spec.x [prod]", "ctxlint-capacity"),  # b.yaml sorts first
                     ("CTX001 (file)", "ctxlint-input"), ("CTX205 spec.x [prod]", "ctxlint-hardware"),
                     ("CTX301 spec.x [prod]", "ctxlint-engine"), ("CTX499 spec.x [prod]", "ctxlint-advisory"),
                     ("CTX001 (file) #2", "ctxlint-input")]
    # XML-illegal characters are replaced, markup characters escaped, so the text survives a parse.
    assert root.find("testsuite/testcase/failure").get("message") == "bad \ufffd <&> ]]>"
    assert root.get("tests") == "6" and root.get("failures") == "6"


def test_junit_clean_run_is_a_valid_document_with_passing_tests():
    root = parse_junit(render(junit.write, report_of(files=["a.yaml", "b.yaml"]), ReportContext()))
    assert root.get("tests") == "2" and root.get("failures") == "0"
    cases = list(root.iter("testcase"))
    assert [c.get("name") for c in cases] == ["ctxlint a.yaml", "ctxlint b.yaml"]
    assert all(len(c) == 0 for c in cases)


def test_junit_suppressed_findings_are_skipped_tests():
    context = ReportContext(suppressed=((finding(), "accepted"),))
    root = parse_junit(render(junit.write, report_of(files=["deploy/a.yaml"]), context))
    (case,) = root.iter("testcase")
    assert case.find("skipped").get("message") == "suppressed: accepted"
    assert root.find("testsuite").get("skipped") == "1"


# The attributes and children junit-10.xsd (Jenkins xunit plugin; GitLab reads a subset) allows,
# and the attributes it requires: a testcase has no `file`, a testsuites no `skipped`.
JUNIT_10 = {
    "testsuites": ({"name", "time", "tests", "failures", "errors"}, set(), {"testsuite"}),
    "testsuite": ({"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id",
                   "package", "file", "log", "url"}, {"name", "tests", "failures", "errors"},
                  {"testsuite", "properties", "testcase", "system-out", "system-err"}),
    "testcase": ({"name", "time", "classname", "group"}, {"name"},
                 {"skipped", "error", "failure", "system-out", "system-err"}),
    "failure": ({"type", "message"}, set(), set()),
    "skipped": ({"type", "message"}, set(), set()),
    "system-out": (set(), set(), set()),
}


def junit_10_problems(element: ET.Element) -> list:
    allowed, required, children = JUNIT_10[element.tag]
    problems = [f"{element.tag}@{a}" for a in set(element.attrib) - allowed]
    problems += [f"{element.tag} without @{a}" for a in required - set(element.attrib)]
    for child in element:
        problems += [f"{child.tag} in {element.tag}"] if child.tag not in children else junit_10_problems(child)
    return problems


def test_junit_follows_the_jenkins_xunit_schema_and_fail_on():
    # Issue 13 item 9: `file` on testcase and `skipped` on testsuites failed junit-10.xsd, and
    # info findings were failures in a run that exited 0.
    report = report_of(finding(), finding(line=4, severity="warning", rule="CTX205"),
                       finding(line=5, severity="info", rule="CTX208"))
    context = ReportContext(suppressed=((finding(line=6, rule="CTX102"), "accepted"),), fail_on="warning")
    root = parse_junit(render(junit.write, report, context))
    assert junit_10_problems(root) == []
    cases = {c.get("name").split()[0]: c for c in root.iter("testcase")}
    assert {rule: [child.tag for child in case] for rule, case in cases.items()} == {
        "CTX101": ["failure"], "CTX205": ["failure"], "CTX208": ["system-out"], "CTX102": ["skipped"]}
    assert cases["CTX208"].find("system-out").text == \
        "deploy/a.yaml:5:5: CTX208 [info] too big (window-exceeds-kv-pool)"
    assert (root.get("tests"), root.get("failures")) == ("4", "2")
    assert root.find("testsuite").attrib == {"name": "deploy/a.yaml", "file": "deploy/a.yaml", "time": "0",
                                             "tests": "4", "failures": "2", "errors": "0", "skipped": "1"}
    never = parse_junit(render(junit.write, report, ReportContext(fail_on="never")))
    assert never.get("failures") == "0" and not list(never.iter("failure"))


def test_junit_failures_follow_the_cli_fail_on(in_repo):
    from helpers import run

    default = parse_junit(run(["check", "samples/rules/CTX008-unresolved-value/bad.yaml", "--format", "junit"]).out)
    assert default.get("failures") == "0" and [c.tag for c in default.iter("testcase") for c in c] == ["system-out"]
    strict = parse_junit(run(["check", "samples/rules/CTX008-unresolved-value/bad.yaml", "--format", "junit",
                              "--fail-on", "info"]).out)
    assert strict.get("failures") == "1"


# --- GitLab Code Quality and Markdown -------------------------------------------------------

def test_gitlab_code_quality_entries(ctx, in_repo):
    report = report_of(finding(file=str(in_repo / "deploy/a.yaml")), finding(line=4, severity="warning"),
                       finding(line=5, severity="info", rule="CTX108"))
    items = json.loads(render(gitlab.write, report, ctx))
    assert [i["severity"] for i in items] == ["major", "minor", "info"]
    assert {i["location"]["path"] for i in items} == {"deploy/a.yaml"}
    assert items[0] == {"description": "CTX101 too big (window-exceeds-kv-pool)", "check_name": "CTX101",
                        "fingerprint": items[0]["fingerprint"], "severity": "major",
                        "location": {"path": "deploy/a.yaml", "lines": {"begin": 3}}}
    assert all(re.fullmatch(r"[0-9a-f]{32}", i["fingerprint"]) for i in items)
    assert json.loads(render(gitlab.write, report_of(), ctx)) == []


def test_markdown_golden_with_escaping():
    report = report_of(finding(message="a | b\nc <string>"),
                       finding(line=7, severity="warning", rule="CTX106", message="plain"))
    assert render(markdown.write, report, ReportContext()) == (
        "### ctxlint: 1 error, 1 warning in 1 file, 0 deployments\n"
        "\n"
        "| severity | rule | location | message |\n"
        "|---|---|---|---|\n"
        "| error | CTX101 window-exceeds-kv-pool | deploy/a.yaml:3:5 | a \\| b\\\\nc &lt;string> |\n"
        "| warning | CTX106 window-exceeds-kv-pool | deploy/a.yaml:7:5 | plain |\n"
    )
    assert render(markdown.write, report_of(files=["a.yaml"])) == "### ctxlint: no findings in 1 file, 0 deployments\n"


# --- values quoted from a config cannot break a line-oriented format ------------------------------------

HOSTILE = "model 'x\n::error file=evil::injected\r\x1b[31mred\u202egnp.\u2028\x85' is not in the catalog"
UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("fmt", ["text", "concise", "full", "github", "markdown"])
def test_control_characters_in_a_message_or_path_are_written_as_escapes(fmt):
    hostile = finding(file="deploy/a\nb.yaml", message=HOSTILE)
    report = report_of(hostile, finding(line=9))
    out = render(REPORTERS[fmt], report, ReportContext(width=0, color=False))
    assert not UNPRINTABLE.search(out.replace("\r\n", "\n"))
    shown = "\\n::error file=evil::injected\\r\\x1b[31mred\\u202egnp.\\u2028\\x85'"
    assert (shown.replace("\\", "\\\\") if fmt == "markdown" else shown) in out  # markdown doubles a backslash
    lines = [line for line in out.splitlines() if "::error file=evil" in line]
    assert len(lines) == 1 and not lines[0].startswith("::error file=evil")
    assert json.loads(render(REPORTERS["json"], report))["findings"][0]["message"] in (HOSTILE, finding().message)


def test_full_snippet_writes_a_lines_control_characters_as_escapes_and_keeps_the_caret_under_the_value():
    # a comment and a quoted value may hold any character; the snippet echoes the line to a terminal
    source = 'a: "\x1b[2J\x07"  # \u202eevil\nkv: "\x1b]0;t\x07681280"\n'
    report = report_of(finding(line=1, column=4, end_column=11), finding(line=2, column=5, end_column=19))
    out = render(full.write, report, ReportContext(sources=MappingProxyType({"deploy/a.yaml": source})))
    assert not UNPRINTABLE.search(out)
    assert ' 1 | a: "\\x1b[2J\\x07"  # \\u202eevil\n   |    ^^^^^^^^^^^^^\n' in out
    assert ' 2 | kv: "\\x1b]0;t\\x07681280"\n   |     ^^^^^^^^^^^^^^^^^^^^\n' in out
    assert "\ndeploy/a.yaml         2" in out  # the summary table's row
