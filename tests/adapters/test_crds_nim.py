"""NVIDIA NIM: NIMService, nim-llm Helm values, KServe runtimes and InferenceServices with NIM images."""
from __future__ import annotations

from tests.adapters.kit import adapt, arg, at

SERVICE = """\
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata:
  name: llama
spec:
  image:
    repository: nvcr.io/nim/meta/llama-3.1-8b-instruct
    tag: "1.8.4"
  env:
    - name: NIM_MAX_MODEL_LEN
      value: "65536"
    - name: NIM_TENSOR_PARALLEL_SIZE
      value: "2"
    - name: NIM_MODEL_PROFILE
      value: tensorrt_llm-h100-fp8-tp2-pp1-throughput
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
  resources:
    limits:
      nvidia.com/gpu: 2
  replicas: 3
"""


def test_nimservice_keeps_the_engine_unknown_and_reads_nim_variables():
    [dep] = adapt(SERVICE).deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.engine.version.value) == \
        ("nim", "llama", "nim", "1.8.4")
    # the profile names the backend, but NIM 1.x's KV memory share is not established: the reason says so
    assert dep.engine.name.raw == (
        "NIM 1.x KV memory share not established: NIM 1.8.4 runs TensorRT-LLM here "
        "(NIM_MODEL_PROFILE=tensorrt_llm-h100-fp8-tp2-pp1-throughput), but NIM's documentation does not establish "
        "what share of GPU memory NIM 1.x gives that backend's KV cache; a NIM 2.x image (vLLM) is derived")
    assert (dep.model.id.value, at(SERVICE, dep.model.id.source)) == \
        ("meta/llama-3.1-8b-instruct", "meta/llama-3.1-8b-instruct")
    ctx = role.context_length
    assert (ctx.value, ctx.source.line, at(SERVICE, ctx.source)) == (65536, 11, '"65536"')
    assert (role.parallelism.tp, role.accelerators.count.value, role.accelerators.type.value) == \
        (2, 2, "H100-SXM-80GB")
    assert (role.replicas.value, arg(role, "NIM_MODEL_PROFILE").value) == \
        (3, "tensorrt_llm-h100-fp8-tp2-pp1-throughput")


def test_nim_vllm_image_maps_nim_variables_and_passthrough_args_to_vllm():
    text = SERVICE.replace("nvcr.io/nim/meta/llama-3.1-8b-instruct", "nvcr.io/nim/nvidia/vllm-nim/meta/llama-3.1-8b"
                           ).replace("NIM_MODEL_PROFILE", "NIM_PASSTHROUGH_ARGS").replace(
        "tensorrt_llm-h100-fp8-tp2-pp1-throughput", '"--max-model-len 32768 --gpu-memory-utilization 0.8"')
    [dep] = adapt(text).deployments
    [role] = dep.roles
    assert (dep.engine.name.value, dep.model.id.value) == ("vllm", "meta/llama-3.1-8b")
    ctx = role.context_length  # NIM_PASSTHROUGH_ARGS win over NIM_MAX_MODEL_LEN
    assert (ctx.value, ctx.source.line, at(text, ctx.source)) == (32768, 15, "32768")
    assert (arg(role, "gpu_memory_utilization").value, role.parallelism.tp) == (0.8, 2)


def test_nim_without_parallel_sizes_does_not_count_idle_gpus():
    text = SERVICE.replace("""    - name: NIM_TENSOR_PARALLEL_SIZE
      value: "2"
""", "").replace("tensorrt_llm-h100-fp8-tp2-pp1-throughput", "0" * 64)  # a profile id names no size
    [dep] = adapt(text).deployments
    assert (dep.roles[0].accelerators.count, dep.roles[0].accelerators.type.value) == (None, "H100-SXM-80GB")


