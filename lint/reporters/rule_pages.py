"""The rule pages of the docs site: docs/rules/<ID>.md for every rule and docs/rules/README.md,
the index, written by `python tools/build_docs.py` and committed.

Each page is built from the rule module alone, as `ctxlint explain`'s is: its constants (ID, name,
severity, scope, tags), its INPUTS, its OPTIONS schema and its docstring sections. SARIF's
`helpUri` points at these pages (docs/rules/<ID>.md), so their paths are part of the contract.
Links are relative to the page, so they work on GitHub and in a clone alike.
"""
from __future__ import annotations

import json
from typing import Dict, Sequence, TextIO

from ctxlint.registry import RuleSpec
from ctxlint.reporters.catalog import SCOPES, options_table, sections

REGENERATE = "python tools/build_docs.py"
DIRECTORY = "docs/rules"  # relative to the repository root
INDEX = "README.md"  # GitHub shows a folder's README.md under its file list

# What a rule can read, in the order pages list it: a rule module's INPUTS names these keys.
# Dotted keys are fields of the normalized deployment (ctxlint.model.Deployment); the others
# are stages before it.
INPUTS: Dict[str, str] = {
    "file": "the file itself: its bytes, encoding, size and YAML/JSON syntax, as the loader reads it",
    "schema": "a native manifest's fields, against the schema `ctxlint schema` prints; in Kubernetes objects, "
              "an engine container's `command`, `args` and `env`, against Kubernetes' types",
    "token-counts": "token counts as written in a native manifest, in the `ctxlint.io/*` annotations, and in "
                    "gateway limits (LiteLLM `model_info`/`max_tokens`, Kong `max_tokens`, llama-swap "
                    "`capabilities.context`, Semantic Router `context_window_size`)",
    "suppressions": "`# ctxlint:` comments and `ctxlint.io/ignore.<rule>` annotations, with the "
                    "`require-suppression-reason` and `disallow-suppressions` settings",
    "variables": "values taken from what ctxlint cannot see: `$(VAR)` from a Secret or ConfigMap, `${VAR}` "
                 "without a default, command substitutions",
    "advertised.context_window": "the context window promised to clients: `spec.advertised.context_window`, or "
                                 "the `ctxlint.io/context-window` annotation (compose: label)",
    "advertised.max_output_tokens": "the largest output promised: `spec.advertised.max_output_tokens`, or the "
                                    "`ctxlint.io/max-output-tokens` annotation",
    "gateway.max_prompt_tokens": "the prompt cap a gateway enforces: `spec.gateway.max_prompt_tokens`, or the "
                                 "`ctxlint.io/gateway-max-prompt-tokens` annotation",
    "disaggregation": "the serving mode and each role's kind (unified, prefill, decode): "
                      "`spec.serving.disaggregation`, SGLang `--disaggregation-mode`, vLLM `kv_role`, Dynamo "
                      "`--is-prefill-worker`, TensorRT-LLM context/generation servers",
    "engine": "the engine and its version: `spec.engine`, or the container image and its tag",
    "model": "the model's facts: trained positions (`max_position_embeddings`), RoPE scaling and architecture, "
             "from the built-in catalog, `spec.model`, a config.json, the config's `models` or the models lock file",
    "roles[].context_length": "each role's engine context length (`--max-model-len`, `--context-length`, "
                              "`--max-total-tokens`, ...), or the engine's default for the model",
    "roles[].kv_pool_tokens": "a KV pool declared for a role (`kv_pool_tokens`)",
    "roles[].pool": "each role's KV pool: declared, or derived from the model, the accelerators and the engine "
                    "settings, with the band of the estimate",
    "roles[].capacity": "the capacity stage's memory arithmetic per GPU: weights, activations, reserved memory",
    "roles[].accelerators": "accelerator type and count per replica: GPU limits, node selectors and affinity, "
                            "SkyPilot `accelerators`, the config's `default-accelerator`; whether they are AWS "
                            "Neuron's (a Neuron resource, instance type, image or variable)",
    "roles[].parallelism": "tensor, pipeline and data parallel sizes from the engine's settings",
    "roles[].engine_args": "the engine's own flags and config keys as written (`args`, `command`, env vars, "
                           "engine config files)",
    "roles[].kv_cache_dtype": "each role's KV-cache dtype (`--kv-cache-dtype`)",
    "custom_accelerators": "user-defined accelerator types: the config's `accelerators`, "
                           "`spec.custom_accelerators`",
    "routes": "the gateways and catalogs in front of the engines (LiteLLM, Kong ai-proxy, Envoy AI Gateway, "
              "InferencePool/InferenceModel, llama-swap, Semantic Router, the SGLang router) and how each route "
              "was joined to the engines behind it (`ctxlint.stack`)",
    "advisories": "ctxlint's database of known engine defects (`ctxlint/data/advisories.json`)",
    "probe": "the answers a running stack gave to `ctxlint probe`'s boundary and canary requests, judged "
             "against the window, pool and prompt cap given or read from the linted deployment",
}


