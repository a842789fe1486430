"""What a batch script's `#SBATCH` header asks Slurm for: the GPUs its engine sees, and the variables Slurm sets.

sbatch reads `#SBATCH` lines at a line's start until the first command, each option as on its command line, a
later one of the same option winning (src/sbatch/opt.c _opt_batch_script; long options as in src/common/slurm_opt.c,
`--tasks-per-node` the deprecated form of `--ntasks-per-node`). What they ask for
(SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75:doc/man/man1/sbatch.1, OPTIONS):

* `--gres=gpu[:type][:count]` ("generic consumable resources requested per node", the count "with a default value
  of 1") and `--gpus-per-node=[type:]N`: N GPUs on each node;
* `--gpus-per-task=[type:]N`: N for each task, so N x `--ntasks-per-node` on a node, or N x `--ntasks` when they
  are on one node (`--nodes=1`, or a single task); `--ntasks` with `--ntasks-per-node` makes the latter a maximum;
* `-G, --gpus=[type:]N`: "the total number of GPUs required for the job": on one node with `--nodes=1`, else
  spread over nodes as Slurm picks (without `-N`, Slurm allocates "enough nodes to satisfy the requested
  resources"): no count per node, only the job's;
* `-N, --nodes=N`: the node count; a range (`--nodes=2-4`) fixes none.

The job's CUDA_VISIBLE_DEVICES holds the batch node's GPUs, and an engine the script starts sees those: vLLM's
multiprocessing executor refuses a world size above them ("World size (4) is larger than the number of available
GPUs (2) in this node", vllm-project/vllm@840e7972c6ab74061696e81e17d8a74db2aefd7e:vllm/config/parallel.py
ParallelConfig.__post_init__; before it the executor's check, "please set tensor_parallel_size (4) to less than
max local gpu count (2)", vllm-project/vllm@232d54695d7cb58e67b2497071b18b94f6affd96:
vllm/executor/mp_distributed_executor.py _check_cuda). So the GPUs per node are the engine's count, as a pod's
`nvidia.com/gpu` limit is, and an engine that spans the job's nodes (workload_devices.Devices.count) has them
times the nodes, or the job's total.

sbatch runs the script with (sbatch.1, OUTPUT ENVIRONMENT VARIABLES) SLURM_JOB_NUM_NODES and SLURM_NNODES (the
nodes allocated), SLURM_GPUS_ON_NODE ("Number of GPUs allocated to the batch step"), SLURM_GPUS_PER_NODE ("Only
set if the --gpus-per-node option is specified"), SLURM_GPUS ("Only set if the -G, --gpus option is specified"),
SLURM_NTASKS (and SLURM_NPROCS) and SLURM_NTASKS_PER_NODE. Where the header fixes one it has that value; where
it does not, the sbatch command line may: unknown, and CTX008 says which option sets it.
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple

from ctxlint.lazyre import lazy_compile

# option spellings -> the option; the short ones take their value glued (`-N2`) or as the next word
_LONG = {"nodes": "nodes", "gpus": "gpus", "gpus-per-node": "gpus-per-node", "gpus-per-task": "gpus-per-task",
         "gres": "gres", "ntasks": "ntasks", "ntasks-per-node": "ntasks-per-node", "tasks-per-node": "ntasks-per-node",
         "constraint": "constraint"}  # the node features asked for (slurm_gres.constraint_device)
_SHORT = {"N": "nodes", "G": "gpus", "n": "ntasks", "C": "constraint"}
_WORD = lazy_compile(r"\S+")
_TYPED = lazy_compile(r"^(?:([A-Za-z][\w.-]*):)?([0-9]+)$")  # `[type:]N` of --gpus*
# Which options set each variable Slurm sets for the batch script, for CTX008 when the header fixes none.
SETS = {"SLURM_JOB_NUM_NODES": "--nodes (-N)", "SLURM_NNODES": "--nodes (-N)",
        "SLURM_GPUS_ON_NODE": "--gpus-per-node, --gres=gpu, --gpus-per-task with a task count, or --gpus on one node",
        "SLURM_GPUS_PER_NODE": "--gpus-per-node", "SLURM_GPUS": "--gpus (-G)", "SLURM_NTASKS": "--ntasks (-n)",
        "SLURM_NPROCS": "--ntasks (-n)", "SLURM_NTASKS_PER_NODE": "--ntasks-per-node"}


def directives(text: str) -> Iterator[Tuple[int, str]]:
    """(offset in text, the directive's text after `#SBATCH` up to a ` #` comment) of each header directive."""
    at = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return  # sbatch stops reading directives at the first command
        if line.startswith("#SBATCH"):  # only at the line's start
            yield at + len("#SBATCH"), line[len("#SBATCH"):].split(" #", 1)[0].rstrip("\r\n")
        at += len(line)


def options(text: str) -> Dict[str, Tuple[str, int]]:
    """The header's GPU, node and task options (option -> (value, its offset in text)), the last of each winning."""
    found: Dict[str, Tuple[str, int]] = {}
    for base, directive in directives(text):
        words = [(m.group(), base + m.start()) for m in _WORD.finditer(directive)]
        k = 0
        while k < len(words):
            word, at = words[k]
            k += 1
            name, value, value_at = None, None, at
            if word.startswith("--"):
                key, eq, rest = word[2:].partition("=")
                name = _LONG.get(key)
                if eq:
                    value, value_at = rest, at + 3 + len(key)
            elif len(word) >= 2 and word[0] == "-" and word[1] in _SHORT:
                name = _SHORT[word[1]]
                glued = word[2:].lstrip("=")
                if glued:
                    value, value_at = glued, at + len(word) - len(glued)
            if name is None:
                continue
            if value is None and k < len(words):  # `--nodes 2`, `-N 2`
                value, value_at = words[k]
                k += 1
            if value is not None:
                found[name] = (value, value_at)
    return found


def _int(option: Optional[Tuple[str, int]]) -> Optional[int]:
    return int(option[0]) if option is not None and ascii_digits(option[0]) and int(option[0]) > 0 else None


def ascii_digits(text: str) -> bool:
    """Digits Slurm reads: `str.isdigit` alone takes `²` and `٣`."""
    return text.isascii() and text.isdigit()


def _typed_count(option: Optional[Tuple[str, int]]) -> Optional[Tuple[int, int, int, bool]]:
    """(count, start, end, raw, typed) of a `[type:]N` value; a list of several (`volta:3,kepler:1`) is their sum, at
    the first."""
    if option is None:
        return None
    total, first, typed = 0, None, False
    for part in option[0].split(","):
        m = _TYPED.match(part)
        if m is None:
            return None
        start = option[1] + option[0].find(part) + m.start(2)
        first = first or (start, start + len(m.group(2)))
        total, typed = total + int(m.group(2)), typed or m.group(1) is not None
    return (total, first[0], first[1], None, typed) if total > 0 else None


def _gres_gpus(option: Optional[Tuple[str, int]]) -> Optional[Tuple[int, int, int]]:
    """(count, start, end, raw) of the `gpu` entries of a `--gres` list (`gpu:a100:2,shard:1`); `gpu` or `gpu:TYPE`
    alone is 1, at the entry; none: no GPU asked for this way."""
    if option is None:
        return None
    total, where, at = 0, None, option[1]
    for part in option[0].split(","):
        fields = part.split(":")
        if fields[0] == "gpu" and len(fields) <= 3:
            count = fields[-1] if len(fields) > 1 and ascii_digits(fields[-1]) else None
            if len(fields) == 3 and count is None:
                return None  # `gpu:a100:2k` and the like: a count ctxlint does not read
            n = int(count) if count is not None else 1
            start = at + (len(part) - len(count) if count is not None else 0)
            where = where or (start, at + len(part), None if count is not None else f"--gres={part}: 1 GPU")
            total += n
        at += len(part) + 1
    return (total,) + where if where is not None and total > 0 else None


class Allocation:
    """The GPUs a batch header asks for: per node (`per_node`: count, start, end, raw or None: as written), for the
    whole job (`per_job`),
    and the node count (`nodes`: None for a range, or when the header gives none)."""

    def __init__(self, text: str) -> None:
        opts = options(text)
        ntasks, per_node_tasks = _int(opts.get("ntasks")), _int(opts.get("ntasks-per-node"))
        gpn = _typed_count(opts.get("gpus-per-node"))
        gres = _gres_gpus(opts.get("gres"))
        gpt = _typed_count(opts.get("gpus-per-task"))
        gpus = _typed_count(opts.get("gpus"))
        # Without -N, Slurm allocates the nodes the per-job requests (-n, --gpus) need: one for one task and no
        # job-wide GPU count, else as many as it picks
        self.nodes_given = "nodes" in opts
        self.nodes = _int(opts.get("nodes")) if self.nodes_given else \
            1 if ntasks in (None, 1) and gpus is None else None
        self.gpus_per_node_typed = gpn is not None and gpn[4]
        self.gpus_typed = gpus is not None and gpus[4]
        per_node = gpn[:4] if gpn is not None else gres
        per_job = gpus[:4] if gpus is not None else None
        # GPUs bound per task: an engine `srun` starts sees its task's (sbatch.1 --gpus-per-task implies
        # --gpu-bind=per_task), the batch script itself its node's (review 18)
        self.per_task = gpt[:3] + (f"{gpt[0]} per task (--gpus-per-task; srun binds them to each task)",) \
            if per_node is None and gpt is not None else None
        if per_node is None and gpt is not None:
            tasks = per_node_tasks if ntasks is None else ntasks
            option = "ntasks-per-node" if ntasks is None else "ntasks"
            how = f"{gpt[0]} per task x {tasks} task{'s' if tasks != 1 else ''} (--{option})"
            if ntasks is None and per_node_tasks is not None:
                per_node = (gpt[0] * per_node_tasks,) + gpt[1:3] + (how,)
            elif ntasks is not None and self.nodes == 1:
                per_node = (gpt[0] * ntasks,) + gpt[1:3] + (how,)
            elif ntasks is not None:
                per_job = (gpt[0] * ntasks,) + gpt[1:3] + (how,)
        if per_node is None and per_job is not None and self.nodes == 1:
            per_node = per_job
        if per_node is not None and per_job is None and self.nodes is not None:
            per_job = (per_node[0] * self.nodes,) + per_node[1:]
        self.per_node, self.per_job = per_node, per_job
        self.ntasks, self.ntasks_per_node = ntasks, per_node_tasks
        self.gpus_per_node = gpn[0] if gpn is not None else None
        self.gpus_total = gpus[0] if gpus is not None else None

    def environment(self) -> Dict[str, str]:
        """The Slurm variables the header fixes (name -> value)."""
        found: Dict[str, str] = {}
        if self.nodes is not None and self.nodes_given:
            found["SLURM_JOB_NUM_NODES"] = found["SLURM_NNODES"] = str(self.nodes)
        if self.per_node is not None:
            found["SLURM_GPUS_ON_NODE"] = str(self.per_node[0])
        if self.gpus_per_node is not None and not self.gpus_per_node_typed:  # typed: the text is no count alone
            found["SLURM_GPUS_PER_NODE"] = str(self.gpus_per_node)
        if self.gpus_total is not None and not self.gpus_typed:
            found["SLURM_GPUS"] = str(self.gpus_total)
        if self.ntasks is not None:
            found["SLURM_NTASKS"] = found["SLURM_NPROCS"] = str(self.ntasks)
        if self.ntasks_per_node is not None:
            found["SLURM_NTASKS_PER_NODE"] = str(self.ntasks_per_node)
        return found


def slurm_environment(text: str) -> Dict[str, str]:
    """The Slurm variables the header of a batch script fixes (name -> value); empty without a header."""
    return Allocation(text).environment()


def slurm_env_vars(text: str) -> List:
    """The batch script's Slurm variables as the container environment the workload reader takes (EnvVar): those
    the header fixes at their values, the others unknown, with the option that sets them (for CTX008)."""
    from ctxlint.adapters.workload_inputs import EnvVar

    known = slurm_environment(text)
    unknown = [EnvVar(name, None, why=f"is Slurm's, set from {how}, which the #SBATCH header does not give (the "
                      "sbatch command line may)") for name, how in SETS.items() if name not in known]
    return unknown + [EnvVar(name, value) for name, value in known.items()]


class BatchJob:
    """A batch job as an engine that spans its nodes sees it: `nodes` (None: a range, or not given) and `total`,
    the job's GPUs in all (a Val; None when not known); `per_task`: the GPUs an `srun` task sees (a Val) when
    the header binds them per task."""

    __slots__ = ("nodes", "total", "per_task")

    def __init__(self, nodes: Optional[int], total, per_task=None) -> None:
        self.nodes, self.total, self.per_task = nodes, total, per_task


def batch_job(text: str, val) -> Tuple[Optional[object], Optional[BatchJob]]:
    """(the GPUs on the batch node, BatchJob) of a header; `val(count, start, end, raw)` makes a located Val."""
    alloc = Allocation(text)
    per_node = val(*alloc.per_node) if alloc.per_node is not None else None
    total = None
    if alloc.per_job is not None:
        count, start, end, raw = alloc.per_job
        if alloc.per_node is not None and alloc.nodes is not None and alloc.nodes > 1:
            raw = f"{alloc.per_node[0]} per node x {alloc.nodes} nodes (#SBATCH --nodes)"
        total = val(count, start, end, raw)
    return per_node, BatchJob(alloc.nodes, total, val(*alloc.per_task) if alloc.per_task is not None else None)
