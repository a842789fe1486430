"""Flags a launch script appends in a loop (engines/array_rests.py, shellarrays.py, command_strings._appended).

A loop may run any number of times: what was there before it is known, what it appends is not, and no verdict
may rest on what it appends. Before, three shapes lost the known part and took the engine's default (131,072
for Llama-3.1-8B, a false CTX201 on an L4 whose pool holds ~25k): `A=("${A[@]}" --foo "$x")` (the array set
in a loop: unknown as a whole), `S="$S --foo $x"` and `S+=" --foo $x"` (the scalar likewise), and a flag the
loop appends with a value (`A+=(--max-model-len 200000)`) vanished into the unknown rest, so the value before
the loop, or the default, was checked although bash runs the engine with the loop's. Checked with bash 5.2:
`A=(--max-model-len 4096); for x in a b; do A=("${A[@]}" --foo "$x"); done` gives
`--max-model-len 4096 --foo a --foo b`, and the same for the two scalar spellings.
"""
from __future__ import annotations

from helpers import run

HEAD = "#!/bin/bash\n#SBATCH --gres=gpu:l4:1\n"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def check(tmp_path, body: str) -> str:
    (tmp_path / "serve.sh").write_text(HEAD + body)
    return run(["check", "--isolated", "--select", "CTX008,CTX109,CTX201", str(tmp_path / "serve.sh")]).out


def test_an_array_reassigned_with_itself_in_a_loop_keeps_its_elements(tmp_path):
    out = check(tmp_path, 'ARGS=(--max-model-len 4096)\nfor x in a b; do ARGS=("${ARGS[@]}" --foo "$x"); done\n'
                f'vllm serve {MODEL} "${{ARGS[@]}}"\n')
    assert out == ""


def test_a_scalar_appended_in_a_loop_keeps_its_words(tmp_path):
    for line in ('ARGS="$ARGS --foo $x"', 'ARGS+=" --foo $x"'):
        out = check(tmp_path, f'ARGS="--max-model-len 4096"\nfor x in a b; do {line}; done\nvllm serve {MODEL} $ARGS\n')
        assert out == "", line


def test_a_flag_a_loop_appends_with_a_value_is_not_known(tmp_path):
    unknown = ("CTX008 [info] values ctxlint cannot resolve: --max-model-len ${ARGS[@]} (appended inside a loop or "
               "after `&&`, so whether and how often is not known); the checks that need them are skipped (set them "
               "literally) (unresolved-value)\n")
    # the default (nothing before the loop) and a value before it that the loop replaces: neither is checked
    out = check(tmp_path, f'ARGS=()\nfor x in a b; do\n  ARGS+=(--max-model-len 200000)\ndone\nvllm serve {MODEL} '
                '"${ARGS[@]}"\n')
    assert out == f"{tmp_path / 'serve.sh'}:5:26: {unknown}"
    out = check(tmp_path, f'ARGS=(--max-model-len 200000)\nfor x in a b; do ARGS+=(--max-model-len=4096); done\n'
                f'vllm serve {MODEL} "${{ARGS[@]}}"\n')
    assert out == f"{tmp_path / 'serve.sh'}:4:41: {unknown}"
    out = check(tmp_path, f'ARGS=(--max-model-len 200000)\n[[ -n $Q ]] && ARGS+=(--max-model-len 4096)\n'
                f'vllm serve {MODEL} "${{ARGS[@]}}"\n')
    assert out == f"{tmp_path / 'serve.sh'}:4:39: {unknown}"


def test_what_the_loop_does_not_type_leaves_the_known_elements(tmp_path):
    # `--foo` and a lone switch: the window before the loop is still the one checked (an error here)
    out = check(tmp_path, f'ARGS=(--max-model-len 200000)\nfor x in a b; do ARGS+=(--foo "$x" --enforce-eager); '
                f'done\nvllm serve {MODEL} "${{ARGS[@]}}"\n')
    assert [line.split(" [")[0] for line in out.splitlines()] == [
        f"{tmp_path / 'serve.sh'}:3:23: CTX109", f"{tmp_path / 'serve.sh'}:3:23: CTX201"]


def test_a_partly_known_variable_as_arguments_gives_its_words(tmp_path):
    # Before: `$ARGS` with an unknown part was one unknown word the parser skips, and the default was checked.
    out = check(tmp_path, f'ARGS="--max-model-len $(cat len.txt) --foo"\nvllm serve {MODEL} $ARGS\n')
    assert out == (f"{tmp_path / 'serve.sh'}:3:23: CTX008 [info] values ctxlint cannot resolve: --max-model-len "
                   "$(cat len.txt) (command substitution, not evaluated); the checks that need them are skipped (set "
                   "them literally) (unresolved-value)\n")


