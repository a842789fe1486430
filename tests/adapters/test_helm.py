"""Helm values adapters, Helm template detection, and the corpus files of these kinds."""
from __future__ import annotations

import re

import pytest

from conftest import SHARED
from helpers import run
from tests.adapters.kit import adapt, at
from ctxlint.templates import looks_like_go_template
from ctxlint.physics.gaudi import counted_path

STACK = """\
servingEngineSpec:
  modelSpec:
    - name: "llama-prefill"
      repository: "lmcache/vllm-openai"
      modelURL: "meta-llama/Llama-3.1-8B-Instruct"
      replicaCount: 2
      requestGPU: 1
      vllmConfig:
        maxModelLen: 32000
        tensorParallelSize: 1
        extraArgs: ["--gpu-memory-utilization", "0.6"]
      lmcacheConfig:
        kvRole: "kv_producer"
    - name: "llama-decode"
      modelURL: "meta-llama/Llama-3.1-8B-Instruct"
      requestGPU: 1
      vllmConfig:
        maxModelLen: 32000
      lmcacheConfig:
        kvRole: "kv_consumer"
"""


def test_production_stack_values_point_at_the_values():
    [dep] = adapt(STACK, "values.yaml").deployments
    assert (dep.input_format, dep.display_name) == ("helm-values", "llama-prefill + llama-decode")
    prefill, decode = dep.roles
    assert (prefill.kind, decode.kind) == ("prefill", "decode")
    ctx = prefill.context_length
    assert (ctx.value, ctx.source.line, ctx.source.col) == (32000, 9, 22)
    assert at(STACK, prefill.arg("gpu_memory_utilization").source) == "0.6"
    assert at(STACK, prefill.role.source) == '"kv_producer"'
    assert prefill.replicas.value == 2 and prefill.accelerators.count.value == 1
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct" and dep.model.id.source.line == 5


def test_production_stack_engine_version_from_repository_and_tag():
    text = """\
servingEngineSpec:
  modelSpec:
    - name: "qwen7b"
      repository: "vllm/vllm-openai"
      tag: "v0.8.5"
      modelURL: "Qwen/Qwen2.5-7B-Instruct"
      vllmConfig: {maxModelLen: 8192}
    - name: "floating"
      repository: "vllm/vllm-openai"
      tag: "latest"
      modelURL: "Qwen/Qwen2.5-7B-Instruct"
"""
    pinned, floating = adapt(text, "values.yaml").deployments
    assert pinned.engine.version.value == "0.8.5" and at(text, pinned.engine.version.source) == 'v0.8.5'  # the tag's text, where a fix is typed
    assert floating.engine.version is None
    # LMCache's image is tagged by LMCache's release: no vLLM version (CTX402), not vLLM 0.3.9
    lmcache = text.replace('"vllm/vllm-openai"\n      tag: "v0.8.5"', '"lmcache/vllm-openai"\n      tag: "v0.3.9post2"')
    assert [d.engine.version for d in adapt(lmcache, "values.yaml").deployments] == [None, None]


# A vLLM production-stack modelSpec with `requestGPU: 0`, in the shape of amasolov/home-ops@b387824e33dd
# (kubernetes/apps/ai/vllm/app/helmrelease.yaml, a CPU-only vLLM image) and of the chart's own CPU tutorial values.
NO_GPU_REQUEST = """\
servingEngineSpec:
  modelSpec:
    - name: "llama-8b"
      repository: "{repository}"
      tag: "{tag}"
      modelURL: "meta-llama/Llama-3.1-8B-Instruct"
      requestCPU: 8
      requestMemory: "32Gi"
      requestGPU: 0
      vllmConfig:
        maxModelLen: 16384
"""


def test_production_stack_gpu_request_of_zero_renders_no_gpu_resource(tmp_path):
    # the chart renders no GPU resource for requestGPU 0: the count is not known (the node's runtime may give the
    # engine every GPU), not 0 GPUs against TP 1, which was CTX204's false "needs 1 GPUs but a replica has 0"
    text = NO_GPU_REQUEST.format(repository="vllm/vllm-openai", tag="v0.8.5")
    [dep] = adapt(text, "values.yaml").deployments
    assert dep.roles[0].accelerators.count is None and dep.roles[0].cpu_build is None
    path = tmp_path / "values.yaml"
    path.write_text(text)
    out = run(["check", "--isolated", str(path)]).out
    assert "CTX204" not in out and "CTX208" in out


