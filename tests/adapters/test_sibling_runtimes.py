"""A KServe or OME InferenceService and the runtime (and base model) it names, in sibling files.

The layout of redhat-ai-americas/kserve-workshop configs/samples/model-deploy/ (inferenceservice.yaml beside
vllm-servingruntime.yaml) and of sgl-project/ome's config/: each object in a file of its own.
"""
from __future__ import annotations

from ctxlint.audit import build_audit
from ctxlint.engine import lint_paths
from helpers import run

RUNTIME = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-rt
spec:
  containers:
  - name: kserve-container
    image: vllm/vllm-openai:v0.10.1
    command: [python, -m, vllm.entrypoints.openai.api_server]
    args: [--port=8080, --model=/mnt/models, --max-model-len=131072]
  supportedModelFormats:
  - name: vLLM
"""
SERVICE = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: llama
spec:
  predictor:
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-L4
    model:
      modelFormat: {name: vLLM}
      runtime: vllm-rt
      storageUri: hf://meta-llama/Llama-3.1-8B-Instruct
      resources:
        limits: {nvidia.com/gpu: "1"}
"""


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _lines(out: str):
    """(location, rule) of each finding line, and the rest of the line."""
    return [tuple(line.split(" [", 1)) for line in out.splitlines()]


def test_a_runtime_in_a_sibling_file_is_merged_as_in_one_file(tmp_path, monkeypatch):
    _write(tmp_path, {"split/isvc.yaml": SERVICE, "split/runtime.yaml": RUNTIME,
                      "one/all.yaml": RUNTIME + "---\n" + SERVICE})
    monkeypatch.chdir(tmp_path)
    split, one = run(["check", "split"]), run(["check", "one"])
    # the runtime's values are where the runtime file writes them; nothing else changes
    # (no CTX401 beside CTX201: a context above the whole pool is refused at startup, it never hangs)
    assert [loc for loc, _ in _lines(split.out)] == ["split/runtime.yaml:10:62: CTX201"]
    assert [loc for loc, _ in _lines(one.out)] == ["one/all.yaml:10:62: CTX201"]
    assert [rest for _, rest in _lines(split.out)] == [rest for _, rest in _lines(one.out)]
    assert split.err == "ctxlint: 1 error in 2 files, 1 deployment\n"
    assert run(["check", "split", "--jobs", "2"]).out == split.out
    [dep] = lint_paths(["split"]).deployments  # the runtime is not a deployment of its own
    [role] = dep.roles
    assert (dep.display_name, dep.file, dep.model.id.value) == ("llama", "split/isvc.yaml",
                                                                "meta-llama/Llama-3.1-8B-Instruct")
    assert (role.context_length.source.file, role.context_length.source.line) == ("split/runtime.yaml", 10)
    assert (role.accelerators.count.source.file, role.accelerators.type.source.file) == ("split/isvc.yaml",) * 2
    assert (dep.engine.version.value, dep.engine.version.source.file) == ("0.10.1", "split/runtime.yaml")
    # the audit row holds the findings in the runtime's file (not "findings in files without a deployment")
    audit = build_audit(lint_paths(["split"]))
    assert [(row.name, [(f.rule, f.file) for f in row.findings]) for row in audit.rows] == [
        ("llama", [("CTX201", "split/runtime.yaml")])]
    assert audit.outside == ()


