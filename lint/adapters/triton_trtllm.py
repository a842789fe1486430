"""Triton Inference Server with the TensorRT-LLM backend, launched from a container script.

tensorrtllm_backend's recipe (docs/llama.md, docs/model_config.md) fills the
model repository's templates and starts the server in the container:

    python3 tools/fill_template.py -i repo/tensorrt_llm/config.pbtxt \\
        triton_max_batch_size:64,max_tokens_in_paged_kv_cache:24576,kv_cache_free_gpu_mem_fraction:0.85,...
    python3 scripts/launch_triton_server.py --world_size 2 --model_repo repo

A container (of any workload kind) whose command or args run
`launch_triton_server.py` is one TensorRT-LLM role. The `tensorrt_llm` model's
parameters map to TRT-LLM settings: `max_tokens_in_paged_kv_cache` ->
`kv_cache_config.max_tokens` (the KV pool), `kv_cache_free_gpu_mem_fraction` ->
`kv_cache_config.free_gpu_memory_fraction`, `enable_kv_cache_reuse` ->
`kv_cache_config.enable_block_reuse`, `engine_dir` -> `backend: tensorrt` (a compiled
TensorRT engine, which no PyTorch warmup sizes); the others are kept under their own names
(`triton_max_batch_size`, `max_attention_window_size`, ...). `--world_size N`
is the engine's tensor x pipeline ranks (counted as tensor parallel: the split
is in the engine, not the file). A `trtllm-build` in the same script gives
`--max_seq_len` (the context length) and `--max_batch_size`. The model is
`tokenizer_dir` when it is a Hugging Face id; engines built elsewhere leave the
model and context unknown (CTX008). Every value points at its token.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import int_val, labels_of, name_of, objects, scalar, seq
from ctxlint.adapters.hardware import container_type, count_from_resources, type_from_pod_spec
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, Workload, limits_from_annotations, read_container
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

NAME = "triton-trtllm"
LAUNCH = "launch_triton_server.py"
FILL = lazy_compile(r"fill_template\.py\s+(?:(?:-i|--in_place)\s+)?(\S+)\s+(\S+)")
KEYS = {"max_tokens_in_paged_kv_cache": "kv_cache_config.max_tokens",
        "kv_cache_free_gpu_mem_fraction": "kv_cache_config.free_gpu_memory_fraction",
        "enable_kv_cache_reuse": "kv_cache_config.enable_block_reuse"}
HF_ID = lazy_compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    if LAUNCH not in loaded.text:
        return result
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj in objects(loaded):
        if not isinstance(scalar(obj.get("kind")), str) or obj.get("spec") is None:
            continue
        for pod, holder in _pods(obj.get("spec"), obj.get("spec")):
            for c in seq(pod.get("containers")):
                w = _container(obj, pod, holder, c, spans, result) if c.kind == MAP else None
                workloads += [w] if w is not None else []
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _pods(node: Optional[Node], holder: Node, depth: int = 0) -> List[Tuple[Node, Node]]:
    if node is None or depth > 12:
        return []
    if node.kind == MAP:
        if node.get("containers") is not None and node.get("containers").kind == SEQ:
            return [(node, holder)]
        here = node if node.get("replicas") is not None else holder
        return [p for child in node.value.values() for p in _pods(child, here, depth + 1)]
    if node.kind == SEQ:
        return [p for child in node.value for p in _pods(child, holder, depth + 1)]
    return []


def _scalars(c: Node) -> List[Node]:
    out = []
    for key in ("command", "args"):
        node = c.get(key)
        out += [n for n in (seq(node) if node is not None and node.kind == SEQ else [node])
                if n is not None and n.kind == SCALAR and isinstance(n.value, str)]
    return out


class _Settings:
    def __init__(self, spans: ScalarSpans) -> None:
        self.spans, self.data, self.sources = spans, {}, {}
        self.unresolved: List[Tuple[str, Source]] = []
        self.model: Optional[Val[str]] = None

    def put(self, key: str, text: str, node: Node, start: int) -> None:
        where = self.spans.source(node, start, start + len(text))
        if "$" in text:
            self.unresolved.append((f"{key} {text} (a shell variable, not evaluated)", where))
            return
        value: Any = text
        if re.fullmatch(r"\d+", text):
            value = int(text)
        elif re.fullmatch(r"\d*\.\d+", text):
            value = float(text)
        elif text.lower() in ("true", "false"):
            value = text.lower() == "true"
        parts = key.split(".")
        target: Dict[str, Any] = self.data
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = value
        self.sources[key] = where


def _read(spans: ScalarSpans, items: List[Node]) -> Optional[_Settings]:
    s = _Settings(spans)
    launched = False
    for node in items:
        text = node.value
        for m in FILL.finditer(text):
            path, params, at = m.group(1), m.group(2), m.start(2)
            for item in re.finditer(r"([A-Za-z_][\w]*):([^,]*)", params):
                key, value, start = item.group(1), item.group(2), at + item.start(2)
                if key == "tokenizer_dir" and HF_ID.match(value) and s.model is None:
                    s.model = Val(value, spans.source(node, start, start + len(value)))
                if not path.rstrip("/").endswith("tensorrt_llm/config.pbtxt") or not value:
                    continue
                if key == "engine_dir":  # the C++ executor runs the TensorRT engine there (physics/trt_warmup.py)
                    s.data["backend"] = "tensorrt"
                    s.sources["backend"] = spans.source(node, start, start + len(value))
                elif key in KEYS:
                    s.put(KEYS[key], value, node, start)
                elif key not in ("engine_dir", "tokenizer_dir"):
                    s.put(key, value, node, start)
        for m in re.finditer(re.escape(LAUNCH) + r"([^\n;&|]*)", text):
            launched = True
            size = re.search(r"--world_size[= ]+(\S+)", m.group(1))
            if size:
                s.put("tp_size", size.group(1), node, m.start(1) + size.start(1))
        for m in re.finditer(r"trtllm-build\b([^\n;&|]*)", text):
            for flag in ("max_seq_len", "max_batch_size"):
                found = re.search(rf"--{flag}[= ]+(\S+)", m.group(1))
                if found:
                    s.put(flag, found.group(1), node, m.start(1) + found.start(1))
    return s if launched else None


def _container(obj: Node, pod: Node, holder: Node, c: Node, spans: ScalarSpans,
               result: AdaptResult) -> Optional[Workload]:
    file = spans.file
    items = _scalars(c)
    settings = _read(spans, items) if any(LAUNCH in n.value for n in items) else None
    if settings is None:
        return None
    at = next(n for n in items if LAUNCH in n.value)
    start = at.value.find(LAUNCH)
    engine = Val("trtllm", spans.source(at, start, start + len(LAUNCH)), raw="Triton TensorRT-LLM backend")
    reading = read_container(Container(
        spans=spans, node=c, name=str(scalar(c.get("name")) or ""), args_only=True, engine=engine,
        accelerator_count=count_from_resources(c.get("resources"), file),
        accelerator_type=container_type(c.get("resources"), type_from_pod_spec(pod, file), file),
        settings=(settings.data, settings.sources, "fill_template.py tensorrt_llm/config.pbtxt")))
    result.diagnostics.extend(reading.diagnostics)
    if not reading.roles:
        return None
    found = reading.roles[0]
    unresolved = list(settings.unresolved)
    if settings.model is None:
        unresolved.append(("the model (the TensorRT-LLM engine is built outside this file; no tokenizer_dir "
                           "names a Hugging Face id)", engine.source))
    if "max_seq_len" not in settings.data:
        unresolved.append(("the context length (the engine's max_seq_len is set when it is built, outside this "
                           "file)", engine.source))
    found = replace(found, model=settings.model, unresolved=found.unresolved + unresolved,
                    version=found.version or _month_release(c.get("image"), spans))
    name = name_of(obj, file)
    advertised, gateway, measured = limits_from_annotations(
        obj.dig("metadata", "annotations"), file, result.diagnostics, str(name.value) if name else None)
    replicas = int_val(holder.get("replicas"), file) if holder is not None and holder.kind == MAP else None
    return Workload(name=name, source=obj.source(file), input_format=NAME, roles=[found], replicas=replicas,
                    advertised=advertised, gateway=gateway, measured=measured, labels=labels_of(obj))


def _month_release(image: Optional[Node], spans: ScalarSpans) -> Optional[Val[str]]:
    """The TensorRT-LLM release Triton's compatibility matrix states for the image's month
    (`tritonserver:24.08-trtllm-python-py3`: 0.12.0; engines/ngc.py), at the tag; None for any other image."""
    from ctxlint.engines.images import engine_from_image, image_tag

    text = image.value if image is not None and image.kind == SCALAR else None
    engine, version = engine_from_image(text)
    if engine != "trtllm" or not version or not isinstance(text, str):
        return None
    tag = image_tag(text)
    at = text.split("@")[0].rfind(tag) if tag else -1
    return Val(version, spans.source(image, at, at + len(tag)) if at >= 0 else image.source(spans.file), raw=text)
