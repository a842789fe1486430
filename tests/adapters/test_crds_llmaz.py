"""llmaz Playground + OpenModel (crds_llmaz): the engine, model, GPUs and settings llmaz runs, each at its token.

The fixtures are hand-written in the shape of llmaz's own examples (InftyAI/llmaz@3c13ff343e28cdbe842fd3c659e3daf0d1e27e91:
docs/examples/sglang/playground.yaml, envoy-ai-gateway/basic-vllm.yaml, speculative-decoding/vllm/playground.yaml,
runai-streamer/playground-streaming-from-s3.yaml), which ctxlint read as no deployment before.
"""
from __future__ import annotations

from tests.adapters.kit import adapt, at

PLAYGROUND = """\
apiVersion: llmaz.io/v1alpha1
kind: OpenModel
metadata:
  name: qwen3-8b
spec:
  familyName: qwen3
  source:
    modelHub:
      modelID: Qwen/Qwen3-8B
  inferenceConfig:
    flavors:
      - name: a100
        limits:
          nvidia.com/gpu: 2
        nodeSelector:
          nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
      - name: l4
        limits:
          nvidia.com/gpu: 4
---
apiVersion: inference.llmaz.io/v1alpha1
kind: Playground
metadata:
  name: qwen3-8b
spec:
  replicas: 3
  modelClaim:
    modelName: qwen3-8b
  backendRuntimeConfig:
    version: v0.8.5
    args:
      - --max-model-len
      - "16384"
      - --tensor-parallel-size
      - "2"
"""


def test_playground_runs_the_default_vllm_backend_on_the_claimed_models_first_flavor():
    # the claim names the a100 flavor alone: the scheduler may place the pod on its nodes only
    text = PLAYGROUND.replace("    modelName: qwen3-8b\n", "    modelName: qwen3-8b\n    inferenceFlavors: [a100]\n")
    res = adapt(text)
    [dep] = res.deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value) == ("llmaz", "qwen3-8b", "vllm")
    assert dep.engine.version.value == "0.8.5" and at(text, dep.engine.version.source) == "v0.8.5"
    assert dep.model.id.value == "Qwen/Qwen3-8B" and at(text, dep.model.id.source) == "Qwen/Qwen3-8B"
    ctx = role.context_length
    assert (ctx.value, at(text, ctx.source)) == (16384, "16384")
    assert role.parallelism.tp == 2
    acc = role.accelerators
    assert (acc.type.value, acc.count.value) == ("A100-SXM4-80GB", 2)
    assert at(text, acc.count.source) == "2" and acc.count.source.line == 14
    assert at(text, acc.type.source) == "NVIDIA-A100-SXM4-80GB" and acc.type.source.line == 16
    assert role.replicas.value == 3 and at(text, role.replicas.source) == "3"
    assert not res.diagnostics


def test_the_device_is_named_only_when_every_flavor_the_scheduler_may_pick_names_it():
    # InftyAI/scheduler-plugins@685a4d9f resource_fungibility.go: the pod may land on the nodes of any candidate
    # flavor (the claim's inferenceFlavors, else all the model's), and on any node once one has no nodeSelector
    def device(text):
        [dep] = adapt(text).deployments
        acc = dep.roles[0].accelerators
        assert acc.count.value == 2  # the GPUs are still the first flavor's
        return acc.type.value if acc.type is not None else None

    assert device(PLAYGROUND) is None  # the l4 flavor selects no node: any node
    l4 = PLAYGROUND.replace("          nvidia.com/gpu: 4\n",
                            "          nvidia.com/gpu: 4\n        nodeSelector:\n          nvidia.com/gpu.product: NVIDIA-L4\n")
    assert device(l4) is None  # A100 first, L4 when no A100 node is free
    same = l4.replace("NVIDIA-L4", "NVIDIA-A100-SXM4-80GB")
    assert device(same) == "A100-SXM4-80GB"
    both = PLAYGROUND.replace("    modelName: qwen3-8b\n", "    modelName: qwen3-8b\n    inferenceFlavors: [a100, l4]\n")
    assert device(both) is None
    missing = PLAYGROUND.replace("    modelName: qwen3-8b\n", "    modelName: qwen3-8b\n    inferenceFlavors: [a100, h100]\n")
    assert device(missing) is None


