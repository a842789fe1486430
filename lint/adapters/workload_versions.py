"""Which release of its engine a container runs: the reader's half that reads the image tag (the engines'
own images: images.engine_from_image) or a `pip install vllm==X` in its scripts."""
from __future__ import annotations

import re
from typing import Any, List, Optional, Sequence, Tuple

from ctxlint.engines import engine_from_image
from ctxlint.engines.images import image_tag
from ctxlint.engines.lex_quotes import NAME
from ctxlint.engines.runners import run_verb
from ctxlint.engines.lex_quotes import commented
from ctxlint.engines.tokens import EnvAssign, Token
from ctxlint.model import Val
from ctxlint.nodes import SCALAR

# The PyPI package of each engine, for versions pinned by `pip install`.
_PIP_NAMES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "tensorrt[-_]llm", "lmdeploy": "lmdeploy"}


class Versions:
    """Mixed into workload._Reader, which sets what these read: `c` (the Container) and `file`."""

    c: Any
    file: str
    commands: Sequence[Any] = ()  # the container's commands in order (workload._Reader.read)
    # why the image tag is not the release the command being read runs: the container's own command installs the
    # engine anew before it, unpinned (run_release)
    run_reinstall: Optional[str] = None

    def version(self, engine: str, image: Optional[str]) -> Optional[Val[str]]:
        if self.c.engine_release is not None:
            return self.c.engine_release
        if image is None or self.c.image is None or self.c.reinstalled is not None:
            return self.installed_version(engine)
        version = _release(engine, image)
        if version is None:
            return None
        # Point at the tag (`v0.11.0` in `vllm/vllm-openai:v0.11.0`), where a fix would be typed.
        tag = image_tag(image)  # found in the text as written: `${TAG:-v0.6.6}` holds it past a `:`
        written = self.c.image.value if isinstance(self.c.image.value, str) else image  # image may be interpolated
        at = written.split("@")[0].rfind(tag) if tag else -1
        source = self.c.image.source(self.file) if at < 0 else self.c.spans.source(self.c.image, at, at + len(tag))
        return Val(version, source, raw=image)

    def run_release(self, engine: str, k: int, image: Optional[str], docker_image: Optional[Token]) \
            -> Optional[Val[str]]:
        """The release the container's own command installs before its command `k` starts the engine
        (`pip install sglang==0.5.5 && python -m sglang.launch_server ...` in lmsysorg/sglang:v0.5.20): pip
        replaces the image's release with the pinned one, so the server that runs is 0.5.5, whatever the tag says.
        Over a release the image (or an earlier pin) installed, `pip install -U sglang` runs the newest (as a
        runtime install of an unpinned engine is read: release_unknown), self.run_reinstall "" then; any other
        requirement but a bare name (`sglang>=0.5`, `==0.5.*`, a git URL) leaves the release unknown,
        self.run_reinstall saying why, as a Dockerfile RUN that reinstalls the engine does
        (compose_build.reinstalled); a bare name without an upgrade option keeps what is installed. None, and
        self.run_reinstall None, when no earlier command of the same container changes the release."""
        self.run_reinstall = None
        package = _PIP_NAMES.get(engine)
        cmd = self.commands[k] if package is not None and 0 <= k < len(self.commands) else None
        # the container whose command runs the engine: a `docker run IMAGE sh -c` script's, or the manifest's own
        # (not a host script's `docker run IMAGE ARGS`, whose earlier commands run on the host)
        if cmd is None or cmd.image is None and (image is None or docker_image is not None):
            return None
        place = (cmd.image.text, cmd.image.start, cmd.image.item) if cmd.image is not None else None
        named = image if place is None else cmd.image.text
        installed: Optional[bool] = None  # does the image (or an earlier pin) hold a release of the engine
        # PEP 508 lets blanks stand around the extras and before the specifier (`"sglang[all] == 0.5.5"`)
        spec = re.compile(rf"(?:{package})\s*(?:\[[^\]]*\]\s*)?(?P<spec>[=<>!~@;].*)?", re.IGNORECASE)
        found: Optional[Val[str]] = None
        mine = [j for j, other in enumerate(self.commands[:k]) if place == (None if other.image is None else
                                                                              (other.image.text, other.image.start,
                                                                               other.image.item))]
        for j in mine:
            other = self.commands[j]
            words = _pip_installed(other.tokens)
            if not words:
                continue  # no `pip install`: nothing here replaces the engine
            from ctxlint.adapters.pip_targets import install_targets, waited  # only where a command installs

            if any(w.text == "--dry-run" for w in words):
                continue  # "Don't actually install anything" (pip install --dry-run): the release stays
            elsewhere = next((w.text for w in words if _ELSEWHERE.fullmatch(w.text)), None)
            for token, project in install_targets(words):
                m = None if project else spec.fullmatch(token.text)
                if m is None and not project and not (("/" in token.text or token.text.endswith(".whl"))
                                                      and re.search(rf"(?<!\w){package}(?!\w)", token.text, re.I)):
                    continue  # another package (`sglang-router`), or a path that is not the engine's
                pin = _PINNED.fullmatch(m.group("spec") or "") if m is not None and not token.unresolved else None
                if other.arm is not None and other.arm != cmd.arm:  # in a branch of an `if` the launch is not in
                    found, installed, self.run_reinstall = None, True, f"the container's command installs " \
                        f"{token.text} only in a branch of an `if`, which may not run, so the release it runs is " \
                        f"either that or the image's"
                    continue
                if other.background and not waited(self.commands, j, [i for i in mine if i > j]):
                    # `pip install vllm==0.6.3 & vllm serve ...`: the launch does not wait for the install, which
                    # may replace the engine's files before, while or after the server imports them
                    found, installed, self.run_reinstall = None, True, f"the container's command installs " \
                        f"{token.text} in the background (`&`), which the launch does not wait for, so the " \
                        f"release it runs is either that or the image's"
                    continue
                if project:  # `-e .`, `-r requirements.txt`, `./`: whatever it holds, which may be the engine
                    if installed is None:
                        installed = _release(engine, named) is not None
                    if installed:
                        found, self.run_reinstall = None, f"the container's command installs {token.text}, which " \
                            f"may hold {engine} (ctxlint does not read it), over the image {named}, whose tag is " \
                            f"then not the release it runs"
                    continue
                if elsewhere is not None:  # into a directory of its own, which the server imports from or not
                    found, installed, self.run_reinstall = None, True, f"the container's command installs " \
                        f"{token.text} with {elsewhere}, where the server may or may not import it from"
                    continue
                if pin is not None:
                    at = m.start("spec") + pin.start(1)
                    found, installed, self.run_reinstall = Val(pin.group(1), self.span_source(
                        token.item, token.span_of(at, at + len(pin.group(1)))), raw=token.text), True, None
                    continue
                if installed is None:  # asked once, and only here
                    installed = _release(engine, named) is not None
                if not installed:
                    continue  # nothing of the engine's installed yet: release_unknown reads such an install
                if m is not None and not m.group("spec") and not token.unresolved:
                    if any(_UPGRADES.fullmatch(w.text) for w in words):  # the newest the index offers that day
                        found, self.run_reinstall = None, ""
                else:  # a range, a URL or a build: some release the line does not name
                    found, self.run_reinstall = None, f"the container's command installs {token.text} over " \
                        f"the image {named}, whose tag is then not the release it runs"
        return found

    def installed_version(self, engine: str) -> Optional[Val[str]]:
        """`pip install vllm==0.6.6.post1` (or `uv pip install "sglang[all]==0.4.1"`) in a script."""
        package = _PIP_NAMES.get(engine)
        if package is None:
            return None
        # not one run in the background (`... & vllm serve`: the launch does not wait for it, run_release), but
        # one whose output a redirect sends (`2>&1`, `&> log`) or that an `&&` follows
        pattern = re.compile(rf"\b(?:pip3?|uv pip)\s+install\b[^\n;&|]*?\b{package}(?:\[[\w,-]+\])?==([0-9][\w.+-]*)"
                             r"(?!(?:[^\n;&|]|[<>]&|&>)*(?<![<>])&(?![&>]))", re.IGNORECASE)
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

    def release_unknown(self, engine: str, image: Optional[str]) -> Optional[str]:
        """Why the release this container runs, which nothing names, need not be the engine's newest
        (release_unknown.why_unknown), or None when it is: no image, the engine's release image at `latest`,
        or a script that installs the engine unpinned (`pip install vllm`, whatever image it runs in)."""
        from ctxlint.engines.release_unknown import by_operator, why_unknown  # only an unknown release's refusal

        if self.run_reinstall is not None:  # the container's command reinstalled it (run_release): "" the newest
            return self.run_reinstall or None
        if self.c.image_by is not None and image is None:
            return by_operator(self.c.image_by)
        package = _PIP_NAMES.get(engine)
        # a built image's unpinned RUN installed the newest of the day it was built, which its layer cache keeps
        if package is not None and image is not None and self.c.reinstalled is None:
            unpinned = re.compile(rf"\b(?:pip3?|uv pip)\s+install\b[^\n;&|]*?\b{package}(?:\[[\w,-]+\])?"
                                  r"(?:>=[\w.]+)?(?=[\s'\"]|$)", re.IGNORECASE | re.MULTILINE)
            scripts = list(self.c.install_scripts) + ([self.c.script] if self.c.script is not None else [])
            for node in scripts:
                if node.kind == SCALAR and isinstance(node.value, str) and any(
                        not commented(node.value, m.start()) for m in unpinned.finditer(node.value)):
                    return None  # pip installs the newest the index has
        return self.c.reinstalled or why_unknown(engine, image)

    def image_version(self, engine: str, image: str, source) -> Optional[Val[str]]:
        """The release an image token names (`docker run lmsysorg/sglang:v0.4.6 ...` in a script), at the token."""
        version = _release(engine, image)
        return Val(version, source, raw=image) if version is not None else None