def test_production_stack_cpu_image_without_gpus_is_the_cpu_backend(tmp_path):
    # repository + tag is the image the chart runs: a CPU build with no GPU requested keeps its KV cache in host
    # memory, and VLLM_CPU_KVCACHE_SPACE in the modelSpec's env is that memory
    text = NO_GPU_REQUEST.format(repository="public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo", tag="v0.8.5.post1")
    [dep] = adapt(text, "values.yaml").deployments
    role = dep.roles[0]
    assert role.cpu_build.value == "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.8.5.post1"
    assert role.accelerators.count is None and dep.engine.version.value == "0.8.5.post1"
    spaced = text + '      env:\n        - name: VLLM_CPU_KVCACHE_SPACE\n          value: "40"\n'
    [dep] = adapt(spaced, "values.yaml").deployments
    space = dep.roles[0].available_kv_gib
    assert space.value == 40 and at(spaced, space.source) == '"40"'
    path = tmp_path / "values.yaml"
    path.write_text(text)
    out = run(["check", "--isolated", str(path)]).out
    assert "CTX204" not in out and "CTX208" not in out  # its pool is vLLM 0.8.5's default 4 GiB of host memory


def test_production_stack_gpu_type_is_the_resource_counted():
    # the chart requests `requestGPUType` (nvidia.com/gpu unless set): the devices a pod of it can be
    base = NO_GPU_REQUEST.format(repository="vllm/vllm-openai", tag="v0.8.5")
    [dep] = adapt(base.replace("requestGPU: 0", "requestGPU: 2"), "values.yaml").deployments
    assert dep.roles[0].accelerators.count.value == 2 and dep.roles[0].accelerators.resource == "nvidia.com/gpu"
    amd = base.replace("requestGPU: 0", 'requestGPU: 1\n      requestGPUType: "amd.com/gpu"')
    [dep] = adapt(amd, "values.yaml").deployments
    assert dep.roles[0].accelerators.resource == "amd.com/gpu"


def test_kubeai_catalog_entries_are_named_by_key():
    text = """\
catalog:
  qwen-l4:
    enabled: false
    url: hf://Qwen/Qwen2.5-7B-Instruct
    engine: VLLM
    args:
      - --max-model-len=8192
    resourceProfile: nvidia-gpu-l4:1
  gemma-cpu:
    url: ollama://gemma2:2b
    engine: OLlama
"""
    [dep] = adapt(text, "values.yaml").deployments
    assert dep.display_name == "qwen-l4" and ("enabled", "false") in dep.labels
    ctx = dep.roles[0].context_length
    assert (ctx.value, ctx.source.line, ctx.source.col) == (8192, 7, 25)
    assert dep.roles[0].accelerators.type.value == "L4"


def test_silogen_engine_args_and_gpus():
    text = """\
model: "deepseek-ai/DeepSeek-R1"
gpus: 8
memory_per_gpu: 64
vllm_engine_args:
  max-model-len: "32768"
  enforce-eager:
"""
    [dep] = adapt(text, "values.yaml").deployments
    [role] = dep.roles
    assert (role.context_length.value, at(text, role.context_length.source)) == (32768, '32768')
    assert role.parallelism.tp == 8 and role.accelerators.count.value == 8


def test_sglang_lws_chart_config_is_camel_case_flags():
    text = """\
global:
  namePrefix: dsr1
  model:
    path: /models/DeepSeek-R1
    contextLength: "32768"
prefill:
  leaderWorkerSet: {size: 2, replicas: 1}
  config: {disaggregationMode: prefill, memFractionStatic: "0.7", tp: "16"}
  leader:
    resources: {limits: {nvidia.com/gpu: "8"}}
decode:
  leaderWorkerSet: {size: 2, replicas: 1}
  config: {disaggregationMode: decode, tp: "16"}
  leader:
    resources: {limits: {nvidia.com/gpu: "8"}}
"""
    [dep] = adapt(text, "values.yaml").deployments
    prefill, decode = dep.roles
    assert (prefill.kind, decode.kind) == ("prefill", "decode")
    assert at(text, prefill.context_length.source) == '32768'
    assert prefill.accelerators.count.value == 16 and prefill.parallelism.tp == 16


