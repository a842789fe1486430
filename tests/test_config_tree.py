"""Each file is checked under the config closest to it (ruff's hierarchical discovery); --config overrides.

Two projects, each its own repository and `.ctxlint.yaml`, hold the same launch script. Before, the
config found from the first path applied to every file: the same deployment's pool read 25,440 or
438,832 tokens depending on argument order.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ctxlint import config_discovery
from ctxlint.config_discovery import ConfigFinder, find_config
from helpers import run

SCRIPT = "#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072\n"
L4_POOL, A100_POOL = 25_440, 438_832  # the script's KV pool on each project's default accelerator


@pytest.fixture()
def fleet(tmp_path, monkeypatch):
    """fleet/a (L4) and fleet/b (A100 80 GB), each a repository with deploy/serve.sh; cwd = fleet."""
    for name, device in (("a", "L4"), ("b", "A100-SXM4-80GB")):
        (tmp_path / name / ".git").mkdir(parents=True)
        (tmp_path / name / "deploy").mkdir()
        (tmp_path / name / ".ctxlint.yaml").write_text(f"default-accelerator: {device}\n")
        (tmp_path / name / "deploy" / "serve.sh").write_text(SCRIPT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes(out: str):
    return sorted((line.split(":")[0], line.split(" ")[1]) for line in out.splitlines())


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
def test_check_judges_each_project_by_its_own_config(fleet, order, jobs):
    result = run(["check", "--jobs", jobs, *order])
    assert codes(result.out) == [("a/deploy/serve.sh", "CTX201")]  # L4 is too small; the A100 holds it
    assert result.code == 1
    assert result.err == "ctxlint: 1 error in 2 files, 2 deployments\n"
    # exactly what each project's own run says
    alone = run(["check", "a"]).out + run(["check", "b"]).out
    assert result.out == alone


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
def test_audit_reads_each_pool_under_its_own_config(fleet, order, jobs):
    result = run(["audit", "--format", "json", "--jobs", jobs, *order])
    assert result.code == 0, result.err
    pools = {d["file"]: d["prefill_pool"]["tokens"] for d in json.loads(result.out)["deployments"]}
    assert pools == {"a/deploy/serve.sh": L4_POOL, "b/deploy/serve.sh": A100_POOL}


def test_a_tree_of_projects_gets_each_its_config(fleet):
    # one path above both projects: no config at the top, each file finds its own
    result = run(["audit", "--format", "json", "."])
    pools = {d["file"]: d["prefill_pool"]["tokens"] for d in json.loads(result.out)["deployments"]}
    assert pools == {"a/deploy/serve.sh": L4_POOL, "b/deploy/serve.sh": A100_POOL}


def test_the_plain_parser_runs_the_same(fleet):
    # `check` with plain arguments runs without click (cli_check.main)
    for order in (["a", "b"], ["b", "a"]):
        done = subprocess.run([sys.executable, "-m", "ctxlint", "check", *order], capture_output=True, text=True)
        assert codes(done.stdout) == [("a/deploy/serve.sh", "CTX201")], done.stderr
        assert done.returncode == 1


def test_config_overrides_every_file(fleet):
    result = run(["check", "--config", "a/.ctxlint.yaml", "b", "a"])
    assert codes(result.out) == [("a/deploy/serve.sh", "CTX201"), ("b/deploy/serve.sh", "CTX201")]
    result = run(["check", "--config", "b/.ctxlint.yaml", "a", "b"])
    assert codes(result.out) == []
    # --isolated: no file at all, so no device is assumed and the pool is not derivable (info)
    result = run(["check", "--isolated", "a", "b"])
    assert codes(result.out) == [("a/deploy/serve.sh", "CTX208"), ("b/deploy/serve.sh", "CTX208")]


def test_flags_go_on_top_of_every_config(fleet):
    result = run(["check", "--select", "CTX208", "b", "a"])
    assert (result.out, result.code) == ("", 0)
    result = run(["check", "--fail-on", "never", "b", "a"])
    assert codes(result.out) == [("a/deploy/serve.sh", "CTX201")] and result.code == 0


def test_each_project_keeps_its_own_severities_and_fail_on(fleet):
    (fleet / "a" / ".ctxlint.yaml").write_text("default-accelerator: L4\nseverity: {CTX201: warning}\n")
    result = run(["check", "b", "a"])
    assert result.out.startswith("a/deploy/serve.sh:2:61: CTX201 [warning] ") and result.code == 0
    (fleet / "a" / ".ctxlint.yaml").write_text("default-accelerator: L4\nseverity: {CTX201: warning}\n"
                                               "fail-on: warning\n")
    assert run(["check", "b", "a"]).code == 1  # a's gate is its own, even when b comes first
    (fleet / "b" / ".ctxlint.yaml").write_text("default-accelerator: L4\nfail-on: never\n")
    (fleet / "a" / ".ctxlint.yaml").write_text("default-accelerator: A100-SXM4-80GB\n")
    result = run(["check", "b", "a"])
    assert codes(result.out) == [("b/deploy/serve.sh", "CTX201")] and result.code == 0  # b never fails


def test_each_project_keeps_its_own_excludes(fleet):
    (fleet / "b" / ".ctxlint.yaml").write_text("default-accelerator: L4\nextend-exclude: ['deploy/**']\n")
    result = run(["check", "a", "b"])
    assert codes(result.out) == [("a/deploy/serve.sh", "CTX201")]
    assert result.err == "ctxlint: 1 error in 1 file, 1 deployment\n"


@pytest.mark.parametrize("command", [["check"], ["check", "--jobs", "2"], ["audit"], ["audit", "--jobs", "2"]])
def test_a_broken_config_in_one_project_is_a_config_error(fleet, command):
    (fleet / "b" / ".ctxlint.yaml").write_text("default-accelerator: L4\nfail-on: sometimes\n")
    result = run([*command, "a", "b"])
    assert result.code == 2 and result.out == ""
    assert result.err.startswith(f"ctxlint: config error: {os.path.join(str(fleet), 'b', '.ctxlint.yaml')}:2:")


def test_stdin_uses_the_config_closest_to_its_stdin_filename(fleet):
    result = run(["check", "-", "--stdin-filename", "b/deploy/serve.sh"], stdin=SCRIPT.encode())
    assert (result.out, result.code) == ("", 0)  # b's A100, not the working directory's (no) config
    result = run(["check", "-", "--stdin-filename", "a/deploy/serve.sh"], stdin=SCRIPT.encode())
    assert codes(result.out) == [("a/deploy/serve.sh", "CTX201")]


def test_baseline_accepts_what_check_reports(fleet):
    assert run(["baseline", "create", "--baseline", "base.json", "b", "a"]).code == 0
    entries = json.loads((fleet / "base.json").read_text())["entries"]
    assert [(e["file"], e["rule"]) for e in entries] == [("a/deploy/serve.sh", "CTX201")]
    assert run(["check", "--baseline", "base.json", "b", "a"]).code == 0


def test_one_walk_per_directory(tmp_path, monkeypatch):
    # a 10,000-file tree must not walk up the directory chain per file
    (tmp_path / ".git").mkdir()
    (tmp_path / ".ctxlint.yaml").write_text("{}\n")
    (tmp_path / "x" / "y").mkdir(parents=True)
    (tmp_path / "x" / ".ctxlint.yml").write_text("{}\n")
    asked = []
    real = config_discovery.config_in
    monkeypatch.setattr(config_discovery, "config_in", lambda d: asked.append(d) or real(d))
    finder = ConfigFinder()
    starts = ("x/y", "x/y", "x", ".", "x/y")
    found = [finder.find(str(tmp_path / start)) for start in starts]
    assert sorted(asked) == sorted(str(tmp_path / d) for d in ("x/y", "x", "."))  # each directory once
    assert found == [find_config(str(tmp_path / start)) for start in starts]
    assert found[0] == str(tmp_path / "x" / ".ctxlint.yml") and found[3] == str(tmp_path / ".ctxlint.yaml")


def test_a_default_accelerator_message_names_the_layout_not_one_gpu(tmp_path, monkeypatch):
    # sweep 45 (vllm-project/recipes MiniMax-M2 at --tensor-parallel-size 4 on a default H100): "derived for ... on 1x
    # H100" beside weights divided by 4; a script states no GPU count, so the message names the layout it used
    (tmp_path / ".git").mkdir()
    (tmp_path / ".ctxlint.yaml").write_text("default-accelerator: L4\n")
    (tmp_path / "serve.sh").write_text("#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len "
                                       "1048576 --tensor-parallel-size 2\n")
    monkeypatch.chdir(tmp_path)
    out = run(["check", "serve.sh"]).out
    assert "derived for meta-llama/Llama-3.1-8B on L4 at TP 2 (assumed: default-accelerator" in out and " 1x " not in out
