"""srt-slurm recipes: an engine switch reaches the worker as srtctl renders it, swept or not.

srtctl renders an SGLang or vLLM role's config as flags (NVIDIA/srt-slurm@c88ef731636890ff6385a783e152c1790e15b194:
src/srtctl/backends/vllm.py and sglang.py `_config_to_cli_args`): YAML true is the bare flag, false or null
nothing, any string `--key text`; a sweep writes `str(value)` into the `{name}` (core/sweep.py expand_template),
so `[true, false]` gives the strings "True" and "False". Dynamo's workers parse those words with plain argparse
(ai-dynamo/dynamo components/src/dynamo/{vllm,sglang}/args.py `parse_args(unknown)`): a word after a switch is a
stray argument the worker exits on. The recipe is modelled on NVIDIA/srt-slurm-recipes@8b088c0e
recipes/single-node/MiniMax-M3/B300/vllm/1k1k_fp4_mtp_on.yaml (`enable-expert-parallel: "{ep}"`, `ep: [true,
false]`).
"""
from __future__ import annotations

from helpers import run
from tests.adapters.kit import adapt, arg

RECIPE = """\
name: "oss"
model:
  path: "hf:openai/gpt-oss-120b"
  container: "vllm/vllm-openai:v0.11.0"
  precision: "fp4"
resources:
  gpu_type: "h100"
  gpus_per_node: 8
  agg_nodes: 1
  agg_workers: 1
backend:
  type: vllm
  vllm_config:
    aggregated:
      tensor-parallel-size: 8
      max-model-len: 10240
      enable-expert-parallel: "{ep}"
sweep:
  ep: [true, false]
"""


def _findings(tmp_path, text, rule="CTX"):
    path = tmp_path / "r.yaml"
    path.write_text(text)
    return [line.replace(str(path), "r.yaml") for line in run(["check", "--isolated", str(path)]).out.splitlines()
            if f": {rule}" in line]


def test_a_swept_boolean_reaches_the_worker_as_a_word_it_refuses(tmp_path):
    deps = adapt(RECIPE, "r.yaml").deployments
    assert [d.display_name for d in deps] == ["oss_epTrue", "oss_epFalse"]
    # before: "True" and "False" were read as the switch on and off, and both jobs passed
    why = ("is passed as its text, and --enable-expert-parallel is a switch that takes no value; it is on as a YAML "
           "true and off as false or absent) (engine-rejects-value)")
    assert _findings(tmp_path, RECIPE) == [
        f"r.yaml:17:31: CTX301 [error] vllm would refuse to start: unrecognized arguments: {word} (srtctl passes "
        f"`enable-expert-parallel: '{word}'` as `--enable-expert-parallel {word}`: a string, a sweep's `{{name}}` "
        f"too, {why}" for word in ("True", "False")]


def test_switches_written_directly_are_what_srtctl_passes(tmp_path):
    text = RECIPE.replace('      enable-expert-parallel: "{ep}"\n', "      enable-expert-parallel: true\n"
                          "      no-enable-prefix-caching: true\n      enforce-eager: false\n"
                          "      disable-log-stats: null\n").replace("sweep:\n  ep: [true, false]\n", "")
    [dep] = adapt(text).deployments
    [role] = dep.roles
    # `--no-enable-prefix-caching` is the negative switch: prefix caching off (it was read as on)
    assert (arg(role, "enable_expert_parallel").value, arg(role, "enable_prefix_caching").value) == (True, False)
    # a YAML false or null passes nothing: the engine's default stands, not a setting of the recipe's
    assert role.arg("enforce_eager") is None and role.arg("disable_log_stats") is None
    assert _findings(tmp_path, text) == []
    # `enable-prefix-caching: false` passes nothing either: vLLM's prefix caching stays on (its default)
    [dep] = adapt(text.replace("no-enable-prefix-caching: true", "enable-prefix-caching: false")).deployments
    assert dep.roles[0].arg("enable_prefix_caching") is None
    # a switch written as a string gets the string after it, which the worker refuses
    quoted = text.replace("enforce-eager: false", 'enforce-eager: "false"')
    assert _findings(tmp_path, quoted) == [
        "r.yaml:19:22: CTX301 [error] vllm would refuse to start: unrecognized arguments: false (srtctl passes "
        "`enforce-eager: 'false'` as `--enforce-eager false`: a string, a sweep's `{name}` too, is passed as its "
        "text, and --enforce-eager is a switch that takes no value; it is on as a YAML true and off as false or "
        "absent) (engine-rejects-value)"]


SGLANG = """\
name: "r1"
model:
  path: "dsr1"
  container: "dynamo-sglang"
  precision: "fp8"
resources:
  gpu_type: "gb200"
  gpus_per_node: 4
  prefill_nodes: 1
  prefill_workers: 1
  decode_nodes: 1
  decode_workers: 1
backend:
  type: sglang
  sglang_config:
    prefill:
      tp-size: 4
      prefill-round-robin-balance: true
    decode:
      tp-size: 4
"""


def test_a_dropped_switch_at_a_release_the_recipe_does_not_name_is_a_warning(tmp_path):
    # srtctl passes `--prefill-round-robin-balance`, which SGLang 0.5.20 dropped; `dynamo-sglang` is a container
    # alias of the cluster's srtslurm.yaml, so which release runs is not known: CTX301's policy makes it a warning
    assert _findings(tmp_path, SGLANG, "CTX301") == [
        "r.yaml:18:36: CTX301 [warning] sglang 0.5.20 and later would refuse to start: unrecognized arguments: "
        "--prefill-round-robin-balance (dropped in 0.5.20: remove it; it did nothing since its deprecation). Which "
        "sglang release runs is unknown: model.container 'dynamo-sglang' is an alias of the cluster's srtslurm.yaml "
        "`containers`, which this file does not hold; a release before 0.5.20 takes it, so this is a warning (the "
        "image's sglang version says which; with that release pinned ctxlint can tell) (engine-rejects-value)"]
    # a release the recipe names decides: 0.5.19 reads it, 0.5.20 refuses it
    pinned = SGLANG.replace("resources:", "identity:\n  frameworks: {sglang: 0.5.19}\nresources:", 1)
    assert _findings(tmp_path, pinned, "CTX301") == []
    assert _findings(tmp_path, pinned.replace("0.5.19", "0.5.20"), "CTX301") == [
        "r.yaml:20:36: CTX301 [error] sglang 0.5.20 would refuse to start: unrecognized arguments: "
        "--prefill-round-robin-balance (dropped in 0.5.20: remove it; it did nothing since its deprecation) "
        "(engine-rejects-value)"]
