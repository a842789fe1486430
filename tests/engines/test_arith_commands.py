"""`(( EXPR ))` and `let`: bash's arithmetic commands assign in the current shell (lint/engines/arith_commands.py;
bash manual, Shell Arithmetic). Read as commands before, `(( L++ ))` left L unchanged and `((L=L*2))` made it the
text `L*2`, a false CTX301 at the `--max-model-len $L` after it."""
from __future__ import annotations

import pytest

from ctxlint.engine import lint_text
from ctxlint.engines.shellwords import split_shell


def _argv(text: str) -> list:
    return [c.argv for c in split_shell(text, defaults=True).commands]


@pytest.mark.parametrize("update, value", [
    ("(( L++ ))", "4097"), ("(( ++L ))", "4097"), ("(( L-- ))", "4095"), ("(( L += 2 ))", "4098"),
    ("((L=L*2))", "8192"), ("(( L = $L / 2 ))", "2048"), ("(( L %= 1000 ))", "96"), ("let L++", "4097"),
    ("let 'L = L * 2'", "8192"), ("(( L < 3 ))", "4096"),  # a comparison assigns nothing
    ("(( L = (L + 1) * 2 ))", "8194"),  # parentheses inside: the lexer's `(` `)`, the expression's still
    ("(( L = 010 ))", "8"), ("(( L = 0100 + L ))", "4160"),  # a leading 0 is octal (bash manual, Shell Arithmetic)
    ("builtin let L++", "4097"), ("command let 'L += 1'", "4097"),
])
def test_one_update_of_a_known_integer_is_its_new_value(update, value):
    assert _argv(f"L=4096\n{update}\nvllm serve m --max-model-len $L\n") == \
        [["vllm", "serve", "m", "--max-model-len", value]]


@pytest.mark.parametrize("update", [
    "(( L = L * 2, M = 1 ))",  # a comma list
    "(( L = M++ ))",  # another variable changes too
    "(( L += N ))",  # N is the environment's, not known
    "for i in 1 2; do (( L++ )); done",  # a loop: any number of times
    "[ -n \"$X\" ] && (( L++ ))",  # may not run
    # operators the lexer reads as the shell's: `>` a redirect, `&` a background, `<<` a here-document, a line
    # break a command's end; none of them left L as it was (5 > 3 is 1, 4096 & 255 is 0)
    "(( L = 5 > 3 ))", "(( L = L & 255 ))", "(( L = 1 << 3 ))", "(( L = L\n * 2 ))",
    "(( L[0] = 3 ))",  # `$L` is L[0]
    "(( L = 9223372036854775807 + 1 ))", "(( L = L * 4611686018427387904 ))",  # 64 bits wrap in bash
    "(( L = 08 ))",  # `08` is no octal number: bash's error
])
def test_an_update_not_decidable_leaves_the_value_unknown(update):
    assert _argv(f"L=4096\n{update}\nvllm serve m --max-model-len ${{L:-unknown}}\n")[-1] == \
        ["vllm", "serve", "m", "--max-model-len", "${L:-unknown}"]  # (`| cat`: a command before it)


@pytest.mark.parametrize("update", ["(( L++ )) &", "(( L++ )) | cat", "true | (( L++ ))", "(( L=6 )) && L=7 &"])
def test_an_update_in_a_job_or_a_pipeline_leaves_the_script_s_value(update):
    # a subshell's (apart_state.py); bash 5.2.15 prints 4096 for each (without lastpipe)
    assert _argv(f"L=4096\n{update}\nvllm serve m --max-model-len $L\n")[-1][-1] == "4096"


def test_let_assigns_each_word():
    assert _argv("L=5\nlet L=L*2 M=3\nvllm serve m $L $M\n") == [["vllm", "serve", "m", "10", "3"]]


def test_nested_subshells_are_not_arithmetic():
    assert _argv("L=5\n( (L=7) )\nvllm serve m $L\n") == [["vllm", "serve", "m", "5"]]