def test_a_profile_name_states_the_parallel_sizes_the_variables_leave_unset():
    # NIM's profile names read `<backend>-...-tp<N>-pp<M>` (1.12.0 docs, "How many GPUs do I need?")
    text = SERVICE.replace("""    - name: NIM_TENSOR_PARALLEL_SIZE
      value: "2"
""", "")
    [dep] = adapt(text).deployments
    [role] = dep.roles
    tp = role.parallelism.tensor
    assert (tp.value, tp.source.line, at(text, tp.source), role.parallelism.pp, role.accelerators.count.value) == \
        (2, 13, "tensorrt_llm-h100-fp8-tp2-pp1-throughput", 1, 2)


VALUES = """\
image:
  repository: nvcr.io/nim/meta/llama3-70b-instruct
  tag: 1.0.3
model:
  name: meta/llama3-70b-instruct
env:
  - name: NIM_MAX_MODEL_LEN
    value: "8192"
resources:
  limits:
    nvidia.com/gpu: 4
replicaCount: 2
"""


def test_nim_llm_helm_values():
    [dep] = adapt(VALUES, "values.yaml").deployments
    assert (dep.input_format, dep.display_name, dep.model.id.value, dep.engine.version.value) == \
        ("helm-values", "meta/llama3-70b-instruct", "meta/llama3-70b-instruct", "1.0.3")
    role = dep.roles[0]
    assert (role.context_length.value, role.context_length.source.line, role.replicas.value) == (8192, 8, 2)


def test_an_umbrella_charts_values_hold_the_nim_llm_subcharts():
    # sweep 11: NVIDIA/nim-deploy's AIQ blueprint values nest the chart under `nim-llm:` (0 deployments before)
    text = "nim-llm:\n" + "".join("  " + line + "\n" for line in VALUES.splitlines()) + "frontend:\n  image: web:1\n"
    [dep] = adapt(text, "values.yaml").deployments
    assert (dep.model.id.value, dep.roles[0].context_length.value, dep.roles[0].context_length.source.line) == \
        ("meta/llama3-70b-instruct", 8192, 9)


def test_a_nimservice_is_a_nim_whatever_registry_its_image_comes_from():
    # sweep 11: k8s-nim-operator's own samples run nvcr.io/nvstaging/... images, users private mirrors; a
    # NIMService was dropped (0 deployments, no finding) unless its image was under nvcr.io/nim/
    mirror = SERVICE.replace("nvcr.io/nim/meta/", "registry.example.com/mirrors/nim/meta/")
    [dep] = adapt(mirror).deployments
    assert (dep.engine.name.value, dep.model.id.value, at(mirror, dep.model.id.source)) == \
        ("nim", "meta/llama-3.1-8b-instruct", "meta/llama-3.1-8b-instruct")
    staging = SERVICE.replace("nvcr.io/nim/meta/llama-3.1-8b-instruct", "nvcr.io/nvstaging/nim-internal/llm-devel")
    [dep] = adapt(staging).deployments
    assert (dep.engine.name.value, dep.model.id, dep.roles[0].context_length.value) == ("nim", None, 65536)


KSERVE = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ClusterServingRuntime
metadata:
  name: nvidia-nim-llama-3.1-8b-instruct-1.1.0
spec:
  containers:
  - name: kserve-container
    image: nvcr.io/nim/meta/llama-3.1-8b-instruct:1.1.0
    env:
    - name: NIM_MAX_MODEL_LEN
      value: "16384"
    - name: NGC_API_KEY
      valueFrom: {secretKeyRef: {name: s, key: k}}
  supportedModelFormats:
  - name: nvidia-nim-llama-3.1-8b-instruct
    version: "1.1.0"
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: llama-8b
spec:
  predictor:
    minReplicas: 2
    model:
      modelFormat:
        name: nvidia-nim-llama-3.1-8b-instruct
      resources:
        limits:
          nvidia.com/gpu: "1"
      runtime: nvidia-nim-llama-3.1-8b-instruct-1.1.0
