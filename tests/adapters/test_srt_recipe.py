"""srt-slurm recipes (`srtctl apply -f`): roles, workers, GPUs, model and engine settings, with their positions.

The recipes are written here after the real schema: NVIDIA/srt-slurm@c88ef731636890ff6385a783e152c1790e15b194
recipes/gb200-fp4/1k1k/*.yaml and recipes/trtllm/gb300-fp8/1k1k/mtp/*.yaml (schema 1: resources.*_nodes /
*_workers, backend.<engine>_config.<mode>), SemiAnalysisAI/srt-slurm@32ef19f7d08297925b0978b4f1ef68bf30ce494d
examples/sglang/dynamo-disagg.yaml (schema 2: `engine:` and `roles:`), and NVIDIA/srt-slurm-recipes@8b088c0e
recipes/single-node/gpt-oss-120b/H100/vllm/1k1k.yaml (a `sweep:` of `{tp}`).
"""
from __future__ import annotations

import textwrap

from helpers import run
from tests.adapters.kit import adapt, arg, at

PD = """\
name: "qwen3-pd"

model:
  path: "qwen3-32b"
  container: "lmsysorg/sglang:v0.5.5.post2"
  precision: "bf16"

resources:
  gpu_type: "h100"
  gpus_per_node: 8
  prefill_nodes: 1
  prefill_workers: 2
  decode_nodes: 1
  decode_workers: 1

backend:
  type: sglang
  prefill_environment:
    PYTHONUNBUFFERED: "1"
  sglang_config:
    prefill:
      served-model-name: "Qwen/Qwen3-32B"
      tensor-parallel-size: 4
      context-length: 40960
      max-total-tokens: 32768
    decode:
      served-model-name: "Qwen/Qwen3-32B"
      tensor-parallel-size: 8
      context-length: 40960
"""


def test_schema_1_sglang_recipe_is_one_disaggregated_deployment_with_positions():
    [dep] = adapt(PD, "pd.yaml").deployments
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.engine.version.value) == \
        ("srt-slurm", "qwen3-pd", "sglang", "0.5.5.post2")
    assert at(PD, dep.engine.version.source) == '"lmsysorg/sglang:v0.5.5.post2"'
    # model.path is an alias of the cluster's srtslurm.yaml: the served-model-name names the model
    model = dep.model.id
    assert (model.value, model.source.line, model.source.col, model.source.path) == \
        ("Qwen/Qwen3-32B", 22, 26, "backend.sglang_config.prefill.served-model-name")
    prefill, decode = dep.roles
    assert (prefill.kind, decode.kind, dep.disaggregation.value) == ("prefill", "decode", "prefill-decode")
    # 1 node x 8 GPUs / 2 workers = 4 GPUs a prefill worker (ResourceConfig.gpus_per_prefill), 2 workers
    count = prefill.accelerators.count
    assert (count.value, count.raw, at(PD, count.source)) == (4, "prefill nodes 1 x gpus_per_node 8 / 2 workers", "1")
    assert (prefill.replicas.value, at(PD, prefill.replicas.source)) == (2, "2")
    assert (decode.accelerators.count.value, decode.replicas.value, decode.accelerators.type.value) == (8, 1, "h100")
    ctx, pool = prefill.context_length, prefill.kv_pool_tokens
    assert (ctx.value, ctx.source.line, ctx.source.col, ctx.source.path) == \
        (40960, 24, 23, "backend.sglang_config.prefill.context-length")
    assert (pool.value, pool.source.line, pool.source.col) == (32768, 25, 25)
    assert (prefill.parallelism.tp, decode.parallelism.tp) == (4, 8)
    # srtctl adds --disaggregation-mode itself; the environment is the role's
    assert [arg(role, "disaggregation_mode").value for role in dep.roles] == ["prefill", "decode"]


