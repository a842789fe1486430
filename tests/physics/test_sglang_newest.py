"""SGLang 0.5.21-0.5.23's changes to the automatic mem_fraction_static (reserve_sglang.RUNNING_CAP,
dp_attention_width), each figure worked from the wheels (sglang-0.5.X/sglang/srt/arg_groups/memory_hook.py)."""
from helpers import run

from ctxlint.physics.mamba_sglang import _fixed
from ctxlint.physics.mem_sglang import auto_fraction
from ctxlint.physics.models import lookup_model
from ctxlint.physics.served import attention_replicas

L4_MIB, H100_MIB, H200_MIB = 23034, 81559, 143771  # nvidia-smi's totals


def test_default_decode_graph_batch_is_capped_at_max_running_requests_from_0_5_22() -> None:
    # sglang-0.5.22 wheel: memory_hook.py:182-188 (0.5.21 has no cap). One L4, 8 requests at a time: 512 + 4096 x 1.5
    # + 8 x 2 + 128 + prefill graphs 400 = 7200 MiB, not 7280 (48 x 2)
    few = {"max_running_requests": 8}
    assert auto_fraction(L4_MIB, 1, 1, few, "0.5.23") == (
        0.687, 0.705, "round((23034 - reserved 7200) / 23034, 3); reserved = 512 + max(4096, 2048) x 1.5 + 8 x 2 "
                      "(decode graphs capped at --max-running-requests) + 1 x 1 / 8 x 1024 + prefill graphs 400 MiB")
    assert auto_fraction(L4_MIB, 1, 1, few, "0.5.22")[:2] == (0.687, 0.705)
    assert auto_fraction(L4_MIB, 1, 1, few, "0.5.21")[:2] == (0.684, 0.701)
    # a batch as set is kept, and a running limit above the default caps nothing
    assert auto_fraction(L4_MIB, 1, 1, {**few, "cuda_graph_max_bs_decode": 48}, "0.5.23")[:2] == (0.684, 0.701)
    assert auto_fraction(L4_MIB, 1, 1, {"max_running_requests": 64}, "0.5.23")[:2] == (0.684, 0.701)
    # a release not known: the least of the eras (0.5.21's) to the most
    assert auto_fraction(L4_MIB, 1, 1, few, None)[0] == 0.684
    # the DP-attention padding reads the capped batch too: 16 x 8 x 3, not 512 x 8 x 4.5
    dp = {"attn_dp_size": 8, "max_running_requests": 16}
    assert "+ 16 x 2 (decode graphs capped at --max-running-requests) + 8 x 1 / 8 x 1024 + DP attention 16 x 8 x 3 " \
        in auto_fraction(H200_MIB, 8, 1, dp, "0.5.23", mla=True)[2]


def test_attn_dp_size_is_dp_attention_from_0_5_22() -> None:
    # `--attn-dp-size 8` alone (sglang-0.5.22 wheel: arg_groups/fields/parallel.py:81-90, runtime_context.py
    # attn_dp_enabled_of) is what `--dp-size 8 --enable-dp-attention` resolves to (parallel_hook.py:39-60)
    old = auto_fraction(H200_MIB, 8, 1, {"enable_dp_attention": True, "dp_size": 8}, "0.5.23", mla=True)
    assert auto_fraction(H200_MIB, 8, 1, {"attn_dp_size": 8}, "0.5.23", mla=True) == old == (
        0.758, 0.769, "round((143771 - reserved 34816) / 143771, 3); reserved = 512 + max(8192, 2048) x 1.5 + 512 x 2 "
                      "+ 8 x 1 / 8 x 1024 + DP attention 512 x 8 x 4.5 + prefill graphs 1536 MiB")
    assert auto_fraction(H200_MIB, 8, 1, {"attn_dp_size": 1}, "0.5.23", mla=True)[:2] == (0.886, 0.897)
    v3 = lookup_model("deepseek-ai/DeepSeek-V3")
    assert attention_replicas("sglang", v3, {"attn_dp_size": 8}, 8) == (8, "SGLang DP attention: attention TP 8 / "
                                                                           "attn_dp_size 8")
    assert attention_replicas("sglang", v3, {"dp_size": 8}, 8) == (1, "")  # replicas without DP attention
    # a Mamba state pool per DP-attention group
    assert _fixed({"attn_dp_size": 4, "max_running_requests": 64}) == (16, "--max-running-requests 64 // DP 4")


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  selector: {{matchLabels: {{app: x}}}}
  template:
    metadata: {{labels: {{app: x}}}}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:{tag}
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "{model}", "--context-length=16384"{extra}]
          env: [{{name: SGLANG_ENABLE_POST_CAPTURE_KV_SIZING, value: "{post}"}}]
          resources:
            limits: {{nvidia.com/gpu: 1}}
      nodeSelector: {{nvidia.com/gpu.product: {gpu}}}
"""


def _deploy(tmp_path, model, gpu, extra="", post="0", *command, tag="v0.5.23"):
    f = tmp_path / "d.yaml"
    f.write_text(DEPLOYMENT.format(model=model, gpu=gpu, extra=extra, post=post, tag=tag))
    return run([*command, "--isolated", str(f)]), str(f)


def test_attn_dp_size_is_a_flag_from_0_5_22(tmp_path) -> None:
    # sglang-0.5.22 wheel: sglang/srt/arg_groups/fields/parallel.py:81-90; 0.5.21 has the field derived, no flag
    def check(tag):
        result, path = _deploy(tmp_path, "deepseek-ai/DeepSeek-V3", "NVIDIA-H200", ', "--attn-dp-size", "8"', "0",
                               "check", "--select", "CTX301", tag=tag)
        return result.out.replace(path, "F")

    assert check("v0.5.22") == check("v0.5.23") == ""
    assert check("v0.5.21") == ("F:14:88: CTX301 [error] sglang 0.5.21 would refuse to start: unrecognized "
                                "arguments: --attn-dp-size (a spelling from 0.5.22 on: earlier releases have no such "
                                "flag) (engine-rejects-value)\n")