"""


def test_kserve_nim_runtime_and_inference_service_are_one_deployment():
    res = adapt(KSERVE)
    [dep] = res.deployments
    role = dep.roles[0]
    assert (dep.input_format, dep.display_name, dep.model.id.value, dep.engine.version.value) == \
        ("nim", "llama-8b", "meta/llama-3.1-8b-instruct", "1.1.0")
    assert (role.context_length.value, role.context_length.source.line, role.replicas.value) == (16384, 11, 2)
    alone = adapt(KSERVE.split("---\n")[1])
    [dep] = alone.deployments
    assert (dep.model.id.value, dep.model.id.raw, dep.model.id.source.line) == \
        ("llama-3.1-8b-instruct", "nvidia-nim-llama-3.1-8b-instruct", 10)


def test_nim_bad_shapes_never_crash():
    odd = """\
    apiVersion: apps.nvidia.com/v1alpha1
    kind: NIMService
    metadata: {name: [1]}
    spec: {image: {repository: [x]}, env: 3, resources: "x", replicas: -1, multiNode: {parallelism: 5}}
    ---
    apiVersion: apps.nvidia.com/v1alpha1
    kind: NIMService
    spec: {image: nvcr.io/nim/meta/x:1, env: [{name: NIM_MAX_MODEL_LEN, value: lots}], multiNode: 3}
    ---
    apiVersion: serving.kserve.io/v1beta1
    kind: InferenceService
    spec: {predictor: {model: {modelFormat: {name: nvidia-nim-x}, runtime: [1]}}}
    """
    res = adapt(odd)
    assert [d.display_name for d in res.deployments] == [None, None]
    assert [d.roles[0].context_length for d in res.deployments] == [None, None]


PLAIN = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: nim-gemma}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
      containers:
        - name: nim
          image: nvcr.io/nim/nvidia/llm-nim:1.14
          resources: {limits: {nvidia.com/gpu: "2"}}
          env:
            - {name: NIM_TENSOR_PARALLEL_SIZE, value: "2"}
            - {name: NIM_MODEL_NAME, value: "hf://google/gemma-3-27b-it"}
            - {name: NIM_MAX_MODEL_LEN, value: "32768"}
"""


def test_a_plain_deployment_of_a_nim_image_is_a_nim_deployment():
    # the NIM image starts its own server (no command): the multi-LLM image serves NIM_MODEL_NAME's model
    [dep] = adapt(PLAIN).deployments
    [role] = dep.roles
    assert (dep.engine.name.value, dep.engine.version.value, dep.model.id.value) == ("nim", "1.14", "google/gemma-3-27b-it")
    assert at(PLAIN, dep.model.id.source) == '"hf://google/gemma-3-27b-it"'
    assert (role.context_length.value, role.parallelism.tp, role.accelerators.count.value) == (32768, 2, 2)
    # the model-free image names no model of its own
    [dep] = adapt(PLAIN.replace('            - {name: NIM_MODEL_NAME, value: "hf://google/gemma-3-27b-it"}\n', "")).deployments
    assert dep.model.id is None
    # a model-specific image is its model; NIM_MODEL_PATH (2.x) names one too
    [dep] = adapt(PLAIN.replace("nvidia/llm-nim:1.14", "meta/llama-3.1-8b-instruct:1.8.4").replace(
        '            - {name: NIM_MODEL_NAME, value: "hf://google/gemma-3-27b-it"}\n', "")).deployments
    assert dep.model.id.value == "meta/llama-3.1-8b-instruct"
    [dep] = adapt(PLAIN.replace("NIM_MODEL_NAME", "NIM_MODEL_PATH")).deployments
    assert dep.model.id.value == "google/gemma-3-27b-it"


