"""KubeRay RayService/RayCluster: Ray Serve LLM configs inside serveConfigV2, engine heads, custom apps."""
from __future__ import annotations

from tests.adapters.kit import adapt, arg, at

SERVICE = """\
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: llm
spec:
  serveConfigV2: |
    applications:
    - name: llms
      import_path: ray.serve.llm:build_openai_app
      args:
        llm_configs:
          - model_loading_config:
              model_id: qwen
              model_source: Qwen/Qwen3-8B
            accelerator_type: H100
            deployment_config:
              autoscaling_config:
                min_replicas: 2
                max_replicas: 4
            engine_kwargs:
              tensor_parallel_size: 4
              max_model_len: 32768
              gpu_memory_utilization: 0.85
  rayClusterConfig:
    headGroupSpec:
      rayStartParams: {num-gpus: "0"}
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray-llm:2.52.0-py311-cu128
    workerGroupSpecs:
    - replicas: 1
      groupName: gpu
      template:
        spec:
          containers:
          - name: ray-worker
            image: rayproject/ray-llm:2.52.0-py311-cu128
            resources: {limits: {nvidia.com/gpu: 2}}
"""


def test_ray_serve_llm_config_with_positions_inside_the_block_scalar():
    res = adapt(SERVICE)
    [dep] = res.deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value, dep.model.id.value) == \
        ("kuberay", "llm/qwen", "vllm", "Qwen/Qwen3-8B")
    assert (dep.model.id.source.line, at(SERVICE, dep.model.id.source)) == (14, "Qwen/Qwen3-8B")
    ctx = role.context_length
    assert (ctx.value, ctx.source.line, ctx.source.col, at(SERVICE, ctx.source)) == (32768, 22, 30, "32768")
    assert (arg(role, "gpu_memory_utilization").value, arg(role, "gpu_memory_utilization").source.line) == \
        (0.85, 23)
    assert (role.accelerators.type.value, at(SERVICE, role.accelerators.type.source)) == ("H100-SXM-80GB", "H100")
    assert (role.replicas.value, role.replicas.source.line) == (2, 18)
    # TP 4 per replica, but the Ray cluster has 2 GPUs: the replica gets what the cluster has
    count = role.accelerators.count
    assert (count.value, count.raw, role.parallelism.tp) == (2, "the whole Ray cluster: 0 on the head + 1 x 2 per worker (gpu)", 4)


def test_ray_cluster_head_running_vllm_gets_the_cluster_gpus():
    text = """\
    apiVersion: ray.io/v1
    kind: RayCluster
    metadata: {name: rc}
    spec:
      headGroupSpec:
        template:
          spec:
            containers:
            - name: head
              image: vllm/vllm-openai:v0.9.0
              command: ["sh", "-c", "ray start --head && vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 4"]
              resources: {limits: {nvidia.com/gpu: 2}}
      workerGroupSpecs:
      - replicas: 1
        template: {spec: {containers: [{name: w, resources: {limits: {nvidia.com/gpu: 2}}}]}}
    """
    [dep] = adapt(text).deployments
    assert (dep.display_name, dep.roles[0].accelerators.count.value, dep.engine.version.value) == ("rc", 4, "0.9.0")


