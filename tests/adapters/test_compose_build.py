"""A compose service that builds its image (`build:`) runs what its Dockerfile says: the FROM image (the engine and
its release), ENTRYPOINT and CMD as `entrypoint:`/`command:` override them, ENV under `environment:`, ARG defaults
and `build.args`, stages and `target`, and the scripts COPY puts in the image (sweep: sergey-zinchenko/vllm-compose
builds FROM vllm/vllm-openai:v0.17.0 with an ENTRYPOINT script of `exec vllm serve "$@"`, read as a custom image of
unknown release before; gyohng/spark-vllm-compose's `ENTRYPOINT ["vllm"]` left its compose command unread)."""
from __future__ import annotations

import json

from ctxlint.adapters import adapt_file
from ctxlint.file_reader import read_path
from helpers import run

COMPOSE = """\
services:
  llm:
    build:
      context: .
      dockerfile: docker/Dockerfile.vllm
      args:
        VLLM_VERSION: v0.9.0
    environment:
      MAX_LEN: "4096"
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
"""
DOCKERFILE = """\
# syntax=docker/dockerfile:1
ARG VLLM_VERSION=v0.8.3
FROM vllm/vllm-openai:${VLLM_VERSION} AS base
ENV MODEL=Qwen/Qwen2.5-7B-Instruct \\
    MAX_LEN=262144
ENTRYPOINT ["/bin/sh", "-c", "exec vllm serve $MODEL --max-model-len $MAX_LEN", "--"]

FROM base AS dev
CMD ["--max-num-seqs", "8"]
"""


def _tree(tmp_path, compose: str = COMPOSE, dockerfile=DOCKERFILE, name: str = "docker/Dockerfile.vllm", **files):
    (tmp_path / "compose.yaml").write_text(compose)
    for path, text in ([(name, dockerfile)] if dockerfile is not None else []) + list(files.items()):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path / "compose.yaml"


def _one(compose_path):
    result = adapt_file(read_path(str(compose_path)))
    [dep] = result.deployments
    [role] = dep.roles
    return result, dep, role


def _where(val):
    return (val.value, val.source.file.rsplit("/", 1)[-1], val.source.line, val.source.col)


def test_the_build_gives_image_release_entrypoint_and_env_and_the_service_env_wins(tmp_path):
    result, dep, role = _one(_tree(tmp_path))
    # the release the build argument picks, said at the FROM word of the Dockerfile; the ENV's model
    assert _where(dep.engine.version) == ("0.9.0", "Dockerfile.vllm", 3, 6)
    assert _where(dep.model.id) == ("Qwen/Qwen2.5-7B-Instruct", "Dockerfile.vllm", 4, 11)
    # the service's environment wins over the image's ENV
    assert _where(role.context_length) == (4096, "compose.yaml", 9, 16)
    assert role.accelerators.count.value == 1 and result.diagnostics == []
    # without the build argument, the ARG's default; without the service's MAX_LEN, the ENV's
    compose = COMPOSE.replace("      args:\n        VLLM_VERSION: v0.9.0\n", "").replace(
        "    environment:\n      MAX_LEN: \"4096\"\n", "")
    _, dep, role = _one(_tree(tmp_path, compose))
    assert (dep.engine.version.value, _where(role.context_length)) == ("0.8.3", (262144, "Dockerfile.vllm", 5, 13))


