"""The README's CI snippets work as written: they install ctxlint the way it can be installed
(from the repository, not an index that lacks it), and their `ctxlint` commands run and write the
reports the next steps upload.
"""
from __future__ import annotations

import json
import re
import shlex
import shutil

import jsonschema
import pytest
import yaml

from conftest import REPO, SHARED
from helpers import run

README = (REPO / "README.md").read_text(encoding="utf-8")
ARCHIVE = "https://github.com/<org>/ctxlint/archive/refs/tags/v"
SARIF_SCHEMA = SHARED / "reference" / "sarif" / "sarif-schema-2.1.0.json"


def snippet(title: str) -> dict:
    """The YAML block under a README heading, parsed as GitHub or GitLab would."""
    section = README[README.index(f"### {title}\n"):]
    return yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))


def github_steps():
    return [step["run"] for step in snippet("GitHub Actions")["jobs"]["ctxlint"]["steps"] if "run" in step]


def gitlab_steps():
    return snippet("GitLab CI")["ctxlint"]["script"]


def test_no_snippet_installs_ctxlint_from_a_package_index():
    installs = [line for line in README.splitlines() if "pip install" in line]
    assert installs and not [line for line in installs if re.search(r"pip install ['\"]?ctxlint\b(?![/@.])", line)
                             and "fails" not in line]
    for steps in (github_steps(), gitlab_steps()):
        assert steps[0].startswith(f"python -m pip install {ARCHIVE}") and steps[0].endswith(".tar.gz")


@pytest.mark.parametrize("steps", [github_steps, gitlab_steps], ids=["github", "gitlab"])
def test_ci_snippet_commands_run_and_write_their_reports(steps, tmp_path, monkeypatch):
    (tmp_path / "deploy").mkdir()
    shutil.copy2(REPO / "samples" / "incident" / "deployment.yaml", tmp_path / "deploy" / "bad.yaml")
    monkeypatch.chdir(tmp_path)
    (command,) = [s for s in steps() if s.startswith("ctxlint ")]
    result = run(shlex.split(command)[1:])
    assert result.code == 1  # the sample is the incident: the job fails, after writing its reports
    outputs = re.findall(r"--output (\S+)", command)
    assert outputs and all((tmp_path / name).is_file() for name in outputs)
    if "ctxlint.sarif" in outputs and SARIF_SCHEMA.is_file():
        sarif = json.loads((tmp_path / "ctxlint.sarif").read_text(encoding="utf-8"))
        jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
        assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"CTX101", "CTX102", "CTX401"}
    if "gl-code-quality-report.json" in outputs:
        assert len(json.loads((tmp_path / "gl-code-quality-report.json").read_text(encoding="utf-8"))) == 3
