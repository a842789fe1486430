"""Stacks (issue 12): gateway and catalog routes joined to the engines behind them, across files.

The real mismatches of ../shared/corpus/gateways are found at the gateway's line with the engine's
file and line in the message; the join evidence is in JSON; the incident as a LiteLLM + SGLang router +
P/D stack fails and its fixed form passes; unresolved backends are reported, never passed.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from conftest import REPO, SHARED
from helpers import run

from ctxlint.nodes import Node
from ctxlint.routes import service_of_host, upstream_name, url_host

GATEWAYS = SHARED / "corpus" / "gateways"
needs_corpus = pytest.mark.skipif(not GATEWAYS.is_dir(), reason="../shared/corpus/gateways is not beside the repo")
ACK = "PYTHON01100100__Serving-Large-Language-Models-at-Scale-Using-LiteLLM-and-vLLM-on-Alibaba-Cloud-ACK"


@pytest.fixture
def in_gateways(monkeypatch):
    monkeypatch.chdir(GATEWAYS)


def stack_lines(out: str, severity: str = "error"):
    return [line for line in out.splitlines() if ": CTX6" in line and f"[{severity}]" in line]


@needs_corpus
def test_every_gateway_corpus_folder_checks_without_a_traceback_and_only_the_known_stack_errors(in_gateways):
    errors = []
    for folder in sorted(p.name for p in Path(".").iterdir() if p.is_dir()):
        result = run(["check", folder, "--fail-on", "never"])
        assert result.code == 0 and "internal error" not in result.err, (folder, result.err)
        errors += [line.split(" [error] ")[0] for line in stack_lines(result.out)]
    assert errors == [
        f"{ACK}/k8s__litellm-config.yaml:38:27: CTX601",  # Llama-3.1-8B: context_window 6,144 > 4,096
        f"{ACK}/k8s__litellm-config.yaml:48:27: CTX601",  # Qwen3-30B-A3B: 6,144 > 4,096
        "drai-inn__kong-vllm-demo/kong-ai-proxy-vllm-gptoss-chat-completions.yaml:12:11: CTX606",
        "mostlygeek__llama-swap/config.example.yaml:455:16: CTX601",  # capabilities.context 32,000 > 16,384
    ]


@needs_corpus
def test_litellm_window_above_vllm_context_names_both_files(in_gateways):
    out = run(["check", ACK, "--select", "CTX601"]).out.splitlines()
    assert out[0] == (
        f"{ACK}/k8s__litellm-config.yaml:38:27: CTX601 [error] 6,144 > 4,096: the LiteLLM route Llama-3.1-8B-Instruct "
        "advertises a window of 6,144, but the vllm llama-3-1-8b-instruct "
        f"({ACK}/k8s__Llama-3.1-8B-Instruct.yaml:41:30), whose context is 4,096: requests of 4,097 to 6,144 tokens "
        "are refused. Lower the advertised window to 4,096 or raise the engine's context length to 6,144 (if its KV "
        "pool holds it) (route-window-exceeds-engine-context)")


@needs_corpus
def test_join_evidence_is_in_json(in_gateways):
    findings = json.loads(run(["check", ACK, "--select", "CTX601", "--format", "json"]).out)["findings"]
    assert findings[0]["evidence"] == [
        f"host llama-3-1-8b-instruct -> Service llama-3-1-8b-instruct ({ACK}/k8s__Llama-3.1-8B-Instruct.yaml:93) "
        f"selects app=llama-3-1-8b-instruct -> kubernetes llama-3-1-8b-instruct ({ACK}/k8s__Llama-3.1-8B-Instruct.yaml:1)"]


@needs_corpus
def test_llama_swap_advertised_context_above_its_own_ctx_size(in_gateways):
    line = run(["check", "mostlygeek__llama-swap", "--select", "CTX601"]).out.splitlines()[0]
    assert line.startswith("mostlygeek__llama-swap/config.example.yaml:455:16: CTX601 [error] 32,000 > 16,384: the "
                           "llama-swap route gpt-oss-120b advertises a window of 32,000, but the llamacpp gpt-oss-120b "
                           "(mostlygeek__llama-swap/config.example.yaml:248:22), whose context is 16,384")


@needs_corpus
def test_kong_model_name_no_engine_serves_and_a_plugin_nothing_attaches(in_gateways):
    out = run(["check", "drai-inn__kong-vllm-demo", "--select", "CTX606,CTX607"]).out
    assert ("kong-ai-proxy-vllm-gptoss-chat-completions.yaml:12:11: CTX606 [error] the Kong ai-proxy route "
            "Qwen3.5-35B-A3B sends the model name 'Qwen3.5-35B-A3B' upstream, which the engine behind it does not "
            "serve: vllm-gptoss (drai-inn__kong-vllm-demo/vllm-gptoss-service.yaml:15) serves gpt-oss-20b.") in out
    assert ("kong-ai-proxy-vllm-gptoss-chat-completions.yaml:1:1: CTX607 [info] the Kong ai-proxy route "
            "Qwen3.5-35B-A3B (ai-proxy-vllm-gptoss) is attached to no Ingress or Service") in out


@needs_corpus
def test_os_environ_backend_is_followed_through_the_proxy_containers_environment(in_gateways):
    result = run(["check", "BaSeLab-Local-LLM__llm-root", "--format", "json"])
    stack = [f for f in json.loads(result.out)["findings"] if f["rule"].startswith("CTX6")]
    assert stack == []  # joined (no CTX607) and consistent; the model name is os.environ/: not compared


@needs_corpus
def test_a_gateway_file_named_alone_is_joined_with_its_siblings_as_pre_commit_passes_it(in_gateways):
    # pre-commit passes only the staged gateway file: its engines are read from the directory as context.
    result = run(["check", f"{ACK}/k8s__litellm-config.yaml"])
    assert [line.split(" [")[0] for line in result.out.splitlines()] == [
        f"{ACK}/k8s__litellm-config.yaml:38:27: CTX601", f"{ACK}/k8s__litellm-config.yaml:48:27: CTX601"]
    assert result.err.endswith("in 1 file, 0 deployments\n")  # the siblings are context, not reported


@needs_corpus
def test_one_inference_pool_over_two_engine_definitions_with_different_windows(in_gateways):
    # production-stack: a Deployment (no --max-model-len: the 131,072 default) and a VLLMRuntime
    # (maxModelLen 4096, pods labelled app=<name> by the operator) behind one InferencePool.
    out = run(["check", "vllm-project__production-stack", "--select", "CTX608"]).out.splitlines()
    assert [line.split(": the")[0] for line in out] == [
        "vllm-project__production-stack/src__gateway_inference_extension__configs__inferencemodel.yaml:6:14: "
        "CTX608 [warning] 131,072 != 4,096",
        "vllm-project__production-stack/src__gateway_inference_extension__configs__inferencemodel.yaml:19:14: "
        "CTX608 [warning] 131,072 != 4,096"]
    assert "src__gateway_inference_extension__configs__vllm__vllm-runtime.yaml" in out[0]


@needs_corpus
def test_public_providers_are_not_reported_as_unverified(in_gateways):
    out = run(["check", "vllm-project__semantic-router/config__recipes__accuracy__config.yaml",
               "--select", "CTX607"]).out
    assert "qwen-coordinator" in out and "gpt55-worker" not in out and "opus48-worker" not in out


def test_incident_stack_fails_at_the_gateway_and_the_engine(in_repo):
    result = run(["check", "samples/stack-incident"])
    assert result.code == 1
    first = result.out.splitlines()[0]
    assert first.startswith("samples/stack-incident/litellm-config.yaml:16:29: CTX602 [error] security "
                            "(CTXA-2026-001): 1,048,576 > 681,280: the LiteLLM route scout-long lets prompts up to "
                            "1,048,576 tokens")
    # the prefill's --max-total-tokens caps the pool its 8 H200s would hold: the flag is the value to change
    assert ("(samples/stack-incident/prefill.yaml:20:39), which holds 681,280 (derived for "
            "meta-llama/Llama-4-Scout-17B-16E-Instruct on 8x H200") in first
    assert "capped at 681,280 tokens by --max-total-tokens" in first
    evidence = json.loads(run(["check", "samples/stack-incident", "--format", "json"]).out)["findings"][0]["evidence"]
    assert evidence[0].startswith("host scout-router -> Service scout-router (samples/stack-incident/router.yaml:22) "
                                  "selects app=scout-router -> SGLang router scout-router")


def test_incident_stack_fixed_passes(in_repo):
    result = run(["check", "samples/stack-incident-fixed"])
    assert (result.code, result.out) == (0, "")


def test_an_unresolvable_backend_is_reported_not_passed(tmp_path):
    (tmp_path / "litellm.yaml").write_text(
        "model_list:\n  - model_name: big\n    litellm_params: {model: openai/big, api_base: http://10.0.0.7:8000/v1}\n"
        "    model_info: {context_window: 1048576}\n")
    result = run(["check", str(tmp_path), "--fail-on", "info"])
    assert result.code == 1
    assert "CTX607 [info] cannot verify the LiteLLM route big: the backend http://10.0.0.7:8000/v1" in result.out


def test_a_name_shared_by_two_engines_joins_neither(tmp_path):
    engine = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  template:\n    spec:\n"
              "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"
              "          args: [--model, m, --served-model-name, big, --max-model-len, \"4096\"]\n")
    (tmp_path / "a.yaml").write_text(engine.format(name="a") + "---\n" + engine.format(name="b"))
    (tmp_path / "litellm.yaml").write_text(
        "model_list:\n  - model_name: big\n    litellm_params: {model: openai/big, api_base: os.environ/BIG}\n"
        "    model_info: {context_window: 8192}\n")
    out = run(["check", str(tmp_path), "--select", "CTX6", "--fail-on", "never"]).out
    assert "CTX601" not in out and "CTX607 [info] cannot verify the LiteLLM route big" in out


@pytest.mark.parametrize("host, service", [
    ("qwen", "qwen"), ("qwen.ns", "qwen"), ("qwen.ns.svc.cluster.local", "qwen"), ("qwen.ns.svc", "qwen"),
    ("10.0.0.7", None), ("localhost", None), ("api.openai.com", None), ("", None),
])
def test_service_of_host(host, service):
    assert service_of_host(host) == service


def test_upstream_names_and_url_hosts():
    assert upstream_name("hosted_vllm/meta-llama/Llama-3.1-8B-Instruct") == "meta-llama/Llama-3.1-8B-Instruct"
    assert upstream_name("openai/gpt-oss-20b") == "gpt-oss-20b"
    assert upstream_name("meta-llama/Llama-3.1-8B-Instruct") == "meta-llama/Llama-3.1-8B-Instruct"
    assert url_host("http://vllm:8000/v1") == ("vllm", 8000)
    assert url_host("127.0.0.1:8003") == ("127.0.0.1", 8003)
    assert url_host("http://[::1") == ("", None)


def test_audit_shows_the_stack_view_route_to_engine_roles_to_pools(in_repo):
    data = json.loads(run(["audit", "samples/stack-incident", "--format", "json"]).out)
    (stack,) = data["stacks"]
    assert (stack["gateway"], stack["route"], stack["promise"], stack["worst"]["rule"]) == \
        ("LiteLLM", "scout-long", 1048576, "CTX602")
    assert [(e["role"], e["context"], e["pool"], e["pool_origin"]) for e in stack["engines"]] == [
        ("prefill", 1048576, 681280, "derived"), ("decode", 1048576, 2040000, "derived")]  # capped by the flags
    table = run(["audit", "samples/stack-incident"]).out
    assert "stacks (gateway route -> engine roles -> pools):" in table
    assert "stacks" not in json.loads(run(["audit", "samples/incident", "--format", "json"]).out)


def test_a_file_that_holds_a_gateway_and_its_engines_is_one_stack(tmp_path):
    # Two self-contained stacks in one directory, with the same Service and workload names (two
    # namespaces, or a bad and a good variant): each route joins the engine of its own file.
    bad = (REPO / "samples/rules/CTX601-route-window-exceeds-engine-context/bad.yaml").read_text()
    good = (REPO / "samples/rules/CTX601-route-window-exceeds-engine-context/good.yaml").read_text()
    (tmp_path / "a.yaml").write_text(good)
    (tmp_path / "b.yaml").write_text(bad.replace('"16384"', '"65536"'))  # b's own engine takes 65,536
    out = run(["check", str(tmp_path), "--select", "CTX6"]).out
    assert out == "", out  # b's 32,768 fits its own engine; a's engine (16,384) is not b's


def test_wrong_types_in_gateway_limits_are_located_findings_not_silence(tmp_path):
    (tmp_path / "litellm.yaml").write_text(
        "model_list:\n  - model_name: b\n    litellm_params: {model: openai/b, api_base: http://b:8000/v1, max_tokens: -3}\n"
        "    model_info: {context_window: abc, max_input_tokens: 8192}\n")
    (tmp_path / "swap.yaml").write_text(
        "models:\n  m:\n    cmd: llama-server -m m.gguf --ctx-size 4096\n    capabilities: {context: 0}\n")
    out = run(["check", str(tmp_path), "--select", "CTX005"]).out.replace(str(tmp_path) + "/", "")
    assert out.splitlines() == [
        "litellm.yaml:3:79: CTX005 [error] model_list[0].litellm_params.max_tokens: -3 is not a whole, positive "
        "token count; the gateway's limit is ignored by the checks (invalid-token-count)",
        "litellm.yaml:4:34: CTX005 [error] model_list[0].model_info.context_window: 'abc' is not a whole, positive "
        "token count; the gateway's limit is ignored by the checks (invalid-token-count)",
    ]  # llama-swap's context: 0 means "not configured": no finding


@st.composite
def _command_texts(draw):
    """A marker written in pieces, each raw, '-quoted, "-quoted or backslash-escaped, amid other text."""
    from ctxlint.adapters.gw_routers import MARKERS

    marker = draw(st.sampled_from(MARKERS + ("sglang",)))
    cuts = sorted(draw(st.sets(st.integers(1, len(marker) - 1), max_size=4)))
    pieces = [marker[a:b] for a, b in zip([0, *cuts], [*cuts, len(marker)])]
    styles = {"raw": "{}".format, "single": "'{}'".format, "double": '"{}"'.format,
              "escaped": lambda p: "".join("\\" + c for c in p)}
    written = "".join(styles[draw(st.sampled_from(sorted(styles)))](p) for p in pieces)
    around = st.text(alphabet=st.sampled_from(list("'\"\\ =-_.xs")), max_size=4)
    return draw(around) + written + draw(around)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_command_texts(), min_size=1, max_size=3))