def test_the_incident_shape_in_a_recipe_is_refused(tmp_path):
    path = tmp_path / "pd.yaml"
    path.write_text(PD)
    res = run(["check", str(path)])
    out = [line[len(str(path)):] for line in res.out.splitlines()]
    assert [line.split(" [")[0] for line in out] == [":5:14: CTX401", ":24:23: CTX102", ":24:23: CTX201"]
    assert out[2] == (
        ":24:23: CTX201 [error] 40,960 > 32,768: the prefill engine context length 40,960 exceeds its KV pool 32,768 "
        "(derived for Qwen/Qwen3-32B (model inferred: served-model-name Qwen/Qwen3-32B beside the cluster alias "
        "model.path 'qwen3-32b', architecture matched by name) on 4x H100-SXM-80GB, sglang: KV budget per GPU "
        "48.36 GiB (77.20 GiB x 0.824 - "
        "weights 15.26 GiB) / 65,536 B per token per GPU, capped at 32,768 tokens by --max-total-tokens) by 8,192 "
        "tokens; SGLang starts and silently lowers the per-request limit to the pool, so requests up to the context "
        "length it reports are refused. Lower the context length to 32,768, or add memory (more or larger "
        "accelerators, a higher memory fraction, an fp8 KV cache) (context-exceeds-kv-pool)")
    assert "SGLang 0.5.5.post2 is affected (< 0.5.22; fixed in 0.5.22, not confirmed upstream) and this deployment " \
        "triggers it: 40,960 >= 32,768 - 6" in out[0]
    assert res.code == 1


TRTLLM = """\
name: ctx1_gen4

model:
  path: "dsr1-fp8"
  container: "dynamo-trtllm"
  precision: "fp8"

resources:
  gpu_type: "gb300"
  prefill_nodes: 1
  prefill_workers: 1
  gpus_per_prefill: 4
  decode_workers: 4
  decode_nodes: 8
  gpus_per_decode: 8
  gpus_per_node: 4

backend:
  type: trtllm
  trtllm_config:
    prefill:
      kv_cache_config:
        dtype: fp8
        free_gpu_memory_fraction: 0.1
      max_num_tokens: 16384
      max_seq_len: 1064
      tensor_parallel_size: 4
    decode:
      kv_cache_config:
        dtype: fp8
        free_gpu_memory_fraction: 0.9
      max_num_tokens: 16
      max_seq_len: 2088
      tensor_parallel_size: 8
"""


def test_an_alias_that_names_no_model_stays_unknown_and_says_so(tmp_path):
    res = adapt(TRTLLM, "t.yaml")
    [dep] = res.deployments
    assert dep.model.id is None and dep.engine.version is None  # a container alias names no release
    prefill, decode = dep.roles
    assert (prefill.accelerators.count.value, at(TRTLLM, prefill.accelerators.count.source)) == (4, "4")
    assert (decode.accelerators.count.value, decode.replicas.value, decode.context_length.value) == (8, 4, 2088)
    assert arg(prefill, "kv_cache_free_gpu_memory_fraction").value == 0.1
    path = tmp_path / "t.yaml"
    path.write_text(TRTLLM)
    out = run(["check", str(path)]).out.splitlines()
    assert out[0] == (
        f"{path}:4:9: CTX008 [info] values ctxlint cannot resolve: model.path 'dsr1-fp8' is an alias of the "
        "cluster's srtslurm.yaml `model_paths`, which this file does not hold, so the model is not known (srtctl "
        "gives TRT-LLM the alias's folder name as its served name and reads none from backend.trtllm_config, so only "
        "`model.path: hf:<id>` or `identity.model.repo: <id>` would name it; model.precision 'fp8' says only its "
        "format); the checks that need them are skipped (set them literally) (unresolved-value)")
    assert out[1] == (f"{path}:22:7: CTX208 [info] KV pool of prefill, decode not declared and not derivable: no "
                      "model id: name the model (or add it under `models:`); capacity checks skip these roles "
                      "(capacity-not-derivable)")
    # the roles still disagree: prefill and decode context lengths, each at its own value
    assert out[-1].startswith(f"{path}:33:20: CTX108 [warning] decode context length 2,088 differs from prefill "
                              "1,064 (line 26)")
    # with a release named (TRT-LLM 1.2: the PyTorch backend, whose max_num_tokens check CTX308 reads), the decode
    # worker is still a generation-only server: srtctl starts it with --disaggregation-mode decode (dynamo.trtllm),
    # or lists it as a generation server of `trtllm-serve disaggregated` (frontend trtllm_serve): no CTX308 for it
    image = TRTLLM.replace('"dynamo-trtllm"', '"nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc2"')
    for text in (image, image + "frontend:\n  type: trtllm_serve\n"):
        path.write_text(text)
        out = run(["check", str(path)]).out
        assert "CTX108" in out and "CTX308" not in out
    [dep] = adapt(image + "frontend:\n  type: trtllm_serve\n").deployments
    assert [r.role.raw for r in dep.roles] == ["context_servers", "generation_servers"]
    assert dep.engine.version.value == "1.2.0rc2"


