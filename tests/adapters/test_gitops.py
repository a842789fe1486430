"""Flux HelmRelease and Argo CD Application: their inline chart values, read as a values file is;
bjw-s app-template values, read as the pods the chart renders."""
from __future__ import annotations

import textwrap

import pytest

from ctxlint.engine import lint_paths
from tests.adapters.kit import adapt, at

APP_TEMPLATE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: llm
spec:
  chartRef:
    kind: OCIRepository
    name: app-template
  values:
    controllers:
      vllm:
        replicas: 2
        containers:
          app:
            image:
              repository: vllm/vllm-openai
              tag: v0.8.5
            args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "131072"]
            env:
              HF_TOKEN:
                secretKeyRef: {name: hf, key: token}
              VLLM_LOGGING_LEVEL: DEBUG
            resources:
              limits:
                nvidia.com/gpu: 1
    defaultPodOptions:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-L4
"""


def _check(tmp_path, text: str, name: str = "release.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return lint_paths([str(path)])


def test_helmrelease_with_app_template_running_vllm(tmp_path):
    [dep] = adapt(APP_TEMPLATE).deployments
    assert (dep.input_format, dep.display_name) == ("flux-helmrelease", "llm/vllm")
    [role] = dep.roles
    ctx = role.context_length
    assert ctx.value == 131072 and at(APP_TEMPLATE, ctx.source) == '131072'
    assert ctx.source.path == "spec.values.controllers.vllm.containers.app.args[3]"
    assert role.replicas.value == 2 and role.accelerators.count.value == 1
    assert role.accelerators.type.value == "L4"
    assert dep.engine.version.value == "0.8.5" and at(APP_TEMPLATE, dep.engine.version.source) == "v0.8.5"
    report = _check(tmp_path, APP_TEMPLATE)
    [error] = [f for f in report.findings if f.severity == "error"]
    assert (error.rule, error.line, error.column) == ("CTX201", 18, 87)  # the 131072 does not fit one L4


def test_app_template_values_file_and_pod_options(tmp_path):
    values = """\
    defaultPodOptionsStrategy: overwrite
    defaultPodOptions:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
    controllers:
      small:
        pod:
          nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
        defaultContainerOptions:
          image: {repository: ghcr.io/ggml-org/llama.cpp, tag: server-cuda-b4500}
        containers:
          main:
            args: [--ctx-size, "8192"]
            env:
              - {name: LLAMA_ARG_N_PARALLEL, value: 2}
            resources: {limits: {nvidia.com/gpu: 1}}
      off:
        enabled: false
        containers:
          app: {image: {repository: vllm/vllm-openai, tag: v0.8.5}}
      web:
        containers:
          app: {image: {repository: ghcr.io/open-webui/open-webui, tag: main}}
    """
    [dep] = adapt(values, "values.yaml").deployments
    assert (dep.input_format, dep.display_name, dep.engine.name.value) == ("helm-values", "small", "llamacpp")
    [role] = dep.roles
    # LLAMA_ARG_N_PARALLEL, a number the chart renders as "2", splits the context
    assert (role.context_length.value, role.context_length.raw) == (4096, "8192 / --parallel 2")
    assert role.accelerators.type.value == "H100-SXM-80GB"  # the controller's pod option wins


def test_app_template_env_mapping_forms():
    text = """\
    controllers:
      tgi:
        containers:
          app:
            image: {repository: ghcr.io/huggingface/text-generation-inference, tag: "3.0.1"}
            env:
              MODEL_ID: meta-llama/Llama-3.1-8B-Instruct
              MAX_TOTAL_TOKENS: 16384
              MAX_INPUT_TOKENS: {value: 8192}
              HF_TOKEN: {valueFrom: {secretKeyRef: {name: hf, key: token}}}
    """
    [dep] = adapt(text, "values.yaml").deployments
    [role] = dep.roles
    assert role.context_length.value == 16384 and role.context_length.source.line == 8
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"


ARGO_OBJECT = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: stack
spec:
  sources:
    - repoURL: https://vllm-project.github.io/production-stack
      chart: vllm-stack
      helm:
        valuesObject:
          servingEngineSpec:
            modelSpec:
              - name: llama3
                repository: vllm/vllm-openai
                tag: v0.8.5
                modelURL: meta-llama/Llama-3.1-8B-Instruct
                requestGPU: 1
                vllmConfig:
                  maxModelLen: 32768
"""


