"""An engine another host runs: pdsh and clush run their operands there as ssh does (engines/ssh_commands.py), an
srun in front of such a hop asks this cluster's GPUs, not the remote host's, and the remote engine gets none of this
script's environment. And `timeout` refuses a long option's start two of its names share (`--v`: --verbose or
--version; coreutils 9.1 `timeout --v 1 echo hi` prints "option '--v' is ambiguous" and exits 125, checked), so a
command behind it never starts."""
from __future__ import annotations

import pytest

from helpers import run

LINE = "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 1000000"
HEADER = "#SBATCH --gres=gpu:h100:1\n"


def check(tmp_path, body: str, header: str = HEADER) -> str:
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n" + header + body)
    return run(["check", "--isolated", "-q", str(path)]).out.replace(str(path), "serve.sh")


@pytest.mark.parametrize("prefix", ["pdsh -w node2", "pdsh -R ssh -w node[1-2]", "pdsh -Sb -f 4 -w node2",
                                    "clush -w node2", "clush -b -w node[1-2]", "/usr/bin/pdsh -w node2"])
def test_an_engine_pdsh_or_clush_runs_has_not_the_batch_nodes_gpus(tmp_path, prefix):
    # before: read as a local launch, the header's one H100 taken as the engine's (a false CTX204 2 > 1)
    out = check(tmp_path, f"{prefix} {LINE}\n")
    assert "CTX109 [error]" in out and "CTX204" not in out  # still a launch, on hosts of devices not said


@pytest.mark.parametrize("prefix", ["srun --gres=gpu:h100:1 ssh node2", "srun --gres=gpu:h100:1 pdsh -w node2",
                                    "srun -G 1 timeout 60 ssh node2"])
def test_an_srun_in_front_of_a_hop_asks_this_clusters_gpus_not_the_engines(tmp_path, prefix):
    # srun's step runs ssh on this cluster's node; the engine runs on node2. Before: srun's 1 GPU was the engine's
    assert "CTX204" not in check(tmp_path, f"{prefix} {LINE}\n", "")
    # an srun on the far side of the hop runs the engine there, with the GPUs it asks for (as before)
    assert "CTX204 [error] 2 > 1" in check(tmp_path, f"ssh node2 srun --gres=gpu:h100:1 {LINE}\n", "")


@pytest.mark.parametrize("prefix", ["ssh node2", "pdsh -w node2", "A=1 ssh node2", "srun ssh node2"])
def test_a_remote_engine_gets_none_of_the_scripts_environment(tmp_path, prefix):
    # ssh passes only what SendEnv names (ssh_config(5)): an exported VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 here is not
    # node2's engine's. Before: read as the engine's (CTX303 in place of CTX109); a local launch keeps it
    body = f"export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n{prefix} vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000\n"
    out = check(tmp_path, body, "")
    assert "CTX109 [error]" in out and "CTX303" not in out
    assert "CTX303 [error]" in check(tmp_path, body.replace(f"{prefix} ", ""), "")


def test_pdsh_words_the_remote_shell_reads_otherwise_are_not_read(tmp_path):
    # pdsh joins its command words with spaces (chaos/pdsh src/pdsh/opt.c): `'$LEN'` is node2's variable there
    out = check(tmp_path, "LEN=1000000\npdsh -w node2 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len '$LEN'\n")
    assert out == ""
    out = check(tmp_path, "LEN=1000000\npdsh -w node2 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len $LEN\n")
    assert "CTX109 [error] 1,000,000 > 32,768" in out


@pytest.mark.parametrize("options, starts", [
    # coreutils 9.1 (checked): --v and --ve are ambiguous (exit 125); --verb, --k=5, --s KILL, --f, --p run the command
    ("--v", False), ("--ve", False), ("--h", False), ("--version", False), ("--verbose=1", False),
    ("--verb", True), ("--verbose", True), ("--kill-after=5", True), ("-k 5", True), ("-s KILL", True),
    ("--k=5", True), ("--s KILL", True), ("--f", True), ("--p", True),
])
def test_timeout_options(tmp_path, options, starts):
    out = check(tmp_path, f"timeout {options} 60 {LINE}\n")
    assert ("CTX204 [error] 2 > 1" in out) is starts
    out = check(tmp_path, f"timeout {options} 60 ssh node2 {LINE}\n")
    assert ("CTX109 [error]" in out) is starts and "CTX204" not in out