def test_custom_serve_app_env_is_not_guessed():
    text = SERVICE.replace("""      import_path: ray.serve.llm:build_openai_app
      args:
        llm_configs:""", """      import_path: vllm_serve:deployment
      runtime_env:
        env_vars:
          MODEL_ID: mistralai/Mistral-7B-Instruct-v0.2
          MAX_MODEL_LEN: "8192"
      deployments:
        - name: d
          ray_actor_options: {num_gpus: 1}
      ignored:""")
    res = adapt(text)
    [dep] = res.deployments
    assert (dep.display_name, dep.engine.name.value, dep.model.id, dep.roles[0].context_length) == \
        ("llm/llms", "vllm", None, None)
    assert dep.roles[0].accelerators.count.value == 1
    [note] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
    assert "vllm_serve:deployment reads MODEL_ID, MAX_MODEL_LEN in its own code" in note.message
    assert note.source.line == 12 and at(text, note.source) == "MODEL_ID"
    # at the first variable it names, not at a library path above it
    above = text.replace("        env_vars:\n", "        env_vars:\n          LD_LIBRARY_PATH: /opt/lib\n")
    [note] = [d for d in adapt(above).diagnostics if d.kind == "unresolved-value"]
    assert (note.source.line, at(above, note.source)) == (13, "MODEL_ID")
    with_env = text.replace("            resources: {limits: {nvidia.com/gpu: 2}}",
                            "            resources: {limits: {nvidia.com/gpu: 2}}\n"
                            "            env: [{name: TENSOR_PARALLELISM, value: '2'}, {name: VLLM_PORT, value: '8004'}]")
    [note] = [d for d in adapt(with_env).diagnostics if d.kind == "unresolved-value"]
    assert "reads MODEL_ID, MAX_MODEL_LEN, TENSOR_PARALLELISM in its own code" in note.message
    assert "which this file does not hold" in note.message
    # sweep 11 (awslabs/ai-on-eks vllm-ray-gpu-deepseek): the app's module in a ConfigMap of the file is held, only
    # not interpreted
    code = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: serve-code}\ndata:\n  vllm_serve.py: |\n    x = 1\n---\n"
    [note] = [d for d in adapt(code + text).diagnostics if d.kind == "unresolved-value"]
    assert "in its own code, in the ConfigMap serve-code's vllm_serve.py, which ctxlint does not interpret:" \
        in note.message


def test_kuberay_bad_shapes_never_crash():
    bad = [SERVICE.replace("    applications:\n", "    applications: 7\n    x:\n"),
           SERVICE.replace("              max_model_len: 32768", "              max_model_len: [1]"),
           SERVICE.replace("serveConfigV2: |", "serveConfigV2: [1]  # not a string\n  other: |"),
           SERVICE.replace("      import_path", "    - 5\n    - name: x\n      args: 3\n      import_path"),
           "apiVersion: ray.io/v1\nkind: RayService\nspec: {serveConfigV2: '{{', rayClusterConfig: 5}\n"]
    for text in bad:
        res = adapt(text)
        assert all(d.source.line >= 1 for d in res.diagnostics)
    assert adapt(bad[0]).deployments == [] and adapt(bad[-1]).deployments == []
    [dep] = adapt(bad[1]).deployments
    assert dep.roles[0].context_length is None


def test_a_ray_container_without_a_command_runs_ray_start_not_its_image_entrypoint():
    # KubeRay runs the Ray container's command + args as one shell line, then `ray start`
    # (ray-operator/controllers/ray/common/pod.go): a vLLM image's `vllm serve` entrypoint never runs
    text = """\
    apiVersion: ray.io/v1
    kind: RayCluster
    metadata: {name: rc}
    spec:
      headGroupSpec:
        template:
          spec:
            containers:
            - name: ray-head
              image: vllm/vllm-openai:v0.9.0
              ARGS
              resources: {limits: {nvidia.com/gpu: 2}}
    """
    assert adapt(text.replace("ARGS", "args: [--model, meta-llama/Llama-3.1-8B-Instruct]")).deployments == []
    assert adapt(text.replace("ARGS", "env: [{name: X, value: '1'}]")).deployments == []
    # a command or args that start the engine run first (`<cmd> && ray start`)
    [dep] = adapt(text.replace("ARGS", "args: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct]")).deployments
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    # a second container is the user's own: its image's entrypoint runs
    sidecar = text.replace("ARGS", "env: []").rstrip(" ") + \
        "            - {name: vllm, image: 'vllm/vllm-openai:v0.9.0', args: [--model, meta-llama/Llama-3.1-8B-Instruct]}\n"
    assert len(adapt(sidecar).deployments) == 1