SCHEMA_2 = """\
schema: 2
name: "qwen3-0.6b-disagg"
model:
  path: "hf:Qwen/Qwen3-0.6B"
  container: "sglang"
  precision: "bf16"
resources:
  gpu_type: "h100"
  gpus_per_node: 8
engine: sglang
roles:
  prefill:
    nodes: 1
    workers: 1
    gpus: 1
    args:
      tensor-parallel-size: 1
      context-length: 4096
  decode:
    nodes: colocate
    workers: 2
    args:
      context-length: 8192
"""


def test_schema_2_roles_engine_and_hf_model():
    [dep] = adapt(SCHEMA_2, "s2.yaml").deployments
    model = dep.model.id
    # `hf:` is srtctl's prefix (core/runtime.py): the id is what follows it, at its own columns
    assert (model.value, model.source.line, model.source.col, model.source.end_col) == ("Qwen/Qwen3-0.6B", 4, 13, 28)
    assert at(SCHEMA_2, dep.engine.name.source) == "sglang"
    prefill, decode = dep.roles
    # decode on the prefill nodes takes the prefill workers' GPU count (ResourceConfig.gpus_per_decode)
    assert (prefill.accelerators.count.value, decode.accelerators.count.value) == (1, 1)
    assert (decode.replicas.value, decode.context_length.value, decode.context_length.source.path) == \
        (2, 8192, "roles.decode.args.context-length")


SWEEP = """\
name: "gpt-oss-120b-h100"
model:
  path: "hf:openai/gpt-oss-120b"
  container: "vllm/vllm-openai:v0.11.0"
  precision: "fp4"
resources:
  gpu_type: "h100"
  gpus_per_node: 8
  agg_nodes: 1
  agg_workers: 1
frontend:
  type: vllm
backend:
  type: vllm
  vllm_config:
    aggregated:
      tensor-parallel-size: "{tp}"
      max-model-len: 10240
sweep:
  tp: [1, 2, 4, 8]
"""


def test_a_sweep_is_one_deployment_a_job_as_srtctl_submits_it(tmp_path):
    # core/sweep.py generate_sweep_configs: one job per value, `{tp}` replaced by str(value), named <name>_tp<value>
    deps = adapt(SWEEP, "sw.yaml").deployments
    assert [d.display_name for d in deps] == [f"gpt-oss-120b-h100_tp{n}" for n in (1, 2, 4, 8)]
    for dep, tp in zip(deps, (1, 2, 4, 8)):
        [role] = dep.roles
        assert (role.kind, dep.engine.version.value, role.context_length.value) == ("unified", "0.11.0", 10240)
        assert (role.parallelism.tensor.value, at(SWEEP, role.parallelism.tensor.source)) == (tp, '"{tp}"')
        assert (role.accelerators.type.value, role.accelerator_withheld, role.unresolved_settings) == ("h100", None, ())
    # identity.frameworks names the release srtctl checks the installed package against: it beats the image's tag
    framed = SWEEP.replace("resources:", "identity:\n  frameworks: {dynamo: 1.1.1, vllm: 0.19.0}\nresources:", 1)
    version = adapt(framed).deployments[0].engine.version
    assert (version.value, version.source.path, version.raw) == ("0.19.0", "identity.frameworks.vllm",
                                                                 "identity.frameworks.vllm")
    # a source build names no release (NVIDIA/srt-slurm-recipes MiniMax-M3/B200/vllm): the image's tag stands
    for build in ("0.1.dev17492+g454b47db8", "0.23.1rc1.dev424+g3f5a1e173"):
        version = adapt(framed.replace("0.19.0", build)).deployments[0].engine.version
        assert (version.value, version.source.path) == ("0.11.0", "model.container")
    path = tmp_path / "sw.yaml"
    path.write_text(SWEEP)
    out = run(["check", str(path)]).out
    # the jobs at TP 1, 2 and 4 leave GPUs of their 8 idle; TP 8 uses them all
    assert [line.split(" [")[0] for line in out.splitlines() if line.startswith(str(path))] == \
        [f"{path}:9:14: CTX205"] * 3
    assert "8 > 1: the unified replica has 8 h100 accelerators" in out and "CTX008" not in out


