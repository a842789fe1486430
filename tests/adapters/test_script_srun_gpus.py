"""An `srun` in front of the engine states the GPUs it runs on, as a batch header does (sweep of launch scripts:
agents-x-project/PyVision-RL's `srun -p P --gres=gpu:8 ... vllm serve ... --tensor-parallel-size 8` had no device
count, and a `--gres=gpu:h100:8` on the srun line named no device): its GPU type gives the device, the GPUs of its
one-node step the count."""
from __future__ import annotations

from helpers import run

MODEL = "Qwen/Qwen2.5-7B-Instruct"


def check(path) -> str:
    return run(["check", "--isolated", "-q", str(path)]).out


def audit(path) -> list:
    return run(["audit", "--isolated", "--format", "csv", str(path)]).out.splitlines()


def write(tmp_path, text: str):
    path = tmp_path / "serve.sh"
    path.write_text(text)
    return path


def test_srun_gres_type_is_the_device(tmp_path):
    path = write(tmp_path, f"srun -p gpu --gres=gpu:h100:1 -n1 \\\n  vllm serve {MODEL} --max-model-len 32768\n")
    assert check(path) == ""  # was CTX208: no accelerator type
    head, row = audit(path)[:2]
    cells = dict(zip(head.split(","), row.split(",")))
    assert cells["verdict"] == "fits"
    # a type the catalog does not settle (a site's word) names none, as in a header
    path = write(tmp_path, f"srun --gres=gpu:80g:1 vllm serve {MODEL} --max-model-len 32768\n")
    assert "no accelerator type" in check(path)
    # a family in two sizes is any of them (tests/adapters/test_family_devices.py): 7B fits even the 40 GB A100
    path = write(tmp_path, f"srun --gres=gpu:a100:1 vllm serve {MODEL} --max-model-len 32768\n")
    head, row = audit(path)[:2]
    assert dict(zip(head.split(","), row.split(",")))["verdict"] == "fits"


def test_srun_step_gpus_are_the_engines(tmp_path):
    path = write(tmp_path, f"srun --gres=gpu:2 vllm serve {MODEL} --max-model-len 32768 --tensor-parallel-size 4\n")
    out = check(path)
    assert out.splitlines()[-1] == (
        f"{path}:1:100: CTX204 [error] 4 > 2: the unified engine needs tensor x pipeline x data = 4 GPUs but a replica "
        "has 2 (srun --gres=gpu:2). Lower the parallel sizes or raise the accelerator count (parallelism-mismatch)")
    # inside a batch job the step's share is the engine's: the header's 8 H100s are the job's, the step has 2
    path = write(tmp_path, "#!/bin/bash\n#SBATCH --gres=gpu:h100:8\n"
                           f"srun --gpus-per-task=2 vllm serve {MODEL} --max-model-len 32768 --tensor-parallel-size 4\n")
    assert check(path) == (
        f"{path}:3:105: CTX204 [error] 4 > 2: the unified engine needs tensor x pipeline x data = 4 GPUs but a replica "
        "has 2 (srun --gpus-per-task=2). Lower the parallel sizes or raise the accelerator count "
        "(parallelism-mismatch)\n")


def test_srun_over_several_nodes_gives_no_count(tmp_path):
    # `-N 2 --gres=gpu:l40s:4`: 4 on each of 2 nodes; whether the engine spans them is not srun's to say
    llama = "meta-llama/Llama-3.1-8B-Instruct"  # 32 heads: TP 8 and 16 divide them
    path = write(tmp_path, f"srun -N 2 --gres=gpu:l40s:4 vllm serve {llama} --max-model-len 32768 "
                           "--tensor-parallel-size 8\n")
    assert "CTX204" not in check(path)
    assert "CTX204" not in check(write(tmp_path, f"srun --gpus=8 vllm serve {llama} --tensor-parallel-size 16\n"))
