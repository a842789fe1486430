"""The Dockerfile is well-formed and is what the README documents: it copies exactly what the
package is built from (and .dockerignore lets those through), installs it with pip, runs as a
non-root user with `ctxlint` as the entrypoint in /work, where the README mounts the files.
No container runtime runs here, so the image itself is not built by the tests.
"""
from __future__ import annotations

import fnmatch
import json
import re
import shlex
import shutil
import sys
from typing import List, Tuple

from conftest import REPO
from helpers import run

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.9/3.10
    import tomli as tomllib

KNOWN = {"FROM", "RUN", "COPY", "ADD", "USER", "WORKDIR", "ENTRYPOINT", "CMD", "ENV", "ARG", "LABEL", "EXPOSE"}


def instructions(text: str) -> List[Tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    logical, current = [], ""
    for line in text.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line.rstrip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        logical.append(current)
        current = ""
    assert not current, "a continuation line runs off the end"
    result = []
    for line in logical:
        word, _, args = line.strip().partition(" ")
        assert word.upper() == word and word in KNOWN, f"unknown instruction {word!r}"
        result.append((word, " ".join(args.split())))
    return result


DOCKERFILE = instructions((REPO / "Dockerfile").read_text(encoding="utf-8"))


def args_of(word: str) -> List[str]:
    return [args for w, args in DOCKERFILE if w == word]


def ignored(path: str) -> bool:
    """.dockerignore semantics for its patterns: the last pattern matching the path or a parent wins."""
    patterns = [p.strip() for p in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
                if p.strip() and not p.startswith("#")]
    parts = path.split("/")
    verdict = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!")
        prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        if any(fnmatch.fnmatchcase(p, pattern) or (pattern.startswith("**/")
               and fnmatch.fnmatchcase(p.split("/")[-1], pattern[3:])) for p in prefixes):
            verdict = not negate
    return verdict


def test_the_parser_and_ignore_rules_catch_mistakes():
    assert instructions("FROM x\nRUN a \\\n  b\n# c\nCMD [\"d\"]\n") == [("FROM", "x"), ("RUN", "a b"), ("CMD", '["d"]')]
    assert ignored("tests/test_cli.py") and ignored("lint/__pycache__/x.pyc") and not ignored("lint/cli.py")


def test_base_user_and_entrypoint():
    assert DOCKERFILE[0][0] == "FROM" and re.fullmatch(r"python:3\.\d+-slim", DOCKERFILE[0][1])
    users = [i for i, (w, _) in enumerate(DOCKERFILE) if w == "USER"]
    entry = [i for i, (w, _) in enumerate(DOCKERFILE) if w == "ENTRYPOINT"]
    assert users and entry and users[-1] < entry[-1]
    assert DOCKERFILE[users[-1]][1] not in ("root", "0")
    assert json.loads(args_of("ENTRYPOINT")[-1]) == ["ctxlint"]  # exec form: arguments pass through
    assert json.loads(args_of("CMD")[-1]) == ["check", "."]
    assert args_of("WORKDIR")[-1] == "/work"


def test_copies_exactly_what_the_package_is_built_from():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    needed = {"pyproject.toml", project["project"]["readme"], *project["tool"]["setuptools"]["package-dir"].values()}
    sources = set()
    for args in args_of("COPY"):
        *srcs, _dest = shlex.split(args)
        sources.update(srcs)
    assert sources == needed
    for source in sources:
        assert (REPO / source).exists() and not ignored(source), source
    (install,) = [a for a in args_of("RUN") if "pip install" in a]
    assert install.startswith("python -m pip install --no-cache-dir") and "/tmp/ctxlint" in install


def test_readme_docker_commands_are_ctxlint_command_lines(tmp_path, monkeypatch):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Docker\n"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    runs = [shlex.split(line.split("#")[0]) for line in block.splitlines() if line.startswith("docker run")]
    assert len(runs) == 2
    (tmp_path / "deploy").mkdir()
    shutil.copy2(REPO / "samples" / "incident-fixed" / "deployment.yaml", tmp_path / "deploy" / "good.yaml")
    monkeypatch.chdir(tmp_path)  # the mounted directory is the container's working directory
    for words in runs:
        assert words[:5] == ["docker", "run", "--rm", "-v", "$PWD:/work"] and words[5] == "ctxlint"
        result = run(words[6:])  # what follows the image name is a ctxlint command line
        assert result.code == 0, result.err
    assert (tmp_path / "ctxlint.sarif").is_file()
