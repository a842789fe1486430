"""Which release of its engine a container runs: the reader's half that reads the image tag (the engines'
own images: detect.engine_from_image) or a `pip install vllm==X` in its scripts."""
from __future__ import annotations

import re
from typing import Any, Optional

from ctxlint.engines import engine_from_image
from ctxlint.engines.detect import image_tag
from ctxlint.engines.shellwords import commented
from ctxlint.model import Val
from ctxlint.nodes import SCALAR

# The PyPI package of each engine, for versions pinned by `pip install`.
_PIP_NAMES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "tensorrt[-_]llm", "lmdeploy": "lmdeploy"}


class Versions:
    """Mixed into workload._Reader, which sets what these read: `c` (the Container) and `file`."""

    c: Any
    file: str

    def version(self, engine: str, image: Optional[str]) -> Optional[Val[str]]:
        if image is None or self.c.image is None:
            return self.installed_version(engine)
        if re.search(r"dynamo|triton|/nim/|nvcr\.io/nim", image.lower()):
            return None  # runtime images carry their own version, not the engine's
        eng, version = engine_from_image(image)
        if eng != engine or not version:
            return None
        # Point at the tag (`v0.11.0` in `vllm/vllm-openai:v0.11.0`), where a fix would be typed.
        tag = image_tag(image)  # found in the text as written: `${TAG:-v0.6.6}` holds it past a `:`
        at = image.split("@")[0].rfind(tag) if tag else -1
        source = self.c.image.source(self.file) if at < 0 else self.c.spans.source(self.c.image, at, at + len(tag))
        return Val(version, source, raw=image)

    def installed_version(self, engine: str) -> Optional[Val[str]]:
        """`pip install vllm==0.6.6.post1` (or `uv pip install "sglang[all]==0.4.1"`) in a script."""
        package = _PIP_NAMES.get(engine)
        if package is None:
            return None
        pattern = re.compile(rf"\b(?:pip3?|uv pip)\s+install\b[^\n;&|]*?\b{package}(?:\[[\w,-]+\])?==([0-9][\w.+-]*)",
                             re.IGNORECASE)
        scripts = list(self.c.install_scripts) + ([self.c.script] if self.c.script is not None else [])
        for node in scripts:
            if node.kind != SCALAR or not isinstance(node.value, str):
                continue
            found = next((m for m in pattern.finditer(node.value) if not commented(node.value, m.start())), None)
            if found:
                version = found.group(1).rstrip(".")
                start, end = found.span(1)
                return Val(version, self.c.spans.source(node, start, end), raw=found.group(0))
        return None
