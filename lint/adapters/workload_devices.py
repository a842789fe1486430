"""How many devices one engine of a container gets: the reader's half that turns the pod's device
count into the engine's (the pods a group spans, a vLLM data-parallel rank's own pod, llama.cpp's
layer split (llamacpp_split.py), the devices CUDA_VISIBLE_DEVICES leaves an engine that shares its pod)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ctxlint.adapters.hardware import engine_devices
from ctxlint.adapters.launcher_devices import LauncherDevices
from ctxlint.model import Accelerators, Role, Val
from ctxlint.neuron import NEURON_ENV, NEURON_RESOURCES, neuron_image, neuron_instance, with_declared_pool

from ..records import replace


is_cpu_build = None  # ctxlint.engines.image_builds.is_cpu_build, bound on first use


class Devices(LauncherDevices):
    """Mixed into workload._Reader, which sets what these read: `c` (the Container), `file`, `env`."""

    c: Any
    file: str
    env: Dict[str, Optional[str]]
    assigns: dict  # the command being read: its `NAME=value` words (Positions.assigns)
    devices: Sequence[Any]  # the containers whose roles are made: `c`, or `c` and those alike on other devices
    config_missing: Optional[str]
    span_source: Any  # workload_positions.Positions.span_source
    token_source: Any  # workload_positions.Positions.token_source
    ray_cluster = False  # the container runs `ray start` (head or worker) before the engine

    def device_roles(self, inv, facts, env_args, run, where) -> List[Role]:
        """The role of one engine invocation on each of `devices`, equal containers but for their accelerator type
        and count: the part of a reading that depends on them (the device count the engine gets, a CPU build's
        KV memory, Neuron). Each is made with `c` set to its container, as a reading of that container alone."""
        read_as, out = self.c, []
        try:
            for c in self.devices:
                self.c = self.srun_container(self.docker_container(self.remote_container(c), run))
                out.append(self.device_role(inv, facts, env_args, run, where))
        finally:
            self.c = read_as
        return out

    def device_role(self, inv, facts, env_args, run, where) -> Role:
        uneven, host = (), None
        if inv.engine == "llamacpp":
            from ctxlint.adapters.llamacpp_split import host_kv, layer_split  # loaded by the first llama.cpp engine
            facts, host = layer_split(self, inv, facts, where), host_kv(self, inv, where)
            if facts.parallel_unknown:  # the GPUs of a privileged container or of a `docker run --gpus all`, or an
                # uneven --tensor-split over GPUs not counted: CTX208 says which
                uneven = ("tensor_split",) if inv.settings.get("tensor_split") is not None else \
                    ("privileged",) if self.c.privileged else \
                    ((("docker_gpus",) if self.c.gpus_uncounted.startswith("docker run") else ("runtime_class",)
                      if self.c.gpus_uncounted.startswith("runtimeClassName") else ("compose_gpus",))
                     if self.c.gpus_uncounted else ("tensor_split",))
        elif inv.engine in ("tgi", "tgis"):  # its shard count when no --num-shard states it (tgi_shards.py)
            from ctxlint.adapters.tgi_shards import UNKNOWN, default_shards  # loaded by the first TGI engine
            shards = default_shards(self, inv, facts, getattr(self, "release", None), self.runs_in(run)[0],
                                    tgis=inv.engine == "tgis")
            uneven, facts = (UNKNOWN,) if shards.parallel_unknown and not facts.parallel_unknown else (), shards
        role = Role(role=Val(facts.kind, facts.kind_source or self.c.node.source(self.file)),
                    replicas=self.pods_alone(inv),  # per group: the adapter's workload count multiplies it
                    context_length=facts.context_length, kv_pool_tokens=facts.kv_pool_tokens,
                    kv_cache_dtype=facts.kv_cache_dtype, parallelism=facts.parallelism, draft_layers=facts.draft_layers,
                    accelerators=Accelerators(type=None if facts.parallel_unknown else self.c.accelerator_type,
                                              count=self.visible(self.count(inv, facts), self.assigns)),
                    source=self.c.node.source(self.file), name=self.c.name,
                    engine_args=facts.engine_args + env_args, available_kv_gib=self.cpu_kv_space(env_args, run),
                    settings_unread=Val(self.config_missing, where(inv.config_file))
                    if self.config_missing is not None and inv.config_file is not None else None,
                    accelerator_withheld=self.c.accelerator_type if facts.parallel_unknown else None,
                    unresolved_settings=tuple(dict.fromkeys(p.flag for p in inv.unresolved if p.flag)) + uneven
                    + (("VLLM_CPU_KVCACHE_SPACE",) if inv.engine == "vllm" and self.cpu_space_unknown() else ()),
                    cpu_build=self.cpu_build(run) or host, neuron=self.neuron())
        if role.neuron is None and role.cpu_build is None and role.accelerators.type is None:
            # read only where no device is named: it picks the devices CTX208 lists for a device-less role
            role = replace(role, vendor=self.vendor(run))
            if role.vendor is None and role.arg("device") is not None:  # SGLang's `--device npu` (image_builds)
                from ctxlint.engines.image_builds import flag_on_cpu, flag_vendor
                role = replace(role, vendor=flag_vendor(inv.engine, role.arg("device")))
                on_cpu = flag_on_cpu(inv.engine, role.arg("device"))
                if role.vendor is None and on_cpu is not None and not self.runs_in(run)[2]:
                    # `--device cpu` in a container that asks for no accelerator: the engine's CPU backend
                    space = role.available_kv_gib
                    if space is None and inv.engine == "vllm":  # VLLM_CPU_KVCACHE_SPACE, as on a CPU image
                        space = self.cpu_kv_space(env_args)
                    role = replace(role, cpu_build=on_cpu, available_kv_gib=space)
        if role.neuron is not None and inv.engine == "vllm":
            role = with_declared_pool(role)  # blocks of the Neuron platform's block size
        return role

    def cpu_kv_space(self, env_args, run=None) -> Optional[Val[float]]:
        """vLLM's CPU backend (a CPU image, `vllm-openai-cpu`, `vllm-cpu-release-repo`, or one an operator picks,
        in a container with no accelerator): VLLM_CPU_KVCACHE_SPACE GiB is its KV memory. vLLM reads it with
        int(): another value stops it, and is not read here. `run`: as for cpu_build."""
        image, _, accelerated = self.runs_in(run)
        if accelerated or image and not is_cpu_build(image):  # no image: the operator's (KubeAI cpu), a host's
            return None
        val = next((v for name, v in env_args if name == "VLLM_CPU_KVCACHE_SPACE"), None)
        try:
            gib = int(str(val.value).strip()) if val is not None else 0
        except (TypeError, ValueError):
            return None
        return Val(gib, val.source, raw=f"VLLM_CPU_KVCACHE_SPACE={val.value}") if gib > 0 else None

    def cpu_space_unknown(self) -> bool:
        """Is VLLM_CPU_KVCACHE_SPACE set for the engine to a value not known (`-e VLLM_CPU_KVCACHE_SPACE=$SPACE`, a
        secret), or may a source of the container's environment ctxlint does not read set it (a Kubernetes
        `envFrom`, a Compose `env_file:` not beside the file, `docker run --env-file`)? Then its release's default
        for an unset one is not known to be its space (engines/vllm_cpu_space.py)."""
        given = (getattr(self, "assigns", None) or {}).get("VLLM_CPU_KVCACHE_SPACE")
        if given is not None:
            return bool(given.token.unresolved)
        var = next((v for v in self.c.env if v.name == "VLLM_CPU_KVCACHE_SPACE"), None)
        if var is not None:
            return var.value is None
        return self.env_unseen()

    def env_unseen(self) -> bool:
        """Does the engine's container take variables from a source not read here, which may set any name: a
        Kubernetes `envFrom` (its ConfigMaps' keys ctxlint reads are in `c.env`, but a Secret's, or a ConfigMap's
        outside the files, are not), a Compose `env_file:` with no such file beside the compose file, or the
        `--env-file` of the script's `docker run` line?"""
        import os

        from ctxlint.nodes import MAP, SCALAR, SEQ

        node = self.c.node
        if getattr(self, "run_env_file", False):
            return True
        if node is None or node.kind != MAP:
            return False
        if node.get("envFrom") is not None:
            return True
        files = node.get("env_file") if self.c.compose_refs else None
        if files is None:
            return False
        for item in files.value if files.kind == SEQ else [files]:
            path = item.get("path") if item.kind == MAP else item
            text = path.value if path is not None and path.kind == SCALAR else None
            if not isinstance(text, str) or "$" in text or \
                    not os.path.isfile(os.path.join(os.path.dirname(self.file), text)):
                return True
        return False

    def cpu_build(self, run=None) -> Optional[Val[str]]:
        """The image, when it is a CPU build and the container asks for no accelerator: its engine's KV cache is
        host memory, and no device's verdict applies (CTX208 says so instead of listing GPUs). `run`: the image
        token of the `docker run` line that starts the engine in a script, and whether that line asks for an
        accelerator (`--gpus`: docker_run.requests_accelerator), the container of a script that has none."""
        image, where, accelerated = self.runs_in(run)
        return Val(image, where()) if image and not accelerated and is_cpu_build(image) else None

    def runs_in(self, run):
        """(image, where it is written (a callable), an accelerator asked for?) of the engine's container: the
        workload's container, else a script's `docker run` (`run`: its image token and `--gpus`)."""
        global is_cpu_build
        if is_cpu_build is None:
            from ctxlint.engines.image_builds import is_cpu_build
        c = self.c
        accelerated = c.accelerator_count is not None or c.accelerator_type is not None
        if c.image is not None:
            value = c.image_text if c.image_text is not None else c.image.value  # as interpolated or assembled
            if not isinstance(value, str):  # a mapping where the image belongs: no build of any kind
                return "", None, accelerated or bool(value)
            return value, lambda: c.image.source(self.file), accelerated
        if run is not None and run[0] is not None:
            token = run[0]
            return token.text, lambda: self.token_source(token), accelerated or run[1]
        return "", None, accelerated

    def neuron(self) -> Optional[Val[str]]:
        """What says the engine runs on AWS Neuron (ctxlint.neuron), where: a Neuron resource request, an
        Inferentia or Trainium instance type, a Neuron image, or a variable only Neuron's stack reads."""
        count, kind, image = self.c.accelerator_count, self.c.accelerator_type, self.c.image
        path = str(count.source.path or "") if count is not None else ""
        if path.endswith(tuple(f'["{r}"]' for r in NEURON_RESOURCES)):
            return Val("neuron", count.source, raw=path.rsplit('["', 1)[-1].rstrip('"]'))
        if kind is not None and neuron_instance(kind.raw or kind.value):
            return Val("neuron", kind.source, raw=str(kind.raw or kind.value))
        if image is not None and neuron_image(image.value):
            return Val("neuron", image.source(self.file), raw=str(image.value))
        var = next((v for v in self.c.env if v.name in NEURON_ENV and v.node is not None), None)
        if var is not None:
            return Val("neuron", var.node.source(self.file), raw=var.name)
        # a script's `export VLLM_NEURON_FRAMEWORK=...`, a command's prefix or `docker run -e` (sweep 51: AWS's
        # Neuron quickstarts), at the assignment: a value typed where the command runs, not an empty one nor one
        # set only in a branch (unresolved)
        given = next((a for name, a in (getattr(self, "assigns", None) or {}).items()
                      if name in NEURON_ENV and not a.token.unresolved and a.value.strip()), None)
        return Val("neuron", self.token_source(given.token), raw=given.name) if given is not None else None

    def vendor(self, run=None) -> Optional[Val[str]]:
        """What says the engine runs on AMD, Gaudi, TPU, Intel or Ascend devices when no device resource does
        (Role.vendor): a `docker run` line's `--runtime=habana` or `--device /dev/kfd` (`run`: as for cpu_build, its
        third item), the image (engines.image_builds.image_vendor), or a variable only Gaudi's, TPU's or Ascend's stack
        reads (_VENDOR_ENV)."""
        image, where, _ = self.runs_in(run)
        if run is not None and len(run) > 2 and run[2] is not None and where is not None:
            return Val(run[2], where(), raw=f"docker run option ({run[2]})")
        if image and where is not None:
            from ctxlint.engines.image_builds import image_vendor  # loaded on the first image asked
            found = image_vendor(image)
            if found is not None:
                return Val(found, where(), raw=image)
        var = next((v for v in self.c.env if _env_vendor(v.name, v.value) and v.node is not None), None)
        if var is not None:
            return Val(_env_vendor(var.name, var.value), var.node.source(self.file), raw=var.name)
        given = next((a for name, a in (getattr(self, "assigns", None) or {}).items()
                      if _env_vendor(name, None if a.token.unresolved else a.value)), None)
        return Val(_env_vendor(given.name, given.value), self.token_source(given.token), raw=given.name) \
            if given else None

    def count(self, inv, facts) -> Optional[Val[int]]:
        """Accelerators of one engine instance: the pod's, times the pods it spans."""
        count = engine_devices(self.c.accelerator_count, self.c.accelerator_type)
        if facts.parallel_unknown or self.c.privileged and count is not None:
            return None  # parallel sizes, or the GPUs a privileged container sees: idle/mismatch checks would guess
        job = self.c.batch_job
        if job is not None and job.per_task is not None and getattr(self, "under_srun", False):
            return job.per_task  # `srun vllm serve ...` under --gpus-per-task: its task's GPUs (review 18)
        if job is not None and job.nodes != 1:
            spans = self.spans_job(inv)
            if spans is None:
                return None  # an engine that may span the job's nodes, or not: its count is not known
            if spans and job.total is not None:
                return job.total
            if spans is False:
                return count  # it runs on the batch node, with that node's GPUs
        if count is None:
            return None
        if inv.engine == "vllm" and facts.per_pod:
            return count  # --data-parallel-size-local or -rank: this pod's ranks are an instance of their own
        nnodes = inv.settings.get("nnodes")
        if self.c.group_pods > 1 and not self.spans_group(inv):
            return count  # each pod of the group is a server of its own (pods_alone says how many)
        if self.c.group_pods > 1:
            pods, why = self.c.group_pods, self.c.group_label
        elif nnodes is not None and nnodes.origin in ("flag", "env") and isinstance(nnodes.value, int) \
                and not isinstance(nnodes.value, bool) and nnodes.value > 1:
            pods, why = nnodes.value, "nodes (--nnodes)"
        elif self.ray_cluster and not self.c.ray_counted and count.value < facts.parallelism.gpus:
            # a lone pod that starts or joins a Ray cluster: vLLM's Ray executor places the ranks it lacks on the
            # cluster's other nodes (v1/executor/ray_utils.py placement group), how many is not known (a group's
            # pods, a LeaderWorkerSet's or SkyPilot's num_nodes, are that cluster: counted above)
            return None
        else:
            return count
        return Val(count.value * pods, count.source, raw=f"{count.value} per pod x {pods} {why}")

    def spans_job(self, inv) -> Optional[bool]:
        from ctxlint.adapters.workload_spans import spans_job  # its code: read by the first multi-node job
        return spans_job(self, inv)

    def spans_group(self, inv) -> bool:
        from ctxlint.adapters.workload_spans import spans_group  # its code: read by the first group of pods
        return spans_group(self, inv)

    def joins(self, inv) -> bool:
        from ctxlint.adapters.workload_spans import joins  # its code (spans_job's and spans_group's)
        return joins(self, inv)

    def pods_alone(self, inv) -> Optional[Val[int]]:
        """The group's pods as servers of their own (a replica each), for the role's replica count; None when
        the group is one engine."""
        if self.c.group_pods <= 1 or self.spans_group(inv):
            return None
        count = self.c.accelerator_count
        where = count.source if count is not None else self.c.node.source(self.file)
        return Val(self.c.group_pods, where, raw=f"{self.c.group_pods} {self.c.group_label}, a server each")

    def visible(self, count: Optional[Val[int]], assigns) -> Optional[Val[int]]:
        """The devices CUDA_VISIBLE_DEVICES leaves this engine (`CUDA_VISIBLE_DEVICES=2,3 vllm serve ...`:
        two engines sharing a pod's GPUs), when it lists fewer than the pod has."""
        if count is None or self.c.group_pods > 1:
            return count
        assign = assigns.get("CUDA_VISIBLE_DEVICES")
        value = (None if assign.token.unresolved else assign.value) if assign is not None else \
            self.env.get("CUDA_VISIBLE_DEVICES")
        if assign is not None and value is None:
            # `CUDA_VISIBLE_DEVICES=$i vllm serve ...` in a loop: some of the GPUs, which ones not known (review 18)
            return None
        ids = [part for part in value.split(",") if part.strip()] if isinstance(value, str) else []
        if not ids or len(ids) >= count.value or not all(part.strip().isdigit() for part in ids):
            return count
        if assign is not None:
            tok = assign.token
            where = self.span_source(tok.item, tok.span_of(tok.text.find("=") + 1, len(tok.text)))
        else:
            node = next((v.node for v in self.c.env if v.name == "CUDA_VISIBLE_DEVICES" and v.node is not None), None)
            where = node.source(self.file) if node is not None else count.source
        return Val(len(ids), where, raw=f"CUDA_VISIBLE_DEVICES={value} of {count.value}")


