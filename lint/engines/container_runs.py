"""What a container run command starts (engines/detect.py asks): `docker run IMAGE vllm serve M` on an image whose
ENTRYPOINT is the engine, `docker run --entrypoint PROGRAM IMAGE ...`, and `apptainer run IMAGE ...`. Imported
only for such a command."""
from __future__ import annotations

from typing import Optional

from .apptainer import parse_container
from .detect import Detection, _image_sub, _programs
from .docker_run import parse_run
from .images import engine_from_image, image_entrypoint_is_engine
from .runners import run_verb


def appended(texts: list[str], found: list[Detection]) -> list[Detection]:
    """`docker run IMAGE vllm serve M` on an image whose ENTRYPOINT is the engine: Docker appends the words after
    the image to that ENTRYPOINT (docs.docker.com/reference/dockerfile/#entrypoint), so the engine runs with the
    program's words as its arguments (`vllm serve vllm serve M`, which vLLM's parser refuses whatever the image's
    release: the `serve` of newer images takes `vllm` for the model and exits on the rest, the API server module of
    older ones takes no word at all; vllm-project/vllm-project.github.io#305 fixed a blog's such command). The
    launch is the image's, its words the program's (workload.program_as_args says so at the first word); unchanged
    without a run verb, with `--entrypoint` (the program then replaces it) or on an image that is no engine's."""
    if run_verb(texts) is None:
        return found
    run = parse_run(texts)
    if run is None or run.entrypoint is not None or found[0].start != run.image + 1:
        return found
    image = texts[run.image]
    eng, _ = engine_from_image(image)
    if not eng or not image_entrypoint_is_engine(image):
        return found
    return [Detection(eng, "image:" + image, _image_sub(eng), run.image, run.image + 1, via_image=True)]


def entrypoint(texts: list[str]) -> Optional[list[Detection]]:
    """`docker run --entrypoint vllm IMAGE serve MODEL ...`: `--entrypoint` replaces the image's ENTRYPOINT
    (its value one word, the program; docs.docker.com "docker run --entrypoint"), and the words after the image
    are that program's arguments. The detection sits at the image (`via_image`: its tag is the release) and
    reads the arguments after it; [] when the program is no engine (`--entrypoint /bin/bash`) and when
    `--entrypoint ""` clears the image's ENTRYPOINT (docs.docker.com/engine/reference/run/ "ENTRYPOINT"): the
    words after the image are then the whole command, and `detect` found no engine among them; None without
    `--entrypoint` (or with no image after it)."""
    run = parse_run(texts)
    if run is None or run.entrypoint is None:
        return None
    program, image = run.entrypoint, run.image
    if not program:
        return []
    found = _programs([program] + texts[image + 1:])
    if (not found or found[0].start != 0) and texts[image][:1] == "$":
        # an unknown word where the image would be (`$DOCKER_OPTS`, zero or more words) may be options: the
        # image is then the next word, and when the program starts after it that is the launch (not dropped)
        later = parse_run(texts, frozenset((image,)))
        if later is not None and later.entrypoint == program:
            image, found = later.image, _programs([program] + texts[later.image + 1:])
    if not found or found[0].start != 0:
        # no engine program: an engine's image may still run one (its words are said, workload.unattributed)
        return [] if engine_from_image(texts[image])[0] is not None else None
    d = found[0]
    return [Detection(d.engine, d.launcher, d.subcommand, image, image + d.args_start, via_image=True)]


def runscript(texts: list[str]) -> list[Detection]:
    """`apptainer run [opts] IMAGE ARGS`: the image's runscript runs, given ARGS. An image built from a Docker
    image runs its ENTRYPOINT with ARGS in place of its CMD (the runscript apptainer writes for an OCI image:
    apptainer/apptainer@917d66577963ca297352a22e13c86f1748ddc645:internal/pkg/build/sources/conveyorPacker_oci.go),
    so an engine image whose entrypoint is the engine (`docker://vllm/vllm-openai:v0.8.5`) starts it with ARGS;
    any other runscript is not known (the workload reader says so: CTX008)."""
    line = parse_container(texts)
    if line is None or line.subcommand != "run" or not image_entrypoint_is_engine(texts[line.image]):
        return []
    eng, _ = engine_from_image(texts[line.image])
    return [Detection(eng, "image:" + texts[line.image], None, line.image, line.image + 1, via_image=True)] \
        if eng else []