def test_docker_cmd_and_entrypoint_rules(tmp_path):
    # the final stage's CMD follows the ENTRYPOINT it inherits: `sh -c SCRIPT -- --max-num-seqs 8` gives the
    # script "$@" only through `"$@"`, which this one does not use
    flags = "--max-model-len 1000 --max-num-seqs 8"
    exec_form = DOCKERFILE.replace('["/bin/sh", "-c", "exec vllm serve $MODEL --max-model-len $MAX_LEN", "--"]',
                                   '["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"]')
    exec_form = exec_form.replace('CMD ["--max-num-seqs", "8"]', f'CMD {json.dumps(flags.split())}')
    _, _, role = _one(_tree(tmp_path, dockerfile=exec_form))
    assert _where(role.context_length) == (1000, "Dockerfile.vllm", 9, 26)
    # a compose `command:` replaces the CMD, the ENTRYPOINT stays
    compose = COMPOSE + "    command: [\"--max-model-len\", \"2000\"]\n"
    _, _, role = _one(_tree(tmp_path, compose, exec_form))
    assert _where(role.context_length) == (2000, "compose.yaml", 14, 35)
    # an ENTRYPOINT in a stage drops the CMD it inherits: the stage FROM `dev` runs `vllm serve M` alone
    dropped = exec_form + 'FROM dev\nENTRYPOINT ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--max-num-seqs", "4"]\n'
    _, _, role = _one(_tree(tmp_path, dockerfile=dropped))
    assert (role.context_length, dict(role.engine_args)["max_num_seqs"].value) == (None, 4)
    # ... but not a CMD of its own stage, before it
    kept = exec_form + 'FROM dev\nCMD ["--max-model-len", "3000"]\nENTRYPOINT ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"]\n'
    _, _, role = _one(_tree(tmp_path, dockerfile=kept))
    assert _where(role.context_length) == (3000, "Dockerfile.vllm", 11, 26)
    # a compose `entrypoint:` replaces the ENTRYPOINT and drops the CMD
    compose = COMPOSE + "    entrypoint: [\"vllm\", \"serve\", \"Qwen/Qwen2.5-7B-Instruct\", \"--max-model-len\", \"5000\"]\n"
    _, _, role = _one(_tree(tmp_path, compose, exec_form))
    assert _where(role.context_length) == (5000, "compose.yaml", 14, 83)


def test_a_shell_form_over_continuation_lines_is_placed_in_the_dockerfile(tmp_path):
    dockerfile = ("FROM python:3.11-slim\nRUN pip install vllm==0.8.5\n"
                  "CMD vllm serve Qwen/Qwen2.5-7B-Instruct \\\n    # a comment line inside the instruction\n"
                  "    --max-model-len 262144\n")
    compose = "services:\n  llm:\n    build: ./srv\n"
    checked = run(["check", "--isolated", str(_tree(tmp_path, compose, dockerfile, "srv/Dockerfile"))]).out
    assert f"{tmp_path}/srv/Dockerfile:5:21: CTX109 [error] 262,144 > 32,768 x 1 = 32,768" in checked, checked


def test_build_targets_and_stages(tmp_path):
    dockerfile = ('FROM lmsysorg/sglang:v0.4.6 AS serve\n'
                  'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct", '
                  '"--context-length", "8192"]\n'
                  'FROM python:3.11 AS tools\nCMD ["python3", "-m", "http.server"]\n')
    compose = "services:\n  llm:\n    build:\n      context: .\n      target: serve\n"
    _, dep, role = _one(_tree(tmp_path, compose, dockerfile, "Dockerfile"))
    assert (dep.engine.name.value, dep.engine.version.value, role.context_length.value) == ("sglang", "0.4.6", 8192)
    # the last stage without a target: no engine
    assert adapt_file(read_path(str(_tree(tmp_path, compose.replace("      target: serve\n", ""), dockerfile,
                                          "Dockerfile")))).deployments == []


def test_what_is_not_known_is_said_never_guessed(tmp_path):
    # a build argument from the host: the release is not known, said at the FROM word
    compose = COMPOSE.replace("VLLM_VERSION: v0.9.0", "VLLM_VERSION: ${VLLM_VERSION}")
    out = run(["check", "--isolated", str(_tree(tmp_path, compose))]).out
    assert (f"{tmp_path}/docker/Dockerfile.vllm:3:6: CTX008 [info] the service llm: the image its build starts FROM, "
            "vllm/vllm-openai:${VLLM_VERSION}, needs a build argument not known here (unresolved-value)") in out, out
    _, dep, _ = _one(tmp_path / "compose.yaml")
    assert dep.engine.version is None
    # a Dockerfile that is not there: said at the compose file's `dockerfile`, for a service that runs an engine
    compose = "services:\n  llm:\n    build: {context: ., dockerfile: Dockerfile.gone}\n" \
              "    entrypoint: [vllm, serve, Qwen/Qwen2.5-7B-Instruct]\n"
    out = run(["check", "--isolated", str(_tree(tmp_path, compose, None))]).out
    assert (f"{tmp_path}/compose.yaml:3:37: CTX008 [info] the service llm builds its image, but its Dockerfile "
            f"{tmp_path}/Dockerfile.gone is not found: the image's engine release, ENTRYPOINT, CMD and ENV are not "
            "known (unresolved-value)") in out, out
    # ... and nothing for a web app's build
    assert run(["check", "--isolated", str(_tree(tmp_path, "services:\n  api:\n    build: ./web\n", None))]).out == ""