def test_a_benchmark_only_parameter_is_not_a_deployment_and_a_wide_grid_is_read_once(tmp_path):
    # a concurrency swept for the benchmark starts the same servers: the jobs differ only by the serving's tp
    text = SWEEP.replace("sweep:\n  tp: [1, 2, 4, 8]\n", "benchmark: {concurrencies: '{conc}'}\n"
                         "sweep:\n  conc: [1, 2, 4, 8, 16]\n  tp: [4, 8]\n")
    assert [d.display_name for d in adapt(text).deployments] == ["gpt-oss-120b-h100_tp4", "gpt-oss-120b-h100_tp8"]
    # past 16 combinations of what the serving reads (tp x pp x dp, 4 x 4 x 4) the recipe is read once: each swept
    # setting unknown, the GPU type withheld (CTX208), CTX008 listing the sweep's values
    wide = SWEEP.replace('      max-model-len: 10240\n', '      max-model-len: 10240\n      pipeline-parallel-size: '
                         '"{pp}"\n      data-parallel-size: "{dp}"\n').replace(
        "  tp: [1, 2, 4, 8]\n", "  tp: [1, 2, 4, 8]\n  pp: [1, 2, 4, 8]\n  dp: [1, 2, 4, 8]\n")
    [dep] = adapt(wide).deployments
    [role] = dep.roles
    assert (role.parallelism.tensor, role.accelerators.type, role.accelerator_withheld.value) == (None, None, "h100")
    assert role.unresolved_settings == ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size")
    path = tmp_path / "wide.yaml"
    path.write_text(wide)
    out = run(["check", str(path)]).out
    assert f"{path}:17:29: CTX008 [info] values ctxlint cannot resolve: tensor-parallel-size '{{tp}}' (sweep tp: " \
        "[1, 2, 4, 8]); pipeline-parallel-size '{pp}' (sweep pp: [1, 2, 4, 8]); data-parallel-size '{dp}' (sweep " \
        "dp: [1, 2, 4, 8]); the checks that need them are skipped (set them literally) (unresolved-value)" in out
    # a recipe with no name is read once too: srtctl names each job after it (and fails without one)
    [dep] = adapt(SWEEP.replace('name: "gpt-oss-120b-h100"\n', "")).deployments
    assert dep.roles[0].unresolved_settings == ("tensor_parallel_size",)


def test_only_recipes_are_claimed():
    # a Helm values file with a `model:` and `resources:` (no container), an override file (`base:`), a mocker
    for text in ("model: {path: /m}\nresources: {limits: {nvidia.com/gpu: 1}}\n",
                 "base:\n  name: x\n  model: {path: m, container: c, precision: fp8}\n  resources: {gpu_type: h100}\n",
                 "name: x\nmodel: {path: m, container: c}\nresources: {gpu_type: h100}\nbackend: {type: mocker}\n",
                 "apiVersion: v1\nkind: Pod\nmodel: {path: m, container: c}\nresources: {}\n"):
        res = adapt(text)
        assert not [d for d in res.deployments if d.input_format == "srt-slurm"], text


def test_odd_recipes_never_crash():
    for text in ("model: {path: 3, container: c}\nresources: {gpu_type: [a], prefill_nodes: x, decode_workers: -1}\n",
                 "model: {path: m, container: c}\nroles: {agg: 3, prefill: {nodes: colocate}}\n",
                 "model: {path: m, container: c}\nresources: {}\n"
                 "backend: {type: sglang, sglang_config: {prefill: 3}}\n",
                 "model: {path: m, container: c}\nresources: {gpus_per_node: 0, agg_nodes: 2, agg_workers: 0}\n"
                 "backend: {sglang_config: {aggregated: {context-length: abc, tp-size: [1]}}}\n",
                 "model: {path: 'hf:', container: c}\nresources: {}\nsweep: 3\nengine: {type: vllm}\n"):
        adapt(textwrap.dedent(text))


WIDE = """\
name: "gb200-fp4-max-tpt"
model:
  path: "dsr1-fp4"
  container: "dynamo-sglang"
  precision: "fp4"
resources:
  gpu_type: "gb200"
  gpus_per_node: 4
  prefill_nodes: 1
  prefill_workers: 1
  decode_nodes: 12
  decode_workers: 1
backend:
  sglang_config:
    prefill:
      served-model-name: "deepseek-ai/DeepSeek-R1"
      tensor-parallel-size: 4
      context-length: 2200
    decode:
      served-model-name: "deepseek-ai/DeepSeek-R1"
      context-length: 2200
      enable-dp-attention: true
      tp-size: 48
      dp-size: 48
"""


