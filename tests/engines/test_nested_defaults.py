"""`${A:-${B}}` and `${A:-${B:-8192}}` in a launch script (engines/nested_defaults.py).

Before, any default holding a `$` was unknown (CTX008 `--max-model-len ${MAX_LEN}`), although bash expands it:
`B=4096; echo ${A:-${B}} ${A:-${C:-8192}} "${A:-"${C:-"16384"}"}"` prints `4096 8192 16384` (bash 5.2, dash 0.5.12).
"""
from __future__ import annotations

from ctxlint.engines.shellwords import split_shell
from helpers import run


def words(text: str) -> list[tuple[str, int, int, bool]]:
    """The last command's words after its first: (text, where its first and last characters are typed, whether
    unknown)."""
    tokens = split_shell(text, defaults=True).commands[-1].tokens[1:]
    return [(t.text, t.starts[0], t.ends[-1], bool(t.unresolved)) for t in tokens]


def test_the_inner_variable_the_script_sets():
    text = "B=4096\nc ${A:-${B}} ${A:-$B} \"${A:-\"$B\"}\""
    assert [w[0] for w in words(text)] == ["4096", "4096", "4096"]
    assert words(text)[0][1:3] == (text.index("${B}"), text.index("${B}") + 4)  # where B is typed


def test_the_inner_default_of_a_variable_nothing_sets():
    text = 'c ${A:-${C:-8192}} "${A:-"${C:-"16384"}"}" ${A-${C-32}}'
    assert words(text) == [("8192", 12, 16, False), ("16384", 32, 37, False), ("32", 51, 53, False)]


def test_what_is_not_known_stays_unknown():
    for text in ("c ${A:-${B}}",  # B set nowhere, no default of its own: the environment's
                 "B=$(cat f)\nc ${A:-${B:-1}}",  # set to a value ctxlint does not hold: not its default
                 "c ${A:-${B:-$(cat f)}}", "c ${A:-x${B}}", "c ${A:-${B:-'1'}}"):
        assert [w[3] for w in words(text)] == [True], text
    assert words("A=1\nB=2\nc ${A:-${B}}")[0][0] == "1"  # the outer one set: its own value


def test_a_script_reads_the_window_of_a_nested_default(tmp_path):
    (tmp_path / "serve.sh").write_text("#!/bin/bash\n#SBATCH --gres=gpu:l4:1\nB=200000\nvllm serve "
                                       "meta-llama/Llama-3.1-8B-Instruct --max-model-len ${MAX_LEN:-${B}}\n")
    out = run(["check", "--isolated", "--select", "CTX008,CTX109", str(tmp_path / "serve.sh")]).out
    assert out.startswith(f"{tmp_path / 'serve.sh'}:4:61: CTX109 [error] 200,000 > 131,072: ")


def test_a_colon_default_of_a_variable_set_empty_is_the_default():
    # bash 5.2 and dash 0.5.12: `B=""; A=""; echo ${A:-5} "${A:-6}" ${A-7}x ${A:-${B:-8192}} ${A:-${B}}` prints
    # `5 6 x 8192` (`:-` tests for a null value too, `-` only for an unset one). Before, the empty value was read
    # (`--max-model-len ""`: a false CTX301, and CTX201 at the engine's default).
    assert words('A=""\nc ${A:-5} "${A:-6}" ${A-7}x') == [("5", 12, 13, False), ("6", 21, 22, False),
                                                          ("x", 31, 32, False)]  # each where it is typed
    assert [w[:1] for w in words('A=""\nB=""\nc ${A:-${B:-8192}} "${A:-${B:-1}}" ${A-${B-16}} ${A:-${B}}')] == [
        ("8192",), ("1",)]


def test_a_quoted_inner_default_is_one_word():
    # bash, dash: `echo ${A:-${C:-"5 6"}}` is the one word `5 6`; the unquoted inner default splits
    assert [w[0] for w in words('c ${A:-${C:-"5 6"}} ${A:-${C:-5 6}}')] == ["5 6", "5", "6"]


def test_a_script_with_an_empty_variable_before_a_default_is_clean(tmp_path):
    (tmp_path / "serve.sh").write_text('#!/bin/bash\n#SBATCH --gres=gpu:l4:1\nLEN=""\nDEF=""\nvllm serve '
                                       'meta-llama/Llama-3.1-8B-Instruct --max-model-len "${LEN:-${DEF:-8192}}" '
                                       '--max-num-seqs "${SEQS:-}${LEN:-16}"\n')
    assert run(["check", "--isolated", str(tmp_path / "serve.sh")]).out == ""


def test_an_empty_variable_before_a_default_not_known_is_not_known():
    # tmielsch/turboquant-setup@e1091302e539e2b992896a2803f36d793fae833a:scripts/linux/start-server.sh sets
    # CONTEXT="" then CTX="${CONTEXT:-$CTX_9B}" (CTX_9B from a sourced profiles.conf) and runs `llama-server -c
    # "$CTX"`: bash gives the default, which is not known here. Before, the empty CONTEXT was read: `-c ""`, a
    # false CTX301 ("argument -c: expected one argument").
    for text in ('A=""\nc ${A:-$Z}', 'A=""\nc "${A:-${Z}}"', 'A=""\nc ${A:-$(cat f)}', 'A=""\nc ${A:=x$Z}'):
        assert [w[3] for w in words(text)] == [True], text
    assert words('A=""\nc ${A-$Z}x')[0][:1] == ("x",)  # `-` takes no default for a set A: the empty A, known


def test_a_launch_with_an_empty_variable_before_an_unknown_default_is_no_refusal(tmp_path):
    (tmp_path / "start.sh").write_text('#!/usr/bin/env bash\nCONTEXT=""\nCTX="${CONTEXT:-$CTX_9B}"\n'
                                       'exec llama-server -m /m/Qwen3-8B-Q4_K_M.gguf -c "$CTX" --port 8080\n')
    out = run(["check", "--isolated", "--select", "CTX301,CTX008", str(tmp_path / "start.sh")]).out
    assert "CTX301" not in out and "CTX008" in out


def test_an_empty_variable_assigned_a_default_not_known_is_not_known_after():
    # bash manual, Shell Parameter Expansion: `${A:=word}` assigns word's expansion to a null A. With word not
    # known here (`$Z` set nowhere, or by a sourced file), A is not known after it either; it kept the empty
    # value, so `CTX=""; : "${CTX:=$CTX_9B}"; llama-server -c "$CTX"` was `-c ""` (a false CTX301)
    for text in ('A=""\n: "${A:=$Z}"\nc "$A"', 'A=""\nX=${A:=$Z}\nc "$A"', 'A=""\n: ${A:=$(cat f)}\nc $A'):
        [word] = split_shell(text, defaults=True).commands[-1].tokens[1:]  # before: "" (known), or no word
        assert word.unresolved, text
    assert words('A=""\n: "${A:=8192}"\nc "$A"')[0][0] == "8192"  # a default read here is assigned, as before
    assert words('A=""\n: "${A=$Z}"\nc "$A"x')[0][:1] == ("x",)  # `=` assigns only an unset A: still empty
