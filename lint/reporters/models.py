"""`ctxlint models list|show` output: the catalog as a table, one resolution in detail."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, TextIO

from tabulate import tabulate


def _attention(arch) -> str:
    kinds = {k: arch.count(k) for k in ("full", "sliding", "chunked", "linear") if arch.count(k)}
    layers = ", ".join(f"{n} {k}" for k, n in kinds.items())
    if arch.kv_shared_layers:  # Gemma-4 E2B/E4B: the last layers read earlier layers' KV
        layers += f"; last {arch.kv_shared_layers} share KV"
    if arch.is_mla:  # the layer kinds too: a hybrid (Kimi-K3) keeps the latent on its full layers only
        return f"MLA {arch.kv_lora_rank}+{arch.qk_rope_head_dim}" + (f" ({layers})" if set(kinds) != {"full"} else "")
    if arch.full_kv_heads or arch.full_head_dim:  # full layers shaped apart from the window layers
        return (f"GQA {arch.full_kv_heads or arch.num_kv_heads}x{arch.full_head_dim or arch.head_dim} full, "
                f"{arch.num_kv_heads}x{arch.head_dim} window ({layers})")
    return f"GQA {arch.num_kv_heads}x{arch.head_dim} ({layers})"


def _row(arch, origin: str) -> Dict[str, Any]:
    from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
    from ctxlint.physics.served import serving_dtype

    try:
        # in the dtype vLLM serves with dtype auto, as a deployment's pool is sized: a float32 checkpoint
        # (granite-3.1-8b-instruct's config says float32) is served, and its KV cached, in 16 bits
        per_token = kv_bytes_per_token_per_gpu(serving_dtype(arch, "auto", []), "vllm")
    except (ValueError, TypeError, ZeroDivisionError):
        per_token = None
    return {"id": arch.name, "origin": origin, "layers": arch.num_layers, "attention": _attention(arch),
            "kv_bytes_per_token": per_token, "max_position_embeddings": arch.max_position_embeddings,
            "params_b": round(arch.total_params_b, 2) if arch.total_params_b else None,
            "weights": arch.weight_format.label, "verified": arch.verified, "source": arch.source}


def catalog_rows(lock: Mapping[str, Any]) -> List[Dict[str, Any]]:
    from ctxlint.physics.models import arch_from_mapping
    from ctxlint.resolution.catalog import entries
    from ctxlint.resolution.lockfile import arch_from_entry

    rows = [_named_weights(arch_from_mapping(entry), "catalog") for entry in entries()]
    for model_id, entry in sorted(lock.items()):
        arch = arch_from_entry(model_id, entry)
        if arch is not None:
            rows.append(_row(arch, "lock"))
    return rows


def _named_weights(arch, origin: str) -> Dict[str, Any]:
    """The entry's row with the weight format a deployment of its own id is estimated with (weight_account.own_weights):
    the name's (nvidia/DeepSeek-V3.1-NVFP4) when the catalog's config records no quantization; `models show` said
    NVFP4 where the list said 16-bit (sweep 47)."""
    from ctxlint.resolution.names import parse_ref
    from ctxlint.resolution.weight_account import UNQUANTIZED

    row = _row(arch, origin)
    ref = parse_ref(arch.name)
    if ref is not None and ref.weights is not None and arch.weight_format.key in UNQUANTIZED:
        row["weights"] = ref.weights.label
    return row


def write_list(rows: List[Dict[str, Any]], stream: TextIO) -> None:
    table = [(r["id"], r["origin"], r["layers"], r["attention"],
              f"{r['kv_bytes_per_token']:,.0f}" if r["kv_bytes_per_token"] else "?",
              f"{r['max_position_embeddings']:,}" if r["max_position_embeddings"] else "?",
              r["params_b"] if r["params_b"] is not None else "?", r["weights"])
             for r in rows]
    stream.write(tabulate(table, headers=("model", "from", "layers", "attention", "KV B/token (bf16, TP1)",
                                          "positions", "params (B)", "weights"), tablefmt="simple") + "\n")
    stream.write(f"\n{len(rows)} models; `ctxlint models show ID` gives one with its source\n")


def show_json(written: str, found) -> Dict[str, Any]:
    out: Dict[str, Any] = {"model": written, "resolved": found.resolved, "via": found.via, "how": found.how,
                           "weights": found.weights.key if found.weights is not None else None}
    if found.hint:
        out["hint"] = found.hint
    if found.arch is not None:
        out["architecture"] = _row(found.arch, found.via)
        out["architecture"]["notes"] = list(found.arch.notes)
    return out


def _weights(fmt) -> str:
    """A format, or the band of formats an unknown checkpoint may be in (a served name's, a folder's: WeightFormat.alt)."""
    return " or ".join(f.label for f in (fmt, *fmt.alt))


def write_show(written: str, found, stream: TextIO) -> None:
    stream.write(f"{found.how}\n")
    if not found.resolved:
        stream.write(f"to resolve it: {found.hint}\n")
        return
    row = _row(found.arch, found.via)
    rows = [("architecture", found.arch.name), ("layers", row["layers"]), ("attention", row["attention"]),
            ("KV bytes/token (vLLM, bf16, TP 1)", f"{row['kv_bytes_per_token']:,.0f}" if row["kv_bytes_per_token"]
             else "?"),
            ("max_position_embeddings", f"{row['max_position_embeddings']:,}" if row["max_position_embeddings"]
             else "?"),
            ("parameters (B)", row["params_b"] if row["params_b"] is not None else "?"),
            ("weights", _weights(found.weights) if found.weights is not None else row["weights"]),
            ("source", row["source"])]
    stream.write(tabulate(rows, tablefmt="plain") + "\n")
    for note in found.arch.notes:
        stream.write(f"  - {note}\n")