def test_the_doubled_length_is_checked_not_refused():
    text = ("#!/bin/bash\nL=4096\n((L=L*2))\n"
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len $L\n")
    assert [f.rule for f in lint_text(text, "serve.sh").findings] == ["CTX208"]  # was CTX301 on 'L*2'


def test_two_subshells_typed_together_are_no_arithmetic():
    # `((a); b)`: no `))` closes the `((`, so bash reads two subshells; the commands after it are still read
    assert _argv("((cd /x); true)\nvllm serve m --max-model-len 4096\n")[-1] == \
        ["vllm", "serve", "m", "--max-model-len", "4096"]


@pytest.mark.parametrize("update", ["((L<<=1))", "(( L >>= 1 ))", "(( L |= 1 ))", "(( L &= 7 ))"])
def test_a_shift_or_bit_update_starts_no_here_document_and_hides_nothing(update):
    # bash 5.2.15: `L=4096; ((L<<=1))` is 8192, no here-document. Before, `<<` opened one whose delimiter `=1`
    # never came: every later line was its body, the launch lost (or, with `|`, a pipe read L as 4096)
    text = f"L=4096\n{update}\nvllm serve m --max-model-len ${{L:-unknown}}\n=1\nvllm serve m2 --port 80\n"
    assert _argv(text) == [["vllm", "serve", "m", "--max-model-len", "${L:-unknown}"], ["=1"],
                           ["vllm", "serve", "m2", "--port", "80"]]


def test_a_comparison_in_arithmetic_is_no_redirect_and_a_here_document_after_it_is_one():
    assert _argv("L=4096\nif ((L>2)); then vllm serve m --max-model-len $L; fi\n") == \
        [["vllm", "serve", "m", "--max-model-len", "4096"]]
    # the here-document after `((...))` on its line is still one: its body is data
    assert _argv("L=1\n((L<2)) && cat <<EOF\nvllm serve x\nEOF\nvllm serve m $L\n") == \
        [["cat"], ["vllm", "serve", "m", "1"]]
    # `<<` outside `((` (a subshell's `( (`, an argument) is a here-document as before
    assert _argv("( (cat <<EOF\nvllm serve x\nEOF\n) )\nvllm serve m\n") == [["cat"], ["vllm", "serve", "m"]]


def test_nested_subshells_typed_together_keep_their_redirects_and_background():
    # bash's parse.y (parse_arith_cmd): `((` is arithmetic only when the `)` matching its second `(` is followed
    # by `)`; else two subshells (bash 5.2.15: `((sleep 0; echo hi > f) &)` writes f). Read as arithmetic, the
    # `> /tmp/log 2>&1` became vllm's arguments, a false CTX301 "unrecognized arguments"
    text = "((vllm serve m --max-model-len 4096 > /tmp/log 2>&1) &)\nvllm serve m2\n"
    assert _argv(text) == [["vllm", "serve", "m", "--max-model-len", "4096"], ["vllm", "serve", "m2"]]
    # a quoted `)` closes nothing; the arithmetic command after it is one still
    assert _argv("((echo ')' > f); vllm serve z)\nL=1\n((L++))\nvllm serve m $L\n") == \
        [["vllm", "serve", "z"], ["vllm", "serve", "m", "2"]]


@pytest.mark.parametrize("script, length, x", [
    # an assignment in `$(( ))` assigns (bash manual, Shell Arithmetic): `L++` is the old value, then L is one more
    # (an unset x takes its default, `unknown`)
    ("L=4096; x=$(( L++ ))", "4097", "4096"), ("L=4096; x=$(( ++L ))", "4097", "4097"),
    ("L=4096; x=\"$(( L += 2 ))\"", "4098", "4098"), ("L=4096; x=$((L=L*2))", "8192", "8192"),
    ("L=4096; L=$(( L++ ))", "4096", "unknown"),  # bash assigns L after expanding: the old value
    ("L=4096; echo $(( L-- ))", "4095", "unknown"),  # in any command's words
    # `declare -i` / `local -i`: every assignment is evaluated arithmetically, `+=` adds (bash manual, declare)
    ("declare -i L=4096*2", "8192", "unknown"), ("declare -i L=4096*2; L+=1", "8193", "unknown"),
    ("typeset -i L; L=2048+2048", "4096", "unknown"), ("declare -ix L=2*2048", "4096", "unknown"),
    ("f() { local -i L=1024*4; L+=4; x=$L; }; f", "unknown", "4100"),
    ("L=4096; declare +i L; L+=1", "40961", "unknown"),  # `+i` drops it: += appends again
])
def test_arithmetic_expansion_and_integer_variables_assign(script, length, x):
    assert _argv(f"{script}\nvllm serve m --max-model-len ${{L:-unknown}} --x ${{x:-unknown}}\n")[-1] == \
        ["vllm", "serve", "m", "--max-model-len", length, "--x", x]


@pytest.mark.parametrize("script", [
    "L=4096; x=$(( L++, M++ ))",  # more than one update
    "L=4096; x=$(( L += N ))",  # N is the environment's
    "L=4096; if [ -n \"$A\" ]; then x=$(( L++ )); fi",  # may not run: 4096 or 4097
    "declare -i L=Q",  # Q unset is 0 to bash, but the environment may set it
    "declare -i L=4096; L+=$N",
])
def test_an_arithmetic_assignment_not_decidable_leaves_the_value_unknown(script):
    assert _argv(f"{script}\nvllm serve m --max-model-len ${{L:-unknown}}\n")[-1] == \
        ["vllm", "serve", "m", "--max-model-len", "${L:-unknown}"]


def test_a_background_commands_expansion_assigns_in_its_subshell():
    assert _argv("L=4096\necho $(( L++ )) &\nvllm serve m --max-model-len $L\n")[-1] == \
        ["vllm", "serve", "m", "--max-model-len", "4096"]


@pytest.mark.parametrize("script, length, x", [
    # bash 5.2.15 (checked, `vllm() { echo "$@"; }` in front): an arithmetic assignment to a readonly name fails and L
    # keeps its value; in `$(( ))` it is an expansion error, so the command does not run and the rest of its line is
    # dropped (x stays unset, TP=2 not assigned); `(( ))` and `let` only fail. Before, L was read as 4097 / 5.
    ("x=$(( L++ )); TP=2", "4096", "unknown"), ("echo $(( L=5 )); TP=2", "4096", "unknown"),
    ("x=$(( L += 2 ))\nTP=2", "4096", "unknown"), ("(( L=5 )); TP=2", "4096", "unknown"),
    ("let L=5; TP=2", "4096", "unknown"), ("f() { readonly L; }; f\nx=$(( L+=1 ))\nTP=2", "4096", "unknown"),
])
def test_an_arithmetic_assignment_to_a_readonly_name_keeps_its_value(script, length, x):
    tp = "2" if "\n" in script or "((" in script[:2] or script.startswith("let") else "none"
    assert _argv(f"#!/bin/bash\nL=4096\nreadonly L\n{script}\n"
                 f"vllm serve m --max-model-len ${{L:-unknown}} --x ${{x:-unknown}} --tp ${{TP:-none}}\n")[-1] == \
        ["vllm", "serve", "m", "--max-model-len", length, "--x", x, "--tp", tp]


@pytest.mark.parametrize("script, launch", [
    # bash 5.2.15 (checked) expands a command's words in order, each `$(( ))` assigning as it goes: y is 4097 and
    # --x is 4097 there; read with the values before the command they were 4096. Now unknown, never a guess
    ("x=$(( L++ )) y=$(( L++ ))\nvllm serve m --max-model-len $y", ["$y"]),
    ("vllm serve m --max-model-len $(( L++ )) --x $L", ["$(( L++ ))", "--x", "$L"]),
    ("vllm serve m --max-model-len $L --x $(( L++ )) --y $L", ["$L", "--x", "$(( L++ ))", "--y", "$L"]),
    ("x=$(( L = L * 2 ))\nvllm serve m --max-model-len $x", ["8192"]),  # one `$(( ))`: one read
])
def test_a_name_a_commands_arithmetic_updates_and_reads_again_is_unknown(script, launch):
    assert _argv(f"L=4096\n{script}\n")[-1] == ["vllm", "serve", "m", "--max-model-len"] + launch


@pytest.mark.parametrize("function, length", [
    # bash 5.2.15 (checked): a function's `local -i L` is its local's; after the return `L=3*3` is the text 3*3
    # (before: 9, the attribute kept); `declare -g` in a function is the global's, attribute and value
    ("f() { local -i L; L=2*2048; }", "3*3"), ("f() { declare -gi L=2*2048; }", "9"),
    ("f() { declare -i L=2; }", "3*3"),
])
def test_a_functions_local_integer_attribute_ends_with_it(function, length):
    assert _argv(f"#!/bin/bash\n{function}\nf\nL=3*3\nvllm serve m --max-model-len $L\n")[-1][-1] == length


def test_declare_g_in_a_function_sets_the_global():
    # before: read as a local, restored at return (1, where bash gives 4096)
    assert _argv("#!/bin/bash\nL=1\nf() { declare -g L=4096; }\nf\nvllm serve m --max-model-len $L\n")[-1][-1] == \
        "4096"


@pytest.mark.parametrize("assign, value", [
    ("declare -i L; export L=2*4096", "8192"), ("declare -i L; readonly L=2*4096", "8192"),
    ("declare -i L=4; export L+=2", "6"), ("declare -i L=4; export -n L=3*3", "9"),
    ("declare -i L; export M=2*3 L=3*3", "9"), ("declare -i L=4; export L", "4"),
])
def test_export_and_readonly_evaluate_an_integer_variable_s_value(assign, value):
    # bash 5.2.15 (checked, `echo $L`): export and readonly assign as declare does, arithmetic for an integer name;
    # before, `export L=2*4096` was read as the text 2*4096 (and `export L+=2` as 42)
    assert _argv(f"{assign}\nvllm serve m --max-model-len $L\n")[-1][-1] == value


@pytest.mark.parametrize("command", ["L=6 true", "L=5 :", "f() { :; }; L=7 f"])
def test_an_integer_s_assignment_before_a_command_is_the_command_s_only(command):
    # bash 5.2.15: L stays 4096 after each (before: 6, 5, 7)
    assert _argv(f"declare -i L=4096\n{command}\nvllm serve m --max-model-len $L\n")[-1][-1] == "4096"
    assert _argv(f"declare -i L=4096\nL=2*3 2>e.txt\nvllm serve m --max-model-len $L\n")[-1][-1] == "6"


@pytest.mark.parametrize("maybe", ["wait || declare -i L", "[ -n \"$X\" ] && declare -i L"])
def test_an_integer_attribute_that_may_not_be_given_leaves_the_value_unknown(maybe):
    # bash 5.2.15: `wait || declare -i L; L=200000*2` leaves the text 200000*2 (before: read as 400000)
    assert _argv(f"L=4096\n{maybe}; L=200000*2\nvllm serve m --max-model-len $L\n")[-1][-1] == "$L"
