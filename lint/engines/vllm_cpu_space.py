"""vLLM's CPU backend when the container sets no VLLM_CPU_KVCACHE_SPACE: the KV memory each release gives itself.
Imported by capacity._role only for a role on a CPU build (workload_devices.cpu_build).

Up to 0.12.0 an unset (or 0) VLLM_CPU_KVCACHE_SPACE is 4 GiB of host memory, said in its log ("Environment variable
VLLM_CPU_KVCACHE_SPACE (GiB) for CPU backend is not set, using 4 by default"): the CPU executor's
`_verify_and_get_cache_config` (`4 * _GB`) from the backend's start, then vllm/platforms/cpu.py
check_and_update_config (`4 * GiB_bytes`), and the CPU worker's available memory is that space
(vllm-project/vllm#29233: "the default value is 4GB"; an engine log of v0.12.0 on a CPU host prints the warning).
vllm-project/vllm#29604 (opened 2025-11-27; v0.12.0 still logs the 4 GiB warning) sizes it from the host's free
memory instead (half of it, later `--gpu-memory-utilization` of the NUMA node's: vllm-project/vllm#55263), a fact of
the host, not of the file. The first release holding #29604 is in no source at hand, so after 0.12.0, and for a
release not known, the space stays unknown (CTX208 says why), never 4 GiB guessed."""
from __future__ import annotations

from typing import Optional

from ctxlint.versions import parse_version

FIXED_UNTIL = "0.12.0"  # the last release known to take 4 GiB for an unset space (above)
FIXED_GIB = 4


def default_space(release: Optional[str], engine_args=()) -> Optional[int]:
    """GiB of KV memory vLLM `release` gives its CPU backend with VLLM_CPU_KVCACHE_SPACE unset (or 0, which those
    releases read as unset); None when that is the host's (0.13.0 on), the release is not known, or the variable
    is set to a value not known or one vLLM's int() refuses (`4.5`: no server, no default)."""
    given = next((val for name, val in engine_args if name == "VLLM_CPU_KVCACHE_SPACE"), None)
    if given is not None and str(given.value).strip() != "0":
        return None
    parsed = parse_version(release) if release else None
    if parsed is None:
        return None
    return FIXED_GIB if parsed <= parse_version(FIXED_UNTIL) else None


def why_unknown(release: Optional[str], engine_args=(), unresolved=()) -> str:
    """Why the space is not known, for CTX208: set to a value not known or one vLLM refuses, or unset on a release
    that sizes it from the host (or on one not known)."""
    given = next((val for name, val in engine_args if name == "VLLM_CPU_KVCACHE_SPACE"), None)
    if "VLLM_CPU_KVCACHE_SPACE" in unresolved:
        return ("VLLM_CPU_KVCACHE_SPACE is set to a value not known here, or may be (by an envFrom, an env_file or an "
                "--env-file ctxlint does not read)")
    if given is not None and str(given.value).strip() != "0":
        try:
            below = int(str(given.value).strip()) < 0
        except ValueError:
            below = False
        if below:  # int() reads it; the releases above refuse it ("expect a positive integer value")
            return (f"VLLM_CPU_KVCACHE_SPACE={given.value} is below 0, which vLLM refuses at start (\"expect a "
                    "positive integer value\"), so no space is given")
        return (f"VLLM_CPU_KVCACHE_SPACE={given.value} is no integer vLLM's int() reads (it stops at start), so no "
                "space is given")
    if release and parse_version(release) is not None and default_space(release) is None:
        return (f"vLLM {release} is after {FIXED_UNTIL}, the last release known to use a fixed {FIXED_GIB} GiB "
                "when VLLM_CPU_KVCACHE_SPACE is unset: vllm-project/vllm#29604 sizes it from the host's free memory "
                "instead")
    return (f"the vLLM release is not known, and an unset VLLM_CPU_KVCACHE_SPACE is {FIXED_GIB} GiB up to "
            f"{FIXED_UNTIL} but sized from the host's free memory after (vllm-project/vllm#29604)")