# `==0.5.5`, `==0.5.5.post1` (a wildcard `==0.5.*` is no one release). pip replaces an installed release the pin
# does not match; any other requirement of one already installed is kept or upgraded by options and the index of the
# day (without --upgrade "the resolver will only see the installed version as a candidate":
# https://pip.pypa.io/en/stable/development/architecture/upgrade-options/), so only the pin names the release.
_PINNED = re.compile(r"==\s*([0-9][\w.+!-]*)")


# pip's and uv's options that install a requirement anew though a release of it is installed (`-qU` too)
_UPGRADES = re.compile(r"--upgrade|--force-reinstall|--ignore-installed|--reinstall|-[a-zA-Z]*[UI][a-zA-Z]*")


# pip's (and uv's) options that install into another directory than the interpreter's site-packages
_ELSEWHERE = re.compile(r"(?:--target|--prefix|--root)(?:=.*)?|-t.*")


def _pip_installed(tokens: Sequence[Token]) -> Sequence[Token]:
    """The words after `install` of `pip install`, `pip3 install`, `python3 -m pip install`, `uv pip install`
    (behind `sudo` or `exec` too); () for any other command."""
    for i, token in enumerate(tokens[:6]):
        if token.text == "install" and i and re.fullmatch(r"pip[\d.]*", tokens[i - 1].text.rsplit("/", 1)[-1]):
            return tokens[i + 1:]
    return ()


