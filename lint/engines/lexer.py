"""POSIX-shell lexer that keeps, for every character, where it came from.

The lexer only cuts the text into words and operators; expansion of
variables happens later (in shellwords) because it needs the assignments of
earlier commands in the same script. Positions are mapped through `base`, the
per-character source spans of the text being lexed, so a script taken out of
`sh -c "..."` still points into the outer string.
"""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile

from .gotemplate import ELSE, END, OPEN, action_at, next_action
from .heredocs import after_bodies
from .lex_quotes import QuotedReads
from .lex_words import Op, Part, Span, Word
from .nesting import arith_closed

_ARRAY_START = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
# A run of characters the unquoted loop would take one by one as literals (`#` only
# starts a comment at a word's start); lex_quotes.py has the one inside double quotes.
_PLAIN_RUN = lazy_compile(r"""[^\\ \t\r\n#'"$`<>&;|()][^\\ \t\r\n'"$`<>&;|()]*""")
# Every character a branch of Lexer.run tests for before its last one (a run of literals)
_SPECIAL = frozenset("\\ \t\r\n#'\"$`{<>&;|()")
_BEFORE_COMMAND = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{", "time", "for"})
OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")")
REDIRECTS = (">>", "<<<", "<<-", "<<", ">&", "<&", "&>", ">|", "<>", ">", "<")

_make_part = _make_word = None  # records.maker(Part), records.maker(Word): ~10 a script line, no class call each


def _makers() -> tuple:
    """Made at the first word lexed, not at import."""
    global _make_part, _make_word
    from ..records import maker

    _make_part, _make_word = maker(Part), maker(Word)
    return _make_part, _make_word


