"""`set -- WORDS` (engines/shell_set.py): the script's positional parameters for what follows, as a function call's
words are inside its body; `set -- "$@" more` and `shift` change them; one in a branch keeps the words before it
with an unknown rest. A script that sets none keeps its caller's words, not known."""
from __future__ import annotations

import pytest

from ctxlint.engines.shell_set import set_words
from ctxlint.engines.shellwords import split_shell
from ctxlint.engines.tokens import typed
from helpers import run


def argvs(text: str) -> list[list[str]]:
    return [c.argv for c in split_shell(text, defaults=True).commands]


def test_set_gives_the_positional_parameters() -> None:
    text = 'M=Qwen/Qwen2.5-7B-Instruct\nset -- serve "$M" --max-model-len 8192\nexec vllm "$@"\n'
    (command,) = split_shell(text, defaults=True).commands
    assert command.argv == ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]
    length = command.tokens[-1]
    assert text[length.start:length.end] == "8192"  # where `set` types it
    assert argvs('set -- serve m\nset -- "$@" --max-model-len 4096\nvllm "$@" --n $# "$2"') == [
        ["vllm", "serve", "m", "--max-model-len", "4096", "--n", "4", "m"]]
    assert argvs('set -- x serve m --tp 2\nshift\nvllm "$@"') == [["vllm", "serve", "m", "--tp", "2"]]
    assert argvs('set -eu\nset -o pipefail\nset a b\nvllm serve "$2"') == [["vllm", "serve", "b"]]


def test_set_in_a_branch_keeps_the_words_before_it_with_an_unknown_rest() -> None:
    text = ('set -- serve m --max-model-len 8192\nif [ "$X" = 1 ]; then\n  set -- "$@" --trust-remote-code\nfi\n'
            'exec vllm "$@"\n')
    (command,) = split_shell(text, defaults=True).commands
    assert [t.text for t in command.tokens[:5]] == ["vllm", "serve", "m", "--max-model-len", "8192"]
    assert command.tokens[-1].unresolved[0].why == "set"  # the words the branch may add
    # any other `set` in a branch: nothing of it is known
    (command,) = split_shell('if [ -n "$X" ]; then set -- serve m; fi\nvllm "$@"', defaults=True).commands
    assert command.argv[0] == "vllm" and command.tokens[1].unresolved


def test_a_function_s_set_is_its_own() -> None:
    assert argvs('f() { set -- serve "$1" --max-model-len 4096; vllm "$@"; }\nf m\nvllm serve "$1"') == [
        ["vllm", "serve", "m", "--max-model-len", "4096"], ["vllm", "serve", "$1"]]


@pytest.mark.parametrize("words, expected", [
    (["set", "-e"], None), (["set", "-euo", "pipefail"], None), (["set", "+x"], None), (["set"], None),
    (["set", "--"], []), (["set", "-e", "--", "a"], ["a"]), (["set", "a", "-b"], ["a", "-b"]),
])
def test_set_words(words, expected) -> None:
    found = set_words([typed(w, 0) for w in words])
    assert (None if found is None else [t.text for t in found]) == expected


def test_scripts_in_a_container_and_alone(tmp_path) -> None:
    script = tmp_path / "run.sh"
    script.write_text('#!/bin/bash\nset -- serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\nexec vllm "$@"\n')
    res = run(["audit", "--format", "json", str(script)])
    assert res.code == 0, res.err
    assert '"Qwen/Qwen2.5-7B-Instruct"' in res.out
    # a script started with its caller's words: a launch whose settings are not known (CTX008), not nothing
    script.write_text('#!/bin/bash\nexec vllm "$@"\n')
    res = run(["check", str(script)])
    assert [line.split(" ")[1] for line in res.out.splitlines()] == ["CTX208", "CTX008"]
    assert "argument ${@} (an argument the script's caller passes)" in res.out


def test_a_container_s_bash_script() -> None:
    from adapters.kit import adapt

    res = adapt("""\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: m}
    spec:
      template:
        spec:
          containers:
          - name: vllm
            image: vllm/vllm-openai:v0.11.0
            command: ["/bin/bash", "-lc"]
            args:
              - |
                set -eu
                set -- serve "$MODEL_ID" --max-model-len "$MAX_MODEL_LEN"
                if [ -n "${VLLM_EXTRA_ARGS:-}" ]; then
                  set -- "$@" $VLLM_EXTRA_ARGS
                fi
                exec vllm "$@"
            env:
            - {name: MODEL_ID, value: Qwen/Qwen2.5-7B-Instruct}
            - {name: MAX_MODEL_LEN, value: "8192"}
    """)
    [dep] = res.deployments
    assert (dep.model.id.value, dep.roles[0].context_length.value) == ("Qwen/Qwen2.5-7B-Instruct", 8192)


def test_a_c_string_has_its_own_positional_parameters() -> None:
    # bash manual, Invoking Bash: after the -c string the first word is $0, the rest its $1..; none: no words at all
    assert argvs("set -- --max-model-len 1000000\nbash -c 'vllm serve m \"$@\"' _ --max-model-len 4096") == [
        ["vllm", "serve", "m", "--max-model-len", "4096"]]
    assert argvs("set -- --max-model-len 1000000\nsh -c 'vllm serve m \"$@\"'") == [["vllm", "serve", "m"]]
    # in a function: the call's words are not the string's; and a `set --` in the string stays in it
    assert argvs("f() { bash -c 'vllm serve m \"$@\"' _ --tp 2; }\nf --tp 8") == [["vllm", "serve", "m", "--tp", "2"]]
    assert argvs("set -- --tp 2\nsh -c 'set -- x'\nvllm serve m \"$@\"") == [["vllm", "serve", "m", "--tp", "2"]]
    text = "set -- --tp 8\ndocker run --gpus all nvcr.io/nvidia/pytorch:24.05-py3 sh -c 'vllm serve m \"$@\"' _ --tp 2"
    (command,) = split_shell(text, defaults=True).commands
    assert command.argv[-5:] == ["vllm", "serve", "m", "--tp", "2"] and "8" not in command.argv[-5:]
    assert text[command.tokens[-1].start:command.tokens[-1].end] == "2" and text.endswith("--tp 2")


def test_set_dash_ends_the_options() -> None:
    # bash's `set -`: "cause all remaining arguments to be assigned to the positional parameters", none: unchanged
    assert argvs("set - serve m --tp 2\nvllm \"$@\"") == [["vllm", "serve", "m", "--tp", "2"]]
    assert set_words([typed(w) for w in ("set", "-")]) is None
