"""Compose services and SkyPilot tasks: values at their tokens, interpolation, any-of accelerators."""
from __future__ import annotations

import pytest

from tests.adapters.kit import adapt, at

COMPOSE = """\
services:
  llm:
    image: vllm/vllm-openai:v0.11.0
    command: >
      --model meta-llama/Llama-3.1-8B-Instruct
      --max-model-len ${MAX_LEN:-65536}
      --tensor-parallel-size 2
    environment:
      - HF_TOKEN=${HF_TOKEN}
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 2
              capabilities: [gpu]
  tgi:
    image: ghcr.io/huggingface/text-generation-inference:2.4.1
    command: --model-id ${MODEL}
    environment:
      MAX_TOTAL_TOKENS: 8192
"""


def test_compose_string_command_default_interpolation_and_gpus():
    result = adapt(COMPOSE, "compose.yaml")
    llm, tgi = result.deployments
    role = llm.roles[0]
    assert llm.input_format == "compose" and llm.name.value == "llm"
    assert role.context_length.value == 65536
    assert at(COMPOSE, role.context_length.source) == "${MAX_LEN:-65536}"
    assert role.parallelism.tensor.value == 2 and role.accelerators.count.value == 2
    assert tgi.roles[0].context_length.value == 8192 and at(COMPOSE, tgi.roles[0].context_length.source) == "8192"
    [diag] = [d for d in result.diagnostics if d.kind == "unresolved-value"]
    assert "--model-id ${MODEL}" in diag.message and at(COMPOSE, diag.source) == "${MODEL}"


COMPOSE_LIST = """\
services:
  llm:
    image: vllm/vllm-openai:v0.11.0
    entrypoint: ["vllm", "serve"]
    command:
      - "${VLLM_MODEL:-Qwen/Qwen2.5-VL-3B-Instruct}"
      - "--max-model-len"
      - "${MML:-4096}"
      - "--gpu-memory-utilization"
      - "${GMU-0.85}"
      - "--served-model-name"
      - "$$literal"
      - "--tensor-parallel-size"
      - "${TP}"
"""


def test_compose_list_command_is_interpolated_like_the_string_form():
    # Issue 13 item 2: list items were passed on as typed, so `${MML:-4096}` reached the
    # engine's parser (a false CTX301) and the model was `${VLLM_MODEL:-...}`.
    result = adapt(COMPOSE_LIST, "compose.yaml")
    [llm] = result.deployments
    role = llm.roles[0]
    assert role.context_length.value == 4096 and at(COMPOSE_LIST, role.context_length.source) == "${MML:-4096}"
    assert llm.model.id.value == "Qwen/Qwen2.5-VL-3B-Instruct"
    assert [d.kind for d in result.diagnostics] == ["unresolved-value"]
    [diag] = result.diagnostics
    assert "--tensor-parallel-size ${TP}" in diag.message and at(COMPOSE_LIST, diag.source) == "${TP}"


OPEA = """\
services:
  vllm-service:
    image: ${REGISTRY:-opea}/vllm-rocm:${TAG:-latest}
    command: "--model Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --tensor-parallel-size 4"
  tgi:
    image: ghcr.io/huggingface/text-generation-inference:${TGI_VERSION:-2.4.1}
    command: --model-id m --max-total-tokens 4096
"""


def test_compose_defaulted_image_and_opea_vllm_entrypoint():
    vllm, tgi = adapt(OPEA, "compose.yaml").deployments
    role = vllm.roles[0]
    assert vllm.engine.name.value == "vllm" and vllm.engine.version is None  # `latest`
    assert role.context_length.value == 8192 and at(OPEA, role.context_length.source) == "8192"
    assert role.parallelism.tensor.value == 4
    assert tgi.engine.version.value == "2.4.1" and at(OPEA, tgi.engine.version.source) == "2.4.1"


SKY = """\
name: qwen
envs:
  MODEL_NAME: Qwen/Qwen2.5-72B-Instruct
resources:
  accelerators: {A100-80GB:4, H100:8}
service:
  replicas: 2
run: |
  export X=1
  vllm serve $MODEL_NAME \\
    --max-model-len 32768 \\
    --tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE
"""