# -- Helm templates -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,where", [
    ("replicas: {{ .Values.replicaCount }}\n", (1, 11)),
    ("a: 1\n{{- if .Values.x }}\nb: 2\n{{- end }}\n", (2, 1)),
    ("# n: {{ .Values.gpus }}\nname: {{ include \"c.name\" . }}\n", (2, 7)),
    ("hf_api_token: {{HF_TOKEN}}\n", None),
    ("args: [--model_name={{.Name}}]\n", None),
    ("t: |\n  {{- bos_token }}{{ message['content'] | trim }}\n", None),
    # Go's own actions are not Helm's (KServe renders them); Helm's functions, named templates and
    # variables are, but not a function's name inside a string
    ("a: 1\n{{- if .Spec.X }}\nb: {{ or .Spec.Y 1 }}\n{{- end }}\n", None),
    ("s: '{{ ChildName .ObjectMeta.Name \"-default\" }}'\n", None),
    ("a: {{ quote .Spec.Name }}\n", None),  # sprig's functions are every sprig template's (Taskfile's too)
    ("a: {{ include \"c.name\" .Spec.Name }}\n", (1, 4)),
    ("{{- define \"c.name\" }}x{{ end }}\n", (1, 1)),
    ("a: 1\n{{- $tp := 2 }}\n", (2, 1)),
    ("{{/* the user's values */}}\na: 1\n", (1, 1)),
    # review of a036aef: GitHub Actions' `${{ fromJson(...) }}` and a Taskfile's sprig `{{default "x" .E}}` are no
    # Helm (a Helm function is never called as `fn(`, and sprig's are every Go template's); a comment on a long
    # line of many actions is found once
    ("m: ${{ fromJson(needs.setup.outputs.models) }}\n", None),
    ("e: '{{default \"me@example.com\" .EMAIL}}'\n", None),
    ("a: [" + ", ".join(["'{{ x }}'"] * 200) + "] # {{ .Values.y }}\n", None),
    ("a: [" + ", ".join(["'{{ x }}'"] * 200) + ", {{ .Values.y }}] # c\n", (1, 4 + 200 * 9 + 200 * 2 + 1)),
    # sweep 41 (a compiled Kubeflow pipeline): KFP's placeholders `{{$}}` (the executor input) and `{{$.field}}` of a
    # field no Helm root has are no Helm; a printed Helm variable, `$` with a name, and `$.Values` are
    ("args: [--executor_input, '{{$}}', '{{$.pipeline_job_name}}', '{{ $ }}']\n", None),
    ("a: '{{ $root.name }}'\n", (1, 5)),
    ("a: '{{ $.Values.x }}'\n", (1, 5)),
])
def test_template_detection(text, where):
    assert looks_like_go_template(text, "templates/deployment.yaml") == where


KFP_IR = """\
# PIPELINE DEFINITION
# Name: oneshot
components:
  comp-oneshot:
    executorLabel: exec-oneshot
deploymentSpec:
  executors:
    exec-oneshot:
      container:
        args:
        - --executor_input
        - '{{$}}'
        - --function_to_execute
        - oneshot
        - --job
        - '{{$.pipeline_job_name}}'
        command: [sh, -c, python3 -m kfp.dsl.executor_main]
        image: python:3.11
pipelineInfo:
  name: oneshot
root:
  dag:
    tasks:
      oneshot:
        componentRef: {name: comp-oneshot}
schemaVersion: 2.1.0
"""


def test_a_compiled_kubeflow_pipeline_is_no_helm_template(tmp_path):
    path = tmp_path / "pipeline.yaml"
    path.write_text(KFP_IR)
    result = run(["check", str(path)])
    assert (result.code, result.out) == (0, "")


def test_a_values_file_with_a_template_is_still_a_yaml_error(tmp_path):
    # review of a036aef: Helm never renders a values file, so an unquoted `{{ }}` that breaks its YAML is CTX001,
    # not an info about a Go template
    from helpers import run
    path = tmp_path / "values.yaml"
    path.write_text("serviceAccountName: {{ .Release.Name }}-sa\n")
    assert "CTX001 [error] invalid YAML" in run(["check", str(path), "--isolated"]).out


