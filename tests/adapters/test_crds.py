"""CRD adapters: KubeAI Model, Dynamo DynamoGraphDeployment, KServe services; every value at its token."""
from __future__ import annotations

from ctxlint.adapters.crd_common import in_template
from tests.adapters.kit import adapt, at

KUBEAI = """\
apiVersion: kubeai.org/v1
kind: Model
metadata:
  name: llama-405b
spec:
  url: hf://neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8
  engine: VLLM
  args:
    - --max-model-len=65536
    - --tensor-parallel-size=8
    - --kv-cache-dtype=fp8
  env:
    VLLM_ATTENTION_BACKEND: FLASHINFER
  resourceProfile: nvidia-gpu-h100:8
"""


def test_kubeai_model_args_profile_and_url():
    res = adapt(KUBEAI)
    [dep] = res.deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value) == ("kubeai", "llama-405b", "vllm")
    assert at(KUBEAI, dep.engine.name.source) == "VLLM"
    assert dep.model.id.value == "neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8"
    assert (dep.model.id.source.line, dep.model.id.source.col) == (6, 8)
    ctx = role.context_length
    assert (ctx.value, ctx.source.line, ctx.source.col) == (65536, 9, 23)
    assert at(KUBEAI, ctx.source) == "65536"
    assert role.parallelism.tp == 8 and at(KUBEAI, role.kv_cache_dtype.source) == "fp8"
    acc = role.accelerators
    assert (acc.type.value, acc.type.raw, at(KUBEAI, acc.type.source)) == ("H100-SXM-80GB", "nvidia-gpu-h100",
                                                                           "nvidia-gpu-h100")
    assert (acc.count.value, at(KUBEAI, acc.count.source)) == (8, "8")


def test_kubeai_non_vllm_engines_and_cpu_profiles():
    res = adapt(KUBEAI.replace("engine: VLLM", "engine: OLlama"))
    assert res.deployments == []
    [role] = adapt(KUBEAI.replace("nvidia-gpu-h100:8", "cpu:4")).deployments[0].roles
    assert role.accelerators.type is None and role.accelerators.count is None


DYNAMO = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: disagg
spec:
  services:
    Frontend:
      componentType: frontend
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0
    Decode:
      componentType: worker
      replicas: 2
      resources:
        limits:
          gpu: "4"
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-32B, --max-model-len, "32768", --tensor-parallel-size, "4"]
    Prefill:
      componentType: worker
      replicas: 1
      multinode:
        nodeCount: 2
      resources:
        limits:
          gpu: "8"
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-32B, --max-model-len, "32768", --is-prefill-worker, -tp, "16"]
"""


def test_dynamo_prefill_worker_pairs_into_one_disaggregated_deployment():
    res = adapt(DYNAMO)
    [dep] = res.deployments
    assert (dep.input_format, dep.display_name) == ("dynamo", "disagg/Decode + disagg/Prefill")
    decode, prefill = dep.roles
    assert (decode.kind, prefill.kind) == ("decode", "prefill")
    assert decode.role.source.line == 12  # the unmarked worker beside a prefill worker decodes
    assert at(DYNAMO, prefill.role.source) == "--is-prefill-worker"
    assert (decode.replicas.value, prefill.replicas.value) == (2, 1)
    assert (decode.context_length.source.line, decode.context_length.source.col) == (21, 61)
    assert at(DYNAMO, decode.context_length.source) == "32768"
    assert decode.accelerators.count.value == 4
    # two nodes of 8 GPUs run one prefill instance
    assert (prefill.accelerators.count.value, prefill.accelerators.count.raw) == (16, "8 per pod x 2 pods "
                                                                                  "(LeaderWorkerSet size)")


def test_dynamo_sub_component_type_marks_the_role_when_flags_do_not():
    text = DYNAMO.replace(", --is-prefill-worker", "").replace("      componentType: worker\n      replicas: 1",
                                                               "      componentType: worker\n"
                                                               "      subComponentType: prefill\n      replicas: 1")
    [dep] = adapt(text).deployments
    prefill = dep.roles_of("prefill")[0]
    assert at(text, prefill.role.source) == "prefill"


TRTLLM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: engine-config
data:
  decode.yaml: |
    tensor_parallel_size: 2
    max_seq_len: 7808
    kv_cache_config:
      free_gpu_memory_fraction: 0.7
---
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: trt
spec:
  services:
    Worker:
      componentType: worker
      resources:
        limits:
          gpu: "2"
      extraPodSpec:
        volumes:
          - name: cfg
            configMap:
              name: engine-config
        mainContainer:
          command: [/bin/sh, -c]
          args:
            - python3 -m dynamo.trtllm --model-path Qwen/Qwen3-32B --extra-engine-args "${ENGINE_ARGS}"
          env:
            - name: ENGINE_ARGS
              value: /opt/configs/decode.yaml
          volumeMounts:
            - name: cfg
              mountPath: /opt/configs
"""


