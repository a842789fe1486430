"""`eval WORDS` (engines/simple_commands.py): the words joined by spaces and read again in the same shell.

Expectations were checked with GNU bash 5.2.15 where they are about the shell (`eval "Y=5"; echo $Y` prints 5,
`eval -- echo hi` prints hi, `A=1 eval "echo \\$A"` prints 1)."""
from __future__ import annotations

from ctxlint.engines.shellwords import split_shell


def typed(text: str, token) -> list[str]:
    """Where each character of a token is typed in `text`."""
    return [text[a:b] for a, b in zip(token.starts, token.ends)]


def test_a_double_quoted_eval_string_is_read_as_a_command_at_its_typed_positions():
    # before: one token `vllm serve ...`, no program (sweep 27: vLLM's nightly launch-server.sh, sglang's dcp bench)
    text = 'eval "vllm serve org/m --max-model-len 8192" &\n'
    command, = split_shell(text, defaults=True).commands
    assert command.argv == ["vllm", "serve", "org/m", "--max-model-len", "8192"]
    assert command.wrappers == ("eval",)
    assert [text[t.start:t.end] for t in command.tokens] == command.argv
    assert typed(text, command.tokens[2]) == list("org/m")


def test_an_eval_of_variables_reads_their_values_where_they_are_referenced():
    text = ('COMMON_ENV="NCCL_DEBUG=WARN PYTHONUNBUFFERED=1"\nARGS="--model-path org/m --context-length 4096"\n'
            'eval "${COMMON_ENV} python3 -m sglang.launch_server ${ARGS} \\\n  --tp-size 8" &\n')
    command, = split_shell(text, defaults=True).commands
    assert command.argv == ["python3", "-m", "sglang.launch_server", "--model-path", "org/m", "--context-length",
                            "4096", "--tp-size", "8"]
    assert [(e.name, e.value) for e in command.env] == [("NCCL_DEBUG", "WARN"), ("PYTHONUNBUFFERED", "1")]
    length = command.tokens[6]
    assert text[length.start:length.end] == "${ARGS}"  # a variable's value sits at its reference, as in sh -c "$X"
    assert text[command.tokens[2].start:command.tokens[2].end] == "sglang.launch_server"


def test_eval_runs_in_this_shell_its_assignments_stay_and_a_conditional_one_is_unsure():
    known = split_shell('eval "MML=8192"\nvllm serve m --max-model-len $MML\n', defaults=True)
    assert known.commands[0].argv[-1] == "8192"
    unsure = split_shell('[ -n "$X" ] && eval "MML=8192"\nvllm serve m --max-model-len $MML\n', defaults=True)
    assert unsure.commands[-1].tokens[-1].unresolved and "MML" in unsure.unsure


def test_eval_words_unquoted_single_quoted_and_after_double_dash():
    for line in ("eval vllm serve $M --max-model-len 1", "eval 'vllm serve $M --max-model-len 1'",
                 "eval -- vllm serve $M --max-model-len 1", "eval vllm serve \"'$M'\" --max-model-len 1"):
        command = split_shell(f"M=org/m\n{line}\n", defaults=True).commands[0]
        assert command.argv == ["vllm", "serve", "org/m", "--max-model-len", "1"], line


def test_what_an_eval_string_runs_is_judged_as_any_command():
    # `echo` inside the string prints; it starts nothing
    assert split_shell('eval "echo vllm serve m"\nX=1 eval ": vllm serve m"\n', defaults=True).commands == ()
    assert split_shell("eval ''\n", defaults=True).commands == ()


JSON_CMD = ("CMD=\"vllm serve m --kv-transfer-config '{\\\"kv_role\\\":\\\"kv_both\\\",\\\"ip\\\":\\\"$IP\\\"}' "
            "--model-path '$MP'\"\n")


def test_quotes_inside_a_variable_count_where_eval_or_sh_c_reads_it_again():
    # bash: eval "$CMD" passes the JSON without its single quotes; before, the quotes stayed (a false CTX301 for
    # `bash -c "$CMD"`, and for eval the string was no command at all)
    for run in ('eval "$CMD"', 'bash -c "$CMD"', "eval $CMD"):
        command, = split_shell(JSON_CMD + run + "\n", defaults=True).commands
        assert command.argv == ["vllm", "serve", "m", "--kv-transfer-config", '{"kv_role":"kv_both","ip":"$IP"}',
                                "--model-path", "$MP"], run
        # the references the assignment expanded stay unknown, inside the inner reading's single quotes too
        assert [[r.name for r in t.unresolved] for t in command.tokens[4:]] == [["IP"], [], ["MP"]], run
    # run as `$CMD`, bash does not read quotes again: the JSON keeps them (vLLM would refuse it)
    command, = split_shell(JSON_CMD + "$CMD\n", defaults=True).commands
    assert command.argv[4] == "'{\"kv_role\":\"kv_both\",\"ip\":\"$IP\"}'"


def test_eval_expands_its_words_before_the_string_runs():
    # bash: `A=0; eval "A=1; echo $A"` prints 0
    command = split_shell('MML=4096\neval "MML=8192; vllm serve m --max-model-len $MML"\n', defaults=True).commands[0]
    assert command.argv[-1] == "4096"
