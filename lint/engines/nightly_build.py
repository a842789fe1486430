"""The commit an SGLang nightly image is built from, where its tag names one.

`lmsysorg/sglang:nightly-dev-20260527-14f81a67` (and `nightly-dev-cu13-...`) names no release, but its tag ends in
the sgl-project/sglang commit it was built at: 425dffbd is the commit of 2026-05-19 (#24934) in the tag
nightly-dev-cu13-20260520-425dffbd, 14f81a67 that of 2026-05-27 (#26421) in nightly-dev-20260527-14f81a67, the
images NVIDIA/srt-slurm-recipes' DeepSeek-V4-Pro SGLang recipes run. Physics read per build where a release's code
has not been tagged yet (physics.dsv4_sglang); everything else still takes the release as unknown.
"""
from __future__ import annotations

import re
from typing import Optional

_NIGHTLY = re.compile(r"^(?:docker\.io/)?lmsysorg/sglang:nightly-dev-(?:cu\d+-)?\d{8}-([0-9a-f]{7,40})$")


def sglang_build(image: Optional[str]) -> Optional[str]:
    """The commit (as the tag abbreviates it) an lmsysorg/sglang nightly-dev image names, else None."""
    match = _NIGHTLY.match((image or "").strip())
    return match.group(1) if match else None
