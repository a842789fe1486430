"""A Slurm batch header's GPU count is the engine's, as a pod's `nvidia.com/gpu` limit is (sweep 49: DylanJoo/LANCER's
`#SBATCH --gres=gpu:a100:2` ran `vllm serve ... --tensor-parallel-size 4`, and with a known type the audit said
"fits"); GPU type names Slurm derives from NVML; the Slurm variables a header does not fix."""
from __future__ import annotations

import pytest

from ctxlint.adapters.slurm_gres import gres_device
from ctxlint.adapters.slurm_header import Allocation, slurm_environment
from helpers import run

MODEL = "meta-llama/Llama-3.1-70B-Instruct"
VLLM = f"vllm serve {MODEL} --max-model-len 8192 --tensor-parallel-size {{tp}}{{more}}\n"


def check(path) -> str:
    return run(["check", "--isolated", "-q", str(path)]).out


def audit(path) -> list:
    return run(["audit", "--isolated", "--format", "csv", str(path)]).out.splitlines()[1].split(",")


def write(tmp_path, header: str, tp: int = 4, more: str = "", before: str = ""):
    path = tmp_path / "serve.sbatch"
    path.write_text("#!/bin/bash\n" + header + before + VLLM.format(tp=tp, more=more))
    return path


@pytest.mark.parametrize("header, how", [
    ("#SBATCH --gres=gpu:h100:2 --nodes=1\n", ""),
    ("#SBATCH --gpus-per-node=h100:2\n", ""),
    ("#SBATCH --gpus-per-task=h100:1\n#SBATCH --ntasks-per-node=2\n", " (1 per task x 2 tasks (--ntasks-per-node))"),
    ("#SBATCH --gpus-per-task=h100:2\n#SBATCH --ntasks=1\n", " (2 per task x 1 task (--ntasks))"),
    ("#SBATCH -G h100:2\n#SBATCH -N 1\n", ""),
])
def test_the_gpus_per_node_are_the_engines(tmp_path, header, how):
    path = write(tmp_path, header)
    line = len(header.splitlines()) + 2
    assert check(path) == (
        f"{path}:{line}:90: CTX204 [error] 4 > 2: the unified engine needs tensor x pipeline x data = 4 GPUs but a "
        f"replica has 2{how}. Lower the parallel sizes or raise the accelerator count (parallelism-mismatch)\n")
    assert audit(path)[15:17] == ["CTX204", "error"]  # was a clean "fits": TP 4 on 2 GPUs
    assert "CTX204" not in check(write(tmp_path, header, tp=2))


def test_a_job_total_over_nodes_is_no_count_per_node(tmp_path):
    # `--gpus` is the job's: without -N (or with several nodes) Slurm spreads them as it picks
    for header in ("#SBATCH --gpus=h100:4\n", "#SBATCH --gpus=8 --nodes=2\n", "#SBATCH --gpus-per-task=1 -n 8\n"):
        assert "CTX204" not in check(write(tmp_path, header, tp=8)), header
        assert "CTX204" not in check(write(tmp_path, header, tp=16)), header


RAY = 'srun --nodes=1 --ntasks=1 -w "$head" ray start --head --block &\n'


def test_an_engine_spanning_the_jobs_nodes_has_them_all(tmp_path):
    header = "#SBATCH --nodes=2\n#SBATCH --gpus-per-node=h100:4\n"
    # vLLM on a Ray cluster the script starts through srun: 4 per node x 2 nodes
    assert check(write(tmp_path, header, tp=8, before=RAY)) == ""
    path = write(tmp_path, header, tp=8, more=" --pipeline-parallel-size 2", before=RAY)
    assert check(path) == (
        f"{path}:5:90: CTX204 [error] 16 > 8: the unified engine needs tensor x pipeline x data = 16 GPUs but a "
        "replica has 8 (4 per node x 2 nodes (#SBATCH --nodes)). Lower the parallel sizes or raise the accelerator "
        "count (parallelism-mismatch)\n")
    # without Ray, vLLM's executor has the batch node's 4
    assert "CTX204 [error] 8 > 4:" in check(write(tmp_path, header, tp=8))
    # the job's total, for an engine over all its nodes
    assert check(write(tmp_path, "#SBATCH --gpus=h100:8 --nodes=2\n", tp=8, before=RAY)) == ""
    # SGLang over the nodes with --nnodes
    path = tmp_path / "sglang.sbatch"
    path.write_text("#!/bin/bash\n" + header + f"python -m sglang.launch_server --model-path {MODEL} --tp 8 "
                    "--nnodes 2 --node-rank 0 --context-length 8192\n")
    assert "CTX204" not in check(path)
    path.write_text(path.read_text().replace("--tp 8", "--tp 16"))
    assert "CTX204 [error] 16 > 8:" in check(path)


