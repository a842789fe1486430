"""SGLang's automatic mem_fraction_static by release (mem_sglang.SMALL_TIER, PREFILL_GRAPHS) and the decode
CUDA-graph batch's spellings (flags_sglang.py), each figure from the releases' wheels."""
import subprocess
import sys
import textwrap

from ctxlint.physics.mem_sglang import auto_fraction

L4_MIB = 23034  # nvidia-smi's total for an L4

YAML = textwrap.dedent("""\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: l4
    spec:
      selector: {{matchLabels: {{app: x}}}}
      template:
        metadata: {{labels: {{app: x}}}}
        spec:
          containers:
            - name: sglang
              image: lmsysorg/sglang:{image}
              command: ["python3", "-m", "sglang.launch_server"]
              args:
                - --model-path
                - meta-llama/Llama-3.1-8B-Instruct
                - "--context-length={ctx}"{extra}
              resources:
                limits: {{nvidia.com/gpu: 1}}
          nodeSelector: {{nvidia.com/gpu.product: {gpu}}}
    """)


def _check(tmp_path, image, ctx, gpu="NVIDIA-L4", extra=""):
    f = tmp_path / "d.yaml"
    f.write_text(YAML.format(image=image, ctx=ctx, gpu=gpu, extra=extra))
    out = subprocess.run([sys.executable, "-m", "ctxlint", "check", "--isolated", str(f)], capture_output=True,
                         text=True, cwd=tmp_path)
    return out.stdout.replace(str(f), "F")


def test_small_tier_by_release() -> None:
    # 20-35 GiB: 2048 / 16 up to 0.5.4, 2048 / 24 to 0.5.19, 4096 / 48 from 0.5.20 (it was one table: 0.837 on
    # every release >= 0.5.3)
    tail = "max(2048, 2048) x 1.5 + {} x 2 + 1 x 1 / 8 x 1024 MiB"
    assert auto_fraction(L4_MIB, 1, 1, {}, "0.5.4")[2].endswith(tail.format(16))
    assert auto_fraction(L4_MIB, 1, 1, {}, "0.5.9")[2].endswith(tail.format(24))
    assert auto_fraction(L4_MIB, 1, 1, {}, "0.5.23") == (
        0.684, 0.701, "round((23034 - reserved 7280) / 23034, 3); reserved = 512 + max(4096, 2048) x 1.5 + 48 x 2 "
                      "+ 1 x 1 / 8 x 1024 + prefill graphs 400 MiB")
    assert auto_fraction(L4_MIB, 4, 1, {}, "0.5.20")[2].count("160 x 2") == 1
    # a release not known spans the eras: the point is 0.5.20's, the top the oldest's
    assert auto_fraction(L4_MIB, 1, 1, {}, None)[:2] == (0.684, 0.88)


def test_l4_llama_8b_on_0_5_23_holds_no_kv_pool(tmp_path) -> None:
    # the engine's 0.684 of an L4 is less than the weights; ctxlint said "fits 1.54x, 25,239 tokens"
    assert _check(tmp_path, "v0.5.23", 16384) == (
        "F:17:33: CTX201 [error] 16,384 > 2,415: the unified engine context length 16,384 exceeds its KV pool 0 "
        "(derived for meta-llama/Llama-3.1-8B on 1x L4, sglang: KV budget per GPU -0.22 GiB (21.55 GiB x 0.684 - "
        "weights 14.96 GiB) / 131,072 B per token per GPU = 0 tokens; band 0-2,415) by 13,969 tokens even at the top "
        "of its band; SGLang starts and silently lowers the per-request limit to the pool, so requests up to the "
        "context length it reports are refused. The estimate itself holds no KV block, only its band's top does: "
        "lower the context length to 2,415 to be within the band (a CTX210 warning), or add memory (more or larger "
        "accelerators, a higher memory fraction, an fp8 KV cache) (context-exceeds-kv-pool)\n")


def test_prefill_graph_reserve_from_0_5_10() -> None:
    # H100 (81559 MiB), TP 1: 0.5.9 captures no prefill graph; from 0.5.10, 58 sizes up to 8192 x 8 MiB, or 1.5 GiB
    # with MLA; the band's top leaves it out (some models run prefill eagerly)
    assert auto_fraction(81559, 1, 1, {}, "0.5.9")[:2] == (0.835, 0.835)
    assert auto_fraction(81559, 1, 1, {}, "0.5.10") == (
        0.83, 0.835, "round((81559 - reserved 13904) / 81559, 3); reserved = 512 + max(8192, 2048) x 1.5 + 256 x 2 "
                     "+ 1 x 1 / 8 x 1024 + prefill graphs 464 MiB")
    assert auto_fraction(81559, 1, 1, {}, "0.5.22", mla=True)[:2] == (0.816, 0.835)
    assert auto_fraction(L4_MIB, 1, 1, {"cuda_graph_max_bs_prefill": 1024}, "0.5.23")[0] == 0.688  # 28 sizes
    # --disable-cuda-graph captures none, and from 0.5.15 reserves for no decode graph either (a decode role:
    # test_sglang_roles.py)
    assert auto_fraction(L4_MIB, 1, 1, {"disable_cuda_graph": True}, "0.5.14")[:2] == (0.837, 0.837)
    assert auto_fraction(L4_MIB, 1, 1, {"disable_cuda_graph": True}, "0.5.23")[:2] == (0.705, 0.705)


def test_decode_graph_batch_spellings() -> None:
    # --cuda-graph-max-bs-decode from 0.5.14; --cuda-graph-max-bs read up to 0.5.19 only
    assert auto_fraction(L4_MIB, 1, 1, {"cuda_graph_max_bs_decode": 8}, "0.5.23")[0] == 0.687
    assert auto_fraction(L4_MIB, 1, 1, {"cuda_graph_max_bs": 8}, "0.5.23")[0] == 0.684
    assert auto_fraction(L4_MIB, 1, 1, {"cuda_graph_max_bs": 8}, "0.5.19")[0] == 0.824
    assert auto_fraction(L4_MIB, 1, 1, {"cuda_graph_max_bs_decode": 8}, "0.5.13")[0] == 0.822


def test_cuda_graph_max_bs_refused_from_0_5_20(tmp_path) -> None:
    old = '\n            - "--cuda-graph-max-bs=8"'
    assert _check(tmp_path, "v0.5.23", 131072, "NVIDIA-H100-80GB-HBM3", old) == (
        "F:18:16: CTX301 [error] sglang 0.5.23 would refuse to start: ambiguous option: --cuda-graph-max-bs could "
        "match --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill (dropped in 0.5.20: write "
        "--cuda-graph-max-bs-decode 8) (engine-rejects-value)\n")
    assert _check(tmp_path, "v0.5.19", 131072, "NVIDIA-H100-80GB-HBM3", old) == ""
    assert _check(tmp_path, "v0.5.23", 131072, "NVIDIA-H100-80GB-HBM3",
                  '\n            - "--cuda-graph-max-bs-decode=8"') == ""
