"""SGLang's attention TP under DP attention and attention context parallelism: the KV pool's bytes per token read
KV heads over tp // attn_dp_size // attn_cp_size (sglang-0.5.23 wheel: sglang/srt/runtime_context.py:73-76,
model_executor/pool_configurator.py:356, 438), and a dense model whose code splits attention so holds more of its
attention weights (models/qwen3.py:164-177; llama.py:181-194 splits over the whole TP)."""
from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.models import lookup_model
from ctxlint.physics.served import attention_replicas, kv_tensor_parallel

QWEN3_32B, QWEN3_235B = lookup_model("Qwen/Qwen3-32B"), lookup_model("Qwen/Qwen3-235B-A22B")


def test_kv_heads_split_over_the_attention_tp() -> None:
    assert kv_tensor_parallel("sglang", {}, 8) == (8, "")
    assert kv_tensor_parallel("sglang", {"attn_dp_size": 8}, 8) == (
        1, "SGLang splits KV heads over attention TP 1 (TP 8 / DP attention 8)")
    assert kv_tensor_parallel("sglang", {"enable_dp_attention": True, "dp_size": 4}, 8)[0] == 2
    assert kv_tensor_parallel("sglang", {"dp_size": 4}, 8)[0] == 8  # replicas, not DP attention
    assert kv_tensor_parallel("sglang", {"attn_cp_size": 2, "attn_dp_size": 2}, 8) == (
        2, "SGLang splits KV heads over attention TP 2 (TP 8 / DP attention 2 / attention CP 2)")
    assert kv_tensor_parallel("sglang", {"attn_dp_size": 3}, 8)[0] == 8  # SGLang refuses it; not split here
    assert kv_tensor_parallel("vllm", {"attn_dp_size": 8}, 8)[0] == 8
    # Qwen3-235B (4 KV heads) at TP 8 with DP attention 8: each GPU holds the 4 heads of its group's tokens,
    # 94 x 2 x 4 x 128 x 2 = 192,512 B a token, not one replicated head (48,128): a pool a quarter the size
    r = estimate(CapacityInput(QWEN3_235B, "sglang", "H200", tp=8, engine_version="0.5.23",
                               settings={"attn_dp_size": 8}))
    assert (r.kv_bytes_per_token_per_gpu, r.pool_tokens) == (192_512, 208_271)
    assert "SGLang splits KV heads over attention TP 1 (TP 8 / DP attention 8)" in r.assumptions
    # an MLA latent is whole on every GPU: DeepSeek-V3's bytes per token do not change
    v3 = lookup_model("deepseek-ai/DeepSeek-V3")
    assert estimate(CapacityInput(v3, "sglang", "H200", tp=8, settings={"attn_dp_size": 8})) \
        .kv_bytes_per_token_per_gpu == estimate(CapacityInput(v3, "sglang", "H200", tp=8)).kv_bytes_per_token_per_gpu


def test_attention_context_parallelism_on_a_dense_qwen3() -> None:
    # Qwen3-32B on 4x RTX 5090 (TP 4, mem_fraction_static 0.88, 0.5.13.post1): with --attention-context-parallel-size
    # 2 the attention TP is 2: 131,072 B a token (4 KV heads a GPU) and q/k/v/o at 64 x 5120 x 128 x (2 x 32 + 2 x 4)
    # x 2 B = 2.81 GiB more a GPU. A public report of this layout logged 187,069 tokens and 15.50 GB of weights at
    # TP 4, 70,950 and 18.25 GB with CP 2 (its repository not found again, so not a calibration case); both lie in
    # the bands below
    def run(**s):
        return estimate(CapacityInput(QWEN3_32B, "sglang", "RTX-5090", tp=4, engine_version="0.5.13.post1",
                                      settings={"mem_fraction_static": 0.88, **s}))

    plain, cp = run(), run(attn_cp_size=2)
    # the band's top on the RTX 5090's nvidia-smi Total, 32,607 MiB (its catalog figure, 31.29 GiB, is an estimate)
    assert (plain.kv_bytes_per_token_per_gpu, plain.pool_tokens, plain.pool_low, plain.pool_high) == (
        65_536, 172_385, 155_852, 206_075)
    assert (cp.kv_bytes_per_token_per_gpu, cp.pool_tokens, cp.pool_low, cp.pool_high) == (
        131_072, 63_152, 54_886, 79_997)
    assert round((cp.weights_bytes_per_gpu - plain.weights_bytes_per_gpu) / 2 ** 30, 2) == 2.81
    assert "SGLang attention TP 2: each GPU holds 1/2 of the attention weights, 2.81 GiB more than at TP 4" \
        in cp.assumptions


def test_a_dense_model_that_splits_attention_over_the_whole_tp_widens_the_band_only() -> None:
    # Llama's attention is over tp_size (sglang-0.5.23 wheel: models/llama.py:181-194): the point keeps its weights,
    # the band's low end holds the attention weights whole (19.69 GiB more at TP 8 / DP attention 8)
    l70 = lookup_model("meta-llama/Llama-3.3-70B-Instruct")
    base = estimate(CapacityInput(l70, "sglang", "H200", tp=8, engine_version="0.5.23"))
    dpa = estimate(CapacityInput(l70, "sglang", "H200", tp=8, engine_version="0.5.23", settings={"attn_dp_size": 8}))
    assert dpa.weights_bytes_per_gpu == base.weights_bytes_per_gpu
    assert dpa.kv_bytes_per_token_per_gpu == 8 * base.kv_bytes_per_token_per_gpu
    # the top on H200's nvidia-smi Total, 143,771 MiB (its catalog figure is that less an assumed 1 GiB)
    assert (dpa.pool_tokens, dpa.pool_low, dpa.pool_high) == (290_602, 223_008, 295_696)


def test_an_moe_model_holds_attention_per_attention_tp_group_with_context_parallelism() -> None:
    assert attention_replicas("sglang", QWEN3_235B, {"attn_cp_size": 2}, 8) == (
        2, "SGLang attention context parallelism: attention TP 8 / attn_cp_size 2")
    assert attention_replicas("sglang", QWEN3_235B, {"attn_dp_size": 2, "attn_cp_size": 2}, 8) == (
        4, "SGLang DP attention: attention TP 8 / attn_dp_size 2 / attn_cp_size 2")
    assert attention_replicas("sglang", QWEN3_235B, {"attn_dp_size": 8}, 8) == (
        8, "SGLang DP attention: attention TP 8 / attn_dp_size 8")
    assert attention_replicas("sglang", QWEN3_235B, {"attn_cp_size": 3}, 8) == (1, "")


def test_a_linear_attention_state_is_split_over_the_attention_tp() -> None:
    # Mamba2StateShape.create(tp_world_size=attn_tp_size) (sglang-0.5.23 wheel: configs/nemotron_h.py:428,
    # qwen3_next.py:301): Qwen3-Next at TP 4 with DP attention 4 holds each request's whole state on its GPU,
    # 4 x 19,316,736 B
    nxt = lookup_model("Qwen/Qwen3-Next-80B-A3B-Thinking")

    def state(**s):
        r = estimate(CapacityInput(nxt, "sglang", "H100-SXM-80GB", tp=4, engine_version="0.5.23", settings=s))
        return next(a for a in r.assumptions if a.startswith("SGLang state pool")).split(" B each")[0].split(", ")[-1]

    assert state() == "19,316,736"
    assert state(attn_dp_size=4) == "77,266,944"
