"""hardware.canonical_type matches instance families with one alternation; it must find what the loop of
re.match over INSTANCE_FAMILIES it replaced found (the first family in order whose pattern matches)."""
from __future__ import annotations

import re
from typing import Optional

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.adapters import hardware
from ctxlint.adapters.instance_types import AWS_FAMILIES, INSTANCE_FAMILIES


def _loop(low: str) -> Optional[str]:
    """The replaced code: each family's pattern in turn, through re's cache."""
    for pattern, device in INSTANCE_FAMILIES:
        if re.match(pattern, low):
            return device
    return None


def _alternation(low: str) -> Optional[str]:
    found = hardware._families().match(low)
    return None if found is None else INSTANCE_FAMILIES[int(found.lastgroup[1:])][1]


# Names that hit each family (and the ones whose patterns overlap: p5 and p5e, p3 and p3dn, the Oracle shapes),
# near misses, and names that are no family at all.
NAMES = [f"{family}.{size}" for family in AWS_FAMILIES for size in ("xlarge", "48xlarge", "")] + [
    "a3-highgpu-8g", "a3-megagpu-8g", "a3-edgegpu-8g", "a3-ultragpu-8g", "a2-ultragpu-1g", "a2-highgpu-4g",
    "a2-megagpu-16g", "a4x-maxgpu-4g", "a4x-maxgpu-4g-metal", "a4x-highgpu-4g", "a4-highgpu-8g",
    "g2-standard-8", "standard_nd96isr_h100_v5", "standard_nd96isr_h200_v5", "standard_nd96amsr_a100_v4",
    "standard_nc24ads_a100_v4", "standard_nd96asr_v4", "standard_nc40ads_h100_v5", "standard_nc4as_t4_v3",
    "vm.gpu.a10.1", "bm.gpu.a10.4", "bm.gpu.h100.8", "bm.gpu.h200.8", "bm.gpu.a100-v2.8", "bm.gpu4.8",
    "bm.gpu.l40s.4", "bm.gpu.mi300x.8", "vm.gpu3.1", "bm.gpu3.8", "p5", "p5en", "g6f.xlarge", "nvidia-a100",
    "a100", "h100-80gb", "", "standard_nd", "vm.gpu.a10", "xp5.48xlarge", "p6-b200.48xlarge", "p6-b300.x"]


def test_every_family_and_near_miss_as_the_loop() -> None:
    for name in NAMES:
        assert _alternation(name) == _loop(name), name
    assert sum(_loop(n) is not None for n in NAMES) > 60  # the list does reach the families


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(NAMES + [p for p, _ in INSTANCE_FAMILIES]),
       st.text(alphabet="abgmnpstv0123456789-._\\", max_size=12), st.booleans())
def test_made_up_names_as_the_loop(base: str, tail: str, cut: bool) -> None:
    name = (base[:len(base) // 2] if cut else base) + tail
    assert _alternation(name) == _loop(name)


def test_canonical_type_uses_it() -> None:
    assert hardware.canonical_type(" P4DE.24xlarge ") == ("A100-80GB", "P4DE.24xlarge")
    assert hardware.canonical_type("bm.gpu.a100-v2.8") == ("A100-80GB", "bm.gpu.a100-v2.8")
