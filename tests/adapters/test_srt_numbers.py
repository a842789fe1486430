"""srt-slurm counts read as srtctl reads them: marshmallow's Integer, not strict, so `"0"` is 0.

srtctl loads a recipe with marshmallow_dataclass (NVIDIA/srt-slurm@c88ef731:src/srtctl/core/schema.py
ResourceConfig); an `int` field is marshmallow's fields.Integer(strict=False), whose _validated refuses a bool and
is otherwise `int(value)` (marshmallow 3.26.2 and 4.3.1 fields.py). A refused count makes load_config raise.
"""
from __future__ import annotations

from tests.adapters.kit import adapt, at

HEAD = "model: {path: 'hf:Qwen/Qwen3-32B', container: c, precision: bf16}\n"


def _roles(text):
    return [(r.kind, r.replicas.value if r.replicas else None, r.accelerators.count.value
             if r.accelerators.count else None) for dep in adapt(HEAD + text).deployments for r in dep.roles]


def test_a_string_zero_runs_no_worker_as_srtctl_reads_it():
    # int("0") is 0: ResourceConfig.num_prefill is `prefill_workers or 0`, no prefill worker starts
    text = ("resources: {gpu_type: h100, gpus_per_node: '8', prefill_nodes: 1, prefill_workers: '0', "
            "decode_nodes: '1', decode_workers: ' 2 '}\n")
    assert _roles(text) == [("decode", 2, 4)]
    # a negative count is truthy for `or 0` but fails `num_prefill > 0`: no worker either
    assert _roles("resources: {gpu_type: h100, agg_nodes: 1, agg_workers: -1}\n") == []
    # a float is int(value): 2.9 workers are 2
    assert _roles("resources: {gpu_type: h100, gpus_per_node: 8, agg_nodes: 1, agg_workers: 2.9}\n") == \
        [("unified", 2, 4)]


def test_the_count_from_a_string_points_at_the_string():
    text = HEAD + "resources: {gpu_type: h100, gpus_per_node: 8, agg_nodes: 1, agg_workers: \"2\"}\n"
    [dep] = adapt(text).deployments
    [role] = dep.roles
    assert (role.replicas.value, at(text, role.replicas.source)) == (2, '"2"')


def test_a_count_srtctl_refuses_is_a_schema_violation_and_runs_nothing():
    for value, shown in (("'2.0'", "'2.0'"), ("two", "'two'"), ("true", "True"), (".nan", "nan"), ("[1]", "'a list'")):
        text = HEAD + f"resources: {{gpu_type: h100, gpus_per_node: 8, agg_nodes: 1, agg_workers: {value}}}\n"
        res = adapt(text)
        assert not res.deployments, value
        [diag] = res.diagnostics
        assert diag.kind == "schema-violation", value
        assert diag.message.startswith(f"srtctl refuses this recipe: resources.agg_workers {shown}: Not a valid "
                                       "integer. (core/schema.py ResourceConfig"), diag.message
        assert (diag.source.line, diag.source.col, at(text, diag.source)) == (2, 74, value), value


def test_schema_2_counts_are_read_the_same_and_colocate_is_no_number():
    text = "resources: {gpu_type: h100, gpus_per_node: 8}\nroles: {prefill: {nodes: '1', workers: '1'}, " \
           "decode: {nodes: colocate, workers: '0'}}\n"
    assert _roles(text) == [("prefill", 1, 8)]
    res = adapt(HEAD + "resources: {gpu_type: h100}\nroles: {agg: {nodes: 1, workers: 1, gpus: eight}}\n")
    assert not res.deployments
    assert res.diagnostics[0].message.startswith("srtctl refuses this recipe: roles.agg.gpus 'eight'")


def test_a_swept_count_stays_unknown_not_refused():
    text = "resources: {gpu_type: h100, gpus_per_node: 8, agg_nodes: 1, agg_workers: '{n}'}\nsweep: {n: [1, 2]}\n"
    assert _roles(text) == [("unified", None, 8)]


def test_an_alias_without_a_name_says_which_field_would_name_it_for_its_engine():
    # SGLang and vLLM take served-model-name from the role's config (backends/sglang.py get_served_model_name);
    # TRT-LLM's is the alias's folder name (backends/trtllm.py): the message names the field that would settle it
    head = "model: {path: dsr1, container: c, precision: fp4}\nresources: {gpu_type: gb200, agg_nodes: 1, " \
           "agg_workers: 1}\n"
    for engine, said in (
            ("sglang", "`model.path: hf:<id>`, `identity.model.repo: <id>` or a `served-model-name` in "
                       "backend.sglang_config.prefill would name it; model.precision 'fp4' says only its format"),
            ("vllm", "`model.path: hf:<id>`, `identity.model.repo: <id>` or a `served-model-name` in "
                     "backend.vllm_config.prefill would name it; model.precision 'fp4' says only its format"),
            ("trtllm", "srtctl gives TRT-LLM the alias's folder name as its served name and reads none from "
                       "backend.trtllm_config, so only `model.path: hf:<id>` or `identity.model.repo: <id>` would "
                       "name it; model.precision 'fp4' says only its format")):
        text = head + f"backend: {{type: {engine}}}\n"
        [diag] = [d for d in adapt(text).diagnostics if d.kind == "unresolved-value"]
        assert diag.message == ("values ctxlint cannot resolve: "
                                "model.path 'dsr1' is an alias of the cluster's srtslurm.yaml `model_paths`, which this file "
                       f"does not hold, so the model is not known ({said}); the checks that need them are "
                                "skipped (set them literally)"), engine
        assert at(text, diag.source) == "dsr1"


