"""ALiBi models (MPT, BLOOM, Baichuan 13B): their context limit as vLLM reads it, with no RoPE advice (CTX109,
CTX303), and BLOOM's configs (the width spelled n_embed, the LM head tied, seq_length or no position key)."""
import pytest

from ctxlint.physics.alibi import alibi_family
from ctxlint.physics.context import default_context
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.models import lookup_model
from helpers import context_errors


def _findings(tmp_path, rule, model, context, extra="", env=""):
    return context_errors(tmp_path, rule, model, context, extra, env, name="alibi")


def test_mpt_above_its_max_seq_len_is_refused_by_vllm_without_rope_advice(tmp_path):
    # vLLM derives 2,048 from max_seq_len (the smallest position key) and refuses a longer --max-model-len; the old
    # advice was --hf-overrides rope_scaling, which MPT (ALiBi, no rotary embedding) cannot use
    assert _findings(tmp_path, "CTX109", "mosaicml/mpt-7b", 4096) == [
        "4,096 > 2,048: the unified context length 4,096 exceeds the length vLLM derives for this model by 2,048 "
        "tokens (vLLM derives 2,048 from the model's max_seq_len 2,048), and vLLM refuses to start above it. MPT "
        "places tokens by ALiBi attention biases, not a rotary embedding, so no RoPE scaling stretches its positions. "
        "Lower it to 2,048; vLLM starts above it only with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, and ALiBi then "
        "extrapolates past the 2,048 positions the model was trained on (no position table to overrun, but no "
        "training at those lengths either) (context-exceeds-trained-positions)"]


def test_a_rope_override_on_mpt_lets_vllm_start_but_stretches_nothing(tmp_path):
    # a linear factor in --hf-overrides multiplies vLLM's derived length (it starts), the ALiBi model ignores it
    extra = ', "--hf-overrides", "{\\"rope_scaling\\": {\\"rope_type\\": \\"linear\\", \\"factor\\": 2.0}}"'
    assert _findings(tmp_path, "CTX109", "mosaicml/mpt-7b", 4096, extra) == [
        "4,096 > 2,048: the unified context length 4,096 exceeds the 2,048 positions this model was trained on by "
        "2,048 tokens; vLLM starts with it (vLLM derives 4,096 from the model's max_seq_len 2,048 x linear factor 2 "
        "(--hf-overrides)), but MPT places tokens by ALiBi attention biases, not a rotary embedding, so no RoPE "
        "scaling stretches its positions: past them ALiBi extrapolates. Lower it to 2,048 "
        "(context-exceeds-trained-positions)"]


def test_the_long_context_switch_on_mpt_gets_no_rope_advice(tmp_path):
    env = '          env: [{name: VLLM_ALLOW_LONG_MAX_MODEL_LEN, value: "1"}]\n'
    assert _findings(tmp_path, "CTX109", "mosaicml/mpt-7b", 4096, env=env) == []
    assert _findings(tmp_path, "CTX303", "mosaicml/mpt-7b", 4096, env=env) == [
        "4,096 > 2,048: VLLM_ALLOW_LONG_MAX_MODEL_LEN lets vLLM start the unified role with max_model_len 4,096, "
        "2,048 tokens past the 2,048 positions the model was trained on. MPT places tokens by ALiBi attention biases, "
        "not a rotary embedding: no RoPE scaling applies and no position table is overrun, so ALiBi extrapolates to "
        "lengths the model was not trained at. Lower max_model_len to 2,048 and drop the override, or suppress this "
        "finding where that extrapolation was measured and accepted (long-context-override-without-rope-scaling)"]


