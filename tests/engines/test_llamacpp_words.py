"""llama-server has no positional argument: a word no option takes stops it ("error: invalid argument: %s",
ggml-org/llama.cpp@145b628:common/arg.cpp common_params_parse_ex). Shapes seen in sweep c29:
haskoe/beancount-ledger@HEAD:start-llm.sh (`-m ~/models/Qwen3VL-8B-Instruct-Q8_0 gemma-2-2b-it-q8_0.gguf`)."""
from __future__ import annotations

import pytest

from helpers import run

from ctxlint.engines.detect import detect
from ctxlint.engines.parse import parse_invocation
from ctxlint.engines.shellwords import split_shell


def _parse(line, env=None):
    r = split_shell(line, (env or {}).get)
    for c in r.commands:
        for d in detect(c.tokens, None, False):
            return parse_invocation(d.engine, c.tokens, env, d.launcher, d.subcommand, d.args_start)
    raise AssertionError("no engine found")


def test_a_second_word_after_the_model_file_is_refused_at_it():
    line = "llama-server -m /models/a-Q8_0 b-q8_0.gguf --port 8081 -c 4096"
    inv = _parse(line)
    assert [e.message for e in inv.errors] == [
        "invalid argument: b-q8_0.gguf (llama-server takes no positional argument: a word that is no option's value "
        "stops it; `-m /models/a-Q8_0` took the word before it, and an option takes one value)"]
    assert inv.errors[0].span == (line.index("b-q8"), line.index("b-q8") + len("b-q8_0.gguf"))
    assert inv.value("model") == "/models/a-Q8_0" and inv.value("ctx_size") == 4096  # the rest is still read


def test_a_word_right_after_llama_server_is_refused():
    inv = _parse("llama-server model.gguf -c 4096")
    assert [e.message.split(" (")[0] for e in inv.errors] == ["invalid argument: model.gguf"]


@pytest.mark.parametrize("line", [
    "llama-server -m a.gguf -fa on -c 4096",  # -fa takes a value in later builds, none in older ones
    "llama-server -m a.gguf --jinja word",  # after a switch: switches became valued options over builds
    "llama-server -m a.gguf --mmproj p.gguf -c 4096",  # after an option ctxlint does not know: maybe its value
    "llama-server -m $M x.gguf",  # `$M` may be no word at all, and x.gguf -m's value
    "llama-server -m a.gguf --ctx-size=8192 x",  # the `=` word is refused itself; what follows is not judged
])
def test_a_word_that_may_be_an_options_value_is_not_judged(line):
    inv = _parse(line)
    assert not any("positional" in e.message for e in inv.errors)


def test_the_check_reports_it_as_a_refusal(tmp_path):
    path = tmp_path / "start-llm.sh"
    path.write_text("#!/bin/bash\nllama-server \\\n  -m ~/models/Q-8B-Q8_0 gemma-2-2b-it-q8_0.gguf \\\n"
                    "  --ctx-size 4096 --port 8081\n")
    said = [line for line in run(["check", str(path)]).out.splitlines() if "CTX301" in line]
    assert [line.split(": CTX301 [error] ")[0].rsplit(":", 2)[1:] for line in said] == [["3", "25"]]  # the word itself
    assert "llamacpp would refuse to start: invalid argument: gemma-2-2b-it-q8_0.gguf" in said[0]
