"""The GitHub Action (action.yml) runs in CI as GitHub would run it: each `run:` step's script,
with its `${{ }}` expressions substituted, under `bash --noprofile --norc -eo pipefail`, in a
fresh virtual environment that the install step fills from the action's own path (a copy of this
working tree), on a workspace holding samples. The SARIF it leaves for the upload step validates
against the SARIF 2.1.0 schema. The `uses:` steps (setup-python, upload-sarif) are GitHub's own:
their inputs are checked, not run. pip needs the package registry, as the pre-commit test does.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Dict, Optional

import jsonschema
import pytest
import yaml

from conftest import REPO, SHARED

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
STEPS = ACTION["runs"]["steps"]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
SARIF_SCHEMA = SHARED / "reference" / "sarif" / "sarif-schema-2.1.0.json"
BAD = REPO / "samples" / "incident" / "deployment.yaml"
GOOD = REPO / "samples" / "incident-fixed" / "deployment.yaml"


class Runner:
    """Just enough of the Actions runner for a composite action's steps."""

    def __init__(self, action_path: Path, bin_dir: Path, workspace: Path, inputs: Dict[str, str]):
        self.action_path, self.bin_dir, self.workspace = action_path, bin_dir, workspace
        declared = ACTION["inputs"]
        assert set(inputs) <= set(declared), set(inputs) - set(declared)
        self.inputs = {name: str(spec.get("default", "")) for name, spec in declared.items()}
        self.inputs.update(inputs)
        self.outputs: Dict[str, Dict[str, str]] = {}
        self.summary = workspace.parent / "step-summary.md"

    def value(self, expression: str) -> str:
        if expression.startswith("inputs."):
            return self.inputs[expression[len("inputs."):]]
        if expression == "github.action_path":
            return str(self.action_path)
        match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        if match:
            return self.outputs.get(match.group(1), {}).get(match.group(2), "")
        raise AssertionError(f"action.yml uses an expression this runner does not model: {expression}")

    def expand(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: self.value(m.group(1)), text)

    def condition(self, text: Optional[str]) -> bool:
        """`if:` as the action writes it: comparisons joined by &&."""
        if text is None:
            return True
        results = []
        for part in EXPRESSION.sub(lambda m: m.group(1), text).split("&&"):
            match = re.fullmatch(r"\s*([\w.-]+)\s*(==|!=)\s*'([^']*)'\s*", part)
            assert match, f"unsupported condition: {part}"
            equal = self.value(match.group(1)) == match.group(3)
            results.append(equal if match.group(2) == "==" else not equal)
        return all(results)

    def run_step(self, step: dict) -> subprocess.CompletedProcess:
        assert step["shell"] == "bash"
        script = self.workspace.parent / "step.sh"
        script.write_text(self.expand(step["run"]), encoding="utf-8")
        output = self.workspace.parent / "github-output"
        output.write_text("", encoding="utf-8")
        env = {key: value for key, value in os.environ.items() if not key.startswith(("GITHUB_", "PYTHON"))}
        env.update({key: self.expand(str(value)) for key, value in step.get("env", {}).items()})
        env.update(PATH=f"{self.bin_dir}{os.pathsep}{os.environ['PATH']}", GITHUB_ACTIONS="true",
                   GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(self.summary),
                   GITHUB_WORKSPACE=str(self.workspace), GITHUB_ACTION_PATH=str(self.action_path))
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                              cwd=self.workspace, env=env, capture_output=True, text=True, timeout=900)
        if "id" in step:
            lines = output.read_text(encoding="utf-8").splitlines()
            self.outputs[step["id"]] = dict(line.split("=", 1) for line in lines if "=" in line)
        return proc


def step_named(name: str) -> dict:
    (step,) = [s for s in STEPS if s.get("name") == name]
    return step


