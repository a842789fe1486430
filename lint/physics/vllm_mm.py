"""vLLM V1's multimodal profile: the vision encoder's peak, which the KV budget also loses.

Before the language model's dummy batch, V1's `profile_run` runs the vision encoder on a dummy batch of the
largest item the processor makes (vllm-0.9.0.1 wheel: vllm/v1/worker/gpu_model_runner.py:1827-1905;
vllm-0.11.0 wheel: gpu_model_runner.py:3325-3400 with vllm/v1/worker/utils.py MultiModalBudget; vllm-0.19.0
wheel: gpu_model_runner.py:5722-5780 with vllm/multimodal/encoder_budget.py). The torch peak it leaves is counted
like the language model's, so the activation term is the larger of the two runs:

    encoder budget = max(max_num_batched_tokens, T)         (compute_encoder_budget: the item always fits)
    items          = budget / T (0.9: rounded up; 0.10.1+: down, at least 1), at most max_num_seqs x limit
    peak           = max(encoder run, language-model run + the encoder outputs it keeps cached)

T is the largest item's token count, the one modality profiled. Modelled where read in the model's vLLM code:
- Qwen2-VL / Qwen2.5-VL (qwen2_vl.py get_image_size_with_most_features: the image processor's max_pixels,
  12,845,056 by default, i.e. 16,384 tokens of (14 x 2)^2 pixels; `mm_processor_kwargs.max_pixels` overrides it),
  each token 2 x 2 patches (spatial_merge_size) of 3 x 2 x 14^2 pixel values (temporal_patch_size 2); its video
  item, frame pairs of that size as many as max_model_len holds (at most 8 pairs before 0.11, 7 from it), is the
  one profiled once max_model_len holds two pairs (three with the image before 0.10.2), whatever the limits;
- Gemma 3 (gemma3_mm.py get_num_image_tokens: (crops + 1) x 256, no crops without pan-and-scan), each image
  (image_size / patch_size)^2 patches (896 / 14: 4,096).
The encoder's peak per patch is taken as its MLP moment, like the language model's (activation.py): the
residual and normed input, 2 x hidden, and the MLP's gate/up and activation, 3 x intermediate / TP (the
tower's MLP is column/row parallel; `--mm-encoder-tp-mode data`, 0.10.2+, keeps whole weights on each rank and gives
one item to one rank in the models that support it, Qwen2.5-VL from 0.10.2 and Qwen2-VL from 0.11, never Gemma 3;
0.10.1's `--enable-multimodal-encoder-data-parallel` reaches only Llama 4 and Step3-VL, and maps onto the mode from
0.10.2),
plus the item's pixel values. Another tower (Qwen3-VL, Gemma 4, Pixtral...) is not modelled: its point stays the
language model's run and the band's top assumes a Qwen2-VL-sized item (16,384 tokens of 4 patches) through the
tower's own width, stated as such.
Skipped: no modality left (`--limit-mm-per-prompt` 0 for each, `--language-model-only`: vllm-0.19.0 wheel:
vllm/config/multimodal.py:76-78, 264-265) or `--skip-mm-profiling` (vllm-0.10.1.1 wheel: vllm/config/__init__.py
MultiModalConfig; absent from 0.9.0.1, whose parser refuses it).
0.11.0 also widens each cached output to the budget's rows when it is shorter (gpu_model_runner.py:3369-3384;
not in 0.10.1.1, 0.10.2, 0.13.0 or 0.19.0): the band's top holds that for 0.11-0.12 and an unknown release.
"""
from __future__ import annotations

import json
from math import ceil, isqrt
from typing import Any, Mapping, Optional, Tuple

from ctxlint.versions import parse_version

from .activation import HIGH, LOW
from .terms import Term

QWEN_MAX_PIXELS = 12_845_056  # Qwen2VLImageProcessor's default max_pixels (16,384 tokens of 28 x 28 pixels)
# --skip-mm-profiling read in 0.10.1.1 (not 0.9.0.1); items by floor division read in 0.10.1.1, 0.11.0 and 0.19.0
# (0.9.0.1 rounds up, kept for the releases between, not read); the widened cache read in 0.11.0, not in 0.10.2,
# 0.13.0 or 0.19.0 (0.12 not read: kept)
_SKIP_SINCE, _FLOOR_FROM, _WIDE_FROM, _WIDE_UNTIL = (parse_version(v) for v in ("0.10.1", "0.10.1", "0.11.0",
                                                                               "0.13.0"))
