"""A command's engine is the program it runs (its first word, or what a runner in front of it runs), never another
program's argument (sweep 43: `systemctl enable llama-server` was a llama.cpp deployment with no model)."""
from __future__ import annotations

import pytest

from ctxlint.engines import split_shell
from ctxlint.engines.detect import detect
from ctxlint.engines.apptainer import parse_container


def engines(line: str) -> list[tuple[str, str, int]]:
    """(engine, launcher, the program's word) of every detection in a script line's commands."""
    out = []
    for cmd in split_shell(line, defaults=True).commands:
        out += [(d.engine, d.launcher, cmd.tokens[d.start].text) for d in detect(cmd.tokens)]
    return out


@pytest.mark.parametrize("line", [
    "sudo systemctl enable llama-server", "systemctl --user start llama-server.service",
    'sudo cp "$HOME/infra/llama-server.service" /etc/systemd/system/', "journalctl -u llama-server -f",
    "pkill llama-server", "pkill -f trtllm-serve", "killall text-generation-launcher",
    'cmake --build "$B" --config Release -j 8 --target llama-server llama-cli', "make -j llama-server",
    "sudo cp /opt/build/bin/llama-server /usr/local/bin/", 'ldd "$L" llama-server',
    # a runner's option value is not its program
    "docker run --name llama-server ghcr.io/ggml-org/llama.cpp:server-cuda -m /m.gguf",
    "vllm serve Qwen/Qwen3-8B --served-model-name llama-server",
])
def test_arguments_of_other_programs_start_nothing(line):
    expected = [("vllm", "vllm serve", "vllm")] if line.startswith("vllm") else \
        [("llamacpp", "image:ghcr.io/ggml-org/llama.cpp:server-cuda", "ghcr.io/ggml-org/llama.cpp:server-cuda")] \
        if line.startswith("docker") else []
    assert engines(line) == expected


@pytest.mark.parametrize("line, program", [
    ("llama-server -m /m.gguf -c 8192", "llama-server"),
    ("exec /opt/l/bin/llama-server -m /m.gguf", "/opt/l/bin/llama-server"),
    ("sudo -E env A=1 nohup text-generation-launcher --model-id m", "text-generation-launcher"),
    ("srun --nodes=2 --ntasks-per-node=1 trtllm-llmapi-launch trtllm-serve m --tp_size 8", "trtllm-serve"),
    ("mpirun -n 1 --oversubscribe --allow-run-as-root trtllm-serve m", "trtllm-serve"),
    ("timeout 1h numactl --interleave=all llama-server -m /m.gguf", "llama-server"),
    ("trtllm-llmapi-launch trtllm-serve m", "trtllm-serve"),
    ("docker run --gpus all -p 8080:8080 my/img:1 llama-server -m /m.gguf", "llama-server"),
    ("apptainer exec --nv --bind /a:/b -B /c:/d img.sif llama-server -m /m.gguf", "llama-server"),
    ("singularity --debug exec --nv -eW /tmp img.sif text-generation-launcher --model-id m",
     "text-generation-launcher"),
    ("uv run --with x llama-server -m /m.gguf", "llama-server"),
    ("ray job submit --no-wait -- llama-server -m /m.gguf", "llama-server"),
    ("/opt/run-with-new-libstdc.sh llama-server -m /m.gguf", "llama-server"),
    ("$LAUNCHER llama-server -m /m.gguf", "llama-server"),
    # a launch no argument spells by accident counts behind a wrapper ctxlint does not list
    ("my-wrapper --flag vllm serve m", "vllm"), ("strange-tool python3 -m sglang.launch_server --model-path m",
                                                   "python3"),
])
def test_the_program_a_command_or_its_runner_runs(line, program):
    assert [p for _, _, p in engines(line)] == [program]


def test_apptainer_options_that_take_a_value_are_not_the_image():
    # apptainer's own flag table (apptainer.py): --bind, -B, --env, --home take a value; --nv, -e, -c do not
    texts = "apptainer -c /etc/a.conf exec --nv -e -c --bind /x:/y --env A=1 -H /home/u img.sif vllm serve m".split()
    line = parse_container(texts)
    assert (line.image, texts[line.image], line.subcommand, line.cleanenv, line.env) == (13, "img.sif", "exec", True,
                                                                                         ((10, 0),))
    assert parse_container("apptainer pull img.sif docker://vllm/vllm-openai".split()) is None
    assert parse_container("apptainer exec --nv".split()) is None
    assert parse_container(["apptainer", "run", "--env=A=1,B=2", "x.sif"]).env == ((2, 6),)


def test_apptainer_run_starts_an_engine_image_entrypoint_only():
    assert engines("apptainer run --nv docker://vllm/vllm-openai:v0.8.5 --model m") == [
        ("vllm", "image:docker://vllm/vllm-openai:v0.8.5", "docker://vllm/vllm-openai:v0.8.5")]
    assert engines("apptainer run --nv my.sif llama-server -m /m.gguf") == []  # its runscript is not known


@pytest.mark.parametrize("line", [
    "exec -a srv llama-server -m /m.gguf -c 8192", "exec -cl llama-server -m /m.gguf", "builtin exec llama-server",
    "chpst -u svc llama-server -m /m.gguf", "s6-setuidgid svc llama-server -m /m.gguf",
    "setpriv --reuid=svc llama-server -m /m.gguf", "nsenter -t 1 -n llama-server -m /m.gguf",
    "unshare -n llama-server -m /m.gguf", "firejail --quiet llama-server -m /m.gguf",
    "ip netns exec ns0 llama-server -m /m.gguf", "shifter --image=docker:acme/llama:1 llama-server -m /m.gguf",
    "ch-run /img -- llama-server -m /m.gguf", "enroot start img llama-server -m /m.gguf",
    "scl enable gcc-toolset-12 -- llama-server -m /m.gguf", "systemd-inhibit llama-server -m /m.gguf",
    "caffeinate -i llama-server -m /m.gguf", "cgexec -g cpu:grp llama-server -m /m.gguf",
    "/usr/bin/env -S llama-server -m /m.gguf",
])
def test_a_lone_engine_program_behind_bash_s_exec_options_and_process_wrappers_is_a_launch(line):
    # review: these ran llama-server before the engine had to be the program a command runs, and then were dropped
    assert engines(line) == [("llamacpp", "llama-server", "llama-server")]