def _ctx204(tmp_path, text):
    path = tmp_path / "w.yaml"
    path.write_text(text)
    return [line[len(str(path)):] for line in run(["check", str(path)]).out.splitlines() if "CTX204" in line]


def test_dp_attention_splits_the_heads_over_its_group_only(tmp_path):
    # NVIDIA/srt-slurm recipes/gb200-fp4/1k1k/max-tpt.yaml: DP attention over 48 ranks, each holding all 128 heads
    # (sglang-0.5.5.post2 sglang/srt/layers/dp_attention.py: attn_tp_size = tp_size // dp_size = 1)
    # the recipe's alias dsr1-fp4 with precision fp4 loads an FP4 checkpoint, not the FP8 one its served name is
    # (srt_model.py): named here as NVIDIA's, whose architecture is DeepSeek-R1's
    wide = WIDE.replace('path: "dsr1-fp4"', 'path: "hf:nvidia/DeepSeek-R1-FP4"')
    assert _ctx204(tmp_path, wide) == []
    assert _ctx204(tmp_path, wide.replace("dp-size: 48", "dp-size: 16")) == [
        ":23:16: CTX204 [error] 128 % 3 = 2: deepseek-ai/DeepSeek-R1 has 128 attention heads, which the 3 ranks of "
        "a DP-attention group (tensor parallel size 48 / DP-attention width 16) do not divide; the engine refuses to "
        "start. Use a divisor of 128 (parallelism-mismatch)"]
    # without DP attention every one of the 48 ranks takes a share of the heads
    assert _ctx204(tmp_path, wide.replace("enable-dp-attention: true", "enable-dp-attention: false")) == [
        ":23:16: CTX204 [error] 128 % 48 = 32: deepseek-ai/DeepSeek-R1 has 128 attention heads, which tensor "
        "parallel size 48 does not divide; the engine refuses to start. Use a divisor of 128 (parallelism-mismatch)",
        # and its 48 data-parallel copies of a 48-rank group take 2,304 GPUs, not the worker's 12 x 4
        ":23:16: CTX204 [error] 2304 > 48: the decode engine needs tensor x pipeline x data = 2304 GPUs but a replica "
        "has 48 (decode nodes 12 x gpus_per_node 4 / 1 workers). Lower the parallel sizes or raise the accelerator "
        "count (parallelism-mismatch)"]


DENSE = """\
name: "dense-dp-attention"
model:
  path: "hf:{model}"
  container: "lmsysorg/sglang:v0.5.5.post2"
  precision: "bf16"
resources:
  gpu_type: "h200"
  gpus_per_node: 8
  agg_nodes: 3
  agg_workers: 1
backend:
  sglang_config:
    aggregated:
      context-length: 8192
      enable-dp-attention: true
      tp-size: 24
      dp-size: 3
"""


def test_dp_attention_splits_the_heads_over_its_group_only_where_the_model_code_does(tmp_path):
    # SGLang's llama.py and qwen2.py split the heads over the whole TP with DP attention too (sglang-0.5.5.post2
    # and 0.5.23 wheels: `assert self.total_num_heads % tp_size == 0`, tp_size the TP world size), so 64 heads at
    # TP 24 / DP attention 3 are refused; qwen3.py splits them over the attention TP (`% attn_tp_size`: 24 / 3 = 8)
    for model, name, arch in (("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B", "llama"),
                              ("Qwen/Qwen2.5-72B-Instruct", "Qwen/Qwen2.5-72B-Instruct", "qwen2")):
        assert _ctx204(tmp_path, DENSE.format(model=model)) == [
            f":16:16: CTX204 [error] 64 % 24 = 16: {name} has 64 attention heads, which "
            f"tensor parallel size 24 does not divide (SGLang's {arch} code splits them over every tensor-parallel rank, "
            f"with DP attention too); the engine refuses to start. Use a divisor of 64 (parallelism-mismatch)"], model
    assert _ctx204(tmp_path, DENSE.format(model="Qwen/Qwen3-32B")) == []
    # without DP attention every model splits them over all 24
    assert [line.split(" (")[0] for line in _ctx204(tmp_path, DENSE.format(model="Qwen/Qwen3-32B").replace(
        "enable-dp-attention: true", "enable-dp-attention: false").replace("      dp-size: 3\n", ""))] == [
        ":16:16: CTX204 [error] 64 % 24 = 16: Qwen/Qwen3-32B has 64 attention heads, which tensor parallel size 24 "
        "does not divide; the engine refuses to start. Use a divisor of 64"]