def test_a_file_named_alone_reads_its_siblings(tmp_path, monkeypatch):
    # pre-commit passes the staged files: the other side is read as context. The service's deployment has its
    # CTX201 at the runtime's --max-model-len: reported (before: "no findings", exit 0, for a deployment that
    # exceeds its pool)
    _write(tmp_path, {"d/isvc.yaml": SERVICE, "d/runtime.yaml": RUNTIME})
    monkeypatch.chdir(tmp_path)
    alone = run(["check", "d/isvc.yaml"])
    assert [loc for loc, _ in _lines(alone.out)] == ["d/runtime.yaml:10:62: CTX201"]
    assert (alone.code, alone.err) == (1, "ctxlint: 1 error in 1 file, 1 deployment\n")
    assert alone.out == run(["check", "d"]).out
    runtime = run(["check", "d/runtime.yaml"])  # the runtime's own findings, with the service's model and GPUs
    assert [loc for loc, _ in _lines(runtime.out)] == ["d/runtime.yaml:10:62: CTX201"]
    assert runtime.err == "ctxlint: 1 error in 1 file, 1 deployment\n"


def test_a_context_files_own_deployments_are_not_reported(tmp_path, monkeypatch):
    # a second service of the directory runs the same runtime: a deployment of the context files alone
    other = SERVICE.replace("name: llama", "name: other").replace("NVIDIA-L4", "NVIDIA-A10G")
    _write(tmp_path, {"d/isvc.yaml": SERVICE, "d/runtime.yaml": RUNTIME, "d/other.yaml": other})
    monkeypatch.chdir(tmp_path)
    whole = run(["check", "d"])
    assert [loc for loc, _ in _lines(whole.out)] == ["d/runtime.yaml:10:62: CTX201"] * 2
    alone = run(["check", "d/isvc.yaml"])
    # two services share the runtime's line: each line names its own (text.line); alone, the one needs no name
    assert sorted(line.split(" ")[3] for line in whole.out.splitlines()) == ["[llama]", "[other]"]
    assert [line.replace("[llama] ", "") for line in whole.out.splitlines() if "L4" in line] == alone.out.splitlines()
    assert alone.err == "ctxlint: 1 error in 1 file, 1 deployment\n"


MISSING = ("isvc.yaml:11:16: CTX008 [info] the runtime 'vllm-rt' that InferenceService llama names is in no file "
           "checked with it (its own or another file of its directory, or any file checked for a cluster-scoped "
           "runtime), so what it runs is not known and it is not checked; keep the runtime's manifest beside the "
           "service (unresolved-value)")


def test_a_runtime_in_no_file_is_said_in_one_file_and_in_a_directory(tmp_path, monkeypatch):
    # before: 0 deployments and no finding at all
    _write(tmp_path, {"d/isvc.yaml": SERVICE, "d/other.yaml": RUNTIME.replace("name: vllm-rt", "name: other")})
    monkeypatch.chdir(tmp_path)
    whole = run(["check", "d"]).out.splitlines()
    assert whole[0] == "d/" + MISSING and len(whole) == 2 and whole[1].startswith("d/other.yaml:10:33: CTX208")
    assert run(["check", "d/isvc.yaml"]).out == "d/" + MISSING + "\n"
    alone = run(["check", "-", "--stdin-filename", "isvc.yaml"], stdin=SERVICE.encode())
    assert (alone.out, alone.err) == (MISSING + "\n", "ctxlint: 1 info in 1 file, 0 deployments\n")


def test_a_runtime_defined_in_several_files_is_not_guessed(tmp_path, monkeypatch):
    _write(tmp_path, {"d/isvc.yaml": SERVICE, "d/runtime.yaml": RUNTIME,
                      "d/runtime-small.yaml": RUNTIME.replace("131072", "8192")})
    monkeypatch.chdir(tmp_path)
    out = run(["check", "d"]).out.splitlines()
    assert out[0] == (
        "d/isvc.yaml:11:16: CTX008 [info] the runtime 'vllm-rt' that InferenceService llama names is defined in 2 "
        "files of its directory (runtime-small.yaml, runtime.yaml): which one it runs depends on which is applied, "
        "so ctxlint picks none and reads the service without it; keep one definition beside the service "
        "(unresolved-value)")
    assert [line.split(" [")[0] for line in out[1:]] == ["d/runtime-small.yaml:10:33: CTX208",
                                                         "d/runtime.yaml:10:33: CTX208"]
    # each runtime stays a deployment of its own; the one in the service's own file is the one it runs
    assert sorted(d.display_name for d in lint_paths(["d"]).deployments) == ["vllm-rt", "vllm-rt"]
    (tmp_path / "d/isvc.yaml").write_text(RUNTIME + "---\n" + SERVICE)
    report = lint_paths(["d"])
    assert sorted(d.display_name for d in report.deployments) == ["llama", "vllm-rt", "vllm-rt"]
    assert not [f for f in report.findings if f.rule == "CTX008"]