def page_path(rule: RuleSpec) -> str:
    """Where a rule's page lives, relative to the repository root (SARIF helpUri uses it)."""
    return f"{DIRECTORY}/{rule.id}.md"


def config_example(rule: RuleSpec) -> str:
    """A .ctxlint.yaml that sets this rule's options to their defaults and shows its severity override."""
    lines = ["# .ctxlint.yaml"]
    defaults = rule.default_options()
    if defaults:
        flow = ", ".join(f"{key}: {json.dumps(value)}" for key, value in defaults.items())
        lines += ["rules:", f"  {rule.id}: {{{flow}}}   # the defaults"]
    lines += ["severity:", f"  {rule.id}: {rule.severity}   # error | warning | info | off",
              "per-file-ignores:", f'  "staging/**": [{rule.name}]   # not in these files']
    return "\n".join(lines)


def write_rule_page(rule: RuleSpec, stream: TextIO) -> None:
    summary, intro, body = sections(rule.doc)
    module_file = rule.module.__name__.rsplit(".", 1)[1] + ".py"
    samples = f"samples/rules/{rule.id}-{rule.name}/"
    parts = [
        f"# {rule.id} {rule.name}",
        f"<!-- Generated from rules/{module_file} by `{REGENERATE}`; do not edit. -->",
        f"[All rules]({INDEX}) · [source](../../rules/{module_file})"
        + (f" · [samples](../../{samples})" if rule.scope != "probe" else " · tests: tests/test_probe.py"),
        summary,
        "\n".join([
            "| | |", "|---|---|",
            f"| ID | `{rule.id}` |",
            f"| name | `{rule.name}` |",
            f"| default severity | {rule.severity} |",
            f"| scope | {SCOPES.get(rule.scope, rule.scope)} |",
            f"| tags | {', '.join(rule.tags) if rule.tags else 'none'} |",
        ]),
    ]
    if intro:
        parts.append(intro)
    for title in ("Why", "Example (bad)", "Example (good)"):
        if body.get(title):
            parts.append(f"## {title}\n\n{body[title]}")
    parts.append("## Inputs\n\n" + "\n".join(f"- `{key}`: {INPUTS[key]}" for key in rule.inputs))
    parts.append(f"## Options\n\n{options_table(rule, body.get('Options', ''))}")
    if rule.options_schema.get("properties"):
        parts.append("Schema of `rules." + rule.id + "` (the `severity` key is accepted too):\n\n```json\n"
                     + json.dumps(dict(rule.options_schema), indent=2) + "\n```")
    parts.append(
        "## Configuration\n\n```yaml\n" + config_example(rule) + "\n```\n\n"
        f"The rule can be named by ID (`{rule.id}`) or name (`{rule.name}`) in `select`, `ignore`, "
        f"`severity`, `rules` and suppressions (`# ctxlint: ignore[{rule.id}] -- reason`); "
        "see [Configuration, suppressions, baseline](../../README.md#configuration-suppressions-baseline) "
        "and the [config schema](../config.schema.json).")
    rest = [t for t in body if t not in ("Why", "Example (bad)", "Example (good)", "Options")]
    parts.extend(f"## {title}\n\n{body[title]}" for title in rest)
    stream.write("\n\n".join(parts) + "\n")


def write_index(rules: Sequence[RuleSpec], stream: TextIO) -> None:
    stream.write("# ctxlint rules\n\n"
                 f"<!-- Generated from the rule modules by `{REGENERATE}`; do not edit. -->\n\n"
                 "One page per rule: why it exists, a bad and a good example, what it reads, its options and "
                 "how to configure it. `ctxlint explain ID` prints a rule's summary, examples and options in a "
                 "terminal; "
                 "[rules.md](../rules.md) has every rule on one page. Back to the [README](../../README.md).\n\n")
    stream.write("| ID | name | severity | summary |\n|---|---|---|---|\n")
    for rule in rules:
        severity = rule.severity + (" (security)" if "security" in rule.tags else "")
        summary = rule.summary.replace("|", "\\|")
        stream.write(f"| [{rule.id}]({rule.id}.md) | {rule.name} | {severity} | {summary} |\n")
