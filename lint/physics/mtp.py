"""MiniMax-M3's multi-token prediction: how many draft layers vLLM builds for it, which is the checkpoint's own.

vLLM turns a MiniMax-M3 target into its MTP draft with `n_predict = getattr(hf_config, "num_mtp_modules", 1)`
(SpeculativeConfig.hf_config_override, vllm-project/vllm@002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443:
vllm/config/speculative.py, the minimax_m3_vl / MiniMaxM3SparseForConditionalGeneration branch), and the draft
model builds one MiniMaxM3MultiTokenPredictorLayer per module, each a full MiniMaxM3DecoderLayer with sparse
attention and its own KV cache (`self.num_mtp_layers = config.num_mtp_modules`, vllm-project/vllm@
0fddb0a24549611dd79f4e85853fea9ff2cf9219:vllm/models/minimax_m3/nvidia/mtp.py), whatever num_speculative_tokens
(later steps reuse the layers: `spec_step_idx % num_mtp_layers`). MiniMaxAI/MiniMax-M3's config says 7 (and
num_nextn_predict_layers 1, which vLLM does not read for it), nvidia/MiniMax-M3-NVFP4's says 1 (ai-dynamo/
aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce and @90f7fc0fcba7bb8082dd023da10bfc683ed99db5, model_configs/
MiniMaxAI--MiniMax-M3_config.json and nvidia--MiniMax-M3-NVFP4_config.json). SGLang's draft worker was not read for
it, so other engines keep the one draft layer every MTP head has.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

_M3 = ("minimax_m3", "minimax_m3_vl", "minimax_m3_text", "minimax_m3_mtp")


def mtp_modules(c: Mapping[str, Any]) -> Optional[int]:
    """A MiniMax-M3 config's `num_mtp_modules` (None: another model, or not a positive integer)."""
    if str(c.get("model_type", "")) not in _M3:
        return None
    n = c.get("num_mtp_modules")
    return n if isinstance(n, int) and not isinstance(n, bool) and 0 < n <= 64 else None


def is_mtp(raw: str) -> bool:
    """Whether a role's draft is vLLM's MTP method (engine_roles._draft_layers writes `<method>: ...`)."""
    method = str(raw or "").split(":", 1)[0].strip().lower()
    return method == "mtp" or method.endswith("_mtp")


def draft_layers(arch: Any, engine: Any, draft: Any) -> int:
    """The draft layers that hold KV for a role: its stated count, but vLLM's MTP draft of a MiniMax-M3 checkpoint
    builds num_mtp_modules of them (the checkpoint's own count, arch.mtp_modules)."""
    n = getattr(draft, "value", 0) if draft is not None else 0
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        return 0
    modules = getattr(arch, "mtp_modules", None)
    if modules and str(engine) == "vllm" and is_mtp(getattr(draft, "raw", "")):
        return modules
    return n