def test_an_engine_image_beside_build_is_pulled_unless_pull_policy_build(tmp_path):
    # docker/compose: `up` pulls the image where the host lacks it (and builds only when that fails), `up --build`
    # and `pull_policy: build` build it, `never` never pulls it: the release is known only where both agree
    compose = COMPOSE.replace("    build:\n", "    image: vllm/vllm-openai:v0.10.1\n    build:\n") + \
        "    command: [Qwen/Qwen2.5-7B-Instruct, --swap-space, '4']\n"  # a flag newer releases refuse asks
    _, dep, _ = _one(_tree(tmp_path, compose))
    assert (dep.engine.version, dep.engine.release_unknown) == (None, (
        "`docker compose up` pulls vllm/vllm-openai:v0.10.1 where the host lacks it, and `up --build` runs the image "
        "its build makes (FROM vllm/vllm-openai:v0.9.0)"))
    _, dep, _ = _one(_tree(tmp_path, compose.replace("VLLM_VERSION: v0.9.0", "VLLM_VERSION: v0.10.1")))
    assert dep.engine.version.value == "0.10.1"
    for policy in ("build", "never"):
        _, dep, _ = _one(_tree(tmp_path, compose + f"    pull_policy: {policy}\n"))
        assert dep.engine.version.value == "0.9.0"
    # any other name is the tag the build gets
    _, dep, _ = _one(_tree(tmp_path, compose.replace("vllm/vllm-openai:v0.10.1", "local/vllm-secrets:v1")))
    assert dep.engine.version.value == "0.9.0"


def test_a_script_copied_into_the_image_runs_with_the_command_as_its_arguments(tmp_path):
    dockerfile = ("FROM vllm/vllm-openai:v0.17.0\nCOPY entrypoint.sh /usr/local/bin/\n"
                  'ENTRYPOINT ["/usr/local/bin/entrypoint.sh"]\n')
    compose = "services:\n  llm:\n    build: .\n    command: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, '9000']\n"
    _tree(tmp_path, compose, dockerfile, "Dockerfile", **{"entrypoint.sh": '#!/bin/sh\nexec vllm serve "$@"\n'})
    result, dep, role = _one(tmp_path / "compose.yaml")
    assert (dep.engine.version.value, _where(role.context_length)) == ("0.17.0", (9000, "compose.yaml", 4, 68))
    assert result.scripts == [str(tmp_path / "entrypoint.sh")]
    # the folder: one deployment (the script is read through the service), and the lowercase `dockerfile` is read
    (tmp_path / "Dockerfile").rename(tmp_path / "dockerfile")
    checked = run(["check", "--isolated", str(tmp_path)])
    assert "in 2 files, 1 deployment" in checked.err, checked.err


def test_a_dockerfile_named_beside_its_compose_file_is_read_not_said_unread(tmp_path):
    compose = _tree(tmp_path, "services:\n  llm:\n    build: .\n",
                    'FROM vllm/vllm-openai:v0.9.0\nCMD ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "4096"]\n',
                    "Dockerfile")
    both = run(["check", "--isolated", str(compose), str(tmp_path / "Dockerfile")])
    assert "CTX011" not in both.out and "in 2 files, 1 deployment" in both.err, both
    alone = run(["check", "--isolated", str(tmp_path / "Dockerfile")])
    assert "CTX011 [info] a Dockerfile, which ctxlint does not read: its CMD (line 2) is not checked" in alone.out


