"""A launch script that starts its engine in a tmux pane (sweep 27): the one shell-command word of `tmux new-session`
(and new-window, split-window, respawn-pane) and the line `tmux send-keys ... C-m` types are read as the pane's shell
reads them (lupantech/AgentFlow scripts/serve_vllm.sh types `export CUDA_VISIBLE_DEVICES=$GPU; vllm serve ...` so).
Before, the engine inside the one string was no role. The pane has the environment the tmux server started with,
not the script's: a `$X` the string does not set, and a variable the script exports, are not known there."""
from __future__ import annotations

import pytest

from helpers import run

def check(tmp_path, body: str, gpus: int = 1) -> str:
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/bash\n#SBATCH --gres=gpu:h100:{gpus}\n" + body)
    return run(["check", "--isolated", "-q", str(path)]).out.replace(str(path), "serve.sh")


def test_a_new_session_string_is_a_launch(tmp_path):
    # double-quoted: the script's shell expands $MODEL before tmux gets the string
    out = check(tmp_path, 'MODEL=Qwen/Qwen2.5-7B-Instruct\n'
                          'tmux new-session -d -s vllm "vllm serve $MODEL --max-model-len 1000000"\n')
    assert out.splitlines()[0] == (
        "serve.sh:4:64: CTX109 [error] 1,000,000 > 32,768 x 1 = 32,768: the unified context length 1,000,000 "
        "exceeds the model's trained positions times its RoPE scaling factor by 967,232 tokens. Lower it to 32,768, "
        "or declare the RoPE scaling the model is actually served with (--hf-overrides '{\"rope_scaling\": "
        "{\"rope_type\": \"yarn\", \"factor\": F, \"original_max_position_embeddings\": N}, "
        "\"max_position_embeddings\": 1000000}' with F >= 30.52) (context-exceeds-trained-positions)")


def test_a_line_typed_into_a_pane_is_a_launch(tmp_path):
    # modelled on lupantech/AgentFlow scripts/serve_vllm.sh, with TP=2 where the real script has 1: the typed text
    # exports CUDA_VISIBLE_DEVICES=0 itself, so the pane's engine has one GPU
    body = ('MODEL="Qwen/Qwen2.5-7B-Instruct"\nGPU="0"\nTP=2\nVENV_ACTIVATE="source .venv/bin/activate"\n'
            'tmux new-session -d -s "vllm"\n'
            'CMD_START="\n    $VENV_ACTIVATE;\n    export CUDA_VISIBLE_DEVICES=$GPU;\n'
            '    vllm serve \\"$MODEL\\" \\\n        --port 8000 \\\n        --tensor-parallel-size $TP\n"\n'
            'tmux send-keys -t "vllm:0" "$CMD_START" C-m\n')
    assert check(tmp_path, body, gpus=2) == (
        "serve.sh:15:29: CTX204 [error] 2 > 1: the unified engine needs tensor x pipeline x data = 2 GPUs but a "
        "replica has 1 (CUDA_VISIBLE_DEVICES=0 of 2). Lower the parallel sizes or raise the accelerator count "
        "(parallelism-mismatch)\n")


def test_the_panes_variables_are_not_the_scripts(tmp_path):
    # single-quoted: $MODEL is the pane shell's, which has the tmux server's environment
    out = check(tmp_path, "MODEL=Qwen/Qwen2.5-7B-Instruct\ntmux new -d 'vllm serve $MODEL --max-model-len 4096'\n")
    assert out.splitlines()[-1] == (
        "serve.sh:4:25: CTX008 [info] values ctxlint cannot resolve: argument ${MODEL} (MODEL is the tmux pane's: "
        "its shell has the environment the tmux server started with, this script's only if this command started the "
        "server); the checks that need them are skipped (set them literally) (unresolved-value)")
    # an exported CUDA_VISIBLE_DEVICES reaches `bash -c` (CTX204) but is not known in the pane
    body = "export CUDA_VISIBLE_DEVICES=0\n{} \"vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\"\n"
    assert "CTX204" in check(tmp_path, body.format("bash -c"), gpus=2)
    assert "CTX204" not in check(tmp_path, body.format("tmux new-session -d -s s"), gpus=2)


