"""vLLM's prefetch offloading (--offload-group-size / --offload-num-in-group / --offload-prefetch-step) widens the
weights' band (physics.prefetch_offload): NVIDIA's DeepSeek-V4-Pro B200 prefill recipes offload one layer of three,
which ctxlint counted on the GPU, giving a negative KV budget and a false "exceeds"."""
from __future__ import annotations

import pytest

from ctxlint.physics.prefetch_offload import offloaded_layers, prefetch_offloaded
from ctxlint.physics.terms import GIB, Term


@pytest.mark.parametrize("layers, group, in_group, off", [
    (61, 3, 1, 20),   # V4-Pro, the recipes' 3/1: layers 2, 5, ..., 59
    (16, 8, 2, 4),    # vLLM's own example: layers 6, 7, 14, 15
    (14, 8, 2, 2),    # a partial last group holds none of its last two
    (10, 0, 1, 0),    # off
])
def test_which_layers_stay_in_host_memory(layers, group, in_group, off):
    assert offloaded_layers(layers, group, in_group) == off


def test_the_band_widens_down_only():
    notes: list[str] = []
    weights = Term("weights", 122 * GIB, 61 * GIB, 183 * GIB, "w")
    got, formula = prefetch_offloaded({"offload_group_size": 3, "offload_num_in_group": 1,
                                       "offload_prefetch_step": 2}, 61, weights, "w", notes)
    assert (got.point, round(got.low), got.high) == (122 * GIB * (1 - 18 / 61), 41 * GIB, 183 * GIB)
    assert formula == "w - offloaded layers 20/61 (prefetch 2)"
    assert notes == ["offload_group_size 3: 20 of 61 layers' weights in host memory, 2 prefetched at a time; the "
                     "band's low end takes off up to 20.00 GiB a GPU, its high end nothing (each layer's size is not "
                     "known here)"]
    # --offload-params names the parameters moved: the point stays, the low end still may drop
    got, _ = prefetch_offloaded({"offload_group_size": 3, "offload_params": "experts"}, 61, weights, "w", [])
    assert (got.point, round(got.low), got.high) == (122 * GIB, 41 * GIB, 183 * GIB)