def test_remote_hop_and_pdsh_command_start():
    from ctxlint.engines.ssh_commands import pdsh_command_start, remote_hop

    assert remote_hop(["srun", "ssh", "h", "vllm"], 3) == 1
    assert remote_hop(["ssh", "h", "srun", "vllm"], 3) == 0
    assert remote_hop(["ssh", "-N", "h", "vllm"], 3) is None  # -N runs no command
    assert remote_hop(["pdsh", "-w", "h", "vllm"], 3) == 0
    assert pdsh_command_start(["pdsh", "-w", "h", "-R", "ssh", "vllm", "serve"]) == 5
    assert pdsh_command_start(["pdsh", "-wh", "-g", "gpu", "-Sb", "vllm"]) == 5
    assert pdsh_command_start(["pdsh", "-L"]) is None  # lists its modules and exits
    assert pdsh_command_start(["pdsh", "-w", "h", "-Z", "vllm"]) is None  # an option no module listed takes


@pytest.mark.parametrize("command", [f'"{LINE}"', f"'cd /srv && {LINE}'", f'"export A=1; {LINE}"'])
def test_an_engine_in_pdshs_one_command_string_is_read_as_sshs_is(tmp_path, command):
    # `pdsh -w HOSTS "CMD"`, pdsh's usual form, runs CMD's text on each host as `ssh HOST "CMD"` does. Before, the
    # string was never read: no launch, the CTX109 below unsaid. No local GPUs there (no CTX204 2 > 1), and none of
    # the script's exported variables
    out = check(tmp_path, f"export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\npdsh -w node[1-2] {command}\n")
    assert "CTX109 [error]" in out and "CTX204" not in out and "CTX303" not in out


ALLOW = "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"


@pytest.mark.parametrize("line", [
    f"ssh node2 {ALLOW} vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"ssh -p 22 node2 env {ALLOW} vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"pdsh -w node[1-2] {ALLOW} vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"clush -w node[1-2] {ALLOW} vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"srun ssh node2 {ALLOW} vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f'srun ssh node2 "{ALLOW} vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000"',
    f"ssh node2 \"bash -c '{ALLOW} vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000'\"",
    f'ssh node2 "export {ALLOW}; vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000"',
])
def test_the_remote_commands_own_prefixes_are_the_remote_engines_environment(tmp_path, line):
    # HOST's shell runs the joined words `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve ...`: A=1 before a command is
    # that command's environment (bash), there as here, so vLLM on node2 starts above the trained length: CTX303 as
    # for a local prefix. Before, the unquoted forms dropped the prefix: a false CTX109 (the engine refuses to start)
    out = check(tmp_path, line + "\n", "")
    assert "CTX303 [error]" in out and "CTX109" not in out


@pytest.mark.parametrize("line", [
    # the prefix is this host's ssh's, or clush's `-o` option's value: not the remote engine's
    f"{ALLOW} ssh node2 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"clush -w node2 -o {ALLOW} vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    # behind a launcher, as the script's exported variables: ssh passes none of them
    f"export {ALLOW}\nsrun ssh node2 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000'",
    f"export {ALLOW}\nmpirun -np 1 ssh node2 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
])
def test_a_prefix_outside_the_remote_command_is_not_the_remote_engines(tmp_path, line):
    out = check(tmp_path, line + "\n", "")
    assert "CTX109 [error]" in out and "CTX303" not in out


@pytest.mark.parametrize("prefix", ["srun ssh node2", "srun --gres=gpu:h100:1 ssh node2", "mpirun -np 1 ssh node2",
                                    "mpiexec -n 1 ssh -t node2", "taskset -c 0 ssh node2", "srun -N1 pdsh -w node2",
                                    "timeout 60 ssh node2", "nohup ssh node2"])