def test_skypilot_any_of_accelerators_one_deployment_per_option():
    result = adapt(SKY, "sky.yaml")
    names = [d.name.value for d in result.deployments]
    assert names == ["qwen [A100-80GB:4]", "qwen [H100:8]"]
    first, second = (d.roles[0] for d in result.deployments)
    assert first.accelerators.type.value == "A100-SXM4-80GB" and first.accelerators.count.value == 4
    assert at(SKY, first.accelerators.count.source) == "4"
    assert first.parallelism.tensor.value == 4 and second.parallelism.tensor.value == 8
    assert first.replicas.value == 2
    assert at(SKY, first.context_length.source) == "32768"
    assert result.deployments[0].model.id.value == "Qwen/Qwen2.5-72B-Instruct"
    assert at(SKY, result.deployments[0].model.id.source) == "Qwen/Qwen2.5-72B-Instruct"
    # `gpus:` is SkyPilot's alias of `accelerators:`
    alias = SKY.replace("  accelerators: {A100-80GB:4, H100:8}", "  gpus: {A100-80GB:4, H100:8}")
    assert [d.name.value for d in adapt(alias, "sky.yaml").deployments] == names


def test_odd_inputs_never_raise():
    for text in ("services: {a: {command: [1, {x: 2}, null], image: 3}}",
                 "run: 5\nresources: {accelerators: [1, null]}",
                 "run: vllm serve m --max-model-len x\nresources: {accelerators: {H100: many}}",
                 "apiVersion: v1\nkind: Pod\nspec: {containers: [{args: 5, env: [1, {name: 2}], command: {a: b}}]}",
                 "apiVersion: v1\nkind: List\nitems: [1, {kind: Deployment, apiVersion: apps/v1, spec: 3}]",
                 "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nspec: {leaderWorkerTemplate: 4}"):
        adapt(text)


def test_skypilot_any_of_options_sharing_a_finding_print_it_once(tmp_path):
    from tests.helpers import run

    (tmp_path / "task.yaml").write_text("""\
resources:
  accelerators: {L4:1, A10G:1, A100:1}
run: |
  vllm serve example/unreleased-model --max-model-len 8192
""")
    args = ["--isolated", "--select", "CTX208", str(tmp_path / "task.yaml")]
    result = run(["check", *args])
    lines = result.out.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{tmp_path / 'task.yaml'}:4:14: CTX208 [info] KV pool of unified "
                                                   "not declared and not derivable: model 'example/unreleased-model'")
    assert result.err.strip() == "ctxlint: 1 info in 1 file, 3 deployments"
    # the audit keeps each option's own finding, for its own row
    audit = run(["audit", "--format", "json", *args]).out
    import json
    assert [row["worst"]["rule"] for row in json.loads(audit)["deployments"]] == ["CTX208"] * 3


def test_skypilot_any_of_idle_accelerators_name_the_option(tmp_path):
    # Issue 13 item 7: four CTX205 lines on one line, none saying which option it is for.
    from tests.helpers import run

    (tmp_path / "task.yaml").write_text("""\
resources:
  accelerators: {H100:8, L4:8}
run: |
  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --tensor-parallel-size 4
""")
    result = run(["check", "--isolated", "--select", "CTX205", str(tmp_path / "task.yaml")])
    tail = (" accelerators but its engine uses tensor x pipeline x data = 4; 4 sit idle and the KV pool is "
            "computed on 4. Set the tensor parallel size (or pipeline/data) to use all 8 (idle-accelerators)")
    assert result.out.splitlines() == [
        f"{tmp_path / 'task.yaml'}:2:23: CTX205 [warning] 8 > 4: the unified replica has 8 H100{tail}",
        f"{tmp_path / 'task.yaml'}:2:29: CTX205 [warning] 8 > 4: the unified replica has 8 L4{tail}"]


COMPOSE_EP = """\
services:
  llm:
    image: vllm/vllm-openai:v0.10.0
    ENTRYPOINT
    COMMAND
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: COUNT
              capabilities: [gpu]
"""


def _compose(entrypoint: str, command: str, count: str = "1"):
    text = COMPOSE_EP.replace("ENTRYPOINT", entrypoint).replace("COMMAND", command).replace("COUNT", count)
    return text, adapt(text, "compose.yaml").deployments