def test_claims_inference_flavor_picks_the_flavor_and_sglang_backend_reads_its_own_flags():
    text = (PLAYGROUND.replace("    modelName: qwen3-8b\n", "    modelName: qwen3-8b\n    inferenceFlavors: [l4]\n")
            .replace("    version: v0.8.5\n", "    backendName: sglang\n")
            .replace("--max-model-len", "--context-length").replace("--tensor-parallel-size", "--tp"))
    [dep] = adapt(text).deployments
    [role] = dep.roles
    assert dep.engine.name.value == "sglang" and at(text, dep.engine.name.source) == "sglang"
    assert dep.engine.version is None  # the chart's image tag is not in the file
    assert role.context_length.value == 16384 and role.parallelism.tp == 2
    assert role.accelerators.count.value == 4 and role.accelerators.type is None  # the l4 flavor selects no node


def test_a_draft_model_claim_runs_a_config_whose_args_are_not_in_the_file():
    text = PLAYGROUND.replace("  modelClaim:\n    modelName: qwen3-8b\n", (
        "  modelClaims:\n    models:\n    - name: qwen3-8b\n      role: main\n    - name: qwen3-0-6b\n"
        "      role: draft\n"))
    res = adapt(text)
    assert not res.deployments
    [diag] = res.diagnostics
    assert diag.kind == "unresolved-value" and "recommended config speculative-decoding" in diag.message
    assert at(text, diag.source) == "draft" and diag.source.line == 32  # the claim the config is inferred from


def test_an_open_model_in_another_file_leaves_model_and_gpus_unknown_and_says_so():
    text = PLAYGROUND.split("---\n")[1]
    res = adapt(text)
    [dep] = res.deployments
    [role] = dep.roles
    assert dep.model.id is None and role.accelerators.count is None
    [diag] = [d for d in res.diagnostics if "OpenModel qwen3-8b" in d.message]
    assert at(text, diag.source) == "qwen3-8b" and diag.source.line == 8


def test_backends_whose_chart_configs_are_not_read_and_bad_shapes_yield_nothing():
    assert not adapt(PLAYGROUND.replace("    version: v0.8.5\n", "    backendName: llamacpp\n")).deployments
    for bad in ("spec: []\n", "spec:\n  modelClaim: 3\n  backendRuntimeConfig: [x]\n"):
        text = "apiVersion: inference.llmaz.io/v1alpha1\nkind: Playground\nmetadata:\n  name: p\n" + bad
        res = adapt(text)
        assert all(d.kind == "unresolved-value" for d in res.diagnostics)


def test_ctxlint_annotations_on_the_playground_state_the_promise_and_the_logged_pool():
    text = PLAYGROUND.replace("  name: qwen3-8b\nspec:\n  replicas", (
        "  name: qwen3-8b\n  annotations:\n    ctxlint.io/context-window: \"32768\"\n"
        "    ctxlint.io/kv-pool-tokens: \"250000\"\nspec:\n  replicas"))
    [dep] = adapt(text).deployments
    assert dep.advertised.context_window.value == 32768
    assert at(text, dep.advertised.context_window.source) == '"32768"'
    pool = dep.roles[0].kv_pool_tokens
    assert pool.value == 250000 and at(text, pool.source) == '"250000"'