def test_a_serve_app_that_pip_installs_vllm_is_a_vllm_app():
    text = """\
    apiVersion: ray.io/v1
    kind: RayService
    metadata: {name: llama}
    spec:
      serveConfigV2: |
        applications:
        - name: llm
          import_path: serve_chat_completion:model
          runtime_env:
            pip: ["vllm==0.4.3"]
            env_vars: {MODEL_ID: meta-llama/Meta-Llama-3-8B-Instruct}
      rayClusterConfig:
        headGroupSpec:
          template: {spec: {containers: [{name: ray-head, image: 'rayproject/ray-ml:2.9.0-py310'}]}}
    """
    res = adapt(text)
    [dep] = res.deployments
    assert (dep.engine.name.value, dep.engine.version.value, at(text, dep.engine.version.source)) == \
        ("vllm", "0.4.3", '"vllm==0.4.3"')
    assert any("reads MODEL_ID" in d.message for d in res.diagnostics if d.kind == "unresolved-value")
    [dep] = adapt(text.replace('pip: ["vllm==0.4.3"]', "pip: {packages: ['vllm[tensorizer]>=0.5']}")).deployments
    assert dep.engine.version is None
    [dep] = adapt(text.replace('pip: ["vllm==0.4.3"]', 'pip: ["vllm==0.4.*"]')).deployments
    assert dep.engine.version is None
    assert adapt(text.replace('pip: ["vllm==0.4.3"]', 'pip: ["vllm-flash-attn", "torch"]')).deployments == []


def test_a_ray_cluster_of_tpu7x_chips_counts_two_devices_a_chip():
    text = """\
    apiVersion: ray.io/v1
    kind: RayCluster
    metadata: {name: rc}
    spec:
      headGroupSpec:
        template:
          spec:
            nodeSelector: {cloud.google.com/gke-tpu-accelerator: tpu7x}
            containers:
            - name: head
              image: vllm/vllm-tpu:v0.11.1
              command: ["sh", "-c", "ray start --head && vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 8"]
              resources: {limits: {google.com/tpu: 4}}
    """
    [dep] = adapt(text).deployments
    assert (dep.roles[0].accelerators.count.value, dep.roles[0].parallelism.tp) == (8, 8)


SERVE_CONFIG = """\
applications:
  - name: llm-endpoint
    route_prefix: /
    import_path: ray.serve.llm:build_openai_app
    args:
      llm_configs:
        - model_loading_config:
            model_id: meta-llama/Llama-3.1-8B-Instruct
          accelerator_type: A10G
          engine_kwargs:
            max_model_len: 8192
            tensor_parallel_size: 2
          deployment_config:
            num_replicas: 3
  - name: other
    import_path: my_app:build
    args: {threshold: 3}
"""


def test_a_ray_serve_config_of_its_own_is_read_like_the_one_inside_a_rayservice():
    # ray-project/ray release/llm_tests/serve/configs: `serve deploy` files and LLMConfig files
    [dep] = adapt(SERVE_CONFIG, "serve_config.yaml").deployments
    [role] = dep.roles
    assert (dep.input_format, dep.model.id.value, dep.name.value) == (
        "ray-serve", "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct")
    assert (role.context_length.value, role.parallelism.tp, role.accelerators.type.value, role.replicas.value) == (
        8192, 2, "A10G", 3)
    assert at(SERVE_CONFIG, role.context_length.source) == "8192"
    # a file that is one LLMConfig (what `llm_configs: [path.yaml]` names)
    one = SERVE_CONFIG[SERVE_CONFIG.index("        - model_loading_config"):SERVE_CONFIG.index("  - name: other")]
    one = "\n".join(line[10:] for line in one.splitlines()) + "\n"
    [dep] = adapt(one, "llm_config.yaml").deployments
    assert (dep.model.id.value, dep.roles[0].context_length.value) == ("meta-llama/Llama-3.1-8B-Instruct", 8192)
    # a Serve config with no Ray Serve LLM app holds no engine ctxlint reads
    assert adapt(SERVE_CONFIG[:SERVE_CONFIG.index("    args:\n      llm_configs")] + "    args: {}\n",
                 "serve_config.yaml").deployments == []


def test_ray_serve_pd_builder_is_one_disaggregated_deployment():
    # ray.serve.llm:build_pd_openai_app takes PDServingArgs: prefill_config and decode_config
    config = """\
        model_loading_config: {model_id: meta-llama/Llama-3.1-8B-Instruct}
        accelerator_type: A10G
        engine_kwargs: {max_model_len: 8192}
"""
    text = ("applications:\n  - name: pd\n    import_path: ray.serve.llm:build_pd_openai_app\n    args:\n"
            "      prefill_config:\n" + config + "      decode_config:\n" + config)
    [dep] = adapt(text, "serve_pd.yaml").deployments
    assert sorted(r.kind for r in dep.roles) == ["decode", "prefill"] and dep.disaggregated


