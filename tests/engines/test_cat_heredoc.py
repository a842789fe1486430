"""`cmd=$(cat <<EOF ... EOF)` (engines/cat_heredoc.py): the substitution's output is the here-document's body, as
bash gives it; and an assignment's value is never field-split (engines/word_expansion.py)."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

LAUNCHER = ("PROJECT_ROOT=$(dirname $(readlink -f $0))\nMODEL=Qwen/Qwen2.5-0.5B-Instruct\n"
            "cmd=$(cat <<- EOF\n\tvllm serve ${MODEL} \\\n\t--served-model-name $(basename ${PROJECT_ROOT}) \\\n"
            "\t--max-model-len 32768\nEOF\n)\neval $cmd\n")


def vllm(text: str):
    return [c for c in split_shell(text, defaults=True).commands if c.argv[:1] == ["vllm"]]


def test_a_command_line_written_as_a_cat_here_document_is_read():
    # Before: the substitution was unknown as a whole, so `eval $cmd` started nothing (iisquare/fs-gpt's sbin/)
    [command] = vllm(LAUNCHER)
    assert command.argv == ["vllm", "serve", "Qwen/Qwen2.5-0.5B-Instruct", "--served-model-name",
                            "$(basename ${PROJECT_ROOT})", "--max-model-len", "32768"]
    at = {t.text: (t.start, t.end) for t in command.tokens}
    assert LAUNCHER[slice(*at["32768"])] == "32768" and LAUNCHER.index("32768") == at["32768"][0]
    assert LAUNCHER[slice(*at["Qwen/Qwen2.5-0.5B-Instruct"])] == "${MODEL}"  # the value where it is referenced
    assert [r.style for r in command.tokens[4].unresolved] == ["command"]  # the body's own substitution: unknown


def test_a_quoted_delimiter_gives_the_body_as_typed_and_eval_expands_it():
    text = "PORT=8000\ncmd=$(cat <<'EOF'\nvllm serve org/m --port ${PORT}\nEOF\n)\neval \"$cmd\"\n"
    assert [c.argv for c in vllm(text)] == [["vllm", "serve", "org/m", "--port", "8000"]]


@pytest.mark.parametrize("substitution", ["$(cat launch.txt)", "$(cat <<EOF | tr -s ' '\nvllm serve org/m\nEOF\n)",
                                          "$(sed 's/x/y/' <<EOF\nvllm serve org/m\nEOF\n)"])
def test_any_other_substitution_stays_unknown(substitution):
    assert vllm(f"cmd={substitution}\neval $cmd\n") == []


def test_an_assignment_of_an_unquoted_expansion_is_not_split():
    # Before: `cmd=$Y` was split into `cmd=vllm` and a command `serve org/m ...`, and `eval $cmd` ran `vllm` alone
    text = 'Y="vllm serve org/m --port 1"\ncmd=$Y\neval $cmd\n'
    assert [c.argv for c in split_shell(text, defaults=True).commands] == [["vllm", "serve", "org/m", "--port", "1"]]
