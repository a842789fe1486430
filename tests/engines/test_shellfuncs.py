"""Shell functions (engines/shellfuncs.py): a definition runs nothing; each call runs the body with the call's
words as `$@`, `$1`..., `$#`, at the positions the call types them; `local` names come back on return."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell


def argvs(text: str, sourcer=None) -> list[list[str]]:
    return [c.argv for c in split_shell(text, defaults=True, sourcer=sourcer).commands if c.argv[:1] != ["c"]]


@pytest.mark.parametrize("definition", [
    "f() { vllm serve \"$@\"; }\n", "f () {\n  vllm serve \"$@\"\n}\n", "f()\n{\n  vllm serve \"$@\"\n}\n",
    "function f { vllm serve \"$@\"; }\n", "function f() { vllm serve \"$@\"; }\n", "f() ( vllm serve \"$@\" )\n",
    "f() { if [ -n \"$1\" ]; then { vllm serve \"$@\"; }; fi; }\n",
])
def test_a_definition_runs_nothing_and_each_call_runs_its_body(definition):
    # Before: the body was a command where it is typed, its `"$@"` the script's caller's (CTX008), and a
    # function never called was a launch of its own (sweep 34: a setup file that only defines one).
    assert argvs(definition) == []
    assert argvs(definition + "f m --max-model-len 4096\nf m2\n") == [
        ["vllm", "serve", "m", "--max-model-len", "4096"], ["vllm", "serve", "m2"]]


def test_positional_parameters_are_the_call_s_words_where_the_call_types_them():
    text = ("serve() {\n  local model=$1\n  shift\n  vllm serve \"$model\" \"${@}\" --n $# --all \"$*\" \"$3\"\n}\n"
            "serve Qwen/Qwen3-8B --max-model-len 4096\n")
    (command,) = split_shell(text, defaults=True).commands
    assert command.argv == ["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "4096", "--n", "2", "--all",
                            "--max-model-len 4096", ""]
    length = command.tokens[4]
    assert text[length.start:length.end] == "4096" and length.start > text.index("serve Qwen")  # at the call
    # after a word that may be no word or several (an unknown unquoted `$X`, `"$@"`), which word `$2` is is unknown
    for call in ("f $X 8192", "f \"$@\" 8192"):
        (command,) = split_shell("f() { vllm serve m --max-model-len \"$2\" --n $#; }\n" + call).commands
        assert [(t.text, bool(t.unresolved)) for t in command.tokens[-3:]] == [
            ("$2", True), ("--n", False), ("$#", True)], call
        assert command.tokens[-3].unresolved[0].why == "call"
    # a quoted unknown is one word: the next is known
    assert argvs("f() { vllm serve \"$1\" --max-model-len \"$2\"; }\nf \"$M\" 8192")[0][-1] == "8192"


def test_calls_in_functions_local_names_recursion_and_the_script_s_own_arguments():
    text = ("M=Qwen/Qwen3-8B\nstart() { local M=$1; vllm serve \"$M\" --max-model-len \"$2\"; }\n"
            "main() { start other/model 2048; main; }\nmain\nc $M \"$1\"\n")
    commands = split_shell(text, defaults=True).commands
    assert [c.argv for c in commands] == [["vllm", "serve", "other/model", "--max-model-len", "2048"],
                                          ["c", "Qwen/Qwen3-8B", "$1"]]  # M is the script's again; `$1` the caller's
    assert commands[1].tokens[2].unresolved[0].why == ""
    # what a function sets without `local` stays set; a call after `&&` may not run, so what it sets is unknown
    assert argvs("f() { L=4096; }\nf\nvllm serve m --max-model-len $L")[0][-1] == "4096"
    assert argvs("f() { L=4096; }\n[ -n \"$Q\" ] && f\nvllm serve m --max-model-len $L")[0][-1] == "$L"


def test_functions_of_a_file_the_script_sources_sit_at_the_call():
    lib = "run_server() {\n  local args=(--host 0.0.0.0)\n  build/bin/llama-server \"${args[@]}\" \"$@\"\n}\n"
    asked = []

    def sourcer(path):
        asked.append(path)
        return lib if path in ("../lib.sh", "lib.sh") else None

    for line in ("source ../lib.sh", ". \"$(dirname \"$0\")/lib.sh\"", ". \"${BASH_SOURCE%/*}/lib.sh\""):
        text = f"{line}\nrun_server --ctx-size 8192\n"
        command = split_shell(text, defaults=True, sourcer=sourcer).commands[-1]  # the first: `source` itself
        assert command.argv == ["build/bin/llama-server", "--host", "0.0.0.0", "--ctx-size", "8192"], line
        at = text.index("run_server")
        assert (command.tokens[0].start, command.tokens[0].end) == (at, at + len("run_server"))
        assert text[command.tokens[-1].start:command.tokens[-1].end] == "8192"
    assert asked == ["../lib.sh", "lib.sh", "lib.sh"]
    # a path ctxlint cannot know, or a file it cannot read, gives no function: the call runs nothing it can see
    assert argvs("source \"$LIB\"\nrun_server --ctx-size 8192", sourcer)[-1] == ["run_server", "--ctx-size", "8192"]
    assert argvs("source lib2.sh\nrun_server", sourcer)[-1] == ["run_server"]