def test_a_plain_workload_runs_an_llm_nim_unless_its_name_says_otherwise():
    # sweep 40: an NGC-named NIM the catalog lacks (`meta/llama3-8b-instruct`), also behind a registry mirror's
    # prefix, was 0 deployments and no finding; embedding, reranking and speech NIMs share the registry
    bare = PLAIN.replace('            - {name: NIM_MODEL_NAME, value: "hf://google/gemma-3-27b-it"}\n', "").replace(
        "NIM_TENSOR_PARALLEL_SIZE", "OTHER").replace("NIM_MAX_MODEL_LEN", "OTHER2")
    for image, model in (("meta/llama3-8b-instruct:latest", "meta/llama3-8b-instruct"),
                         ("nvidia/llama-3.1-nemotron-70b-instruct", "nvidia/llama-3.1-nemotron-70b-instruct"),
                         ("nvidia/cosmos-reason1-7b:1.0", "nvidia/cosmos-reason1-7b")):
        for prefix in ("", "myacr.azurecr.io/"):
            text = bare.replace("nvcr.io/nim/nvidia/llm-nim:1.14", f"{prefix}nvcr.io/nim/{image}")
            [dep] = adapt(text).deployments
            assert (dep.engine.name.value, dep.model.id.value, at(text, dep.model.id.source)) == ("nim", model, model)
    for image in ("nvidia/nv-embedqa-e5-v5:1.0.0", "nvidia/llama-3.2-nv-rerankqa-1b-v2:1.3",
                  "nvidia/llama-3.2-nv-embedqa-1b-v2", "nvidia/nemoretriever-page-elements-v2", "baidu/paddleocr",
                  "nvidia/parakeet-ctc-1.1b-asr:1.0.0", "nvidia/fastpitch-hifigan-tts", "nvidia/cosmos-predict1-7b"):
        # an LLM variable does not make an embedding NIM an LLM NIM: the name says what it serves
        assert adapt(PLAIN.replace("nvidia/llm-nim:1.14", image)).deployments == [], image
    # review: image-generation and biology NIMs share the registry too; a plain workload's NIM whose name says
    # nothing of an LLM, with no LLM NIM variable and no catalog entry, is no deployment (it was a phantom one)
    for image in ("black-forest-labs/flux.1-dev:1.0.0", "mit/diffdock:2.0", "deepmind/alphafold2:2",
                  "arc/evo2-40b:2", "baai/bge-m3:1.0", "nvidia/studiovoice:1", "nvidia/nemotron-parse:1"):
        assert adapt(bare.replace("nvidia/llm-nim:1.14", image)).deployments == [], image
    # ...unless its container sets an LLM NIM variable
    [dep] = adapt(PLAIN.replace('            - {name: NIM_MODEL_NAME, value: "hf://google/gemma-3-27b-it"}\n', "")
                  .replace("nvidia/llm-nim:1.14", "acme/house-model:1")).deployments
    assert dep.model.id.value == "acme/house-model"


def test_a_nimservice_or_nim_llm_values_of_a_nim_that_serves_no_llm_is_no_deployment():
    # the same predicate as a plain workload's: a NIMService (any registry) of an embedding NIM, an umbrella chart's
    # values with a retriever NIM beside the LLM's (nv-ingest's shape)
    embed = SERVICE.replace("meta/llama-3.1-8b-instruct", "nvidia/llama-3.2-nv-embedqa-1b-v2")
    assert adapt(embed).deployments == []
    assert adapt(embed.replace("nvcr.io/nim/", "registry.example.com/nim/")).deployments == []
    values = """\
nim-llm:
  image: {repository: nvcr.io/nim/meta/llama3-8b-instruct, tag: "1.0.3"}
nemoretriever-page-elements-v2:
  image: {repository: nvcr.io/nim/nvidia/nemoretriever-page-elements-v2, tag: "1.3.0"}
"""
    assert [d.model.id.value for d in adapt(values).deployments] == ["meta/llama3-8b-instruct"]


def test_a_nim_of_a_model_the_catalog_lacks_is_told_the_engine_not_the_hub(tmp_path):
    # sweep 11: NVIDIA/nim-deploy's NGC-named NIMs were told to record `meta/llama3-8b-instruct` "from the Hugging
    # Face Hub", which has no such model; no architecture would let ctxlint derive a NIM's pool anyway
    from tests.helpers import run

    (tmp_path / "nim.yaml").write_text(SERVICE.replace("meta/llama-3.1-8b-instruct", "acme/unreleased-llm"))
    out = run(["check", str(tmp_path / "nim.yaml"), "--select", "CTX208"]).out
    assert "not derivable: NIM 1.x KV memory share not established: NIM 1.8.4 runs TensorRT-LLM" in out \
        and "Hugging Face" not in out


