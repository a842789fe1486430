"""Another engine's context, memory or parallelism flag given to vLLM or SGLang: their parser exits on it
("unrecognized arguments"), reported at the flag with this engine's flag for the same thing (CTX301)."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run

from ctxlint.engines import parse_invocation
from ctxlint.engines.foreign_flags import TO_SGLANG, TO_VLLM

_DATA = Path(__file__).parent / "data"


def _flags(name: str) -> list[str]:
    return [line for line in (_DATA / name).read_text().splitlines() if line.startswith("--")]


@pytest.mark.parametrize("table,listing", [(TO_SGLANG, "sglang-0.5.23-flags.txt"),
                                           (TO_VLLM, "vllm-0.12.0-flags.txt"), (TO_VLLM, "vllm-0.34.0-flags.txt")])
def test_no_listed_foreign_flag_is_the_engines_own_nor_a_prefix_argparse_expands(table, listing):
    own = _flags(listing)
    assert len(own) > 150  # the full list, not ctxlint's table
    for spelling, (_, ours) in table.items():
        # argparse (allow_abbrev on in both) takes a unique prefix of a real flag as that flag
        assert not [f for f in own if f.startswith(spelling)], spelling
        assert ours.split()[0] in own, ours  # the flag named instead is a real one


def test_the_trap_flags_are_real_sglang_flags_and_stay_unreported():
    own = _flags("sglang-0.5.23-flags.txt")
    assert "--max-total-tokens" in own and "--tensor-parallel-size" in own  # TGI's / vLLM's names, SGLang's too
    inv = parse_invocation("sglang", ["--model-path", "m", "--max-total-tokens", "4096", "--tensor-parallel-size",
                                      "2"])
    assert not [p for p in inv.errors if "unrecognized" in p.message]


def test_sglang_given_vllm_flags_refuses_them_at_the_flag(tmp_path):
    script = tmp_path / "launch.sh"
    script.write_text("python -m sglang.launch_server --model Qwen/Qwen3-1.7B --rope-scaling "
                      "'{\"rope_type\":\"yarn\",\"factor\":4.0}' --max-model-len 131072 --mem-fraction-static 0.8\n")
    said = [line.split(": ", 1)[1] for line in run(["check", str(script)]).out.splitlines() if "CTX301" in line]
    assert said == [
        "CTX301 [error] sglang would refuse to start: unrecognized arguments: --rope-scaling (vLLM's RoPE scaling; "
        "SGLang's is --json-model-override-args '{\"rope_scaling\": ...}') (engine-rejects-value)",
        "CTX301 [error] sglang would refuse to start: unrecognized arguments: --max-model-len (vLLM's context "
        "length; SGLang's is --context-length) (engine-rejects-value)"]
    row = run(["audit", str(script)]).out.splitlines()[2]
    assert "131,072" not in row  # the foreign flag's window is no SGLang setting


def test_vllm_given_sglang_and_tgi_flags_refuses_them():
    inv = parse_invocation("vllm", ["--model", "m", "--context_length", "8192", "--tp", "2", "--max-input-tokens",
                                    "4000", "--max-num-seqs", "8"])
    assert [(p.token_index, p.message) for p in inv.errors] == [
        (2, "unrecognized arguments: --context_length (SGLang's context length; vLLM's is --max-model-len)"),
        (4, "unrecognized arguments: --tp (SGLang's tensor-parallel size; vLLM's is --tensor-parallel-size (-tp))"),
        (6, "unrecognized arguments: --max-input-tokens (TGI's prompt limit; vLLM's is --max-model-len (prompt and "
            "output))")]
    assert inv.value("max_model_len") is None


def test_other_front_doors_and_unknown_flags_of_no_engine_are_left_alone():
    assert not parse_invocation("vllm", ["--model", "m", "--some-plugin-flag", "1"]).errors
    dyn = parse_invocation("sglang", ["--model-path", "m", "--max-model-len", "4096"], launcher="dynamo.sglang")
    assert not [p for p in dyn.errors if "unrecognized" in p.message]


@pytest.mark.parametrize("listing", ["vllm-0.12.0-flags.txt", "vllm-0.34.0-flags.txt"])
def test_sglang_only_flags_are_sglangs_and_no_prefix_of_a_vllm_flag(listing):
    from ctxlint.engines.foreign_flags import SGLANG_ONLY

    own, sglang = _flags(listing), set(_flags("sglang-0.5.23-flags.txt"))
    for spelling in SGLANG_ONLY:
        assert spelling in sglang, spelling
        assert not [f for f in own if f.startswith(spelling)], spelling
        assert spelling not in TO_VLLM


def test_vllm_given_sglangs_enable_metrics_refuses_it(tmp_path):
    # realfoxtrot/vllm-stack docker-compose.yml passes SGLang's --enable-metrics to vLLM, whose parser exits on it
    inv = parse_invocation("vllm", ["--model", "m", "--enable-metrics", "--enable_dp_attention", "--max-num-seqs",
                                    "8", "--disable-log-stats"])
    assert [(p.token_index, p.message) for p in inv.errors] == [
        (2, "unrecognized arguments: --enable-metrics (SGLang's flag; vLLM serves /metrics without a flag)"),
        (3, "unrecognized arguments: --enable_dp_attention (SGLang's flag; vLLM has no argument by that name)")]
    compose = tmp_path / "docker-compose.yml"
    compose.write_text('services:\n  v:\n    image: vllm/vllm-openai:v0.8.5\n    entrypoint: ["/bin/sh", "-c"]\n'
                       '    command: ["vllm serve Qwen/Qwen3-8B --max-model-len 8192 --enable-metrics"]\n')
    assert "CTX301 [error] vllm would refuse to start: unrecognized arguments: --enable-metrics" in run(
        ["check", str(compose)]).out
    # SGLang keeps it: no refusal there
    inv = parse_invocation("sglang", ["--model-path", "m", "--enable-metrics"])
    assert not [p for p in inv.errors if "unrecognized" in p.message]
