"""A Slurm header's node features name the GPU the engine runs on (sweep c30:
KempnerInstitute/distributed-inference-vllm@a9d22784a8fcd39d59a1340bbade597fe6e0bf0e:
server/deepseek_r1_h100_slurm.sh asks for `#SBATCH --gpus-per-node=4` and `#SBATCH --constraint=h100` (its h200
twin `--constraint=h200`), and had "no accelerator type"; Harvard's and IDRIS's Slurm jobs write `-C a100` and
`--constraint=h100` the same way). A feature is the site's own word, read as a gres type is: only one the catalog
settles, in one feature or an AND of them."""
from __future__ import annotations

import pytest

from ctxlint.adapters.slurm_gres import constraint_device, header_device
from ctxlint.adapters.slurm_header import options
from helpers import run

A100_ANY = "A100 (40 or 80 GB: the label names no size)"
VLLM = "vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 --tensor-parallel-size 4\n"


def audit(path) -> dict:
    head, row = run(["audit", "--isolated", "--format", "csv", str(path)]).out.splitlines()[:2]
    return dict(zip(head.split(","), row.split(",")))


def device(header: str):
    named = header_device(options(header))
    return named[0] if named is not None else None


@pytest.mark.parametrize("header, expected", [
    ("#SBATCH --constraint=h100\n", "H100-SXM-80GB"),
    ("#SBATCH -C h200\n", "H200"),
    ("#SBATCH -Ch200\n", "H200"),
    ('#SBATCH --constraint="h100"\n', "H100-SXM-80GB"),
    ("#SBATCH -C a100\n", A100_ANY),  # a family sold in two sizes: any of them, as a gres type
    ("#SBATCH -C a100-80gb\n", "A100-SXM4-80GB"),
    ("#SBATCH --constraint=gpu&h100\n", "H100-SXM-80GB"),  # AND: every node has both;  names no device
    ("#SBATCH --constraint=h100&ib\n", "H100-SXM-80GB"),
    # slurmctld reads a comma as `&` (src/slurmctld/job_scheduler.c _feature_string2list): an AND
    ("#SBATCH --constraint=a100-80gb,ib\n", "A100-SXM4-80GB"),
    ("#SBATCH -C gpu,ib,h200\n", "H200"),
    # the gres type and the feature agree, or the feature says the family's size
    ("#SBATCH --gres=gpu:h100:4\n#SBATCH --constraint=h100\n", "H100-SXM-80GB"),
    ("#SBATCH --gres=gpu:a100:1\n#SBATCH --constraint=a100-80g\n", "A100-SXM4-80GB"),
    ("#SBATCH --gres=gpu:a100-80gb:1\n#SBATCH -C a100\n", "A100-SXM4-80GB"),
    ("#SBATCH --gres=gpu:sitegpu:4\n#SBATCH -C l40s\n", "L40S"),  # a gres word the catalog lacks: the feature's
    # a word that says which card of the other's it is: a MIG slice of the feature's card (the engine gets the slice,
    # as with the gres type alone), the form factor the catalog's bare `h100` leaves open, a size in an AND
    ("#SBATCH --gres=gpu:a100_3g.20gb:1\n#SBATCH -C a100\n", "A100-40GB-MIG-3g.20gb"),
    ("#SBATCH --gres=gpu:nvidia_h100_80gb_hbm3_3g.40gb:1\n#SBATCH -C h100\n", "H100-MIG-3g.40gb"),
    ("#SBATCH --gres=gpu:h100:4\n#SBATCH -C h100_pcie\n", "H100-PCIe-80GB"),
    ("#SBATCH --gres=gpu:h100_pcie:4\n#SBATCH -C h100\n", "H100-PCIe-80GB"),
    ("#SBATCH --constraint=a100&a100-80gb\n", "A100-SXM4-80GB"),
    ("#SBATCH --constraint=a100-80gb&a100\n", "A100-SXM4-80GB"),
])
def test_a_feature_that_names_a_gpu_is_the_device(header, expected):
    assert device(header) == expected