MTP = """\
name: "gb200-fp8-1p-2d-low-latency-mtp"
model:
  path: "dsfp8"
  container: "lmsysorg/sglang:v0.5.8-cu130"
  precision: "fp8"
resources:
  gpu_type: "gb200"
  prefill_nodes: 1
  decode_nodes: 4
  prefill_workers: 1
  decode_workers: 2
  gpus_per_node: 4
backend:
  sglang_config:
    prefill:
      served-model-name: "deepseek-ai/DeepSeek-R1"
      kv-cache-dtype: "fp8_e4m3"
      quantization: "fp8"
      context-length: 2200
      mem-fraction-static: 0.90
      max-total-tokens: 8192
      tensor-parallel-size: 4
    decode:
      served-model-name: "deepseek-ai/DeepSeek-R1"
      kv-cache-dtype: "fp8_e4m3"
      quantization: "fp8"
      context-length: 2200
      mem-fraction-static: 0.90
      tensor-parallel-size: 8
"""


def test_deepseek_r1_fp8_at_tp_4_on_gb200_has_kv_memory(tmp_path):
    # NVIDIA/srt-slurm@c88ef731 recipes/gb200-fp8/1k1k/low-latency-mtp.yaml, which NVIDIA runs: at GB200's
    # nvidia-smi 189471 MiB (184.03 GiB less CUDA context and NCCL: 182.03 GiB) x 0.9 - 156.67 GiB of weights
    # 7.16 GiB are left for the KV cache; at the 172.23 GiB read before, -6.02 GiB (CTX209 refused it)
    path = tmp_path / "mtp.yaml"
    path.write_text(MTP)
    res = run(["check", str(path)])
    assert (res.out, res.err.strip(), res.code) == ("", "ctxlint: no findings in 1 file, 1 deployment", 0)
    res = run(["capacity", "--model", "deepseek-ai/DeepSeek-R1", "--engine", "sglang", "--engine-version", "0.5.8",
               "--accelerator", "GB200", "--count", "4", "--tp", "4", "--memory-fraction", "0.9",
               "--kv-cache-dtype", "fp8_e4m3"])
    assert "KV budget               182.03 GiB x 0.9 - weights 156.67 GiB           7,688,216,042 B (7.16 GiB)" \
        in res.out.splitlines()


def test_null_node_counts_are_not_stated():
    # ResourceConfig.is_disaggregated: `prefill_nodes is not None or decode_nodes is not None`; YAML null is None,
    # so a recipe writing `prefill_nodes: null` beside agg_* keys runs aggregated workers
    text = ("model: {path: 'hf:Qwen/Qwen3-32B', container: c, precision: bf16}\nresources: {gpu_type: h100, gpus_per_node: 8, "
            "prefill_nodes: null, decode_nodes: null, agg_nodes: 1, agg_workers: 2}\n")
    [dep] = adapt(text).deployments
    assert [(r.kind, r.replicas.value, r.accelerators.count.value) for r in dep.roles] == [("unified", 2, 4)]


def test_a_role_without_workers_runs_none_and_is_no_role():
    # ResourceConfig.num_decode is `decode_workers or 0` and topology.py allocate_endpoints starts a role's workers
    # only `if num_decode > 0` (NVIDIA/srt-slurm@c88ef731:src/srtctl/core/schema.py, core/topology.py): a role with
    # 0, null or no workers runs nothing; schema 2's `roles.<role>` without `workers` sets no resources.<role>_workers
    head = "model: {path: 'hf:Qwen/Qwen3-32B', container: c, precision: bf16}\n"
    for text, kinds in (
            ("resources: {gpu_type: h100, gpus_per_node: 8, prefill_nodes: 1, prefill_workers: 2, decode_nodes: 1, "
             "decode_workers: 0}\n", [("prefill", 2, 4)]),
            ("resources: {gpu_type: h100, gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 1, decode_workers: 1}\n",
             [("decode", 1, 8)]),
            ("resources: {gpu_type: h100, gpus_per_node: 8, prefill_nodes: 1, prefill_workers: null, decode_nodes: 1, "
             "decode_workers: 1}\n", [("decode", 1, 8)]),
            ("resources: {gpu_type: h100, gpus_per_node: 8}\nroles: {prefill: {nodes: 1, workers: 1}, decode: "
             "{nodes: 1}}\n", [("prefill", 1, 8)])):
        [dep] = adapt(head + text).deployments
        assert [(r.kind, r.replicas.value, r.accelerators.count.value) for r in dep.roles] == kinds, text
    # no worker at all: nothing runs, no deployment
    assert not adapt(head + "resources: {gpu_type: h100, agg_nodes: 1, agg_workers: 0}\n").deployments
    # a sweep's `{n}` is a count not known, not no workers: the role stays, its workers unknown
    text = head + "resources: {gpu_type: h100, gpus_per_node: 8, agg_nodes: 1, agg_workers: '{n}'}\nsweep: {n: [1]}\n"
    [dep] = adapt(text).deployments
    assert [(r.kind, r.replicas, r.accelerators.count.value) for r in dep.roles] == [("unified", None, 8)]


