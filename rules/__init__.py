"""The rule registry: every rule module, listed once, in ID order.

A new check is one module here plus its samples/rules/<ID>-<name>/ folder;
tests/test_catalog.py fails when a module is missing from ALL.
"""
if __name__ != "ctxlint.rules":  # the rules/ folder must only be imported as ctxlint.rules
    raise ImportError(f"import ctxlint.rules, not {__name__!r}")

from ctxlint.rules import (  # noqa: E402
    ctx001_parse_error,
    ctx002_schema_violation,
    ctx003_duplicate_key,
    ctx004_unknown_field,
    ctx005_invalid_token_count,
    ctx008_unresolved_value,
    ctx010_helm_template,
    ctx101_window_exceeds_kv_pool,
    ctx102_overlong_prompts_reach_prefill,
    ctx103_decode_pool_below_one_request,
    ctx104_window_exceeds_engine_context,
    ctx105_output_limit_fills_window,
    ctx106_prompt_budget_below_minimum,
    ctx107_gateway_cap_exceeds_limits,
    ctx108_role_settings_disagree,
    ctx109_context_exceeds_trained_positions,
    ctx201_context_exceeds_kv_pool,
    ctx202_declared_pool_exceeds_hardware,
    ctx203_weights_exceed_memory,
    ctx204_parallelism_mismatch,
    ctx205_idle_accelerators,
    ctx206_memory_fraction_out_of_range,
    ctx207_memory_fraction_wrong_engine,
    ctx208_capacity_not_derivable,
)

ALL = (
    ctx001_parse_error,
    ctx002_schema_violation,
    ctx003_duplicate_key,
    ctx004_unknown_field,
    ctx005_invalid_token_count,
    ctx008_unresolved_value,
    ctx010_helm_template,
    ctx101_window_exceeds_kv_pool,
    ctx102_overlong_prompts_reach_prefill,
    ctx103_decode_pool_below_one_request,
    ctx104_window_exceeds_engine_context,
    ctx105_output_limit_fills_window,
    ctx106_prompt_budget_below_minimum,
    ctx107_gateway_cap_exceeds_limits,
    ctx108_role_settings_disagree,
    ctx109_context_exceeds_trained_positions,
    ctx201_context_exceeds_kv_pool,
    ctx202_declared_pool_exceeds_hardware,
    ctx203_weights_exceed_memory,
    ctx204_parallelism_mismatch,
    ctx205_idle_accelerators,
    ctx206_memory_fraction_out_of_range,
    ctx207_memory_fraction_wrong_engine,
    ctx208_capacity_not_derivable,
)
