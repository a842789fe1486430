"""Batch-script edge cases a review of the Slurm header reading found: no crash on a digit int() refuses, no one
device from GPUs of several types, an `srun` task's GPUs under --gpus-per-task, an unknown CUDA_VISIBLE_DEVICES,
and a Neuron variable set only in a branch or empty."""
from __future__ import annotations

import pytest

from helpers import run

VLLM = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072{more}\n"


def check(tmp_path, text: str, *args: str) -> str:
    path = tmp_path / "job.sh"
    path.write_text("#!/bin/bash\n" + text)
    done = run(["check", "--isolated", *args, str(path)])
    assert "internal error" not in done.out + done.err
    return done.out.replace(str(path), "job.sh")


@pytest.mark.parametrize("header", ["#SBATCH --gres=gpu:h100:\u00b2\n", "#SBATCH --nodes=\u00b2\n",
                                    "#SBATCH --ntasks=\u00b2 --gpus-per-task=h100:1\n",
                                    "#SBATCH --gres=gpu:h100:\u0663\n"])
def test_a_digit_int_refuses_or_slurm_does_not_read_is_no_count(tmp_path, header):
    out = check(tmp_path, header + VLLM.format(more=" --tensor-parallel-size 8"), "--select", "CTX204,CTX205")
    assert out == ""  # no count read, so no mismatch said (a `٣` is no 3)


@pytest.mark.parametrize("header", ["#SBATCH --gres=gpu:l4:4,gpu:h100:4\n", "#SBATCH --gres=gpu:h100:4,gpu:l4:4\n"])
def test_gpus_of_several_types_name_no_device(tmp_path, header):
    out = check(tmp_path, header + VLLM.format(more=" --tensor-parallel-size 8"), "--select", "CTX201,CTX208")
    assert "no accelerator type" in out and "CTX201" not in out  # the same whatever the order


def test_an_srun_task_sees_its_own_gpus(tmp_path):
    header = "#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-task=h100:1\n"
    assert check(tmp_path, header + "srun " + VLLM.format(more=""), "--select", "CTX204,CTX205") == ""
    out = check(tmp_path, header + "srun " + VLLM.format(more=" --tensor-parallel-size 2"), "--select", "CTX204")
    assert "2 > 1:" in out and "(1 per task (--gpus-per-task; srun binds them to each task))" in out
    # the batch script itself runs on its node's GPUs: 4 (1 per task x 4 tasks)
    assert check(tmp_path, header + VLLM.format(more=""), "--select", "CTX205").startswith(
        "job.sh:3:30: CTX205 [warning] 4 > 1")
    assert check(tmp_path, header + VLLM.format(more=" --tensor-parallel-size 4"), "--select", "CTX204") == ""


def test_an_unknown_cuda_visible_devices_leaves_the_count_unknown(tmp_path):
    text = ("#SBATCH --gres=gpu:h100:8\nfor i in 0 1 2 3 4 5 6 7; do\n  CUDA_VISIBLE_DEVICES=$i "
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --port $((8000+i)) --max-model-len 131072 &\ndone\n")
    assert check(tmp_path, text, "--select", "CTX205") == ""


@pytest.mark.parametrize("assign", ['if [ "$X" = neuron ]; then export VLLM_NEURON_FRAMEWORK=nxdi; fi\n',
                                    "export VLLM_NEURON_FRAMEWORK=\n"])
def test_a_neuron_variable_set_only_in_a_branch_or_empty_says_nothing(tmp_path, assign):
    out = check(tmp_path, "#SBATCH --gres=gpu:h100:1\n" + assign + VLLM.format(more=""), "--select", "CTX208")
    assert "Neuron" not in out


def test_a_ray_backend_over_the_jobs_nodes_may_hold_them_all(tmp_path):
    # KempnerInstitute's multi-node recipes: the Ray cluster starts in a sourced script (not read), vLLM joins it
    text = ("#SBATCH --nodes=2\n#SBATCH --gres=gpu:h100:4\nsource ./init_cluster.sh\n"
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 8 --distributed-executor-backend ray\n")
    assert check(tmp_path, text, "--select", "CTX204") == ""
    # without Ray, TP 8 on a node of 4 is refused as before
    assert "8 > 4" in check(tmp_path, text.replace(" --distributed-executor-backend ray", ""), "--select", "CTX204")