def test_a_router_marker_in_a_word_is_never_missed_by_the_cheap_test(texts):
    # gw_routers looks for its markers in the texts, quotes and backslashes dropped, before splitting
    # them with shlex: whatever shlex makes of a text, a marker in a word must pass that test.
    import shlex

    from ctxlint.adapters.gw_routers import MARKERS, _marked
    from ctxlint.nodes import MAP, SCALAR, SEQ

    def node(kind, value):
        n = object.__new__(Node)
        n.kind, n.value = kind, value
        return n
    container = node(MAP, {"args": node(SEQ, [node(SCALAR, t) for t in texts])})
    found = False
    for text in texts:
        try:
            words = shlex.split(text) if " " in text.strip() else [text]
        except ValueError:
            words = text.split()
        found = found or any(m in w for w in words for m in MARKERS)
    assert not found or _marked(container)
    event("a marker in a word" if found else "no marker in any word")


@pytest.mark.parametrize("alias, upstream", [
    ("gpt-4o-mini", "gpt-4o-mini"),
    ("gpt-4o-mini,main", "main"),  # builds that take several aliases, comma-separated
    ("gpt-4o-mini,main", "gpt-4o-mini,main"),  # older builds: the string whole
    ("gpt-4o-mini", "gemma"),  # a llama-server with one model ignores the name (test_route_model_refusal.py)
])
def test_llama_server_alias_is_the_name_it_serves(tmp_path, alias, upstream):
    # thr3a/llama-cpp-docker-compose@d25464c5222c704e142db7d431812c8099b34441:docker-compose.yml +
    # litellm_config.yaml: llama-server `-a gpt-4o-mini` behind a LiteLLM route `openai/gpt-4o-mini`. Before, a
    # false CTX606 [error]: "... serves /root/.cache/llama.cpp/gemma-4-31B-it-Q4_K_M.gguf. Requests get HTTP 404".
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n  main:\n    image: ghcr.io/ggml-org/llama.cpp:server-cuda\n"
        f"    command: --host 0.0.0.0 --port 8000 --model /models/gemma.gguf --ctx-size 4096 -a {alias}\n")
    (tmp_path / "litellm_config.yaml").write_text(
        f"model_list:\n  - model_name: main\n"
        f"    litellm_params: {{model: openai/{upstream}, api_base: http://main:8000}}\n")
    out = run(["check", str(tmp_path), "--select", "CTX606", "--fail-on", "never"]).out
    assert out == "", out