def test_the_allocation_a_header_asks_for():
    def counts(header: str):
        alloc = Allocation(header)
        return (alloc.per_node and alloc.per_node[0], alloc.per_job and alloc.per_job[0], alloc.nodes)

    assert counts("#SBATCH --gres=gpu:a100:2\n") == (2, 2, 1)
    assert counts("#SBATCH --gres=gpu\n") == (1, 1, 1)  # the count's default is 1
    assert counts("#SBATCH --gres=gpu:a100,shard:2\n") == (1, 1, 1)
    assert counts("#SBATCH --gres=gpu:4 -N 3\n") == (4, 12, 3)
    assert counts("#SBATCH --gpus-per-node=volta:3,kepler:1 --nodes=2\n") == (4, 8, 2)
    assert counts("#SBATCH --gpus-per-task=2 --tasks-per-node=4\n") == (8, 8, 1)
    assert counts("#SBATCH --gpus-per-task=2 --ntasks=4\n") == (None, 8, None)
    assert counts("#SBATCH --gpus-per-task=2 --ntasks=4 --nodes=1\n") == (8, 8, 1)
    assert counts("#SBATCH --gpus=8\n") == (None, 8, None)
    assert counts("#SBATCH -G8 -N1\n") == (8, 8, 1)
    assert counts("#SBATCH --gpus-per-node=4 --nodes=2-4\n") == (4, None, None)
    assert counts("#SBATCH --gres=${GPU_TYPE:-gpu:1}\n") == (None, None, 1)  # sbatch expands no variable
    assert counts("#SBATCH --gres=gpu:2\n#SBATCH --gres=gpu:8\n") == (8, 8, 1)  # the later one wins
    assert counts("module load x\n#SBATCH --gres=gpu:2\n") == (None, None, 1)  # after a command: no directive
    assert slurm_environment("#SBATCH --gpus-per-task=1 --ntasks-per-node=4 -N 2\n") == {
        "SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2", "SLURM_GPUS_ON_NODE": "4", "SLURM_NTASKS_PER_NODE": "4"}
    assert slurm_environment("#SBATCH -G 4 -n 2 -N 1\n") == {
        "SLURM_JOB_NUM_NODES": "1", "SLURM_NNODES": "1", "SLURM_GPUS_ON_NODE": "4", "SLURM_GPUS": "4",
        "SLURM_NTASKS": "2", "SLURM_NPROCS": "2"}


@pytest.mark.parametrize("name, device", [
    # NVML's names as Slurm's AutoDetect=nvml writes them
    ("nvidia_a100_80gb_pcie", "A100-SXM4-80GB"), ("nvidia_a100-pcie-40gb", "A100-40GB"),
    ("nvidia_a100-sxm4-80gb", "A100-SXM4-80GB"), ("nvidia_h100_80gb_hbm3", "H100-SXM-80GB"),
    ("nvidia_h100_pcie", "H100-PCIe-80GB"), ("nvidia_h100_nvl", "H100-NVL"),
    ("nvidia_rtx_6000_ada_generation", "RTX-6000-Ada"), ("nvidia_geforce_rtx_4090", "RTX-4090"),
    ("tesla_v100-sxm2-32gb", "V100-32GB"), ("nvidia_l40s", "L40S"), ("6000Ada", "RTX-6000-Ada"),
    # MIG slices: the card's name and the profile
    ("nvidia_h100_80gb_hbm3_3g.40gb", "H100-MIG-3g.40gb"), ("nvidia_a100-sxm4-40gb_3g.20gb", "A100-40GB-MIG-3g.20gb"),
    ("nvidia_h200_2g.35gb", "H200-MIG-2g.35gb"), ("nvidia_a100_3g.20gb", "A100-40GB-MIG-3g.20gb"),
    # Mila's own names
    ("a100l", "A100-SXM4-80GB"), ("a100l.3", "A100-80GB-MIG-3g.40gb"), ("a100l.1", "A100-80GB-MIG-1g.10gb"),
    ("a100l.2g.20gb", "A100-80GB-MIG-2g.20gb"),
    # NVML's `NVIDIA RTX A5000` (in the catalog since sweep p30)
    ("nvidia_rtx_a5000", "RTX-A5000"),
    # not settled: two memory sizes, a card the catalog lacks, a profile two sizes share
    # a family sold in two sizes is any of them (tests/adapters/test_family_devices.py)
    ("a100", "A100 (40 or 80 GB: the label names no size)"), ("nvidia_a100", "A100 (40 or 80 GB: the label names no size)"),
    ("v100", "V100 (16 or 32 GB: the label names no size)"), ("p100", "P100 (12 or 16 GB: the label names no size)"),
    ("tesla_p100", "P100 (12 or 16 GB: the label names no size)"), ("nvidia_rtx_a2000", None), ("quadro_rtx_6000", None),
    ("nvidia_a100_1g.10gb", None), ("nvidia_h100_nvl_1g.24gb", None), ("gpu_name", None), ("6000", None),
])
def test_slurm_gpu_type_names(name, device):
    assert gres_device(name) == device


def test_a_type_slurm_derives_gives_a_verdict(tmp_path):
    path = write(tmp_path, "#SBATCH --gres=gpu:nvidia_a100_80gb_pcie:4\n", tp=4)
    row = audit(path)
    assert (row[9], row[10], row[14]) == ("457824", "derived", "fits")  # was no device: no verdict


def test_a_slurm_variable_the_header_does_not_fix_is_said_so(tmp_path):
    path = tmp_path / "vllm.slurm"
    path.write_text("#!/bin/bash\n#SBATCH --cpus-per-task=16\nsource ./env.sh\n"
                    f"vllm serve {MODEL} --tensor-parallel-size ${{SLURM_GPUS_PER_NODE}} --max-model-len 8192\n")
    assert (f"{path}:4:69: CTX008 [info] values ctxlint cannot resolve: --tensor-parallel-size "
            "${SLURM_GPUS_PER_NODE} (SLURM_GPUS_PER_NODE is Slurm's, set from --gpus-per-node, which the #SBATCH header does not give (the "
            "sbatch command line may)); the checks that need them are skipped (set them literally) (unresolved-value)"
            ) in check(path)
    path.write_text(path.read_text().replace("SLURM_GPUS_PER_NODE", "SLURM_NNODES"))
    assert "(SLURM_NNODES is Slurm's, set from --nodes (-N), which the #SBATCH header does not give" in check(path)
