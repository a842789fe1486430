"""Rebuild the built-in model catalog (lint/physics/data/models.json) from its source list.

The source list is tools/catalog/*.yaml: per model, the architecture keys of a published
config.json copied as written, where they were read (`owner/repo@commit:path` or a URL),
aliases (other ids with the same config), a published parameter count when there is one,
and the checkpoint's weight format (`weights`, with `weights_source`) when the transcribed
config lacks its quantization_config. Each entry is parsed by the same code that parses a user's config.json
(ctxlint.physics.hf_config), so the catalog and a user's file can never disagree on how
a key is read. Derivatives (a distill, a fine-tune) are listed with the base whose
architecture they share and the source that says so.

    python tools/build_catalog.py           # rewrite models.json
    python tools/build_catalog.py --check   # exit 1 if models.json is not what the sources give
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List

import yaml

REPO = Path(__file__).resolve().parents[1]
SOURCES = REPO / "tools" / "catalog"
TARGET = REPO / "lint" / "physics" / "data" / "models.json"
SOURCE_FORM = re.compile(r"^(?:[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S+|https://\S+)$")
# Fields of ModelArch the catalog stores (the rest are derived or per-deployment).
STORED = ("num_layers", "num_attention_heads", "num_kv_heads", "head_dim", "v_head_dim", "kv_lora_rank",
          "qk_rope_head_dim", "index_head_dim", "unsupported", "full_kv_heads", "full_head_dim", "kv_shared_layers", "sliding_window", "attention_chunk_size", "hidden_size", "intermediate_size", "moe_intermediate_size", "vocab_size",
          "total_params_b", "active_params_b", "embed_params_b", "lm_head_params_b", "expert_params_b",
          "vision_params_b", "weights", "dtype", "max_position_embeddings", "rope_scaling_type",
          "rope_scaling_factor", "rope_original_max_position_embeddings", "num_experts", "experts_per_token",
          "model_type", "linear_state", "linear_ssm_dtype",
          "msa_index_dim", "msa_index_layers", "msa_index_value_layers", "mtp_modules", "tp_whole_params",
          "compress_ratios", "vision_dims")


def _pattern(kinds: List[str]) -> List[str]:
    """The shortest cycle that reproduces the layer kinds (expand_pattern's inverse)."""
    for period in range(1, len(kinds) + 1):
        if all(kinds[i] == kinds[i % period] for i in range(len(kinds))):
            return kinds[:period]
    return kinds


def _round(x: Any) -> Any:
    return round(x, 4) if isinstance(x, float) else x


# Keys a format's config.json always carries that set its KV cache's shape: an entry without them was
# transcribed incompletely (a key whitelist once dropped both, which made THUDM/glm-4-9b MHA with 16x
# its KV bytes per token and moonshotai/Kimi-K3 93 MLA layers instead of 24), and the parser would
# read the absence as the format's default. So the build refuses it.
FORMAT_KEYS = {
    "chatglm": ("multi_query_attention",),  # absent: ChatGLMConfig's false, one KV head per query head
    "kimi_linear": ("linear_attn_config",),  # absent: every layer MLA, no KDA layer
}
QUANT_TAG = re.compile(r"(?i)[-_.](fp8|fp4|nvfp4|mxfp4|awq|gptq|int4|int8|w4a16|w8a8|bnb|gguf)")


def _config(item: Dict[str, Any]) -> Dict[str, Any]:
    """The config as transcribed; a secondary copy's quantization_config (a re-upload's) is not the
    original model's, so it is dropped unless the entry's id names that quantized checkpoint."""
    config = dict(item["config"])
    if not item.get("verified", True) and not QUANT_TAG.search(item["id"]):
        config.pop("quantization_config", None)
        if isinstance(config.get("text_config"), dict):
            config["text_config"] = {k: v for k, v in config["text_config"].items() if k != "quantization_config"}
    return config


def build_entry(item: Dict[str, Any]) -> Dict[str, Any]:
    from ctxlint.physics.hf_config import arch_from_hf_config

    model_id = item["id"]
    arch = arch_from_hf_config(_config(item), name=model_id)
    entry: Dict[str, Any] = {"hf_id": model_id, "name": model_id, "aliases": list(item.get("aliases") or [])}
    for key in STORED:
        value = getattr(arch, key)
        if value is not None and value != "" and value != ():
            entry[key] = list(value) if isinstance(value, tuple) else _round(value)
    entry["layer_pattern"] = _pattern(list(arch.layer_kinds))
    if arch.position_keys:
        entry["position_keys"] = [list(pair) for pair in arch.position_keys]
    notes = list(item.get("notes") or [])
    published = item.get("params") or {}
    if arch.total_params_b is None and published.get("total_b"):
        entry["total_params_b"] = float(published["total_b"])
        entry["active_params_b"] = float(published.get("active_b") or published["total_b"])
        notes.append(f"parameter count as published ({published.get('source', 'no source')})")
    elif arch.total_params_b is not None:
        if arch.num_experts and arch.expert_params_b and arch.experts_per_token:
            k = int(arch.experts_per_token) / int(arch.num_experts)
            entry["active_params_b"] = _round(arch.total_params_b - arch.expert_params_b * (1 - k))
        else:
            entry["active_params_b"] = entry["total_params_b"]
        notes.append("parameters counted from the config's dimensions"
                     + (f"; published: {published['total_b']}B ({published.get('source', '')})"
                        if published.get("total_b") else ""))
    if item.get("weights"):  # the checkpoint's format where the transcribed config does not state it
        entry["weights"] = item["weights"]
        notes.append(f"weights {item['weights']} as published ({item['weights_source']})")
    entry["source"] = item["config_source"]
    if item.get("alias_source"):
        entry["alias_source"] = item["alias_source"]
    entry["verified"] = bool(item.get("verified", True))
    entry["notes"] = notes + [n for n in arch.notes if n != "parameters counted from the config's dimensions"]
    return entry


def load_sources() -> Dict[str, List[Dict[str, Any]]]:
    models: List[Dict[str, Any]] = []
    derivatives: List[Dict[str, Any]] = []
    aliases: List[Dict[str, Any]] = []
    for path in sorted(SOURCES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for item in data.get("models") or []:
            models.append(dict(item, _file=path.name))
        derivatives.extend(data.get("derivatives") or [])
        aliases.extend(data.get("aliases") or [])
    by_id = {m["id"].lower(): m for m in models}
    for extra in aliases:  # more names of an entry (a renamed repository), each with its reason
        target = by_id.get(str(extra.get("id", "")).lower())
        if target is None:
            raise SystemExit(f"aliases: {extra.get('id')} is not a catalog id")
        target["aliases"] = list(target.get("aliases") or []) + list(extra.get("add") or [])
        target["alias_source"] = "; ".join(x for x in (target.get("alias_source"), extra.get("source")) if x)
    return {"models": models, "derivatives": derivatives}


def problems(sources: Dict[str, List[Dict[str, Any]]]) -> List[str]:
    from ctxlint.physics.weights import format_by_key

    out, seen = [], {}
    for item in sources["models"]:
        where = f"{item['_file']}: {item.get('id')}"
        if not SOURCE_FORM.match(str(item.get("config_source", ""))):
            out.append(f"{where}: config_source must be owner/repo@<40-hex commit>:path or an https URL")
        if item.get("weights") and (not item.get("weights_source") or format_by_key(item["weights"]) is None):
            out.append(f"{where}: weights needs a known format key and a weights_source")
        text = item.get("config") or {}
        text = text.get("text_config") if isinstance(text.get("text_config"), dict) else text
        lacking = [k for k in FORMAT_KEYS.get(str(text.get("model_type")), ()) if k not in text]
        if lacking:
            out.append(f"{where}: a {text.get('model_type')} config sets its KV shape with {', '.join(lacking)}; "
                       "transcribe it from the source")
        for name in [item.get("id"), *(item.get("aliases") or [])]:
            key = str(name).lower()
            if key in seen:
                out.append(f"{where}: {name} is also listed under {seen[key]}")
            seen[key] = item.get("id")
    for item in sources["derivatives"]:
        if not item.get("source") or not item.get("base"):
            out.append(f"derivative {item.get('id')}: needs a base and a source")
        elif str(item["base"]).lower() not in seen:
            out.append(f"derivative {item.get('id')}: base {item['base']} is not a catalog id")
        elif str(item["id"]).lower() in seen:
            out.append(f"derivative {item.get('id')}: also a catalog id or alias")
        mtp = item.get("mtp_modules")
        if mtp is not None and (not isinstance(mtp, int) or isinstance(mtp, bool) or mtp < 1):
            out.append(f"derivative {item.get('id')}: mtp_modules must be a positive integer (its config's)")
        if item.get("weights") and format_by_key(item["weights"]) is None:
            out.append(f"derivative {item.get('id')}: weights {item['weights']} is not a known format key")
    return out


def build() -> str:
    sources = load_sources()
    found = problems(sources)
    if found:
        raise SystemExit("catalog sources have problems:\n  " + "\n  ".join(found))
    entries = [build_entry(item) for item in sources["models"]]
    doc = {"about": "Model architecture facts for KV physics, generated by tools/build_catalog.py from "
                    "tools/catalog/*.yaml (each entry's `source` is the config.json its numbers were read from). "
                    "Do not edit by hand.",
           "models": entries,
           "derivatives": [{k: d[k] for k in ("id", "base", "weights", "mtp_modules", "source") if k in d}
                           for d in sources["derivatives"]]}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    text = build()
    if args.check:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is out of date: run python tools/build_catalog.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET} ({len(json.loads(text)['models'])} models)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