# Qwen2-VL's video frames from max_model_len alone, at most 14; --mm-encoder-tp-mode (0.11.0, 0.19.0 wheels)
_VIDEO_FROM = parse_version("0.11.0")
# --mm-encoder-tp-mode, the old flag mapped onto it, and Qwen2-VL's video frames from max_model_len alone (0.10.2)
_TP_MODE_FROM = parse_version("0.10.2")
_FACTORED_FROM = parse_version("0.11.1")  # the largest Qwen2-VL image no longer a square (read in 0.19.0, not 0.11.0)
_QWEN = ("qwen2_vl", "qwen2_5_vl")
_GEMMA3 = ("gemma3",)


def vision_dims(config: Mapping[str, Any], defaults: Mapping[str, Mapping[str, int]]) -> Optional[Tuple]:
    """(vision type, hidden, intermediate, patch, spatial merge, temporal patch, image size, tokens per image) of a
    config.json's vision_config, 0 where the config does not say; None without a tower or its width."""
    v = config.get("vision_config")
    if not isinstance(v, Mapping):
        return None
    # the model's type names the family (a SigLIP tower's own type is shared by several); the tower's, without it
    kind = str(config.get("model_type") or v.get("model_type") or "")
    v = {**defaults.get(kind, {}), **{k: x for k, x in v.items() if x is not None}}

    def pick(*keys: str) -> int:
        for k in keys:
            x = v.get(k)
            if isinstance(x, int) and not isinstance(x, bool) and x > 0:
                return x
        return 0
    if kind == "qwen2_vl":
        # Qwen2-VL's vision_config.hidden_size is the merger's output (the language model's width); its blocks are
        # embed_dim wide with an embed_dim x mlp_ratio MLP (vllm-0.11.0 wheel: qwen2_vl.py Qwen2VisionTransformer;
        # defaults 1280 and 4 in huggingface/transformers@018c8e0394c47749c55861e11f5f7e2a577973d7:
        # src/transformers/models/qwen2_vl/configuration_qwen2_vl.py Qwen2VLVisionConfig)
        v = {"mlp_ratio": 4, **{k: x for k, x in v.items() if k not in ("hidden_size", "intermediate_size")}}
        v.setdefault("embed_dim", 1280)
    hidden = pick("hidden_size", "embed_dim", "width")
    if not hidden:
        return None
    inter = pick("intermediate_size", "mlp_dim")
    ratio = v.get("mlp_ratio")
    if not inter and isinstance(ratio, (int, float)) and not isinstance(ratio, bool) and ratio > 0:
        inter = int(ratio * hidden)
    per_image = config.get("mm_tokens_per_image")
    per_image = per_image if isinstance(per_image, int) and not isinstance(per_image, bool) and per_image > 0 else 0
    return (kind, hidden, inter or 4 * hidden, pick("patch_size", "spatial_patch_size"), pick("spatial_merge_size"),
            pick("temporal_patch_size"), pick("image_size"), per_image)


def _on(settings: Mapping[str, Any], key: str) -> bool:
    value = settings.get(key)
    return value is True or str(value).strip().lower() in ("true", "1", "yes")


