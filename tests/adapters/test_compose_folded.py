"""A compose string `command` on an image whose ENTRYPOINT is the engine is split into words by Compose, no shell:
the more-indented lines of a folded (`>`) string keep their line breaks in YAML, but no shell makes them commands
of their own, so their flags are the engine's and no line is a role of its own (sweep 46: a phantom "(no model
id)" deployment per flag line)."""
from __future__ import annotations

from tests.adapters.kit import adapt

FOLDED = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    command: >
      Qwen/Qwen3-8B
        --max-model-len 8192
        --port 8000
"""


def test_flags_on_folded_lines_are_the_engines():
    [dep] = adapt(FOLDED, "compose.yaml").deployments
    assert (dep.model.id.value, dep.roles[0].context_length.value) == ("Qwen/Qwen3-8B", 8192)


def test_a_flag_line_after_a_continued_line_is_no_role():
    # `\\` ends kept: read as the shell reading was, but the line that starts with a flag is not the image's
    # entrypoint run again
    text = FOLDED.replace("Qwen/Qwen3-8B\n", "Qwen/Qwen3-8B --max-model-len 8192 \\\\\n").replace(
        "        --max-model-len 8192\n", "\n")
    result = adapt(text, "compose.yaml")
    assert [d.model.id.value if d.model and d.model.id else None for d in result.deployments] == ["Qwen/Qwen3-8B"]


def test_a_custom_image_keeps_the_shell_reading():
    # an image whose entrypoint ctxlint does not know: `exec` replaces the shell, the flag lines never run
    text = FOLDED.replace("vllm/vllm-openai:v0.11.0", "registry.local/llm:1").replace(
        "      Qwen/Qwen3-8B\n", '      /bin/sh -c "\n        exec vllm serve Qwen/Qwen3-8B\n').replace(
        "        --port 8000\n", '        --port 8000\n      "\n')
    [dep] = adapt(text, "compose.yaml").deployments
    ctx = dep.roles[0].context_length
    assert dep.model.id.value == "Qwen/Qwen3-8B" and (ctx is None or ctx.value != 8192)