CP = """\
name: cp-prefill
model: {path: "hf:Qwen/Qwen3-32B", container: "dynamo-trtllm", precision: bf16}
identity: {frameworks: {tensorrt_llm: "1.2.0"}}
resources: {gpu_type: gb200, gpus_per_node: 4, prefill_nodes: 1, prefill_workers: 1, decode_nodes: 1,
            decode_workers: 1}
backend:
  type: trtllm
  trtllm_config:
    prefill:
      context_parallel_size: CP
      tensor_parallel_size: 1
      max_num_tokens: 8192
      max_seq_len: 32768
    decode:
      tensor_parallel_size: 4
      max_seq_len: 32768
"""


def test_ctx308_divides_the_prompt_over_context_parallel_ranks(tmp_path):
    # BaseLLM._check_arguments compares `prompt_len / parallel_config.cp_size + query_len` with max_num_tokens
    # (NVIDIA/TensorRT-LLM@4c05a74891e4df8066f08ed4ce14b0972abe4e25:tensorrt_llm/llmapi/llm.py; cp_size is
    # LlmArgs.context_parallel_size): a prompt of 32,767 tokens over 4 ranks is 8,191.75 a rank, within 8,192
    path = tmp_path / "cp.yaml"
    path.write_text(CP.replace("CP", "4"))
    assert "CTX308" not in run(["check", "--isolated", "--select", "CTX308", str(path)]).out
    path.write_text(CP.replace("CP", "2"))  # 16,383.5 a rank: refused
    out = run(["check", "--isolated", "--select", "CTX308", str(path)]).out
    assert out == (
        f"{path}:12:23: CTX308 [error] 32,767 / cp_size 2 > 8,192: the prefill role accepts prompts up to 32,767 "
        "tokens (max_seq_len 32,768 minus one output token) but without chunked prefill TensorRT-LLM rejects any "
        "prompt whose length over its 2 context-parallel ranks exceeds max_num_tokens 8,192 (a prompt above 8,192 "
        "x 2 = 16,384 tokens) with HTTP 400 (\"should not exceed max_num_tokens\"). Set enable_chunked_prefill: "
        "true, or raise max_num_tokens to 16,384 (prompt-exceeds-max-num-tokens)\n")
    path.write_text(CP.replace("      context_parallel_size: CP\n", ""))  # no context parallelism: as before
    out = run(["check", "--isolated", "--select", "CTX308", str(path)]).out
    assert out.startswith(f"{path}:11:23: CTX308 [error] 32,767 > 8,192: the prefill role accepts prompts up to "
                          "32,767 tokens") and "raise max_num_tokens to 32,767 (" in out


OVERRIDES = """\
base:
  name: "qwen"
  model: {path: "hf:Qwen/Qwen3-32B", container: "lmsysorg/sglang:v0.5.5.post2", precision: bf16}
  resources: {gpu_type: h100, gpus_per_node: 8, agg_nodes: 1, agg_workers: 1}
  backend:
    sglang_config:
      aggregated:
        tp-size: 8
        context-length: 32768
        mem-fraction-static: 0.8
override_tp4:
  resources: {agg_workers: 2}
  backend:
    sglang_config:
      aggregated:
        tp-size: 4
        mem-fraction-static: null
zip_override_sweep:
  name: ["qwen-a", "qwen-b"]
  backend:
    sglang_config:
      aggregated:
        context-length: [16384, 40960]
        tp-size: [2]
"""


