"""`check --fix` / `--diff`: mechanical, certain fixes of values an engine refuses (CTX301),
shown as a diff or written, idempotent, and never anything else."""
from __future__ import annotations

import os
import shutil

import pytest

from conftest import REPO, SHARED
from ctxlint.config import load_config
from ctxlint.engine import lint_paths
from ctxlint.engines.suffixes import suffix_fix
from ctxlint.fixes import apply_to_text
from ctxlint.findings import Finding, Fix
from helpers import run

WORKLOADS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: sgl}
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.17
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--context-length", "128K", "--enable-metrics=false"]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.9.2
          args:
            - --model=meta-llama/Llama-3.1-8B-Instruct
            - --enable-chunked-prefill=false
            - --enable-prefix-caching=True
            - "--max-model-len=8k"
"""
DIFF = """\
--- a/deploy.yaml
+++ b/deploy.yaml
@@ -8,7 +8,7 @@
         - name: sglang
           image: lmsysorg/sglang:v0.5.17
           command: ["python3", "-m", "sglang.launch_server"]
-          args: ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--context-length", "128K", "--enable-metrics=false"]
+          args: ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--context-length", "128Ki", "--enable-metrics=false"]
 ---
 apiVersion: apps/v1
 kind: Deployment
@@ -21,6 +21,6 @@
           image: vllm/vllm-openai:v0.9.2
           args:
             - --model=meta-llama/Llama-3.1-8B-Instruct
-            - --enable-chunked-prefill=false
-            - --enable-prefix-caching=True
+            - --no-enable-chunked-prefill
+            - --enable-prefix-caching
             - "--max-model-len=8k"
"""
REMAINS = ("deploy.yaml:11:100: CTX301 [error] sglang would refuse to start: argument --enable-metrics: "
           "ignored explicit argument 'false' (engine-rejects-value)\n")


@pytest.fixture
def deploy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "deploy.yaml"
    path.write_text(WORKLOADS, encoding="utf-8")
    return path


def test_diff_shows_the_fixes_and_writes_nothing(deploy):
    result = run(["check", "deploy.yaml", "--select", "CTX301", "--diff"])
    assert (result.code, result.out, result.err) == (1, DIFF, "ctxlint: 3 findings fixable with --fix in 1 file\n")
    assert deploy.read_text(encoding="utf-8") == WORKLOADS


def test_fix_writes_them_keeps_the_mode_and_reports_what_remains(deploy):
    os.chmod(deploy, 0o640)
    result = run(["check", "deploy.yaml", "--select", "CTX301", "--fix"])
    assert result.code == 1 and result.out == REMAINS  # --enable-metrics has no --no- spelling: left alone
    assert result.err == "ctxlint: fixed 3 findings in 1 file\nctxlint: 1 error in 1 file, 2 deployments\n"
    fixed = deploy.read_text(encoding="utf-8")
    assert fixed == WORKLOADS.replace('"128K"', '"128Ki"').replace(
        "--enable-chunked-prefill=false", "--no-enable-chunked-prefill").replace(
        "--enable-prefix-caching=True", "--enable-prefix-caching")
    assert os.stat(deploy).st_mode & 0o777 == 0o640
    again = run(["check", "deploy.yaml", "--select", "CTX301", "--fix"])  # idempotent
    assert (again.code, again.out) == (1, REMAINS) and again.err.startswith("ctxlint: nothing to fix\n")
    assert deploy.read_text(encoding="utf-8") == fixed
    assert run(["check", "deploy.yaml", "--diff"]).code == 0


def test_fix_in_a_native_manifest_and_a_shell_string(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy2(REPO / "samples" / "rules" / "CTX301-engine-rejects-value" / "bad.yaml", "native.yaml")
    (tmp_path / "compose.yaml").write_text(
        "services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.17\n    command: >\n"
        "      bash -c \"python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct\n"
        "      --context-length 64K --enable-metrics=true\"\n"
        "  vllm:\n    image: vllm/vllm-openai:v0.9.0\n"
        "    command: [\"--model\", \"m/x\", \"--enable-chunked-prefill='false'\"]\n", encoding="utf-8")
    result = run(["check", "native.yaml", "compose.yaml", "--select", "CTX301", "--fix"])
    assert result.err.startswith("ctxlint: fixed 3 findings in 2 files\n")
    assert "context_length: 128Ki  #" in (tmp_path / "native.yaml").read_text(encoding="utf-8")
    compose = (tmp_path / "compose.yaml").read_text(encoding="utf-8")
    assert "--context-length 64Ki --enable-metrics\"\n" in compose
    # Quoted inside the shell word, the file does not hold what vLLM reads: no edit, still reported.
    assert "\"--enable-chunked-prefill='false'\"" in compose
    assert result.out.count("CTX301") == 1 and "ignored explicit argument \"'false'\"" in result.out


@pytest.mark.parametrize("image", ["vllm/vllm-openai:v0.9.0", "vllm/vllm-openai:latest", "vllm/vllm-openai:v0.6.3"])
def test_no_spelling_only_on_a_vllm_release_known_to_have_it(deploy, image):
    # Before its switches were BooleanOptionalAction, vLLM read --x=false itself and had no --no-x.
    deploy.write_text(WORKLOADS.replace("vllm/vllm-openai:v0.9.2", image), encoding="utf-8")
    result = run(["check", "deploy.yaml", "--select", "CTX301", "--diff"])
    assert "+            - --enable-prefix-caching\n" in result.out  # =true: the bare switch, in every release
    assert "--no-enable-chunked-prefill" not in result.out
    assert result.err == "ctxlint: 2 findings fixable with --fix in 1 file\n"


def test_stdin_cannot_be_fixed():
    result = run(["check", "-", "--fix"], stdin=WORKLOADS.encode())
    assert result.code == 2 and "--fix needs files" in result.err


@pytest.mark.parametrize("rule,text,fixed", [
    ("sglang", "128K", "128Ki"), ("sglang", "1K", "1Ki"), ("sglang", "128k", None), ("sglang", "1M", None),
    ("sglang", "1.5K", None), ("sglang", "128KB", None), ("sglang", " 128K", None), ("vllm", "128K", None),
    ("clap", "4k", None),
])
def test_suffix_fix_only_where_the_meaning_is_certain(rule, text, fixed):
    assert suffix_fix(rule, text) == fixed


def test_an_edit_applies_only_where_the_text_still_is():
    finding = Finding("f.yaml", 2, 5, "CTX301", "engine-rejects-value", "error", "m", end_line=2, end_column=9,
                      fix=Fix("128K", "128Ki"))
    assert apply_to_text("a\n  - 128K\n", [finding]) == ("a\n  - 128Ki\n", 1)
    assert apply_to_text("a\n  - 256K\n", [finding]) == ("a\n  - 256K\n", 0)  # edited since the check
    assert apply_to_text("a\r\n  - 128K\r\n", [finding]) == ("a\r\n  - 128Ki\r\n", 1)  # line endings kept


@pytest.mark.parametrize("folder", [REPO / "samples", SHARED / "corpus" / "real", SHARED / "corpus" / "gateways"],
                         ids=["samples", "real", "gateways"])
def test_only_engine_refusals_carry_fixes(folder):
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here")
    settings = load_config(str(REPO), isolated=True).settings()
    report = lint_paths([str(folder)], settings)
    fixes = [f for f in report.findings if f.fix is not None]
    assert all(f.rule == "CTX301" for f in fixes), {f.rule for f in fixes}
    assert all(f.fix.old != f.fix.new for f in fixes)
