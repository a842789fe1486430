"""LMDeploy settings read by release and backend: `--quant-policy` names and FP8/TurboQuant KV bytes,
`--num-gpu-blocks` (0.18.0) on the PyTorch engine, and `--cache-max-entry-count` of 1 or more."""
from __future__ import annotations

from ctxlint.engine import Settings, lint_text
from ctxlint.physics.kv import kv_breakdown
from ctxlint.physics.models import lookup_model

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: lmd}}
spec:
  nodeSelector: {{cloud.google.com/gke-accelerator: {gpu}}}
  containers:
    - name: engine
      image: openmmlab/lmdeploy{tag}
      command: [lmdeploy, serve, api_server, {model}, --session-len, "{session}"{args}]
      resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _findings(args, tag=":v0.18.0", session=65536, gpu="nvidia-l4", model=LLAMA):
    text = POD.format(tag=tag, session=session, gpu=gpu, model=model,
                      args="".join(f', "{a}"' for a in args))
    return lint_text(text, "lmd.yaml", Settings()).findings


def _codes(findings, code):
    return [f.message for f in findings if f.rule == code]


def test_quant_policy_names_from_0_14_refused_before():
    assert _codes(_findings(["--backend", "pytorch", "--quant-policy", "int8"]), "CTX301") == []
    assert _codes(_findings(["--backend", "pytorch", "--quant-policy", "int8"], tag=""), "CTX301") == []
    (old,) = _codes(_findings(["--backend", "pytorch", "--quant-policy", "int8"], tag=":v0.13.0"), "CTX301")
    assert "invalid int value: 'int8'" in old and "write 8" in old
    (fp8,) = _codes(_findings(["--backend", "pytorch", "--quant-policy", "16"], tag=":v0.13.0"), "CTX301")
    assert "invalid choice: 16" in fp8 and "run 0.14.0 or later" in fp8
    (tq,) = _codes(_findings(["--backend", "pytorch", "--quant-policy", "42"], tag=":v0.12.0"), "CTX301")
    assert "invalid choice: 42" in tq and "0.13.0" in tq
    assert _codes(_findings(["--backend", "pytorch", "--quant-policy", "42"], tag=":v0.13.0"), "CTX301") == []


def test_quant_policy_fp8_and_turbo_quant_bytes():
    arch = lookup_model(LLAMA)
    assert kv_breakdown(arch, "lmdeploy", kv_cache_dtype="fp8").bytes_per_token == 65_536
    assert kv_breakdown(arch, "lmdeploy", kv_cache_dtype="fp8_e5m2").bytes_per_token == 65_536
    # K 128/2 + V 128/4 + 3 bf16 scale/zero values, per head and layer: 8 heads x 32 layers
    assert kv_breakdown(arch, "lmdeploy", kv_cache_dtype="turbo_quant").bytes_per_token == 32 * 8 * (64 + 32 + 6)
    fp8 = _findings(["--backend", "pytorch", "--quant-policy", "fp8"])
    assert any("/ 65,536 B per token per GPU" in m for m in _codes(fp8, "CTX201") + _codes(fp8, "CTX210"))


def test_fp8_kv_refused_on_turbomind():
    (msg,) = _codes(_findings(["--quant-policy", "fp8"]), "CTX301")  # Llama: api_server picks TurboMind
    assert msg.startswith("LMDeploy 0.18.0 would refuse to start") and "--backend pytorch" in msg
    assert _codes(_findings(["--quant-policy", "fp8"], tag=""), "CTX301")[0].startswith("LMDeploy 0.14.0 and later")
    assert _codes(_findings(["--backend", "pytorch", "--quant-policy", "fp8"]), "CTX301") == []
    assert _codes(_findings(["--quant-policy", "fp8"], model="mistralai/Mistral-7B-Instruct-v0.3"), "CTX301") == []


def test_num_gpu_blocks_on_pytorch_from_0_18():
    args = ["--backend", "pytorch", "--num-gpu-blocks", "512"]
    (short,) = _codes(_findings(args, session=131072, gpu="nvidia-h100-80gb"), "CTX201")
    assert "KV pool 32,768" in short  # 512 blocks x 64 tokens, whatever the memory
    assert _codes(_findings(args, session=32704, gpu="nvidia-h100-80gb"), "CTX201") == []
    (old,) = _codes(_findings(args, tag=":v0.17.0", gpu="nvidia-h100-80gb"), "CTX301")
    assert "unrecognized arguments: --num-gpu-blocks" in old
    # TurboMind (Llama without --backend pytorch) never reads it: its pool is the share of free memory
    assert _codes(_findings(["--num-gpu-blocks", "512"], session=65536, gpu="nvidia-h100-80gb"), "CTX201") == []


def test_cache_max_entry_count_of_one_or_more_by_release():
    args = ["--cache-max-entry-count", "2000"]
    (new,) = _codes(_findings(args, gpu="nvidia-h100-80gb"), "CTX301")
    assert new.startswith("LMDeploy 0.18.0 would refuse to start") and "block count" in new
    assert _codes(_findings(args, tag=":v0.14.0", gpu="nvidia-h100-80gb"), "CTX301") == []  # TurboMind: blocks
    (mid,) = _codes(_findings(args, tag=":v0.9.2", gpu="nvidia-h100-80gb"), "CTX301")
    assert "TurbomindEngineConfig asserts" in mid
    assert _codes(_findings(args, tag="", gpu="nvidia-h100-80gb"), "CTX301")[0].startswith("LMDeploy 0.15.0 and later")
    (pt,) = _codes(_findings(["--backend", "pytorch", *args], tag=":v0.14.0", gpu="nvidia-h100-80gb"), "CTX301")
    assert "PyTorch engine asserts" in pt
    # 0.14.0's TurboMind takes 2000 blocks x 64 = 128,000 tokens: short of 131,072
    (short,) = _codes(_findings(args, tag=":v0.14.0", session=131072, gpu="nvidia-h100-80gb"), "CTX201")
    assert "KV pool 128,000" in short


