"""KServe LLMInferenceService: the container's args go after the preset's `vllm serve /mnt/models ...`,
re-split by its shell's `eval` (preset_args.py); a `command` of its own replaces the preset."""
from __future__ import annotations

from tests.adapters.kit import adapt, at

SERVICE = """\
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: qwen
spec:
  model:
    uri: hf://Qwen/Qwen2.5-3B-Instruct
    name: Qwen/Qwen2.5-3B-Instruct
  template:
    containers:
      - name: main
        image: vllm/vllm-openai:v0.10.1
ARGS
        resources:
          limits:
            nvidia.com/gpu: "4"
"""


def _service(args: str) -> str:
    return SERVICE.replace("ARGS\n", args)


def test_a_command_line_in_args_is_stray_words_after_the_presets_vllm_serve():
    text = _service("""\
        args:
        - |
          python3 -m vllm.entrypoints.openai.api_server \\
            --model=/mnt/models \\
            --max-model-len=2048 \\
            --tensor-parallel-size=4
""")
    res = adapt(text)
    [dep] = res.deployments
    [role] = dep.roles
    # its flags are vLLM's all the same: the tensor parallel size at its place in the block
    assert role.parallelism.tp == 4 and at(text, role.parallelism.tensor.source) == "4"
    assert role.context_length.value == 2048 and at(text, role.context_length.source) == "2048"
    assert dep.model.id.value == "Qwen/Qwen2.5-3B-Instruct"  # never the script
    [diag] = res.diagnostics
    assert diag.kind == "engine-rejects-value" and at(text, diag.source) == "python3"
    assert diag.message.startswith("vllm would refuse to start: unrecognized arguments: python3 (KServe's preset")
    assert "set `command` to run a command line of your own" in diag.message


def test_args_follow_vllm_additional_args_and_each_string_is_split_into_words():
    text = _service("""\
        env:
        - name: VLLM_ADDITIONAL_ARGS
          value: "--max-model-len 4096 --gpu-memory-utilization 0.8"
        args: ["--max-model-len 8192 --tensor-parallel-size 2", "--kv-cache-dtype=fp8"]
""")
    res = adapt(text)
    [dep] = res.deployments
    [role] = dep.roles
    assert not res.diagnostics
    assert role.context_length.value == 8192 and at(text, role.context_length.source) == "8192"  # the args come last
    assert role.parallelism.tp == 2 and at(text, role.parallelism.tensor.source) == "2"
    gmu = role.arg("gpu_memory_utilization")
    assert gmu.value == 0.8 and at(text, gmu.source) == "0.8"
    assert role.kv_cache_dtype.value == "fp8"


def test_a_second_command_line_in_args_never_runs_after_exec():
    text = _service("""\
        args:
        - |
          --max-model-len 8192
          --tensor-parallel-size 2
""")
    res = adapt(text)
    [role] = res.deployments[0].roles
    assert not res.diagnostics
    assert role.context_length.value == 8192 and role.parallelism.tensor is None


def test_a_positional_word_in_vllm_additional_args_is_refused_too():
    text = _service("""\
        env:
        - name: VLLM_ADDITIONAL_ARGS
          value: "Qwen/Qwen2.5-3B-Instruct --max-model-len 4096"
""")
    res = adapt(text)
    [diag] = res.diagnostics
    assert diag.kind == "engine-rejects-value" and at(text, diag.source) == "Qwen/Qwen2.5-3B-Instruct"
    assert res.deployments[0].roles[0].context_length.value == 4096


def test_a_command_of_its_own_replaces_the_preset_and_runs_its_args_as_written():
    text = _service("""\
        env:
        - name: VLLM_ADDITIONAL_ARGS
          value: "--max-model-len 4096"
        command: [python3, -m, vllm.entrypoints.openai.api_server]
        args: [--model=/mnt/models, --max-model-len=2048, --tensor-parallel-size=4]
""")
    res = adapt(text)
    [dep] = res.deployments
    [role] = dep.roles
    assert not res.diagnostics
    assert role.context_length.value == 2048 and role.parallelism.tp == 4  # VLLM_ADDITIONAL_ARGS: not the preset's
    assert dep.model.id.value == "Qwen/Qwen2.5-3B-Instruct"


def test_json_whose_quotes_the_presets_eval_removes_says_what_vllm_receives():
    # opendatahub-io/odh-model-controller@57b43aad41aea718861b6c70b38a16794fc4ac8e:server/samples/
    # workload-single-node-pd.yaml: the JSON is right as written, but the preset's `eval` re-reads it and vLLM
    # gets `{kv_connector:NixlConnector,...}`. Before, the message ended at Python's "Expecting property name
    # enclosed in double quotes", which reads as a typo in the file.
    text = _service("""\
        args:
          - --kv_transfer_config
          - '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
""")
    [diag] = adapt(text).diagnostics
    assert diag.kind == "engine-rejects-value"
    assert at(text, diag.source) == '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
    assert diag.message == (
        "vllm would refuse to start: argument --kv_transfer_config: invalid JSON: Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1); vllm receives '{kv_connector:NixlConnector,kv_role:kv_consumer}': "
        "the shell that runs the command line removed the quotes inside it (quote the JSON for that shell too, inside "
        "single quotes)")
    # quoted for the shell too, it reaches vLLM whole: no finding
    assert adapt(_service("""\
        args:
          - --kv_transfer_config
          - '''{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'''
""")).diagnostics == []


def test_invalid_json_the_shell_left_alone_says_nothing_of_quotes():
    text = _service("""\
        args: ["--kv_transfer_config", "'{kv_connector: NixlConnector}'"]
""")
    [diag] = adapt(text).diagnostics
    assert diag.message.endswith("invalid JSON: Expecting property name enclosed in double quotes: line 1 column 2 "
                                 "(char 1)")


def test_json_a_script_leaves_unquoted_loses_its_quotes_to_the_shell_too(tmp_path):
    from ctxlint.engine import lint_paths

    script = ('#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096 '
              '--kv-transfer-config={"kv_connector":"NixlConnector"}\n')
    (tmp_path / "serve.sh").write_text(script)
    [finding] = [f for f in lint_paths([str(tmp_path / "serve.sh")]).findings if f.rule == "CTX301"]
    assert (finding.line, finding.column) == (2, 87)  # the `{` after `=`
    assert finding.message.endswith("; vllm receives '{kv_connector:NixlConnector}': the shell that runs the command "
                                    "line removed the quotes inside it (quote the JSON for that shell too, inside "
                                    "single quotes)")
