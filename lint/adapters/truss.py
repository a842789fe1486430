"""Baseten Truss `config.yaml` files: a `docker_server` whose `start_command` starts an engine, or a `trt_llm`
section Baseten builds a TensorRT-LLM engine from (adapters/truss_trtllm.py).

Read as basetenlabs/truss@0bee989b9ec85ed9d29374ab4d7e2883e49de87e has it:

- `docker_server.start_command` is one string: Truss's slim image runs it as `sh -c` (ENTRYPOINT ["sh", "-c"],
  truss/templates/server.Dockerfile.jinja and no_build.Dockerfile.jinja), its default image as supervisord's
  `command` (truss/contexts/image_builder/serving_image_builder.py generate_docker_server_supervisord_config),
  which splits it into words the same way; so it is read as a shell line, `sh -c "..."` and all. It is
  required unless `no_build` is set (DockerServer._validate_start_command).
- the container's environment is `environment_variables` (TrussConfig.from_dict makes every value a string:
  true -> "true", null -> "None"); `secrets` are files under /secrets (`$(cat /secrets/hf_access_token)`,
  a command substitution, is unknown), and also reach the server as TRUSS_SECRET_<name>
  (truss/templates/shared/secrets_resolver.py), values not in the file; PORT and HOSTNAME are the platform's.
- `base_image.image` names the engine's release (engines/images.py), else a `pip install` in `build_commands`.
- `resources.accelerator` the device and GPUs (adapters/truss_resources.py); a Truss config states no replicas.
- the model: the command's; a local path the config fills is the repo it fills it with (`model_cache` entries
  with `use_volume` at /app/model_cache/<volume_folder>, truss/base/constants.py MODEL_CACHE_PATH; `weights`
  with an `hf://` source at their `mount_location`); else, and when the command names none,
  `model_metadata.repo_id` (or the one repo the config fetches).

What Truss refuses in these fields is CTX002 at the value; the rest of the config (runtime, health checks,
requirements) is not read.
"""
from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import scalar, seq
from ctxlint.adapters.kinds import truss_config
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.truss_resources import REFUSED, gpus
from ctxlint.adapters.workload import Container, EngineRole, EnvVar, Workload, read_container
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.adapters.workload_inputs import scalar_text, schema_reporter
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

from ..records import replace

NAME = "truss"
MODEL_CACHE = "/app/model_cache"  # truss/base/constants.py MODEL_CACHE_PATH
_PLATFORM_ENV = ("PORT", "HOSTNAME")  # K8S_RESERVED_ENVIRONMENT_VARIABLES: overwritten at run time
_HF_ID = lazy_compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
Report = Callable[[Node, str], None]
Unknown = List[Tuple[str, Source]]


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    report = schema_reporter(result.diagnostics, loaded.path)

    workloads: List[Workload] = []
    for doc in loaded.documents:
        if truss_config(doc.root):
            found = _config(doc.root, spans, result, report)
            workloads += [found] if found is not None else []
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _config(root: Node, spans: ScalarSpans, result: AdaptResult, report: Report) -> Optional[Workload]:
    file = spans.file
    device, count, unknown = gpus(root.get("resources"), spans, report)
    unresolved: Unknown = [(why, node.source(file)) for why, node in ([unknown] if unknown else [])]
    nodes = root.dig("resources", "node_count")
    if isinstance(scalar(nodes), int) and not isinstance(scalar(nodes), bool) and scalar(nodes) > 1:
        count = None  # how a multi-node instance's GPUs add up is Baseten's
        unresolved.append((f"the GPUs of {scalar(nodes)} nodes (resources.node_count)", nodes.source(file)))
    name = _name(root, file)
    trt, server = root.get("trt_llm"), root.get("docker_server")
    if trt is not None and not (trt.kind == SCALAR and trt.value is None):
        from ctxlint.adapters.truss_trtllm import read  # only a TensorRT-LLM config pays for the module
        section = read(root.keys["trt_llm"], trt, file, report)  # the engine Baseten runs; docker_server unused
        if section is None:
            return None
        reading = read_container(Container(
            spans=spans, node=trt, name=name.value, args_only=True, engine=section.engine, accelerator_type=device,
            accelerator_count=count, settings=(section.data, section.sources, "the Truss config's trt_llm")))
        # patch_kwargs.model_path is what the engine loads: the checkpoint is then only what was built
        model = (_local(root, section.model_path, file) if section.model_path is not None else section.checkpoint) \
            or _fallback(root, file)
        unresolved += section.unresolved
        if model is None:
            unresolved.append(section.model_unknown or (
                f"the model ({section.model_path.value if section.model_path else 'no checkpoint_repository'}: "
                "no Hugging Face repo the config names)", (section.model_path or section.engine).source))
        where = root.keys["trt_llm"]
    elif server is not None and not (server.kind == SCALAR and server.value is None):
        env, command = _env(root, report), _command(server, report)
        if command is None:
            return None
        reading = read_container(Container(
            spans=spans, node=server, name=name.value, script=command, k8s_refs=False, env=env,
            image=_image(root, report), install_scripts=[n for n in seq(root.get("build_commands"))
                                                         if n.kind == SCALAR],
            accelerator_type=device, accelerator_count=count))
        model = None
        where = root.keys["docker_server"]
    else:
        return None
    result.diagnostics.extend(reading.diagnostics)
    roles = [_with(r, root, model, unresolved, file) for r in reading.roles]
    return Workload(name=name, source=where.source(file), input_format=NAME, roles=roles) if roles else None