def test_compose_entrypoint_and_command_run_as_compose_joins_them():
    # `entrypoint: ""` or `[]` clears the image's entrypoint: the command runs as written
    for cleared in ('entrypoint: ""', "entrypoint: []"):
        text, [dep] = _compose(cleared, "command: vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096")
        assert (dep.model.id.value, dep.roles[0].context_length.value) == ("Qwen/Qwen2.5-7B-Instruct", 4096)
    # a string entrypoint is split into words, and the command's words follow, each at its place
    for command in ("command: --model Qwen/Qwen2.5-7B-Instruct --max-model-len 65536",
                    'command: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "65536"]'):
        for entry in ("entrypoint: python3 -m vllm.entrypoints.openai.api_server",
                      'entrypoint: ["python3", "-m", "vllm.entrypoints.openai.api_server"]'):
            text, [dep] = _compose(entry, command)
            ctx = dep.roles[0].context_length
            assert (dep.model.id.value, ctx.value, at(text, ctx.source)) == ("Qwen/Qwen2.5-7B-Instruct", 65536, "65536")


def test_compose_gpu_count_written_as_a_string_or_a_defaulted_variable():
    # compose-go reads a string count as an integer (types/device.go), after interpolation
    for count in ('"4"', "${NUM_GPUS:-4}", "4"):
        _, [dep] = _compose("entrypoint: []", "command: vllm serve Qwen/Qwen2.5-7B-Instruct", count)
        assert dep.roles[0].accelerators.count.value == 4, count
    _, [dep] = _compose("entrypoint: []", "command: vllm serve Qwen/Qwen2.5-7B-Instruct", "${NUM_GPUS}")
    assert dep.roles[0].accelerators.count is None  # the host's value: not known


def test_skypilot_tp_set_in_a_loop_is_not_guessed_and_the_device_is_still_named():
    text = """\
resources:
  accelerators: H100:8
run: |
  TP=1
  while [ $(($TP * 2)) -le $SKYPILOT_NUM_GPUS_PER_NODE ]; do
    TP=$(($TP * 2))
  done
  vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size $TP --max-model-len 8192
"""
    result = adapt(text, "sky.yaml")
    [dep] = result.deployments
    [role] = dep.roles
    assert role.parallelism.tensor is None and role.accelerator_withheld.value == "H100-SXM-80GB"
    [note] = [d for d in result.diagnostics if d.kind == "unresolved-value"]
    assert "--tensor-parallel-size ${TP} (TP is set inside a branch or loop of the script)" in note.message


def test_lmdeploy_quant_policy_is_its_kv_dtype():
    # --quant-policy 8 stores KV as int8, 4 as int4 (lmdeploy docs/en/quantization/kv_quant.md)
    text = """\
services:
  lmdeploy:
    image: openmmlab/lmdeploy:v0.7.0
    command: lmdeploy serve api_server Qwen/Qwen2.5-7B-Instruct --session-len 8192POLICY
"""
    kinds = {}
    for policy in ("", " --quant-policy 8", " --quant-policy 4", " --quant-policy 0"):
        [dep] = adapt(text.replace("POLICY", policy), "compose.yaml").deployments
        dtype = dep.roles[0].kv_cache_dtype
        kinds[policy] = dtype.value if dtype is not None else None
    assert kinds == {"": None, " --quant-policy 8": "int8", " --quant-policy 4": "int4", " --quant-policy 0": None}


TWO = """\
name: rag
resources:
  accelerators: L4:4
run: |
  CVD1vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2 --max-model-len 8192 --port 8002 &
  CVD2vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 8192 --port 8003
"""


def test_two_engines_of_one_script_are_two_deployments_sharing_the_gpus():
    text = TWO.replace("CVD1", "").replace("CVD2", "")
    deps = adapt(text, "sky.yaml").deployments
    assert [(d.name.value, d.model.id.value) for d in deps] == [
        ("rag (meta-llama/Llama-3.1-8B-Instruct)", "meta-llama/Llama-3.1-8B-Instruct"),
        ("rag (Qwen/Qwen2.5-7B-Instruct)", "Qwen/Qwen2.5-7B-Instruct")]
    # how the 4 GPUs are shared is not known: no idle or mismatch check guesses it
    assert [d.roles[0].accelerators.count for d in deps] == [None, None]
    # CUDA_VISIBLE_DEVICES says it
    pinned = TWO.replace("CVD1", "CUDA_VISIBLE_DEVICES=0,1 ").replace("CVD2", "CUDA_VISIBLE_DEVICES=2,3 ")
    counts = [d.roles[0].accelerators.count for d in adapt(pinned, "sky.yaml").deployments]
    assert [(c.value, c.raw, at(pinned, c.source)) for c in counts] == [
        (2, "CUDA_VISIBLE_DEVICES=0,1 of 4", "0,1"), (2, "CUDA_VISIBLE_DEVICES=2,3 of 4", "2,3")]