def test_a_launcher_in_front_of_ssh_runs_its_one_command_string_remotely(tmp_path, prefix):
    # `srun ssh node2 "vllm serve ..."`: srun runs ssh, which runs the string on node2. Before, a launcher in front of
    # ssh hid the string (no launch at all); read as the remote command it is, with none of the header's or srun's
    # GPUs (no CTX204 2 > 1)
    out = check(tmp_path, f'{prefix} "{LINE}" &\n')
    assert "CTX109 [error]" in out and "CTX204" not in out


def test_a_launcher_in_front_of_ssh_keeps_the_remote_shells_reading(tmp_path):
    # ssh joins `bash -c "vllm serve M ..."` into `bash -c vllm serve M ...`: node2's bash runs `vllm` alone (bash
    # 5.2.15: `bash -c vllm serve M` runs vllm with no arguments, $0=serve), not the server; before, behind srun the
    # words were read as this host's `bash -c` (a local launch on srun's GPUs, CTX204 2 > 1)
    assert check(tmp_path, f'srun --gres=gpu:h100:1 ssh node2 bash -c "{LINE}"\n', "") == ""
    # and words node2's shell reads otherwise are not read: `'$LEN'` is node2's variable
    out = check(tmp_path, "LEN=1000000\nsrun ssh node2 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len '$LEN'\n")
    assert out == ""


@pytest.mark.parametrize("prefix", ["srun ./run.sh ssh node2", "srun python launch.py --via ssh node2",
                                    "taskset -c 0 ./wrap.sh ssh node2", "mpirun -np 1 ./hop.sh pdsh -w node2"])
def test_an_ssh_that_is_an_argument_of_the_launchers_program_is_not_a_hop(tmp_path, prefix):
    # srun runs ./run.sh (bash 5.2.15 with a stub srun: `srun ./run.sh ssh node2 "..."` runs run.sh, whose arguments
    # the ssh words are): no ssh runs the string, so it is no launch. Before, the first `ssh` word anywhere after the
    # launcher was read as its program: a false CTX109 on a command that may never run
    assert check(tmp_path, f'{prefix} "{LINE}"\n', "") == ""


@pytest.mark.parametrize("line", [
    # env -i starts the program with only the assignments after it; -u NAME without NAME (coreutils env(1))
    f"ssh node2 {ALLOW} env -i vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"ssh node2 {ALLOW} env -u VLLM_ALLOW_LONG_MAX_MODEL_LEN vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"ssh node2 {ALLOW} env --unset=VLLM_ALLOW_LONG_MAX_MODEL_LEN vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"{ALLOW} env -i vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
])
def test_a_prefix_env_clears_or_unsets_is_not_the_engines(tmp_path, line):
    # bash 5.2.15 with a stub vllm: `A=1 env -u A vllm` runs vllm without A. Before, the prefix was still read as
    # vLLM's environment: a false CTX303 where vLLM refuses the length (CTX109)
    out = check(tmp_path, line + "\n", "")
    assert "CTX109 [error]" in out and "CTX303" not in out


@pytest.mark.parametrize("line", [
    # env reads its options up to its first operand: `env A=1 -u X vllm` runs `-u` (coreutils env: "env: '-u': No such
    # file or directory"), so the -u is no option and vLLM never starts with A=1
    f"ssh node2 env {ALLOW} -u X vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"ssh node2 env {ALLOW} -- vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
])
def test_an_option_after_envs_assignment_is_not_read_as_envs(tmp_path, line):
    assert "CTX303" not in check(tmp_path, line + "\n", "")


@pytest.mark.parametrize("line", [
    f"ssh node2 {ALLOW} timeout 60 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"ssh node2 {ALLOW} taskset -c 0 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
    f"pdsh -w node2 env {ALLOW} numactl -N 0 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1000000",
])
def test_a_remote_prefix_reaches_the_engine_through_a_passing_launcher(tmp_path, line):
    # HOST's shell runs `A=1 timeout 60 vllm serve ...`: timeout passes its environment on (bash 5.2.15 with a stub
    # vllm: A=1), as `A=1 timeout 60 vllm ...` does here (CTX303). Before, the remote prefix was dropped: a false CTX109
    out = check(tmp_path, line + "\n", "")
    assert "CTX303 [error]" in out and "CTX109" not in out


