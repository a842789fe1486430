"""A systemd service unit that runs an engine: `vllm.service`, `llama-server.service` on a bare-metal host.

What systemd runs is the `[Service]` section's ExecStart= command line
(systemd/systemd@7910079dce73cd730925d7decdd4350ef3f73c3a:man/systemd.service.xml, "Command lines"), read here
as systemd reads it (adapters/systemd_syntax.py: its own quoting, not a shell's: no pipes or redirections, a
lone `;` separates commands), then handed to the workload core as an exec-form list, each word a list item at
its place in the file:

- prefixes of the program (`-`, `@`, `:`, `+`, `!`, `!!`, `|`) are not part of it; with `@` the second word is
  argv[0], not an argument; with `:` no variable is expanded;
- `%` specifiers: `%%`, `%T`, `%V` and the unit-name ones of the file's own name are what systemd gives; one the
  host fills in (`%h`, a template's `%i`, ...) is an unknown value (CTX008), never guessed;
- variables (src/basic/env-util.c@e86708b83e3050ac0d7433d28dbc28714f692cef replace_env_argv): a word that is
  `$NAME` alone becomes the value's words (quotes removed), `${NAME}` in a word its value as one piece, `$$` a
  `$`; anything else with a `$` is passed as written. A variable no Environment= or EnvironmentFile= of the unit
  sets is the empty string ("Variables whose value is not known at expansion time are treated as empty
  strings"), unless an EnvironmentFile= ctxlint cannot read may set it (then it is unknown, CTX008);
- Environment= (quoted assignments, several a line) and EnvironmentFile= (a `-` marks it optional) make the
  engine's environment, the files' values overriding Environment='s
  (systemd/systemd@8d0e0ddda6501479eb69164687c83c1a7667b33a:man/systemd.exec.xml, EnvironmentFile=). A file is
  named by its path on the host (`/etc/default/vllm`): it is read only when the repository keeps a file of that
  name beside the unit, and the finding then points into it;
- an empty ExecStart= resets the list; several commands are for Type=oneshot only (systemd refuses others:
  CTX002). `bash -c "..."` goes through the shell splitter, and a script the unit runs that sits beside it (by
  its file name) is read as compose reads a mounted one (compose_scripts.py), with the unit's environment.

A unit states no GPUs (CUDA_VISIBLE_DEVICES counts none: it only narrows a known count), so the device is
unknown unless `default-accelerator:` says it. Most units in a tree (timers' services, web apps) run no
engine: a text without an engine's name is skipped before anything else is imported.
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.shell_script import MAX_CHARS, names_engine
from ctxlint.loader import LoadedFile

NAME = "systemd-unit"
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # env-util.c VALID_BASH_ENV_NAME_CHARS, not starting with a digit
_REFS = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_PREFIXES = "-@:+!|"
# What systemd itself sets from User= (man/systemd.exec.xml, "Environment variables in spawned processes"):
# unknown here unless the unit sets them.
_FROM_USER = ("HOME", "USER", "LOGNAME", "SHELL")
_SPECIFIER = "CTXLINT_SPECIFIER_"  # the reference an unknown `%x` stands as (Container.ref_spelling says `%x`)


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    if not loaded.unit or len(loaded.text) > MAX_CHARS or not names_engine(loaded.text):
        return result
    from ctxlint.adapters.systemd_commands import read_unit  # only a unit that names an engine pays for it

    result.extend(read_unit(loaded))
    return result


class Env:
    """The unit's environment: name -> (value or None, node, why), with the files it could not read."""

    def __init__(self) -> None:
        self.values: Dict[str, Tuple[Optional[str], object, Optional[str]]] = {}
        self.unread: List[str] = []  # EnvironmentFile= paths no file beside the unit holds

    def unset(self, name: str) -> Optional[str]:
        """Why a variable the unit does not set is unknown; None when it is the empty string."""
        if self.unread:
            return (f"is not set by the unit; EnvironmentFile={self.unread[0]} may set it, and no file of that name "
                    "sits beside the unit")
        if name in _FROM_USER:
            return "is set by systemd on the host, from User="
        return None


def expand(chars, env: Env, literal: bool) -> Optional[List[Tuple[str, bool]]]:
    """One word after its specifiers (systemd_syntax.specifiers: (character, index, unknown letter)), as the
    exec-form splitter reads Compose words: [(text, whole)] pieces, `$$` for a literal `$`, `${NAME}` where the
    value comes from the environment; `whole` marks `$NAME` standing alone (its value's words). None: no word."""
    text = "".join(c if letter is None else "\0" for c, _, letter in chars)
    letters = iter(letter for _, _, letter in chars if letter is not None)
    if literal:
        return [(_specified(text.replace("$", "$$"), letters), False)]
    if text.startswith("$") and _VAR.fullmatch(text[1:]):
        return [(text[1:], True)]
    if text.startswith("$") and text[1:2] not in ("{", "$"):
        return None  # `$NAME/x` alone: not a variable name, so systemd passes nothing for it
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$$")
            i += 2
            continue
        ref = re.match(r"\$\{([^}]*)\}", text[i:]) if text[i] == "$" else None
        if ref is not None and ":" not in ref.group(1):
            name = ref.group(1)
            known = name in env.values or (_VAR.fullmatch(name) and env.unset(name) is not None)
            out.append("${" + name + "}" if known else "")  # an unset or invalid name is the empty string
            i += ref.end()
            continue
        out.append("$$" if text[i] == "$" else text[i])
        i += 1
    return [(_specified("".join(out), letters), False)]


def _specified(text: str, letters) -> str:
    return "".join(("${" + _SPECIFIER + next(letters) + "}") if c == "\0" else c for c in text)


def specifier_why(letter: str) -> str:
    from ctxlint.adapters.systemd_syntax import HOST_SPECIFIERS

    what = HOST_SPECIFIERS.get(letter, "a value")
    return f"is {what}, which systemd fills in on the host"


def runs_script(words) -> Tuple[list, bool]:
    """The words without an `env` program before them (`/usr/bin/env bash x.sh`), and whether there was one."""
    texts = [str(w.value) for w in words]
    if not texts or texts[0].rsplit("/", 1)[-1] != "env":
        return list(words), False
    k = 1
    while k < len(texts) and (texts[k].startswith("-") or "=" in texts[k]):
        k += 1
    return list(words[k:]), True


def beside(unit: str, path: str) -> Optional[str]:
    """The file of `path`'s name beside the unit (the repository's copy of a file the host holds at `path`)."""
    if unit in ("-", "") or unit.startswith("<"):
        return None
    found = os.path.join(os.path.dirname(unit), os.path.basename(path.rstrip("/")))  # named as the unit is
    return found if os.path.basename(path.rstrip("/")) and os.path.isfile(found) else None


def prefixes(word: str) -> Tuple[str, str]:
    """(the prefix characters of a command's first word, the program), as config_parse_exec strips them."""
    k = 0
    while k < len(word) and word[k] in _PREFIXES:
        k += 1
    return word[:k], word[k:]
