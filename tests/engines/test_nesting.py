"""Where `${...}`, `$(...)` and backquotes end (engines/nesting.py), as bash 5.2 matches them.

Every expectation below was checked with `bash -c` (GNU bash 5.2.15): `unset x; printf '<%s>' ...`.
"""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from ctxlint.engines.nesting import closing
from ctxlint.engines.shellwords import split_shell


@pytest.mark.parametrize("text, closed", [
    ("${x:-'}'} tail", "${x:-'}'}"),                                         # bash: <}>
    ('${x:-"}"} tail', '${x:-"}"}'),                                         # <}>
    ("${x:-a\\}b} tail", "${x:-a\\}b}"),                                     # <a}b>
    ("${x:-$(echo '}')} tail", "${x:-$(echo '}')}"),                         # <}>
    ("${IP:-$(hostname -I | awk '{print $1}')} x", "${IP:-$(hostname -I | awk '{print $1}')}"),
    ("${x:-`echo }`} tail", "${x:-`echo }`}"),                               # <}>
    ("${x:-$'}'} tail", "${x:-$'}'}"),                                       # <}>
    ("${x:-${y:-a}b} tail", "${x:-${y:-a}b}"),
    ("${x:-{a}b} tail", "${x:-{a}"),                                         # a bare `{` opens nothing: <{ab}>
    ("${x:-$((1+2))} tail", "${x:-$((1+2))}"),                               # <3>
])
def test_a_parameter_expansion_ends_at_the_brace_bash_matches(text, closed):
    assert text[:closing(text, 2, "${")] == closed


@pytest.mark.parametrize("text, closed", [
    ('$(echo ")") tail', '$(echo ")")'),                                     # <)>
    ("$(echo ')' ${x:-)}) tail", "$(echo ')' ${x:-)})"),
    ("$(a $(b) (c)) tail", "$(a $(b) (c))"),
])
def test_a_command_substitution_ends_at_its_own_parenthesis(text, closed):
    assert text[:closing(text, 2, "(")] == closed


@pytest.mark.parametrize("text, opener", [("${x:-'}", "${"), ("${x:-$(echo }", "${"), ("$(echo ')'", "("),
                                          ("`echo \\`", "`")])
def test_a_construct_the_text_never_closes_is_minus_one(text, opener):
    assert closing(text, len(opener) if opener != "`" else 1, opener) == -1


@given(st.text(alphabet="${}()'\"`\\ ax\n", max_size=60), st.sampled_from(["${", "(", "`"]))
def test_closing_never_raises_and_stays_inside_the_text(text, opener):
    end = closing(text, 0, opener)
    assert end == -1 or 0 < end <= len(text)


def test_a_default_holding_a_quoted_or_substituted_brace_ends_no_later_command():
    # Before: the `}` inside awk's program ended the expansion, the `'` after it opened a quote that never
    # closed, and the vllm command after it was never read (sweep 29: aws-do-eks disagg/lws-ep.yaml).
    for first in ("IP=${IP:-$(hostname -I | awk '{print $1}')}", "G=${G:-'}'}", "G=${G:-`echo }`}"):
        result = split_shell(f"{first}\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n",
                             defaults=True)
        assert [c.argv for c in result.commands] == [
            ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]], first
        assert result.problems == (), first


def test_a_quoted_brace_default_is_its_value_at_its_own_position():
    text = "vllm serve m --max-model-len ${G:-'}'} --port 1\n"
    tokens = split_shell(text, defaults=True).commands[0].tokens
    assert [t.text for t in tokens[-3:]] == ["}", "--port", "1"]
    assert tokens[-3].starts == (text.index("'}'") + 1,)