def _name(root: Node, file: str) -> Val[str]:
    """`model_name` (what Baseten shows), else the Truss's directory: its config is always config.yaml."""
    node = root.get("model_name")
    if node is not None and isinstance(node.value, str) and node.value.strip():
        return Val(node.value.strip(), node.source(file))
    folder = os.path.basename(os.path.dirname(os.path.abspath(file))) if file != "-" else ""
    return Val(folder or "truss", root.source(file))


def _command(server: Node, report: Report) -> Optional[Node]:
    if server.kind != MAP:
        report(server, f"must be a mapping with `start_command`, `server_port` and the endpoints{REFUSED}")
        return None
    command = server.get("start_command")
    if command is None or command.kind == SCALAR and command.value is None:
        no_build = server.get("no_build")
        if not (no_build is not None and no_build.value is True):
            report(server, f"`start_command` is required unless `no_build` is true{REFUSED}")
        return None  # no_build without a command: the image's own entrypoint, with nothing to read
    if command.kind != SCALAR or not isinstance(command.value, str):
        report(command, f"must be one string, the command line (`sh -c \"vllm serve ...\"`){REFUSED}")
        return None
    return command


def _env(root: Node, report: Report) -> List[EnvVar]:
    out: List[EnvVar] = []
    env = root.get("environment_variables")
    if env is not None and env.kind == MAP:
        for key, value in env.value.items():
            if isinstance(key, str) and value.kind == SCALAR:
                out.append(EnvVar(key, "None" if value.value is None else scalar_text(value), value))
    elif env is not None and not (env.kind == SCALAR and env.value is None):
        report(env, f"must map variable names to values{REFUSED}")
    secrets = root.get("secrets")
    names = [k for k in secrets.value if isinstance(k, str)] if secrets is not None and secrets.kind == MAP else []
    out += [EnvVar(f"TRUSS_SECRET_{n}", None) for n in names]
    return [var for var in out if var.name not in _PLATFORM_ENV] + [EnvVar(n, None) for n in _PLATFORM_ENV]


def _image(root: Node, report: Report) -> Optional[Node]:
    base = root.get("base_image")
    if base is None or base.kind == SCALAR and base.value is None:
        return None
    image = base.get("image") if base.kind == MAP else None
    if base.kind != MAP or image is not None and not isinstance(image.value, str):
        report(image or base, f"must be `base_image: {{image: vllm/vllm-openai:v0.10.0}}`{REFUSED}")
        return None
    return image


def _with(found: EngineRole, root: Node, model: Optional[Val[str]], unresolved: Unknown, file: str) -> EngineRole:
    """The role with the model the config resolves a local path (or no model) to, and what is not known."""
    named = found.model
    if named is None:
        model = model or _fallback(root, file)
    elif named.value.startswith("/"):  # a local path: the repo fetched there, else the one the config declares
        model = _local(root, named, file) or _declared(root, file) or named
    else:
        model = named
    return replace(found, model=model, unresolved=found.unresolved + unresolved)


def _local(root: Node, path: Optional[Val[str]], file: str) -> Optional[Val[str]]:
    """The Hugging Face repo a Truss fetches to this local path (or the path itself, when it names none)."""
    if path is None:
        return None
    if not path.value.startswith("/"):
        return path
    return _fetched(root, file).get(path.value.rstrip("/"))


def _fetched(root: Node, file: str) -> Dict[str, Val[str]]:
    """Local path -> the Hugging Face repo Truss fetches there, at where the repo is written."""
    out: Dict[str, Val[str]] = {}
    for item in seq(root.get("model_cache")):
        repo, folder = item.get("repo_id"), item.get("volume_folder")
        # only a volume has a path of its own (ModelRepo.runtime_path); `kind: hf` (the default): a Hugging Face repo
        if scalar(item.get("kind")) not in (None, "hf") or scalar(item.get("use_volume")) is not True:
            continue
        if isinstance(scalar(repo), str) and isinstance(scalar(folder), str) and _HF_ID.match(repo.value.strip()):
            out[f"{MODEL_CACHE}/{folder.value.strip('/')}"] = Val(repo.value.strip(), repo.source(file))
    for item in seq(root.get("weights")):
        source, mount = item.get("source"), item.get("mount_location")
        uri = scalar(source)
        if isinstance(uri, str) and uri.startswith("hf://") and isinstance(scalar(mount), str):
            ident = uri[len("hf://"):].split("@")[0].strip("/")
            if _HF_ID.match(ident):
                out[mount.value.rstrip("/")] = Val(ident, source.source(file), raw=uri)
    return out


def _declared(root: Node, file: str) -> Optional[Val[str]]:
    """`model_metadata.repo_id`: Baseten's examples name the model there."""
    repo = root.dig("model_metadata", "repo_id")
    if isinstance(scalar(repo), str) and _HF_ID.match(repo.value.strip()):
        return Val(repo.value.strip(), repo.source(file))
    return None


def _fallback(root: Node, file: str) -> Optional[Val[str]]:
    """For a command that names no model: the one the config declares, else the only repo it fetches."""
    fetched = list({v.value: v for v in _fetched(root, file).values()}.values())
    return _declared(root, file) or (fetched[0] if len(fetched) == 1 else None)
