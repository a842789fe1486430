"""srt-slurm's `model.precision` weighed against the model's own weight format (resolution/stated_format.py).

srtctl's `precision` is a required word about the checkpoint and nothing more (NVIDIA/srt-slurm@c88ef731:
src/srtctl/core/schema.py ModelConfig `precision: str`; docs/config-reference.md "Model precision (informational:
fp4, fp8, fp16, bf16)"). Where the recipe names only the architecture (a cluster alias's served-model-name, a
folder), it sets the checkpoint's format; where it and the model's own format disagree, the weights are a band.
The recipe below is shaped like NVIDIA/srt-slurm recipes/gb200-fp4/1k1k/1p2d-mtp.yaml (alias `dsfp4`, precision
fp4, served as deepseek-ai/DeepSeek-R1).
"""
from __future__ import annotations

from ctxlint.engine import lint_text

ALIAS = """\
name: alias
model:
  path: "dsfp4"
  container: "dynamo-sglang"
  precision: "fp4"
resources: {gpu_type: gb200, gpus_per_node: 4, agg_nodes: 2, agg_workers: 1}
backend:
  sglang_config:
    aggregated:
      served-model-name: "deepseek-ai/DeepSeek-R1"
      tensor-parallel-size: 8
      context-length: 131072
"""
BY_NAME = "served-model-name deepseek-ai/DeepSeek-R1 beside the cluster alias model.path 'dsfp4', architecture " \
          "matched by name"


def _dep(text):
    [dep] = lint_text(text, "r.yaml").deployments
    return dep


def _weights(dep):
    w = dep.resolution.weights
    return w.key, tuple(a.key for a in w.alt)


def test_precision_sets_the_format_of_a_served_name_and_the_names_own_widens_the_band():
    # before: "model.path 'dsfp4' is an alias ...; its served-model-name ... has FP8 weights ... but model.precision
    # 'fp4' says NVFP4 or MXFP4 ..." (CTX008) and no verdict; now NVFP4 as precision says, FP8 and MXFP4 in the band
    dep = _dep(ALIAS)
    assert (dep.model.id.value, dep.model.id.raw) == ("deepseek-ai/DeepSeek-R1", BY_NAME)
    assert dep.resolution.how == (
        "deepseek-ai/DeepSeek-R1: built-in catalog; FP8 weights (the checkpoint's quantization_config); NVFP4 "
        "weights as model.precision 'fp4' says, the name giving only the architecture (the name's own checkpoint "
        "is FP8: the weights span it too)")
    assert _weights(dep) == ("nvfp4", ("mxfp4", "fp8"))
    [role] = dep.roles
    pool = role.pool
    # the point is nvidia/DeepSeek-R1-FP4's (1,576,769); the low end is the FP8 checkpoint's (1,022,162 at its own low);
    # the high end is MXFP4's on GB200's band top (its nvidia-smi Total, 189,471 MiB)
    assert (pool.low, pool.tokens, pool.high) == (1_022_162, 1_576_769, 1_967_256)
    # the model is the served name beside the alias: the account says so (resolution/provenance.py)
    assert pool.explanation == (f"derived for deepseek-ai/DeepSeek-R1 (model inferred: {BY_NAME}) on 8x GB200, "
                                "sglang: KV budget per GPU 103.19 GiB "
                                "(182.03 GiB x 0.81 - weights 44.25 GiB) / 70,272 B per token per GPU = 1,576,769 "
                                "tokens")


def test_precision_that_agrees_leaves_the_format_exact_and_says_so():
    for precision, served, own in (("fp8", "deepseek-ai/DeepSeek-R1", "FP8"),
                                   ("fp4", "moonshotai/Kimi-K3", "MXFP4 experts"),
                                   ("fp4", "deepseek-ai/DeepSeek-V4-Pro", "FP8 with MXFP4 experts"),
                                   ("fp8", "deepseek-ai/DeepSeek-V4-Pro", "FP8 with MXFP4 experts"),
                                   ("mxfp4", "deepseek-ai/DeepSeek-V4-Pro", "FP8 with MXFP4 experts")):
        dep = _dep(ALIAS.replace('"fp4"', f'"{precision}"').replace("deepseek-ai/DeepSeek-R1", served))
        assert dep.resolution.how.endswith(f"; model.precision '{precision}' agrees with its {own} weights"), served
        assert not dep.resolution.weights.alt, served


def test_a_16_bit_name_the_engine_quantizes_as_it_loads_agrees_with_fp8():
    qwen = ALIAS.replace('"fp4"', '"fp8"').replace("deepseek-ai/DeepSeek-R1", "Qwen/Qwen3-32B")
    assert _weights(_dep(qwen)) == ("fp8", ("mxfp8", "bf16"))
    dep = _dep(qwen + "      quantization: fp8\n")
    assert dep.resolution.how.endswith("; model.precision 'fp8' agrees with its FP8 weights")


