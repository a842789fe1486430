"""The GPUs an `srun` in front of an engine asks for: `srun -p gpu --gres=gpu:h100:8 vllm serve ...`.

srun takes the same GPU, node and task options as sbatch (`--gres=gpu[:type][:count]`, `--gpus-per-node`,
`--gpus-per-task`, `-G`/`--gpus`, `-N`/`--nodes`, `-n`/`--ntasks`;
SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75:doc/man/man1/srun.1, OPTIONS), and run outside a batch job it
creates the job allocation with them before it runs the command; inside one (a batch script's step) they are the
step's share of the job's GPUs. Either way the engine runs on a node with the GPUs these options name, so a launch
line that states them is read as a batch header is (slurm_header.Allocation, slurm_gres.gres_device): the device a
GPU type settles (a family sold in two sizes, `a100`, as any of them), and the GPUs of one node when the step is
on one node. A site's own type word the catalog lacks or a count spread over nodes Slurm picks states nothing,
exactly as in a header.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple


# srun's option string starts with `+` (slurm_option_table_create), so getopt stops at the first word that is no
# option: srun's command, whose own options (`numactl -C 0-31`, `apptainer exec -C`, `numactl -N 0`) are not srun's.
# An option's value is the next word where the option requires one (has_arg required_argument in
# SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75:src/common/slurm_opt.c); these are srun's options that
# take none, or only one glued with `=`. Any other long option (a SPANK plugin's `--container-image IMG`) is read
# as taking the next word.
_NO_VALUE_SHORT = frozenset("hHIKklOQsEuvVXZ")
_NO_VALUE_LONG = frozenset({
    "async", "bcast", "bell", "compress", "consolidate-segments", "contiguous", "debugger-test", "disable-status",
    "exact", "exclusive", "external", "external-launcher", "get-user-env", "help", "hold", "ignore-pbs", "immediate",
    "interactive", "kill-command", "kill-on-bad-exit", "label", "multi-prog", "nice", "no-allocate", "no-bell",
    "no-kill", "no-requeue", "no-shell", "oom-kill-step", "overcommit", "overlap", "oversubscribe", "parsable",
    "preserve-env", "propagate", "pty", "quiet", "quit-on-interrupt", "reboot", "requeue", "resv-ports", "send-libs",
    "spread-job", "spread-segments", "stepmgr", "test-only", "unbuffered", "usage", "use-min-nodes", "verbose",
    "version", "wait-for-children", "whole", "x11"})


def _own_options(words: Sequence[Any]) -> int:
    """How many of the words after `srun` are its own options (and their values), before its command."""
    k = 0
    while k < len(words):
        text = words[k].text
        if text == "--" or not text.startswith("-") or text == "-":
            return k
        if text.startswith("--"):
            k += 1 if "=" in text or text[2:] in _NO_VALUE_LONG else 2
        else:
            k += 2 if len(text) == 2 and text[1] not in _NO_VALUE_SHORT else 1
    return len(words)


class SrunRequest:
    """`device`: (catalog device, the token that names it) or None; `gpus`: (count, the token that states it) or
    None."""

    __slots__ = ("device", "gpus")

    def __init__(self, device: Optional[Tuple[str, Any]], gpus: Optional[Tuple[int, Any]]) -> None:
        self.device, self.gpus = device, gpus


def srun_request(tokens: Sequence[Any], end: int) -> Optional[SrunRequest]:
    """What the last `srun` before tokens[end] (the engine's program) asks for; None when no srun runs it or it
    states no GPU. `tokens`: the command's words (each with `.text`)."""
    starts = [k for k in range(min(end, len(tokens))) if tokens[k].text == "srun"]
    if not starts:
        return None
    from ctxlint.adapters.slurm_gres import header_device
    from ctxlint.adapters.slurm_header import Allocation, options

    words = tokens[starts[-1] + 1:end]
    words = words[:_own_options(words)]  # not its command's: `srun -C h100 numactl -C 0-31 vllm serve ...`
    # the options as one `#SBATCH` directive, each word's offset kept to find the token a value sits in
    text, offsets = "#SBATCH", []  # type: str, List[int]
    for word in words:
        text += " "
        offsets.append(len(text))
        text += word.text.replace("\n", " ")

    def token_at(offset: int):
        k = max(i for i, start in enumerate(offsets) if start <= offset) if offsets and offset >= offsets[0] else 0
        return words[k] if words else tokens[starts[-1]]

    named = header_device(options(text))
    device = (named[0], token_at(named[2])) if named is not None else None
    alloc = Allocation(text)
    gpus = None
    # the count's raw is the option as typed: a message says `2 (srun --gres=gpu:2)`
    if alloc.per_task is not None:  # srun binds --gpus-per-task GPUs to each task: the engine's
        gpus = (alloc.per_task[0], token_at(alloc.per_task[1]))
    elif alloc.per_node is not None and alloc.nodes == 1:
        gpus = (alloc.per_node[0], token_at(alloc.per_node[1]))
    if device is None and gpus is None:
        return None
    return SrunRequest(device, gpus)
