"""Engine flags given to an image whose name is an unresolved reference are said (CTX008), not dropped silently."""
from __future__ import annotations

from tests.adapters.kit import adapt, at

# the shape of felipemoz/vllm-on-azure@8e99e5add1cda234d9bfe65eb81420a093e2e3cb:k8s/vllm-deployment.yaml (sweep k32):
# an envsubst template whose image, model and sizes are all `${...}`; it made 0 deployments and no finding
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: IMAGE
          args:
            - "--model"
            - "${MODEL}"
            - "--tensor-parallel-size"
            - "${GPUS}"
            - "--max-model-len"
            - "${MAX_LEN}"
          resources: {limits: {nvidia.com/gpu: "${GPUS}"}}
"""


def _notes(text: str):
    result = adapt(text)
    return result, [d for d in result.diagnostics if "is not resolved, so what its entrypoint runs" in d.message]


def test_engine_flags_to_an_unresolved_image_are_said_at_the_image():
    text = DEPLOYMENT.replace("IMAGE", "${VLLM_IMAGE}")
    result, [note] = _notes(text)
    assert not result.deployments
    assert note.kind == "unresolved-value"
    assert at(text, note.source).startswith("${VLLM_IMAGE}")
    assert "--model, --tensor-parallel-size and --max-model-len (vLLM's flags) are not read" in note.message
    assert "`vllm serve ...`" in note.message


def test_a_registry_and_a_name_both_unresolved_are_the_same():
    text = DEPLOYMENT.replace("IMAGE", "${REGISTRY}/${NAME}:${TAG}")
    _, [note] = _notes(text)
    assert "the image ${REGISTRY}/${NAME}:${TAG} is not resolved" in note.message


def test_sglang_flags_name_sglang():
    text = DEPLOYMENT.replace("IMAGE", "${IMAGE}").replace("--tensor-parallel-size", "--tp-size") \
        .replace("--max-model-len", "--context-length").replace('"--model"', '"--model-path"')
    _, [note] = _notes(text)
    assert "(SGLang's flags)" in note.message and "--context-length" in note.message


def test_a_literal_image_name_is_another_program():
    # the registry is a reference, but the name says what runs: not an engine ctxlint knows, nothing said
    text = DEPLOYMENT.replace("IMAGE", "${REGISTRY}/my-gateway:1.2")
    _, notes = _notes(text)
    assert notes == []


def test_a_model_flag_alone_is_no_engine_sign():
    text = DEPLOYMENT.replace("IMAGE", "${APP_IMAGE}").replace('"--tensor-parallel-size"', '"--workers"') \
        .replace('"--max-model-len"', '"--port"')
    _, notes = _notes(text)
    assert notes == []


def test_a_defaulted_engine_image_is_still_read():
    # `${IMAGE:-vllm/vllm-openai:v0.8.5}`: the default is what a linter can know (images._DEFAULTED), and it runs vLLM
    text = DEPLOYMENT.replace("IMAGE", "${IMAGE:-vllm/vllm-openai:v0.8.5}").replace("${MAX_LEN}", "8192")
    result, notes = _notes(text)
    assert notes == [] and len(result.deployments) == 1


# the shape of rakanbakir/vllm-gpu-cluster@HEAD kubernetes/vllm-deployment.yaml (sweep k32): an engine image built
# with its own entrypoint script, run by `command`; the script is the image's, not in any checked file
SCRIPTED = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: IMAGE
          command: COMMAND
          env: [{name: VLLM_MAX_MODEL_LEN, value: "2048"}]
          resources: {limits: {nvidia.com/gpu: "1"}}
"""


def _script_notes(image: str, command: str):
    text = SCRIPTED.replace("IMAGE", image).replace("COMMAND", command)
    result = adapt(text)
    return text, result, [d for d in result.diagnostics if "which no file checked holds" in d.message]


def test_a_pod_running_an_unread_script_on_an_engine_image_is_said():
    text, result, [note] = _script_notes("registry.example/team-vllm-opt125m:1.0", '["/entrypoint.sh"]')
    assert not result.deployments and note.kind == "unresolved-value"
    assert at(text, note.source).startswith("/entrypoint.sh")
    assert note.message == (
        "the container vllm runs script /entrypoint.sh, which no file checked holds (the image's own, or mounted "
        "from a volume), so the vLLM engine it starts is not checked; state the command that starts it "
        "(`vllm serve ...`) in the container")
    # a shell given the script file, or a `sh -c` string that runs it: the same
    for command in ('["/bin/bash", "/scripts/start.sh"]', '["sh", "-e", "/scripts/start.sh"]',
                    '["/bin/sh", "-c", "/scripts/start.sh --port 8000"]'):
        text, _, [note] = _script_notes("lmsysorg/sglang:v0.4.6", command)
        assert at(text, note.source).startswith("/scripts/start.sh") or "/scripts/start.sh" in at(text, note.source)
        assert "the SGLang engine it starts" in note.message


