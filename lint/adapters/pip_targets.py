"""What a `pip install` (or `uv pip install`) command line installs, for Versions.run_release: its requirement
words, each with whether it names a project or file whose contents ctxlint does not read (`-e .`, `-r
requirements.txt`, `.`), and not the values of its other options (`--extra-index-url https://wheels.vllm.ai/...`
names an index, not the engine); and whether a backgrounded install is waited for before a later command."""
from __future__ import annotations

from typing import Iterator, Sequence, Tuple

from ctxlint.engines.tokens import Token

# Options that take a value in the next word, of `pip install` (https://pip.pypa.io/en/stable/cli/pip_install/
# and its general options) and `uv pip install` (https://docs.astral.sh/uv/reference/cli/#uv-pip-install).
# Their value is no requirement: skipped, but for the three below that install what they name.
_VALUED = frozenset({
    "-c", "--constraint", "-t", "--target", "--platform", "--python-version", "--implementation", "--abi",
    "--root", "--prefix", "--src", "--upgrade-strategy", "-C", "--config-settings", "--global-option",
    "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--progress-bar", "--report", "--log",
    "--proxy", "--retries", "--timeout", "--exists-action", "--trusted-host", "--cert", "--client-cert",
    "--cache-dir", "--python", "-p", "--no-binary", "--only-binary", "--use-feature", "--use-deprecated",
    "--keyring-provider", "--root-user-action", "--group", "--override", "--index", "--default-index",
    "--index-strategy", "--torch-backend", "--extra", "--resolution", "--prerelease", "--link-mode",
    "--python-platform", "--build-constraint", "-b", "--exclude-newer", "--config-file", "--directory",
    "--project", "--color", "--constraints", "--overrides", "--exclude", "--excludes", "--build-constraints",
})
# `-e PATH` / `--editable PATH` installs the project at PATH; `-r FILE` / `--requirement FILE` every line of
# FILE (pip: "Install from the given requirements file"; uv spells the long form `--requirements`, uv-cli
# PipInstallArgs.requirements, docs.astral.sh/uv/reference/cli/#uv-pip-install); neither is read here.
_PROJECTS = {"-e": "-e", "--editable": "--editable", "-r": "-r", "--requirement": "--requirement",
             "--requirements": "--requirements"}


def install_targets(words: Sequence[Token]) -> Iterator[Tuple[Token, bool]]:
    """Each word that names what the command installs, and whether it is a project or requirements file
    (True) rather than a requirement or a path/wheel that names its package (False). A path whose last part
    names nothing (`.`, `..`, `./`, `/src/.`) is the project of the directory the shell is in, or its parent:
    ctxlint cannot tell which package that is, so it is a project too."""
    skip = False
    for i, token in enumerate(words):
        text = token.text
        if skip:
            skip = False
            continue
        if text in _PROJECTS:
            if i + 1 < len(words):
                yield words[i + 1], True
            skip = True
            continue
        if text in _VALUED:
            skip = True
            continue
        if text.startswith("-"):
            joined = next((p for p in ("--editable=", "--requirement=", "--requirements=", "-e", "-r")
                           if text.startswith(p)), None)
            if joined is not None and len(text) > len(joined):  # `-e.`, `-rrequirements.txt`, `--editable=.`
                yield token, True
            continue
        yield token, text.rstrip("/").rsplit("/", 1)[-1] in ("", ".", "..")


def waited(commands: Sequence, install: int, later: Sequence[int]) -> bool:
    """Whether the script waits for the background command `install` before the command after `later`: a bare
    `wait` (bash: "If id is not given, wait waits for all running background jobs"), or `wait $!` right after it
    ($! is the process of the last command started in the background), run in the foreground."""
    for i in later:
        argv = commands[i].argv
        if commands[i].background or not argv or argv[0] != "wait":
            continue
        if len(argv) == 1 or argv[1:] == ["$!"] and i == later[0] and install == i - 1:
            return True
    return False
