"""When vLLM stores every layer of a chunked-local-attention model (Llama 4's `attention_chunk_size`, 3 of
every 4 layers) for the whole context: it turns its hybrid KV cache manager off for the whole model, so the
chunked layers are no longer bounded by their chunk. Read in the packages vLLM published (vllm==X, cited as
vllm-project/vllm@vX:path):

- 0.9.1-0.9.2 have no ChunkedLocalAttentionSpec: a layer without a sliding window gets a FullAttentionSpec
  (GPUModelRunner.get_kv_cache_spec, @v0.9.2:vllm/v1/worker/gpu_model_runner.py), the chunked ones too.
- 0.10.0 adds the spec (@v0.10.0:vllm/v1/kv_cache_interface.py) and turns the manager off only beside a draft
  that reads the target's hidden states ("Hybrid KV cache manager is not yet supported with chunked local
  attention + eagle", VllmConfig.__post_init__, @v0.10.0:vllm/config.py): `use_eagle()`, eagle, eagle3 and
  deepseek_mtp (0.10.x), eagle, eagle3 and mtp (0.11-0.19), dflash from 0.20.0; @v0.34.0 asks
  `uses_target_hidden_states`. The rule stands in every release to 0.34.0 (@v0.34.0:vllm/config/vllm.py).
- 0.10.1 on also turn it off unless VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE is set ("There is a
  latency regression when using chunked local attention with the hybrid KV cache manager. Disabling it, by
  default.", vllm#21761; @v0.10.1:vllm/config/__init__.py, @v0.12.0:vllm/config/vllm.py). vLLM reads the
  variable as bool(int(value)); its default is "0" in 0.10.1-0.13.0 (@v0.10.1/@v0.13.0:vllm/envs.py) and "1"
  from 0.14.0 (vllm#29627; @v0.14.0:vllm/envs.py, "1" still @v0.34.0:vllm/envs.py).

The Llama-4-Scout boot log of vLLM 0.12.0 on 8x H200 shows it: "GPU KV cache size: 3,919,664 tokens" from
89.71 GiB, what 48 layers of 1 KV head x 128 x 2 x 2 B give, and 0.75x concurrency at 5,242,880 tokens;
2.96x with the variable set to 1 (fuhengwu2021/coderepo@07c4f0a56b235af7f01327f7c495a5fb3c4dc75d:
extra/HYBRID_KV_CACHE_ANALYSIS.md). Imported only for a model with chunked layers (model_side, logged).
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from ctxlint.versions import parse_version

ENV = "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"
SPEC_SINCE, ENV_SINCE, ENV_ON_SINCE = "0.10.0", "0.10.1", "0.14.0"
_SPEC, _ENV, _ENV_ON = (parse_version(text) for text in (SPEC_SINCE, ENV_SINCE, ENV_ON_SINCE))
# The methods `use_eagle()` names across releases (above); every MTP model type is "mtp" from 0.11.0.
_EAGLE_LIKE = frozenset(("eagle", "eagle3", "mtp", "dflash", "dspark"))


def eagle_draft(settings: Mapping[str, Any]) -> bool:
    """Does `--speculative-config` name a draft that reads the target's hidden states (EAGLE, EAGLE-3, MTP)?
    Without a method vLLM names it after the draft model (`eagle-` in it: eagle, `eagle3`: eagle3,
    @v0.14.0:vllm/config/speculative.py)."""
    from ctxlint.engines.specs import vllm_speculative

    spec = vllm_speculative(settings.get)  # with --spec-method / --spec-model merged in
    if spec is None:
        return False
    method = str(spec.get("method") or "").strip().lower()
    if not method:
        draft = str(spec.get("model") or "").lower()
        method = "eagle" if "eagle-" in draft else "eagle3" if "eagle3" in draft else ""
    return method in _EAGLE_LIKE or method.endswith("_mtp")


def allowed(version: str, settings: Mapping[str, Any]) -> tuple:
    """(VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE as vLLM `version` reads it, how it was set: "" for
    the release's default). A value vLLM's bool(int(...)) cannot read stops vLLM: not allowed."""
    raw = settings.get(ENV)
    if raw is None:
        v = parse_version(version)
        return v is not None and v >= _ENV_ON, ""
    if isinstance(raw, bool):
        return raw, f" (set to {raw!r})"
    try:
        return bool(int(str(raw).strip())), f" (set to {str(raw)!r})"
    except ValueError:
        return False, f" (set to {str(raw)!r}, which vLLM cannot read as a number)"


def chunked_whole(version: Optional[str], settings: Mapping[str, Any], draft: bool = False) -> str:
    """Why vLLM `version` keeps every layer of a chunked-local-attention model for the whole context, or ""
    when its hybrid KV cache manager bounds the chunked layers (the manager's own switches, a KV connector and
    releases before 0.9.1 are mem_vllm.hybrid_full's). `draft`: the role counts a draft layer (EAGLE/MTP)."""
    v = parse_version(version) if version else None
    if v is None:
        return "vLLM version unknown: chunked layers counted whole, as 0.10.1-0.13 keep them by default"
    if v < _SPEC:
        return f"vLLM {version} has no chunked-local KV cache spec (before {SPEC_SINCE}): its chunked layers are " \
               "full-attention layers to the KV cache manager"
    if draft or eagle_draft(settings):
        return f"vLLM {version} disables the hybrid KV cache manager for chunked local attention with an " \
               "EAGLE/MTP draft (speculative_config)"
    if v < _ENV:
        return ""
    on, how = allowed(version, settings)
    if on:
        return ""
    return f"vLLM {version} disables the hybrid KV cache manager for chunked local attention unless {ENV}=1{how}"