MULTI_LLM = """\
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata: {name: multi, namespace: nim}
spec:
  image: {repository: nvcr.io/nim/nvidia/llm-nim, tag: "1.14.0"}
  storage:
    nimCache: {name: qwen-cache}
  resources:
    limits: {nvidia.com/gpu: 1}
"""
HF_CACHE = """\
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMCache
metadata: {name: qwen-cache, namespace: nim}
spec:
  source:
    hf:
      endpoint: https://huggingface.co
      namespace: Qwen
      modelName: Qwen2.5-7B-Instruct
      authSecret: hf-token
      modelPuller: nvcr.io/nim/nvidia/llm-nim:1.14.0
      pullSecret: ngc-secret
  storage:
    pvc: {create: true, size: 50Gi}
"""


def test_a_multi_llm_nimservice_serves_the_hugging_face_model_of_the_nimcache_it_names():
    # k8s-nim-operator points the service's NIM_MODEL_PATH at the cache's hf://<namespace>/<modelName>
    text = MULTI_LLM + "---\n" + HF_CACHE
    [dep] = adapt(text).deployments
    assert (dep.display_name, dep.engine.name.value) == ("multi", "nim")
    assert (dep.model.id.value, at(text, dep.model.id.source)) == ("Qwen/Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct")
    assert "NIMCache qwen-cache spec.source.hf: hf://Qwen/Qwen2.5-7B-Instruct" in dep.model.id.raw


def test_the_nimcache_is_not_read_where_it_names_no_hugging_face_model_or_the_service_names_its_own():
    [dep] = adapt(MULTI_LLM).deployments
    assert dep.model.id is None  # the model-free image names no model
    ngc = HF_CACHE.replace("    hf:\n", "    ngc:\n")
    assert [d.model.id for d in adapt(MULTI_LLM + "---\n" + ngc).deployments] == [None]
    dataset = HF_CACHE.replace("modelName: Qwen2.5-7B-Instruct", "datasetName: some-set")
    assert [d.model.id for d in adapt(MULTI_LLM + "---\n" + dataset).deployments] == [None]
    other_namespace = HF_CACHE.replace("namespace: nim}", "namespace: elsewhere}")
    assert [d.model.id for d in adapt(MULTI_LLM + "---\n" + other_namespace).deployments] == [None]
    own = MULTI_LLM.replace("  storage:\n", "  env:\n    - {name: NIM_MODEL_PATH, value: 'hf://meta-llama/Llama-3.1-8B-Instruct'}\n"
                            "  storage:\n")
    [dep] = adapt(own + "---\n" + HF_CACHE).deployments
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    # a model-specific NIM serves its own model, whatever cache it mounts: only the model-free image reads the cache
    specific = MULTI_LLM.replace("nvcr.io/nim/nvidia/llm-nim", "nvcr.io/nim/meta/llama-3.1-8b-instruct")
    [dep] = adapt(specific + "---\n" + HF_CACHE).deployments
    assert dep.model.id.value == "meta/llama-3.1-8b-instruct"


def test_the_nimcache_of_a_sibling_file_names_the_model(tmp_path):
    import json

    from tests.helpers import run

    (tmp_path / "nimservice.yaml").write_text(MULTI_LLM)
    (tmp_path / "nimcache.yaml").write_text(HF_CACHE)
    # named alone (pre-commit): the service's directory is read for the cache it names
    out = json.loads(run(["audit", "--isolated", "--format", "json", str(tmp_path / "nimservice.yaml")]).out)
    assert [(d["name"], d["model"]) for d in out["deployments"]] == [("multi", "Qwen/Qwen2.5-7B-Instruct")]
