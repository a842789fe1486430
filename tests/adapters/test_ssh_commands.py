"""A launch script that starts its engine on another host through ssh (sweep c28): the one command word of
`ssh [opts] HOST [opts] COMMAND` is run there as `$SHELL -c COMMAND` (openssh-portable ssh.c, session.c), so it is
read as an `sh -c` string. Modelled on miminashi/llm-server-ops report/attachment/*/start_*.sh, which keep a
llama-server command line in LAUNCH_CMD and run `ssh -f "$HOST" "cd ~/llama.cpp && nohup bash -c \\"${LAUNCH_CMD}\\"
> log 2>&1 < /dev/null &"`. Before, the engine inside the string was no role. The remote shell has none of the
script's variables, and the engine none of its devices (a Slurm header describes the batch node, not HOST)."""
from __future__ import annotations

import pytest

from helpers import run


def check(tmp_path, body: str, header: str = "") -> str:
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n" + header + body)
    return run(["check", "--isolated", "-q", str(path)]).out.replace(str(path), "serve.sh")


def test_a_command_string_ssh_runs_is_a_launch(tmp_path):
    # as miminashi/llm-server-ops start_*.sh: a double-quoted string, expanded here, holding `bash -c "$LAUNCH_CMD"`
    body = ('HOST="${HOST:-gpu-box}"\nCTX_SIZE="${CTX_SIZE:-1000000}"\n'
            'LAUNCH_CMD="./build/bin/llama-server -m /models/qwen/Qwen2.5-7B-Instruct-Q4_K_M.gguf -ngl 999 '
            '--ctx-size ${CTX_SIZE} --parallel 1"\n'
            'ssh -f "$HOST" "cd ~/llama.cpp && nohup bash -c \\"${LAUNCH_CMD}\\" > /tmp/l.log 2>&1 < /dev/null &"\n')
    # the reference `${LAUNCH_CMD}` is where its value sits, as for `bash -c "$CMD"`
    assert check(tmp_path, body).splitlines()[0] == (
        "serve.sh:5:51: CTX109 [error] 1,000,000 > 32,768: the unified context length 1,000,000 exceeds the model's "
        "training context (n_ctx_train, the GGUF's context_length) by 967,232 tokens; no RoPE scaling stretches it, "
        "so positions past it were not trained for, and llama-server b6925 to at least b8850 also caps each slot at "
        "n_ctx_train. Lower it to 32,768, or set RoPE scaling that covers it and lift the cap on every release: "
        "--rope-scaling yarn --rope-scale F --yarn-orig-ctx 32768 (F >= 30.52) "
        "--override-kv <arch>.context_length=int:1000000 (context-exceeds-trained-positions)")


def test_the_remote_shells_variables_are_not_the_scripts(tmp_path):
    # single-quoted: $MODEL is the remote shell's, and ssh passes none of this script's variables
    out = check(tmp_path, "export MODEL=Qwen/Qwen2.5-7B-Instruct\nssh node2 'vllm serve $MODEL --max-model-len 4096'\n")
    assert out.splitlines()[-1] == (
        "serve.sh:3:23: CTX008 [info] values ctxlint cannot resolve: argument ${MODEL} (MODEL is the remote shell's: "
        "ssh runs the command on another host, without this script's variables); the checks that need them are "
        "skipped (set them literally) (unresolved-value)")


def test_the_batch_nodes_gpus_are_not_the_remote_hosts(tmp_path):
    # the header's one H100 is this node's: TP 2 on node2 is no mismatch there, while the same line here is one
    header = "#SBATCH --gres=gpu:h100:1\n"
    line = "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2"
    assert "CTX204" not in check(tmp_path, f'ssh -o BatchMode=yes node2 -f "{line}"\n', header)
    rows = run(["audit", "--isolated", "--format", "csv", str(tmp_path / "serve.sh")]).out.splitlines()
    assert len(rows) == 2 and ",needs >= 11.8 GiB/GPU," in rows[1]  # a launch, on a host of devices not said
    assert "CTX204 [error] 2 > 1" in check(tmp_path, f'bash -c "{line}"\n', header)


@pytest.mark.parametrize("line", [
    "ssh -N -L 8000:localhost:8000 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000'",  # forward only
    "ssh node2 cat 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000'",  # several words: not read
    "ssh 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000'",  # the destination, no command
])
def test_other_ssh_lines_start_nothing_read(tmp_path, line):
    assert check(tmp_path, line + "\n") == ""


def test_remote_script_index():
    from ctxlint.engines.ssh_commands import remote_script_index

    assert remote_script_index(["ssh", "-f", "host", "CMD"]) == 3
    assert remote_script_index(["/usr/bin/ssh", "-p", "2222", "-i", "key", "user@host", "CMD"]) == 6
    assert remote_script_index(["ssh", "host", "-tt", "-oBatchMode=yes", "CMD"]) == 4  # options after the host
    assert remote_script_index(["ssh", "-s", "host", "sftp"]) is None
    assert remote_script_index(["ssh", "host"]) is None