def test_no_precision_or_an_unread_word_spans_4_to_16_bits_around_the_names_own():
    for text, said in ((ALIAS.replace('"fp4"', '"tf32"'), "model.precision 'tf32' is no format ctxlint reads"),):
        dep = _dep(text)
        assert dep.resolution.how.endswith(f"; FP8 weights as the name's, but {said}, and the name gives only the "
                                           "architecture: the weights span 4 to 16 bits")
        assert _weights(dep) == ("fp8", ("mxfp4", "nvfp4", "bf16"))


def test_a_named_checkpoint_keeps_its_format_and_a_disagreeing_precision_widens_it():
    named = ALIAS.replace('path: "dsfp4"', 'path: "hf:deepseek-ai/DeepSeek-R1"')
    dep = _dep(named)
    assert dep.resolution.how == (
        "deepseek-ai/DeepSeek-R1: built-in catalog; FP8 weights (the checkpoint's quantization_config); FP8 weights, "
        "the named checkpoint's; model.precision 'fp4' says NVFP4 or MXFP4, so the weights span both")
    assert _weights(dep) == ("fp8", ("nvfp4", "mxfp4"))
    pool = dep.roles[0].pool  # the point and the low end are the FP8 checkpoint's, as before; the high end NVFP4's
    assert (pool.low, pool.tokens, pool.high) == (1_022_162, 1_056_002, 1_967_256)  # high: GB200's band top
    # agreeing, or not said: the named checkpoint alone
    assert not _dep(named.replace('"fp4"', '"fp8"')).resolution.weights.alt


def test_a_recipe_without_a_precision_string_is_refused_as_srtctl_refuses_it():
    # core/schema.py ModelConfig `precision: str` has no default: marshmallow's String, required and not nullable
    # (NVIDIA/srt-slurm@c88ef731), so load_config raises and nothing runs
    for text, why in ((ALIAS.replace('  precision: "fp4"\n', ""), "is missing: Missing data for required field."),
                      (ALIAS.replace('"fp4"', "null"), "is null: Field may not be null."),
                      (ALIAS.replace('"fp4"', "4"), "4: Not a valid string."),
                      (ALIAS.replace('"fp4"', "[fp4]"), "'a list': Not a valid string.")):
        res = lint_text(text, "r.yaml")
        assert not res.deployments, why
        [diag] = [f for f in res.findings if f.rule == "CTX002"]
        assert diag.message.startswith(f"srtctl refuses this recipe: model.precision {why}"), diag.message


def test_a_folder_names_only_the_architecture():
    dep = _dep(ALIAS.replace('path: "dsfp4"', 'path: "/models/DeepSeek-R1"'))
    assert dep.model.id.value == "/models/DeepSeek-R1"
    assert _weights(dep) == ("nvfp4", ("mxfp4", "fp8"))


def test_other_formats_never_see_it():
    # a Kubernetes or compose deployment states no precision: its resolution is untouched
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: v\n        image: vllm/vllm-openai:v0.11.0\n"
            "        args: [--model, deepseek-ai/DeepSeek-R1, --tensor-parallel-size, '8']\n")
    dep = _dep(text)
    assert dep.model.stated_format is None and not dep.resolution.weights.alt


def test_a_mixed_checkpoint_agrees_with_either_of_its_formats_and_not_with_a_third():
    from ctxlint.resolution.format_families import families

    assert families("fp8+mxfp4-experts") == ("fp8", "mxfp4") and families("mixed:fp8+nvfp4") == ()
    v4 = ALIAS.replace("deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-V4-Pro")
    assert _weights(_dep(v4.replace('"fp4"', '"nvfp4"'))) == ("nvfp4", ("fp8+mxfp4-experts",))
    assert _weights(_dep(v4.replace('"fp4"', '"bf16"'))) == ("bf16", ("fp8+mxfp4-experts",))


def test_the_engines_quantization_flag_pins_the_aliased_checkpoints_format():
    # NVIDIA/srt-slurm recipes/gb200-fp4/1k8k/low-latency.yaml: alias dsr1-fp4, precision fp4, served as the FP8
    # deepseek-ai/DeepSeek-R1, with `quantization: modelopt_fp4`. SGLang refuses a checkpoint whose quant_method is
    # not compatible with the flag (python/sglang/srt/configs/model_config.py _verify_quantization: "Quantization
    # method specified in the model config (fp8) does not match ..."), so neither the FP8 nor an MXFP4 checkpoint
    # can be what launches: the weights are NVFP4, not a band up to FP8
    dep = _dep(ALIAS + "      quantization: modelopt_fp4\n")
    assert _weights(dep) == ("nvfp4", ())
    assert dep.resolution.how.endswith("; NVFP4 weights as model.precision 'fp4' and quantization 'modelopt_fp4' "
                                       "say, the name giving only the architecture")
    # a named checkpoint keeps its own format (a mismatch there is the engine's refusal, not a band)
    named = ALIAS.replace('path: "dsfp4"', 'path: "hf:deepseek-ai/DeepSeek-R1"')
    assert _weights(_dep(named + "      quantization: modelopt_fp4\n")) == ("fp8", ("nvfp4", "mxfp4"))