# Sweep 32, rrumana/k8s-homelab-2@3e8775d5:cluster/apps/ai/llama-backend: a LiteLLM route to a Service whose selector
# matches a Deployment in the same directory that runs llama-swap (its models in a ConfigMap beside it), which ctxlint
# reads no engine from. The message said no workload there had the labels; one has, and it is not an engine.
LLAMA_SWAP_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-swap}
spec:
  selector: {matchLabels: {app: llama-swap}}
  template:
    metadata: {labels: {app: llama-swap}}
    spec:
      containers:
        - name: llama-swap
          image: ghcr.io/mostlygeek/llama-swap:v174-vulkan
          args: [--config, /config/config.yaml]
          resources: {limits: {amd.com/gpu: "1"}}
---
apiVersion: v1
kind: Service
metadata: {name: llama-swap}
spec:
  selector: {app: llama-swap}
  ports: [{port: 8000}]
"""


def test_a_service_over_a_pod_that_runs_no_engine_is_said_so(tmp_path):
    (tmp_path / "llama-swap.yaml").write_text(LLAMA_SWAP_POD)
    (tmp_path / "litellm.yaml").write_text(
        "model_list:\n  - model_name: gpt-oss-20b\n    litellm_params: {model: openai/gpt-oss-20b, "
        "api_base: http://llama-swap.ai.svc.cluster.local:8000/v1}\n")
    out = run(["check", str(tmp_path), "--select", "CTX607", "--fail-on", "never"]).out
    assert ("Service llama-swap (" in out and "selects app=llama-swap, which no engine workload in the checked files "
            "of its directory (routes are not followed into another directory) has (a pod that starts no engine "
            "ctxlint reads, such as llama-swap or a server of its own, is none)" in out)


# A KServe InferenceService is an engine workload ctxlint reads; KServe names its predictor's Service `<name>-predictor`
# and labels its pods `serving.kserve.io/inferenceservice: <name>` and `component: predictor`
# (kserve/kserve@aaac4e29:pkg/constants/constants.go PredictorServiceName, InferenceServicePodLabelKey;
# pkg/controller/v1beta1/inferenceservice/components/predictor.go buildObjectMeta). CTX607 said no Service or engine
# workload there had that name or those labels; the route now joins the engine.
KSERVE_ISVC = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: qwen, labels: {team: ml}}
spec:
  predictor:
    model:
      modelFormat: {name: huggingface}
      args: [--model_name=qwen, --model_id=Qwen/Qwen2.5-7B-Instruct, --backend=vllm, --max-model-len=8192]
      resources: {limits: {nvidia.com/gpu: "1"}}
---
apiVersion: v1
kind: Service
metadata: {name: qwen-direct}
spec:
  selector: {serving.kserve.io/inferenceservice: qwen, team: ml}
  ports: [{port: 8080}]
"""