def test_without_flavors_the_gpus_are_the_playgrounds_backend_resources():
    # llmaz's runai-streamer example states `nvidia.com/gpu` under backendRuntimeConfig.resources; a flavor's
    # limits would overwrite them, and here the OpenModel has none
    text = PLAYGROUND.replace(PLAYGROUND[PLAYGROUND.index("  inferenceConfig:"):PLAYGROUND.index("---")], "") \
        .replace("    args:\n", "    resources:\n      limits:\n        nvidia.com/gpu: \"2\"\n    args:\n")
    [dep] = adapt(text).deployments
    [role] = dep.roles
    assert role.accelerators.count.value == 2 and at(text, role.accelerators.count.source) == '"2"'
    flavored = PLAYGROUND.replace("    args:\n", "    resources:\n      limits:\n        nvidia.com/gpu: \"8\"\n    args:\n")
    [dep] = adapt(flavored).deployments
    assert dep.roles[0].accelerators.count.value == 2  # the flavor's limit wins


def test_a_config_name_that_is_no_name_is_said_so_and_malformed_fields_do_not_crash():
    text = PLAYGROUND.replace("    version: v0.8.5\n", "    configName: [x]\n")
    res = adapt(text)
    assert not res.deployments
    [diag] = res.diagnostics
    assert "(configName is not a name)" in diag.message and at(text, diag.source) == "[x]"
    broken = PLAYGROUND.replace("modelID: Qwen/Qwen3-8B", "modelID: [x]").replace("nvidia.com/gpu: 2", "nvidia.com/gpu: x") \
        .replace("  replicas: 3\n", "  replicas: many\n")
    [dep] = adapt(broken).deployments
    assert dep.model.id is None and dep.roles[0].accelerators.count is None


def test_the_engine_serves_the_open_models_name_and_the_playgrounds_own_name_wins():
    # the chart's default config passes `--served-model-name {{ .ModelName }}`, the OpenModel's name
    [dep] = adapt(PLAYGROUND).deployments
    served = dep.roles[0].arg("served_model_name")
    assert served.value == ["qwen3-8b"] and at(PLAYGROUND, served.source) == "qwen3-8b" and served.source.line == 28
    text = PLAYGROUND.replace("    args:\n", "    args:\n      - --served-model-name\n      - chat\n")
    [dep] = adapt(text).deployments
    assert dep.roles[0].arg("served_model_name").value == ["chat"]


ROUTE = """\
---
apiVersion: aigateway.envoyproxy.io/v1alpha1
kind: AIGatewayRoute
metadata:
  name: gw
spec:
  rules:
    - matches:
        - headers:
            - {type: Exact, name: x-ai-eg-model, value: MODEL}
      backendRefs:
        - name: qwen3-8b
---
apiVersion: aigateway.envoyproxy.io/v1alpha1
kind: AIServiceBackend
metadata:
  name: qwen3-8b
spec:
  schema: {name: OpenAI}
  backendRef: {name: qwen3-8b-lb, kind: Service, port: 8080}
"""


def test_a_gateway_route_to_the_lb_service_llmaz_creates_reaches_the_playground(tmp_path):
    # llmaz's docs/examples/envoy-ai-gateway/basic-vllm.yaml routes to `<playground>-lb`, the Service llmaz creates
    # (service_controller.go CreateServiceIfNotExists): it was CTX607 (names no Service or workload)
    from tests.helpers import run
    (tmp_path / "stack.yaml").write_text(PLAYGROUND + ROUTE.replace("MODEL", "qwen3-8b"))
    out = run(["check", "--isolated", str(tmp_path)]).out
    assert "CTX607" not in out and "CTX606" not in out
    (tmp_path / "stack.yaml").write_text(PLAYGROUND + ROUTE.replace("MODEL", "Qwen/Qwen3-8B"))
    out = run(["check", "--isolated", str(tmp_path)]).out
    assert "CTX606" in out and "sends the model name 'Qwen/Qwen3-8B' upstream" in out and "serves qwen3-8b." in out


