"""A shell script whose quote, `${`, `$(` or backquote never ends, where an engine command follows it.

The shell reads on to the end of the script for the closing character, then stops with a syntax error
(bash: "unexpected EOF while looking for matching `''"), having run nothing from that command on. The
splitter does the same, so the engine command after it is in no role: without this finding the run would
look clean and checked. It is reported (CTX001, as a file the loader cannot parse is) only where the text
the open construct swallows holds an engine command, read as if the construct were closed there: an open
quote in a script, or in a container's `sh -c` string, that hides no engine is not ctxlint's to judge.
"""
from __future__ import annotations

from typing import Iterable, List, Optional, Tuple

from ctxlint.adapters.shell_script import names_engine
from ctxlint.engines import SplitProblem, split_shell
from ctxlint.engines.detect import detect
from ctxlint.findings import Diagnostic
from ctxlint.loader import PARSE_ERROR

# The lexer's problems (engines/lexer.py) that read the rest of the text as one unfinished construct, and how
# many characters open each; the readable name of each.
_OPENED = {"unterminated single quote": (1, "a single quote"), "unterminated double quote": (1, "a double quote"),
           "unterminated ${": (2, "a `${`"), "unterminated $(": (2, "a `$(`"),
           "unterminated backquote": (1, "a backquote")}


_INTERNAL = "internal splitter error"  # engines/shellwords.split_shell's message for an exception it caught


def unterminated(problems: Iterable[SplitProblem], reader) -> List[Diagnostic]:
    """CTX001 diagnostics for the problems whose unread rest holds an engine command. `reader` is the workload
    reader (workload_positions.Positions): the item texts the problems' spans index, and their sources."""
    out: List[Diagnostic] = []
    seen = set()
    for problem in problems:
        if problem.message.startswith(_INTERNAL) and (problem.item or 0) < len(reader.item_texts) \
                and names_engine(reader.item_texts[problem.item or 0]):
            out.append(_internal(problem, reader))
            continue
        opened = _OPENED.get(problem.message)
        index = problem.item or 0
        if opened is None or index >= len(reader.item_texts) or (index, problem.start) in seen:
            continue
        seen.add((index, problem.start))
        text = reader.item_texts[index]
        begin = problem.start + opened[0]
        rest = text[begin:problem.end]
        if not names_engine(rest):  # the usual open quote: an apostrophe in a message, no engine after it
            continue
        engine = _engine_in(text, begin, problem.end)
        if engine is None:
            continue
        at, launcher = engine
        line = reader.span_source(problem.item, (at, at + 1)).line
        out.append(Diagnostic(PARSE_ERROR, (
            f"{opened[1]} that never ends: the shell reads on to the end of the script for its match, then stops "
            f"with a syntax error and runs nothing from here on, so the engine command at line {line} "
            f"({launcher}) never starts, and ctxlint reads none of it; close it, or escape the character if it "
            "is meant literally"), reader.span_source(problem.item, (problem.start, begin))))
    return out


def _internal(problem: SplitProblem, reader) -> Diagnostic:
    """CTX011 for a script the splitter failed on (its own error, caught so the run goes on): none of its commands
    is read, so a clean result would look checked when nothing was."""
    from ctxlint.unsupported import UNSUPPORTED_FILE

    error = problem.message[len(_INTERNAL):].lstrip(": ")
    return Diagnostic(UNSUPPORTED_FILE, (
        f"ctxlint failed reading this script ({error}, an error of ctxlint's own), so none of its engine commands "
        "is checked; please report it with the script"), reader.span_source(problem.item, (0, 1)))


def _engine_in(text: str, begin: int, end: int) -> Optional[Tuple[int, str]]:
    """(where, launcher) of the first engine command in text[begin:end], read as the script it would be with the
    construct closed just before `begin`, or else from the next line on (`echo "it's` leaves a second quote
    open on its own line); None when neither holds one."""
    line_end = text.find("\n", begin, end)
    for start in (begin, line_end + 1) if line_end >= 0 else (begin,):
        for cmd in split_shell(text[start:end]).commands:
            for found in detect(cmd.tokens):
                return start + cmd.tokens[found.start].start, found.launcher
    return None
