"""Hugging Face's SageMaker TGI DLC: its entrypoint (sagemaker-entrypoint.sh) renames HF_MODEL_ID, SM_NUM_GPUS, ...
to the launcher's variables and drops the container's arguments; read as it does, every value at its env entry."""
from __future__ import annotations

from ctxlint.adapters import adapt_file
from ctxlint.file_reader import parse_bytes
from helpers import run

IMAGE = "763104351884.dkr.ecr.us-west-2.amazonaws.com/huggingface-pytorch-tgi-inference:" \
        "2.4.0-tgi2.3.1-gpu-py311-cu124-ubuntu22.04"


def _deployment(env: str, image: str = IMAGE, extra: str = "") -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tgi-dlc
spec:
  template:
    spec:
      nodeSelector: {{node.kubernetes.io/instance-type: g5.12xlarge}}
      containers:
      - name: tgi
        image: {image}
{extra}        env:
{env}        resources: {{limits: {{nvidia.com/gpu: 4}}}}
"""


ENV = """\
        - {name: HF_MODEL_ID, value: meta-llama/Llama-3.1-8B-Instruct}
        - {name: SM_NUM_GPUS, value: "4"}
        - {name: MAX_INPUT_TOKENS, value: "30000"}
        - {name: MAX_TOTAL_TOKENS, value: "32768"}
"""


def _at(text: str, source) -> str:
    return text.split("\n")[source.line - 1][source.col - 1:source.end_col - 1]


def _role(text: str):
    result = adapt_file(parse_bytes(text.encode(), "d.yaml"))
    (dep,) = result.deployments
    (role,) = dep.roles
    return result, dep, role


def test_hf_model_id_and_sm_num_gpus_are_the_model_and_the_shards(tmp_path):
    text = _deployment(ENV)
    _, dep, role = _role(text)
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    assert _at(text, dep.model.id.source) == "meta-llama/Llama-3.1-8B-Instruct"
    assert role.parallelism.tensor.value == 4 and _at(text, role.parallelism.tensor.source) == '"4"'
    (tmp_path / "d.yaml").write_text(text)
    r = run(["check", str(tmp_path / "d.yaml")])
    code, out, err = r.code, r.out, r.err
    assert (code, out) == (0, "")  # was "(no model id)" (CTX208) and CTX205 "4 > 1: ... 3 sit idle"
    assert err == "ctxlint: no findings in 1 file, 1 deployment\n"


def test_the_scripts_precedence_hf_model_id_over_model_id_and_a_set_sm_num_gpus_over_num_shard():
    env = """\
        - {name: MODEL_ID, value: other/model}
        - {name: HF_MODEL_ID, value: meta-llama/Llama-3.1-8B-Instruct}
        - {name: NUM_SHARD, value: "2"}
        - {name: SM_NUM_GPUS, value: ""}
"""
    _, dep, role = _role(_deployment(env))
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"  # `export MODEL_ID="${HF_MODEL_ID}"`
    assert role.parallelism.tensor.value == 2  # an empty SM_NUM_GPUS fails `[[ -n ... ]]`: NUM_SHARD stays


def test_a_bad_value_is_said_under_the_dlcs_variable_at_its_value(tmp_path):
    text = _deployment(ENV.replace('"4"', '"four"'))
    (tmp_path / "d.yaml").write_text(text)
    r = run(["check", "--select", "CTX301", str(tmp_path / "d.yaml")])
    code, out = r.code, r.out
    assert code == 1
    assert out == (f"{tmp_path / 'd.yaml'}:14:38: CTX301 [error] tgi would refuse to start: env SM_NUM_GPUS: "
                   "invalid value 'four': invalid digit found in string (engine-rejects-value)\n")


def test_arguments_to_the_entrypoint_are_said_dropped_not_read():
    text = _deployment(ENV, extra='        args: ["--max-input-tokens", "100"]\n')
    result, dep, role = _role(text)
    assert role.context_length.value == 32768  # MAX_TOTAL_TOKENS, not a flag the script never passes
    (said,) = [d for d in result.diagnostics if d.kind == "unresolved-value"]
    assert _at(text, said.source) == '"--max-input-tokens"'
    assert said.message.startswith("the image's entrypoint (TGI's sagemaker-entrypoint.sh) runs "
                                   "`text-generation-launcher --port 8080` and passes it no arguments")


def test_a_command_replaces_the_entrypoint_and_other_images_are_read_as_before():
    command = '        command: ["text-generation-launcher", "--num-shard", "4"]\n'
    _, dep, _ = _role(_deployment(ENV, extra=command))
    assert dep.model is None or dep.model.id is None  # the launcher run directly reads MODEL_ID, unset here
    neuron = IMAGE.split(":")[0] + ":2.1.2-optimum0.0.25-neuronx-py310-ubuntu22.04"
    _, dep, role = _role(_deployment(ENV, image=neuron))  # optimum-neuron's own entrypoint: not this script's
    assert dep.model is None or dep.model.id is None
    _, dep, role = _role(_deployment(ENV, image="ghcr.io/huggingface/text-generation-inference:2.3.1"))
    assert dep.model is None or dep.model.id is None


def test_trust_remote_code_is_renamed_from_tgi_0_9_0():
    env = "        - {name: HF_MODEL_ID, value: org/m}\n        - {name: HF_MODEL_TRUST_REMOTE_CODE, value: \"true\"}\n"
    for tag, expected in (("2.4.0-tgi2.3.1-gpu-py311-cu124-ubuntu22.04", True), ("2.0.0-tgi0.8.2-gpu-py39", None)):
        _, _, role = _role(_deployment(env, image=IMAGE.split(":")[0] + ":" + tag))
        got = role.arg("trust_remote_code")
        assert (got.value if got is not None else None) is expected, tag