def test_dynamo_trtllm_engine_config_from_a_configmap_of_the_same_file():
    res = adapt(TRTLLM)
    [dep] = res.deployments
    [role] = dep.roles
    ctx = role.context_length
    assert (ctx.value, ctx.source.line, ctx.source.col) == (7808, 8, 18)
    assert role.parallelism.tp == 2 and at(TRTLLM, role.parallelism.tensor.source) == "2"
    assert at(TRTLLM, role.arg("kv_cache_free_gpu_memory_fraction").source) == "0.7"
    assert not res.diagnostics


def test_dynamo_engine_config_not_in_the_file_is_an_unresolved_value():
    res = adapt(TRTLLM.replace("/opt/configs/decode.yaml", "/elsewhere/decode.yaml"))
    [diag] = res.diagnostics
    assert diag.kind == "unresolved-value" and "--extra-engine-args /elsewhere/decode.yaml" in diag.message


LLMISVC = """\
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: qwen-pd
spec:
  replicas: 1
  model:
    uri: hf://Qwen/Qwen2.5-7B-Instruct
    name: Qwen/Qwen2.5-7B-Instruct
  parallelism:
    tensor: 2
  template:
    containers:
      - name: main
        env:
          - name: VLLM_ADDITIONAL_ARGS
            value: "--max-model-len 16384 --kv_transfer_config '{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_consumer\\"}'"
        resources:
          limits:
            nvidia.com/gpu: "2"
  prefill:
    replicas: 3
    template:
      containers:
        - name: main
          env:
            - name: VLLM_ADDITIONAL_ARGS
              value: "--max-model-len 16384"
          resources:
            limits:
              nvidia.com/gpu: "2"
"""


def test_kserve_llm_inference_service_prefill_and_decode():
    res = adapt(LLMISVC)
    [dep] = res.deployments
    assert (dep.input_format, dep.display_name) == ("kserve", "qwen-pd + qwen-pd/prefill")
    decode, prefill = dep.roles
    assert (decode.kind, prefill.kind) == ("decode", "prefill")
    assert at(LLMISVC, prefill.role.source).startswith("prefill")
    assert (decode.context_length.source.line, decode.context_length.source.col) == (17, 37)
    assert (prefill.context_length.source.line, prefill.context_length.source.col) == (28, 39)
    assert at(LLMISVC, prefill.context_length.source) == "16384"
    assert (decode.replicas.value, prefill.replicas.value) == (1, 3)
    assert decode.parallelism.tp == 2 and at(LLMISVC, decode.parallelism.tensor.source) == "2"
    assert dep.model.id.value == "Qwen/Qwen2.5-7B-Instruct"


ISVC = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: llama
spec:
  predictor:
    nodeSelector:
      node.kubernetes.io/instance-type: g5.8xlarge
    model:
      modelFormat:
        name: huggingface
      args:
        - --max-model-len=1024
      storageUri: hf://meta-llama/Llama-3.1-8B-Instruct
      resources:
        limits:
          nvidia.com/gpu: "1"