def test_a_script_fed_to_ssh_has_not_the_batch_nodes_gpus(tmp_path):
    # `ssh HOST <<EOV` runs the body on HOST too: before, the header's one GPU was taken as its (a false CTX204)
    body = "ssh node2 <<EOV\nvllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\nEOV\n"
    assert "CTX204" not in check(tmp_path, body, "#SBATCH --gres=gpu:h100:1\n")
    assert "CTX204 [error] 2 > 1" in check(tmp_path, body.replace("ssh node2", "bash"), "#SBATCH --gres=gpu:h100:1\n")


@pytest.mark.parametrize("prefix", ["ssh node2", "ssh -p 2222 node2 -t", "ssh node2 env CUDA_VISIBLE_DEVICES=0,1"])
def test_several_command_words_ssh_runs_have_not_the_batch_nodes_gpus(tmp_path, prefix):
    # `ssh HOST vllm serve ...`: ssh joins the words with spaces and HOST's shell runs them (openssh-portable
    # ssh.c); the engine read from them is HOST's, not the batch node's (before: a false CTX204 from the header)
    header = "#SBATCH --gres=gpu:h100:1\n"
    line = "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2"
    assert "CTX204" not in check(tmp_path, f"{prefix} {line}\n", header)
    # a local engine after an ssh line keeps them; so does one that merely names a host `ssh` runs nothing on
    assert "CTX204 [error] 2 > 1" in check(tmp_path, f"ssh -f node2 true\n{line}\n", header)
    assert "CTX204 [error] 2 > 1" in check(tmp_path, f"ssh -N -f -L 8000:localhost:8000 node2 && {line}\n", header)


def test_a_double_dash_before_the_destination_ends_sshs_options():
    from ctxlint.engines.ssh_commands import remote_script_index

    # ssh.c: after `--` no option is read after the destination either (opt_terminated): `-t CMD` is the command
    assert remote_script_index(["ssh", "--", "host", "-t", "CMD"]) is None
    assert remote_script_index(["ssh", "host", "--", "CMD"]) == 3
    assert remote_script_index(["ssh", "--", "host", "CMD"]) == 3


@pytest.mark.parametrize("first, remote", [
    ("ssh -f node2 true; bash <<EOV", False),  # ssh on the line, but bash here reads the body
    ("ssh -N -f -L 8000:localhost:8000 node2 && bash <<EOV", False),
    ("cat <<EOV | ssh node2 bash", True),  # piped to ssh: HOST's shell reads it
    ("ssh node2 bash -s <<EOV", True),
])
def test_only_a_body_fed_to_ssh_runs_on_another_host(tmp_path, first, remote):
    body = f"{first}\nvllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\nEOV\n"
    assert ("CTX204 [error] 2 > 1" in check(tmp_path, body, "#SBATCH --gres=gpu:h100:1\n")) is not remote


@pytest.mark.parametrize("feed", ["ssh node2 <<'EOV'", "ssh node2 bash -s <<EOV", "cat <<'EOV' | ssh node2 bash"])
def test_a_body_fed_to_ssh_has_not_the_scripts_variables(tmp_path, feed):
    # HOST's shell reads the body without this script's variables, exported ones too (ssh passes only what
    # SendEnv names): `$LEN` there is not 1,000,000 (before: this script's value, a false CTX109)
    dollar = "\\$" if "'" not in feed else "$"  # unquoted: `\$LEN` is left for HOST's shell
    body = (f"export LEN=1000000\n{feed}\n"
            f"vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len {dollar}LEN\nEOV\n")
    out = check(tmp_path, body)
    assert "CTX109" not in out
    assert "LEN is the remote shell's: ssh runs the command on another host" in out


def test_several_command_words_the_remote_shell_reads_otherwise_are_not_read(tmp_path):
    # ssh joins its command words with spaces and HOST's shell reads the text again (ssh.c, session.c): a quoted
    # `'$LEN'` reaches HOST as `$LEN`, HOST's variable, not the text `$LEN` vllm refuses (before: a false CTX301)
    out = check(tmp_path, "export LEN=1000000\nssh node2 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len '$LEN'\n")
    assert "CTX301" not in out and "CTX109" not in out
    # words HOST's shell reads as typed here are read as before, a value this script's shell expanded included
    out = check(tmp_path, "L=1000000\nssh node2 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len $L\n")
    assert "CTX109 [error] 1,000,000 > 32,768" in out


