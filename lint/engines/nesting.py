"""Where a shell construct ends, matched as bash matches it: the `}` of `${...}`, the `)` of `$(...)`, the closing
backquote of `...`.

Bash's manual (Shell Parameter Expansion, gnu.org/software/bash/manual/html_node/Shell-Parameter-Expansion.html):
"When braces are used, the matching ending brace is the first '}' not escaped by a backslash or within a quoted
string, and not within an embedded arithmetic expansion, command substitution, or parameter expansion." So
`${IP:-$(hostname -I | awk '{print $1}')}` ends at its last `}` and `${G:-'}'}` at its second; a bare `{` opens
nothing (bash 5.2 prints `{ab}` for an unset x's `${x:-{a}b}`). Inside `$(...)` a quoted `)` closes nothing either.

The scan keeps a stack of what is open and jumps from one character that matters there to the next with a regex
(no recursion: a deep nest of `$(` in odd input is a long stack, not a RecursionError).
"""
from __future__ import annotations

from ctxlint.lazyre import lazy_compile

# What matters inside each open construct: "${" a parameter expansion, "(" a command substitution or a
# parenthesis inside one (`$((1+2))`, a subshell), '"' a double-quoted string, "`" a backquoted command, "$'"
# an ANSI-C quoted string. Inside double quotes a single quote is a plain character; inside `${...}` it quotes
# (bash 5.2: `"${x:-'}'}"` is `'}'`).
_STOPS = {
    "${": lazy_compile(r"[\\'\"`$}]"),
    "(": lazy_compile(r"[\\'\"`$()]"),
    '"': lazy_compile(r"[\\\"`$]"),
    "`": lazy_compile(r"[\\`]"),
    "$'": lazy_compile(r"[\\']"),
}
_CLOSERS = {"${": "}", "(": ")", '"': '"', "`": "`", "$'": "'"}


def closing(s: str, at: int, opener: str) -> int:
    """Index just past the end of the construct `opener` ("${", "(" for `$(`, or "`") whose body starts at `at`,
    or -1 when the text ends first."""
    stack, k = [opener], at
    while stack:
        top = stack[-1]
        if top == "'":
            k = s.find("'", k)
            if k < 0:
                return -1
            stack.pop()
            k += 1
            continue
        found = _STOPS[top].search(s, k)
        if found is None:
            return -1
        k = found.start()
        c = s[k]
        if c == "\\":
            k += 2  # the next character is escaped (a `\}` in `${x:-a\}b}` closes nothing)
        elif c == _CLOSERS[top]:
            stack.pop()
            k += 1
        elif c == "(":  # only "(" stops at it: a nested parenthesis
            stack.append("(")
            k += 1
        elif c in "'\"`":
            stack.append(c)
            k += 1
        elif c == "$":
            nxt = s[k + 1:k + 2]
            if nxt == "{":
                stack.append("${")
                k += 2
            elif nxt == "(":
                stack.append("(")
                k += 2
            elif nxt == "'" and top != '"':  # `$'...'`; inside double quotes `$'` is a `$` and a quote character
                stack.append("$'")
                k += 2
            else:
                k += 1
        else:
            k += 1
    return k


def arith_closed(s: str, at: int) -> bool:
    """Does the `)` that matches the second `(` of the `((` at `at` come straight before another `)`? bash's parse.y
    (parse_arith_cmd, called by parse_dparen) reads the matched pair, then `c = shell_getc (0); if (c != ')') rval =
    0;`: only then is `((` arithmetic. A quoted `(` or `)` counts for nothing; a backslash escapes the next one."""
    depth, j, n = 1, at + 2, len(s)
    while j < n:
        c = s[j]
        if c == "\\":
            j += 1
        elif c in "'\"":
            end = s.find(c, j + 1)
            while c == '"' and end > 0 and s[end - 1] == "\\":
                end = s.find(c, end + 1)
            if end < 0:
                return False
            j = end
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if not depth:
                return s.startswith(")", j + 1)
        j += 1
    return False
