"""A `case` whose arms assign: read as the `if`/`elif`/`else` it runs as, one reading per arm.

    case "$GPU" in
      h100) CMD="vllm serve $M --max-model-len 200000" ;;
      *)    CMD="vllm serve $M --max-model-len 65536" ;;
    esac
    $CMD

bash expands the word once, then runs the list of the first arm whose pattern matches it and no other (bash manual,
Conditional Constructs: "If the `;;` operator is used, no subsequent matches are attempted after the first pattern
match"; `*` matches anything). That is `if`/`elif`/`else` over the arms, in order, with `*)` as the `else`; without
one, no arm may match and every variable keeps its value from before the `case`. So the arms' groups are read as
such an `if` (scalar_branches.py makes a world of each arm, as it does of each branch): the header becomes `: WORD`
(expanded where the `case` stands: `${L:?msg}` of an L "" exits there, as bash does), each pattern an `if`/`elif`
condition, the arm's first command `then ...`, `esac` the `fi`. A pattern the word is known to match (or not) is
decided, as `if true`/`if false` are (decided_tests.py): the word's value known and the pattern plain characters,
`*` and `?`; any other (a bracket expression, a quoted or expanded pattern, a word not known) keeps both ways. Only a plain `case` read where it
stands: its header a command of its own (not after `&&`/`||` nor after `do`/`then`; on its own line, or on one line with
the arms, `case $G in a) L=1;; *) L=2;; esac`), each arm one pattern (no `|`)
with a list ending `;;` (not `;&`/`;;&`, which fall through), no compound command inside an arm, `*)` only last, and
not inside a loop or another `case` (OPAQUE): any other stays as before, its assignments not known after it (CTX008).
"""
from __future__ import annotations

from typing import Optional

from .branches import OPAQUE
from .lex_words import Part, Word
from .shell_commands import literal

_COMPOUND = frozenset({"if", "then", "elif", "else", "fi", "case", "esac", "for", "while", "until", "select", "do",
                       "done", "{", "}", "function"})
_BRACKETS = frozenset("[]\\")


def _keyword(text: str, at: Word) -> Word:
    """A keyword word `text` placed at the word `at` (its characters where `at` starts)."""
    start = at.src_span[0]
    return Word([Part("lit", [(text, (start,) * len(text), (start + 1,) * len(text))])], False, at.local_start,
                (start, start))


def _arms(groups: list, ends: dict, index: int) -> Optional[tuple]:
    """The `case` at group `index` as (its word, [(pattern group, first body group, last body group, pattern)], esac
    group), or None when it is not one read here (see above). The header may hold the first pattern, as a `case` on
    one line does (`case $G in a) L=1;; *) L=2;; esac`): that arm's pattern group is the header's."""
    header = groups[index][0]
    inline = len(header) == 4 and ends.get(index) == ")"
    if len(header) != (4 if inline else 3) or literal(header[2]) != "in" or not inline and ends.get(index) != ";":
        return None
    arms, at = [], index + 1
    if inline:
        end = _body_end(groups, ends, at)
        if end is None:
            return None
        arms.append((index, at, end, header[3]))
        at = end + 1
    while at < len(groups):
        words, conditional = groups[at]
        if not isinstance(words, list) or not words or conditional:
            return None
        if literal(words[0]) == "esac" and len(words) == 1:
            return (header[1], arms, at) if arms else None
        if len(words) != 1 or ends.get(at) != ")" or (arms and literal(arms[-1][3]) == "*"):
            return None  # `a|b)` (its `|` a pipe to the lexer), `(a)`, or an arm after `*)`
        end = _body_end(groups, ends, at + 1)
        if end is None:
            return None
        arms.append((at, at + 1, end, words[0]))
        at = end + 1
    return None