class Lexer(QuotedReads):
    def __init__(self, text: str, base: Optional[list[Span]] = None, k8s: bool = False, go: bool = False,
                 outer_dq: bool = False) -> None:
        self.s = text
        # The text is an `sh -c "..."` script as typed inside double quotes, its escapes already read: the outer
        # shell expands its `$` first, inside the inner shell's single quotes too; a `$` typed `\$` (two source
        # characters) reaches the inner shell as `$`.
        self.outer_dq = outer_dq
        self.base = base  # None: the text itself, character k at (k, k + 1); no list of spans is built
        self.k8s = k8s
        # Go template actions are rendered before the shell reads the text (KServe): see gotemplate.py
        self.go = go and "{{" in text
        self.conditions: list[tuple[str, int, int]] = []  # the open `{{ if }}`s: (body, start, end)
        self.i = 0
        self.out: list[object] = []
        self.problems: list[tuple[str, int, int]] = []
        self.word: Optional[Word] = None
        # Here-documents: after `<<`/`<<-` (whether tabs are stripped) until its delimiter word ends, then the
        # delimiters whose bodies start at the next line, and where that line's items start in `out`.
        self.heredoc: Optional[bool] = None
        self.bodies: list[tuple[str, bool, bool]] = []  # (delimiter, `<<-`, quoted)
        self.body_at: list[int] = []  # the index in `out` of each delimiter word
        self.line_at = 0
        self.array: Optional[Word] = None  # inside `NAME=( ... )`: the `NAME=` word the elements go to
        # inside bash's arithmetic command `(( ... ))`: its parentheses open (0: outside). There `<`, `>`, `&` and
        # `|` are operators of the expression, never a redirect or a here-document (`((L<<=1))`) nor a pipe
        self.arith = 0

    # Source span of local characters [a, b).
    def src(self, a: int, b: int) -> Span:
        base = self.base
        n = len(self.s) if base is None else len(base)
        if not n:
            return (0, 0)
        a = min(a, n - 1)
        b = max(min(b, n), a + 1)
        return (a, b) if base is None else (base[a][0], base[b - 1][1])

    def _lit(self, ch: str, a: int, b: int, quoted: bool) -> None:
        w = self._cur()
        if not w.parts or w.parts[-1].kind != "lit" or w.parts[-1].quoted != quoted:
            w.parts.append((_make_part or _makers()[0])("lit", quoted=quoted))
        s, e = self.src(a, b)
        w.parts[-1].runs.append((ch, (s,), (e,)))

    def _lit_run(self, a: int, b: int, quoted: bool) -> None:
        """s[a:b] as literals, each at its own span: what _lit does per character, as one run."""
        if a >= b:
            return
        base = self.base
        if b > (len(self.s) if base is None else len(base)):  # positions past the mapped text: src() clamps
            for k in range(a, b):
                self._lit(self.s[k], k, k + 1, quoted)
            return
        w = self._cur()
        if not w.parts or w.parts[-1].kind != "lit" or w.parts[-1].quoted != quoted:
            w.parts.append((_make_part or _makers()[0])("lit", quoted=quoted))
        if base is None:
            w.parts[-1].runs.append((self.s[a:b], tuple(range(a, b)), tuple(range(a + 1, b + 1))))
            return
        spans = base[a:b]
        w.parts[-1].runs.append((self.s[a:b], tuple([sp[0] for sp in spans]), tuple([sp[1] for sp in spans])))

    def _cur(self) -> Word:
        if self.word is None:
            self.word = (_make_word or _makers()[1])(local_start=self.i)  # Word(local_start=self.i)
            if self.conditions:  # a word rendered only when the innermost `{{ if }}` holds
                self._raw_part("var", *self.conditions[-1][1:], False, name=self.conditions[-1][0], style="go-if")
        return self.word

    def _action(self, quoted: bool, limit: Optional[int] = None) -> bool:
        """A Go template action at self.i: its value is a reference, control actions render nothing.
        `limit`: where the quoted text being read ends; an action running past it (`'{{.' }}`) is not taken,
        so that no word's span reaches into the next one."""
        found = action_at(self.s, self.i) if self.go else None
        if found is None or (limit is not None and found[0] > limit):
            return False
        end, body, kind = found
        if kind == OPEN:
            self.conditions.append((body, self.i, end))
            if self.word is not None:  # the rest of this word is conditional, so the word is
                self._raw_part("var", self.i, end, quoted, name=body, style="go-if")
        elif kind == END and self.conditions:
            self.conditions.pop()
        elif kind not in (ELSE, END):
            self._raw_part("var", self.i, end, quoted, name=body, style="go")
        self.i = end
        return True

    def _fed_to_ssh(self, at: int) -> bool:
        """The pipeline the here-document whose delimiter is `out[at]` feeds has an `ssh` (`ssh HOST <<EOV`,
        `cat <<EOV | ssh HOST bash`): HOST runs the body. Only that pipeline's words: an `ssh` earlier on the line
        (`ssh -f HOST true; bash <<EOV`) leaves the body this host's."""
        def stops(item) -> bool:
            return isinstance(item, Op) and item.text not in ("|", "|&") and not item.text.startswith("redir:")
        lo = at
        while lo > self.line_at and not stops(self.out[lo - 1]):
            lo -= 1
        hi = at
        while hi < len(self.out) and not stops(self.out[hi]):
            hi += 1
        return any(_text(w).rsplit("/", 1)[-1] == "ssh" for w in self.out[lo:hi] if isinstance(w, Word))

    def _end_word(self) -> None:
        if self.word is not None and (self.word.parts or self.word.had_quotes):
            self.word.src_span = self.src(self.word.local_start, max(self.i, self.word.local_start + 1))
            if self.array is not None:
                self.array.array.append(self.word)  # type: ignore[union-attr]
                self.word = None
                return
            self.out.append(self.word)
            if self.heredoc is not None:  # bash: "If any part of word is quoted" the body is not expanded
                quoted = self.word.had_quotes or any(p.quoted for p in self.word.parts)
                self.bodies.append((_text(self.word), self.heredoc, quoted))
                self.body_at.append(len(self.out) - 1)  # where its `<<` sits: which pipeline it feeds
                self.heredoc = None
        self.word = None

    def _raw_part(self, kind: str, a: int, b: int, quoted: bool, **kw: object) -> None:
        part = (_make_part or _makers()[0])(kind, quoted=quoted, **kw)
        base = self.base
        if a >= b:
            part.runs = []
        elif b <= (len(self.s) if base is None else len(base)):  # each character's own span, as src(k, k + 1)
            # gives it inside the mapped text: made at once (a `$NAME` or `{{ .x }}` was a src() call a character)
            part.runs = [(self.s[a:b], tuple(range(a, b)), tuple(range(a + 1, b + 1)))] if base is None else \
                [(self.s[a:b], tuple([sp[0] for sp in base[a:b]]), tuple([sp[1] for sp in base[a:b]]))]
        else:  # past the mapped text: src() clamps
            spans = [self.src(k, k + 1) for k in range(a, b)]
            part.runs = [(self.s[a:b], tuple([sp[0] for sp in spans]), tuple([sp[1] for sp in spans]))]
        self._cur().parts.append(part)

    def run(self) -> tuple[list[object], list[tuple[str, int, int]]]:
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c not in _SPECIAL:  # the last branch below, tested first: most of a script is runs of literals
                self._plain_run(s)
            elif c == " ":  # the next most common: `c in " \t\r"` below
                self._end_word()
                self.i += 1
            elif c == "\\" and self.i + 1 < n and s[self.i + 1] == "\n":
                self.i += 2  # line continuation: joins the lines, no word break
            elif c == "\\":
                if self.i + 1 < n:
                    self._lit(s[self.i + 1], self.i, self.i + 2, True)
                self.i += 2
            elif c in " \t\r":
                self._end_word()
                self.i += 1
            elif c == "\n" and self.array is not None:  # an array's elements may span lines
                self._end_word()
                self.i += 1
            elif c == "\n":
                self._end_word()
                self.arith = 0  # a `((` left open (a typo) ends at its line, never hides a later here-document
                self.out.append(Op(";", *self.src(self.i, self.i + 1)))
                self.i += 1
                if self.bodies:  # here-document bodies start at this line: data, unless a shell reads them
                    line = [w for w in self.out[self.line_at:] if isinstance(w, (Word, Op))]
                    words = [_text(w) for w in line if isinstance(w, Word)]
                    at = [k for k, w in enumerate(line) if isinstance(w, Word)]
                    targets = frozenset(n for n, k in enumerate(at)  # a redirection's target: `> run.sh`, `<<EOV`
                                        if k and type(line[k - 1]) is Op and line[k - 1].text.startswith("redir:"))
                    expanded = {n: all(p.kind == "lit" or p.quoted and p.kind == "var" and p.name.isidentifier()
                                       for p in line[k].parts)  # True: `"$HOST"`, one word whatever its value
                                for n, k in enumerate(at) if any(p.kind != "lit" for p in line[k].parts)}
                    self.i, scripts = after_bodies(s, self.i, self.bodies, words, self.base,
                                                   [self._fed_to_ssh(at) for at in self.body_at], targets, expanded)
                    for body in scripts:  # each a HereBody (heredoc_scripts.py), marked as a redirect's target is:
                        self.out += (Op("redir:body", body.base[0][0], body.base[-1][1]), body)  # no per-word test
                    self.bodies, self.body_at = [], []
                self.line_at, self.heredoc = len(self.out), None
            elif c == "#" and self.word is None:
                while self.i < n and s[self.i] != "\n":
                    self.i += 1
            elif c == "'":
                self._single()
            elif c == '"':
                self._double()
            elif c == "$":
                self._dollar(quoted=False)
            elif c == "`":
                self._backtick(quoted=False)
            elif c == "{" and self._action(False):
                pass
            elif self.arith and c in "<>&|":
                self._lit_run(self.i, self.i + 1, False)
                self.i += 1
            elif c in "<>" or (c == "&" and s.startswith("&>", self.i)):
                self._redirect()
            elif c == "(" and self.word is not None and _ARRAY_START.fullmatch(_text(self.word)) \
                    and all(p.kind == "lit" and not p.quoted for p in self.word.parts):
                self.word.array = []
                self._end_word()
                self.array = self.out[-1]  # type: ignore[assignment]
                self.i += 1
            elif c == ")" and self.array is not None:
                self._end_word()
                self.array = None
                self.i += 1
            elif c in ";&|()":
                if c == "(" and (self.arith or self._arith_command(s)):
                    self.arith += 1  # `((` typed together where a command starts (`( (` are two subshells)
                elif c == ")" and self.arith:
                    self.arith -= 1
                self._end_word()
                op = next(o for o in OPERATORS if s.startswith(o, self.i))
                self.out.append(Op(op, *self.src(self.i, self.i + len(op))))
                self.i += len(op)
            else:  # `#` inside a word, `{` that starts no action
                self._plain_run(s)
        self._end_word()
        return self.out, self.problems

    def _arith_command(self, s: str) -> bool:
        """Is the `((` at self.i bash's arithmetic command? Where a command starts, and only when the `)` that
        matches its second `(` is followed at once by `)` (nesting.arith_closed); else nested subshells
        (`((vllm serve m > log) &)` runs vllm with its output redirected, in the background)."""
        return s.startswith("((", self.i) and self._command_start() and arith_closed(s, self.i)

    def _command_start(self) -> bool:
        """May a command start here (no word under way, after an operator or a reserved word that a command
        follows)? Where `((` is bash's arithmetic command: `for ((` too."""
        if self.word is not None:
            return False
        last = self.out[-1] if self.out else None
        if last is None or type(last) is Op:
            return last is None or not last.text.startswith("redir:")
        return type(last) is Word and _text(last) in _BEFORE_COMMAND

    def _plain_run(self, s: str) -> None:
        """Literal characters from self.i, as many as _PLAIN_RUN takes (at least one)."""
        run = _PLAIN_RUN.match(s, self.i)
        end = run.end() if run else self.i + 1
        if self.go:  # a run stops where an action may start
            end = max(self.i + 1, next_action(s, self.i + 1, end))
        self._lit_run(self.i, end, False)
        self.i = end

    def _redirect(self) -> None:
        s = self.s
        # `2>&1`: a word made only of digits right before the operator is the fd.
        w = self.word
        if w is not None and len(w.parts) == 1 and w.parts[0].kind == "lit" and not w.parts[0].quoted \
                and all(text.isdigit() for text, _, _ in w.parts[0].runs):  # runs are never empty
            self.word = None
        else:
            self._end_word()
        op = next(o for o in REDIRECTS if s.startswith(o, self.i))
        self.out.append(Op("redir:" + op, *self.src(self.i, self.i + len(op))))
        if op in ("<<", "<<-"):
            self.heredoc = op == "<<-"
        self.i += len(op)


def _text(word: Word) -> str:
    """A word's characters, quotes removed (a here-document's delimiter as the shell compares it)."""
    return "".join(run[0] for part in word.parts for run in part.runs)


def lex(text: str, base: Optional[list[Span]] = None, k8s: bool = False, go: bool = False, outer_dq: bool = False
        ) -> tuple[list[object], list[tuple[str, int, int]]]:
    """Words and operators of a shell string, plus problems found on the way (go: Go template actions are
    references, see gotemplate.py; outer_dq: see Lexer)."""
    return Lexer(text, base, k8s, go, outer_dq).run()
