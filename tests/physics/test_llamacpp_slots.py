"""llama.cpp's pool and per-slot share (lint/physics/llamacpp.py), from the b11434 tree's source."""
from __future__ import annotations

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.models import lookup_model

L8 = lookup_model("meta-llama/Llama-3.1-8B-Instruct")  # n_ctx_train 131,072; 128 KiB of fp16 KV per cell


def _run(settings, device="H200", version="b11434", ctx=None):
    return estimate(CapacityInput(L8, "llamacpp", device, settings=settings, engine_version=version,
                                  context_length=ctx))


def test_split_slots_take_their_share_by_the_engines_setting_name():
    # the setting is n_parallel (flags_llamacpp.py): `parallel` was read, so 4 split slots each held 131,072
    r = _run({"ctx_size": 131072, "n_parallel": 4}, ctx=65536)
    assert r.pool_tokens == 131072 and r.max_context_at_concurrency_1 == 32768 and r.fits is False
    assert _run({"ctx_size": 131072, "n_parallel": 4, "kv_unified": True}).max_context_at_concurrency_1 == 131072


def test_per_slot_cap_with_c():
    # -c 131072 -np 4 -kvu --kv-unified-per-slot 16384: the slots are capped at 16,384 (server-context.cpp:1362)
    r = _run({"ctx_size": 131072, "n_parallel": 4, "kv_unified": True, "kv_unified_per_slot": 16384})
    assert r.pool_tokens == 131072 and r.max_context_at_concurrency_1 == 16384


def test_per_slot_sizes_the_pool_without_c():
    # no -c: n_ctx = n_parallel x kv_unified_per_slot (server.cpp:183), before load_model, so --fit leaves it
    r = _run({"n_parallel": 4, "kv_unified": True, "kv_unified_per_slot": 32768})
    assert r.pool_tokens == 131072 and r.max_context_at_concurrency_1 == 32768
    big = _run({"n_parallel": 4, "kv_unified": True, "kv_unified_per_slot": 65536}, device="L4")
    assert big.pool_tokens == 262144
    assert any("262,144 needs 32.00 GiB" in e for e in big.errors)
    # auto slots (no -np) are 4 on a unified cache
    assert _run({"kv_unified_per_slot": 8192}).pool_tokens == 32768
    # `-c 0` asks for the full context: the cap does not size the pool
    assert _run({"ctx_size": 0, "kv_unified_per_slot": 8192}).pool_tokens == 131072


def test_fit_sizes_split_slots_by_n_streams_on_b11434():
    # common/fit.cpp:197, 267-272 (llama.cpp#27496): n_ctx = n_ctx_train x 4, each slot n_ctx_train
    r = _run({"n_parallel": 4})
    assert (r.pool_tokens, r.max_context_at_concurrency_1, r.banded) == (524288, 131072, False)


def test_fit_cuts_an_unset_context_to_memory():
    # an L4 does not hold 4 x 131,072 cells: fit lowers n_ctx in steps of 256 x 4, so a slot holds < n_ctx_train
    r = _run({"n_parallel": 4}, device="L4")
    assert r.pool_tokens < 524288 and r.pool_tokens % 1024 == 0
    assert r.max_context_at_concurrency_1 == r.pool_tokens // 4 < 131072
    assert any(label == "cells after --fit" for label, _, _ in r.steps)
    # -fit off: n_ctx 0 is n_ctx_train, split over the slots, and nothing is cut
    off = _run({"n_parallel": 4, "fit": "off"}, device="L4")
    assert (off.pool_tokens, off.max_context_at_concurrency_1) == (131072, 32768)


def test_unproven_build_is_a_band_over_both_readings():
    # the first build of llama.cpp#27496 is not proven: an unknown or older build spans both readings
    for version in (None, "b9000"):
        r = _run({"n_parallel": 4}, version=version)
        assert r.banded and (r.pool_low, r.pool_high) == (131072, 524288)
        assert (r.max_context_low, r.max_context_high) == (32768, 131072)
    assert not _run({"n_parallel": 4, "kv_unified": True}, version=None).banded  # one stream: no difference


def _role(text: str):
    from ctxlint.adapters import adapt_file
    from ctxlint.file_reader import parse_bytes

    result = adapt_file(parse_bytes(text.encode(), "start.sh"))
    (role,) = [role for dep in result.deployments for role in dep.roles]
    return role


def test_the_per_slot_cap_is_the_roles_context_length():
    # was 131,072: the flag was unknown, so the cap was lost
    role = _role("#!/bin/bash\nllama-server -m /m/x.gguf -c 131072 -np 4 -kvu --kv-unified-per-slot 16384\n")
    assert role.context_length.value == 16384 and role.context_length.source.col == 70
    # its environment variable (common/arg.cpp set_env), over split slots of 32,768
    role = _role("#!/bin/bash\nexport LLAMA_ARG_KV_UNIFIED_PER_SLOT=8192\nllama-server -m /m/x.gguf -c 131072 -np 4\n")
    assert role.context_length.value == 8192
    # a cap above the share changes nothing (server-context.cpp: "cap has no effect")
    role = _role("#!/bin/bash\nllama-server -m /m/x.gguf -c 131072 -np 4 -no-kvu --kv-unified-per-slot 65536\n")
    assert role.context_length.value == 32768