def test_llamacpp_splits_its_layers_over_the_gpus_it_sees():
    # `--split-mode layer` is llama.cpp's default (common/arg.cpp): across N GPUs, a pipeline of N
    text = """\
services:
  l:
    image: ghcr.io/ggml-org/llama.cpp:server-cuda
    command: -m /models/Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf -c 8192 -ngl 99SPLIT
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 2
              capabilities: [gpu]
"""
    [dep] = adapt(text.replace("SPLIT", ""), "compose.yaml").deployments
    par = dep.roles[0].parallelism
    assert (par.pp, par.pipeline.raw) == (2, "llama.cpp splits its layers over the 2 GPUs it sees "
                                              "(--split-mode layer, the default)")
    [dep] = adapt(text.replace("SPLIT", " -sm none"), "compose.yaml").deployments
    assert dep.roles[0].parallelism.pp == 1  # one GPU holds it all


DOLLARS = """\
services:
  v:
    image: vllm/vllm-openai:v0.10.0
    environment:
      MODEL: meta-llama/Llama-3.1-8B-Instruct
      LEN: "8192"
    entrypoint: ["/bin/sh", "-c"]
    command: ["vllm serve $$MODEL --max-model-len $$LEN"]
"""


def test_compose_dollar_dollar_is_the_containers_shell_variable():
    # Compose turns `$$` into `$`; the container's shell then reads its own environment (a string command runs
    # its shell only on an image whose ENTRYPOINT is not the engine: test_entry_words.py)
    for text in (DOLLARS, DOLLARS.replace('''    entrypoint: ["/bin/sh", "-c"]
    command: ["vllm serve $$MODEL --max-model-len $$LEN"]''', '''    command: sh -c "vllm serve $$MODEL --max-model-len $$LEN"''')
                 .replace("vllm/vllm-openai:v0.10.0", "registry.local/llm-runtime:1")):
        result = adapt(text, "compose.yaml")
        [dep] = result.deployments
        ctx = dep.roles[0].context_length
        assert (dep.model.id.value, ctx.value) == ("meta-llama/Llama-3.1-8B-Instruct", 8192)
        assert at(text, ctx.source) == '"8192"'  # at the value the variable holds
        assert not [d for d in result.diagnostics if d.kind == "engine-rejects-value"]
    # `$LEN` (one `$`) is Compose's, from the host: not the container's LEN
    result = adapt(DOLLARS.replace("$$LEN", "$LEN"), "compose.yaml")
    assert result.deployments[0].roles[0].context_length is None
    assert any("LEN" in d.message for d in result.diagnostics if d.kind == "unresolved-value")


def test_a_commented_out_install_names_no_version():
    # skypilot examples/serve/external-lb/llm.yaml keeps an older install in a comment above the real one
    text = """\
resources: {accelerators: L4:1}
setup: |
  # pip install "sglang[all]==0.4.3.post2"
  uv pip install "sglang[all]==0.4.5"  # pip install "sglang[all]==0.4.4" also works
run: |
  python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 8192
"""
    [dep] = adapt(text, "task.sky.yaml").deployments
    assert dep.engine.version.value == "0.4.5" and at(text, dep.engine.version.source) == "0.4.5"
    only_comments = text.replace('  uv pip install "sglang[all]==0.4.5"  #', "  #")
    [dep] = adapt(only_comments, "task.sky.yaml").deployments
    assert dep.engine.version is None
    # a `#` inside quotes, or inside a word, starts no comment
    quoted = only_comments.replace('  # pip install "sglang[all]==0.4.3.post2"',
                                   '  echo "step #1" && pip install "sglang[all]==0.4.3.post2"#x')
    [dep] = adapt(quoted, "task.sky.yaml").deployments
    assert dep.engine.version.value == "0.4.3.post2"
    # an escaped quote opens no quoted text: the `#` after it still starts a comment
    escaped = text.replace('  # pip install "sglang[all]==0.4.3.post2"', "  echo can\\'t # pip install sglang==0.4.3")
    [dep] = adapt(escaped, "task.sky.yaml").deployments
    assert dep.engine.version.value == "0.4.5"