def test_a_flag_a_loop_appends_to_a_scalar_with_a_value_is_not_known(tmp_path):
    unknown = ("CTX008 [info] values ctxlint cannot resolve: --max-model-len ${S} (S is set inside a branch or loop of "
               "the script); the checks that need them are skipped (set them literally) (unresolved-value)\n")
    out = check(tmp_path, 'S="--max-model-len 200000"\nfor x in a b; do S="$S --max-model-len 4096"; done\n'
                f'vllm serve {MODEL} $S\n')
    assert out == f"{tmp_path / 'serve.sh'}:4:40: {unknown}"
    out = check(tmp_path, 'S="--max-model-len 200000"\nfor x in a b; do S+=" --max-model-len=$x --enforce-eager"; '
                f'done\nvllm serve {MODEL} $S\n')
    assert out == f"{tmp_path / 'serve.sh'}:4:39: {unknown}"
    out = check(tmp_path, f'S="vllm serve {MODEL} --max-model-len 200000"\nfor x in a b; do S+=" --max-model-len '
                '4096"; done\neval $S\n')
    assert out == f"{tmp_path / 'serve.sh'}:4:39: {unknown}"
    # glued to the last word (`S+="$x"`): that word is not known either
    out = check(tmp_path, f'S="--max-model-len 200"\nfor x in a b; do S+="$x"; done\nvllm serve {MODEL} $S\n')
    assert out == f"{tmp_path / 'serve.sh'}:4:22: {unknown}"


def test_a_quoted_flag_with_an_unknown_value_a_loop_appends(tmp_path):
    out = check(tmp_path, f'ARGS=(--max-model-len 200000)\nfor x in a b; do ARGS+=("--max-model-len=$x"); done\n'
                f'vllm serve {MODEL} "${{ARGS[@]}}"\n')
    assert out == (f"{tmp_path / 'serve.sh'}:4:42: CTX008 [info] values ctxlint cannot resolve: --max-model-len "
                   "${ARGS[@]} (appended inside a loop or after `&&`, so whether and how often is not known); the "
                   "checks that need them are skipped (set them literally) (unresolved-value)\n")


def test_a_flag_that_ends_a_loops_append_takes_its_value_from_what_follows(tmp_path):
    # bash 5.2: each of these serves --max-model-len 4096 (the flag's value comes from the unquoted `$x`, from the
    # next append, or from the word after the expansion). Before, the flag ending the append was read as a switch
    # and dropped, so 200000 stood: a false CTX109 and CTX201.
    arrays = ("appended inside a loop or after `&&`, so whether and how often is not known", "${A[@]}")
    scalar = ("S is set inside a branch or loop of the script", "${S}")
    for body, at, (why, rest) in (
            ('A=(--max-model-len 200000)\nfor x in 4096; do A+=(--max-model-len $x); done\n'
             f'vllm serve {MODEL} "${{A[@]}}"\n', "4:23", arrays),
            ('A=(--max-model-len 200000)\nfor x in a; do A+=(--max-model-len); A+=(4096); done\n'
             f'vllm serve {MODEL} "${{A[@]}}"\n', "4:20", arrays),
            ('S="--max-model-len 200000"\nfor x in a; do S="$S --max-model-len"; S="$S 4096"; done\n'
             f'vllm serve {MODEL} $S\n', "4:22", scalar),
            ('S="--max-model-len 200000"\nfor x in a; do S+=" --max-model-len"; done\n'
             f'vllm serve {MODEL} $S 4096\n', "4:21", scalar)):
        assert check(tmp_path, body) == (
            f"{tmp_path / 'serve.sh'}:{at}: CTX008 [info] values ctxlint cannot resolve: --max-model-len {rest} "
            f"({why}); the checks that need them are skipped (set them literally) (unresolved-value)\n"), body


def test_the_references_near_a_word_are_those_a_full_scan_finds():
    # word_pieces.Near (word_expansion._Near before): `"${A[@]}"` of the flags 5,000 loops append read each word's
    # references against all of them (7.8 s of CPU for 5,000 loops, 2.0 s for 2,500); now the few near each word (1.65 s, 0.9 s).
    import random

    from ctxlint.engines.tokens import VarRef
    from ctxlint.engines.word_pieces import Near

    rng = random.Random(7)
    refs = [VarRef(f"V{k}", "shell", a, a + rng.randint(0, 30), None, None, None)
            for k, a in enumerate(rng.randint(0, 2000) for _ in range(400))]
    near = Near(refs)
    for low in range(0, 2100, 7):
        high = low + rng.randint(1, 40)
        assert near.overlapping(low, high) == tuple(r for r in refs if r.start < high and r.end > low)