def test_values_files_are_never_templates():
    assert looks_like_go_template("x: '{{ .Release.Name }}'\n", "charts/llm-d/values.yaml") is None


def test_cli_on_a_helm_template_is_one_info_and_exit_0(tmp_path):
    path = tmp_path / "deployment.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: {{ .Values.replicas }}\n"
                    "  {{- with .Values.x }}\n  y: {{ toYaml . }}\n  {{- end }}\n")
    result = run(["check", str(path)])
    assert result.code == 0
    [line] = result.out.splitlines()
    assert line.startswith(f"{path}:4:13: CTX010 [info] a Helm chart template")
    assert "helm template <release> <chart> | ctxlint check -" in line and "CTX001" not in result.out


def test_cli_on_a_go_template_that_is_not_yaml_until_rendered(tmp_path):
    # not Helm's advice, and no syntax error for a file its operator reads: YAML once its actions render
    path = tmp_path / "config.yaml"
    path.write_text("kind: LLMInferenceServiceConfig\nspec:\n  a: 1\n  {{- if .Spec.X }}\n  b: 2\n  {{- end }}\n")
    result = run(["check", str(path)])
    assert result.code == 0
    assert result.out == (
        f"{path}:4:3: CTX010 [info] a Go template (actions such as `{{{{ if }}}}` and `{{{{ .Field }}}}`, none of them "
        "Helm's): it is YAML only once the operator that owns it renders it, so it was not checked; ctxlint reads "
        "such a file when its actions sit inside YAML values (KServe's are then values KServe fills in) "
        "(helm-template)\n")
    path.write_text("spec:\n  a: [1\n  {{- if .Spec.X }}\n  b: 2\n  {{- end }}\n")  # a real syntax error stays one
    result = run(["check", str(path)])
    assert result.code == 1 and "CTX001 [error] invalid YAML" in result.out and "CTX010" not in result.out


TEMPLATED_COMPOSE = """\
services:
  tgi:
    image: ghcr.io/huggingface/text-generation-inference:2.4.1
    command: ["--model-id", "{{ .Values.model.mixtral.name }}", "--num-shard", "2"]
  vllm:
    image: vllm/vllm-openai:v0.10.1
    command: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "{{ .Values.len }}"]
    environment:
      - VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
  sglang:
    image: lmsysorg/sglang:v0.4.6
    command: python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --context-length 4096
"""


def test_a_compose_file_with_an_action_in_a_value_is_read(tmp_path):
    # sweep 30 (CannonCoPilot/model-foundry deploy/docker-compose.yaml): one service's `"{{ .Values.model.x }}"` made
    # the whole Compose file a chart template (CTX010, 0 deployments); it is valid YAML with Compose's structure, so
    # it is read, each action an unknown value at its place
    path = tmp_path / "docker-compose.yaml"
    path.write_text(TEMPLATED_COMPOSE)
    result = run(["check", str(path), "--isolated", "--select", "CTX008,CTX010"])
    assert result.out == (
        f"{path}:4:30: CTX008 [info] values ctxlint cannot resolve: --model-id {{{{ .Values.model.mixtral.name }}}} "
        "(a template action: its value is known only once the file is rendered); the checks that need them are "
        "skipped (set them literally, or state the limits with ctxlint.io/* labels) (unresolved-value)\n"
        f"{path}:7:74: CTX008 [info] values ctxlint cannot resolve: --max-model-len {{{{ .Values.len }}}} (a template "
        "action: its value is known only once the file is rendered); the checks that need them are skipped (set "
        "them literally, or state the limits with ctxlint.io/* labels) (unresolved-value)\n")
    assert "3 deployments" in result.err
    # an action in an environment value is unknown too, not a value the engine refuses
    path.write_text(TEMPLATED_COMPOSE.replace("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", "MAX_TOTAL_TOKENS={{ .Values.t }}")
                    .replace("vllm/vllm-openai:v0.10.1", "ghcr.io/huggingface/text-generation-inference:2.4.1")
                    .replace('"--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "{{ .Values.len }}"',
                             '"--model-id", "Qwen/Qwen2.5-7B-Instruct"'))
    result = run(["check", str(path), "--isolated"])
    assert "CTX301" not in result.out and "--max-total-tokens from env" in result.out