"""


def test_kserve_inference_service_huggingface_runs_vllm_args():
    [dep] = adapt(ISVC).deployments
    [role] = dep.roles
    assert dep.engine.name.value == "vllm" and at(ISVC, dep.engine.name.source) == "huggingface"
    assert (role.context_length.value, role.context_length.source.line, role.context_length.source.col) == \
        (1024, 13, 27)
    assert role.accelerators.type.value == "A10G" and role.accelerators.count.value == 1
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"


def test_kserve_huggingface_server_model_id_and_backend():
    # kserve python/huggingfaceserver __main__.py: args.model = model_id or model_dir; vLLM runs only on
    # --backend vllm or auto (the default); the transformers backend has no paged KV pool to check
    by_id = ISVC.replace("        - --max-model-len=1024\n", "        - --max-model-len=1024\n"
                         "        - --model_id=Qwen/Qwen3-8B\n        - --backend=vllm\n").replace(
        "      storageUri: hf://meta-llama/Llama-3.1-8B-Instruct\n", "")
    [dep] = adapt(by_id).deployments
    assert dep.model.id.value == "Qwen/Qwen3-8B" and at(by_id, dep.model.id.source) == "Qwen/Qwen3-8B"
    split = by_id.replace("        - --model_id=Qwen/Qwen3-8B\n", "        - --model_id\n        - Qwen/Qwen3-8B\n")
    assert adapt(split).deployments[0].model.id.value == "Qwen/Qwen3-8B"
    for backend in ("huggingface", "triton"):
        assert adapt(ISVC.replace("        - --max-model-len=1024\n",
                                  f"        - --max-model-len=1024\n        - --backend={backend}\n")).deployments == []

def test_kserve_runtime_placeholders_are_not_errors():
    text = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm
spec:
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.8.5
      args: [--model, /mnt/models, --served-model-name, "{{.Name}}", --max-model-len, "6144"]
"""
    res = adapt(text)
    [dep] = res.deployments
    assert dep.roles[0].context_length.value == 6144
    [unknown] = res.diagnostics  # KServe fills `{{.Name}}` with the InferenceService's name
    assert (unknown.kind, at(text, unknown.source)) == ("unresolved-value", "{{.Name}}")
    assert unknown.message.startswith("values ctxlint cannot resolve: --served-model-name {{ .Name }} (a template "
                                      "KServe fills in); the checks")
    # kserve utils.go ReplacePlaceholders renders the whole container over the isvc's metadata: an action in
    # an engine flag is a value not known here, never a value the engine refuses
    flags = text.replace('"6144"]', '"{{.Labels.ctx}}", --tensor-parallel-size, "{{ .Annotations.tp }}"]')
    res = adapt(flags)
    [role] = res.deployments[0].roles
    assert role.context_length is None and role.parallelism.tensor is None
    [unknown] = res.diagnostics
    assert unknown.message.startswith(
        "values ctxlint cannot resolve: --served-model-name {{ .Name }} (a template KServe fills in); "
        "--max-model-len {{ .Labels.ctx }} (a template KServe fills in); --tensor-parallel-size "
        "{{ .Annotations.tp }} (a template KServe fills in); the checks")


LLMISVC_CONFIG = """\
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceServiceConfig
metadata:
  name: qwen-config
spec:
  model:
    uri: hf://Qwen/Qwen2.5-7B-Instruct
  template:
    containers:
      - name: main
        image: vllm/vllm-openai:v0.11.0
        command: ["/bin/bash", "-c"]
        args:
          - |-
            exec vllm serve /mnt/models \\
              --served-model-name "{{ .Spec.Model.Name }}" \\
              {{- if and .Spec.Parallelism .Spec.Parallelism.Tensor }} --tensor-parallel-size {{ .Spec.Parallelism.Tensor }}{{- end }} \\
              {{ if .Spec.Labels }}--gpu-memory-utilization 0.5{{ end }} \\
              --chat-template "{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}" \\
              --max-model-len 16384
"""


