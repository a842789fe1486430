"""`ctxlint capacity` and derived pools in `ctxlint check`."""
from __future__ import annotations

import json

from helpers import run

EXAMPLE = ["capacity", "--model", "meta-llama/Llama-3.1-70B", "--accelerator", "H100", "--count", "4",
           "--tp", "4", "--engine", "vllm", "--memory-fraction", "0.9", "--context-length", "131072"]


def test_readme_example_text():
    result = run(EXAMPLE)
    assert result.code == 0
    assert "KV bytes/token/GPU          (80 layers + 0 draft) x 2 x 2 x 128 x 2" in result.out
    assert "KV pool per replica: 415,024 tokens (estimated; band 368,016-474,576)" in result.out
    assert "context length 131,072: fits; max concurrency at that length 3.17x" in result.out
    # every estimated term with its band and where its rule comes from
    assert "weights          32.85       32.69-33.51  the checkpoint's size" in result.out
    assert "activation peak  5.77        5.19-7.49    vllm/v1/worker/gpu_worker.py determine_available_memory" in result.out
    assert result.out.count("weights") >= 2 and "weights/GPU" not in result.out  # one weights row, not two


def test_readme_example_json():
    data = json.loads(run(EXAMPLE + ["--format", "json"]).out)
    assert data["kv_bytes_per_token_per_gpu"] == 81920
    assert data["weights_bytes_per_gpu"] == 35_276_850_000  # 70.5537e9 params x 2 B / 4
    assert data["pool_tokens"] == 415_024
    assert (data["pool_low"], data["pool_high"]) == (368_016, 474_576)
    assert data["max_concurrency_at_context"] == 3.17
    assert data["max_context_at_concurrency_1"] == 415_008
    # the version is not given: the terms are those of the release that leaves the least (0.12.0)
    assert [t["label"] for t in data["terms"]] == ["instance memory", "weights", "activation peak", "non-torch"]
    assert data["rule"].startswith("vLLM version unknown: each figure is the least any of releases 0.8.5, ")
    assert all(t["source"] and t["low"] <= t["point"] <= t["high"] for t in data["terms"])
    assert data["assumptions"] and isinstance(data["kv_budget_bytes_per_gpu"], float)


def test_context_that_does_not_fit_exits_1_with_what_to_change():
    result = run(EXAMPLE[:-1] + ["1Mi"])
    assert result.code == 1
    assert "context length 1,048,576: does NOT fit" in result.out
    assert "use tp=8 (8 accelerators per replica)" in result.out
    assert "lower context_length from 1,048,576 to at most 415,008" in result.out


def test_known_kv_budget_reproduces_the_vllm_log():
    # vllm#19996: 51.63 GiB available, Llama-3.1-8B + 1 EAGLE layer -> 410,128 tokens
    result = run(["capacity", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm",
                  "--available-kv-gib", "51.63", "--draft-layers", "1", "--format", "json"])
    assert json.loads(result.out)["pool_tokens"] == 410_128


def test_model_from_config_json(tmp_path):
    config = {"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 8, "hidden_size": 4096, "max_position_embeddings": 131072,
              "torch_dtype": "bfloat16", "vocab_size": 128256, "intermediate_size": 14336}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    data = json.loads(run(["capacity", "--model", str(path), "--engine", "sglang", "--available-kv-gib", "10",
                           "--format", "json"]).out)
    assert data["kv_bytes_per_token_per_gpu"] == 131072
    assert data["pool_tokens"] == 10 * 2**30 // 131072


def test_usage_errors():
    assert run(["capacity", "--model", "nobody/nothing", "--engine", "vllm", "--accelerator", "H100"]).code == 2
    assert run(["capacity", "--model", "meta-llama/Llama-3.1-8B", "--engine", "vllm",
                "--accelerator", "H9000"]).code == 2
    bad_ctx = run(EXAMPLE[:-1] + ["128K"])
    assert bad_ctx.code == 2 and "ambiguous" in bad_ctx.err


def test_check_uses_the_derived_pool_and_shows_the_arithmetic(in_repo):
    bad = run(["check", "samples/derived-pool/l4-too-small.yaml"])
    assert bad.code == 1
    # an error only because 131,072 exceeds even what one request can hold at the top of the band (26,336-34,976,
    # less vLLM's 16-token null block)
    assert "CTX101 [error] 131,072 > 34,960" in bad.out
    assert "derived for meta-llama/Llama-3.1-8B on 1x L4, vllm: KV budget per GPU 4.02 GiB" in bad.out
    assert "/ 131,072 B per token per GPU = 32,944 tokens; band 26,336-34,976" in bad.out
    good = run(["check", "samples/derived-pool/l40s-fits.yaml"])
    assert good.code == 0 and good.out == ""


def test_engine_version_picks_that_releases_rules_and_narrows_the_band():
    text = run(EXAMPLE + ["--engine-version", "v0.20.0"]).out
    assert "vLLM 0.20.0 V1: profile of 8192 tokens x 1024 sequences" in text
    assert "CUDA graphs" in text and "version unknown" not in text
    data = json.loads(run(EXAMPLE + ["--engine-version", "0.20.0", "--format", "json"]).out)
    unknown = json.loads(run(EXAMPLE + ["--format", "json"]).out)
    assert unknown["pool_low"] <= data["pool_low"] <= data["pool_high"] <= unknown["pool_high"]
    assert data["pool_high"] - data["pool_low"] < unknown["pool_high"] - unknown["pool_low"]


def test_engine_version_that_is_not_a_release_is_a_usage_error():
    result = run(EXAMPLE + ["--engine-version", "latest"])
    assert result.code == 2 and "--engine-version latest: not a release number" in result.err


def test_l4_llama_8b_at_32k_on_vllm_0_8_5_is_inside_the_band_not_refused():
    # GKE's adk-vllm tutorial (vLLM v0.8.5, one L4, --max-model-len=32768): the estimate cannot tell,
    # so the command says so and exits 1 only on its point estimate; `check` gives a warning (CTX210).
    result = run(["capacity", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--accelerator",
                  "L4", "--context-length", "32768", "--engine-version", "0.8.5"])
    assert "longest single request: 29,248 tokens (band 21,408-32,912)" in result.out
    assert "does NOT fit at the estimate; within the band (confirm with the engine's log)" in result.out