def test_two_services_share_a_runtime_and_each_runs_it(tmp_path, monkeypatch):
    # KServe builds each service's predictor from the runtime: two deployments, a finding at a runtime value
    # once for each service it holds for
    other = SERVICE.replace("name: llama", "name: qwen").replace("meta-llama/Llama-3.1-8B-Instruct",
                                                                   "Qwen/Qwen2.5-7B-Instruct")
    _write(tmp_path, {"d/a.yaml": SERVICE, "d/b.yaml": other, "d/runtime.yaml": RUNTIME})
    monkeypatch.chdir(tmp_path)
    report = lint_paths(["d"])
    assert [(d.display_name, d.file) for d in report.deployments] == [("llama", "d/a.yaml"), ("qwen", "d/b.yaml")]
    ctx201 = [(f.file, f.line, f.deployment) for f in report.findings if f.rule == "CTX201"]
    assert ctx201 == [("d/runtime.yaml", 10, "llama"), ("d/runtime.yaml", 10, "qwen")]


def test_namespaces_decide_as_kserve_does(tmp_path, monkeypatch):
    # GetServingRuntime: a ServingRuntime of the service's namespace, else a ClusterServingRuntime
    _write(tmp_path, {"d/isvc.yaml": SERVICE.replace("  name: llama\n", "  name: llama\n  namespace: b\n"),
                      "d/runtime.yaml": RUNTIME.replace("  name: vllm-rt\n", "  name: vllm-rt\n  namespace: a\n")})
    monkeypatch.chdir(tmp_path)
    report = lint_paths(["d"])
    assert [d.display_name for d in report.deployments] == ["vllm-rt"]
    assert [(f.rule, f.file, f.line) for f in report.findings if f.rule == "CTX008"] == [("CTX008", "d/isvc.yaml", 12)]
    (tmp_path / "d/runtime.yaml").write_text(RUNTIME.replace("kind: ServingRuntime", "kind: ClusterServingRuntime"))
    assert [d.display_name for d in lint_paths(["d"]).deployments] == ["llama"]


OME_SERVICE = """\
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: llama-3-3-70b-instruct
  namespace: llama-3-3-70b-instruct
spec:
  model:
    name: llama-3-3-70b-instruct
  engine:
    minReplicas: 2
  runtime:
    name: srt-llama-3-3-70b-instruct
"""
OME_MODEL = """\
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: llama-3-3-70b-instruct
spec:
  storage:
    storageUri: hf://meta-llama/Llama-3.3-70B-Instruct
    path: /raid/models/meta/llama-3-3-70b-instruct
"""
OME_RUNTIME = """\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: srt-llama-3-3-70b-instruct
spec:
  engineConfig:
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5
      command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH), --tp-size, "4",
                --context-length, "131072", --mem-frac, "0.9"]
      resources:
        limits: {nvidia.com/gpu: 4}
"""


