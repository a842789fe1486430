"""The container as the launcher in front of an engine gives it devices: `srun`'s GPUs for its one-node step, the
GPUs a script's `docker run --gpus N` gives its container, and none of the script's for an engine `ssh`, `pdsh` or
`clush` starts on another host (an srun in front of that hop included). A mixin of workload_devices.Devices (it
reads `self.srun`, Positions.token_source and span_source), kept apart so that module stays the device count's main
line."""
from __future__ import annotations

from typing import Any

from ctxlint.model import Val

from ..records import replace


class LauncherDevices:
    c: Any  # the container being read (workload.Container)
    env: Any  # its variables as the engine sees them
    file: str
    span_source: Any  # workload_positions.Positions.span_source
    token_source: Any  # workload_positions.Positions.token_source

    def docker_container(self, c, run):
        """`c` with the GPUs a script's `docker run --gpus N` gives the engine's container (docker_run.requested_gpus;
        or its render nodes, or `--runtime nvidia` with NVIDIA_VISIBLE_DEVICES ids: docker_devices.py) where `c`
        counts none of its own: those are the GPUs the engine sees. Options that give it GPUs not counted (`--gpus
        all`, `--privileged --gpus 1`, `--runtime nvidia` alone, `--device /dev/dri`) leave their count unknown
        (Container.gpus_uncounted), not one."""
        req = run[3] if run is not None and len(run) > 3 else None
        if req is None or c.accelerator_count is not None:
            return c
        if req.count is None:  # refused (docker_run.GpuRequest), or GPUs the host decides (`--gpus all`)
            return replace(c, gpus_uncounted=f"docker run {req.uncounted}") if req.uncounted else c
        written = req.written or f"--gpus {req.token.text.removeprefix('--gpus=')}"
        return replace(c, accelerator_count=Val(req.count, self.span_source(req.token.item, req.span),
                                                raw=f"docker run {written}"))

    def device_setting(self, name: str):
        """(value, where) of a device list variable set for the engine (CUDA_VISIBLE_DEVICES, ZE_AFFINITY_MASK): the
        command's own `NAME=value` word, else the container's variable (where: the container if it has no node);
        value None when it is set to what is not known. None when it is not set (llamacpp_split, tgi_shards)."""
        assign = (getattr(self, "assigns", None) or {}).get(name)
        if assign is not None:
            return (None if assign.token.unresolved else assign.value), self.token_source(assign.token)
        if name not in self.env:
            return None
        var = next((v for v in self.c.env if v.name == name and v.node is not None), None)
        return self.env.get(name), var.node.source(self.file) if var is not None else self.c.node.source(self.file)

    def remote_container(self, c):
        """`c` for an engine `ssh HOST SCRIPT` starts (engines/ssh_commands.py): it runs on another host, so this
        script's devices (a Slurm header's GPUs and type, its job's nodes) are not its own; none is known."""
        if not getattr(self, "on_remote", False):
            return c
        return replace(c, accelerator_type=None, accelerator_count=None, batch_job=None)

    def srun_container(self, c):
        """`c` as the `srun` in front of the engine sees it (srun_request.py): the device its GPU type names where
        nothing else names one, and the GPUs of its one-node step in place of the container's (a batch job's
        nodes no longer matter: the step is on one)."""
        req = getattr(self, "srun", None)
        if req is None:
            return c
        if req.device is not None and c.accelerator_type is None:
            name, token = req.device
            c = replace(c, accelerator_type=Val(name, self.token_source(token), raw=token.text))
        if req.gpus is not None:
            count, token = req.gpus
            c = replace(c, accelerator_count=Val(count, self.token_source(token), raw=f"srun {token.text}"),
                        batch_job=None)
        return c


def remote_hop(texts, start: int):
    """Index of the last word before texts[start] (the engine's program) that runs it on another host, `ssh HOST
    ...`, `pdsh -w HOSTS ...` or `clush -w HOSTS ...` (engines/ssh_commands.remote_hop), else None."""
    if not any(t.rsplit("/", 1)[-1] in _REMOTE_RUNNERS for t in texts[:start]):
        return None
    from ctxlint.engines.ssh_commands import remote_hop as hop  # only for a command with such a word before it

    return hop(texts, start)


def remote_prefixes(tokens, hop: int, start: int) -> list:
    """The remote command's own `NAME=value` prefixes before the engine (engines/ssh_commands.remote_prefixes)."""
    from ctxlint.engines.ssh_commands import remote_prefixes as prefixes

    return prefixes(tokens, hop, start)


_REMOTE_RUNNERS = frozenset({"ssh", "pdsh", "clush"})  # engines/ssh_commands.REMOTE_RUNNERS