def test_bloomz_seq_length_is_the_limit_vllm_enforces(tmp_path):
    # the official bloomz file states seq_length 2048, a key vLLM reads
    assert _findings(tmp_path, "CTX109", "bigscience/bloomz-1b7", 4096) == [
        "4,096 > 2,048: the unified context length 4,096 exceeds the length vLLM derives for this model by 2,048 "
        "tokens (vLLM derives 2,048 from the model's seq_length 2,048), and vLLM refuses to start above it. BLOOM "
        "places tokens by ALiBi attention biases, not a rotary embedding, so no RoPE scaling stretches its positions. "
        "Lower it to 2,048; vLLM starts above it only with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, and ALiBi then "
        "extrapolates past the 2,048 positions the model was trained on (no position table to overrun, but no "
        "training at those lengths either) (context-exceeds-trained-positions)"]


def test_a_bloom_config_without_a_position_key_has_no_limit_vllm_enforces(tmp_path):
    # vllm/config/model.py _get_and_verify_max_len: with no key found, a given max_model_len is returned as is;
    # only an unset one falls back to 2048
    assert _findings(tmp_path, "CTX109", "bigscience/bloom-560m", 4096) == []
    arch = lookup_model("bigscience/bloom-7b1")
    assert arch.max_position_embeddings is None and arch.position_keys == ()
    default = default_context("vllm", arch, {}, "0.11.0")
    assert (default.tokens, default.why) == (2048, "vLLM derives 2,048 from the model's 2048 (the config has no "
                                                   "position key)")


@pytest.mark.parametrize("model_id, layers, heads, head_dim, positions, total_b", [
    # official bloomz: n_embed 14336 x 70 layers, 112 heads, seq_length 2048; 70 x (4h^2 + 8h^2 + 2h) + h + V x h
    ("bigscience/bloomz", 70, 112, 128, 2048, 176.2362),
    ("bigscience/bloom", 70, 112, 128, None, 176.2362),
    ("bigscience/bloomz-1b7", 24, 16, 128, 2048, 1.7219),
    ("bigscience/bloom-1b7", 24, 16, 128, 4096, 1.7219),
    ("bigscience/bloom-7b1", 30, 32, 128, None, 7.0677),
    ("bigscience/bloom-560m", 24, 16, 64, None, 0.5589),
])
def test_bloom_family_resolves_with_a_tied_head(model_id, layers, heads, head_dim, positions, total_b):
    arch = lookup_model(model_id)
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == \
        (layers, heads, head_dim, positions)
    assert arch.lm_head_params_b == 0.0 and arch.vocab_size == 250880
    assert arch.total_params_b == pytest.approx(total_b, abs=1e-4)
    assert alibi_family(arch) == "BLOOM"


def test_bloom_counts_are_exact():
    # plain MLP 4h, biases and the embedding LayerNorm not counted (as for every family here), one 250880 x h table
    def count(h, n):
        return n * (4 * h * h + 2 * h * 4 * h + 2 * h) + h + 250880 * h
    assert count(14336, 70) == 176_236_189_696
    assert count(1024, 24) == 558_941_184
    arch = arch_from_hf_config({"model_type": "bloom", "n_embed": 14336, "n_layer": 70, "num_attention_heads": 112,
                                "vocab_size": 250880})
    assert (arch.hidden_size, arch.head_dim) == (14336, 128)
    assert round(arch.total_params_b * 1e9) == 176_236_189_696
    small = arch_from_hf_config({"model_type": "bloom", "hidden_size": 1024, "n_layer": 24, "n_head": 16,
                                 "vocab_size": 250880})
    assert round(small.total_params_b * 1e9) == 558_941_184 and small.lm_head_params_b == 0.0


def test_which_models_are_alibi():
    assert alibi_family(lookup_model("mosaicml/mpt-7b")) == "MPT"
    # Baichuan2 13B (hidden 5120) is ALiBi in vLLM's and SGLang's BaichuanForCausalLM; 7B (hidden 4096) is RoPE
    assert alibi_family(lookup_model("baichuan-inc/Baichuan2-13B-Chat")) == "Baichuan-13B"
    assert alibi_family(arch_from_hf_config({"model_type": "baichuan", "hidden_size": 4096, "num_hidden_layers": 32,
                                             "num_attention_heads": 32})) == ""
    assert alibi_family(lookup_model("tiiuae/falcon-7b")) == ""
    assert alibi_family(None) == ""