def _release(engine: str, image: str) -> Optional[str]:
    """The release of `engine` an image's tag names (images.engine_from_image); runtime images (Dynamo, Triton,
    NIM) carry their own version, not the engine's, but for Triton's months whose engine NVIDIA states (ngc.py) and
    Dynamo's runtime tags whose engine Dynamo states (dynamo_images.py)."""
    eng, version = engine_from_image(image)
    if eng is None:  # an image named for something else: its tag may still state the engine's release
        from ctxlint.engines.images import release_named_in_tag

        version = release_named_in_tag(engine, image)
    elif eng != engine:
        return None
    if not version:
        return None
    if _RUNTIME_IMAGE.search(image.lower()) and not _stated(image):
        return None
    return version


image_release = _release  # for a format that names its image outside a container (srt_recipe's model.container)


def _stated(image: str) -> bool:
    """Whether the runtime image's maker states the engine release its tag holds (NVIDIA's months, Dynamo's tags)."""
    from ctxlint.engines import dynamo_images, ngc  # only a runtime image with a release pays for the tables
    from ctxlint.engines.images import split_image

    repo, tag = split_image(image)
    return ngc.source(repo, tag) is not None or dynamo_images.source(repo, tag) is not None


def docker_run(before: Sequence[Token]) -> Tuple[Optional[Token], List[EnvAssign]]:
    """For an engine started by `docker run [options] IMAGE [program ...]` (`before`: the words before the
    engine's program, or its image when the image's entrypoint is the engine): the image token, and the
    container's environment from `-e NAME=value` / `--env NAME=value` / `--env=NAME=value` (a `-e NAME`
    without a value passes the host's, not known: not read). Anything else: (None, [])."""
    # every engine command is asked: the first word decides before anything is built
    if not before or before[0].text.rsplit("/", 1)[-1] not in ("docker", "podman", "nerdctl") \
            or run_verb([t.text for t in before[:3]]) is None:
        return None, []
    image = next((t for t in reversed(before) if engine_from_image(t.text)[0] is not None), None)
    out: List[EnvAssign] = []
    for i, token in enumerate(before):
        text = token.text
        if text in ("-e", "--env") and i + 1 < len(before):
            token = before[i + 1]
        elif text.startswith("--env="):
            cut = len("--env=")
            token = Token(text[cut:], token.start, token.end, token.starts[cut:], token.ends[cut:], token.refs,
                          token.item)
        else:
            continue
        name = token.text.split("=", 1)[0]
        if "=" in token.text and NAME.fullmatch(name):
            out.append(EnvAssign(name, token))
    return image, out


