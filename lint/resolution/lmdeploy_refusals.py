"""LMDeploy settings its engine refuses at start-up by backend: which engine runs decides, and that depends on the
model (physics/lmdeploy_backend.py), so these are said once the model is resolved, not by the flag parser.

* FP8 KV (`--quant-policy fp8`, `fp8_e5m2`, 16, 17) on TurboMind: `assert self.quant_policy not in
  (QuantPolicy.FP8, QuantPolicy.FP8_E5M2), 'invalid quant_policy for TurboMind, FP8 quantization is not supported'`
  (TurbomindEngineConfig.__post_init__, from InternLM/lmdeploy@refs/tags/v0.14.0:lmdeploy/messages.py, the release
  that added FP8, to the lmdeploy-0.18.0 wheel: lmdeploy/messages.py). The PyTorch engine reads it.
* `--cache-max-entry-count` of 1 or more: lmdeploy_backend.ratio_refused.
* A negative `--num-gpu-blocks` on PyTorch: `assert self.num_gpu_blocks >= 0, 'invalid num_gpu_blocks'`
  (PytorchEngineConfig.__post_init__, lmdeploy-0.18.0 wheel: lmdeploy/messages.py:615, the release that added the
  flag); cli/serve.py:257 passes it to PytorchEngineConfig only, so TurboMind never reads it.

A model ctxlint matched only by a local path's or a storage URI's folder name (resolve.by_folder_name) may not be
what the folder holds: a refusal that turns on the model, not on a stated --backend pytorch, says so.

With the release unknown, a refusal of the newest releases is said with the first release that refuses (as
engine_refusals.refusal says a value refused since a release); one only some older releases make is not. Each of these
holds from a release on, so where the unknown release need not be the newest (an image that is not LMDeploy's
release image, a tag that names no release: Engine.release_unknown) it is CTX301's warning, not its error, and says
why, as engine_refusals.refusal and unsure do for the adapters' refusals (engines/release_unknown.py).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ctxlint.engines.lmdeploy_quant import FP8
from ctxlint.findings import Diagnostic
from ctxlint.model import Deployment
from ctxlint.physics.lmdeploy_backend import backend, ratio_refused, turbomind_since
from ctxlint.physics.models import ModelArch
from ctxlint.resolution.resolve import Resolution, by_folder_name

_RATIO_FIX = ("write the share of the memory free after the weights to give the KV cache, below 1 (0.8 by "
              "default); a pool in blocks is --num-gpu-blocks (PyTorch engine, 0.18.0 on)")


def refusals(dep: Deployment, arch: Optional[ModelArch], resolution: Optional[Resolution] = None) -> List[Diagnostic]:
    release = str(dep.engine.version.value) if dep.engine.version is not None else None
    written = dep.model.id.value if dep.model.id is not None else None
    guess = arch is not None and resolution is not None and by_folder_name(resolution, written)
    unknown = dep.engine.release_unknown if not release else None
    out: List[Diagnostic] = []
    for role in dep.roles:
        settings = {key: val.value for key, val in role.engine_args}
        engine = backend(arch, settings, release)
        # the engine as stated, or as picked for a model only inferred from a folder name
        cond = (f"If {written} holds {arch.name} (matched by its folder name only), "
                if guess and str(settings.get("backend") or "").lower() != "pytorch" else "")
        policy = role.arg("quant_policy")
        if policy is not None and policy.value in FP8:
            who, since = _fp8_refused(arch, engine, release)
            if who:
                out.append(_said(
                    f"{cond}{who} would refuse to start: --quant-policy "
                    f"{policy.raw or policy.value} is FP8 KV, which TurboMind does not support ('invalid quant_policy "
                    f"for TurboMind, FP8 quantization is not supported'), and TurboMind runs {arch.name}: add "
                    "--backend pytorch, or use --quant-policy int8", since, unknown, policy.source, dep.display_name))
        ratio = role.arg("cache_max_entry_count")
        if ratio is not None and isinstance(ratio.value, (int, float)) and ratio.value >= 1:
            who, since = _ratio_refused(engine, release)
            if who:
                out.append(_said(
                    f"{who} would refuse to start: --cache-max-entry-count "
                    f"{ratio.raw or ratio.value} is 1 or more, {_ratio_why(engine, release)}: {_RATIO_FIX}",
                    since, unknown, ratio.source, dep.display_name))
        blocks = role.arg("num_gpu_blocks")
        if blocks is not None and isinstance(blocks.value, int) and blocks.value < 0 and engine == "pytorch" \
                and (not release or _from(release, "0.18.0")):  # before 0.18.0 the flag itself is refused
            who = f"LMDeploy {release}" if release else "LMDeploy 0.18.0 and later"
            out.append(_said(
                f"{cond}{who} would refuse to start: --num-gpu-blocks "
                f"{blocks.raw or blocks.value} is negative, and the PyTorch engine asserts num_gpu_blocks >= 0 "
                "('invalid num_gpu_blocks'): write a number of blocks, or 0 to size the pool from "
                "--cache-max-entry-count", None if release else "0.18.0", unknown, blocks.source, dep.display_name))
    return out


def _said(text: str, since: Optional[str], unknown: Optional[str], source, deployment: Optional[str]) -> Diagnostic:
    """The CTX301 diagnostic. `since`: with the release unknown, the first release that refuses; where that unknown
    release need not be the newest (`unknown`, its clause) the refusal may not hold: said so, and a warning
    (engine_refusals.refusal's wording for the adapters' refusals)."""
    if since is None or unknown is None:
        return Diagnostic("engine-rejects-value", text, source, deployment)
    return Diagnostic("engine-rejects-value", f"{text}. Which LMDeploy release runs is unknown: {unknown}; a "
                      f"release before {since} takes it, so this is a warning (the image's LMDeploy version "
                      "says which; with that release pinned ctxlint can tell)", source, deployment, severity="warning")


def _fp8_refused(arch: Optional[ModelArch], engine: Optional[str],
                 release: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """(who refuses, the first release that does when the release is unknown)."""
    if release:
        return (f"LMDeploy {release}" if engine == "turbomind" else None), None
    since = turbomind_since(arch) if engine != "pytorch" else None  # FP8 exists from 0.14.0, the table's first
    return (f"LMDeploy {since} and later" if since else None), since


def _ratio_refused(engine: Optional[str], release: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """(who refuses, the first release that does when the release is unknown)."""
    if release:
        return (f"LMDeploy {release}" if ratio_refused(engine, release) else None), None
    if engine == "pytorch":
        return "LMDeploy's PyTorch engine (0.4.1 and later)", "0.4.1"
    return "LMDeploy 0.15.0 and later", "0.15.0"  # both engines, the newest releases included


def _ratio_why(engine: Optional[str], release: Optional[str]) -> str:
    pytorch = "the PyTorch engine asserts 0 < cache_max_entry_count < 1"
    if engine == "pytorch":
        return pytorch
    if release and not _from(release, "0.15.0"):  # refused there: 0.4.1-0.9.x
        turbomind = "TurbomindEngineConfig asserts 0 < cache_max_entry_count < 1 there"
    else:
        turbomind = ("TurboMind aborts ('object-cache path no longer accepts cache_max_block_count as a block "
                     "count'; 0.10.0-0.14.x read it as blocks)")
    return turbomind if engine == "turbomind" else f"{turbomind}, and {pytorch}"


def _from(release: str, since: str) -> bool:
    from ctxlint.engines.result import from_release

    return bool(from_release(since, release))
