"""Models with a learned absolute position table (GPT-2 and distilgpt2, OPT, GPTBigCode: physics.alibi): above the
table no RoPE scaling is advised and the long-context switch is not offered as a way to serve it (CTX109, CTX303)."""
import pytest

from helpers import context_errors

SWITCH = '          env: [{name: VLLM_ALLOW_LONG_MAX_MODEL_LEN, value: "1"}]\n'
TABLE = "GPT-2 adds a learned position embedding, a table of 1,024 rows (one per position), not a rotary embedding"


def _findings(tmp_path, rule, model, context, extra="", env=""):
    return context_errors(tmp_path, rule, model, context, extra, env, name="learned")


def test_distilgpt2_above_its_table_gets_no_rope_advice_and_no_switch_to_serve_it(tmp_path):
    # the old advice was --hf-overrides rope_scaling (GPT-2 has no rotary embedding) and, on the derived-limit path,
    # that the switch serves the positions "unless RoPE scaling stretches them": past the table there is no row
    assert _findings(tmp_path, "CTX109", "distilbert/distilgpt2", 2048) == [
        "2,048 > 1,024: the unified context length 2,048 exceeds the length vLLM derives for this model by 1,024 "
        "tokens (vLLM derives 1,024 from the model's n_positions 1,024), and vLLM refuses to start above it. "
        f"{TABLE}, so no RoPE scaling stretches its positions and a position past the table does not exist. Lower it "
        "to 1,024: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets vLLM start above it, but not serve a position the table has "
        "no row for (context-exceeds-trained-positions)"]
    assert _findings(tmp_path, "CTX109", "distilbert/distilgpt2", 1024) == []


def test_a_rope_factor_on_distilgpt2_lets_vllm_start_but_stretches_nothing(tmp_path):
    extra = ', "--hf-overrides", "{\\"rope_scaling\\": {\\"rope_type\\": \\"linear\\", \\"factor\\": 2.0}}"'
    assert _findings(tmp_path, "CTX109", "distilbert/distilgpt2", 2048, extra) == [
        "2,048 > 1,024: the unified context length 2,048 exceeds the 1,024 positions this model was trained on by "
        "1,024 tokens; vLLM starts with it (vLLM derives 2,048 from the model's n_positions 1,024 x linear factor 2 "
        f"(--hf-overrides)), but {TABLE}, so no RoPE scaling stretches its positions and a position past the table "
        "does not exist. Lower it to 1,024 (context-exceeds-trained-positions)"]


@pytest.mark.parametrize("extra", [
    "",
    # with the switch, a RoPE factor covers the length by ctxlint's arithmetic, but GPT-2 has no RoPE to scale
    ', "--hf-overrides", "{\\"rope_scaling\\": {\\"rope_type\\": \\"yarn\\", \\"factor\\": 2.0, '
    '\\"original_max_position_embeddings\\": 1024}}"',
])
def test_the_long_context_switch_on_distilgpt2_is_advised_away(tmp_path, extra):
    assert _findings(tmp_path, "CTX109", "distilbert/distilgpt2", 2048, extra, SWITCH) == []
    assert _findings(tmp_path, "CTX303", "distilbert/distilgpt2", 2048, extra, SWITCH) == [
        "2,048 > 1,024: VLLM_ALLOW_LONG_MAX_MODEL_LEN lets vLLM start the unified role with max_model_len 2,048, "
        f"1,024 tokens past the 1,024 positions the model was trained on. {TABLE}: no RoPE scaling applies, and a "
        "position past the table does not exist. Lower max_model_len to 1,024 and drop the override "
        "(long-context-override-without-rope-scaling)"]


def test_only_architectures_read_in_the_engine_code_are_learned_tables():
    from ctxlint.physics.alibi import learned_table_family
    from ctxlint.physics.models import lookup_model

    assert learned_table_family(lookup_model("distilbert/distilgpt2")) == "GPT-2"
    assert [learned_table_family(type("A", (), {"model_type": t})()) for t in ("opt", "gpt_bigcode", "OPT")] == \
        ["OPT", "GPTBigCode", "OPT"]
    # rotary (Llama), ALiBi (MPT, BLOOM: physics.alibi's other list) and kinds not read (GPT-J, Falcon) are not
    assert [learned_table_family(type("A", (), {"model_type": t})()) for t in
            ("llama", "mpt", "bloom", "gptj", "falcon", "")] == [""] * 6
    assert learned_table_family(None) == ""