@pytest.mark.parametrize("where,text", [
    ("chart/templates/docker-compose.yaml", TEMPLATED_COMPOSE),  # a chart's folder: Helm renders it
    ("deploy/docker-compose.yaml", TEMPLATED_COMPOSE.replace('"{{ .Values.len }}"', "{{ .Values.len }}")),  # a map
    ("deploy/docker-compose.yaml", TEMPLATED_COMPOSE + "{{- if .Values.x }}\n  other: {}\n{{- end }}\n"),
    ("deploy/config.yaml", "model_list:\n  - model_name: '{{ .Values.name }}'\n"),  # neither Compose nor an object
])
def test_a_template_whose_actions_make_its_structure_stays_a_chart_template(tmp_path, where, text):
    path = tmp_path / where
    path.parent.mkdir(parents=True)
    path.write_text(text)
    result = run(["check", str(path), "--isolated"])
    assert result.code == 0 and "CTX010 [info] a Helm chart template" in result.out, result.out
    assert "CTX008" not in result.out and "0 deployments" in result.err


def test_a_manifest_outside_a_chart_with_quoted_actions_is_read(tmp_path):
    path = tmp_path / "k8s" / "deploy.yaml"
    path.parent.mkdir()
    path.write_text('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: "{{ .Release.Name }}-vllm"\nspec:\n'
                    '  template:\n    spec:\n      containers:\n        - name: vllm\n'
                    '          image: vllm/vllm-openai:v0.10.1\n'
                    '          args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "{{ .Values.len }}"]\n')
    result = run(["check", str(path), "--isolated", "--select", "CTX008,CTX010"])
    assert result.out == (
        f"{path}:11:77: CTX008 [info] values ctxlint cannot resolve: --max-model-len {{{{ .Values.len }}}} (a template "
        "action: its value is known only once the file is rendered); the checks that need them are skipped (set "
        "them literally, or state the limits with ctxlint.io/* annotations) (unresolved-value)\n")


def test_cli_on_rendered_output_via_stdin():
    rendered = b"""\
---
# Source: chat/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len=32768]
---
# Source: chat/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: chat
"""
    result = run(["check", "-"], stdin=rendered)
    assert result.code == 0, result.out
    assert "CTX010" not in result.out and "1 deployment" in result.err


# -- corpus ---------------------------------------------------------------------------------------------
CORPUS = SHARED / "corpus" / "real"
# kind in SOURCES.tsv -> {file: (deployments, roles per deployment, engines)}
EXPECTED = {
    "kserve__kserve/config__runtimes__kserve-huggingfaceserver.yaml": (0, (), ()),
    "kserve__kserve/docs__samples__fluid__kserve-isvc.yaml": (1, (1,), ("vllm",)),
    "kserve__kserve/docs__samples__llmisvc__agentic-tool-calling__nemotron-3-ultra-pd.yaml": (1, (2,), ("vllm",)),
    "kserve__kserve/docs__samples__llmisvc__single-node-gpu__llm-inference-service-qwen2-7b-gpu.yaml":
        (1, (1,), ("vllm",)),
    "rh-aiservices-bu__llm-on-openshift/serving-runtimes__vllm_runtime__vllm-runtime.yaml": (1, (1,), ("vllm",)),
    "NVIDIA__nim-deploy/kserve__nim-models__llama-3.1-70b-instruct_2xgpu_1.1.0.yaml": (1, (1,), ("nim",)),
    "NVIDIA__nim-deploy/cloud-service-providers__azure__workshops__aks-dynamo__disagg_planner.yaml":
        (1, (2,), ("vllm",)),
    "zinuga__dynamo/examples__backends__trtllm__deploy__agg-with-config.yaml": (1, (1,), ("trtllm",)),
    "zinuga__dynamo/recipes__deepseek-r1__sglang__disagg-8gpu__deploy.yaml": (1, (2,), ("sglang",)),
    "substratusai__kubeai/charts__models__values.yaml": (32, (1,) * 32, ("vllm",) * 32),
    "substratusai__kubeai/charts__kubeai__values.yaml": (0, (), ()),
    "vllm-project__production-stack/tutorials__assets__values-04-multiple-models.yaml": (2, (1, 1), ("vllm",) * 2),
    "vllm-project__production-stack/examples__disaggregated_prefill__pd.yaml": (1, (2,), ("vllm",)),
    "llm-d__llm-d-deployer/quickstart__examples__llama4-fp8.yaml": (1, (2,), ("vllm",)),
    "silogen__ai-workloads/workloads__llm-inference-tgi__helm__values.yaml": (1, (1,), ("tgi",)),
    "sgl-project__sglang/docs__references__multi_node_deployment__lws_pd_helm__sglang-leaderworkerset__values.yaml":
        (1, (2,), ("sglang",)),
}


