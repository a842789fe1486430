"""Whether an engine release ctxlint does not know is the engine's newest, or cannot be known at all.

A value only later releases refuse (a dropped flag, CTX301) is reported for an unknown release with the release
named. That is an error where the unknown release is the newest: the engine's own release image tagged `latest`
(or `nightly`, newer still) or untagged, and an engine installed with no pin (`pip install vllm`) or by no image
at all, which is what a host install gets. It is only a warning where the release cannot be known: an image that
is not the engine's release image (a vendor's fork such as HabanaAI's vllm-fork in opea/vllm-gaudi, a ROCm or
NVIDIA runtime container, a company's own build `quay.io/me/vllm-dev:0.1.0`), whose tag numbers its own builds
and whose engine may be older than the release that refuses; the engine's image with a tag that names no release
(`sha-1a2b3c`, a variable set elsewhere) or pinned by a digest only (`vllm/vllm-openai@sha256:...`, even beside
`latest`: the build the digest names, which was the newest only on the day it was pinned); an operator that picks the image itself (KubeAI's resource profiles).
"""
from __future__ import annotations

from typing import Optional

from .images import _DEFAULTED, engine_from_image, split_image

# Tags of the engines' release images that run the newest release (or a build newer than it): what a dropped
# flag's refusal is certain for.
_NEWEST_TAGS = ("", "latest", "nightly")


def why_unknown(engine: str, image: Optional[str]) -> Optional[str]:
    """Why the release `image` runs of `engine` cannot be known (a clause naming the image), or None when an
    unknown release there is the newest (no image; the engine's release image at `latest` or untagged).
    Ask only when the image names no release (images.engine_from_image gave none)."""
    if image is None or not image.strip():
        return None
    own, version = engine_from_image(image)
    tag = split_image(image)[1]
    if own == engine and version is None and _is_release_image(image, engine):
        if "@" in _DEFAULTED.sub("", image):  # `@sha256:...`: one fixed build, the newest only when it was pinned
            return f"{image} pins a build by its digest, which names no {engine} release"
        if tag.lower() in _NEWEST_TAGS and "$" not in tag:
            return None
        return f"the tag of {image} names no {engine} release"
    if own == engine and "ai-dynamo/" in image:
        from .dynamo_images import runtime_image  # only a Dynamo image pays for the table

        if runtime_image(split_image(image)[0]) == engine:  # its tag numbers Dynamo's releases
            return (f"{image} is a Dynamo runtime image whose tag is not one Dynamo's release pages list with the "
                    f"{engine} release it holds (engines/dynamo_images.py)")
    return f"{image} is not {engine}'s own release image, so its tag does not number {engine}'s releases"


def _is_release_image(image: str, engine: str) -> bool:
    """The engine's own release image (or a vendor's build of it that is tagged by the engine's release): the same
    image with a release tag would be read as that release."""
    repo, _ = split_image(image)
    probe = f"{repo}:9.9.9"  # the image's name with a release tag: only a release image reads it as one
    return engine_from_image(probe) == (engine, "9.9.9")


def by_operator(operator: str) -> str:
    """The clause for an image an operator picks, the file naming none."""
    return f"the image is picked by {operator}, not named here"