def test_odd_builds_never_crash(tmp_path):
    for build, dockerfile in (("5", "FROM x"), ("[a, b]", "FROM x"), ("{context: 7}", "FROM x"),
                              (".", "FROM\n"), (".", "CMD [\n"), (".", "FROM a AS\nENTRYPOINT [1, 2]\nCMD \\"),
                              (".", "ARG\nENV\nENV A\nFROM ${B:?x}\nWORKDIR\nCOPY\n"), (".", "\0\1binary"),
                              ("{context: ., target: nope}", "FROM vllm/vllm-openai:v0.9.0\n")):
        compose = f"services:\n  llm:\n    build: {build}\n    command: [Qwen/Qwen2.5-7B-Instruct]\n"
        _tree(tmp_path, compose, dockerfile, "Dockerfile")
        assert run(["check", "--isolated", str(tmp_path)]).code in (0, 1)


def test_a_shell_form_cmd_after_the_engines_entrypoint_is_said_as_the_dockerfiles(tmp_path):
    # Docker gives an exec-form ENTRYPOINT a shell-form CMD as `/bin/sh -c TEXT`: vLLM is run with those words
    compose = _tree(tmp_path, "services:\n  llm:\n    build: .\n",
                    "FROM vllm/vllm-openai:v0.9.0\nCMD vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000\n",
                    "Dockerfile")
    [line] = [x for x in run(["check", "--isolated", str(compose)]).out.splitlines() if "CTX301" in x]
    assert line == (
        f"{tmp_path}/Dockerfile:2:1: CTX301 [error] the image vllm/vllm-openai:v0.9.0 starts vLLM itself (its "
        "ENTRYPOINT), and the Dockerfile's CMD is appended to it: the container runs vLLM with `/bin/sh -c \"vllm "
        "serve Qwen/Qwen2.5-7B-Instruct --max-mo...\"` as its arguments (`vllm serve`, the entrypoint of newer images, "
        "takes `/bin/sh` for the model; the older `python3 -m vllm.entrypoints.openai.api_server` never serves it): "
        "the shell never runs the script and vLLM exits on these words; set `ENTRYPOINT [\"/bin/sh\", \"-c\"]` and "
        "give the whole script as a one-item exec-form CMD (`CMD [\"vllm serve Qwen/Qwen2.5-7B-Instruct ...\"]`), or "
        "give the engine's arguments alone (`CMD [\"--model\", ...]`) "
        "(engine-rejects-value)")


def test_a_run_that_installs_the_engine_anew_replaces_the_from_tags_release(tmp_path):
    # sweep: Dockerfiles FROM vllm/vllm-openai:v0.7.3 that `uv pip install vllm==0.9.1`, and FROM v0.5.5 that install
    # vLLM from git: the FROM tag is not the release that runs
    compose = "services:\n  llm:\n    build: .\n    command: [Qwen/Qwen2.5-7B-Instruct, --swap-space, '4']\n"
    pinned = "FROM vllm/vllm-openai:v0.7.3\nRUN pip uninstall -y vllm && \\\n    uv pip install --system vllm==0.9.1\n"
    _, dep, _ = _one(_tree(tmp_path, compose, pinned, "Dockerfile"))
    assert _where(dep.engine.version) == ("0.9.1", "Dockerfile", 3, 35)
    from_git = "FROM vllm/vllm-openai:v0.5.5\nRUN pip install -U git+https://github.com/vllm-project/vllm.git\n"
    _, dep, _ = _one(_tree(tmp_path, compose, from_git, "Dockerfile"))
    assert (dep.engine.version, dep.engine.release_unknown) == (None, (
        "the Dockerfile's RUN installs vllm over the image vllm/vllm-openai:v0.5.5, whose tag is then not the release "
        "it runs"))


def test_a_here_document_run_is_read_as_the_script_it_runs_and_its_lines_are_no_instructions(tmp_path):
    # a Python heredoc's `from x import y` once started a stage FROM `huggingface_hub` (no deployment), and a heredoc
    # RUN that installs vLLM anew was missed (the FROM tag's release kept)
    compose = "services:\n  llm:\n    build: .\n"
    dockerfile = ("FROM vllm/vllm-openai:v0.8.3\nRUN <<EOF python3\nfrom huggingface_hub import snapshot_download\n"
                  "EOF\nRUN <<EOF\nset -e\npip install vllm==0.10.1\nEOF\n"
                  'COPY <<EOF /start.sh\nFROM x\nEOF\nCMD ["--model", "Qwen/Qwen2.5-7B-Instruct"]\n')
    _, dep, _ = _one(_tree(tmp_path, compose, dockerfile, "Dockerfile"))
    assert (_where(dep.engine.version), dep.model.id.value) == (("0.10.1", "Dockerfile", 7, 19),
                                                              "Qwen/Qwen2.5-7B-Instruct")