# Variables only one vendor's stack reads. Gaudi: vllm-gaudi's HPU platform selects devices with
# HABANA_VISIBLE_MODULES (`device_control_env_var`) and reads PyTorch's HPU bridge's PT_HPU_* (PT_HPU_LAZY_MODE,
# PT_HPU_ENABLE_LAZY_COLLECTIVES; vllm-project/vllm-gaudi@676e6aaf1873f6531e0514fb35ee611e5b4fe3b1:vllm_gaudi/
# platform.py); HABANA_VISIBLE_DEVICES is the Habana container runtime's (`docker run --runtime=habana -e
# HABANA_VISIBLE_DEVICES=all`). TPU: vLLM's TPU platform selects chips with TPU_VISIBLE_CHIPS and passes on
# TPU_CHIPS_PER_HOST_BOUNDS and TPU_HOST_BOUNDS (vllm-project/vllm@60d375cbb7837e7abb4cbd47c676c06f38a1a47d:
# vllm/platforms/tpu.py); LIBTPU_INIT_ARGS is libtpu's, as the TPU backend's own scripts export it
# (vllm-project/tpu-inference@b8692ff01fa191343836996c27a39dc95f008b88:tests/e2e/benchmarking/inferencex/qwen3.5/
# server.sh). AMD's HIP_VISIBLE_DEVICES and vLLM's VLLM_ROCM_* are not read as AMD: CUDA ignores them, and recipes
# set them in commands they also run on NVIDIA GPUs (vllm-project/recipes' "8xH200 / 8xMI300X" DeepSeek-V3 command).
# Ascend: vllm-ascend's NPU platform selects devices with ASCEND_RT_VISIBLE_DEVICES (`device_control_env_var`,
# vllm-project/vllm-ascend@7ed8ad8ca327897b1f6985e2cccebf18886881fe:vllm_ascend/platform.py), the CANN runtime's.
_VENDOR_ENV = {"HABANA_VISIBLE_MODULES": "gaudi", "HABANA_VISIBLE_DEVICES": "gaudi", "TPU_VISIBLE_CHIPS": "tpu",
               "TPU_CHIPS_PER_HOST_BOUNDS": "tpu", "TPU_HOST_BOUNDS": "tpu", "LIBTPU_INIT_ARGS": "tpu",
               "ASCEND_RT_VISIBLE_DEVICES": "ascend"}


def _env_vendor(name: str, value: object = None) -> Optional[str]:
    if name == "ONEAPI_DEVICE_SELECTOR":  # by its value: SYCL's backends (image_builds.selector_vendor)
        from ctxlint.engines.image_builds import selector_vendor
        return selector_vendor(value)
    return "gaudi" if name.startswith("PT_HPU_") else _VENDOR_ENV.get(name)



def starts_ray(words) -> bool:
    """`ray start ...`, or `srun [opts] [container runner] ray start ...`: a Slurm batch script starts its Ray
    head and workers on the job's nodes through srun."""
    if words[:2] == ["ray", "start"]:
        return True
    return bool(words) and words[0] == "srun" and any(words[k:k + 2] == ["ray", "start"] for k in range(1, len(words)))
