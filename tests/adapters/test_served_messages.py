"""What findings say over a model named only by its --served-model-name (resolution/served_name.py): the checkpoint's
format is a band, so CTX203 quotes both ends of it; the architecture is the served name's, so CTX204 says so and
stays an error (a fine-tune or quantized copy keeps its heads); `ctxlint models` resolves it as check does."""
from __future__ import annotations

from helpers import run


def pod(tmp_path, args: str, gpu: str = "NVIDIA-A10G", count: int = 1):
    path = tmp_path / "deploy.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: served}\nspec:\n  template:\n"
                    f"    spec:\n      nodeSelector: {{nvidia.com/gpu.product: {gpu}}}\n      containers:\n"
                    "        - name: engine\n          image: vllm/vllm-openai:v0.12.0\n"
                    f"          args: [{args}]\n          resources: {{limits: {{nvidia.com/gpu: {count}}}}}\n")
    return path


def test_ctx203_over_a_served_name_quotes_the_format_band_it_decided_on(tmp_path):
    # Qwen2.5-72B on one A10G: at 4.25 bits (MXFP4) 39.18 GiB already exceed 21.95 GiB, so the error stands; the
    # message once quoted only the 16-bit point ("135.42 GiB ... at least 7 GPUs"), not the low end it decided on
    args = '"--model=/model", "--served-model-name=Qwen2.5-72B-Instruct", "--max-model-len=16384"'
    out = run(["check", "--isolated", str(pod(tmp_path, args))]).out
    assert ("CTX203 [error] at 4.25 to 16 bits a weight: 39.18 to 135.42 GiB > 21.95 GiB: the weights of "
            "Qwen/Qwen2.5-72B-Instruct per GPU (tensor 1 x pipeline 1) exceed the memory of one A10G, before any KV "
            "cache. Use at least 2 to 7 GPUs with tensor/pipeline parallelism to match, larger accelerators, or a "
            "quantized checkpoint") in out
    # a repository id names the checkpoint and its one format: the one figure, as before
    out = run(["check", "--isolated", str(pod(tmp_path, '"--model=Qwen/Qwen2.5-72B-Instruct"'))]).out
    assert "CTX203 [error] 135.42 GiB > 21.95 GiB: the weights of Qwen/Qwen2.5-72B-Instruct per GPU" in out
    assert "at least 7 GPUs with" in out


def test_ctx203_band_top_is_the_16_bit_figure_other_findings_print(tmp_path):
    # the band's top was the 16-bit estimate's own margin (x 1.02: 134.04 GiB), so the same 16-bit checkpoint that
    # a repository id reports as "131.42 GiB ... at least 6 GPUs" (and CTX201's account as "weights 131.42 GiB")
    # read "37.59 to 134.04 GiB ... at least 2 to 7 GPUs" over its served name
    args = '"--model=/model", "--served-model-name=Llama-3.1-70B-Instruct"'
    out = run(["check", "--isolated", str(pod(tmp_path, args))]).out
    assert "at 4.25 to 16 bits a weight: 37.59 to 131.42 GiB > 21.95 GiB" in out
    assert "Use at least 2 to 6 GPUs with" in out
    out = run(["check", "--isolated", str(pod(tmp_path, '"--model=meta-llama/Llama-3.1-70B-Instruct"'))]).out
    assert "CTX203 [error] 131.42 GiB > 21.95 GiB" in out and "Use at least 6 GPUs with" in out



def test_ctx204_over_a_served_name_stays_an_error_and_says_the_inference(tmp_path):
    # the served name names the architecture: a fine-tune or quantized copy of Qwen2.5-7B keeps its 28 heads, which
    # TP 3 does not divide, so the error stands (uncertainty widens a band, never flips a verdict); it now says
    # where its model came from, as CTX201's pool account and CTX109 (rules/_served.py) already did
    args = '"--model=/model", "--served-model-name=Qwen2.5-7B-Instruct", "--tensor-parallel-size=3"'
    out = run(["check", "--isolated", str(pod(tmp_path, args, count=3))]).out
    assert ("CTX204 [error] 28 % 3 = 1: Qwen/Qwen2.5-7B-Instruct (inferred: /model is named only by its "
            "--served-model-name 'Qwen2.5-7B-Instruct'; a fine-tune or quantized copy keeps the architecture's heads) "
            "has 28 attention heads, which tensor parallel size 3 does not divide; the engine refuses to start. Use a "
            "divisor of 28") in out
    # a repository id names the model itself: no inference to say
    out = run(["check", "--isolated", str(pod(tmp_path, '"--model=Qwen/Qwen2.5-7B-Instruct", '
                                                        '"--tensor-parallel-size=3"', count=3))]).out
    assert "CTX204 [error] 28 % 3 = 1: Qwen/Qwen2.5-7B-Instruct has 28 attention heads" in out
    # CTX201 over the served name: still an error (the band's top cannot hold the request), its account says why
    args = '"--model=/model", "--served-model-name=Qwen2.5-7B-Instruct", "--max-model-len=131072", ' \
           '"--gpu-memory-utilization=0.5"'
    out = run(["check", "--isolated", str(pod(tmp_path, args))]).out
    assert ("CTX201 [error] 131,072 > 81,552: the unified engine context length 131,072 exceeds its KV pool 0 (derived "
            "for Qwen/Qwen2.5-7B-Instruct (model inferred: /model: architecture of Qwen/Qwen2.5-7B-Instruct, matched "
            "by its served name 'Qwen2.5-7B-Instruct' (--served-model-name)") in out


def test_models_lock_and_show_resolve_a_served_name_as_check_does(tmp_path):
    # `models lock` keyed each path once, so a `/model` without a served name could hide the one that resolved by
    # it, and said only "resolved (served)"; `models show` had no served name to read, so `/model` was unresolved
    served = tmp_path / "served"
    served.mkdir()
    pod(served, '"--model=/model", "--served-model-name=Qwen2.5-72B-Instruct"')
    (tmp_path / "bare.yaml").write_text(pod(tmp_path, '"--model=/model"').read_text().replace("name: served",
                                                                                             "name: bare"))
    (tmp_path / "deploy.yaml").unlink()
    done = run(["models", "lock", "--isolated", "--output", str(tmp_path / "lock.json"), str(tmp_path)])
    assert done.out.splitlines() == [
        "  /model: a local path, not a Hub id: put its config.json beside the deploy file or add it under `models:`",
        "  /model: resolved, matched by its served name 'Qwen2.5-72B-Instruct' (--served-model-name), nothing to "
        "lock"]
    shown = run(["models", "show", "/model", "--served-name", "Qwen2.5-72B-Instruct"])
    assert shown.code == 0
    assert shown.out.startswith(
        "/model: architecture of Qwen/Qwen2.5-72B-Instruct, matched by its served name 'Qwen2.5-72B-Instruct' "
        "(--served-model-name), the exact name of the repository Qwen/Qwen2.5-72B-Instruct; ")
    assert "weights                            16-bit or MXFP4 or NVFP4 or FP8\n" in shown.out
    assert run(["models", "show", "/model"]).code == 1  # no served name: a path names nothing