def test_ome_service_runtime_and_base_model_in_three_files(tmp_path, monkeypatch):
    # sgl-project/ome config/samples/isvc, config/models, config/runtimes: before, the service was nothing and
    # the runtime a deployment without a model
    _write(tmp_path, {"d/isvc.yaml": OME_SERVICE, "d/model.yaml": OME_MODEL, "d/runtime.yaml": OME_RUNTIME})
    monkeypatch.chdir(tmp_path)
    report = lint_paths(["d"])
    [dep] = report.deployments
    [role] = dep.roles
    assert (dep.display_name, dep.file, dep.model.id.value) == ("llama-3-3-70b-instruct", "d/isvc.yaml",
                                                                "meta-llama/Llama-3.3-70B-Instruct")
    assert (dep.model.id.source.file, dep.model.id.source.line) == ("d/model.yaml", 7)
    assert (role.replicas.value, role.replicas.source.file) == (2, "d/isvc.yaml")
    assert (role.context_length.value, role.context_length.source.file) == (131072, "d/runtime.yaml")
    assert (role.accelerators.count.value, role.accelerators.type.value) == (4, "H100-SXM-80GB")
    assert [f.rule for f in report.findings] == []  # MODEL_PATH is the base model's storage.path: resolved
    (tmp_path / "d/runtime.yaml").unlink()
    assert [line.split(" [")[0] for line in run(["check", "d"]).out.splitlines()] == ["d/isvc.yaml:12:11: CTX008"]


OME_LAYOUT = {"config/samples/isvc/meta/llama.yaml": None, "config/models/meta/llama.yaml": OME_MODEL,
              "config/runtimes/srt/meta/llama-rt.yaml": OME_RUNTIME}


def test_ome_cluster_objects_in_other_directories_of_the_run(tmp_path, monkeypatch):
    # sgl-project/ome@17b77ed keeps services, base models and runtimes in directories of their own; the
    # controller finds a ClusterServingRuntime and a ClusterBaseModel wherever they were applied from. Before:
    # the service was a CTX008 and no deployment, in every run
    _write(tmp_path, {**OME_LAYOUT, "config/samples/isvc/meta/llama.yaml": OME_SERVICE})
    monkeypatch.chdir(tmp_path)
    report = lint_paths(["config"])
    # the runtime the service runs is no deployment of its own (before: one, without a model: MODEL_PATH)
    [dep] = report.deployments
    assert dep.file == "config/samples/isvc/meta/llama.yaml"
    [role] = dep.roles
    assert (dep.model.id.value, dep.model.id.source.file) == ("meta-llama/Llama-3.3-70B-Instruct",
                                                              "config/models/meta/llama.yaml")
    assert (role.context_length.value, role.context_length.source.file) == (
        131072, "config/runtimes/srt/meta/llama-rt.yaml")
    assert (role.accelerators.count.value, role.accelerators.type.value) == (4, "H100-SXM-80GB")
    assert report.findings == []
    # -j: each worker is given the whole run's files, so the answer does not depend on the chunk
    assert run(["check", "config", "-j", "2"]).out == run(["check", "config"]).out
    # the service's file named alone: the run is that file, so the runtime is in no file checked with it
    alone = [line.split(" [")[0] for line in run(["check", "config/samples/isvc/meta/llama.yaml"]).out.splitlines()]
    assert alone == ["config/samples/isvc/meta/llama.yaml:12:11: CTX008"]


def test_a_cluster_runtime_in_two_directories_of_the_run_is_not_guessed(tmp_path, monkeypatch):
    _write(tmp_path, {**OME_LAYOUT, "config/samples/isvc/meta/llama.yaml": OME_SERVICE,
                      "other/rt.yaml": OME_RUNTIME.replace('"131072"', '"8192"')})
    monkeypatch.chdir(tmp_path)
    out = [line for line in run(["check", "."]).out.splitlines() if line.startswith("config/samples")]
    assert out == [
        "config/samples/isvc/meta/llama.yaml:12:11: CTX008 [info] the runtime 'srt-llama-3-3-70b-instruct' that "
        "InferenceService llama-3-3-70b-instruct names is defined in 2 files checked with it "
        "(../../../runtimes/srt/meta/llama-rt.yaml, ../../../../other/rt.yaml): which one it runs depends on which "
        "is applied, so ctxlint picks none and reads the service without it; keep one definition beside the service "
        "(unresolved-value)"]
    # neither runtime is run by the service: each stays a deployment of its own
    files = sorted(d.file for d in lint_paths(["."]).deployments)
    assert files == ["config/runtimes/srt/meta/llama-rt.yaml", "other/rt.yaml"]


def test_a_service_with_a_runtime_of_that_name_beside_it_does_not_use_the_other(tmp_path, monkeypatch):
    # the service's own directory holds a runtime of that name: it runs that one, and the runtime elsewhere
    # stays a deployment of its own
    _write(tmp_path, {**OME_LAYOUT, "config/samples/isvc/meta/llama.yaml": OME_SERVICE,
                      "config/samples/isvc/meta/rt.yaml": OME_RUNTIME.replace('"131072"', '"8192"')})
    monkeypatch.chdir(tmp_path)
    deps = {d.file: d for d in lint_paths(["config"]).deployments}
    assert sorted(deps) == ["config/runtimes/srt/meta/llama-rt.yaml", "config/samples/isvc/meta/llama.yaml"]
    [role] = deps["config/samples/isvc/meta/llama.yaml"].roles
    assert (role.context_length.value, role.context_length.source.file) == (8192, "config/samples/isvc/meta/rt.yaml")


def test_a_namespaced_runtime_in_another_directory_is_not_looked_up(tmp_path, monkeypatch):
    # a ServingRuntime serves its own namespace only: which directory's is applied where is not known
    _write(tmp_path, {"svc/isvc.yaml": SERVICE, "rt/runtime.yaml": RUNTIME})
    monkeypatch.chdir(tmp_path)
    assert run(["check", "."]).out.splitlines()[1] == "svc/" + MISSING


def test_an_ome_service_naming_no_runtime_is_said(tmp_path, monkeypatch):
    # 49 of sgl-project/ome@17b77ed's samples name none: OME picks one at run time. Before: no finding, no deployment
    service = OME_SERVICE.replace("  runtime:\n    name: srt-llama-3-3-70b-instruct\n", "")
    _write(tmp_path, {**OME_LAYOUT, "config/samples/isvc/meta/llama.yaml": service})
    monkeypatch.chdir(tmp_path)
    out = [line for line in run(["check", "config"]).out.splitlines() if line.startswith("config/samples")]
    assert out == [
        "config/samples/isvc/meta/llama.yaml:8:11: CTX008 [info] InferenceService llama-3-3-70b-instruct names no "
        "runtime (spec.runtime.name), so OME selects one from the cluster's runtimes by the base model's format, "
        "architecture and parameter size, which its model agent reads from the checkpoint at run time: what it runs "
        "is not known here and it is not checked; name the runtime (unresolved-value)"]


def test_the_engine_knows_crd_refs_markers():
    # engine._refs tests them before importing crd_refs: the two lists must agree
    from ctxlint import engine
    from ctxlint.adapters import crd_refs
    assert engine._REF_MARKERS == crd_refs.MARKERS


def test_a_run_wide_lookup_reads_each_file_once(tmp_path, monkeypatch):
    # the first run-wide lookup read every file of the run a second time (~7% of a 10,000-file run): files the
    # engine read are indexed as it reads them, and those the lookup reads ahead are handed to the engine
    import ctxlint.adapters.run_classes as run_classes
    import ctxlint.file_reader as file_reader

    layout = {**OME_LAYOUT, "config/samples/isvc/meta/llama.yaml": OME_SERVICE}
    layout.update({f"config/zz{i}/other.yaml": RUNTIME.replace("vllm-rt", f"rt-{i}") for i in range(3)})
    _write(tmp_path, layout)
    monkeypatch.chdir(tmp_path)
    expected = lint_paths(["config"])
    reads = []
    real_read, real_open = file_reader.read_regular, open

    def counted_read(path, *args, **kwargs):
        reads.append(path)
        return real_read(path, *args, **kwargs)

    def counted_open(path, *args, **kwargs):
        reads.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(file_reader, "read_regular", counted_read)
    monkeypatch.setattr(run_classes, "open", counted_open, raising=False)
    report = lint_paths(["config"])
    assert sorted(reads) == sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.yaml"))
    assert (report.findings, report.deployments) == (expected.findings, expected.deployments)
    assert [d.model.id.value for d in report.deployments].count("meta-llama/Llama-3.3-70B-Instruct") == 1
    # with nothing kept for the engine, the files a lookup read are read again, and the answer is the same
    monkeypatch.setattr(run_classes.RunClasses, "AHEAD_BYTES", 0)
    reads.clear()
    again = lint_paths(["config"])
    assert (again.findings, again.deployments) == (expected.findings, expected.deployments)
    assert len(reads) > len(layout)
