"""Command strings with unknown parts (engines/command_strings.py): `CMD="vllm serve $MODEL ..."` run as `$CMD`,
`bash -c "$CMD"` or `eval "$CMD"` gives its words where they are typed, the unknown ones as their references;
anywhere else, or set where it may not run, the variable stays unknown as a whole."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

ASSIGN = 'CMD="vllm serve $MODEL --max-model-len 8192"\n'


@pytest.mark.parametrize("run", ["$CMD &", "${CMD} &", "exec $CMD", "nohup $CMD > log 2>&1 &", 'bash -c "$CMD" &',
                                 'eval "$CMD" &', "eval $CMD", "X=1 $CMD"])
def test_a_partly_known_command_string_run_as_a_command_gives_its_words_where_typed(run):
    text = ASSIGN + run + "\n"
    result = split_shell(text, defaults=True)
    command = result.commands[-1]
    assert command.argv == ["vllm", "serve", "$MODEL", "--max-model-len", "8192"], run
    assert [text[t.start:t.end] for t in command.tokens] == command.argv  # in the assignment, as typed
    model = command.tokens[2]
    assert [(r.name, r.resolved) for r in model.unresolved] == [("MODEL", False)]
    assert not any(t.unresolved for k, t in enumerate(command.tokens) if k != 2)


def test_known_references_in_the_string_keep_their_values():
    text = 'TP=2\nCMD="vllm serve $MODEL -tp $TP --max-model-len 8192"\n$CMD\n'
    command = split_shell(text, defaults=True).commands[-1]
    assert command.argv == ["vllm", "serve", "$MODEL", "-tp", "2", "--max-model-len", "8192"]
    assert text[command.tokens[4].start:command.tokens[4].end] == "$TP"


@pytest.mark.parametrize("text", [
    ASSIGN + "echo $CMD\nlog \"$CMD\"\nprintf '%s' $CMD\n",          # an argument of another program
    ASSIGN + '"$CMD"\n',                                              # quoted: one program named by the whole string
    'for x in 1; do if [ -n "$X" ]; then CMD="vllm serve $MODEL"; fi; done\n$CMD\n',  # an `if` in a loop
    ASSIGN + '[ -n "$X" ] && CMD=other\n$CMD\n',                      # changed where it may not run
    ASSIGN + "read CMD\n$CMD\n",                                      # set to a value not in the script
    ASSIGN + "CMD=$(cat cmd.txt)\n$CMD\n",
    ASSIGN + "${CMD% *}\n",                                           # an expansion that edits the value
])
def test_a_partly_known_string_anywhere_else_or_unsure_starts_nothing(text):
    assert not any(c.argv[:2] == ["vllm", "serve"] for c in split_shell(text, defaults=True).commands)


@pytest.mark.parametrize("assign, run, program", [
    ('L="$HOME/llama.cpp-src/build/bin/llama-server"\n', 'exec "$L" -m /m.gguf --ctx-size 8192',
     "llamacpp"),
    ('L="$HOME/llama.cpp-src/build/bin/llama-server"\n', "exec $L -m /m.gguf --ctx-size 8192", "llamacpp"),
    ('V="$HOME/venv/bin/vllm"\n', '"$V" serve Qwen/Qwen3-8B --max-model-len 8192', "vllm"),
    ('V="${VENV}/bin/vllm"\n', '"${V}" serve Qwen/Qwen3-8B --max-model-len 8192', "vllm"),
])
def test_a_binary_path_under_an_unknown_directory_names_its_program_quoted_or_not(assign, run, program):
    # Before: quoted, "$L" was an unknown program (no role, no CTX008); a directory cannot change which binary
    # the path's last segment names, and "$L" is the value as one word, as bash runs it.
    from ctxlint.engines.detect import detect

    command = split_shell(assign + run + "\n", defaults=True).commands[-1]
    found = detect(command.tokens)
    assert [d.engine for d in found] == [program]
    assert command.tokens[found[0].start].text.startswith(("$HOME/", "${VENV}/"))
    assert command.tokens[found[0].args_start].text in ("-m", "Qwen/Qwen3-8B")


@pytest.mark.parametrize("append", ['CMD="$CMD --port 8000"', 'CMD="${CMD} --port 8000"',
                                    'export CMD="$CMD --port 8000"', 'declare CMD="$CMD --port 8000"'])
def test_a_partly_known_command_string_built_up_line_by_line_keeps_its_words(append):
    # Before: `CMD="$CMD ..."` read the partly known CMD as unknown as a whole, so the line it was run by started
    # nothing at all (no role, no CTX008): the entrypoints that build vLLM's command a flag at a time (sweep cli25).
    text = ASSIGN + append + "\neval $CMD\n"
    command = split_shell(text, defaults=True).commands[-1]
    assert command.argv == ["vllm", "serve", "$MODEL", "--max-model-len", "8192", "--port", "8000"], append
    assert [text[t.start:t.end] for t in command.tokens] == command.argv  # each word where it is typed
    assert [(r.name, r.resolved) for r in command.tokens[2].unresolved] == [("MODEL", False)]


def test_a_partly_known_command_string_appended_to_in_an_if_is_read_per_branch():
    text = ASSIGN + 'if [ -n "$EAGER" ]; then\n  CMD="$CMD --enforce-eager"\nfi\neval "$CMD"\n'
    commands = split_shell(text, defaults=True).commands
    assert sorted((c.branch, c.argv[5:]) for c in commands) == [("else", []),
                                                                ("if [ -n $EAGER ]", ["--enforce-eager"])]
    assert all(c.argv[:5] == ["vllm", "serve", "$MODEL", "--max-model-len", "8192"] for c in commands)


@pytest.mark.parametrize("append", ['CMD+=" --port 8000"', "CMD+=' --port 8000'", 'export CMD+=" --port 8000"'])
def test_a_command_string_appended_to_with_plus_equals_keeps_the_appended_words(append):
    # Before: `CMD+=...` was no assignment (only `NAME=` was), so it ran as a command that starts nothing and the
    # `eval` read CMD without the words it appends (bash appends them: `+=` on a scalar, scalar_append.py).
    text = ASSIGN + append + "\neval $CMD\n"
    command = split_shell(text, defaults=True).commands[-1]
    assert command.argv == ["vllm", "serve", "$MODEL", "--max-model-len", "8192", "--port", "8000"], append
    assert [text[t.start:t.end] for t in command.tokens] == command.argv  # each word where it is typed


@pytest.mark.parametrize("append", ['CMD+=" --enforce-eager"', 'CMD="$CMD --enforce-eager"'])
def test_an_append_on_the_if_line_is_read_per_branch(append):
    # Before: after `then` on the `if`'s own line neither spelling was read as the append (`+=` was no assignment;
    # `$CMD` in the value was not expanded to its words past the keyword), so the branch ran `$CMD --enforce-eager`
    text = ASSIGN + f'if [ -n "$EAGER" ]; then {append}; fi\neval "$CMD"\n'
    commands = split_shell(text, defaults=True).commands
    assert sorted((c.branch, c.argv[5:]) for c in commands) == [("else", []),
                                                                ("if [ -n $EAGER ]", ["--enforce-eager"])]


def test_plus_equals_appends_to_a_known_scalar_and_an_array_append_is_unchanged():
    text = 'X=Qwen/Qwen3-8B\nX+=" --max-model-len 8192"\nA=(--port)\nA+=(8000)\nvllm serve $X "${A[@]}"\n'
    command = split_shell(text, defaults=True).commands[-1]
    assert command.argv == ["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192", "--port", "8000"]


def test_a_context_length_appended_with_plus_equals_is_the_one_checked(tmp_path):
    from helpers import run

    path = tmp_path / "serve.sh"
    path.write_text('#!/bin/bash\n#SBATCH --gres=gpu:l4:1\nCMD="vllm serve meta-llama/Llama-3.1-8B-Instruct"\n'
                    'CMD+=" --max-model-len 8192"\neval $CMD\n')
    # before: 131,072 (vLLM's default from the model) was checked, a CTX201 error on a command that sets 8,192
    assert run(["check", "--isolated", str(path)]).out == ""
    row = run(["audit", "--isolated", str(path)]).out.splitlines()[2].split()
    assert row[6:] == ["8,192", "25,440", "derived", "-", "3.10x", "fits", "-", "0"]
