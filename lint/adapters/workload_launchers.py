"""The launch lines _Reader (workload.py) reads apart from an engine's own invocation: engine flags given to an
image whose entrypoint ctxlint does not know, a `docker run` that starts no known engine, the TRT-LLM backend's
flags on text-generation-launcher, engine words given as a program, and SGLang follower nodes of an `if`. A mixin
of _Reader (it reads `self.c`, `self.leaders` and Positions.token_source), kept apart so workload.py stays the
reading's main line."""
from __future__ import annotations

from typing import Optional

from ctxlint.adapters.engine_roles import follows, leads
from ctxlint.adapters.workload_records import Reading
from ctxlint.engines import Command
from ctxlint.engines.detect import ENGINE_COMMANDS, unknown_entrypoint_flags
from ctxlint.findings import Diagnostic

from ..records import replace

UNRESOLVED = "unresolved-value"


class Launchers:
    def unattributed(self, tokens, image: Optional[str], where, out: Reading) -> None:
        """Engine flags passed to an image of that engine whose entrypoint ctxlint does not know (`where`: a callable
        giving the image's Source, asked only then)."""
        if len(tokens) > 1 and tokens[0].text.rsplit("/", 1)[-1] == "ray" and tokens[1].text == "start":
            return  # a Ray node (`ray start --address=... --block`): the cluster's engine is started elsewhere
        engine, flags = unknown_entrypoint_flags(tokens, image)
        flags = list(dict.fromkeys(flags))
        if engine is None and "$" in str(image):
            self.unresolved_image(tokens, str(image), where, out)
            return
        if flags:
            named = f"{flags[0]} is not read as a {engine} flag" if len(flags) == 1 else \
                f"{', '.join(flags)} are not read as {engine} flags"
            out.diagnostics.append(Diagnostic(UNRESOLVED, (
                f"the image {image} is {engine}'s but ctxlint does not know what its entrypoint runs, so {named} "
                f"and this container is not checked; state the command that starts it "
                f"(`{ENGINE_COMMANDS.get(str(engine), engine)} ...`)"), where(), None))

    @staticmethod
    def unresolved_image(tokens, image: str, where, out: Reading) -> None:
        """Engine flags given to an image whose name is a reference ctxlint did not resolve (`${VLLM_IMAGE}`,
        engines/unresolved_images.py): what runs them is not known, said at the image."""
        from ctxlint.engines.unresolved_images import LABELS, engine_flags, name_unresolved

        if not name_unresolved(image):
            return
        engine, flags = engine_flags(tokens)
        if not flags:
            return
        listed = flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"
        whose = f"{LABELS[engine]}'s flags" if engine is not None else "engine flags"
        command = f" (`{ENGINE_COMMANDS[engine]} ...`)" if engine is not None else ""
        out.diagnostics.append(Diagnostic(UNRESOLVED, (
            f"the image {image} is not resolved, so what its entrypoint runs is not known: {listed} "
            f"({whose}) {'is' if len(flags) == 1 else 'are'} not read and this container is not checked; "
            f"set the image, or state the command that starts the engine{command}"), where(), None))

    def unread_script(self, commands, image: Optional[str], out: Reading) -> None:
        """A container of an engine's image whose command runs a script file no checked file holds
        (`command: ["/entrypoint.sh"]`, `["/bin/bash", "/scripts/start.sh"]`, baked into the image or mounted from
        a volume): what it starts is not known, said at the script's word (compose_scripts.run_script says it for a
        compose service). A web server's or database's own script is none of ours: only an engine's image."""
        if not any(t.text.endswith((".sh", ".bash")) for cmd in commands for t in cmd.tokens[:3]):
            return  # most containers run a program: no import, no image parse
        from ctxlint.engines.images import engine_from_image
        from ctxlint.engines.tokens import SHELLS
        from ctxlint.engines.unresolved_images import LABELS

        engine = engine_from_image(image)[0]
        if engine is None:
            return
        for cmd in commands:
            texts = [t.text for t in cmd.tokens]
            if not texts:
                continue
            at = 0 if texts[0].rsplit("/", 1)[-1].endswith((".sh", ".bash")) else None
            if at is None and texts[0].rsplit("/", 1)[-1] in SHELLS:
                at = 1
                while at < len(texts) and texts[at].startswith(("-", "+")):
                    if not texts[at].startswith("--") and "c" in texts[at][1:]:
                        at = len(texts)  # `sh -c STRING`: a command string, split into these commands already
                    at += 1
            if at is not None and at < len(texts) and texts[at].endswith((".sh", ".bash")) and "$" not in texts[at]:
                label = LABELS.get(engine, engine)
                volume = self.script_volume(texts[at])
                held = ", which no file checked holds (the image's own, or mounted from a volume)" if volume is None \
                    else f" from the volume {volume}: ctxlint reads no script a pod mounts"
                out.diagnostics.append(Diagnostic(UNRESOLVED, (
                    f"the container {self.c.name or '(unnamed)'} runs script {texts[at]}{held}, "
                    f"so the {label} engine it starts is not checked; "
                    f"state the command that starts it (`{ENGINE_COMMANDS.get(engine, engine)} ...`) in the "
                    "container"), self.token_source(cmd.tokens[at]), None))
                return

    def script_volume(self, path: str) -> Optional[str]:
        """The volume the container mounts over the script's path (`/scripts` holding `/scripts/start.sh`, often a
        ConfigMap's, which may be in a checked file), named with where it is mounted; None when no mount covers it."""
        from ctxlint.nodes import MAP, SEQ

        node = self.c.node
        mounts = node.get("volumeMounts") if node is not None and node.kind == MAP else None
        for mount in mounts.value if mounts is not None and mounts.kind == SEQ else ():
            if mount.kind != MAP:
                continue
            at, name = mount.get("mountPath"), mount.get("name")
            at = at.value if at is not None and isinstance(at.value, str) else None
            if at and path.startswith("/") and (path == at or path.startswith(at.rstrip("/") + "/")):
                return f"{name.value if name is not None else '(unnamed)'} (mounted at {at})"
        return None

    def unattributed_run(self, tokens, out: Reading) -> None:
        """`docker run [opts] IMAGE ARGS` that starts no engine ctxlint knows: the words after the image go to its
        entrypoint, as a container's args-only `args` do, so engine flags there are said as for that container
        (at the image token). An `--entrypoint` names the program itself (container_runs.entrypoint)."""
        if tokens[0].text.rsplit("/", 1)[-1] in ("apptainer", "singularity"):  # `run IMAGE ARGS`: its runscript
            from ctxlint.engines.apptainer import unknown_runscript

            said = unknown_runscript([t.text for t in tokens])
            if said is not None:
                out.diagnostics.append(Diagnostic(UNRESOLVED, said[1], self.token_source(tokens[said[0]])))
            return
        from ctxlint.engines.docker_run import parse_run  # only a `docker run` line that starts no engine

        run = parse_run([t.text for t in tokens])
        if run is not None and run.entrypoint is None:
            image = tokens[run.image]
            self.unattributed(tokens[run.image + 1:], image.text, lambda: self.token_source(image), out)

    @staticmethod
    def trtllm_flags(inv, image: Optional[str]):
        """The TRT-LLM backend's flags given to text-generation-launcher, judged by the container's image
        (engines/tgi_args.trtllm_args): a command names the launcher, so its detection does not carry the image."""
        from ctxlint.engines.tgi_args import trtllm_args

        refused = trtllm_args(inv.unknown_flags, image)
        return replace(inv, errors=inv.errors + tuple(refused)) if refused else inv

    def program_as_args(self, inv, tokens, det, docker_image, out: Reading):
        """Said at the first word (entry_words.py); the parser's own refusal of the words after the model is
        that one."""
        from dataclasses import replace

        from ctxlint.adapters.entry_words import engine_args_as_program, form_of
        at = self.token_source(tokens[det.args_start])
        # words of another file are a built image's CMD (compose_build.py): said as the Dockerfile's
        form = "dockerfile" if docker_image is None and at.file != self.file else form_of(docker_image,
                                                                                           self.c.compose_refs)
        out.diagnostics.append(engine_args_as_program(
            tokens, det.args_start, det.engine, det.launcher[len("image:"):], at, form))
        # the words llama-server takes for none of its options (engines/llamacpp_words.py) are no longer
        # positionals: their "invalid argument" would say again, word by word, what the refusal above says
        inv = replace(inv, errors=tuple(e for e in inv.errors if e.token_index not in inv.positionals and not (
            det.engine == "llamacpp" and e.message.startswith("invalid argument: "))))
        model = inv.model
        if model is not None and model.note == "positional" and model.token_index is not None \
                and model.token_index >= det.args_start and model.token_index in inv.positionals + (det.args_start,):
            # the positional the engine takes for its model is the program's own word (`/bin/sh`, `vllm`, `exec`):
            # the engine exits on the words after it and the older API server module never serves it, so no
            # model is served, and none is named (a shell path is no model folder to put a config.json in)
            settings = {k: v for k, v in inv.settings.items() if v is not model}
            inv = replace(inv, model=None, settings=settings, model_word=None)
        return inv

    def follower(self, cmd: Command, inv) -> bool:
        """An SGLang launch in a later branch of the `if` whose first branch launches node 0 of it
        (engine_roles.follows); that node-0 launch is remembered here for the branches after it."""
        arm = cmd.arm
        if arm is None or not arm[2]:
            return False
        if arm[1] == 1:  # the `then` of the `if`: the one whose other branches run the other nodes
            if leads(inv):
                self.leaders.setdefault(arm[0], []).append(inv)
            return False
        return any(follows(inv, leader) for leader in self.leaders.get(arm[0], ()))