def test_engine_flags_for_an_image_whose_entrypoint_is_unknown_are_said(tmp_path):
    # ASUOpenClaw/llms docker-compose.vllm.yml: a vLLM fork's image, the engine's flags as `command`;
    # ctxlint does not know that image's entrypoint, so it does not guess it runs vLLM, but says so
    from helpers import run

    path = tmp_path / "docker-compose.yml"
    text = """\
services:
  vllm:
    image: ghcr.io/jajmangold/vllm-sm70:0.18.1
    command: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--port", "8000"]
"""
    path.write_text(text)
    assert run(["check", str(path)]).out == (
        f"{path}:3:12: CTX008 [info] the image ghcr.io/jajmangold/vllm-sm70:0.18.1 is vllm's but ctxlint does not "
        "know what its entrypoint runs, so --model, --max-model-len are not read as vllm flags and this container "
        "is not checked; state the command that starts it (`vllm serve ...`) (unresolved-value)\n")
    path.write_text(text.replace('"--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", ', ""))
    assert run(["check", str(path)]).out == ""  # --port alone: nothing a check would have read
    path.write_text(text.replace("ghcr.io/jajmangold/vllm-sm70:0.18.1", "vllm/vllm-openai:v0.11.0"))
    assert "CTX008" not in run(["check", str(path)]).out  # an entrypoint ctxlint knows: read
    # `-openai` names vLLM's OpenAI server entrypoint; a simulator runs no engine: neither gets the note
    for image in ("quay.io/rh-aiservices-bu/vllm-cpu-openai-ubi9:0.9", "ghcr.io/llm-d/vllm-sim:v0.1",
                  "ghcr.io/faust-benchou/sglang-inference-sim:v1"):
        path.write_text(text.replace("ghcr.io/jajmangold/vllm-sm70:0.18.1", image))
        assert "CTX008" not in run(["check", str(path)]).out, image


def test_a_ray_node_on_an_engine_image_is_no_unread_engine_flags(tmp_path):
    # sweep 42 (mudislandkid/vllm-ray node2, robbypambudi/ray-vllm-benchmark): `ray start --address=... --block` on a
    # vLLM-named image joins a Ray cluster whose engine is started elsewhere; it was "--block are not read as vllm
    # flags" (argparse's prefix of --block-size)
    from helpers import run

    path = tmp_path / "docker-compose.yml"
    text = """\
services:
  ray-worker:
    image: ray-vllm:local
    command: >
      ray start
      --address=${RAY_HEAD_IP}:6379
      --num-gpus=2
      --block
"""
    path.write_text(text)
    assert run(["check", str(path)]).out == ""
    path.write_text(text.replace("ray start", "/usr/local/bin/ray start"))
    assert run(["check", str(path)]).out == ""
    # one engine flag to an unknown entrypoint is named in the singular
    path.write_text(text.replace("      ray start\n      --address=${RAY_HEAD_IP}:6379\n      --num-gpus=2\n", ""))
    assert run(["check", str(path)]).out == (
        f"{path}:3:12: CTX008 [info] the image ray-vllm:local is vllm's but ctxlint does not know what its "
        "entrypoint runs, so --block is not read as a vllm flag and this container is not checked; state the "
        "command that starts it (`vllm serve ...`) (unresolved-value)\n")


