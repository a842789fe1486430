"""Ray Serve LLM apps found by their args' LLMConfig shape, and the vLLM their runtime_env installs."""
from __future__ import annotations

from tests.adapters.kit import adapt, at

CONFIG = """\
        model_loading_config: {model_id: meta-llama/Llama-3.1-8B-Instruct}
        accelerator_type: A10G
        engine_kwargs: {max_model_len: 8192, tensor_parallel_size: 1}
        deployment_config: {num_replicas: 3}
"""


def _app(import_path: str, args: str) -> str:
    return f"applications:\n  - name: app\n    import_path: {import_path}\n    args:\n{args}"


def test_ray_internal_pd_builder_is_ray_s_own():
    # ray-project/ray release configs: the PD builder by its internal path, as Ray's release tests name it
    path = "ray.llm._internal.serve.deployments.prefill_decode_disagg.prefill_decode_disagg:build_app"
    res = adapt(_app(path, "      prefill_config:\n" + CONFIG + "      decode_config:\n" + CONFIG), "serve.yaml")
    [dep] = res.deployments
    assert sorted(r.kind for r in dep.roles) == ["decode", "prefill"] and dep.disaggregated
    assert [r.context_length.value for r in dep.roles] == [8192, 8192]
    assert [d for d in res.diagnostics if d.kind == "unresolved-value"] == []  # Ray's own builder: nothing to say


def test_a_custom_builder_of_llm_config_shaped_args_is_read_with_a_note():
    text = _app("builder:builder", "      llm_config:\n" + CONFIG + "      ingress_deployment_config: {}\n")
    res = adapt(text, "serve.yaml")
    [dep] = res.deployments
    [role] = dep.roles
    assert (dep.model.id.value, role.context_length.value, role.replicas.value, role.accelerators.type.value) == \
        ("meta-llama/Llama-3.1-8B-Instruct", 8192, 3, "A10G")
    [note] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
    assert note.message == (
        "the Ray Serve app builder:builder is built by code of its own, not one of Ray's builders: its args are "
        "read as the Ray Serve LLM LLMConfigs they are shaped as, but that code, which this file does not hold, "
        "may change them before they reach vLLM")
    assert at(text, note.source) == "builder:builder"
    # its PD builder: one disaggregated deployment, one note for the app
    pd = _app("builder:pd_builder", "      prefill_config:\n" + CONFIG + "      decode_config:\n" + CONFIG)
    res = adapt(pd, "serve.yaml")
    [dep] = res.deployments
    assert sorted(r.kind for r in dep.roles) == ["decode", "prefill"]
    assert len([d for d in res.diagnostics if d.kind == "unresolved-value"]) == 1
    # llm_configs[] of a builder of one's own: every entry of LLMConfig's shape, one note for the app
    first = CONFIG.replace("model_id: meta-llama", "model_id: x/y, model_source: meta-llama")
    two = _app("my_company.llm:build", "      llm_configs:\n" + "".join(
        "      - " + c[8:] for c in (first, CONFIG.replace("8192", "4096"))))
    res = adapt(two, "serve.yaml")
    assert len(res.deployments) == 2
    assert len([d for d in res.diagnostics if d.kind == "unresolved-value"]) == 1


def test_args_not_shaped_as_llm_configs_are_not_read():
    # no model_loading_config naming a model: not an LLMConfig, whatever the key's name
    for args in ("      llm_config: {engine_kwargs: {max_model_len: 8192}}\n",
                 "      llm_config: {model_loading_config: {path: x}}\n",
                 "      llm_configs: [{name: x}, 3]\n",
                 "      prefill_config:\n" + CONFIG,  # half a PD pair is no PD app of a builder of one's own
                 "      threshold: 3\n"):
        assert adapt(_app("builder:builder", args), "serve.yaml").deployments == [], args
    # inside a RayService, such an app is a custom app (read only on a vLLM image: none here)
    service = ("apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: s}\nspec:\n  serveConfigV2: |\n"
               + "".join("    " + line + "\n" for line in _app("builder:builder",
                                                               "      llm_config: {x: 1}\n").splitlines()))
    assert adapt(service).deployments == []
    # and LLMConfig-shaped args in a RayService are read with the same note
    service = ("apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: s}\nspec:\n  serveConfigV2: |\n"
               + "".join("    " + line + "\n" for line in _app("builder:builder",
                                                               "      llm_config:\n" + CONFIG).splitlines()))
    res = adapt(service)
    [dep] = res.deployments
    assert (dep.display_name, dep.roles[0].context_length.value) == ("s/meta-llama/Llama-3.1-8B-Instruct", 8192)
    [note] = [d for d in res.diagnostics if d.kind == "unresolved-value"]
    assert note.source.line == 8 and note.deployment == "s/meta-llama/Llama-3.1-8B-Instruct"