def test_a_mig_slice_the_flavor_or_the_playground_asks_for_is_the_device():
    # the flavor's limits are the container's resources (injectModelFlavor): `nvidia.com/mig-3g.40gb` gives the
    # engine a 40 GB slice of the A100-80GB its nodes have, not the whole card
    text = PLAYGROUND.replace("    modelName: qwen3-8b\n", "    modelName: qwen3-8b\n    inferenceFlavors: [a100]\n") \
        .replace("          nvidia.com/gpu: 2\n        nodeSelector", "          nvidia.com/mig-3g.40gb: 1\n        nodeSelector")
    [dep] = adapt(text).deployments
    acc = dep.roles[0].accelerators
    assert (acc.type.value, acc.count.value) == ("A100-80GB-MIG-3g.40gb", 1)
    assert at(text, acc.type.source) == "nvidia.com/mig-3g.40gb"
    # no flavor: the Playground's backendRuntimeConfig.resources ask for the slice
    bare = PLAYGROUND.replace(PLAYGROUND[PLAYGROUND.index("  inferenceConfig:"):PLAYGROUND.index("---")], "") \
        .replace("    args:\n", "    resources:\n      limits:\n        nvidia.com/mig-1g.10gb: 1\n    args:\n")
    [dep] = adapt(bare).deployments
    acc = dep.roles[0].accelerators
    assert acc.count.value == 1 and acc.type is not None and "1g.10gb" in acc.type.value


LLMAZ_SERVICE = """\
apiVersion: inference.llmaz.io/v1alpha1
kind: Service
metadata:
  name: qwen3-8b
spec:
  modelClaims:
    models:
      - name: qwen3-8b
  replicas: 1
  workloadTemplate:
    size: 1
    workerTemplate:
      spec:
        containers:
          - name: model-runner
            image: vllm/vllm-openai:v0.8.5
            command: [python3, -m, vllm.entrypoints.openai.api_server]
            args: [--model, Qwen/Qwen3-8B, --served-model-name, qwen3-8b, --port, "8080"]
            resources:
              limits:
                nvidia.com/gpu: "1"
"""


def test_a_gateway_route_to_the_lb_service_of_an_llmaz_service_reaches_it(tmp_path):
    # llmaz's Service controller creates `<name>-lb` for every inference Service, one written by hand as well as a
    # Playground's (service_controller.go Reconcile -> CreateServiceIfNotExists); the Service is read as a pod template
    from tests.helpers import run
    (tmp_path / "stack.yaml").write_text(LLMAZ_SERVICE + ROUTE.replace("MODEL", "qwen3-8b"))
    out = run(["check", "--isolated", str(tmp_path)]).out
    assert "CTX607" not in out and "CTX606" not in out
    (tmp_path / "stack.yaml").write_text(LLMAZ_SERVICE + ROUTE.replace("MODEL", "Qwen/Qwen3-8B"))
    out = run(["check", "--isolated", str(tmp_path)]).out
    assert "CTX606" in out and "serves qwen3-8b." in out


def test_of_two_main_claims_the_engine_serves_the_last():
    # llmaz's fetchModels puts each main model first as it reads the claims, so the last is models[0], the model
    # and served name of the default config; its webhook lets two through (it counts models *named* "main")
    text = PLAYGROUND.replace("  modelClaim:\n    modelName: qwen3-8b\n", (
        "  modelClaims:\n    models:\n    - name: other\n    - name: qwen3-8b\n")).replace("  name: qwen3-8b\nspec:\n  familyName", (
        "  name: other\nspec:\n  familyName: x\n  source:\n    modelHub:\n      modelID: Qwen/Qwen3-0.6B\n---\n"
        "apiVersion: llmaz.io/v1alpha1\nkind: OpenModel\nmetadata:\n  name: qwen3-8b\nspec:\n  familyName"), 1)
    [dep] = adapt(text).deployments
    assert dep.model.id.value == "Qwen/Qwen3-8B" and dep.roles[0].arg("served_model_name").value == ["qwen3-8b"]
