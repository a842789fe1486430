"""What a command's redirections say about whether it runs and what it feeds, for the and-or lists of and_or.py:

* a redirection that may fail makes the command fail, whatever the command is: `true > /nonexistent/x || vllm
  serve ...` runs vllm (bash 5.2.15, checked: "No such file or directory", status 1, and the command after `||`
  runs; an assignment alone keeps its value, `L=1 > /nonexistent/x` sets L). So a `true`, `:` or assignment with
  such a redirection has no status the script decides. Not a redirection to `/dev/null` (or `/dev/stdout`,
  `/dev/stderr`), a copy of a standard descriptor (`2>&1`, `>&2`) or a close (`>&-`), a here-document or a
  here-string: none of them opens a file that may be missing or refused.
* a here-document's body runs only when the command it is fed to runs: `false && bash <<EOF ... EOF` runs nothing
  of the body. command_groups sets each body apart as a group of its own after its line's commands, so the
  groups of its line that have a `<<` are remembered here (`owners`).
"""
from __future__ import annotations

_SAFE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_NO_FILE = frozenset({"<<", "<<-", "<<<", "body"})  # here-documents, here-strings and their bodies open no file
_COPIES = frozenset({">&", "<&"})


class Redirects:
    """Filled by shell_commands.command_groups as it reads a text's items in order."""

    __slots__ = ("risky", "owners", "_op", "_pending", "_line", "_fed")

    def __init__(self) -> None:
        self.risky: set = set()  # groups with a redirection that may fail
        self.owners: dict = {}  # here-document group -> the groups of its line with a `<<` (one is its command)
        self._op = ""
        self._pending = False  # the command being read has a redirection that may fail
        self._line: list = []  # the groups of the line being read with a `<<`
        self._fed: tuple = ()  # those of the line whose bodies are being read

    def operator(self, op: str, group: int) -> None:
        """A `redir:` operator of the lexer's, met while the command that will be group `group` is read."""
        self._op = op
        if op in ("<<", "<<-"):
            self._line.append(group)
        elif op == "body" and self._line:
            self._fed, self._line = tuple(self._line), []

    def target(self, word) -> None:
        """The word after the operator: the redirection's target."""
        if self._op in _NO_FILE:
            return
        text = _literal(word)
        if self._op in _COPIES and text in ("-", "0", "1", "2"):
            return  # a close, or a copy of a standard descriptor; another (`>&3`) may not be open: bash 5.2.15
            # `true >&3 || L=2` says "3: Bad file descriptor" and assigns
        if text not in _SAFE_TARGETS:  # a file, or a target not known here (`> "$LOG"`)
            self._pending = True

    def command_ends(self, group: int) -> None:
        if self._pending:
            self.risky.add(group)
            self._pending = False

    def body(self, group: int) -> None:
        """A here-document body read as a script is group `group`."""
        if self._fed:
            self.owners[group] = self._fed


def _literal(word) -> str:
    """The target's text when it is literal characters only (quotes removed), else ""."""
    parts = getattr(word, "parts", None)
    if not parts or any(part.kind != "lit" for part in parts):
        return ""
    return "".join(run[0] for part in parts for run in part.runs)