def _limits(raw: Any) -> Optional[dict]:
    """`--limit-mm-per-prompt` as {modality: count or options}: JSON, or the `image=1,video=0` form of < 0.10."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            pairs = [p.split("=", 1) for p in raw.split(",") if "=" in p]
            raw = {k.strip(): v.strip() for k, v in pairs}
    return dict(raw) if isinstance(raw, Mapping) else None


def _count(value: Any) -> Optional[int]:
    if isinstance(value, Mapping):  # 0.19's options form {"count": 1, "width": ...}
        value = value.get("count", 999)
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


class Profile:
    """What the multimodal profile reads from the model, settings and release (device-free): the item's tokens
    and patches (None: the tower is not modelled), the items' cap per request, the TP mode."""
    __slots__ = ("dims", "item_tokens", "item_patches", "pixels", "limit", "whole", "version", "context", "how")

    def __init__(self, dims: Tuple, settings: Mapping[str, Any], version: Optional[str], context: Optional[int],
                 seq_len: Optional[int] = None):
        self.dims, self.version, self.context = dims, version, context
        kind, hidden, inter, patch, merge, temporal, image, per_image = dims
        limits = _limits(settings.get("limit_mm_per_prompt")) or {}
        counts = {k: _count(x) for k, x in limits.items()}
        image_limit = counts.get("image", 999)
        self.limit = image_limit if image_limit is not None else 999

        def sized(modality: str) -> bool:  # 0.19's options give the dummy item's own size: not modelled
            o = limits.get(modality)
            return isinstance(o, Mapping) and any(k in o for k in ("width", "height", "num_frames"))
        self.item_tokens = self.item_patches = None
        self.pixels, self.how = 0, ""
        kwargs = _limits(settings.get("mm_processor_kwargs")) or {}  # a JSON object, or its text
        if kind in _QWEN:
            p, m, t = patch or 14, merge or 2, temporal or 2
            most = kwargs.get("max_pixels")
            most = most if isinstance(most, int) and not isinstance(most, bool) and most > 0 else QWEN_MAX_PIXELS
            image_tokens = _qwen_image_tokens(most, p * m, version)
            video_limit = counts.get("video", 999)
            video_limit = video_limit if video_limit is not None else 999
            # the profiled modality is the one with the larger item; vLLM sizes the video with one item of each
            # modality, whatever the limits, so a long max_model_len makes the video the larger one
            pairs = _video_frame_pairs(image_tokens, context or seq_len, version, image_limit != 0) if video_limit else 0
            if pairs is None:  # no max_model_len known: the video's size is not either
                image_limit = video_limit = 0
            video = pairs * image_tokens > image_tokens or not image_limit
            if video and video_limit and not sized("video"):
                self.limit, self.item_tokens = video_limit, pairs * image_tokens
                self.how = (f"a video of {pairs} frame pairs, {self.item_tokens} tokens x {m * m} patches "
                            f"(max_pixels {most:,} a pair)")
            elif not video and image_limit and not sized("image"):
                self.item_tokens = image_tokens
                self.how = f"an image of {self.item_tokens} tokens x {m * m} patches (max_pixels {most:,})"
            if self.item_tokens:
                self.item_patches, self.pixels = self.item_tokens * m * m, 3 * t * p * p
        elif kind in _GEMMA3 and image_limit and not sized("image") and not _on(kwargs, "do_pan_and_scan"):
            p, side = patch or 14, image or 896  # its images at the processor's size
            self.item_tokens, self.item_patches = per_image or 256, (side // p) ** 2
            self.pixels = 3 * p * p
            self.how = f"an image of {self.item_tokens} tokens, {self.item_patches} patches"
        mode = str(settings.get("mm_encoder_tp_mode", "")).strip().lower()
        v = parse_version(version) if version else None
        modern = v is None or v >= _TP_MODE_FROM
        asked = mode == "data" and modern or _on(settings, "enable_multimodal_encoder_data_parallel")
        # who honours it: 0.10.1.1 reads the old flag in mllama4.py and step3_vl.py only; from 0.10.2 (0.10.2,
        # 0.11.0, 0.19.0 wheels) the models with supports_encoder_tp_data, qwen2_5_vl.py from 0.10.2 and qwen2_vl.py
        # from 0.11.0; Gemma 3, without it, falls back to weights ("Falling back to `--mm-encoder-tp-mode weights`")
        honoured = kind not in _QWEN if not modern else kind == "qwen2_5_vl" or v is None or v >= _VIDEO_FROM
        self.whole = asked and kind not in _GEMMA3 and honoured

    def _items(self, budget: int, tokens: int, seqs: int) -> int:
        v = parse_version(self.version) if self.version else None
        if v is not None and v >= _FLOOR_FROM:
            per_prompt = max(1, min(self.limit, (self.context or tokens) // tokens))
            return max(1, min(budget // tokens, seqs * per_prompt))
        return max(1, min(ceil(budget / tokens), seqs * max(1, self.limit)))

    def _run(self, items: int, patches: int, pixels: int, tp: int, dt: int) -> float:
        _, hidden, inter, *_ = self.dims
        split = 1 if self.whole else max(1, tp)
        return items * patches * (2 * hidden * dt + 3 * inter * dt / split + pixels * dt)

    def peak(self, lm: Term, mnbt: int, seqs: int, tp: int, dt: int, text_hidden: int) -> Term:
        """The activation term with the encoder's run: the larger of it and the language model's plus the cache."""
        if self.item_tokens is None:  # not modelled: the band's top assumes a Qwen2-VL-sized item
            tokens, patches = max(mnbt, 16_384), max(mnbt, 16_384) * 4
            top = self._run(1, patches, 0, tp, dt) * HIGH
            if top <= lm.high:
                return lm
            return Term(lm.label, lm.point, lm.low, top, f"{lm.how}; the vision encoder's profile run not modelled "
                        f"for this tower: band top {top / 2 ** 30:.2f} GiB as if an item of {tokens} tokens x 4 "
                        f"patches went through its {self.dims[1]}-wide layers")
        t = self.item_tokens
        budget = max(mnbt, t)
        items = self._items(budget, t, seqs)
        run = self._run(items, self.item_patches, self.pixels, tp, dt)
        cache = items * t * text_hidden * dt
        v = parse_version(self.version) if self.version else None
        wide = v is None or _WIDE_FROM <= v < _WIDE_UNTIL
        cache_top = items * max(t, budget) * text_hidden * dt if wide else cache
        point = max(lm.point + cache, run)
        low = max(lm.low + cache, run * LOW)
        high = max(lm.high + cache_top, run * HIGH)
        how = (f"{lm.how}; vision encoder profile: {items} x {self.how} = {items * self.item_patches} patches "
               f"({run / 2 ** 30:.2f} GiB), its {items * t} output tokens cached ({cache / 2 ** 30:.2f} GiB)")
        return Term(lm.label, point, min(low, point), max(high, point), how)


def profile(arch: Any, settings: Mapping[str, Any], version: Optional[str],
            context: Optional[int]) -> Optional[Profile]:
    """The multimodal profile vLLM V1 runs for this model, or None: no vision tower known, or none profiled."""
    dims = getattr(arch, "vision_dims", None)
    # the tower's dimensions are the evidence of a tower: its parameter count may be unknown (None) or uncounted (0,
    # a config without its depth) while vLLM still loads and profiles it
    if not _well_formed(dims) or _on(settings, "language_model_only"):
        return None
    v = parse_version(version) if version else None
    if _on(settings, "skip_mm_profiling") and (v is None or v >= _SKIP_SINCE):
        return None
    counts = {k: _count(x) for k, x in (_limits(settings.get("limit_mm_per_prompt")) or {}).items()}
    takes_video = dims[0] in _QWEN  # Qwen2-VL's family also takes video: images at 0 leave video profiled
    if counts.get("image", 999) == 0 and (not takes_video or counts.get("video", 999) == 0):
        return None
    seq_len = getattr(arch, "max_position_embeddings", None)  # vLLM's max_model_len when none is given
    return Profile(tuple(dims), settings, version, context, seq_len if isinstance(seq_len, int) else None)


def _qwen_image_tokens(max_pixels: int, unit: int, version: Optional[str]) -> int:
    """The largest image's tokens under max_pixels: through 0.11 smart_resize of a huge square, floor(sqrt(max_pixels)
    / unit)^2 (0.9.0.1, 0.10.1.1, 0.11.0 wheels: qwen2_vl.py get_image_size_with_most_features); 0.19.0 factors
    max_pixels // unit^2 into a height x width pair instead (releases between unread: the larger, this one)."""
    v = parse_version(version) if version else None
    if v is not None and v < _FACTORED_FROM:
        return max(1, (isqrt(max_pixels) // unit) ** 2)
    return max(1, max_pixels // unit ** 2)


def _video_frame_pairs(image_tokens: int, seq_len: Optional[int], version: Optional[str],
                       with_image: bool = True) -> Optional[int]:
    """Qwen2-VL's dummy video in frame pairs (each pair the largest image's tokens): as many frames as
    max_model_len holds with one image and one video, at most 16 (0.9.0.1, 0.10.1.1 wheels: qwen2_vl.py
    get_num_frames_with_most_features subtracts the image's tokens; _MAX_FRAMES_PER_VIDEO 16), max_model_len alone
    from 0.10.2 (at most 16 in 0.10.2, 14 in 0.11.0 and 0.19.0), at least one frame; the registry asks for one
    item of each modality (multimodal/registry.py get_max_tokens_per_item_by_modality; 0.19's
    encoder_budget.py), not the limits; no image subtracted when images are off (before 0.10.2)."""
    if not seq_len or seq_len <= 0:
        return None
    v = parse_version(version) if version else None
    if v is not None and v < _TP_MODE_FROM:
        return max(1, min((seq_len - image_tokens * with_image) // image_tokens, 8))
    return max(1, min(seq_len // image_tokens, 8 if v is not None and v < _VIDEO_FROM else 7))


def _well_formed(dims: Any) -> bool:
    """A vision_dims as vision_dims() writes it (an override may give anything)."""
    return isinstance(dims, (tuple, list)) and len(dims) == 8 and isinstance(dims[0], str) and dims[1] and all(
        isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in dims[1:])