def test_a_ray_serve_llm_app_s_runtime_env_pip_names_the_vllm_release():
    # sweep (askulkarni2/ray-serve-with-eks-auto): `runtime_env: {pip: [vllm[runai]==0.11.0]}` beside llm_configs
    app = ("applications:\n  - name: app\n    import_path: ray.serve.llm:build_openai_app\n    APP_ENV\n"
           "    args:\n      llm_configs:\n      - model_loading_config: {model_id: meta-llama/Llama-3.1-8B-Instruct}\n"
           "        engine_kwargs: {max_model_len: 8192}\n        CONFIG_ENV\n")

    def version(app_env: str = "x: 1", config_env: str = "x: 1"):
        text = app.replace("APP_ENV", app_env).replace("CONFIG_ENV", config_env)
        [dep] = adapt(text, "serve.yaml").deployments
        v = dep.engine.version
        return (v.value, at(text, v.source)) if v is not None else None

    assert version("runtime_env: {pip: ['vllm[runai]==0.11.0']}") == ("0.11.0", "'vllm[runai]==0.11.0'")
    assert version("runtime_env: {uv: {packages: [vllm==0.10.1]}}") == ("0.10.1", "vllm==0.10.1")
    # the LLMConfig's own runtime_env is applied over the app's, key by key: its pip wins
    assert version("runtime_env: {pip: [vllm==0.11.0]}", "runtime_env: {pip: [vllm==0.9.2]}") == \
        ("0.9.2", "vllm==0.9.2")
    # ... and a pip of other packages there means the image's vLLM, of no release named here
    assert version("runtime_env: {pip: [vllm==0.11.0]}", "runtime_env: {pip: [numpy]}") is None
    # env_vars alone replace no pip; nor does an unpinned requirement name a release
    assert version("runtime_env: {pip: [vllm==0.11.0]}", "runtime_env: {env_vars: {A: '1'}}") == \
        ("0.11.0", "vllm==0.11.0")
    assert version("runtime_env: {pip: ['vllm>=0.10']}") is None
    # the deployment_config's ray_actor_options.runtime_env sits between the two
    assert version("runtime_env: {pip: [vllm==0.11.0]}",
                   "deployment_config: {ray_actor_options: {runtime_env: {pip: [vllm==0.10.2]}}}") == \
        ("0.10.2", "vllm==0.10.2")
    assert version() is None


def test_a_data_parallel_llm_config_leaves_a_replica_s_gpus_unknown():
    # anyscale/ray-serve-llm-perf-examples (sweep 42): data_parallel_size 16 at TP 1 under a DP builder runs one
    # rank per replica; counted as TP x PP x DP GPUs in one replica of 1 it was a false CTX204 error
    dp = CONFIG.replace("tensor_parallel_size: 1", "tensor_parallel_size: 1, data_parallel_size: 16")
    res = adapt(_app("builder:build_dp", "      llm_config:\n" + dp), "serve.yaml")
    [dep] = res.deployments
    [role] = dep.roles
    assert role.accelerators.count is None and role.accelerators.type.value == "A10G"
    plain = adapt(_app("builder:build", "      llm_config:\n" + CONFIG), "serve.yaml")
    assert plain.deployments[0].roles[0].accelerators.count.value == 1  # no DP: TP x PP per replica, as before