def test_negative_num_gpu_blocks_refused_on_pytorch():
    # PytorchEngineConfig: `assert self.num_gpu_blocks >= 0, 'invalid num_gpu_blocks'` (lmdeploy-0.18.0 wheel:
    # lmdeploy/messages.py:615); TurboMind never reads the flag
    args = ["--backend", "pytorch", "--num-gpu-blocks", "-1"]
    (msg,) = _codes(_findings(args, gpu="nvidia-h100-80gb"), "CTX301")
    assert msg.startswith("LMDeploy 0.18.0 would refuse to start") and "'invalid num_gpu_blocks'" in msg
    assert _codes(_findings(args, tag="", gpu="nvidia-h100-80gb"), "CTX301")[0].startswith("LMDeploy 0.18.0 and later")
    assert _codes(_findings(["--num-gpu-blocks", "-1"], gpu="nvidia-h100-80gb"), "CTX301") == []  # TurboMind
    # no pool from it: the share of free memory, as without the flag
    assert _codes(_findings(args, session=131072, gpu="nvidia-h100-80gb"), "CTX201") == \
        _codes(_findings(["--backend", "pytorch"], session=131072, gpu="nvidia-h100-80gb"), "CTX201")


def test_backend_not_guessed_for_an_unmapped_model_type():
    from dataclasses import replace

    from ctxlint.physics.lmdeploy_backend import backend

    llama = lookup_model(LLAMA)
    assert backend(llama, {}, "0.18.0") == "turbomind"
    # a type the map does not hold may still be a class TurboMind lists: not known, not "pytorch"
    assert backend(replace(llama, model_type="some_new_type"), {}, "0.18.0") is None
    assert backend(replace(llama, model_type="some_new_type"), {"backend": "pytorch"}, "0.18.0") == "pytorch"
    # HF-native InternVL (model_type internvl): InternVLForConditionalGeneration, listed from 0.14.0
    assert backend(replace(llama, model_type="internvl"), {}, "0.18.0") == "turbomind"
    # a listed class is read before the type; an unlisted class is PyTorch
    assert backend(replace(llama, architectures=("MistralForCausalLM",)), {}, "0.18.0") == "pytorch"


def test_refusal_for_a_model_matched_by_folder_name_is_conditional():
    (msg,) = _codes(_findings(["--quant-policy", "fp8"], model="/models/Qwen2.5-7B-Instruct"), "CTX301")
    assert msg.startswith("If /models/Qwen2.5-7B-Instruct holds Qwen/Qwen2.5-7B-Instruct (matched by its folder "
                          "name only), LMDeploy 0.18.0 would refuse to start")
    # a repository id is the model itself: said outright
    (hub,) = _codes(_findings(["--quant-policy", "fp8"], model="Qwen/Qwen2.5-7B-Instruct"), "CTX301")
    assert hub.startswith("LMDeploy 0.18.0 would refuse to start")


def test_a_refusal_at_a_release_that_need_not_be_the_newest_is_a_warning_that_says_why():
    # CTX301's policy at an unknown release (engines/release_unknown.py), for the refusals made per deployment: the
    # tag `sha-1a2b3c` names no release, and releases before 0.18.0 have no such assertion (before: an error)
    args = ["--backend", "pytorch", "--num-gpu-blocks", "-1"]
    (found,) = [f for f in _findings(args, tag=":sha-1a2b3c", gpu="nvidia-h100-80gb") if f.rule == "CTX301"]
    assert (found.severity, found.message) == ("warning", (
        "LMDeploy 0.18.0 and later would refuse to start: --num-gpu-blocks -1 is negative, and the PyTorch engine "
        "asserts num_gpu_blocks >= 0 ('invalid num_gpu_blocks'): write a number of blocks, or 0 to size the pool "
        "from --cache-max-entry-count. Which LMDeploy release runs is unknown: the tag of "
        "openmmlab/lmdeploy:sha-1a2b3c names no lmdeploy release; a release before 0.18.0 takes it, so this is a "
        "warning (the image's LMDeploy version says which; with that release pinned ctxlint can tell)"))
    for more in (["--cache-max-entry-count", "2000"], ["--quant-policy", "fp8"]):
        (found,) = [f for f in _findings(more, tag=":sha-1a2b3c", gpu="nvidia-h100-80gb") if f.rule == "CTX301"]
        assert found.severity == "warning" and "Which LMDeploy release runs is unknown" in found.message
    # the release image untagged or at `latest` runs the newest release, which refuses: an error, said as before
    for tag in ("", ":latest"):
        (found,) = [f for f in _findings(args, tag=tag, gpu="nvidia-h100-80gb") if f.rule == "CTX301"]
        assert (found.severity, found.message.startswith("LMDeploy 0.18.0 and later")) == ("error", True)
        assert "unknown" not in found.message
