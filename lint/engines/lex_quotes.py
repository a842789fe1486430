"""How the shell lexer reads quotes and expansions: `'...'`, `"..."`, `$NAME`, `${...}`, `$(...)`, backquotes.

`QuotedReads` is a base class of `lexer.Lexer` and holds its readers for the constructs that start
with a quote, a `$` or a backquote: each turns the characters it consumes into parts of the current
word (literal runs at their own positions, variables with their `${NAME:-default}` defaults,
command substitutions) through the Lexer's own `_lit`, `_lit_run` and `_raw_part`. They are apart
from lexer.py, which walks the text and cuts words at blanks, operators and redirections, because
they are where the quoting rules (the outer shell's escaped `$` inside `'...'`, Kubernetes' `$$`) live.
"""
from __future__ import annotations

import re

from ctxlint.lazyre import lazy_compile

from .gotemplate import next_action
from .nesting import closing

NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Kubernetes allows dots and dashes in env names used by $(NAME).
_K8S_NAME = lazy_compile(r"[-._A-Za-z][-._A-Za-z0-9]*")
_SPECIAL = "@*#?$!-0123456789"
_SUBSCRIPT = lazy_compile(r"\[[^\]]*\]")
# The run of characters inside double quotes the loop would take one by one as literals.
_DQ_RUN = lazy_compile(r"""[^"\\$`]+""")


class QuotedReads:
    """The Lexer's readers of quoted strings and expansions (see the module docstring)."""

    def _single(self) -> None:
        s, start = self.s, self.i
        self._cur().had_quotes = True
        end = s.find("'", start + 1)
        if end < 0:
            self.problems.append(("unterminated single quote", *self.src(start, len(s))))
            end = len(s)
        at = start + 1
        while self.outer_dq and at < end:  # the outer shell's `$` inside the inner shell's '...'
            k = s.find("$", at, end)
            if k < 0:
                break
            a, b = self.src(k, k + 1)
            if b - a == 2:  # typed `\$` (the outer shell's escape, already read): a `$` the inner shell keeps
                self._lit_run(at, k + 1, True)
                at = k + 1
                continue
            self._lit_run(at, k, True)
            self.i = k
            self._dollar(quoted=True)
            at = min(self.i, end)
        while self.go and at < end:  # rendered before the shell reads it: an action inside '...' too
            self.i = next_action(s, at, end)
            self._lit_run(at, self.i, True)
            if self.i < end and not self._action(True, end):
                self._lit_run(self.i, self.i + 2, True)
                self.i += 2
            at = self.i
        self._lit_run(at, end, True)
        self.i = end + 1

    def _double(self) -> None:
        s, n, start = self.s, len(self.s), self.i
        self._cur().had_quotes = True
        self._cur().dq = True
        self.i += 1
        while self.i < n and s[self.i] != '"':
            c = s[self.i]
            if c == "\\" and self.i + 1 < n and s[self.i + 1] in '$`"\\\n':
                if s[self.i + 1] != "\n":
                    self._lit(s[self.i + 1], self.i, self.i + 2, True)
                self.i += 2
            elif c == "$":
                self._dollar(quoted=True)
            elif c == "`":
                self._backtick(quoted=True)
            elif c == "{" and self._action(True):
                pass
            else:
                run = _DQ_RUN.match(s, self.i)  # None at a backslash kept as itself
                end = run.end() if run else self.i + 1
                if self.go:
                    end = max(self.i + 1, next_action(s, self.i + 1, end))
                self._lit_run(self.i, end, True)
                self.i = end
        if self.i >= n:
            self.problems.append(("unterminated double quote", *self.src(start, n)))
        self.i += 1

    def _dollar(self, quoted: bool) -> None:
        s, a = self.s, self.i
        nxt = s[a + 1] if a + 1 < len(s) else ""
        if self.k8s and nxt == "$":  # Kubernetes reduces `$$` to a literal `$`
            self._lit("$", a, a + 2, quoted)
            self.i += 2
        elif nxt == "{":
            end = closing(s, a + 2, "${") - 1  # the `}` bash matches: not one quoted or in a nested `$(...)`
            if end < 0:
                self.problems.append(("unterminated ${", *self.src(a, len(s))))
                end = len(s) - 1
            body = s[a + 2:end]
            named = NAME.match(body)
            m = named or re.match(r"[@*#?$!0-9-]", body)
            name = m.group(0) if m else body
            rest = body[len(name):] if m else ""
            sub = _SUBSCRIPT.match(rest) if named else None
            if sub:  # `${NAME[@]}`, `${NAME[1]}`: an array's elements (shellwords reads the arrays it knows)
                name, rest = name + sub.group(0), rest[sub.end():]
            default = None
            for op in (":-", "-", ":=", "="):
                if rest.startswith(op):
                    default = rest[len(op):]
                    break
            self._raw_part("var", a, end + 1, quoted, name=name, style="shell", default=default)
            self.i = end + 1
        elif nxt == "(":
            k8s = _K8S_NAME.match(s, a + 2) if self.k8s else None
            if k8s and s.startswith(")", k8s.end()):
                self._raw_part("var", a, k8s.end() + 1, quoted, name=k8s.group(0), style="k8s")
                self.i = k8s.end() + 1
                return
            end = closing(s, a + 2, "(")
            if end < 0:
                self.problems.append(("unterminated $(", *self.src(a, len(s))))
                end = len(s)
            self._raw_part("cmd", a, end, quoted, name=s[a:end], style="command")
            self.i = end
        elif nxt and (nxt in _SPECIAL or NAME.match(nxt)):
            m = NAME.match(s, a + 1)
            end = m.end() if m and not nxt.isdigit() else a + 2
            self._raw_part("var", a, end, quoted, name=s[a + 1:end], style="shell")
            self.i = end
        else:
            self._lit("$", a, a + 1, quoted)
            self.i += 1

    def _backtick(self, quoted: bool) -> None:
        s, a = self.s, self.i
        end = closing(s, a + 1, "`") - 1
        if end < 0:
            self.problems.append(("unterminated backquote", *self.src(a, len(s))))
            end = len(s) - 1
        self._raw_part("cmd", a, end + 1, quoted, name=s[a:end + 1], style="command")
        self.i = end + 1


def commented(script: str, at: int) -> bool:
    """Whether a shell comment (`#` at the line's start or after a blank, outside quotes) hides position
    `at`: a `# pip install vllm==0.6.3` left above the real install names no installed version, and
    `echo "step #1" && pip install vllm==0.6.3` does."""
    quote, before, escaped = "", " ", False
    for ch in script[script.rfind("\n", 0, at) + 1:at]:
        if escaped:  # `\'` or `\#`: a plain character
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and before in " \t":
            return True
        before = ch
    return False
