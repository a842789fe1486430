"""Words vLLM's front doors have no argument for: `vllm serve` takes one model argument, the API server module
none before 0.10.0 and one it ignores from then."""
from __future__ import annotations

from helpers import run

from .test_parse import parse_shell


def _refusal(line):
    inv, _, text = parse_shell(line)
    (e,) = inv.errors
    return inv.model.value if inv.model is not None else None, text[slice(*e.span)], e.message


def test_a_word_beside_the_model_flag_of_vllm_serve_is_refused():
    # sweep 41 (sebassem/vllm-aks: `--model Qwen/Qwen3-0.6B auto`): `vllm serve` moves `--model M` to the front as
    # its one model argument, so the word is a second one and argparse exits; ctxlint read M and said nothing
    model, word, message = _refusal("vllm serve --model Qwen/Qwen3-0.6B auto --port 8000")
    assert (model, word) == ("Qwen/Qwen3-0.6B", "auto")
    assert message == ("unrecognized arguments: auto (`vllm serve` takes one model argument and moves `--model "
                       "Qwen/Qwen3-0.6B` to the front as that argument, so 'auto' is one too many: vLLM serves "
                       "neither; give the model once)")
    # the same through the vllm/vllm-openai image, whose entrypoint is `vllm serve`
    inv, _, _ = parse_shell("--model=org/a org/b", image="vllm/vllm-openai:v0.10.1", args_only=True)
    assert [e.message.split(" (")[0] for e in inv.errors] == ["unrecognized arguments: org/b"]


def test_a_second_positional_and_a_word_to_the_api_server_module_are_refused():
    assert _refusal("vllm serve org/a org/b --max-model-len 4096")[:2] == ("org/a", "org/b")
    # the module: no positional before 0.10.0 (it exits); from 0.10.0 `model_tag`, which it parses and ignores,
    # serving --model's org/a: harmless there (review), so only the earlier releases' refusal is said
    inv, _, text = parse_shell("python -m vllm.entrypoints.openai.api_server --model org/a org/b")
    assert inv.model.value == "org/a"
    assert [(text[slice(*e.span)], e.until, e.since, e.effect, e.message) for e in inv.errors] == [
        ("org/b", "0.10.0", None, "", "unrecognized arguments: org/b (the API server module takes no positional "
         "argument before 0.10.0: name the model with --model)")]
    # two words: refused at every release (model_tag takes one)
    inv, _, text = parse_shell("python -m vllm.entrypoints.openai.api_server org/a org/b --port 8000")
    assert [(text[slice(*e.span)], e.until, e.since, e.message) for e in inv.errors] == [
        ("org/a", None, None, "unrecognized arguments: org/a org/b (the API server module takes at most one "
         "positional argument, which it ignores: name the model with --model)")]


def test_the_model_as_the_api_server_modules_first_word_is_said_by_release(tmp_path):
    # a word right after `-m vllm.entrypoints.openai.api_server` was never reported (the walk back to its flag
    # reached `-m`, no flag of vLLM's): the role had no model and CTX208 said only "no model id"
    line = "python -m vllm.entrypoints.openai.api_server Qwen/Qwen3-8B --max-model-len 4096\n"
    out = {}
    for name, pin in (("unpinned", ""), ("old", "pip install vllm==0.9.2\n"), ("new", "pip install vllm==0.22.0\n")):
        path = tmp_path / f"{name}.sh"
        path.write_text("#!/bin/bash\n" + pin + line)
        out[name] = run(["check", "--select", "CTX301", str(path)]).out
    tail = ("is read as the API server module's `model_tag`, which only `vllm serve` serves: the module serves "
            "--model's default model instead; name the model with --model (engine-rejects-value)\n")
    assert out["unpinned"] == (f"{tmp_path / 'unpinned.sh'}:2:46: CTX301 [error] vllm 0.10.0 and later would not "
                               f"serve it: 'Qwen/Qwen3-8B' {tail}")
    assert out["new"] == (f"{tmp_path / 'new.sh'}:3:46: CTX301 [error] vllm 0.22.0 would not serve it: "
                          f"'Qwen/Qwen3-8B' {tail}")
    assert out["old"] == (f"{tmp_path / 'old.sh'}:3:46: CTX301 [error] vllm 0.9.2 would refuse to start: unrecognized "
                          "arguments: Qwen/Qwen3-8B (the API server module takes no positional argument before 0.10.0: "
                          "name the model with --model) (engine-rejects-value)\n")


