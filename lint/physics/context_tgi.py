"""TGI's and IBM TGIS's default context (physics.context.default_context asks for them): TGI's prefill chunking
and the warmup batch that sets max_total_tokens without it, TGIS's max_sequence_length from the model's config."""
from __future__ import annotations

import re
from typing import Any, Mapping, Optional

from ctxlint.versions import parse_version

from .context import DefaultContext, _keys
from .models import ModelArch


def tgi_default(settings: Mapping[str, Any], version: Optional[str], image: str, positions: int
                ) -> Optional[DefaultContext]:
    """TGI's max_total_tokens when none is set, from 2.0 (launcher/src/main.rs and FlashCausalLM.warmup, by
    release; before 2.0 the launcher's 2048, default_context)."""
    v = parse_version(version) if version else None
    if v is not None and v < parse_version("2.4.1"):
        tokens = min(positions, 4096)
        return DefaultContext(tokens, f"TGI {version} defaults max_total_tokens to min(max_position_embeddings "
                                      f"{positions:,}, 4096) = {tokens:,}", False, "--max-total-tokens")
    if not tgi_chunking(settings, v, image):
        return _tgi_unchunked(settings, v, version, positions)
    return DefaultContext(positions, f"TGI defaults max_total_tokens to min(KV capacity, "
                                     f"max_position_embeddings {positions:,})", True, "--max-total-tokens")


# IBM TGIS's launcher: the first of these config.json keys, else 2048 (get_max_sequence_length_from_config,
# IBM/text-generation-inference@006006d7974604558665d48a81ff2b1d1d8f9537:launcher/src/main.rs)
_TGIS_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length",
              "max_seq_length", "seq_len")


def tgis_default(arch: ModelArch) -> Optional[DefaultContext]:
    """TGIS's max_sequence_length when none is set: the model's length; None when the config's keys are not
    known (its 2048 applies only to a config.json that states none, which a catalog entry cannot say)."""
    keys = dict(_keys(arch))
    key = next((k for k in _TGIS_KEYS if k in keys), None)
    if key is None:
        return None
    return DefaultContext(keys[key], f"TGIS takes max_sequence_length from the model's {key} {keys[key]:,}", False,
                          "--max-sequence-length")


def tgi_chunking(settings: Mapping[str, Any], v, image: str = "") -> bool:
    """TGI's prefill chunking (huggingface/text-generation-inference, server/text_generation_server/models):
    PREFILL_CHUNKING as set, else on from 3.0.0 and off in 2.4.1-2.4.x (globals.py: os.getenv("PREFILL_CHUNKING",
    "0") at v2.4.1, @d2ed52f531cf8098ca62375248e007022eaadc65; "1" at v3.0.0,
    @8f326c97912a20d20cddb6ba61bf1569fa9a8601),
    an unknown release taken as a current one; and model.py turns it off with speculation or an ATTENTION other
    than flashinfer/flashdecoding(-ipex), which the ROCm image (and the Intel one before 3.0.2) sets: ENV
    ATTENTION=paged, PREFILL_CHUNKING=0 (Dockerfile_amd, Dockerfile_intel)."""
    image_attention = tgi_image_attention(image, v)
    attention = settings.get("ATTENTION") or image_attention
    speculate = settings.get("speculate", settings.get("SPECULATE"))
    if str(attention or "flashinfer").strip().lower() not in TGI_CHUNKING_ATTENTION or \
            (isinstance(speculate, int) and not isinstance(speculate, bool) and speculate > 0):
        return False
    given = settings.get("PREFILL_CHUNKING")
    if given is not None:
        return str(given).strip().lower() in ("1", "true")
    return image_attention is None and (v is None or v >= parse_version("3.0.0"))


TGI_CHUNKING_ATTENTION = ("flashinfer", "flashdecoding", "flashdecoding-ipex")  # model.py from v3.0.2


def tgi_image_attention(image: str, v) -> Optional[str]:
    """The ATTENTION a TGI image sets that turns chunking off: the ROCm image's `paged` (Dockerfile_amd, v3.0.0
    to v3.3.7), the Intel image's before v3.0.2 (Dockerfile_intel; from 3.0.2 flashdecoding-ipex, chunking on)."""
    low = image.lower()
    if "rocm" in low:
        return "paged"
    if "intel" in low or "xpu" in low:
        tag = re.search(r":v?(\d+\.\d+(?:\.\d+)?)", low)  # `3.1.0-intel-xpu`: the release before the suffix
        v = v or (parse_version(tag.group(1)) if tag else None)
        return "paged" if v is not None and v < parse_version("3.0.2") else None
    return None


def _tgi_unchunked(settings: Mapping[str, Any], v, version: Optional[str], positions: int) -> Optional[DefaultContext]:
    """Without chunking FlashCausalLM.warmup sets max_total_tokens to the warmup batch's length, which is
    max_batch_prefill_tokens: as set, else the 2.4.1 launcher's min(4096, max_position_embeddings). TGI 3's
    own default batch depends on the GPU's compute (compute_optimal): not derived."""
    prefill = settings.get("max_batch_prefill_tokens")
    off = "PREFILL_CHUNKING off" if settings.get("PREFILL_CHUNKING") is not None else f"TGI {version} has prefill " \
        "chunking off by default"
    if isinstance(prefill, int) and not isinstance(prefill, bool) and prefill > 0:
        return DefaultContext(prefill, f"{off}: max_total_tokens defaults to the warmup batch, "
                                       f"max_batch_prefill_tokens {prefill:,}", False, "--max-total-tokens")
    if v is not None and v < parse_version("3.0.0"):
        tokens = min(positions, 4096)
        return DefaultContext(tokens, f"{off}: max_total_tokens defaults to the warmup batch, max_batch_prefill_tokens"
                                      f" min(4096, max_position_embeddings {positions:,}) = {tokens:,}", False,
                              "--max-total-tokens")
    return None