def test_action_shape():
    assert ACTION["runs"]["using"] == "composite"
    assert [s.get("uses", s.get("name")) for s in STEPS] == [
        "actions/setup-python@v5", "Install ctxlint", "Run ctxlint", "github/codeql-action/upload-sarif@v4",
        "Fail on findings"]
    upload = step_named("Upload SARIF")
    assert upload["uses"] == "github/codeql-action/upload-sarif@v4"
    assert upload["with"] == {"sarif_file": "${{ inputs.sarif-file }}", "category": "${{ inputs.category }}"}
    assert STEPS[0]["with"] == {"python-version": "${{ inputs.python-version }}"}
    text = (REPO / "action.yml").read_text(encoding="utf-8")
    used = set(re.findall(r"inputs\.([\w-]+)", text))
    assert used == set(ACTION["inputs"]), "every input is used, and only declared ones"
    for step in STEPS:  # inputs reach scripts through env only (no script injection)
        assert "${{" not in step.get("run", "")


def _python_with_pip(target: Path) -> None:
    """A fresh virtual environment with pip, as setup-python leaves a Python with pip on PATH.
    virtualenv (which pre-commit, in the test extra, brings) links pip from its cache in ~1 s;
    the standard library's venv runs ensurepip, which takes 5 to 12 s on a 2-core machine."""
    if importlib.util.find_spec("virtualenv") is not None:
        subprocess.run([sys.executable, "-m", "virtualenv", "-q", str(target)], check=True, capture_output=True)
    else:
        venv.EnvBuilder(with_pip=True).create(target)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The install step, run once: a fresh venv (what setup-python puts on PATH) filled from a
    copy of this working tree (the action's path)."""
    root = tmp_path_factory.mktemp("action")
    action_path = root / "action"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (action_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, action_path / name)
    _python_with_pip(root / "venv")
    bin_dir = root / "venv" / ("Scripts" if sys.platform == "win32" else "bin")
    workspace = root / "workspace"
    workspace.mkdir()
    runner = Runner(action_path, bin_dir, workspace, {})
    proc = runner.run_step(step_named("Install ctxlint"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (bin_dir / "ctxlint").exists()
    return action_path, bin_dir, root


def run_action(installed, name: str, files: Dict[str, Path], inputs: Dict[str, str]) -> Runner:
    action_path, bin_dir, root = installed
    workspace = root / name
    for target, source in files.items():
        (workspace / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, workspace / target)
    runner = Runner(action_path, bin_dir, workspace, inputs)
    runner.check = runner.run_step(step_named("Run ctxlint"))
    assert runner.check.returncode == 0, runner.check.stderr  # the check step itself never fails
    runner.uploads = runner.condition(step_named("Upload SARIF").get("if"))
    runner.final = runner.run_step(step_named("Fail on findings"))
    return runner


def valid_sarif(path: Path) -> dict:
    sarif = json.loads(path.read_text(encoding="utf-8"))
    if SARIF_SCHEMA.is_file():
        jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    return sarif


def test_findings_are_uploaded_then_fail_the_job(installed):
    runner = run_action(installed, "bad", {"deploy/bad.yaml": BAD, "deploy/good.yaml": GOOD}, {"paths": "deploy"})
    assert runner.outputs["check"] == {"exit-code": "1"}
    assert "::error file=deploy/bad.yaml,line=24,col=25," in runner.check.stdout  # an annotation on the value
    assert "CTX101" in runner.summary.read_text(encoding="utf-8")
    assert runner.uploads
    sarif = valid_sarif(runner.workspace / runner.expand(step_named("Upload SARIF")["with"]["sarif_file"]))
    results = sarif["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == ["CTX101", "CTX102", "CTX401"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {"deploy/bad.yaml"}
    assert runner.final.returncode == 1


def test_clean_run_uploads_and_passes(installed):
    runner = run_action(installed, "good", {"deploy/good.yaml": GOOD},
                        {"paths": "deploy", "format": "text", "sarif-file": "clean.sarif", "args": "--jobs 1"})
    assert runner.outputs["check"] == {"exit-code": "0"} and runner.uploads and runner.final.returncode == 0
    assert runner.check.stdout == ""  # text: nothing to say
    assert valid_sarif(runner.workspace / "clean.sarif")["runs"][0]["results"] == []


def test_configuration_error_skips_the_upload_and_fails(installed):
    runner = run_action(installed, "usage", {"deploy/good.yaml": GOOD}, {"paths": "deploy", "fail-on": "sometimes"})
    assert runner.outputs["check"] == {"exit-code": "2"}
    assert not runner.uploads and runner.final.returncode == 2
    assert not (runner.workspace / "ctxlint.sarif").exists()