def test_kserve_go_template_conditionals_are_read_not_skipped():
    # config_merge.go ReplaceVariables renders the config with text/template (no Helm): a value inside
    # `{{ if }}` is given only when the condition holds, a Jinja chat template is no action
    res = adapt(LLMISVC_CONFIG)
    [role] = res.deployments[0].roles
    assert role.context_length.value == 16384 and role.parallelism.tensor is None
    assert role.arg("gpu_memory_utilization") is None
    assert role.arg("chat_template").value.startswith("{{ bos_token }}{% for m")
    [unknown] = res.diagnostics
    assert at(LLMISVC_CONFIG, unknown.source) == "{{ .Spec.Model.Name }}"
    assert unknown.message.startswith(
        "values ctxlint cannot resolve: --served-model-name {{ .Spec.Model.Name }} (a template KServe fills in); "
        "--tensor-parallel-size {{ .Spec.Parallelism.Tensor }} (a template KServe fills in); "
        "--gpu-memory-utilization (given only if {{ if .Spec.Labels }} holds when KServe renders it); the checks")


def test_kserve_data_parallel_preset_passes_global_dp_and_expert_parallel_to_vllm():
    # KServe's DP preset runs vLLM with --data-parallel-size `data` (all ranks, not `dataLocal`) and
    # --enable-expert-parallel from `expert`: the capacity stage spreads routed experts over them.
    text = LLMISVC.replace("  parallelism:\n    tensor: 2\n",
                           "  parallelism:\n    data: 32\n    dataLocal: 8\n    expert: true\n    tensor: 1\n")
    [dep] = adapt(text).deployments
    for role in dep.roles:
        dp = role.arg("data_parallel_size")
        assert dp.value == 32 and at(text, dp.source) == "32"
        ep = role.arg("enable_expert_parallel")
        assert ep.value is True and at(text, ep.source) == "true"
    # a flag on the command line (here the prefill role's) wins over the preset
    stated = text.replace("--max-model-len 16384\"", "--max-model-len 16384 --data-parallel-size 4\"")
    decode, prefill = adapt(stated).deployments[0].roles
    assert (decode.arg("data_parallel_size").value, prefill.arg("data_parallel_size").value) == (32, 4)


def test_kserve_llm_inference_service_image_gives_the_version_and_mnt_models_is_spec_model():
    # VLLM_ADDITIONAL_ARGS (the preset's `vllm serve`) with a vLLM image: the image's tag is the version
    tagged = LLMISVC.replace("      - name: main\n        env:", "      - name: main\n        image: vllm/vllm-openai:v0.10.1\n"
                             "        env:", 1)
    [dep] = adapt(tagged).deployments
    assert dep.engine.version.value == "0.10.1" and at(tagged, dep.engine.version.source) == "v0.10.1"
    # an image of another engine does not make the preset's vllm another engine, nor give a version
    [dep] = adapt(tagged.replace("vllm/vllm-openai:v0.10.1", "lmsysorg/sglang:v0.4.6")).deployments
    assert (dep.engine.name.value, dep.engine.version) == ("vllm", None)
    # a command serving /mnt/models serves what KServe downloaded there: spec.model
    first = LLMISVC.index("        env:\n")
    text = LLMISVC[:first] + ("        image: vllm/vllm-openai:v0.10.1\n        command: [sh, -c]\n"
                              '        args: ["exec vllm serve /mnt/models/ --max-model-len 8192"]\n') + \
        LLMISVC[LLMISVC.index("        resources:", first):]
    [dep] = adapt(text).deployments
    assert dep.model.id.value == "Qwen/Qwen2.5-7B-Instruct" and [r.context_length.value for r in dep.roles] == [
        8192, 16384]
    # a path of its own stays the model served
    # a storage URI of another kind leaves /mnt/models as written: spec.model.name is a served name
    other = text.replace("uri: hf://Qwen/Qwen2.5-7B-Instruct", "uri: pvc://models/qwen").replace(
        "name: Qwen/Qwen2.5-7B-Instruct", "name: qwen-chat")
    assert {d.model.id.value for d in adapt(other).deployments} == {"/mnt/models/", "qwen-chat"}
    models = {d.model.id.value for d in adapt(text.replace("/mnt/models/ ", "/data/qwen ")).deployments}
    assert models == {"/data/qwen", "Qwen/Qwen2.5-7B-Instruct"}  # the decode half's path, the prefill's spec.model


