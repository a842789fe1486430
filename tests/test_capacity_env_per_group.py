"""The capacity stage's CapacityEnv is made once per group of files (engine._lint_group), not once per deployment:
every deployment's pools and diagnostics must be those a CapacityEnv made for it alone gives (the code it replaced),
for every file of the samples and the corpus; and deployments_from returns at once for no workloads, as its loops
would have (an empty result)."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SHARED

from ctxlint import engine
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.capacity import CapacityEnv
from ctxlint.engine import Settings, lint_paths

ROOT = Path(__file__).resolve().parents[1]


def test_a_shared_env_gives_what_an_env_per_deployment_gave(monkeypatch: pytest.MonkeyPatch) -> None:
    original = engine._with_capacity
    envs = set()
    compared = {"n": 0}

    def both(dep, settings, diagnostics, env):
        envs.add(id(env))
        # the replaced code: a CapacityEnv made from the settings for each deployment
        fresh = CapacityEnv(models=settings.models, lock=settings.models_lock, hf_cache=settings.hf_cache,
                            default_accelerators=settings.default_accelerators, root=settings.root,
                            config_path=settings.config_label, known_files=env.known_files)
        alone: list = []
        got = original(dep, settings, diagnostics, env)
        assert got == original(dep, settings, alone, fresh), dep.display_name
        assert diagnostics[len(diagnostics) - len(alone):] == alone
        compared["n"] += 1
        return got

    monkeypatch.setattr(engine, "_with_capacity", both)
    paths = [str(ROOT / "samples")] + ([str(SHARED / "corpus")] if (SHARED / "corpus").is_dir() else [])
    report = lint_paths(paths, Settings())
    assert report.findings and compared["n"] > 100 and len(envs) < compared["n"]
    devices = lint_paths(paths, Settings(default_accelerators=(("*", "L4"),)))  # roles that name no device get one
    assert devices.findings != report.findings


def test_no_workloads_make_an_empty_result() -> None:
    assert deployments_from("f.yaml", []) == AdaptResult()
    assert deployments_from("f.yaml", ()) == AdaptResult()