def test_an_aggregated_recipe_takes_the_served_name_from_the_prefill_block_as_srtctl_does():
    # srtctl's get_served_model_name reads sglang_config.prefill, .aggregated, .decode whichever roles run
    # (NVIDIA/srt-slurm@c88ef731:src/srtctl/backends/sglang.py); the CTX008 advice points there, so following it
    # must name the model
    text = ("model: {path: dsr1, container: c, precision: fp8}\nresources: {gpu_type: h200, gpus_per_node: 8, "
            "agg_nodes: 1, agg_workers: 1}\nbackend:\n  type: sglang\n  sglang_config:\n    prefill:\n"
            "      served-model-name: deepseek-ai/DeepSeek-R1\n    aggregated:\n      tensor-parallel-size: 8\n")
    res = adapt(text)
    assert not [d for d in res.diagnostics if d.kind == "unresolved-value"]
    [dep] = res.deployments
    assert dep.model.id.value == "deepseek-ai/DeepSeek-R1"
    assert at(text, dep.model.id.source) == "deepseek-ai/DeepSeek-R1"


def test_an_alias_that_is_exactly_a_hub_repositorys_name_names_its_architecture():
    # NVIDIA/srt-slurm@c88ef731 recipes/trtllm/h100-fp8/*: `path: DeepSeek-R1-0528` under TRT-LLM, which takes no
    # served name. srtctl reads a bare path as a model_paths key or a folder of that name (core/config.py,
    # core/validation.py), so the name is read as a folder's: the architecture by name, the format from precision
    head = "resources: {gpu_type: h100, agg_nodes: 1, agg_workers: 1}\nbackend: {type: trtllm}\n"
    text = "model: {path: DeepSeek-R1-0528, container: c, precision: fp8}\n" + head
    res = adapt(text)
    assert not [d for d in res.diagnostics if d.kind == "unresolved-value"]
    [dep] = res.deployments
    model = dep.model.id
    assert (model.value, at(text, model.source)) == ("DeepSeek-R1-0528", "DeepSeek-R1-0528")
    assert model.raw == ("model.path 'DeepSeek-R1-0528', a cluster alias of srtslurm.yaml `model_paths` (or a folder "
                         "of that name), is the exact name of the Hugging Face repository "
                         "deepseek-ai/DeepSeek-R1-0528: architecture matched by that name, format from model.precision")
    # the recipe's precision, not the name, settles the checkpoint's format (the alias names no repository's files)
    assert (dep.model.stated_format.word.value, dep.model.stated_format.checkpoint_named) == ("fp8", False)


def test_an_alias_that_is_only_close_to_a_hub_name_stays_unknown():
    # a shorthand, a name with a format tag no catalog repository carries, or a catalog name with a suffix: none is
    # a repository's name as written, so none is read as one (a guess would turn into a verdict)
    for alias in ("dsr1", "minimax-m2.5-fp8", "DeepSeek-R1-0528-fp4", "Qwen3-32B-v2"):
        text = (f"model: {{path: {alias}, container: c, precision: fp8}}\nresources: {{gpu_type: h100, "
                "agg_nodes: 1, agg_workers: 1}\nbackend: {type: trtllm}\n")
        res = adapt(text)
        [dep] = res.deployments
        assert dep.model.id is None, alias
        [diag] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
        assert at(text, diag.source) == alias


def test_a_served_name_still_comes_before_an_alias_that_is_a_hub_name():
    # SGLang answers to its served-model-name (backends/sglang.py); the alias is read only where none is given
    text = ("model: {path: Qwen3-32B, container: c, precision: bf16}\nresources: {gpu_type: h100, agg_nodes: 1, "
            "agg_workers: 1}\nbackend:\n  type: sglang\n  sglang_config:\n    aggregated:\n"
            "      served-model-name: Qwen/Qwen3-32B-FP8\n")
    [dep] = adapt(text).deployments
    assert dep.model.id.value == "Qwen/Qwen3-32B-FP8"
    bare = text.replace("      served-model-name: Qwen/Qwen3-32B-FP8\n", "      tensor-parallel-size: 1\n")
    [dep] = adapt(bare).deployments
    assert (dep.model.id.value, at(bare, dep.model.id.source)) == ("Qwen3-32B", "Qwen3-32B")
