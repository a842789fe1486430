"""Exact memoization of the capacity estimate (physics/memo.py): a hit only when the input is
indistinguishable, never a different answer."""
from __future__ import annotations

import dataclasses
import math

import pytest

from ctxlint.physics import capacity, memo
from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.models import lookup_model


def test_equal_but_distinguishable_values_key_apart():
    # 1 == 1.0 == True and 0.0 == -0.0, yet each prints differently in a message.
    keys = [memo.exact_key(v) for v in (1, 1.0, True, 0.0, -0.0, "1", (1,), [1])]
    assert len(set(keys)) == len(keys)
    assert memo.exact_key({"a": 1, "b": 2}) != memo.exact_key({"b": 2, "a": 1})  # order can matter
    assert memo.exact_key({"dtype": "fp8", "tp": 2}) == memo.exact_key({"dtype": "fp8", "tp": 2})
    assert memo.exact_key(0.1 + 0.2) != memo.exact_key(0.3)
    with pytest.raises(memo.Unkeyable):
        memo.exact_key(math.nan)
    with pytest.raises(memo.Unkeyable):
        memo.exact_key({"x": object()})


def test_dataclasses_key_by_value_and_type():
    arch = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
    assert memo.exact_key(arch) == memo.exact_key(dataclasses.replace(arch))
    assert memo.exact_key(arch) != memo.exact_key(dataclasses.replace(arch, total_params_b=8))  # another count
    assert memo.exact_key(dataclasses.replace(arch, total_params_b=8)) != \
        memo.exact_key(dataclasses.replace(arch, total_params_b=8.0))


def test_tokens_are_never_reused_after_the_table_is_cleared(monkeypatch):
    monkeypatch.setattr(memo, "_TABLE_MAX", 2)
    first = memo.exact_key(("a",))
    for n in range(5):  # fills and clears the table
        memo.exact_key((n,))
    assert memo.exact_key(("b",)) != first
    assert memo.exact_key(("a",)) == memo.exact_key(("a",))


def test_memo_returns_the_computed_result_and_is_bounded():
    calls = []
    cached = memo.Memo(lambda arg: calls.append(arg) or len(calls), 2)
    assert [cached({"k": 1}), cached({"k": 1}), cached({"k": 1.0}), cached({"k": 2}), cached({"k": 1})] \
        == [1, 1, 2, 3, 4]  # {"k": 1} evicted by the two after it
    assert cached([math.nan]) == 5 and cached([math.nan]) == 6  # no key: computed every time
    assert len(cached.results) == 2


def test_compute_hits_give_what_a_fresh_computation_gives():
    arch = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
    inp = CapacityInput(arch=arch, engine="vllm", accelerator="L4", settings={"max_model_len": 32768},
                        context_length=32768)
    first = compute(inp)
    again = compute(dataclasses.replace(inp, settings=dict(inp.settings)))
    assert again is first
    assert capacity._compute(inp) == first
    other = compute(dataclasses.replace(inp, settings={"max_model_len": 32768.0}))
    assert other is not first


def test_the_device_free_half_is_computed_once_per_release_and_gives_the_same_estimate(monkeypatch):
    # The CTX208 search estimates one role at ~30 memory sizes under seven vLLM releases: the
    # served dtype, KV layout and weights per GPU are the same at every size.
    from ctxlint.physics import model_side
    from ctxlint.physics.accelerators import accelerator_from_mapping
    from ctxlint.physics.releases import VLLM_RELEASES

    arch = lookup_model("meta-llama/Llama-3.1-8B-Instruct")
    devices = [accelerator_from_mapping("candidate", {"memory_gib": gib}) for gib in (24.0, 40.0, 80.0)]
    inputs = [CapacityInput(arch=arch, engine="vllm", accelerator=device,
                            settings={"max_model_len": 65536, "dtype": "float16"}, context_length=65536)
              for device in devices]
    monkeypatch.setattr(model_side, "_MEMO", memo.Memo(model_side._model_side, 512))
    cached = [capacity._compute(inp) for inp in inputs]
    assert len(model_side._MEMO.results) == len(VLLM_RELEASES)
    monkeypatch.setattr(model_side, "_MEMO", memo.Memo(model_side._model_side, 0))  # computes every time
    assert [capacity._compute(inp) for inp in inputs] == cached
    assert cached[0].pool_tokens != cached[2].pool_tokens


def test_a_callers_shared_dict_keys_the_model_side_once_and_changes_no_estimate(monkeypatch):
    # needs.py estimates one role on many devices, folded or release by release, with one dict for
    # all of them: the model side's settings are keyed once, and each result is compute()'s.
    from ctxlint.physics import model_side
    from ctxlint.physics.accelerators import accelerator_from_mapping

    arch = lookup_model("google/gemma-3-27b-it")
    fields = dict(arch=arch, engine="vllm", settings={"max_num_seqs": 64, "dtype": "bfloat16"}, tp=2,
                  context_length=32768)
    inputs = [CapacityInput(accelerator=accelerator_from_mapping("candidate", {"memory_gib": gib}),
                            **dict(fields, engine_version=version))
              for gib in (24.0, 80.0, 200.0) for version in (None, "0.9.0", "0.20.0")]
    plain = [capacity._compute(inp) for inp in inputs]
    keyed = []
    monkeypatch.setattr(model_side, "exact_key", lambda value: keyed.append(value) or memo.exact_key(value))
    shared: dict = {}
    assert [capacity.compute_keyed(("test", n), inp, shared) for n, inp in enumerate(inputs)] == plain
    assert sum(1 for value in keyed if isinstance(value, tuple) and len(value) == 9) == 1
    assert capacity.compute_keyed(("test", 0), inputs[1]) is capacity.compute_keyed(("test", 0), inputs[0], {})
