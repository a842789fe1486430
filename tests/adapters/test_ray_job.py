"""KubeRay RayJob: the entrypoint is the cluster's engine command line, its GPUs the rayClusterSpec's."""
from __future__ import annotations

from tests.adapters.kit import adapt, at

JOB = """\
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: job}
spec:
  entrypoint: ENTRYPOINT
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
          containers:
          - name: ray-head
            image: IMAGE
            resources: {limits: {nvidia.com/gpu: "2"}}
    workerGroupSpecs:
    - replicas: 2
      groupName: gpu
      template: {spec: {containers: [{name: w, image: IMAGE, resources: {limits: {nvidia.com/gpu: 1}}}]}}
"""


def _job(entrypoint: str, image: str = "rayproject/ray-llm:2.46.0-py311-cu124") -> str:
    return JOB.replace("ENTRYPOINT", entrypoint).replace("IMAGE", image)


def test_a_rayjob_entrypoint_that_starts_vllm_is_the_cluster_s_engine():
    text = _job("vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4 --max-model-len 8192 "
                "--distributed-executor-backend ray")
    [dep] = adapt(text).deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.model.id.value) == \
        ("kuberay", "job", "vllm", "meta-llama/Llama-3.1-8B-Instruct")
    assert (role.context_length.value, at(text, role.context_length.source)) == (8192, "8192")
    # the whole Ray cluster: 2 on the head + 2 x 1 per worker, of the head's L4
    assert (role.accelerators.count.value, role.accelerators.type.value, role.parallelism.tp) == (4, "L4", 4)
    # a shell line: `cd` first, a variable it sets
    [dep] = adapt(_job("'MAX=4096; cd /app && vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len $MAX'"))\
        .deployments
    assert dep.roles[0].context_length.value == 4096


def test_a_rayjob_entrypoint_that_runs_a_python_file_is_not_guessed():
    # sweep 42 (doublefix/OpsFlow deploy/rayjob.yaml): `python /home/ray/samples/start_vllm_server.py`, its code in
    # a ConfigMap of the same file
    text = _job("python /home/ray/samples/start_vllm_server.py", "rayproject/ray:2.43.0-vllm_0.7.3")
    res = adapt(text)
    [dep] = res.deployments
    assert (dep.engine.name.value, dep.model.id, dep.roles[0].accelerators.count) == ("vllm", None, None)
    [note] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
    assert note.message.startswith("values ctxlint cannot resolve: the RayJob's entrypoint runs "
                                   "/home/ray/samples/start_vllm_server.py, which this file does not hold: its model "
                                   "and engine settings are not known")
    assert at(text, note.source) == "python /home/ray/samples/start_vllm_server.py"
    code = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: code}\ndata:\n  start_vllm_server.py: |\n    x = 1\n---\n"
    [note] = [d for d in adapt(code + text).diagnostics if d.kind == "unresolved-value"]
    assert "runs /home/ray/samples/start_vllm_server.py, in the ConfigMap code's start_vllm_server.py, which " \
        "ctxlint does not interpret:" in note.message
    # a Ray LLM image bundles vLLM too; a plain Ray image running a script is no LLM job ctxlint reads
    assert len(adapt(_job("python3 -u serve.py --port 8000")).deployments) == 1
    assert adapt(_job("python train.py", "rayproject/ray:2.43.0")).deployments == []


def test_rayjob_bad_shapes_never_crash():
    for text in (_job("[1, 2]"), _job("''"), _job("'unclosed \"quote'"), _job("python"),
                 "apiVersion: ray.io/v1\nkind: RayJob\nspec: {entrypoint: vllm serve m, rayClusterSpec: 3}\n",
                 "apiVersion: ray.io/v1\nkind: RayJob\nspec: 5\n"):
        res = adapt(text)
        assert all(d.source.line >= 1 for d in res.diagnostics)
    # no cluster spec (clusterSelector: an existing cluster): the engine, of GPUs not known
    [dep] = adapt("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: j}\nspec: {entrypoint: "
                  "vllm serve meta-llama/Llama-3.1-8B-Instruct, clusterSelector: {a: b}}\n").deployments
    assert dep.roles[0].accelerators.count is None