def test_scripts_that_are_no_engines_are_not_said():
    # another program's image, a script that starts the engine in the same command string, a `$SCRIPT`
    assert _script_notes("nginx:1.27", '["/docker-entrypoint.sh"]')[2] == []
    _, result, notes = _script_notes(
        "vllm/vllm-openai:v0.8.5", '["/bin/sh", "-c", "/scripts/prep.sh && vllm serve Qwen/Qwen2.5-7B-Instruct"]')
    assert notes == [] and len(result.deployments) == 1
    assert _script_notes("vllm/vllm-openai:v0.8.5", '["/bin/sh", "-c", "$START_SCRIPT"]')[2] == []


def test_other_programs_flags_are_no_engine_sign():
    # a training job's torchrun (its rendezvous flags are vLLM's and SGLang's spellings too), a trainer's
    # `--max-seq-len` (vLLM's `--max-seq-len-to-capture` only by argparse's prefix match), an embedding or speech
    # server's `--device cuda`: none of them says an engine runs, and none is named an engine's flag
    for args in ('["torchrun", "--nnodes", "2", "--node-rank", "0", "--master-addr", "h", "--master-port", "29500", '
                 '"train.py", "--model", "m", "--max-seq-len", "4096"]',
                 '["v2", "--model-id", "BAAI/bge-small-en-v1.5", "--port", "7997", "--device", "cuda"]',
                 '["--model", "large-v3", "--device", "cuda", "--block-size", "16"]'):
        text = DEPLOYMENT.replace("IMAGE", "${APP_IMAGE}").replace(
            DEPLOYMENT[DEPLOYMENT.index("          args:"):DEPLOYMENT.index("          resources")],
            f"          args: {args}\n")
        _, notes = _notes(text)
        assert notes == [], (args, [n.message for n in notes])


def test_shared_flags_beside_an_engine_setting_are_listed_but_weigh_for_none():
    text = DEPLOYMENT.replace("IMAGE", "${IMAGE}").replace('"--model"', '"--device"').replace('"${MODEL}"', '"cuda"')
    _, [note] = _notes(text)
    assert "--device, --tensor-parallel-size and --max-model-len (vLLM's flags)" in note.message


def test_a_script_a_volume_mounts_is_said_as_the_volume_s_not_as_in_no_file():
    # the common shape: a ConfigMap of the same file holds start.sh, mounted at /scripts. "no file checked holds"
    # was false there (the ConfigMap is in the file checked): the note names the volume and says it is not read
    text = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: start}
data:
  start.sh: |
    vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
---
""" + SCRIPTED.replace("IMAGE", "vllm/vllm-openai:v0.8.5").replace("COMMAND", '["/bin/bash", "/scripts/start.sh"]') \
        .replace("          resources:", "          volumeMounts: [{name: scripts, mountPath: /scripts/}]\n"
                 "          resources:") + "      volumes: [{name: scripts, configMap: {name: start}}]\n"
    result = adapt(text)
    [note] = [d for d in result.diagnostics if "runs script /scripts/start.sh" in d.message]
    assert "no file checked holds" not in note.message
    assert "from the volume scripts (mounted at /scripts/): ctxlint reads no script a pod mounts, so the vLLM " \
           "engine it starts is not checked" in note.message
    # a mount elsewhere is no holder of the script
    text = text.replace("mountPath: /scripts/", "mountPath: /config")
    [note] = [d for d in adapt(text).diagnostics if "runs script /scripts/start.sh" in d.message]
    assert "which no file checked holds" in note.message


def test_tgi_s_own_entrypoint_script_named_as_the_command_is_read_as_the_image_runs_it():
    # `command: ["/tgi-entrypoint.sh"]` on a TGI image whose ENTRYPOINT is that script (image_builds
    # .tgi_entrypoint_splits) is the image's entrypoint named again: the args reach the launcher as without it
    tgi = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: tgi}
spec:
  template:
    spec:
      containers:
        - name: tgi
          image: ghcr.io/huggingface/text-generation-inference:2.4.0
COMMAND          args: ["--model-id", "Qwen/Qwen2.5-7B-Instruct", "--max-total-tokens", "9000"]
          resources: {limits: {nvidia.com/gpu: "1"}}
"""
    plain = adapt(tgi.replace("COMMAND", ""))
    named = adapt(tgi.replace("COMMAND", '          command: ["/tgi-entrypoint.sh"]\n'))
    assert not [d for d in named.diagnostics if "runs script" in d.message]
    assert len(named.deployments) == len(plain.deployments) == 1
    assert named.deployments[0].engine == plain.deployments[0].engine
    role = named.deployments[0].roles[0]
    assert role.context_length.value == plain.deployments[0].roles[0].context_length.value == 9000
    assert role.context_length.source.line == 11  # at the args' value, one line below the `command`
    # an image whose entrypoint the tag does not say (1.4.5 started the launcher itself): still said
    older = adapt(tgi.replace("2.4.0", "1.4.5").replace("COMMAND", '          command: ["/tgi-entrypoint.sh"]\n'))
    assert [d for d in older.diagnostics if "runs script /tgi-entrypoint.sh" in d.message]
