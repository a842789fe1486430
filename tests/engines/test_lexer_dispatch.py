"""Lexer.run tests for a run of literals (and a blank) before its other branches, and Lexer._raw_part makes a
`$NAME`'s or an action's spans at once: the same words, operators and problems as the loop that tested them last and
the span of each character asked of src(), on every string of the samples and the corpus, and on made-up scripts
(also mapped through spans that end before the text, which src() clamps)."""
from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given, settings, strategies as st

from conftest import REPO, SHARED
from ctxlint.engines import lex_words, lexer
from ctxlint.engines.heredocs import after_bodies


class _Before(lexer.Lexer):
    """Lexer.run as it was: the oracle."""

    def run(self):
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c == "\\" and self.i + 1 < n and s[self.i + 1] == "\n":
                self.i += 2
            elif c == "\\":
                if self.i + 1 < n:
                    self._lit(s[self.i + 1], self.i, self.i + 2, True)
                self.i += 2
            elif c in " \t\r":
                self._end_word()
                self.i += 1
            elif c == "\n" and self.array is not None:
                self._end_word()
                self.i += 1
            elif c == "\n":
                self._end_word()
                self.arith = 0
                self.out.append(lex_words.Op(";", *self.src(self.i, self.i + 1)))
                self.i += 1
                if self.bodies:
                    words = [lexer._text(w) for w in self.out[self.line_at:] if isinstance(w, lex_words.Word)]
                    self.i, scripts = after_bodies(s, self.i, self.bodies, words, self.base)
                    for body in scripts:
                        self.out += (lex_words.Op("redir:body", body.base[0][0], body.base[-1][1]), body)
                    self.bodies = []
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
            elif self.arith and c in "<>&|":  # inside `(( ... ))` (the lexer's arithmetic command, as it is)
                self._lit_run(self.i, self.i + 1, False)
                self.i += 1
            elif c in "<>" or (c == "&" and s.startswith("&>", self.i)):
                self._redirect()
            elif c == "(" and self.word is not None and lexer._ARRAY_START.fullmatch(lexer._text(self.word)) \
                    and all(p.kind == "lit" and not p.quoted for p in self.word.parts):
                self.word.array = []
                self._end_word()
                self.array = self.out[-1]
                self.i += 1
            elif c == ")" and self.array is not None:
                self._end_word()
                self.array = None
                self.i += 1
            elif c in ";&|()":
                if c == "(" and (self.arith or self._arith_command(s)):
                    self.arith += 1
                elif c == ")" and self.arith:
                    self.arith -= 1
                self._end_word()
                op = next(o for o in lexer.OPERATORS if s.startswith(o, self.i))
                self.out.append(lex_words.Op(op, *self.src(self.i, self.i + len(op))))
                self.i += len(op)
            else:
                run = lexer._PLAIN_RUN.match(s, self.i)
                end = run.end() if run else self.i + 1
                if self.go:
                    end = max(self.i + 1, lexer.next_action(s, self.i + 1, end))
                self._lit_run(self.i, end, False)
                self.i = end
        self._end_word()
        return self.out, self.problems

    def _raw_part(self, kind, a, b, quoted, **kw):
        """Lexer._raw_part as it was: a src() call a character."""
        part = lex_words.Part(kind, quoted=quoted, **kw)
        spans = [self.src(k, k + 1) for k in range(a, b)]
        part.runs = [(self.s[a:b], tuple([sp[0] for sp in spans]), tuple([sp[1] for sp in spans]))] if a < b else []
        self._cur().parts.append(part)


def _same(text: str, go: bool = False) -> None:
    for k8s in (False, True):
        assert lexer.Lexer(text, None, k8s, go).run() == _Before(text, None, k8s, go).run(), text
    base = [(k + 3, k + 4) for k in range(len(text))]  # the text as an `sh -c` string's, at other positions
    assert lexer.Lexer(text, base, False, go).run() == _Before(text, base, False, go).run(), text
    short = base[:len(text) * 2 // 3]  # a map that ends before the text: src() clamps
    if short:
        assert lexer.Lexer(text, short, False, go).run() == _Before(text, short, False, go).run(), text


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def test_every_string_of_the_samples_and_corpus_lexes_as_before():
    seen = 0
    for root in (REPO / "samples", SHARED / "corpus" / "real"):
        for path in sorted(Path(root).rglob("*")):
            if path.suffix == ".sh":
                _same(path.read_text(encoding="utf-8", errors="replace"))
                continue
            if path.suffix not in (".yaml", ".yml"):
                continue
            try:
                docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
            except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
                continue
            for text in {t for doc in docs for t in _strings(doc) if " " in t or "$" in t}:
                _same(text, go="{{" in text)
                seen += 1
    # the samples alone hold a few dozen such strings; the real corpus (when ../shared is there) hundreds
    assert seen > (200 if (SHARED / "corpus" / "real").is_dir() else 10)


SHELLISH = "ab1 =-\\\n\t\r#'\"$`{}<>&;|()x"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=SHELLISH, max_size=60), st.booleans())
def test_made_up_scripts_lex_as_before(text, go):
    _same(text, go)


def test_scripts_with_every_kind_of_item():
    for text in ("vllm serve m --max-model-len 8192 # a comment\necho a#b {x} {{ .V }}",
                 "A=(a b c) && B+=(d) ; cat <<EOF > f\nbody $X\nEOF\nrun 2>&1 | tee log &",
                 "python -m x \\\n  --y \"$Z\" '${Q}' `date` $(id) &> out; (sub) || true"):
        _same(text, go=True)
        _same(text)
