"""The variables Slurm sets in a batch script's environment from its `#SBATCH` header, where the header fixes them.

sbatch runs the script with (SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75:doc/man/man1/sbatch.1,
OUTPUT ENVIRONMENT VARIABLES):

* SLURM_JOB_NUM_NODES, and SLURM_NNODES "for backwards compatibility": the total number of nodes in the job's
  allocation, which `--nodes=N` (`-N N`) fixes; a range (`--nodes=2-4`) does not, so it stays unknown;
* SLURM_GPUS_ON_NODE: the GPUs allocated to the batch step, on one node: `--gpus-per-node=[type:]N` or
  `--gres=gpu[:type]:N` (a per-node count);
* SLURM_GPUS_PER_NODE: "Only set if the --gpus-per-node option is specified", to its count.

So `--tensor-parallel-size $((SLURM_NNODES * SLURM_GPUS_ON_NODE))` under `--nodes=4` and `--gpus-per-node=4` is
16, as the job runs it. A later directive of the same option wins, as sbatch reads them in order; sbatch stops
reading directives at the first command (as shell_script._sbatch_device reads the device).
"""
from __future__ import annotations

from typing import Dict, List

from ctxlint.lazyre import lazy_compile

_NODES = lazy_compile(r"(?:^|\s)(?:--nodes[= ]|-N[ \t=]?)(\S+)")
_GPUS_PER_NODE = lazy_compile(r"(?:^|\s)--gpus-per-node[= ]([A-Za-z][\w.-]*:)?(\d+)(?=[\s,]|$)")
_GRES_GPU = lazy_compile(r"(?:^|\s)--gres[= ](?:\S*,)?gpu(?::[A-Za-z][\w.-]*)?:(\d+)(?=[\s,]|$)")


def slurm_environment(text: str) -> Dict[str, str]:
    """The Slurm variables the header of a batch script fixes (name -> value); empty without a header."""
    found: Dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        if not line.startswith("#SBATCH"):  # sbatch reads a directive only at the line's start
            continue
        directive = line[len("#SBATCH"):].split(" #", 1)[0]
        for m in _NODES.finditer(directive):
            nodes = m.group(1)
            if nodes.isdigit() and int(nodes) > 0:
                found["SLURM_JOB_NUM_NODES"] = found["SLURM_NNODES"] = str(int(nodes))
            else:  # a range, or a count ctxlint cannot read: what it set before no longer holds
                found.pop("SLURM_JOB_NUM_NODES", None)
                found.pop("SLURM_NNODES", None)
        for m in _GPUS_PER_NODE.finditer(directive):
            found["SLURM_GPUS_ON_NODE"] = str(int(m.group(2)))
            if m.group(1) is None:  # with a type (`h100:4`) the variable's text is not a count alone
                found["SLURM_GPUS_PER_NODE"] = found["SLURM_GPUS_ON_NODE"]
        for m in _GRES_GPU.finditer(directive):
            found["SLURM_GPUS_ON_NODE"] = str(int(m.group(1)))
    return found


def slurm_env_vars(text: str) -> List:
    """slurm_environment as the container environment the workload reader takes (EnvVar)."""
    from ctxlint.adapters.workload_inputs import EnvVar

    return [EnvVar(name, value) for name, value in slurm_environment(text).items()]