def test_a_defaulted_image_variable_is_read_as_its_default(tmp_path):
    # sweep 30 (boanlab/KloudChat-LLM docker-compose.vllm.yml): `image: ${VLLM_IMAGE:-kloudchat-vllm:local}` with
    # vLLM flags as `command` was silently no deployment, where the literal image got the CTX008 note; Compose
    # takes the default when the host does not set the variable, as for every other field
    from helpers import run

    path = tmp_path / "docker-compose.yml"
    text = """\
services:
  vllm:
    image: ${VLLM_IMAGE:-kloudchat-vllm:local}
    command: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]
"""
    path.write_text(text)
    assert run(["check", str(path)]).out == (
        f"{path}:3:12: CTX008 [info] the image kloudchat-vllm:local is vllm's but ctxlint does not know what its "
        "entrypoint runs, so --model, --max-model-len are not read as vllm flags and this container is not checked; "
        "state the command that starts it (`vllm serve ...`) (unresolved-value)\n")
    # a variable with no default stays unknown: nothing is guessed about the image, and (sweep k32) the flags it
    # is given are said not read, where the container was dropped without a word
    path.write_text(text.replace("${VLLM_IMAGE:-kloudchat-vllm:local}", "${VLLM_IMAGE}"))
    assert run(["check", str(path)]).out == (
        f"{path}:3:12: CTX008 [info] the image ${{VLLM_IMAGE}} is not resolved, so what its entrypoint runs is not "
        "known: --model and --max-model-len (vLLM's flags) are not read and this container is not checked; set the "
        "image, or state the command that starts the engine (`vllm serve ...`) (unresolved-value)\n")
    assert not adapt(text.replace("${VLLM_IMAGE:-kloudchat-vllm:local}", "${VLLM_IMAGE}"), "compose.yaml").deployments
    # a defaulted engine image: read, its release at the tag as written
    image_text = text.replace("kloudchat-vllm:local", "vllm/vllm-openai:v0.10.1")
    [dep] = adapt(image_text, "compose.yaml").deployments
    assert dep.engine.version.value == "0.10.1" and at(image_text, dep.engine.version.source) == "v0.10.1"
    assert dep.roles[0].context_length.value == 8192


def test_compose_labels_in_list_form_are_read_like_the_mapping():
    # the compose spec allows `labels: ["key=value"]`; the ctxlint.io/* labels were dropped silently
    text = """\
services:
  llm:
    image: vllm/vllm-openai:v0.11.0
    command: ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "32768"]
    labels:
      - "ctxlint.io/context-window=65536"
      - ctxlint.io/kv-pool-tokens=100000
      - com.example.team=llm
"""
    [dep] = adapt(text, "compose.yaml").deployments
    assert dep.advertised.context_window.value == 65536 and at(text, dep.advertised.context_window.source) == "65536"
    assert dep.roles[0].kv_pool_tokens.value == 100000 and at(text, dep.roles[0].kv_pool_tokens.source) == "100000"


@pytest.mark.parametrize("devices, count", [
    ("deploy: {resources: {reservations: {devices: [{driver: nvidia, device_ids: ['0,1,2,3'], "
     "capabilities: [gpu]}]}}}", 4),
    ("deploy: {resources: {reservations: {devices: [{driver: nvidia, device_ids: ['0', '1', 2], "
     "capabilities: [gpu]}]}}}", 3),
    ("deploy: {resources: {reservations: {devices: [{driver: nvidia, device_ids: ['${GPUS}'], "
     "capabilities: [gpu]}]}}}", None),
    ("deploy: {resources: {reservations: {devices: [{driver: nvidia, device_ids: ['${GPUS:-0,1}'], "
     "capabilities: [gpu]}]}}}", 2),
    ("gpus: [{driver: nvidia, count: 2}]", 2),
    ("gpus: [{driver: nvidia, device_ids: ['1', '3']}]", 2),
    ("gpus: all", None),
])
def test_compose_gpu_reservations(devices, count):
    # sweep 10: Docker joins device_ids with commas for the NVIDIA runtime (moby daemon/nvidia_linux.go), so one
    # "0,1,2,3" item is four GPUs (a false CTX204 "2 > 1"); a service's `gpus:` list is a device request with the
    # gpu capability (compose-spec 05-services.md "gpus"), `gpus: all` counts the host's GPUs: not known
    text = f"""\
services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    command: --model Qwen/Qwen3-8B
    {devices}
"""
    [dep] = adapt(text, "compose.yaml").deployments
    found = dep.roles[0].accelerators.count
    assert (found.value if found is not None else None) == count