def test_argo_values_object_of_a_chart_ctxlint_reads():
    [dep] = adapt(ARGO_OBJECT).deployments
    assert (dep.input_format, dep.display_name) == ("argocd-application", "stack/llama3")
    ctx = dep.roles[0].context_length
    assert ctx.value == 32768 and (ctx.source.line, ctx.source.col) == (19, 32)
    assert ctx.source.path == "spec.sources[0].helm.valuesObject.servingEngineSpec.modelSpec[0].vllmConfig.maxModelLen"


ARGO_STRING = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: stack
spec:
  source:
    repoURL: https://vllm-project.github.io/production-stack
    chart: vllm-stack
    helm:
      values: |
        servingEngineSpec:
          modelSpec:
            - name: llama3
              modelURL: meta-llama/Llama-3.1-8B-Instruct
              requestGPU: 1
              vllmConfig:
                maxModelLen: 32768
                extraArgs: ["--gpu-memory-utilization", "0.85"]
"""


def test_argo_values_string_keeps_exact_positions():
    [dep] = adapt(ARGO_STRING).deployments
    [role] = dep.roles
    ctx = role.context_length
    assert (ctx.source.line, ctx.source.col) == (17, 30) and at(ARGO_STRING, ctx.source) == "32768"
    assert ctx.source.path == "spec.source.helm.values:servingEngineSpec.modelSpec[0].vllmConfig.maxModelLen"
    assert at(ARGO_STRING, role.arg("gpu_memory_utilization").source) == "0.85"
    assert dep.model.id.source.line == 14


def test_argo_values_string_with_a_trailing_or_second_document():
    # review: a trailing `---` made the string two documents and the release was skipped without a word
    [dep] = adapt(ARGO_STRING + "        ---\n").deployments
    assert dep.roles[0].context_length.value == 32768
    result = adapt(ARGO_STRING + "        ---\n        other: 1\n")
    [dep] = result.deployments  # Helm's YAML reader decodes the first document: only that one is read
    assert dep.roles[0].context_length.value == 32768
    [note] = [d for d in result.diagnostics if d.kind == "unresolved-value"]
    assert (note.source.line, note.source.col) == (20, 9) and "holds 2 YAML documents" in note.message


def test_argo_values_object_wins_over_values_string():
    text = ARGO_STRING.replace("    helm:\n", "    helm:\n      valuesObject: {replicaCount: 1}\n")
    assert adapt(text).deployments == []


def test_values_elsewhere_is_ctx008_not_silence():
    text = """\
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata: {name: vllm}
    spec:
      chart: {spec: {chart: vllm-stack, sourceRef: {kind: HelmRepository, name: vllm}}}
      valuesFrom:
        - kind: ConfigMap
          name: vllm-values
    """
    result = adapt(text)
    assert result.deployments == []
    [note] = result.diagnostics
    assert note.kind == "unresolved-value" and "ConfigMap vllm-values" in note.message
    assert (note.source.line, note.source.path) == (7, "spec.valuesFrom")


def test_unrelated_chart_gives_nothing():
    text = """\
    apiVersion: helm.toolkit.fluxcd.io/v2beta2
    kind: HelmRelease
    metadata: {name: certs}
    spec:
      chart: {spec: {chart: cert-manager}}
      valuesFrom: [{kind: Secret, name: x}]
      values:
        installCRDs: true
        controllers: {main: {containers: {app: {image: {repository: quay.io/jetstack/cert-manager, tag: v1}}}}}
    ---
    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: web}
    spec:
      source: {repoURL: https://charts.example.com, chart: ingress-nginx, helm: {valueFiles: [prod.yaml]}}
    """
    result = adapt(text)
    assert result.deployments == [] and result.diagnostics == []


@pytest.mark.parametrize("values, rule, line", [
    ("  values: [1, 2]\n", "schema-violation", 6),
    ("  values: 'text'\n", "schema-violation", 6),
])
def test_flux_values_not_a_mapping(values, rule, line):
    text = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: x}\nspec:\n" \
           "  chart: {spec: {chart: vllm-stack}}\n" + values
    [diag] = adapt(text).diagnostics
    assert (diag.kind, diag.source.line, diag.source.path) == (rule, line, "spec.values")


def test_argo_values_string_that_is_not_yaml():
    text = """\
    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: broken}
    spec:
      source:
        chart: vllm-stack
        helm:
          values: |
            servingEngineSpec:
              modelSpec: [
                - name: x
    """
    result = adapt(text)
    [diag] = result.diagnostics
    assert diag.kind == "parse-error" and (diag.source.line, diag.source.col) == (11, 13)
    assert result.deployments == []


@pytest.mark.parametrize("spec", [
    "spec: [1]", "spec: {source: 3}", "spec: {sources: {a: 1}}", "spec: {source: {helm: {values: 42}}}",
    "spec: {source: {helm: {valuesObject: [1]}}}", "spec: {source: {helm: {values: '- a\\n- b'}}}",
    "spec: {source: {helm: {values: \"controllers: {x: {containers: 3}}\"}}}",
    "spec: {source: {helm: {values: \"a: &x {b: 1}\\nc: *x\\n\"}}}",
])
def test_odd_argo_shapes_never_crash(spec):
    adapt(f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: x}}\n{spec}\n")


@pytest.mark.parametrize("values", [
    "controllers: {a: {containers: {b: 3}}}", "controllers: {a: {containers: {b: {image: 3, env: 4, args: {}}}}}",
    "controllers: {a: {containers: {b: {image: {repository: vllm/vllm-openai, tag: v1}, env: [3, {name: 4}]}}}}",
    "controllers: {a: {pod: 3, containers: {b: {command: [vllm, serve, m], env: {A: [1], B: {}}}}}}",
    "defaultPodOptions: 3\ncontrollers: {a: {defaultContainerOptions: {env: 3}, containers: {b: {}}}}",
])
def test_odd_app_template_values_never_crash(values):
    adapt(values, "values.yaml")


# awslabs/data-on-eks@a546a1905d017a93a11fb44d17d08d286f7bfb44:infra/terraform/argocd-applications/*.yaml (30 files):
# Terraform's templatefile fills `${user_values_yaml}` in before Argo CD sees the Application. Before: CTX002 [error]
# "spec.source.helm.values must be a mapping of chart values, not the str '${user_values_yaml}'".
PLACEHOLDER_APP = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: llm}}
spec:
  source:
    repoURL: https://charts.example.com
    chart: {chart}
    helm:
      {field}{value}
"""


@pytest.mark.parametrize("field, value", [
    ("values: |\n        ", "${user_values_yaml}"),
    ("valuesObject: ", "${values}"),
    ("values: ", "'{{ .values }}'"),
    ("values: ", "$VALUES"),
])
def test_argo_values_template_placeholder_is_values_elsewhere(field, value):
    result = adapt(PLACEHOLDER_APP.format(chart="vllm-stack", field=field, value=value))
    assert result.deployments == []
    [note] = result.diagnostics
    written = value.strip("'")
    assert note.kind == "unresolved-value" and note.message == (
        f"the chart 'https://charts.example.com/vllm-stack' takes values this file does not "
        f"hold ({written}), and its inline values start no engine ctxlint reads: its context length, model and GPUs "
        "are not known, so this release was not checked (lint the rendered chart: helm template ... | ctxlint check -)")
    assert (note.source.line, note.source.col) == (9, 7 + field.index(" ") + 1)  # at the value (a block's `|`)
    # a chart that serves no model: none of ctxlint's business, as a values file it names is
    assert adapt(PLACEHOLDER_APP.format(chart="airflow", field=field, value=value)).diagnostics == []


def test_flux_values_template_placeholder_is_values_elsewhere():
    text = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: x}\nspec:\n" \
           "  chart: {spec: {chart: vllm-stack}}\n  values: ${VALUES}\n"
    [note] = adapt(text).diagnostics
    assert note.kind == "unresolved-value" and "(${VALUES})" in note.message and note.source.line == 6
    # a string that is no placeholder is still refused where it stands
    [diag] = adapt(text.replace("${VALUES}", "'${VALUES} and more'")).diagnostics
    assert diag.kind == "schema-violation" and diag.source.line == 6