def test_the_model_given_once_is_unchanged():
    for line in ("vllm serve org/a --max-model-len 4096", "vllm serve --model org/a --max-model-len 4096",
                 "vllm serve --max-model-len 4096 --model=org/a",
                 "python -m vllm.entrypoints.openai.api_server --model org/a --max-model-len 4096"):
        inv, _, _ = parse_shell(line)
        assert (inv.model.value, inv.errors) == ("org/a", ()), line
    # other engines' stray words stay unread, as before (trtllm-serve's own parser is click's)
    assert parse_shell("trtllm-serve org/a org/b")[0].errors == ()


def test_check_reports_the_refusal_at_the_word(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nvllm serve --model Qwen/Qwen3-0.6B Qwen/Qwen3-8B --max-model-len 4096\n")
    result = run(["check", "--select", "CTX301", str(path)])
    assert result.out == (
        f"{path}:2:36: CTX301 [error] vllm would refuse to start: unrecognized arguments: Qwen/Qwen3-8B (`vllm "
        "serve` takes one model argument and moves `--model Qwen/Qwen3-0.6B` to the front as that argument, so "
        "'Qwen/Qwen3-8B' is one too many: vLLM serves neither; give the model once) (engine-rejects-value)\n")


def test_words_a_flag_may_take_or_that_the_shell_may_have_made_are_not_refused():
    # review: `--cuda-graph-sizes 1 2 4 8` (vLLM gives every list field nargs "+", and its list fields differ by
    # release), a flag ctxlint does not know, `--api-key k1 k2` (a list in current vLLM), a word an expansion made
    # (`${P:+--tool-call-parser "$P"}`) and a word with a blank inside were false CTX301 errors
    for line in ("vllm serve org/a --max-model-len 4096 --cuda-graph-sizes 1 2 4 8",
                 "vllm serve org/a --ignore-patterns a b", "vllm serve org/a --api-key k1 k2",
                 "vllm serve org/a --some-new-flag x y --max-model-len 4096",
                 'P=hermes; vllm serve org/a ${P:+--tool-call-parser "$P"} --enable-auto-tool-choice',
                 "vllm serve org/a --max-model-len 4096 ' --port'"):
        inv, _, _ = parse_shell(line)
        assert (inv.model.value, inv.errors) == ("org/a", ()), line
    # a typed word after a flag that takes one value, or after a switch, is still one too many
    assert _refusal("vllm serve org/a --max-model-len 4096 extra")[1] == "extra"
    assert _refusal("vllm serve org/a --enforce-eager false")[1] == "false"


def test_words_a_compose_string_s_line_continuations_left_blanks_in_are_not_refused(tmp_path):
    # review (opea Enterprise-RAG's hpu compose files): `\` line ends inside a double-quoted compose string; Compose
    # splits such strings with go-shellwords, not as POSIX does, so the words ctxlint reads there are not sure
    path = tmp_path / "compose.yaml"
    path.write_text('services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n    entrypoint: ""\n'  # bash runs
                    '    command: /bin/bash -c "python3 -m vllm.entrypoints.openai.api_server \\\n'
                    '                           --model Qwen/Qwen2.5-7B-Instruct \\\n'
                    '                           --host 0.0.0.0 --port 80"\n')
    assert "CTX301" not in run(["check", str(path)]).out