def test_skypilot_run_expands_a_double_quoted_shell_script_first():
    # review: `run:` is a bash script, so its `bash -c "vllm serve '$MODEL' ..."` is expanded by that bash first
    # (the model was the literal text `$MODEL`), as in a launcher script
    text = ("resources:\n  accelerators: H100:1\nenvs:\n  MODEL: meta-llama/Llama-3.1-8B\nrun: |\n"
            "  bash -c \"vllm serve '$MODEL' --max-model-len 8192\"\n")
    [dep] = adapt(text, "task.yaml").deployments
    assert (dep.model.id.value, dep.roles[0].context_length.value) == ("meta-llama/Llama-3.1-8B", 8192)


def test_a_pin_installed_in_the_background_names_no_version():
    # `pip install vllm==0.6.3 & vllm serve`: the launch does not wait for the install (Versions.installed_version,
    # as run_release); a redirect's `&` (`2>&1`, `&>`) or an `&&` runs it in the foreground
    text = """\
resources: {accelerators: L4:1}
run: |
  pip install vllm==0.6.3 > pip.log 2>&1 &
  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192
"""
    [dep] = adapt(text, "task.sky.yaml").deployments
    assert dep.engine.version is None
    for foreground in ("  pip install vllm==0.6.3 > pip.log 2>&1\n", "  pip install vllm==0.6.3 &> pip.log &&\n"):
        [dep] = adapt(text.replace("  pip install vllm==0.6.3 > pip.log 2>&1 &\n", foreground), "task.sky.yaml") \
            .deployments
        assert dep.engine.version.value == "0.6.3", foreground


# The shape of nebius/nebius-ps-services@eaaa35f68c0b8fdfde65e56418f742e6f4115e84:examples/inference/vllm/
# qwen72b-inference-vllm.yaml: `image_id: docker:vllm/vllm-openai:v0.11.0`, whose `run:` starts `vllm serve`.
SKY_IMAGE = """\
resources:
  accelerators: H200:8
  image_id: docker:vllm/vllm-openai:v0.11.0
run: |
  vllm serve Qwen/Qwen2.5-72B-Instruct --tensor-parallel-size 8 --max-model-len 8192
"""


def test_skypilot_docker_image_id_names_the_release():
    # The task runs in that container: the tag is the release. Before, no release was read (none named).
    [dep] = adapt(SKY_IMAGE, "task.sky.yaml").deployments
    assert dep.engine.version.value == "0.11.0" and at(SKY_IMAGE, dep.engine.version.source) == "v0.11.0"
    # a VM image names no engine release
    [dep] = adapt(SKY_IMAGE.replace("docker:vllm/vllm-openai:v0.11.0", "ami-0123456789abcdef0"),
                  "task.sky.yaml").deployments
    assert dep.engine.version is None


def test_skypilot_setup_that_installs_the_engine_over_the_image_wins():
    pinned = SKY_IMAGE.replace("run: |", "setup: |\n  pip install vllm==0.10.1\nrun: |")
    [dep] = adapt(pinned, "task.sky.yaml").deployments
    assert dep.engine.version.value == "0.10.1" and at(pinned, dep.engine.version.source) == "0.10.1"
    unpinned = SKY_IMAGE.replace("run: |", "setup: |\n  pip install -U vllm\nrun: |")
    [dep] = adapt(unpinned, "task.sky.yaml").deployments
    assert dep.engine.version is None  # the newest of the day setup ran: not the tag's, not known


def test_skypilot_setup_that_installs_tgis_client_keeps_the_images_release():
    # `pip install text-generation` is TGI's Python client (huggingface/text-generation-inference@00e0d2d7
    # clients/python/pyproject.toml), not its server (`text-generation-server`, server/pyproject.toml): the image's
    # server still runs, at the tag's release. It was read as TGI installed anew: no release.
    text = ("resources:\n  accelerators: A100-80GB:1\n"
            "  image_id: docker:ghcr.io/huggingface/text-generation-inference:2.4.0\n"
            "setup: |\n  pip install text-generation\n"
            "run: |\n  text-generation-launcher --model-id Qwen/Qwen2.5-7B-Instruct --max-total-tokens 8192\n")
    [dep] = adapt(text, "task.sky.yaml").deployments
    assert dep.engine.version.value == "2.4.0"
    [dep] = adapt(text.replace("text-generation\n", "text-generation-server==2.3.0\n", 1), "task.sky.yaml").deployments
    assert dep.engine.version is None or dep.engine.version.value != "2.4.0"