_RUNTIME_IMAGE = re.compile(r"dynamo|triton|/nim/|nvcr\.io/nim")


def installs_over(image: Optional[str], scripts: Sequence[Any], by: str) -> Optional[str]:
    """Why the image's tag is not the release that runs: one of the scripts (nodes run before the engine starts:
    a Dockerfile's RUN lines, SkyPilot's `setup:`) installs the image's engine package anew, whatever it pins
    (`pip install vllm==0.9.1` over vllm/vllm-openai:v0.7.3); the release is then the one a script pins
    (installed_version), else not known. `by` names the scripts in the message."""
    engine = engine_from_image(image)[0] if image else None
    package = {"vllm": "vllm", "sglang": "sglang", "trtllm": "tensorrt[-_]llm", "lmdeploy": "lmdeploy",
               # TGI's server is `text-generation-server` (server/pyproject.toml); a bare `text-generation` is its
               # Python client (clients/python/pyproject.toml), which leaves the image's server as it is
               "tgi": "text-generation-(?:server|inference)"}.get(engine or "")
    if package is None:
        return None
    # the package's own name (`vllm==0.9.1`, `vllm[audio]`, `.../vllm.git`), not another's that holds it
    # (`vllm-flash-attn`, `sglang-router`, a `/vllm-workspace/` path)
    pattern = re.compile(rf"\binstall\b[^\n;&|]*(?<![\w-]){package}(?![\w-])", re.IGNORECASE)
    if any(isinstance(n.value, str) and pattern.search(n.value) for n in scripts):
        return f"{by} installs {engine} over the image {image}, whose tag is then not the release it runs"
    return None