_CLUSTER_RT = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ClusterServingRuntime
metadata:
  name: vllm-rt
spec:
  supportedModelFormats:
    - name: huggingface
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.10.1
      command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "131072"]{note}
      resources:
        limits:
          nvidia.com/gpu: "1"
"""
_CLUSTER_SVC = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: svc
spec:
  predictor:
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-L4
    model:
      modelFormat:
        name: huggingface
      runtime: vllm-rt
      resources:
        limits:
          nvidia.com/gpu: "1"
"""


def test_a_suppression_in_a_cluster_runtime_of_another_directory_applies(tmp_path, monkeypatch):
    # a ClusterServingRuntime in runtimes/ run by a service in services/: its own `# ctxlint: ignore[...]` waives
    # what the service finds in it (as beside the service) and is not called unused in its own directory
    (tmp_path / "runtimes").mkdir()
    (tmp_path / "services").mkdir()
    (tmp_path / "services" / "isvc.yaml").write_text(_CLUSTER_SVC)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runtimes" / "rt.yaml").write_text(_CLUSTER_RT.format(note=""))
    assert "runtimes/rt.yaml:11:82: CTX201 [error]" in run(["check", "."]).out
    (tmp_path / "runtimes" / "rt.yaml").write_text(_CLUSTER_RT.format(
        note="  # ctxlint: ignore[CTX201] -- the gateway caps prompts"))
    for jobs in ("1", "2"):
        out = run(["check", "--jobs", jobs, "."])
        assert (out.out, out.err) == ("", "ctxlint: no findings in 2 files, 1 deployment\n"), out


def test_an_ome_service_with_an_empty_or_null_runtime_name_is_said(tmp_path, monkeypatch):
    # OME selects a runtime when Runtime.Name is "" (sgl-project/ome@17b77ed pkg/controller/v1beta1/
    # inferenceservice/controller.go:230), as YAML's null reads in Go: before, no finding and no deployment
    for written in ('""', "null", "~"):
        service = OME_SERVICE.replace("name: srt-llama-3-3-70b-instruct", f"name: {written}")
        _write(tmp_path, {**OME_LAYOUT, "config/samples/isvc/meta/llama.yaml": service})
        monkeypatch.chdir(tmp_path)
        out = [line for line in run(["check", "config"]).out.splitlines() if line.startswith("config/samples")]
        assert len(out) == 1 and "names no runtime (spec.runtime.name), so OME selects one" in out[0], (written, out)


def test_the_index_tests_the_markers_it_names():
    # run_classes._index spells _REF_MARKERS out (every file read passes it): the two must not drift apart
    import inspect

    import ctxlint.adapters.run_classes as run_classes

    source = inspect.getsource(run_classes.RunClasses._index)
    assert all(f'b"{marker.decode()}" in data' in source for marker in run_classes._REF_MARKERS)
_SHAPED = """\
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: svc}
spec:
  model: {name: llama}
  RUNTIME
"""
_CRD = ("CTX002 [error] the Kubernetes API server refuses InferenceService svc: OME's CRD takes `spec.runtime` as a "
        "mapping with a string `name` (the runtime's; `kind` and `apiGroup` optional), and ")