@pytest.mark.parametrize("host", ["qwen-predictor.default.svc.cluster.local", "qwen-predictor", "qwen-direct:8080"])
def test_a_route_to_a_kserve_predictor_joins_its_engine(tmp_path, host):
    (tmp_path / "isvc.yaml").write_text(KSERVE_ISVC)
    (tmp_path / "litellm.yaml").write_text(
        "model_list:\n  - model_name: qwen\n    litellm_params: {model: openai/gpt-4, "
        f"api_base: http://{host}/openai/v1}}\n")
    out = run(["check", str(tmp_path), "--select", "CTX606,CTX607", "--fail-on", "never"]).out
    assert "CTX607" not in out and "CTX606" in out and "qwen" in out, out


# KServe's Hugging Face server serves its vLLM model under `--model_name`, which KServe's runtime sets to the
# service's name (kserve/kserve@aaac4e29: config/runtimes/kserve-huggingfaceserver.yaml `--model_name={{.Name}}`;
# python/huggingfaceserver/huggingfaceserver/__main__.py, where `--served-model-name` replaces it), not the
# repository id: a route sending the service's name was a false CTX606.
@pytest.mark.parametrize("args, served, not_served", [
    ("[--model_id=Qwen/Qwen2.5-7B-Instruct, --backend=vllm]", "qwen", "Qwen/Qwen2.5-7B-Instruct"),
    ("[--model_name=chat, --model_id=Qwen/Qwen2.5-7B-Instruct]", "chat", "qwen"),
    ("[--model_id=Qwen/Qwen2.5-7B-Instruct, --served-model-name=q7]", "q7", "qwen"),
])
def test_the_kserve_hugging_face_server_serves_its_model_name(tmp_path, args, served, not_served):
    (tmp_path / "isvc.yaml").write_text(
        "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: qwen}\nspec:\n  predictor:\n"
        f"    model:\n      modelFormat: {{name: huggingface}}\n      args: {args}\n"
        "      resources: {limits: {nvidia.com/gpu: \"1\"}}\n")
    for name, bad in ((served, False), (not_served, True)):
        (tmp_path / "litellm.yaml").write_text(
            f"model_list:\n  - model_name: m\n    litellm_params: {{model: openai/{name}, "
            "api_base: http://qwen.default.svc.cluster.local/openai/v1}\n")
        out = run(["check", str(tmp_path), "--select", "CTX606,CTX607", "--fail-on", "never"]).out
        assert ("CTX606" in out) is bad and "CTX607" not in out, (name, out)


