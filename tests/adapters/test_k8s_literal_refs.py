"""A shell-style `${NAME}` or `$NAME` in a Kubernetes exec-form `command`/`args` item reaches the engine as written:
Kubernetes expands only `$(NAME)` there and no shell runs (engines/execform.py). The model is then unknown, said by
CTX008 at the value with the fix (`$(NAME)`), never looked up in the catalog as `${NAME}`."""
from __future__ import annotations

from adapters.kit import adapt, at

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: m}}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
{lines}
        env:
        - {{name: MODEL_ID, value: Qwen/Qwen2.5-0.5B-Instruct}}
        - {{name: MAX_LEN, value: "8192"}}
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def _read(lines: str):
    text = DEPLOY.format(lines=lines)
    res = adapt(text)
    [dep] = res.deployments
    return text, dep, res.diagnostics


def test_braced_model_in_args_is_passed_as_written() -> None:
    text, dep, diags = _read('        args: ["--model=${MODEL_ID}", "--max-model-len=$(MAX_LEN)"]')
    assert dep.model.id is None  # not '${MODEL_ID}', so no "not in the built-in catalog: run ctxlint models lock"
    assert dep.roles[0].context_length.value == 8192  # `$(MAX_LEN)` is Kubernetes' own: expanded
    [d] = diags
    assert d.kind == "unresolved-value"
    assert d.message == (
        "values ctxlint cannot resolve: --model ${MODEL_ID} (Kubernetes passes `${MODEL_ID}` to the engine as "
        "written: it expands only `$(MODEL_ID)` in command and args, and no shell runs; write `$(MODEL_ID)`); the "
        "checks that need them are skipped (set them literally, or state the limits with ctxlint.io/* annotations)")
    assert at(text, d.source) == "${MODEL_ID}"


def test_bare_model_in_command_is_passed_as_written() -> None:
    text, dep, diags = _read("        command: [vllm, serve, $MODEL_ID]")
    assert dep.model.id is None
    assert [d.kind for d in diags] == ["unresolved-value"]
    assert "model $MODEL_ID (Kubernetes passes `$MODEL_ID` to the engine as written" in diags[0].message
    assert at(text, diags[0].source) == "$MODEL_ID"


def test_a_number_passed_as_written_is_still_refused() -> None:
    _, _, diags = _read('        args: ["--model=$(MODEL_ID)", "--max-model-len=${MAX_LEN}"]')
    assert [(d.kind, d.message) for d in diags] == [
        ("engine-rejects-value", "vllm would refuse to start: argument --max-model-len: invalid "
                                 "human_readable_int_or_auto value: '${MAX_LEN}'")]


def test_a_shell_expands_it() -> None:
    script = '        command: [sh, -c]\n        args: ["vllm serve ${MODEL_ID} --max-model-len $MAX_LEN"]'
    _, dep, diags = _read(script)
    assert (dep.model.id.value, dep.roles[0].context_length.value, diags) == ("Qwen/Qwen2.5-0.5B-Instruct", 8192, [])


def test_an_openshift_template_parameter_is_not_passed_as_written() -> None:
    text = """\
    apiVersion: template.openshift.io/v1
    kind: Template
    metadata: {name: t}
    objects:
      - apiVersion: apps/v1
        kind: Deployment
        metadata: {name: m}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: ["--model=${MODEL_ID}"]
    parameters:
      - {name: MODEL_ID, value: Qwen/Qwen2.5-0.5B-Instruct}
    """
    diags = adapt(text).diagnostics
    assert all("Kubernetes passes" not in d.message for d in diags)
