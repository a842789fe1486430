"""The pre-commit hook: its definition, its entry on the samples, and a real `pre-commit run`.

The pre-commit test builds what a user's pre-commit would: a git repository holding this
working tree (committed, so it works from a clean clone and with local edits), a user
repository with a bad and a good manifest, and a config naming the hook repository at that
commit (what `pre-commit try-repo` writes). pre-commit then pip-installs the hook repository
into its own environment under a temporary PRE_COMMIT_HOME (this needs the package registry,
for pyyaml and the rest) and runs the hook on each file. `pre-commit run` keeps that
environment for the second file, as it does for users; `try-repo` makes a new store, so a
new install (~10 s in CI), on every call.
"""
from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from helpers import run

BAD = REPO / "samples" / "incident" / "deployment.yaml"
GOOD = REPO / "samples" / "incident-fixed" / "deployment.yaml"
BAD_SCRIPT = REPO / "samples" / "shell-script" / "start_pd.sh"


def hooks():
    return yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def test_hook_definition():
    (hook,) = hooks()
    assert hook["id"] == "ctxlint" and hook["language"] == "python"
    assert hook["entry"] == "ctxlint check --force-exclude"  # the config's excludes apply to the files pre-commit passes
    assert hook["types_or"] == ["yaml", "json", "shell", "text"] and hook["require_serial"] is True


def test_hook_passes_the_files_a_directory_scan_reads(tmp_path):
    """pre-commit passes a file whose tags meet `types_or`, whose path matches `files` and not `exclude`:
    shell launch scripts (Slurm batch scripts too, which identify tags only `text`) are passed, other files
    tagged `shell` (read as YAML by ctxlint) are not. Tags are read as pre-commit reads them, from real
    (non-executable, text) files."""
    import re

    identify = pytest.importorskip("identify.identify")
    (hook,) = hooks()

    def passed(path: str) -> bool:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("#!/bin/bash\nvllm serve m\n" if "." not in path.lstrip(".") else "a: 1\n")
        tags = identify.tags_from_path(str(tmp_path / path))
        return bool(tags & set(hook["types_or"])) and re.search(hook["files"], path) is not None \
            and re.search(hook["exclude"], path) is None

    names = ["deploy/a.yaml", "b.YML", "c.json", "scripts/start_vllm.sh", "run.bash", "RUN.SH", "x.zsh", "t.bats",
             ".bashrc", ".envrc", "chart/templates/d.yaml", "package-lock.json", "notes.txt", "nb.ipynb",
             "hpc/serve_vllm.slurm", "job.SBATCH", "slurm.conf", "README.md"]
    assert [n for n in names if passed(n)] == ["deploy/a.yaml", "b.YML", "c.json", "scripts/start_vllm.sh",
                                               "run.bash", "RUN.SH", "x.zsh", "hpc/serve_vllm.slurm", "job.SBATCH"]


def test_hook_entry_fails_on_bad_and_passes_on_good(in_repo):
    (hook,) = hooks()
    args = shlex.split(hook["entry"])[1:]  # the entry without the console script's name
    bad = run([*args, str(BAD.relative_to(REPO))])
    assert bad.code == 1 and "CTX101 [error]" in bad.out
    script = run([*args, str(BAD_SCRIPT.relative_to(REPO))])
    assert script.code == 1 and "CTX201 [error]" in script.out
    good = run([*args, str(GOOD.relative_to(REPO))])
    assert (good.code, good.out) == (0, "")


def _git(*args: str, cwd: Path) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="ctxlint tests", GIT_AUTHOR_EMAIL="tests@ctxlint.invalid",
               GIT_COMMITTER_NAME="ctxlint tests", GIT_COMMITTER_EMAIL="tests@ctxlint.invalid",
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _snapshot_of_working_tree(target: Path) -> Path:
    """A fresh repository with this working tree's tracked and new files, committed."""
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO).split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    _git("init", "-q", cwd=target)
    _git("add", "-A", cwd=target)
    _git("commit", "-q", "-m", "snapshot", cwd=target)
    return target


def _missing_tools() -> str:
    if shutil.which("git") is None:
        return "git is not installed"
    if importlib.util.find_spec("pre_commit") is None:
        return "pre-commit is not installed (it is in the test extra: pip install '.[test]')"
    if not (REPO / ".git").exists():
        return "not a git checkout: nothing to snapshot for try-repo"
    return ""


@pytest.mark.skipif(bool(_missing_tools()), reason=_missing_tools() or "-")
def test_pre_commit_installs_and_runs_the_hook(tmp_path):
    hook_repo = _snapshot_of_working_tree(tmp_path / "hook-repo")
    config = tmp_path / "pre-commit-config.yaml"
    config.write_text(yaml.safe_dump({"repos": [{"repo": str(hook_repo), "rev": _git("rev-parse", "HEAD", cwd=hook_repo)
                                                 .strip(), "hooks": [{"id": "ctxlint"}]}]}), encoding="utf-8")
    user = tmp_path / "user-repo"
    (user / "deploy").mkdir(parents=True)
    shutil.copy2(BAD, user / "deploy" / "bad.yaml")
    shutil.copy2(GOOD, user / "deploy" / "good.yaml")
    _git("init", "-q", cwd=user)
    _git("add", "-A", cwd=user)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PRE_COMMIT_COLOR="never",
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)

    def pre_commit(file: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--config", str(config), "--files", file],
                              cwd=user, env=env, capture_output=True, text=True, timeout=600)

    bad = pre_commit("deploy/bad.yaml")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "ctxlint" in bad.stdout and "Failed" in bad.stdout
    assert "deploy/bad.yaml:24:25: CTX101 [error] 1,048,576 > 681,280" in bad.stdout
    good = pre_commit("deploy/good.yaml")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout
