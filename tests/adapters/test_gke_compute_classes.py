"""A pod that names a GKE compute class gets the device of the ComputeClass a checked file defines.

The trees are small copies of GoogleCloudPlatform/accelerated-platforms@9320f3b2's layout: the classes in
platforms/gke/base/core/custom_compute_class/templates/manifests/gpu/h100-80gb/custom-compute-gpu-h100-80gb-high-x1.yaml
(`gpu: {count: 1, driverVersion: latest, type: nvidia-h100-80gb}`, `machineType: a3-highgpu-1g`, priorities for a
reservation, on-demand, DWS FlexStart and spot), the workloads elsewhere with `nodeSelector:
{cloud.google.com/compute-class: gpu-h100-80gb-high-x1}`. GKE's fields and fallback order: cloud.google.com/
kubernetes-engine/docs/reference/crds/computeclass and .../concepts/about-custom-compute-classes.
"""
from __future__ import annotations

from ctxlint.adapters import compute_classes, run_classes
from ctxlint.audit import build_audit
from ctxlint.adapters.hardware import canonical_type
from ctxlint.engine import Settings, lint_paths, lint_text
from ctxlint.parallel import lint_paths_parallel
from helpers import run

H100_CLASS = """\
apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata:
  name: gpu-h100-80gb-high-x1
spec:
  nodePoolAutoCreation:
    enabled: true
  priorities:
    - gpu:
        count: 1
        driverVersion: latest
        type: nvidia-h100-80gb
      machineType: a3-highgpu-1g
      reservations:
        affinity: AnyBestEffort
      spot: false
    - gpu:
        count: 1
        driverVersion: latest
        type: nvidia-h100-80gb
      machineType: a3-highgpu-1g
      spot: true
"""
# A class whose fallback is another GPU: the pod may run on either
MIXED_CLASS = """\
apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata: {name: gpu-h100-or-l4}
spec:
  priorities:
    - gpu: {type: nvidia-h100-80gb, count: 1}
    - gpu: {type: nvidia-l4, count: 1}
      machineType: g2-standard-12
"""
# No gpu block: the machine type (then the family) fixes the GPU
MACHINE_CLASS = """\
apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata: {name: l4-by-machine}
spec:
  priorities:
    - machineType: g2-standard-8
    - machineFamily: g2
"""
POOLS_CLASS = """\
apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata: {name: on-pools}
spec:
  priorities:
    - gpu: {type: nvidia-l4, count: 1}
    - nodepools: [gpu-pool]
"""
DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: vllm}}
spec:
  template:
    spec:
      nodeSelector:
        cloud.google.com/compute-class: {cls}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: [--model, {model}, --max-model-len, "8192"]
        resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""
BIG = "meta-llama/Llama-3.1-70B-Instruct"  # ~131 GiB of bf16 weights: more than one H100 or L4 holds
SMALL = "meta-llama/Llama-3.1-8B-Instruct"


def _tree(root, deploy: str, **classes: str):
    (root / "classes").mkdir()
    (root / "app").mkdir()
    for name, text in classes.items():
        (root / "classes" / f"{name}.yaml").write_text(text)
    (root / "app" / "deploy.yaml").write_text(deploy)


def _role(paths, **kw):
    [dep] = lint_paths([str(p) for p in paths], **kw).deployments
    [role] = dep.roles
    return role


def test_a_class_of_one_gpu_names_it_at_its_gpu_type(tmp_path, monkeypatch):
    _tree(tmp_path, DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=BIG), h100=H100_CLASS)
    monkeypatch.chdir(tmp_path)
    out = run(["check", "--select", "CTX203,CTX208", "."])
    assert out.out.splitlines() == [
        "classes/h100.yaml:12:15: CTX203 [error] 131.42 GiB > 79.20 GiB: the weights of meta-llama/Llama-3.1-70B "
        "per GPU (tensor 1 x pipeline 1) exceed the memory of one H100-SXM-80GB, before any KV cache. Use at "
        "least 2 GPUs with tensor/pipeline parallelism to match, larger accelerators, or a quantized checkpoint "
        "(weights-exceed-memory)"]
    role = _role(["."])
    device = role.accelerators.type
    assert (device.value, device.raw, device.source.file, device.source.line, device.source.col) == \
        ("H100-SXM-80GB", "nvidia-h100-80gb", "classes/h100.yaml", 12, 15)
    assert role.device_class is None
    # the audit row holds the finding in the class's file (Deployment.files names the file of its device)
    audit = build_audit(lint_paths(["."]))
    assert [(row.name, [(f.rule, f.file) for f in row.findings]) for row in audit.rows] == [
        ("vllm", [("CTX203", "classes/h100.yaml")])]
    assert audit.outside == ()


def test_a_class_no_checked_file_defines_stays_unknown_and_ctx208_names_it(tmp_path, monkeypatch):
    _tree(tmp_path, DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=SMALL))  # the class's file not checked
    monkeypatch.chdir(tmp_path)
    role = _role(["app/deploy.yaml"])
    assert role.accelerators.type is None
    assert (role.device_class.value, role.device_class.source.line, role.device_class.source.col) == \
        ("gpu-h100-80gb-high-x1", 8, 41)
    out = run(["check", "--select", "CTX208", "app"]).out
    assert ("; the pod selects the GKE compute class 'gpu-h100-80gb-high-x1' (app/deploy.yaml:8:41), but no checked "
            "file defines the ComputeClass 'gpu-h100-80gb-high-x1': check the file that defines it together with "
            "this one, or state the device beside it (cloud.google.com/gke-accelerator, or `default-accelerator:` "
            "in .ctxlint.yaml); capacity checks skip these roles (capacity-not-derivable)") in out


def test_priorities_on_different_gpus_name_no_device(tmp_path, monkeypatch):
    _tree(tmp_path, DEPLOY.format(cls="gpu-h100-or-l4", model=SMALL), mixed=MIXED_CLASS)
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None
    assert role.device_class.raw == ("the priorities of the ComputeClass 'gpu-h100-or-l4' (classes/mixed.yaml) name "
                                     "different GPUs (H100-SXM-80GB, L4): GKE falls back from one to the next, so a "
                                     "pod may run on any of them")
    out = run(["check", "--select", "CTX208", "."]).out
    assert "but the priorities of the ComputeClass 'gpu-h100-or-l4' (classes/mixed.yaml) name different GPUs " \
        "(H100-SXM-80GB, L4): GKE falls back from one to the next, so a pod may run on any of them: state the " \
        "device beside it (cloud.google.com/gke-accelerator" in out


def test_a_priority_of_no_known_gpu_names_no_device(tmp_path, monkeypatch):
    _tree(tmp_path, DEPLOY.format(cls="on-pools", model=SMALL), pools=POOLS_CLASS)
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None
    assert role.device_class.raw == ("priority 2 of the ComputeClass 'on-pools' (classes/pools.yaml:7) names no GPU "
                                     "ctxlint knows (a gpu.type, or a machineType or machineFamily that fixes the GPU)")


def test_machine_type_and_family_fix_the_gpu(tmp_path, monkeypatch):
    _tree(tmp_path, DEPLOY.format(cls="l4-by-machine", model=SMALL), machine=MACHINE_CLASS)
    monkeypatch.chdir(tmp_path)
    device = _role(["."]).accelerators.type
    assert (device.value, device.raw, device.source.line, device.source.col) == ("L4", "g2-standard-8", 6, 20)


def test_node_affinity_on_the_class_label(tmp_path, monkeypatch):
    affinity = DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=SMALL).replace(
        "      nodeSelector:\n        cloud.google.com/compute-class: gpu-h100-80gb-high-x1\n",
        "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
        "            nodeSelectorTerms:\n            - matchExpressions:\n"
        "              - {key: cloud.google.com/compute-class, operator: In, values: [gpu-h100-80gb-high-x1]}\n")
    _tree(tmp_path, affinity, h100=H100_CLASS)
    monkeypatch.chdir(tmp_path)
    assert _role(["."]).accelerators.type.value == "H100-SXM-80GB"


def test_a_device_label_beside_the_class_wins(tmp_path, monkeypatch):
    # Autopilot's built-in `Accelerator` class is no ComputeClass of a file: the GPU label beside it names the device
    autopilot = DEPLOY.format(cls="Accelerator", model=SMALL).replace(
        "        cloud.google.com/compute-class: Accelerator\n",
        "        cloud.google.com/compute-class: Accelerator\n        cloud.google.com/gke-accelerator: nvidia-l4\n")
    _tree(tmp_path, autopilot)
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert (role.accelerators.type.value, role.accelerators.type.source.line) == ("L4", 9)
    assert role.device_class is None


def test_the_whole_run_is_searched_in_every_worker(tmp_path, monkeypatch):
    _tree(tmp_path, DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=SMALL), h100=H100_CLASS)
    monkeypatch.chdir(tmp_path)
    # a chunk of --jobs holds the workload's directory alone: it is given the run's files
    role = _role(["app/deploy.yaml"], run_files=["app/deploy.yaml", "classes/h100.yaml"])
    assert role.accelerators.type.source.file == "classes/h100.yaml"
    report = lint_paths_parallel(["."], jobs=2)
    assert [r.accelerators.type.value for d in report.deployments for r in d.roles] == ["H100-SXM-80GB"]


def test_no_file_is_read_for_classes_when_no_pod_names_one(tmp_path, monkeypatch):
    def refuse(self):
        raise AssertionError("read the run's files for compute classes")

    _tree(tmp_path, DEPLOY.format(cls="x", model=SMALL).replace("cloud.google.com/compute-class: x",
                                                                 "cloud.google.com/gke-accelerator: nvidia-l4"),
          h100=H100_CLASS)
    monkeypatch.setattr(run_classes.RunClasses, "_read", refuse)
    monkeypatch.chdir(tmp_path)
    assert _role(["."]).accelerators.type.value == "L4"


def test_gcp_machine_series_of_one_gpu():
    # docs.cloud.google.com/compute/docs/gpus: A4 carries B200, A4X GB200, G4 RTX PRO 6000
    assert [canonical_type(t)[0] for t in ("g4-standard-48", "a4-highgpu-8g", "a4x-highgpu-4g")] == \
        ["RTX-PRO-6000-Blackwell", "B200", "GB200"]


def test_a_class_piped_with_its_pod_is_found_as_in_the_file(tmp_path, monkeypatch):
    # stdin's text is a file of the run: the class it defines names the device, as when the file is checked
    both = H100_CLASS + "---\n" + DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=BIG)
    (tmp_path / "both.yaml").write_text(both)
    monkeypatch.chdir(tmp_path)
    expected = ("12:15: CTX203 [error] 131.42 GiB > 79.20 GiB: the weights of meta-llama/Llama-3.1-70B per GPU "
                "(tensor 1 x pipeline 1) exceed the memory of one H100-SXM-80GB, before any KV cache. Use at least 2 "
                "GPUs with tensor/pipeline parallelism to match, larger accelerators, or a quantized checkpoint "
                "(weights-exceed-memory)")
    assert run(["check", "--select", "CTX203,CTX208", "both.yaml"]).out.splitlines() == ["both.yaml:" + expected]
    piped = run(["check", "--select", "CTX203,CTX208", "--stdin-filename", "piped.yaml", "-"], stdin=both.encode())
    assert piped.out.splitlines() == ["piped.yaml:" + expected]
    role = _role(["-"], stdin=both.encode())
    assert (role.accelerators.type.value, role.accelerators.type.source.file) == ("H100-SXM-80GB", "-")
    # a class piped in names the device of a pod in a file of the same run, in a --jobs worker too
    (tmp_path / "t").mkdir()
    _tree(tmp_path / "t", DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=SMALL))
    report = lint_paths_parallel(["-", str(tmp_path / "t")], stdin=H100_CLASS.encode(), jobs=2)
    assert [r.accelerators.type.value for d in report.deployments for r in d.roles] == ["H100-SXM-80GB"]


def test_a_worker_is_given_the_run_once_and_reads_it_once(tmp_path, monkeypatch):
    # each --jobs worker gets the run's files as it starts (not with each chunk of 16) and reads them once
    import ctxlint.parallel as parallel

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        _tree(tmp_path / name, DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=SMALL), h100=H100_CLASS)
    monkeypatch.chdir(tmp_path)
    reads = []
    real = run_classes.RunClasses._read
    monkeypatch.setattr(run_classes.RunClasses, "_read", lambda self: reads.append(1) or real(self))
    monkeypatch.setattr(parallel, "_WORKER_CLASSES", None)
    files = ["a/app/deploy.yaml", "a/classes/h100.yaml", "b/app/deploy.yaml", "b/classes/h100.yaml"]
    parallel._start_worker(files, 10**6, None)
    reports = [parallel._check_chunk([f], Settings()) for f in ("a/app/deploy.yaml", "b/app/deploy.yaml")]
    assert len(reads) == 1
    # two files define the class alike: the device is the first's, in each chunk
    assert [r.accelerators.type.source.file for rep in reports for d in rep.deployments for r in d.roles] == \
        ["a/classes/h100.yaml", "a/classes/h100.yaml"]


def test_a_class_defined_twice_differently_names_no_device_and_says_where(tmp_path, monkeypatch):
    # GKE holds one ComputeClass of a name (cluster-scoped): two definitions on other GPUs leave the device unknown
    l4 = H100_CLASS.replace("nvidia-h100-80gb", "nvidia-l4").replace("a3-highgpu-1g", "g2-standard-8")
    _tree(tmp_path, DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=SMALL), both=H100_CLASS + "---\n" + l4)
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None
    assert role.device_class.raw == ("the ComputeClass 'gpu-h100-80gb-high-x1' is defined 2 times, differently "
                                     "(classes/both.yaml:1, classes/both.yaml:24)")
    # defined alike twice: the first names the device
    (tmp_path / "classes" / "both.yaml").write_text(H100_CLASS + "---\n" + H100_CLASS)
    device = _role(["."]).accelerators.type
    assert (device.value, device.source.file, device.source.line) == ("H100-SXM-80GB", "classes/both.yaml", 12)


def test_every_gcp_accelerator_optimized_series_and_gke_gpu_type():
    # docs.cloud.google.com/compute/docs/accelerator-optimized-machines: A2 Standard (incl. a2-megagpu-16g, 16 x
    # A100 40GB), A2 Ultra, A3 High/Mega/Edge/Ultra, A4, A4X, A4X Max (GB300), G2, G4; GKE's -vws types are the
    # same GPU (nvidia-tesla-p100 and nvidia-tesla-p4 too, now in the catalog), and a name that is no GPU stays as written
    names = ["a2-highgpu-1g", "a2-megagpu-16g", "a2-ultragpu-8g", "a3-highgpu-8g", "a3-megagpu-8g", "a3-edgegpu-8g",
             "a3-ultragpu-8g", "a4-highgpu-8g", "a4x-highgpu-4g", "a4x-maxgpu-4g", "a4x-maxgpu-4g-metal",
             "g2-standard-96", "g4-standard-384", "nvidia-l4-vws", "nvidia-tesla-t4-vws", "nvidia-tesla-p100",
             "nvidia-tesla-p4", "nvidia-tesla-p4-vws", "nvidia-vws", "nvidia--vws"]
    assert [canonical_type(n)[0] for n in names] == [
        "A100-40GB", "A100-40GB", "A100-80GB", "H100", "H100", "H100", "H200",
        "B200", "GB200", "GB300", "GB300", "L4", "RTX-PRO-6000-Blackwell", "L4", "T4", "P100-16GB",
        "P4", "P4", "nvidia-vws", "nvidia--vws"]
    assert compute_classes.machine_gpu("a2-megagpu-16g") == ("A100-40GB", "a2-megagpu-16g")
    assert compute_classes.machine_gpu("a4x-maxgpu-4g") == ("GB300", "a4x-maxgpu-4g")


def test_a_built_in_class_is_no_missing_file(tmp_path, monkeypatch):
    # GKE's built-in classes (about-built-in-compute-classes, autopilot-compute-classes) name no GPU; no repo
    # defines them, so CTX208 must not ask for the file that does
    monkeypatch.chdir(tmp_path)
    expected = {
        "Accelerator": "it is GKE's built-in class, which names no GPU (the cloud.google.com/gke-accelerator "
                       "selector beside it does): state",
        "Balanced": "it is GKE's built-in class, which names no GPU: state",
        "autopilot-spot": "it is GKE's built-in class, which names no GPU: state"}
    for cls, why in expected.items():
        (tmp_path / "deploy.yaml").write_text(DEPLOY.format(cls=cls, model=SMALL))
        role = _role(["deploy.yaml"])
        assert role.accelerators.type is None and role.device_class.value == cls
        out = run(["check", "--select", "CTX208", "deploy.yaml"]).out
        assert (f"; the pod selects the GKE compute class '{cls}' (deploy.yaml:8:41), but {why} the device beside "
                "it (cloud.google.com/gke-accelerator, or `default-accelerator:` in .ctxlint.yaml); capacity checks "
                "skip these roles (capacity-not-derivable)") in out, out
    for cls in ("Performance", "Scale-Out", "autopilot"):
        assert compute_classes.class_device(cls) == (None, "it is GKE's built-in class, which names no GPU")
    assert compute_classes.class_device("accelerator")[1] == "no checked file defines the ComputeClass 'accelerator'"


def test_a_built_in_class_with_its_gke_accelerator_gets_that_gpu(tmp_path, monkeypatch):
    # GKE's Accelerator class: the GPU comes from cloud.google.com/gke-accelerator beside it (how-to/autopilot-gpus)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deploy.yaml").write_text(DEPLOY.format(cls="Accelerator", model=SMALL).replace(
        "        cloud.google.com/compute-class: Accelerator\n",
        "        cloud.google.com/compute-class: Accelerator\n        cloud.google.com/gke-accelerator: nvidia-l4-vws\n"))
    role = _role(["deploy.yaml"])
    assert (role.accelerators.type.value, role.accelerators.type.raw, role.device_class) == \
        ("L4", "nvidia-l4-vws", None)


def test_a_pod_on_gke_s_p4_is_estimated_within_the_p4_band():
    # GKE's nvidia-tesla-p4 was "unknown accelerator" (CTX208): the catalog now reads it up to its nvidia-smi Total,
    # 7611 MiB (below the datasheet's 8 GB), so Llama-3.2-1B's 131,072 tokens (32,768 B each, 4 GiB) are checked
    # instead of skipped, and do not fit even there (read as 8e9 B to 8 GiB they were only "inside the band")
    pod = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-p4}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-tesla-p4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "meta-llama/Llama-3.2-1B-Instruct", "--max-model-len", "131072", "--dtype", "half"]
        resources:
          limits: {nvidia.com/gpu: 1}
"""
    (finding,) = lint_text(pod, "p4.yaml").findings
    assert (finding.rule, finding.line, finding.severity) == ("CTX201", 11, "error")
    assert finding.message.startswith("131,072 > 128,160: the unified engine context length 131,072 exceeds its KV "
                                      "pool 93,072")
    assert "on 1x P4, vllm: KV budget per GPU 2.84 GiB (instance memory 5.79 GiB - weights 2.30 GiB" in finding.message


def test_a_class_of_no_gpu_defined_alike_in_two_files_is_one(tmp_path, monkeypatch):
    # the same ComputeClass in two files (an overlay's copy), naming no GPU ctxlint knows: the class's own why,
    # said of the first definition, not "defined twice, differently" (the why must not differ by the file alone)
    cpu = H100_CLASS.replace("        type: nvidia-h100-80gb\n", "").replace("a3-highgpu-1g", "n2-standard-8")
    mixed = MIXED_CLASS
    _tree(tmp_path, DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=SMALL), a=cpu, b="# copy\n" + MIXED_CLASS
          + "---\n" + cpu)
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None
    assert role.device_class.raw == ("priority 1 of the ComputeClass 'gpu-h100-80gb-high-x1' (classes/a.yaml:9) names "
                                     "no GPU ctxlint knows (a gpu.type, or a machineType or machineFamily that fixes "
                                     "the GPU)")
    (tmp_path / "classes" / "a.yaml").write_text(mixed.replace("gpu-h100-or-l4", "gpu-h100-80gb-high-x1"))
    (tmp_path / "classes" / "b.yaml").write_text("# copy\n" + mixed.replace("gpu-h100-or-l4", "gpu-h100-80gb-high-x1"))
    assert _role(["."]).device_class.raw == (
        "the priorities of the ComputeClass 'gpu-h100-80gb-high-x1' (classes/a.yaml) name different GPUs "
        "(H100-SXM-80GB, L4): GKE falls back from one to the next, so a pod may run on any of them")
    # two that differ still say so
    (tmp_path / "classes" / "b.yaml").write_text(cpu)
    assert "defined 2 times, differently" in _role(["."]).device_class.raw


def test_an_affinity_term_that_names_no_class_leaves_the_pod_anywhere(tmp_path, monkeypatch):
    # nodeSelectorTerms are ORed (kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node): a term without
    # `cloud.google.com/compute-class In` lets the pod run on a node of any class, so the other term's class names
    # no device
    affinity = DEPLOY.format(cls="gpu-h100-80gb-high-x1", model=SMALL).replace(
        "      nodeSelector:\n        cloud.google.com/compute-class: gpu-h100-80gb-high-x1\n",
        "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
        "            nodeSelectorTerms:\n            - matchExpressions:\n"
        "              - {key: cloud.google.com/compute-class, operator: In, values: [gpu-h100-80gb-high-x1]}\n"
        "            - matchExpressions:\n"
        "              - {key: cloud.google.com/gke-spot, operator: In, values: [\"true\"]}\n")
    _tree(tmp_path, affinity, h100=H100_CLASS)
    monkeypatch.chdir(tmp_path)
    role = _role(["."])
    assert role.accelerators.type is None and role.device_class is None