def test_words_tmux_runs_directly_have_the_panes_environment(tmp_path):
    # several words after the options: tmux runs them without a shell, in the pane's environment too
    body = "export CUDA_VISIBLE_DEVICES=0\n{} vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n"
    assert "CTX204 [error] 2 > 1" in check(tmp_path, body.format("nohup"), gpus=2)  # the script's own child
    assert check(tmp_path, body.format("tmux new -d"), gpus=2) == ""  # the pane's: CUDA_VISIBLE_DEVICES not known
    rows = run(["audit", "--isolated", "--format", "csv", str(tmp_path / "serve.sh")]).out.splitlines()
    assert len(rows) == 2 and ",fits," in rows[1]  # a launch, on the job's two GPUs


@pytest.mark.parametrize("line", [
    "tmux send-keys -t s 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000'",  # typed, never entered
    "tmux send-keys -l -t s 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000' Enter",  # Enter as text
    "tmux has-session -t 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000'",
])
def test_other_tmux_lines_start_nothing_read(tmp_path, line):
    assert check(tmp_path, line + "\n") == ""


def test_pane_script_index():
    from ctxlint.engines.tmux import pane_script_index

    assert pane_script_index(["tmux", "new-session", "-d", "-s", "vllm", "CMD"]) == 5
    assert pane_script_index(["/usr/bin/tmux", "-L", "sock", "new", "-ds", "vllm", "-x80", "CMD", ";", "attach"]) == 7
    assert pane_script_index(["tmux", "split-window", "-h", "-t", "s:0", "--", "CMD"]) == 6
    assert pane_script_index(["tmux", "send-keys", "-t", "s:0", "CMD", "ENTER"]) == 4
    assert pane_script_index(["tmux", "send", "-t", "s", "CMD", "C-m"]) == 4
    assert pane_script_index(["tmux", "send-keys", "-X", "-t", "s", "CMD", "Enter"]) is None
    assert pane_script_index(["tmux", "-c", "CMD"]) is None
    assert pane_script_index(["tmux", "new-window", "vllm", "serve"]) is None


@pytest.mark.parametrize("line", [
    # send-keys types its words one after another with no space between them (cmd-send-keys.c): the pane gets
    # `vllmserveQwen/...`, no engine; before, the words were read as a launch (a false CTX301 on `Enter`)
    "tmux send-keys -t s vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000 Enter",
    "tmux send-keys -t s vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    "tmux rename-window -t s vllm serve",  # a window's name, no command: before, a role with no model
])
def test_tmux_words_that_are_no_command_start_nothing(tmp_path, line):
    assert check(tmp_path, line + "\n") == ""


def test_words_tmux_runs_directly_end_at_the_command_separator(tmp_path):
    # `\;` ends tmux's command: `attach -t s` is tmux's next command, not the engine's arguments (before, a false
    # CTX301: "unrecognized arguments: ; attach")
    line = "tmux new -d -s s vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 20000 \\; attach -t s\n"
    assert check(tmp_path, line) == ""
    rows = run(["audit", "--isolated", "--format", "csv", str(tmp_path / "serve.sh")]).out.splitlines()
    assert len(rows) == 2 and ",fits," in rows[1]


def test_direct_end():
    from ctxlint.engines.tmux import direct_end

    assert direct_end(["tmux", "new", "-d", "-s", "s", "vllm", "serve", "M", ";", "attach"]) == 8
    assert direct_end(["tmux", "-L", "x", "new-window", "vllm", "serve", "M"]) == 7
    assert direct_end(["tmux", "new", "-d", "-s", "s"]) is None  # no command: the default shell
    assert direct_end(["tmux", "send-keys", "-t", "s", "vllm", "serve", "Enter"]) is None
    assert direct_end(["tmux", "attach", "-t", "s"]) is None
    assert direct_end(["tmux", "-c", "vllm serve M"]) is None
    assert direct_end(["tmux"]) is None