def test_the_objects_of_an_openshift_template_are_read():
    # odh-model-controller ships its vLLM ServingRuntimes inside `kind: Template`
    text = """\
apiVersion: template.openshift.io/v1
kind: Template
metadata: {name: vllm-cuda-runtime-template}
objects:
  - apiVersion: serving.kserve.io/v1alpha1
    kind: ServingRuntime
    metadata: {name: vllm-cuda-runtime}
    spec:
      containers:
        - name: kserve-container
          image: $(vllm-cuda-image)
          command: [python, -m, vllm.entrypoints.openai.api_server]
          args:
            - --model=/mnt/models
            - --max-model-len=${MAX_MODEL_LEN}
parameters:
  - {name: MAX_MODEL_LEN, value: "8192"}
"""
    res = adapt(text)
    [dep] = res.deployments
    assert (dep.input_format, dep.engine.name.value, dep.display_name) == ("kserve", "vllm", "vllm-cuda-runtime")
    assert dep.roles[0].context_length is None  # a parameter OpenShift fills in: not guessed
    assert [d.kind for d in res.diagnostics] == ["unresolved-value"]  # not an engine refusal
    assert "--max-model-len ${MAX_MODEL_LEN} (an OpenShift Template parameter)" in res.diagnostics[0].message
    # the same Template as an item of a `kind: List` (as `oc get -o yaml` writes several): still a parameter
    listed = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        ("  - " if i == 0 else "    ") + line + "\n" for i, line in enumerate(text.splitlines()))
    res = adapt(listed)
    assert [d.kind for d in res.diagnostics] == ["unresolved-value"]
    assert res.diagnostics[0].source.path.startswith("items[0].objects[0].spec.containers[0].args[1]")
    # a `${NAME}` in a List's own ServingRuntime is what the engine receives: refused, as before
    runtime = text[text.index("  - apiVersion: serving"):text.index("parameters:")]
    plain = adapt("apiVersion: v1\nkind: List\nitems:\n" + runtime)
    assert [(d.kind, d.source.path) for d in plain.diagnostics] == [
        ("engine-rejects-value", "items[0].spec.containers[0].args[1]")]


def test_in_template_follows_list_and_template_steps_only():
    assert in_template("objects[0].spec.containers[0]") and in_template("items[3].objects[0].spec")
    assert in_template("items[0].items[1].objects[2].spec") and in_template("objects[0].objects[1].spec")
    assert not in_template("items[0].spec.containers[0]") and not in_template("spec.objects[0].containers[0]")
    assert not in_template("") and not in_template("spec.template.spec.containers[0]")


def test_kserve_huggingface_server_model_id_wins_and_the_last_flag_counts():
    # review: the server serves --model_id whenever it is given, and argparse keeps a flag's last value
    both = ISVC.replace("        - --max-model-len=1024\n", "        - --max-model-len=1024\n"
                        "        - --model_id=Qwen/Qwen3-8B\n")
    assert adapt(both).deployments[0].model.id.value == "Qwen/Qwen3-8B"
    last = ISVC.replace("        - --max-model-len=1024\n", "        - --max-model-len=1024\n        - --backend=vllm\n"
                        "        - --backend=huggingface\n")
    assert adapt(last).deployments == []


DGD_V1BETA1 = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: qwen3}
spec:
  backendFramework: vllm
  env: [{name: MAX_LEN, value: "32768"}]
  components:
    - name: Frontend
      type: frontend
      podTemplate:
        spec:
          containers: [{name: main, image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0, command: [python3, -m, dynamo.frontend]}]
    - name: prefill
      type: prefill
      replicas: 2
      podTemplate:
        spec:
          nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0
              command: [python3, -m, dynamo.vllm]
              args: [--model, Qwen/Qwen3-8B, --max-model-len, $(MAX_LEN)]
              resources: {limits: {nvidia.com/gpu: "1"}}
    - name: decode
      type: decode
      multinode: {nodeCount: 2}
      podTemplate:
        spec:
          containers:
            - name: sidecar
              image: busybox
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0
              command: [python3, -m, dynamo.vllm]
              args: [--model, Qwen/Qwen3-8B, --max-model-len, $(MAX_LEN), --tensor-parallel-size, "4"]
              resources: {limits: {nvidia.com/gpu: "2"}}