@pytest.mark.parametrize("line", [
    # GNU env 9.1 reads no option after an assignment: `env A=1 -- vllm` runs a program named `--` and fails
    # ("'--': No such file or directory", exit 127, checked); before: read as a launch (a false CTX204)
    f"env A=1 -- {LINE}", f"/usr/bin/env -i A=1 -- {LINE}",
    # a launcher that runs echo (or another printer) starts nothing of the words after it (before: a launch)
    f"srun echo ssh node2 {LINE}", f"srun echo {LINE}", f"mpirun -np 2 printf '%s ' {LINE}", f"srun -N1 echo {LINE}",
])
def test_words_a_command_only_prints_or_cannot_run_start_nothing(tmp_path, line):
    assert check(tmp_path, line + "\n") == ""


@pytest.mark.parametrize("line", [
    f"env -- A=1 {LINE}", f"env A=1 {LINE}", f"srun --gres=gpu:h100:1 {LINE}", f"srun -J echo {LINE}",
])
def test_what_env_and_a_launcher_do_run_is_still_read(tmp_path, line):
    # `env -- A=1 vllm` runs vllm with A=1 (coreutils 9.1, checked); `srun -J echo` may name its job `echo`
    assert "CTX204 [error] 2 > 1" in check(tmp_path, line + "\n")


def test_a_here_document_an_srun_ssh_feeds_runs_on_the_remote_host(tmp_path):
    # already so before this change: srun runs ssh here, the body runs on node2 (no CTX204 from srun's one GPU,
    # no CTX303 from this script's export); the same script without the hop is checked with both
    body = (f"export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\nsrun --gres=gpu:h100:1 ssh node2 'bash -s' <<EOF\n{LINE}\nEOF\n")
    out = check(tmp_path, body, "")
    assert "CTX109 [error]" in out and "CTX204" not in out and "CTX303" not in out


@pytest.mark.parametrize("line", [
    # bash's `command`, `exec` and GNU nohup end their options at `--` and run the program after it (bash 5.2.15,
    # coreutils 9.1: `command -- echo RAN`, `exec -a x -- echo RAN`, `nohup -- echo RAN` each print RAN); the
    # `--` left as the program was read as one named `--`, no launch (a lost CTX204/CTX109)
    f"command -- {LINE}", f"command -p -- {LINE}", f"exec -- {LINE}", f"exec -a x -- {LINE}", f"exec -c -- {LINE}",
    f"nohup -- {LINE}", f"A=1 command -- {LINE}", f"exec nohup -- {LINE}", f"command -p {LINE}", f"time -p {LINE}",
])
def test_a_double_dash_after_command_exec_or_nohup_runs_the_program(tmp_path, line):
    assert "CTX204 [error] 2 > 1" in check(tmp_path, line + "\n")


@pytest.mark.parametrize("line", [
    # after an assignment GNU env reads no option: `env A=1 -u X vllm` runs a program named `-u` (coreutils 9.1:
    # "'-u': No such file or directory"), as `env A=1 -- vllm` runs `--`; nohup refuses an option it lacks
    f"env A=1 -u X {LINE}", f"env A=1 -i {LINE}", f"nohup -p {LINE}",
])
def test_an_option_where_env_or_nohup_takes_the_program_starts_nothing(tmp_path, line):
    assert check(tmp_path, line + "\n") == ""


@pytest.mark.parametrize("line", [f"time -p {LINE}", f"time -- {LINE}", f"time -p -- {LINE}", f"command -p {LINE}"])
def test_the_options_of_time_and_command_leave_the_program(tmp_path, line):
    # bash 5.2.15: `time -p -- echo RAN`, `command -p echo RAN` print RAN
    assert "CTX204 [error] 2 > 1" in check(tmp_path, line + "\n")