# ssh behind a program that runs it unchanged: timeout (coreutils src/timeout.c, getopt "+fk:ps:v"), sshpass
# (sshpass 1.10 main.c, getopt "+f:d:p:P:he::Vv"), setsid (util-linux setsid.c, "+Vhcfw"). Before, none was read:
# no launch at all. No repository of sweeps c28/cli27 wraps its ssh so; the shapes are the man pages'.
@pytest.mark.parametrize("wrapper", [
    "timeout 60", "timeout -s INT -k 5 --foreground 60", "timeout --signal=KILL --kill-after 3 -v 1h",
    "timeout --preserve-status 2m", "sshpass -p secret", "sshpass -f /tmp/pw", "sshpass -d 3", "sshpass -e",
    "sshpass -eMY_PW -P assword -v", "setsid -f", "nohup timeout 60 sshpass -p secret env A=1", "/usr/bin/timeout 9",
])
def test_a_wrapped_ssh_is_read_as_a_bare_one(tmp_path, wrapper):
    out = check(tmp_path, f"export MODEL=Qwen/Qwen2.5-7B-Instruct\n{wrapper} ssh node2 'vllm serve $MODEL'\n")
    assert "(MODEL is the remote shell's: ssh runs the command on another host" in out


def test_a_wrapped_ssh_has_not_the_batch_nodes_gpus(tmp_path):
    header = "#SBATCH --gres=gpu:h100:1\n"
    line = "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 1000000"
    out = check(tmp_path, f"timeout 1h sshpass -p pw ssh node2 '{line}'\n", header)
    assert "CTX109 [error]" in out and "CTX204" not in out  # read, and on node2
    assert "CTX204 [error] 2 > 1" in check(tmp_path, f"timeout 1h bash -c '{line}'\n", header)


@pytest.mark.parametrize("line", [
    "timeout --bogus 60 ssh node2",  # an option timeout does not take: it runs nothing
    "timeout -h 60 ssh node2", "sshpass -V ssh node2",  # help and version: print and exit
    "setsid -p ssh node2",
])
def test_a_wrapper_that_runs_no_ssh_is_not_read_as_one(tmp_path, line):
    assert check(tmp_path, line + " 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000'\n") == ""


def test_wrapped_command():
    from ctxlint.engines.ssh_commands import wrapped_command

    assert wrapped_command(["timeout", "-sINT", "--k=5", "60", "ssh"], 0) == 4
    assert wrapped_command(["x", "timeout", "--sig", "HUP", "--", "60", "ssh"], 1) == 6
    assert wrapped_command(["sshpass", "-pPW", "-v", "ssh"], 0) == 3
    assert wrapped_command(["timeout", "--foreground=x", "60", "ssh"], 0) is None  # a flag given a value
    assert wrapped_command(["timeout", "60"], 0) is None


# A body fed to `ssh HOST COMMAND` is COMMAND's input on HOST: a script only where COMMAND reads it as one, as a
# local body is (heredocs.read_as_script): a shell, or a file with a shell script's name written to run later.
# Before, every body on an ssh line was read as HOST's script, a `cat > cfg.txt` one included.
@pytest.mark.parametrize("line", ["ssh node2 'cat > /tmp/cfg.txt'", "ssh node2 cat", "ssh node2 tee /tmp/a.yaml",
                                  "timeout 60 ssh -T node2 'cat > notes.md'",
                                  'ssh -p "$PORT" "$HOST" "cat > /tmp/cfg.yaml"',
                                  "ssh node2 sudo -u svc tee /tmp/a.yaml", "ssh node2 sudo -u svc python3 - -s"])  # `"$HOST"`: one word still
def test_a_body_a_remote_command_writes_to_a_data_file_is_data(tmp_path, line):
    body = f"{line} <<EOF\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000\nEOF\n"
    assert check(tmp_path, body) == ""


@pytest.mark.parametrize("line", ["ssh node2 'cat > run.sh'", "ssh node2 'bash -s'", "ssh node2",
                                  "ssh node2 > /tmp/log", "sshpass -p pw ssh node2 sudo bash",
                                  # what runs on HOST is not known: read as before
                                  'ssh $SSH_OPTS "$HOST" cat', 'ssh "$HOST" "$REMOTE_CMD"',
                                  # a login or root shell reads its stdin as commands: `sudo -i`, `su -`
                                  "ssh node2 sudo -i", "ssh node2 'sudo su -'", "ssh node2 su - svc",
                                  "ssh node2 sudo -s", "ssh node2 'sudo -u svc -i'", "ssh node2 sudo -Hiu svc",
                                  "ssh node2 sudo --login", "ssh node2 fish", "ssh node2 tcsh"])
def test_a_body_a_remote_shell_reads_or_a_script_written_there_is_read_on_the_host(tmp_path, line):
    body = f"{line} <<EOF\nvllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 1000000\nEOF\n"
    out = check(tmp_path, body, "#SBATCH --gres=gpu:h100:1\n")
    assert "CTX109 [error]" in out and "CTX204" not in out  # a launch, on node2