def test_an_ome_runtime_of_the_wrong_shape_is_a_schema_violation(tmp_path):
    # sgl-project/ome@17b77ed pkg/apis/ome/v1beta1/inference_service.go: `Runtime *ServingRuntimeRef`, whose
    # `Name string json:"name"` is required; before, `runtime: srt-x` "names no runtime" and `{name: 12}` nothing
    path = tmp_path / "isvc.yaml"
    for written, at, what in (("runtime: srt-x", "6:12", "`spec.runtime` is the string 'srt-x'"),
                              ("runtime: {name: 12}", "6:19", "`spec.runtime.name` is the number 12"),
                              ("runtime: {kind: ServingRuntime}", "6:12", "`spec.runtime` has no `name`")):
        path.write_text(_SHAPED.replace("RUNTIME", written))
        out = run(["check", "--isolated", str(path)]).out
        assert out == f"{path}:{at}: {_CRD}{what} (schema-violation)\n", written


def _three_dirs(tmp_path, monkeypatch):
    for d in ("runtimes", "a", "b"):
        (tmp_path / d).mkdir()
    (tmp_path / "runtimes" / "rt.yaml").write_text(_CLUSTER_RT.format(note=""))
    (tmp_path / "a" / "isvc.yaml").write_text(_CLUSTER_SVC)
    (tmp_path / "b" / "isvc.yaml").write_text(_CLUSTER_SVC.replace("name: svc", "name: svc2"))
    monkeypatch.chdir(tmp_path)


def test_a_cluster_runtime_two_directories_run_says_its_finding_once(tmp_path, monkeypatch):
    # each directory is a group of its own: both services found the runtime's CTX201, which was printed twice
    # (once when the two services sit in one directory)
    _three_dirs(tmp_path, monkeypatch)
    for jobs in ("1", "2"):
        out = run(["check", "--jobs", jobs, "."])
        lines = out.out.splitlines()
        assert [line[:55] for line in lines] == ["runtimes/rt.yaml:11:82: CTX201 [error] 131,072 > 34,960"], (jobs, out)
        assert out.err == "ctxlint: 1 error in 3 files, 2 deployments\n"


def test_a_cluster_runtime_found_from_two_configs_keeps_the_more_severe_finding(tmp_path, monkeypatch):
    # a/ makes CTX201 an info, b/ leaves it an error: the run's order of paths decided which one was kept (and
    # so the exit code)
    _three_dirs(tmp_path, monkeypatch)
    (tmp_path / "a" / ".ctxlint.yaml").write_text("severity: {CTX201: info}\n")
    for order in (["a", "b", "runtimes"], ["b", "a", "runtimes"]):
        for jobs in ("1", "2"):
            out = run(["check", "--jobs", jobs, *order])
            assert [line[:38] for line in out.out.splitlines()] == ["runtimes/rt.yaml:11:82: CTX201 [error]"], \
                (order, jobs, out)
            assert out.code == 1, (order, jobs)


def test_the_run_index_reads_each_file_under_its_own_size_limit(tmp_path, monkeypatch):
    # runtimes/ keeps a 100-byte limit: its runtime is too large to be read there, and the run's index (which took
    # the first path's config's limit for every file) found it from a/ and b/ only when runtimes/ came later
    _three_dirs(tmp_path, monkeypatch)
    (tmp_path / "runtimes" / ".ctxlint.yaml").write_text("max-file-size: 100\n")
    outs = set()
    for order in (["a", "b", "runtimes"], ["runtimes", "a", "b"]):
        for jobs in ("1", "2"):
            outs.add(run(["check", "--jobs", jobs, *order]).out)
    assert len(outs) == 1, outs
    (out,) = outs
    assert "CTX201" not in out and "runtimes/rt.yaml:1:1: CTX001" in out