"""


def test_dynamo_v1beta1_components_are_read_like_services():
    # the v1beta1 API of the current recipes (deploy/operator/api/v1beta1): spec.components[] with a `type`,
    # `podTemplate.spec` whose `main` container runs the engine, the graph's `spec.env`
    [dep] = adapt(DGD_V1BETA1).deployments
    prefill, decode = sorted(dep.roles, key=lambda r: r.kind != "prefill")
    assert (prefill.kind, prefill.replicas.value, prefill.context_length.value, prefill.accelerators.type.value) == (
        "prefill", 2, 32768, "H100-SXM-80GB")
    assert at(DGD_V1BETA1, prefill.role.source) == "prefill"
    assert (decode.kind, decode.parallelism.tp, decode.accelerators.count.value) == ("decode", 4, 4)  # 2 nodes x 2


def test_dynamo_envs_beat_the_containers_env_from():
    # review: the operator merges spec.envs and the service's envs into the container's env, and a
    # container's env beats its envFrom (graph.go MergeEnvs; Kubernetes)
    text = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: engine}
data: {MAX_LEN: "4096"}
---
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: g}
spec:
  services:
    worker:
      envs: [{name: MAX_LEN, value: "32768"}]
      resources: {limits: {gpu: "1"}}
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.0
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-8B, --max-model-len, $(MAX_LEN)]
          envFrom: [{configMapRef: {name: engine}}]
"""
    [dep] = adapt(text).deployments
    assert dep.roles[0].context_length.value == 32768



DGD_ENV_REFS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: engine}
data: {LEN: "131072"}
---
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: g}
spec:
  services:
    from-env-from:
      resources: {limits: {gpu: "1"}}
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-8B, --max-model-len, $(MAX_LEN)]
          envFrom: [{configMapRef: {name: engine}}]
          env: [{name: MAX_LEN, value: "$(LEN)"}]
    envs-from-a-configmap:
      envs: [{name: MAX_LEN, valueFrom: {configMapKeyRef: {name: engine, key: LEN}}}]
      resources: {limits: {gpu: "1"}}
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-8B, --max-model-len, $(MAX_LEN)]
    refers-to-envs:
      envs: [{name: LEN, value: "8192"}]
      resources: {limits: {gpu: "1"}}
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-8B, --max-model-len, $(MAX_LEN)]
          env: [{name: MAX_LEN, value: "$(LEN)"}]
---
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: b}
spec:
  env: [{name: LEN, value: "16384"}]
  components:
  - name: worker
    type: worker
    podTemplate:
      spec:
        containers:
        - name: main
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-8B, --max-model-len, $(MAX_LEN)]
          env: [{name: MAX_LEN, value: "$(LEN)"}]
          resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_dynamo_container_env_refers_to_env_from_and_operator_env():
    # review of 93d56ef: Kubernetes expands a container env's $(NAME) from its envFrom (kubelet
    # makeEnvironmentVariables); a service's `envs` take ConfigMap references like any env; v1beta1's
    # spec.env may be referred to (its API doc); v1alpha1 envs' place in the list changed between
    # operator releases, so a reference to them is unknown, never kept as the literal "$(LEN)"
    contexts = {dep.name.value: dep.roles[0].context_length for dep in adapt(DGD_ENV_REFS).deployments}
    assert {name: ctx.value if ctx is not None else None for name, ctx in contexts.items()} == {
        "g/from-env-from": 131072, "g/envs-from-a-configmap": 131072, "g/refers-to-envs": None, "b/worker": 16384}