def _sources():
    rows = (CORPUS / "SOURCES.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [(r.split("\t")[0], r.split("\t")[6]) for r in rows if r.strip()]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available")
def test_corpus_files_of_these_kinds_are_read():
    from ctxlint.adapters import adapt_file
    from ctxlint.file_reader import read_path
    missing = []
    for name, kind in _sources():
        if kind not in ("kserve", "dynamo", "helm-values") and "kubeai" not in name:
            continue
        result = adapt_file(read_path(str(CORPUS / name)))
        got = (len(result.deployments), tuple(len(d.roles) for d in result.deployments),
               tuple(d.engine.name.value for d in result.deployments))
        if name in EXPECTED:
            assert got == EXPECTED[name], name
        elif kind == "dynamo" or "kubeai/manifests" in name or "production-stack" in name:
            if not got[0]:
                missing.append(name)
    assert not missing, missing


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available")
def test_every_dynamo_corpus_file_is_one_deployment():
    for name, kind in _sources():
        if kind == "dynamo":
            result = run(["check", str(CORPUS / name)])
            assert result.code in (0, 1) and re.search(r"\b1 deployment\b", result.err), (name, result.err)


RAY_VALUES = """\
servingEngineSpec:
  modelSpec:
  - name: "llama"
    repository: "vllm/vllm-openai"
    tag: "v0.9.1"
    modelURL: "meta-llama/Llama-3.1-8B-Instruct"
    replicaCount: 2
    requestGPU: 4
    vllmConfig:
      tensorParallelSize: 4
      pipelineParallelSize: 3
    raySpec:
      headNode:
        requestGPU: 4
"""


def test_production_stack_ray_spec_counts_the_head_and_the_workers():
    [dep] = adapt(RAY_VALUES, "values.yaml").deployments
    [role] = dep.roles
    count = role.accelerators.count
    assert (count.value, count.raw, count.source.line, at(RAY_VALUES, count.source)) == \
        (12, "4 on the head + 2 x 4 per worker (replicaCount x requestGPU)", 8, "4")
    assert (role.replicas, role.parallelism.gpus) == (None, 12)  # one RayCluster, not replicaCount replicas
    bad = adapt(RAY_VALUES.replace("requestGPU: 4\n", "requestGPU: four\n"), "values.yaml")
    assert bad.deployments[0].roles[0].accelerators.count is None  # neither count is a number
    headless = adapt(RAY_VALUES.replace("      headNode:\n        requestGPU: 4\n", "      enabled: true\n"),
                     "values.yaml")
    assert headless.deployments[0].roles[0].accelerators.count.value == 8