@pytest.mark.parametrize("header", [
    "#SBATCH --constraint=h100|h200\n",  # OR: the nodes may differ
    "#SBATCH --constraint=[h100|a100]\n",  # matching OR: one of them, not said which
    "#SBATCH --constraint=h100*2\n",  # a node count: the other nodes have any feature
    "#SBATCH --constraint=h100&a100\n",  # two devices: none
    "#SBATCH --constraint=gpu&hbm40g\n",  # NERSC's: no catalog word
    "#SBATCH -C intel\n",
    "#SBATCH --gres=gpu:a100:4\n#SBATCH --constraint=h100\n",  # the type and the feature disagree
    "#SBATCH --gres=gpu:a100_3g.20gb:1\n#SBATCH -C a100-80gb\n",  # the 40 GB card's slice on an 80 GB node
    "#SBATCH --gres=gpu:h100_sxm:4\n#SBATCH -C h100_pcie\n",  # two form factors
    "#SBATCH --constraint=a100&a100-80gb&a100-40gb\n",  # two sizes
    "#SBATCH --constraint=h100,a100\n",  # a comma is an AND: two devices, none
])
def test_features_that_name_no_one_device(header):
    assert device(header) is None


def test_the_feature_is_located_and_gives_a_verdict(tmp_path):
    path = tmp_path / "serve.sbatch"
    path.write_text("#!/bin/bash\n#SBATCH --gpus-per-node=4\n#SBATCH --constraint=h100    # H100 nodes\n" + VLLM)
    assert constraint_device(options(path.read_text())) == ("H100-SXM-80GB", "h100", 59)
    row = audit(path)
    assert (row["prefill_origin"], row["verdict"]) == ("derived", "fits")  # was: no device, no verdict
    assert row["engine_context"] == "8192"
    # a feature that is no GPU's leaves the device unknown, as before
    path.write_text(path.read_text().replace("=h100", "=intel"))
    assert audit(path)["verdict"].startswith("needs >= ")


def test_srun_constraint_names_the_device(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nsrun -N 1 --gpus-per-node=4 -C h100 " + VLLM)
    row = audit(path)
    assert (row["prefill_origin"], row["verdict"]) == ("derived", "fits")


@pytest.mark.parametrize("word, expected", [
    # a site's `gpu_` prefix names no size: the family, never the catalog's bare A100 (the 40 GB card) it read as
    ("gpu_a100", A100_ANY), ("gpu-a100", A100_ANY), ("gpu_v100", "V100 (16 or 32 GB: the label names no size)"),
    ("gpu_h100", "H100-SXM-80GB"), ("gpu-a100-80gb", "A100-SXM4-80GB"),
])
def test_a_gpu_prefixed_site_word(word, expected):
    assert device(f"#SBATCH --gres=gpu:{word}:1\n") == expected
    assert device(f"#SBATCH --constraint={word}\n") == expected



@pytest.mark.parametrize("launch", [
    # srun stops reading options at its command (its option string starts with `+`): numactl's `-C 0-31` (a CPU
    # list) and apptainer's `-C` (--containall) are theirs, and srun's own `-C h100` stands
    "srun -N 1 --gpus-per-node=4 -C h100 numactl -C 0-31 ",
    "srun -N 1 --gpus-per-node=4 -C h100 apptainer exec --nv -C vllm.sif ",
    # an option's value in the next word is still srun's (`-p gpu`, `--gres gpu:h100:4`, a SPANK plugin's option)
    "srun -l -p gpu --container-image nvcr.io/nvidia/vllm:25.01 -N 1 --gres gpu:h100:4 ",
])
def test_srun_reads_only_its_own_options(tmp_path, launch):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n" + launch + VLLM)
    assert audit(path)["verdict"] == "fits"
