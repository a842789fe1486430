"""Issue 15: the shortcuts that make an estimate cheaper give exactly what they replace."""
from __future__ import annotations

import re

from ctxlint.physics import mem_vllm
from ctxlint.versions import parse_version


def test_the_release_bounds_parsed_once_are_the_releases_their_names_say():
    named = {name: value for name, value in vars(mem_vllm).items() if re.fullmatch(r"_V\d+(_\d+)+", name)}
    assert len(named) >= 10
    for name, value in named.items():
        assert value == parse_version(name[2:].replace("_", ".")), name
    for text in ("V0_END", "V1_DEFAULT", "UTIL_092", "CG_DEFAULT", "BIG_TIER"):
        assert getattr(mem_vllm, "_" + text) == parse_version(getattr(mem_vllm, text)), text
    assert mem_vllm._OLD_MULTI_GPU == tuple(parse_version(t) for t in mem_vllm.OLD_MULTI_GPU)
