"""The shared core of every adapter for workloads that run an engine command line.

A format adapter (Kubernetes, compose, SkyPilot, a CRD, Helm values...) only
finds its containers and workloads; this module turns them into the model.

API, in the order a caller uses it::

    spans = ScalarSpans(loaded.path, loaded.text)          # positions inside scalars
    env = env_from_k8s(container.get("env"))                # or env_from_mapping / env_from_list
    reading = read_container(Container(
        spans=spans, node=container_node, name="vllm",
        command=command_node, args=args_node,                # SEQ nodes (exec form), or
        script=None,                                         # one string node run by a shell
        env=env, image=image_node, args_only=command_node is None,
        accelerator_count=count_from_resources(...), accelerator_type=type_from_pod_spec(...)))
    # reading.roles: one EngineRole per engine invocation found (none: not an engine container)
    # reading.diagnostics: "engine-rejects-value" diagnostics at the offending token
    workload = Workload(name=Val(...), source=doc_source, input_format="kubernetes",
                        replicas=Val(...) or None, roles=reading.roles,
                        advertised=..., gateway=...)         # see limits_from_annotations
    result = deployments_from(loaded.path, [workload, ...])  # -> AdaptResult

`deployments_from` makes one Deployment per workload, except that workloads
of one file serving the same model with only prefill roles and only decode
roles become ONE disaggregated Deployment, and it reports values it could
not resolve (unset `$(VAR)`, secret env) once per deployment as
"unresolved-value" (CTX008). Every Val points at the value token the user
typed (inside list items, `--flag=value`, `sh -c` strings, block scalars,
or the env var's value scalar). Nothing here raises on odd input. The records
(`Container`, `Workload`, `Reading`, `EngineRole`) are in workload_records.py, and
this module re-exports them.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ctxlint.adapters.crd_common import in_template
from ctxlint.adapters.engine_roles import role_facts, serves_no_role
from ctxlint.adapters.launcher_devices import remote_hop, remote_prefixes
from ctxlint.engines.command_prefixes import launched_hop
from ctxlint.adapters.split_seen import detect_seen, parse_seen, shell_seen, split_seen
from ctxlint.adapters.workload_inputs import (ANNOTATIONS, NOT_MEASURED, EnvVar, Measured, env_from_k8s,  # noqa: F401
                                             env_from_mapping, limits_from_annotations, scalar_text)
from ctxlint.adapters.workload_config import ConfigSettings
from ctxlint.adapters.workload_devices import Devices, starts_ray
from ctxlint.adapters.workload_launchers import UNRESOLVED, Launchers
from ctxlint.adapters.workload_positions import Positions
from ctxlint.adapters.workload_records import Container, EngineRole, Reading, Workload  # noqa: F401
from ctxlint.adapters.workload_versions import Versions, docker_run
from ctxlint.engines import Command, Detection, Token, split_list, split_shell
from ctxlint.engines.detect import entrypoint_detection, names_program
from ctxlint.engines.int_eras import at_release
from ctxlint.findings import Diagnostic
from ctxlint.model import Source, Val
from ctxlint.nodes import SCALAR, SEQ, Node

from ..records import replace

ENGINE_REJECTS = "engine-rejects-value"
_RUNS_IMAGES = ("docker", "podman", "nerdctl", "apptainer", "singularity")


def _items(node: Optional[Node]) -> List[Node]:
    if node is None:
        return []
    return list(node.value) if node.kind == SEQ else [node] if node.kind == SCALAR else []


class _Reader(Positions, Devices, Versions, ConfigSettings, Launchers):
    def __init__(self, c: Container, alike: Sequence[Container] = ()) -> None:
        self.c, self.file = c, c.spans.file
        self.devices = alike or (c,)  # the containers whose roles are read (Devices.device_roles)
        self.other_roles: List[List[EngineRole]] = [[] for _ in self.devices[1:]]
        self.env: Dict[str, Optional[str]] = {}
        self.env_nodes: Dict[str, Node] = {}
        for var in c.env:  # a Helm action in a value of a file read as written is unknown, as in the command
            self.env[var.name] = None if var.value and "{{" in var.value and self.helm_value(var.value) else var.value
            if var.node is not None:
                self.env_nodes[var.name] = var.node
        if c.resolver_nodes is not None:  # `${name}` means the resolver's values, written at these nodes
            self.env_nodes = dict(c.resolver_nodes)
        self.item_nodes: List[Node] = []
        self.item_texts: List[str] = []
        self.fields_unknown = False  # TGI items split at blanks by an entrypoint the image's tag may not have
        self.config_sources: Dict[str, Source] = {}
        self.config_missing: Optional[str] = None
        self.leaders: Dict[int, list] = {}  # an `if`'s number -> the SGLang node-0 launches of its `then`

    def lookup(self, name: str) -> Optional[str]:
        if name.startswith("{{"):  # a Go template action (gotemplate.lookup_key), never an env var
            return (self.c.go_values or {}).get(name)
        return self.c.resolver(name) if self.c.resolver is not None else self.env.get(name)

    sm_renamed: Dict[str, str] = {}  # a SageMaker DLC entrypoint's renames (sagemaker_env.py)

    def read(self) -> Reading:
        c, out = self.c, Reading()
        image = c.image_text if c.image_text is not None else c.image.value if c.image is not None \
            and c.image.kind == SCALAR and isinstance(c.image.value, str) else None
        if c.k8s_refs and not c.compose_refs and c.command is not None and c.command.kind == SEQ \
                and len(c.command.value) == 1 and c.command.value[0].value == "/tgi-entrypoint.sh" \
                and "text-generation" in str(image):
            from ctxlint.engines.image_builds import tgi_entrypoint_splits  # rare: only such a command pays

            if tgi_entrypoint_splits(image):  # the image's own ENTRYPOINT, named again: the args go to it as without
                self.c = c = replace(c, command=None, args_only=True)
        dlc, lmi = False, None  # only an image named so pays for the import: its entrypoint drops the words given it
        if c.args_only and c.preset is None and image is not None and "-tgi-inference" in image:
            from ctxlint.adapters.sagemaker_env import tgi_entrypoint
            dlc = tgi_entrypoint(self, image, out)
        elif c.args_only and c.preset is None and image is not None and "djl-" in image:
            from ctxlint.adapters.lmi_env import lmi_entrypoint  # AWS LMI: configured by env (lmi_env.py)
            lmi = lmi_entrypoint(self, image, out)
            c, dlc = self.c, lmi is not None
        if dlc:
            split = split_list([], self.lookup)
            self.unsure = split.unsure
        elif c.preset is not None:  # rare: most runs never import it
            from ctxlint.adapters.preset_args import preset_split
            split = preset_split(self)
            self.unsure = split.unsure
        elif c.script is not None:
            if c.script.kind != SCALAR or not isinstance(c.script.value, str):
                return out
            text = c.script_text if c.script_text is not None else c.script.value
            self.item_nodes, self.item_texts = [c.script, *c.script_args], [text]
            self.item_texts += [scalar_text(n) for n in c.script_args]
            if c.script_args:  # a compose service's script file, run with its command's words (compose_scripts)
                from ctxlint.adapters.compose_scripts import parameters
            if c.script_args or c.sourcer is not None or not isinstance(text, str):
                split = split_shell(text, self.lookup, k8s=c.k8s_refs, shell=self.env.get if c.compose_refs else None,
                                    go=self.go_actions(), defaults=c.shell_defaults,
                                    script=c.shell_defaults or c.shell_run, sourcer=c.sourcer,
                                    positional=parameters(c.script_args, 1, c.script_resolver) if c.script_args
                                    else None)
            else:  # most strings: reused within the run (split_seen.py)
                split = shell_seen(text, self.lookup, c.k8s_refs, self.env.get if c.compose_refs else None,
                                   self.go_actions(), c.shell_defaults, c.shell_defaults or c.shell_run)
            self.unsure = split.unsure
            if c.compose_refs and not c.script_args and c.node is not None and c.node.get("command") is c.script \
                    and isinstance(text, str) and has_c_item(text.split()) \
                    and any(w.rsplit("/", 1)[-1] in ("sh", "bash", "dash", "ash", "zsh") for w in text.split()[:4]):
                # `command: sh -c vllm serve M`: Compose splits the string, the script is its first word
                from ctxlint.adapters.c_script_words import string_cut_short
                out.diagnostics.extend(string_cut_short(self, text))
        entry: list = []  # args-only words naming a program (`/bin/sh -c ...`) that the image's engine is given
        if c.preset is None and c.script is None and not dlc:
            self.item_nodes = _items(c.command) + _items(c.args)
            self.item_texts = [scalar_text(n) for n in self.item_nodes]
            if c.args_only and image is not None and names_program(self.item_texts):
                entry = entrypoint_detection(image)
            split = split_seen(self.item_texts, self.lookup, compose=c.compose_refs,
                               shell=self.env.get if c.compose_refs else None, go=self.go_actions(),
                               k8s=c.k8s_refs and not in_template(c.node.path), argv=bool(entry))
            self.unsure = split.unsure
            if not entry and has_c_item(self.item_texts):  # `sh -c` given a command as words (c_script_words)
                from ctxlint.adapters.c_script_words import cut_short_finding
                out.diagnostics.extend(cut_short_finding(self, c.compose_refs))
            if c.args_only and not entry and image is not None and "text-generation" in image \
                    and any(" " in t or "\t" in t or "\n" in t for t in self.item_texts if isinstance(t, str)):
                from ctxlint.adapters.joined_items import entrypoint_fields  # TGI's entrypoint script splits them
                split, self.fields_unknown = entrypoint_fields(split, image)
        if split.problems:  # a quote left open hides the engine command after it: said, not a clean run
            from ctxlint.engines.c_script_cut import CUT_SHORT  # and `sh -c vllm serve M` runs `vllm` alone

            out.diagnostics.extend(Diagnostic("engine-rejects-value", p.message[len(CUT_SHORT):],
                                              self.span_source(p.item, (p.start, p.end)))
                                   for p in split.problems if p.message.startswith(CUT_SHORT))
            from ctxlint.adapters.script_problems import unterminated  # rare: most runs never import it
            out.diagnostics.extend(unterminated(split.problems, self))
        commands = self.commands = list(split.commands)
        self.ray_cluster = any(starts_ray([t.text for t in cmd.tokens]) for cmd in commands)
        if not self.item_nodes and c.args_only and (image is not None or c.engine is not None):
            commands = [Command(())]  # the image's entrypoint alone, configured by env (TGI)
        for k, cmd in enumerate(commands):
            # the words go to the image's entrypoint once: a later line of a string split as a script that starts
            # with a flag (`--max-model-len 8192` under `exec vllm serve M`) is a shell's command, no engine's
            args_only = c.args_only and not (k and c.script is not None and cmd.tokens
                                             and cmd.tokens[0].text[:1] == "-")
            found = entry or (detect_seen(cmd.tokens, image, args_only) if c.preset is None else [])
            if not found and c.engine is not None and args_only:
                found = [Detection(c.engine.value, c.engine.value, None, 0, 0, via_image=True)]
            if not found and args_only and cmd.tokens:
                self.unattributed(cmd.tokens, image, lambda: self.c.image.source(self.file), out)
            elif not found and cmd.tokens and cmd.tokens[0].text.rsplit("/", 1)[-1] in _RUNS_IMAGES:
                self.unattributed_run(cmd.tokens, out)
            for det in found:
                self.invocation(cmd, det, image, out, k)
        if not out.roles and not c.args_only and c.k8s_refs and not c.compose_refs:  # compose says it itself
            self.unread_script(commands, image, out)
        for role in out.roles if lmi else ():  # what LMI's env leaves unknown
            role.unresolved.extend(lmi)
        if "ollama" in str(image).lower() or any("ollama" in t for t in self.item_texts if isinstance(t, str)):
            from ctxlint.adapters.unmodelled import ollama_commands  # an engine ctxlint does not model: said so
            out.diagnostics.extend(ollama_commands(commands, image, c.args_only, self.env,
                                                   lambda: c.image.source(self.file), self.token_source))
        return out

    def invocation(self, cmd, det, image: Optional[str], out: Reading, k: int = -1) -> None:
        env: Dict[str, Optional[str]] = dict(self.env)
        # `docker run [-e A=b] IMAGE [program] ...`: the image is the detection's own token when it is the engine
        docker_image, docker_assigns = docker_run(cmd.tokens[:det.start + 1 if det.via_image else det.start])
        if docker_image is None and cmd.image is not None:  # a command of the container's `sh -c` script
            gpus = cmd.image_gpus
            docker_image, run = cmd.image, (cmd.image, bool(gpus), None, None if isinstance(gpus, bool) else gpus)
        elif docker_image is not None:  # a script's container: what its image, `--gpus`, `--runtime` say of the device
            from ctxlint.engines.docker_run import requested_gpus, requested_vendor, requests_accelerator
            texts = [t.text for t in cmd.tokens]
            run = (docker_image, requests_accelerator(texts), requested_vendor(texts), requested_gpus(cmd.tokens))
        else:
            run = None
        # `docker run --env-file F`: variables the file sets are not read here (workload_devices.env_unseen)
        self.run_env_file = docker_image is not None and any(
            t.text == "--env-file" or t.text.startswith("--env-file=") for t in cmd.tokens[:det.start])
        if run is not None and run[3] is not None and run[3].refused:  # `--gpus device=0,1`: Docker refuses it
            from ctxlint.adapters.gpu_refusal import refused_gpus
            out.diagnostics.append(refused_gpus(run[3], self.span_source))
        # another host (engines/ssh_commands.py): `ssh HOST vllm ...`, `pdsh -w HOSTS vllm ...`
        hop = remote_hop([t.text for t in cmd.tokens], det.start)
        # the shell's exported variables (shell_exports.py), then the command's own prefixes; a `docker run` line's
        # container gets only its `-e` ones, an engine on another host none (ssh passes only what SendEnv names)
        given = ([] if docker_image is not None and cmd.image is None or hop is not None else list(cmd.exported)) \
            + (list(cmd.env) if hop is None else remote_prefixes(cmd.tokens, hop, det.start)) + docker_assigns
        assigns = self.assigns = {a.name: a for a in given}
        env.update({a.name: (None if a.token.unresolved else a.value) for a in given})
        inv = parse_seen(det.engine, cmd.tokens, env, det.launcher, det.subcommand, det.args_start)
        if inv.unknown_flags and det.engine == "tgi" and not det.launcher.startswith("image:"):
            inv = self.trtllm_flags(inv, image if docker_image is None else docker_image.text)
        if self.sm_renamed:  # said as the DLC's env names them
            from ctxlint.adapters.sagemaker_env import renamed_settings
            inv = renamed_settings(inv, self.sm_renamed)
        inv = self.with_config(inv)
        if any(" " in t.text or "\t" in t.text for t in cmd.tokens[det.args_start:]):  # rare: an item of words
            from ctxlint.adapters.joined_items import one_word_items
            inv = one_word_items(self, inv, cmd, det)
        if self.fields_unknown and det.via_image:
            from ctxlint.adapters.joined_items import one_item_unknown
            inv = one_item_unknown(self, inv, cmd.tokens, det.launcher[len("image:"):])
        if self.c.preset is not None:  # the preset gives the model: any other word is refused
            from ctxlint.adapters.preset_args import stray_words
            inv = stray_words(inv, cmd.tokens, self.c.preset)
        if det.via_image and det.launcher.startswith("image:") and det.args_start < len(cmd.tokens) \
                and names_program([t.text for t in cmd.tokens[det.args_start:]]):  # the engine is given a program
            inv = self.program_as_args(inv, cmd.tokens, det, docker_image, out)
        if serves_no_role(inv, grouped=self.c.group_pods > 1) or self.follower(cmd, inv):
            self.config_missing = None  # its unread config file is not the next command's
            return
        tokens: Tuple[Token, ...] = cmd.tokens

        sources: Dict[int, Source] = {}  # each setting's place, found once (Positions.placer)
        where = self.placer(sources, tokens, assigns)
        # a pinned reinstall in the container's own command wins over its image's tag (Versions.run_release)
        version = self.run_release(det.engine, k, image, docker_image)
        if version is None and self.run_reinstall is None:
            version = self.version(det.engine, image)
        if version is None and self.run_reinstall is None and image is None and docker_image is not None:
            version = self.image_version(det.engine, docker_image.text, self.token_source(docker_image))
        # a value this release refuses or reads otherwise is not its setting (`--max-model-len auto` before 0.14.0)
        inv = at_release(inv, version.value if version is not None else None)
        # an srun in front of a hop to another host asks GPUs of this cluster's node, not of the engine's host
        self.under_srun = any(t.text == "srun" for t in cmd.tokens[hop + 1 if hop is not None else 0:det.start])
        self.on_remote = hop is not None or any(w.split(" ", 1)[0].rsplit("/", 1)[-1] in ("ssh", "pdsh")
                                                or launched_hop(w.split(" ")) is not None for w in cmd.wrappers)
        # the GPUs `srun --gres=gpu:h100:8 ...` asks for (srun_request.py, imported only for a command under srun)
        self.srun = None
        if self.under_srun:
            from ctxlint.adapters.srun_request import srun_request
            self.srun = srun_request(cmd.tokens, det.start)
        later = self.later_placer(sources, tokens, assigns)  # later(s): where(s), when the Val's source is read
        self.release = version  # the release device_role reads an engine's own defaults by (tgi_shards.py)
        roles = self.device_roles(inv, role_facts(inv, where, later), self.engine_env_args(inv, assigns), run, where)
        if cmd.branch:  # read with one branch's values (engines/scalar_branches.py): named by it
            roles = [replace(r, name=cmd.branch) for r in roles]
        role = roles[0]
        # the program, or the image of `docker run IMAGE ARGS` (an args-only detection has neither)
        prog = tokens[det.start] if det.start < len(tokens) and (not det.via_image or det.args_start > det.start) \
            else None
        engine_src = self.engine_source(det, image, prog)
        model = literal = None
        if inv.model is not None and isinstance(inv.model.value, str) and inv.model.value:
            literal = self.literal_model(inv.model, tokens) if "$" in inv.model.value else None
            if literal is None:  # a `${NAME}` Kubernetes passes as written names no model
                host = None
                if self.c.mounts or det.via_image:  # only where a bind mount can put the model there is it read
                    from ctxlint.engines.mounted_model import host_folder, run_mounts

                    host = host_folder(inv.model.value, self.c.mounts if self.c.mounts is not None else
                                       run_mounts([t.text for t in tokens[:det.start]]) if det.via_image else None)
                # `-v $PWD/models/NAME:/data ... --model-id /data`: the host folder the engine loads names it
                model = Val(host or inv.model.value, where(inv.model), raw=inv.model.raw_text)
        # not under a reference the file spells otherwise (a systemd `%h`: its placeholder is no path to show)
        named = None
        if model is None and literal is None:  # engines/model_folder.py is imported only by a model it may name
            from ctxlint.engines.model_folder import folder_model

            named = folder_model(inv.model_word, tokens, self.c.ref_spelling)
        if named is not None:  # `${ROOT}/models/NAME`: matched by its typed folder name (engines/model_folder.py)
            model = Val(named[1], self.token_source(named[2]), raw=named[1])
        found = EngineRole(role, Val(det.engine, engine_src), version, model,
                           command=self.token_source(prog) if prog is not None else None)
        if literal is not None:
            found.unresolved.append(literal)
        if self.config_missing is not None or inv.unresolved or inv.errors or det.engine == "lmdeploy":
            from ctxlint.adapters.workload_problems import role_problems  # rare: most commands state all they set
            role_problems(self, inv, det, found, named, model, image, docker_image, tokens, out, where)
        self.config_missing = None
        out.roles.append(found)
        for same, other in zip(self.other_roles, roles[1:]):  # the other devices' (read_alike)
            same.append(replace(found, role=other, unresolved=list(found.unresolved)))


def read_alike(containers: Sequence[Container]) -> List[Reading]:
    """read_container of each of `containers`, which are equal apart from their accelerator type and count (one
    workload on each of its device options: device_options.py). The command line is read once and only its roles
    are made per device (Devices.device_roles): nothing else the reading says depends on the device."""
    try:
        reader = _Reader(containers[0], containers)
        first = reader.read()
    except Exception:  # noqa: BLE001 - each container says what went wrong in it, as read_container does
        return [read_container(c) for c in containers]
    return [first] + [Reading(roles, list(first.diagnostics)) for roles in reader.other_roles]


def read_container(container: Container) -> Reading:
    """Every engine invocation in one container, as roles (never raises)."""
    try:
        return _Reader(container).read()
    except Exception as exc:  # noqa: BLE001 - odd input must never crash a lint run
        return Reading(diagnostics=[Diagnostic(UNRESOLVED, f"ctxlint could not read this container's command: "
                                               f"{type(exc).__name__}: {exc}", container.node.source(
                                                   container.spans.file))])


def has_c_item(texts: Sequence) -> bool:
    """A `-c` (or `-lc`, `-ec`) item among exec-form words: the cheap test before c_script_words is imported."""
    return any(isinstance(t, str) and t[:1] == "-" and t[1:2] != "-" and "c" in t[1:] for t in texts)