def _body_end(groups: list, ends: dict, body: int) -> Optional[int]:
    """The last group of the arm whose list starts at group `body`, or None where it is not plain (see above)."""
    end = body
    while end < len(groups):
        words, conditional = groups[end]
        if not isinstance(words, list) or not words or conditional or literal(words[0]) in _COMPOUND:
            return None  # a definition, a here-document, a compound command inside the arm
        if ends.get(end) == ";;":
            return end
        if ends.get(end) != ";" or end + 1 >= len(groups):
            return None  # `;&`, `;;&`, `&&`/`||`, a pipe or a job in the arm; or no `;;` at all
        after = groups[end + 1][0]
        if isinstance(after, list) and len(after) == 1 and literal(after[0]) == "esac":
            return end  # the last arm's list may end at the `esac` without `;;`
        end += 1
    return None


def _typed(word: Word) -> str:
    return "".join(run[0] for part in word.parts for run in part.runs)


def _matches(value: Optional[str], pattern: Word, nocase: bool = False) -> Optional[bool]:
    """Whether the word's value matches the pattern, where both are known: `*` and `?` as bash matches them
    (fnmatchcase reads them alike); a bracket expression or a backslash (bash's `[^...]`, `[[:alpha:]]` and
    escapes are not fnmatch's), a quoted or expanded pattern: None. `nocase`: the script names bash's `nocasematch`
    (`shopt -s nocasematch` matches without regard to case; where it is on is not read): a match that only the case
    of a letter decides (`H100` against `h100)`) is None."""
    text = literal(pattern)
    if text == "*":
        return True
    if value is None or not text or _BRACKETS & set(text):
        return None
    from fnmatch import fnmatchcase

    matched = fnmatchcase(value, text)
    return None if nocase and matched != fnmatchcase(value.lower(), text.lower()) else matched


def read_as_if(groups: list, ends: dict, index: int, ctx) -> bool:
    """Rewrite the `case` at group `index` (its header the group's whole words) in place as the `if` it runs as;
    False (nothing changed) where it is not one read here."""
    if OPAQUE in ctx.local.branches.path or groups[index][1]:
        return False
    found = _arms(groups, ends, index)
    if found is None:
        return False
    subject, arms, esac = found
    from .word_expansion import expand_word

    refs, error = len(ctx.refs), ctx.null_error
    tokens = expand_word(subject, ctx, expand=True, assignment=True)  # its value, to decide the patterns: the
    del ctx.refs[refs:]  # `: WORD` below is the command that expands it (and says what is not known in it)
    inline, failed = arms[0][0] == index, ctx.null_error is not error
    ctx.null_error = error
    if inline and failed:
        return False  # `case ${L:?x} in a) ...` on one line: no `: WORD` of its own to exit at, so not read
    value = tokens[0].text if len(tokens) == 1 and all(r.value is not None for r in tokens[0].refs) else None
    case = groups[index][0][0]
    if not inline:
        groups[index] = ([_keyword(":", case), subject], False)  # the word is expanded where the `case` stands
    for n, (pattern_at, body, _end, pattern) in enumerate(arms):
        if literal(pattern) == "*" and n:  # (its words name the arm in a reading's label: scalar_branches.label)
            groups[pattern_at] = ([_keyword("else", pattern), _keyword(":", pattern), _keyword("case", case), subject,
                                   _keyword("*)", pattern)], False)
        else:
            taken = _matches(value, pattern, "nocasematch" in (getattr(ctx, "source", None) or ""))
            keyword = _keyword("if" if n == 0 else "elif", pattern)
            cond = [_keyword("true" if taken else "false", pattern)] if taken is not None else \
                [_keyword(":", pattern), _keyword("case", case), subject, _keyword(f"{_typed(pattern)})", pattern)]
            groups[pattern_at] = ([keyword] + cond, False)
            words = groups[body][0]
            groups[body] = ([_keyword("then", words[0])] + words, False)
        ends[pattern_at] = ";"
    groups[esac] = ([_keyword("fi", groups[esac][0][0])], False)
    return True
