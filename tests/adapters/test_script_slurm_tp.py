"""A parallel size a script states but ctxlint cannot resolve, and the Slurm variables a batch header fixes (sweep
43: `--tensor-parallel-size $((SLURM_NNODES * SLURM_GPUS_ON_NODE))` under `--nodes=4`, `--gpus-per-node=4` was
"needs >= 716.7 GiB per GPU at TP 1" for a run at TP 16)."""
from __future__ import annotations

from ctxlint.adapters.slurm_header import slurm_environment
from helpers import run

LAUNCH = "vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 131072 --tensor-parallel-size {tp}\n"
UNKNOWN = ("CTX208 [info] KV pool of unified not declared and not derivable: no accelerator type is given, and the "
           "tensor-parallel size is stated but not known (CTX008 names it): the memory one GPU needs depends on it; at "
           "TP 1 one request of 131,072 tokens would need >= 198.5 (band 180.2-204.1) GiB on its one GPU (the weights, "
           "the KV cache and the engine's own memory), which a larger size spreads over its GPUs, so no need per GPU "
           "and no device verdict is given; state the size literally, and the device; capacity checks skip these "
           "roles (capacity-not-derivable)")


def check(path) -> str:
    return run(["check", "--isolated", "-q", str(path)]).out


def verdict(path) -> str:
    return run(["audit", "--isolated", "--format", "csv", str(path)]).out.splitlines()[1].split(",")[14]


def test_an_unknown_tensor_parallel_size_gives_no_per_gpu_need(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n" + LAUNCH.format(tp="$TP"))
    assert check(path) == (
        f"{path}:2:1: {UNKNOWN}\n{path}:2:92: CTX008 [info] values ctxlint cannot resolve: --tensor-parallel-size "
        "${TP} (TP is not set in the file); the checks that need them are skipped (set them literally) "
        "(unresolved-value)\n")
    assert verdict(path) == "unknown"  # was "needs >= 198.5 GiB/GPU", a TP 1 figure
    # stated and known, the need per GPU stays
    path.write_text("#!/bin/bash\n" + LAUNCH.format(tp="4"))
    assert verdict(path).startswith("needs >= ")


def test_arithmetic_of_unknown_values_is_not_called_command_substitution(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n" + LAUNCH.format(tp="$((NODES * 4))"))
    assert "--tensor-parallel-size $((NODES * 4)) (arithmetic expansion ctxlint cannot evaluate)" in check(path)


def test_the_slurm_header_fixes_the_job_variables(tmp_path):
    path = tmp_path / "serve.sbatch"
    # vLLM over the job's nodes on the Ray cluster the script starts: 4 GPUs a node x 4 nodes (test_script_slurm_gpus)
    header = "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --gpus-per-node=4\nsrun ray start --head --block &\n"
    path.write_text(header + LAUNCH.format(tp="$((SLURM_NNODES * SLURM_GPUS_ON_NODE))"))
    assert check(path) == (
        f"{path}:5:1: CTX208 [info] KV pool of unified not declared and not derivable: no accelerator type (or "
        "available_kv_gib) is given (16 per replica, type unknown); holding one request of 131,072 tokens needs >= 17.4 (band 15.7-20) GiB per GPU "
        "at TP 16 (L4 yes, A10G yes, L40S yes, A100-40GB yes, A100-SXM4-80GB yes, H100-SXM-80GB yes, H200 yes, B200 "
        "yes, MI300X yes); state the device (`default-accelerator:` in .ctxlint.yaml, or a Slurm header naming a type "
        "such as `#SBATCH --gres=gpu:h100:4` for a batch script; a site's `a100` or `v100` comes in two memory sizes "
        "and is checked over both); capacity checks skip these roles (capacity-not-derivable)\n")
    # a range of nodes fixes no count: unknown, said
    path.write_text(header.replace("--nodes=4", "--nodes=2-4") + LAUNCH.format(tp="$((SLURM_NNODES * 4))"))
    assert verdict(path) == "unknown"


def test_which_header_options_set_which_variables():
    assert slurm_environment("#!/bin/bash\n#SBATCH -N 2 --gres=gpu:h100:8\n#SBATCH --time=1:00\nsrun x\n") == {
        "SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2", "SLURM_GPUS_ON_NODE": "8"}
    assert slurm_environment("#SBATCH --gpus-per-node=4\n") == {"SLURM_GPUS_ON_NODE": "4", "SLURM_GPUS_PER_NODE": "4"}
    assert slurm_environment("#SBATCH --gpus-per-node=h100:4 -N2-4\n") == {"SLURM_GPUS_ON_NODE": "4"}
    assert slurm_environment("echo hi\n#SBATCH --nodes=4\n") == {}  # after the first command: not a directive
    assert slurm_environment("  #SBATCH --nodes=4\n") == {}  # only at the line's start