def test_override_files_are_one_deployment_a_variant_with_each_value_where_it_is_written():
    # NVIDIA/srt-slurm@c88ef731 core/config.py generate_override_configs and deep_merge (docs/overrides.md):
    # `srtctl apply -f` submits each override_* (deep-merged over base; null deletes) and each item of a
    # zip_override_* (the i-th item of each list, a one-item list for all), not the base
    deps = adapt(OVERRIDES).deployments
    assert [d.display_name for d in deps] == ["qwen_tp4", "qwen-a", "qwen-b"]
    rows = []
    for dep in deps:
        [role] = dep.roles
        mem = role.arg("mem_fraction_static")
        rows.append((role.replicas.value, role.accelerators.count.value, role.parallelism.tp,
                     role.context_length.value, (role.context_length.source.line, role.context_length.source.col),
                     mem.value if mem is not None else None))
    assert rows == [(2, 4, 4, 32768, (9, 25), None),  # 1 node x 8 GPUs / 2 workers; the base's context length; its memory fraction deleted
                    (1, 8, 2, 16384, (23, 26), 0.8),  # the zip's first item, the base's fraction
                    (1, 8, 2, 40960, (23, 33), 0.8)]
    tp = deps[1].roles[0].parallelism.tensor
    assert (tp.value, tp.source.line, tp.source.col, tp.source.path) == \
        (2, 24, 19, "zip_override_sweep.backend.sglang_config.aggregated.tp-size[0]")
    # a variant's deployment is placed at its section; one without a name is `<base name>_<suffix>`
    assert [(d.source.line, d.name.source.line) for d in deps] == [(12, 11), (19, 19), (19, 19)]
    # a zip group srtctl refuses (lists of lengths 2 and 3) fails the whole expansion before any variant is
    # submitted (generate_override_configs raises out of submit_override): no deployment, CTX002 says why;
    # a base alone is no deployment
    bad = adapt(OVERRIDES.replace("tp-size: [2]", "tp-size: [2, 4, 8]"))
    assert bad.deployments == []
    assert [(d.kind, d.message, d.source.line) for d in bad.diagnostics] == [(
        "schema-violation", "srtctl refuses to expand this override file: `zip_override_sweep` holds lists of "
        "lengths [2, 3]: each must have one item or the same number (core/config.py generate_override_configs), so "
        "`srtctl apply -f` submits none of its variants and none is checked", 19)]
    for section, why in (("override_x: null\n", "`override_x` is not a mapping"),
                         ("zip_override_y: {resources: {agg_workers: 2}}\n", "`zip_override_y` holds no list"),
                         ("zip_override_y: {resources: {agg_workers: []}}\n", "`zip_override_y` holds an empty list")):
        refused = adapt(OVERRIDES + section)
        assert (refused.deployments, [d.message.split(" (core/")[0] for d in refused.diagnostics]) == \
            ([], ["srtctl refuses to expand this override file: " + why]), section
    assert not adapt(OVERRIDES.split("override_tp4:")[0]).deployments


def test_a_null_in_a_zip_item_leaves_the_base_value_as_srtctl_submits_it():
    # cli/submit.py submit_override submits resolve_override_yaml's recipe: a zip variant is the merged dict merged
    # again over the base by yaml_utils.comment_aware_merge, where a key absent from it keeps the base's value;
    # an override's null (merged by comment_aware_merge itself) deletes it. Checked by running srtctl's
    # resolve_override_yaml (c88ef731): base {a: {x: 1}}, zip {a: {x: [null, 2]}} submits x: 1, then x: 2
    text = OVERRIDES.replace("        tp-size: [2]\n", "        tp-size: [2]\n        mem-fraction-static: [null, 0.7]\n")
    mems = []
    for dep in adapt(text).deployments:
        mem = dep.roles[0].arg("mem_fraction_static")
        mems.append(None if mem is None else (mem.value, mem.source.line, mem.source.col))
    assert mems == [None, (0.8, 10, 30), (0.7, 25, 37)]  # qwen_tp4: deleted; qwen-a: the base's; qwen-b: its item
    # srtctl names a variant f"{base.get('name', 'unnamed')}_<suffix>": a null base name is "None", no name "unnamed"
    nulled = OVERRIDES.replace('  name: "qwen"', "  name: null")
    assert [d.display_name for d in adapt(nulled).deployments] == ["None_tp4", "qwen-a", "qwen-b"]
    assert [d.display_name for d in adapt(OVERRIDES.replace('  name: "qwen"\n', "")).deployments] == \
        ["unnamed_tp4", "qwen-a", "qwen-b"]
