"""A command string the branches of several `if`s append to (engines/branch_heads.py): what every value begins
with is known, the rest the branches may add is one unknown word, the variable itself."""
from __future__ import annotations

import json

from ctxlint.engines.shellwords import split_shell
from tests.helpers import run

BASE = 'CMD="vllm serve $MODEL_PATH --port 80 --gpu-memory-utilization 0.9"\n'


def _appends(count: int) -> str:
    return "".join(f'if [ "$OPT{k}" = true ]; then\n    CMD="$CMD --flag{k}"\nfi\n' for k in range(count))


def readings(text: str) -> list[tuple[list[str], str]]:
    return sorted(([t.text for t in c.tokens], c.branch) for c in split_shell(text, defaults=True).commands
                  if c.argv[:1] == ["vllm"])


def test_more_appending_ifs_than_are_read_one_by_one_keep_the_words_typed_before_them():
    # Before: past scalar_branches.MAX_WORLDS values CMD was unknown as a whole and `eval $CMD` started nothing:
    # no role and no finding for a vLLM launch (hommayushi3/vllm-huggingface's entrypoint, nine such `if`s).
    text = BASE + _appends(5) + "eval $CMD\n"
    head = ["vllm", "serve", "$MODEL_PATH", "--port", "80", "--gpu-memory-utilization", "0.9", "$CMD"]
    assert readings(text) == [(head, "else"), (head + ["--flag4"], "if [ $OPT4 = true ]")]
    command = split_shell(text, defaults=True).commands[0]
    assert [text[t.start:t.end] for t in command.tokens[:7]] == head[:7]  # where the first line types them
    rest = command.tokens[7]
    assert [(r.name, r.resolved, r.why) for r in rest.unresolved] == [("CMD", False, "branch")]
    assert text[rest.start:rest.end] == "--flag0"  # where the first branch appends to it


def test_a_second_appending_if_does_not_change_the_first_ones_values_in_place():
    # Before: the second `if`'s `CMD="$CMD --flag1"` was written into both branches of the first `if`, so the
    # reading without --flag1 (neither condition holds) was never made, and a third `if` read CMD as the text
    # `$CMD --flag2`.
    text = 'CMD="vllm serve org/m --max-model-len 8192"\n' + _appends(2) + "eval $CMD\n"
    head = ["vllm", "serve", "org/m", "--max-model-len", "8192", "$CMD"]
    assert readings(text) == [(head, "else"), (head + ["--flag1"], "if [ $OPT1 = true ]")]


def test_the_entrypoint_is_a_deployment_with_its_unknown_values_said(tmp_path):
    script = tmp_path / "entrypoint.sh"
    script.write_text('NUM_SHARD=${NUM_SHARD:-$(nvidia-smi --list-gpus | wc -l)}\n'
                      'CMD="vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size $NUM_SHARD"\n'
                      + _appends(4) + "eval $CMD\n")
    result = run(["audit", "--isolated", "--format", "json", str(script)])
    assert json.loads(result.out)["totals"]["deployments"] == 1
    check = run(["check", "--isolated", "--format", "json", str(script)])
    assert [(f["rule"], f["line"], f["column"]) for f in json.loads(check.out)["findings"]] == [
        ("CTX208", 2, 6), ("CTX008", 2, 65)]
