"""split_list's shortcut (execform._words) for exec-form lists already words, against its general path.

The shortcut is taken when no item holds a `$` (nor, with go=True, a `{{`) and no shell runs a script; the
general path is forced by making split_list's test for that (`any`) always true.
"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from ctxlint.engines import execform

_WORDS = ["vllm", "serve", "--model", "m", "env", "/usr/bin/env", "exec", "nohup", "sudo", "-E", "A=B", "X_1=",
          "sh", "bash", "-c", "-lc", "--", "echo hi", "a b", "'q'", '"d"', "{{", "{{ .Values.x }}", "$(HOME)",
          "$$", "${X}", "$Y", "srun", "timeout", "1h", "python3", "-m", "", " ", "\t", "é", "command", "-v",
          "builtin", "then", "{", "!"]
_ITEMS = st.one_of(st.sampled_from(_WORDS), st.text(max_size=6), st.integers(-3, 70000), st.booleans(),
                   st.none(), st.floats(allow_nan=False))


def _general(items, **kw):
    execform.any = lambda _: True  # a module global shadows the builtin
    try:
        return execform.split_list(items, **kw)
    finally:
        del execform.any


@settings(max_examples=600, deadline=None)
@given(st.lists(_ITEMS, max_size=8), st.booleans(), st.booleans(), st.booleans())
def test_words_as_the_general_path(items, go, k8s, argv):
    kw = dict(resolver=lambda name: {"HOME": "/root", "X": "1"}.get(name), go=go, k8s=k8s, argv=argv)
    assert execform.split_list(items, **kw) == _general(items, **kw)


def test_the_shortcut_is_taken_and_left():
    calls = []
    real = execform._words
    try:
        execform._words = lambda *a: calls.append(a) or real(*a)
        execform.split_list(["env", "A=1", "vllm", "serve", 8000])
        execform.split_list(["vllm", "$(HOME)"])
        execform.split_list(["sh", "-c", "vllm serve"])
    finally:
        execform._words = real
    assert len(calls) == 1
    result = execform.split_list(["env", "A=1", "vllm", "serve", 8000])
    (command,) = result.commands
    assert [t.text for t in command.tokens] == ["vllm", "serve", "8000"]
    assert [e.name for e in command.env] == ["A"] and command.wrappers == ("env",)
    assert (command.tokens[2].item, command.tokens[2].starts, command.tokens[2].ends) == (4, (0, 1, 2, 3), (1, 2, 3, 4))
    assert (result.refs, result.problems, result.unsure) == ((), (), frozenset())