# -- llm-d-modelservice chart values (helm_modelservice.py) -----------------------------------------------
MODELSERVICE = """\
modelArtifacts:
  name: Qwen/Qwen3-8B
  uri: hf://"{{ .Values.modelArtifacts.name }}"
decode:
  create: true
  replicas: 2
  parallelism:
    tensor: 2
  acceleratorTypes:
    labelKey: nvidia.com/gpu.product
    labelValues: [NVIDIA-H100-80GB-HBM3]
  containers:
  - name: vllm
    image: ghcr.io/llm-d/llm-d-cuda:v0.4.0
    modelCommand: vllmServe
    args: ["--max-model-len", "32768", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
prefill:
  create: true
  replicas: 1
  containers:
  - name: vllm
    image: ghcr.io/llm-d/llm-d-cuda:v0.4.0
    modelCommand: vllmServe
    args: ["--max-model-len", "32768"]
    resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_modelservice_values_render_as_the_chart_does():
    # llm-d-incubation/llm-d-modelservice@3051935 _helpers.tpl: vllmServe runs `vllm serve <model>`
    # with the parallel sizes above 1, then the container's args; each worker gets dataLocal x
    # tensor GPUs unless its limits say
    [dep] = adapt(MODELSERVICE, "values.yaml").deployments
    assert (dep.input_format, dep.model.id.value, dep.disaggregated) == ("helm-values", "Qwen/Qwen3-8B", True)
    decode, prefill = sorted(dep.roles, key=lambda r: r.kind)
    assert (decode.kind, decode.parallelism.tp, decode.context_length.value) == ("decode", 2, 32768)
    assert at(MODELSERVICE, decode.parallelism.tensor.source) == "2"  # at parallelism.tensor
    assert (decode.accelerators.count.value, decode.accelerators.count.raw) == (
        2, "llm-d-modelservice: dataLocal 1 x tensor 2")
    assert (decode.accelerators.type.value, decode.replicas.value) == ("H100-SXM-80GB", 2)
    assert (prefill.parallelism.tp, prefill.accelerators.count.value, prefill.accelerators.type) == (1, 1, None)
    assert at(MODELSERVICE, dep.model.id.source) == 'hf://"{{ .Values.modelArtifacts.name }}"'


def test_modelservice_sections_the_chart_does_not_run():
    # decode alone serves whole requests; the chart's prefill.replicas is 0, so a prefill section that
    # does not state its replicas runs no pods; `create: false` renders nothing
    alone = MODELSERVICE[:MODELSERVICE.index("prefill:")]
    [dep] = adapt(alone, "values.yaml").deployments
    assert [r.kind for r in dep.roles] == ["unified"]
    for text in (MODELSERVICE.replace("  replicas: 1\n", ""), MODELSERVICE.replace("  create: true\n  replicas: 1",
                                                                                   "  create: false\n  replicas: 1")):
        assert [r.kind for r in adapt(text, "values.yaml").deployments[0].roles] == ["unified"]


URI = 'uri: hf://"{{ .Values.modelArtifacts.name }}"'


@pytest.mark.parametrize("change, model, count", [
    ((URI, "uri: pvc://model-pvc/models/qwen3"), "/model-cache/models/qwen3", 2),
    ((URI, "uri: pvc+hf://model-pvc/hub/Qwen/Qwen3-8B"), "Qwen/Qwen3-8B", 2),
    (("modelArtifacts:\n", "accelerator: {type: cpu}\nmodelArtifacts:\n"), "Qwen/Qwen3-8B", None),
])
def test_modelservice_model_uri_and_accelerator_type(change, model, count):
    [dep] = adapt(MODELSERVICE.replace(*change), "values.yaml").deployments
    decode = next(r for r in dep.roles if r.kind == "decode")
    assert dep.model.id.value == model
    assert (decode.accelerators.count.value if decode.accelerators.count else None) == count


def test_modelservice_image_default_and_custom_commands():
    decode_args = '    args: ["--max-model-len", "32768", "--kv'
    image_default = MODELSERVICE.replace(
        f"ghcr.io/llm-d/llm-d-cuda:v0.4.0\n    modelCommand: vllmServe\n{decode_args}",
        f"vllm/vllm-openai:v0.11.0\n    modelCommand: imageDefault\n{decode_args}")
    [dep] = adapt(image_default, "values.yaml").deployments
    decode = next(r for r in dep.roles if r.kind == "decode")
    assert (dep.engine.version.value, decode.parallelism.tp, decode.context_length.value) == ("0.11.0", 2, 32768)
    custom = MODELSERVICE.replace("    modelCommand: vllmServe\n    args: [\"--max-model-len\", \"32768\"]\n",
                                  "    command: [vllm, serve, Qwen/Qwen3-8B, --max-model-len, \"8192\"]\n")
    prefill = next(r for r in adapt(custom, "values.yaml").deployments[0].roles if r.kind == "prefill")
    assert prefill.context_length.value == 8192 and at(custom, prefill.context_length.source) == "8192"
    # imageDefault passes vLLM's server arguments to the image's entrypoint: an llm-d image runs vLLM
    llmd = image_default.replace("vllm/vllm-openai:v0.11.0", "ghcr.io/llm-d/llm-d-cuda:v0.4.0")
    decode = next(r for r in adapt(llmd, "values.yaml").deployments[0].roles if r.kind == "decode")
    assert (decode.parallelism.tp, decode.context_length.value) == (2, 32768)
    # the chart's default image is a simulator: no engine
    sim = MODELSERVICE.replace("ghcr.io/llm-d/llm-d-cuda:v0.4.0\n    modelCommand: vllmServe",
                               "ghcr.io/llm-d/llm-d-inference-sim:latest\n    modelCommand: imageDefault")
    assert adapt(sim, "values.yaml").deployments == []


def test_modelservice_extra_config_node_selector_and_affinity_name_the_device():
    # the chart's modelPod helper renders `extraConfig` into the pod spec as written (llm-d-incubation/
    # llm-d-modelservice@3051935 _helpers.tpl), its nodeSelector and affinity with it
    selector = MODELSERVICE.replace(
        "  acceleratorTypes:\n    labelKey: nvidia.com/gpu.product\n    labelValues: [NVIDIA-H100-80GB-HBM3]\n",
        "  extraConfig:\n    nodeSelector:\n      cloud.google.com/gke-tpu-topology: 2x2\n"
        "      cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice\n")
    [dep] = adapt(selector, "values.yaml").deployments
    decode = next(r for r in dep.roles if r.kind == "decode")
    assert decode.accelerators.type.value == "TPU-v6e"
    assert at(selector, decode.accelerators.type.source) == "tpu-v6e-slice"
    prefill = selector.replace("    resources: {limits: {nvidia.com/gpu: \"1\"}}\n",
                               "    resources: {limits: {nvidia.com/gpu: \"1\"}}\n  extraConfig:\n    affinity:\n"
                               "      nodeAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n"
                               "          nodeSelectorTerms:\n          - matchExpressions:\n"
                               "            - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-L4]}\n")
    [dep] = adapt(prefill, "values.yaml").deployments
    assert {r.kind: r.accelerators.type.value for r in dep.roles} == {"decode": "TPU-v6e", "prefill": "L4"}


def test_production_stack_resources_block_wins_over_the_gpu_request():
    # the chart renders a non-empty modelSpec.resources as the engine's resources instead of requestGPU /
    # requestGPUType (vllm-project/production-stack@a6c01db0 helm/templates/deployment-vllm-multi.yaml, #729)
    base = NO_GPU_REQUEST.format(repository="vllm/vllm-openai", tag="v0.8.5")
    amd = base.replace("requestGPU: 0", 'requestGPU: 1\n      resources:\n        limits:\n          amd.com/gpu: 2')
    [dep] = adapt(amd, "values.yaml").deployments
    count = dep.roles[0].accelerators.count
    assert count.value == 2 and at(amd, count.source) == "2"
    assert dep.roles[0].accelerators.resource in (None, "amd.com/gpu")
    assert counted_path(dep.roles[0]).endswith('["amd.com/gpu"]')  # an AMD pod: no L4 in CTX208's list
    empty = base.replace("requestGPU: 0", "requestGPU: 1\n      resources: {}")  # an empty block: requestGPU
    [dep] = adapt(empty, "values.yaml").deployments
    assert dep.roles[0].accelerators.count.value == 1 and dep.roles[0].accelerators.resource == "nvidia.com/gpu"


def test_production_stack_mig_gpu_type_names_the_slice():
    # requestGPUType nvidia.com/mig-<profile> (the chart's own default values.yaml: nvidia.com/mig-4g.71gb) requests
    # MIG slices: the device is the slice, as for a pod's own nvidia.com/mig-<profile> limit
    base = NO_GPU_REQUEST.format(repository="vllm/vllm-openai", tag="v0.8.5")
    mig = base.replace("requestGPU: 0", 'requestGPU: 1\n      requestGPUType: "nvidia.com/mig-1g.10gb"')
    [dep] = adapt(mig, "values.yaml").deployments
    kind = dep.roles[0].accelerators.type
    assert kind is not None and "1g.10gb" in kind.value and at(mig, kind.source) == '"nvidia.com/mig-1g.10gb"'