# vLLM's LeaderWorkerSet example (docs/deployment/frameworks/lws.md): Service vllm-leader selects
# `leaderworkerset.sigs.k8s.io/name: vllm` and `role: leader`. LWS labels each pod with the set's name and the leader
# with worker-index 0 (kubernetes-sigs/lws@060ab4da: api/leaderworkerset/v1/leaderworkerset_types.go SetNameLabelKey,
# WorkerIndexLabelKey; pkg/controllers/leaderworkerset_controller.go selects leaders by the two). CTX607 said no
# engine workload had those labels, though the leader runs vLLM.
LWS_VLLM = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: vllm}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      metadata: {labels: {role: leader}}
      spec:
        containers:
          - name: vllm-leader
            image: vllm/vllm-openai:v0.8.5
            command: ["sh", "-c", "python3 -m vllm.entrypoints.openai.api_server --port 8080 --model Qwen/Qwen2.5-72B-Instruct --tensor-parallel-size 8 --pipeline_parallel_size 2"]
            resources: {limits: {nvidia.com/gpu: "8"}}
    workerTemplate:
      spec:
        containers:
          - name: vllm-worker
            image: vllm/vllm-openai:v0.8.5
            command: ["sh", "-c", "ray start --block --address=$(LWS_LEADER_ADDRESS):6379"]
            resources: {limits: {nvidia.com/gpu: "8"}}
---
apiVersion: v1
kind: Service
metadata: {name: vllm-leader}
spec:
  selector: {leaderworkerset.sigs.k8s.io/name: vllm, role: leader}
  ports: [{port: 8080}]
"""


@pytest.mark.parametrize("selector", ["{leaderworkerset.sigs.k8s.io/name: vllm, role: leader}",
                                      "{leaderworkerset.sigs.k8s.io/name: vllm, leaderworkerset.sigs.k8s.io/worker-index: '0'}"])
def test_a_service_over_a_leader_worker_set_joins_its_leader(tmp_path, selector):
    (tmp_path / "lws.yaml").write_text(LWS_VLLM.replace("{leaderworkerset.sigs.k8s.io/name: vllm, role: leader}",
                                                        selector))
    (tmp_path / "litellm.yaml").write_text(
        "model_list:\n  - model_name: m\n    litellm_params: {model: openai/gpt-4, api_base: http://vllm-leader:8080/v1}\n")
    out = run(["check", str(tmp_path), "--select", "CTX606,CTX607", "--fail-on", "never"]).out
    assert "CTX607" not in out and "CTX606" in out, out