def test_ray_serve_configs_that_are_not_ray_serve_llm_or_not_vllm_are_not_read():
    # review: an LLMConfig without a model does not crash; an LLMConfig of Ray's SGLang adapter (llm_engine:
    # SGLang) holds SGLang's kwargs, not vLLM's. (A builder of the user's own is read where its args are shaped as
    # LLMConfigs: test_ray_llm_args.)
    assert adapt(SERVE_CONFIG.replace("ray.serve.llm:build_openai_app", "my_company.llm:build")
                 .replace("model_loading_config:", "loading:"), "serve_config.yaml").deployments == []
    no_model = SERVE_CONFIG.replace("        - model_loading_config:\n            model_id: meta-llama/Llama-3.1-8B-Instruct\n"
                                    "          accelerator_type", "        - accelerator_type")
    [dep] = adapt(no_model, "serve_config.yaml").deployments
    assert dep.model.id is None
    sglang = SERVE_CONFIG.replace("          accelerator_type: A10G\n", "          accelerator_type: A10G\n"
                                  "          llm_engine: SGLang\n")
    assert adapt(sglang, "serve_config.yaml").deployments == []
    # `applications` beside a top-level model_loading_config is not one LLMConfig file
    assert adapt("applications: [{name: x}]\nmodel_loading_config: {model_id: m}\n", "x.yaml").deployments == []


def test_a_ray_cluster_of_amd_gpus_keeps_its_vendor_in_the_summed_count():
    from ctxlint.physics.needs import _AMD, _vendor_devices

    text = """\
    apiVersion: ray.io/v1
    kind: RayCluster
    metadata: {name: rc}
    spec:
      headGroupSpec:
        rayStartParams: {num-gpus: "1"}
        template:
          spec:
            containers:
            - name: head
              image: rocm/vllm:latest
              command: ["sh", "-c", "ray start --head && vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2"]
              resources: {limits: {amd.com/gpu: 1}}
      workerGroupSpecs:
      - replicas: 1
        rayStartParams: {num-gpus: "1"}
        template: {spec: {containers: [{name: w, resources: {limits: {amd.com/gpu: 1}}}]}}
    """
    [role] = adapt(text).deployments[0].roles
    assert (role.accelerators.count.value, role.accelerators.resource) == (2, "amd.com/gpu")
    assert _vendor_devices(role)[0] == _AMD


def test_a_custom_serve_app_on_a_ray_llm_image_runs_vllm():
    # sweep 42 (dkhachyan/ray-llm-study): Ray's LLM images bundle vLLM (ray-project/ray docker/ray-llm/Dockerfile),
    # so a custom app on one is a vLLM app, as on an image named for vLLM
    text = """\
    apiVersion: ray.io/v1
    kind: RayService
    metadata: {name: llm-serve}
    spec:
      serveConfigV2: |
        applications:
          - name: engine
            import_path: llm:app
            runtime_env:
              env_vars: {MODELS: "Qwen/Qwen2.5-7B-Instruct"}
            deployments:
              - name: api
                ray_actor_options: {num_gpus: 1}
      rayClusterConfig:
        headGroupSpec:
          template: {spec: {containers: [{name: ray-head, image: IMAGE}]}}
    """
    res = adapt(text.replace("IMAGE", "rayproject/ray-llm:2.49.2-py311-cu128"))
    [dep] = res.deployments
    assert (dep.display_name, dep.engine.name.value, dep.roles[0].accelerators.count.value) == \
        ("llm-serve/engine", "vllm", 1)
    [note] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
    assert "Ray Serve app llm:app reads MODELS in its own code" in note.message
    for image in ("anyscale/ray-llm@sha256:0123", "registry.example.com/ray-llm"):
        assert len(adapt(text.replace("IMAGE", image)).deployments) == 1, image
    # Ray's plain images, and names that only contain the word, bundle no engine
    for image in ("rayproject/ray:2.49.2-py311-cu128", "me/my-ray-llm-tools:1", "me/ray-llmx:1"):
        assert adapt(text.replace("IMAGE", image)).deployments == [], image