def test_a_run_that_installs_another_package_named_after_the_engine_keeps_the_from_tags_release(tmp_path):
    compose = "services:\n  llm:\n    build: .\n    command: [Qwen/Qwen2.5-7B-Instruct, --swap-space, '4']\n"
    for run_line in ("pip install vllm-flash-attn==2.6.2", "pip install -r /vllm-workspace/requirements-extra.txt",
                     "pip install sglang-router"):
        _, dep, _ = _one(_tree(tmp_path, compose, f"FROM vllm/vllm-openai:v0.8.3\nRUN {run_line}\n", "Dockerfile"))
        assert _where(dep.engine.version) == ("0.8.3", "Dockerfile", 1, 23), run_line
    for run_line in ('pip install "vllm[audio]==0.9.2"', "uv pip install --system vllm==0.9.2 && echo ok"):
        _, dep, _ = _one(_tree(tmp_path, compose, f"FROM vllm/vllm-openai:v0.8.3\nRUN {run_line}\n", "Dockerfile"))
        assert dep.engine.version.value == "0.9.2", run_line


def test_an_exec_form_string_with_a_lone_surrogate_is_read_as_docker_reads_it(tmp_path):
    # Go's encoding/json makes a lone `\ud800` U+FFFD; Python kept it, and the text report crashed printing it
    compose = _tree(tmp_path, "services:\n  llm:\n    build: .\n",
                    'FROM vllm/vllm-openai:v0.9.0\nCMD ["--model", "Qwen/Qwen2.5-7B-Instruct", "--x\\ud800"]\n',
                    "Dockerfile")
    checked = run(["check", "--isolated", str(compose)])
    assert checked.code in (0, 1) and "Traceback" not in checked.err, checked.err
    from ctxlint.dockerfile import Dockerfile
    df = Dockerfile("Dockerfile", (tmp_path / "Dockerfile").read_text())
    assert [w.value for w in df.exec_form(df.instructions[1])][2] == "--x\ufffd"


def test_a_build_target_not_known_reads_no_stage(tmp_path):
    # `target: ${TARGET}` of the host's once read the last stage, whose CMD may never run
    dockerfile = ('FROM vllm/vllm-openai:v0.9.0 AS small\nCMD ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "4096"]\n'
                  'FROM vllm/vllm-openai:v0.9.0 AS big\nCMD ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "1000000"]\n')
    compose = "services:\n  llm:\n    build: {context: ., target: '${TARGET}'}\n"
    assert run(["check", "--isolated", str(_tree(tmp_path, compose, dockerfile, "Dockerfile"))]).out == ""
    _, _, role = _one(_tree(tmp_path, compose.replace("'${TARGET}'", "'${TARGET:-small}'"), dockerfile, "Dockerfile"))
    assert role.context_length.value == 4096


def test_an_unpinned_or_exec_form_run_that_installs_the_engine_leaves_the_release_unknown(tmp_path):
    # an unpinned RUN was read as today's newest release (a flag newer releases refuse: an error, not a warning),
    # though the layer cache keeps the release of the day it was built; an exec-form RUN was not read at all
    compose = "services:\n  llm:\n    build: .\n    command: [Qwen/Qwen2.5-7B-Instruct, --swap-space, '4']\n"
    for run_line in ("pip install -U vllm", '["pip", "install", "vllm==0.9.2"]'):
        _, dep, _ = _one(_tree(tmp_path, compose, f"FROM vllm/vllm-openai:v0.8.3\nRUN {run_line}\n", "Dockerfile"))
        assert (dep.engine.version, dep.engine.release_unknown) == (None, (
            "the Dockerfile's RUN installs vllm over the image vllm/vllm-openai:v0.8.3, whose tag is then not the "
            "release it runs")), run_line
