"""A catalogue of bad input: each case is bytes on disk (or a setup) and the exact outcome.

Every case must finish within TIME_LIMIT seconds, exit 0, 1 or 2, and never print a
traceback. Cases already covered by test_bad_input.py (tab indentation, unclosed double
quote, duplicate key, PNG bytes, Latin-1 byte, BOMs, empty documents, token-count
spellings, unknown field, 10,000 nested flow sequences, size limit, JSON comment, FIFO,
symlink loop) are not repeated here.

Kubernetes cases (`K8S`) assert exact lines too: shapes the API server refuses in an engine
container are CTX002 at the offending value (see lint/adapters/k8s_refusals.py).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence

import pytest

from helpers import run

TIME_LIMIT = 20.0  # catches hangs and blow-ups on a busy 2-core runner; speed itself is benchmarked, not asserted
FINDING = re.compile(r"^\S+:\d+:\d+: CTX\d{3} \[(error|warning|info)\] .+ \([a-z0-9-]+\)$")

MANIFEST = """apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {name: ok}
spec:
  advertised: {context_window: 131072}
  serving:
    roles: [{role: unified, context_length: 131072, kv_pool_tokens: 400000}]
"""
POOL = "kv_pool_tokens: 400000"


def pool(value: str) -> bytes:
    return MANIFEST.replace(POOL, f"kv_pool_tokens: {value}").encode()


def bomb(levels: int = 9) -> bytes:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return ("\n".join(lines) + "\n").encode()


@dataclass
class Case:
    id: str
    data: Optional[bytes] = None           # written to `name` in tmp_path, which is then checked
    name: str = "deploy.yaml"
    args: Sequence[str] = ()               # extra CLI args after the path
    code: int = 1
    lines: Optional[List[str]] = None      # exact stdout lines (tmp_path prefix removed)
    contains: Sequence[str] = ()           # substrings of stdout+stderr
    select: Sequence[str] = ()             # --select, to keep the expectation focused


CASES = [
    # --- invalid YAML of the common kinds ---
    Case("unclosed-single-quote", b"metadata:\n  name: 'open\n", lines=[
        "deploy.yaml:3:1: CTX001 [error] invalid YAML: while scanning a quoted scalar found unexpected end of "
        "stream (parse-error)"]),
    Case("unclosed-flow-sequence", b"spec: {advertised: [1, 2\n", lines=[
        "deploy.yaml:2:1: CTX001 [error] invalid YAML: while parsing a flow sequence did not find expected ',' "
        "or ']' (parse-error)"]),
    Case("unclosed-flow-mapping", b"a: {b: 1\nc: 2\n", lines=[
        "deploy.yaml:2:2: CTX001 [error] invalid YAML: while parsing a flow mapping did not find expected ',' "
        "or '}' (parse-error)"]),
    Case("dedented-key", b"a:\n  b: 1\n c: 2\n", lines=[
        "deploy.yaml:3:2: CTX001 [error] invalid YAML: while parsing a block mapping did not find expected key "
        "(parse-error)"]),
    Case("tab-after-key", b"spec:\n  advertised:\t\n\t  context_window: 1\n", lines=[
        "deploy.yaml:3:1: CTX001 [error] invalid YAML: while scanning for the next token found character that "
        "cannot start any token (a tab in the indentation: YAML indents with spaces only) (parse-error)"]),
    Case("undefined-alias", b"a: *nowhere\n", lines=[
        "deploy.yaml:1:4: CTX001 [error] invalid YAML: found undefined alias (parse-error)"]),
    Case("control-character", b"a: \x07\n", lines=[
        "deploy.yaml:1:4: CTX001 [error] invalid YAML: unacceptable character #x0007: control characters are "
        "not allowed (parse-error)"]),
    Case("duplicate-key-in-flow", MANIFEST.replace("role: unified,", "role: unified, role: prefill,").encode(),
         select=["CTX003"], lines=[
             "deploy.yaml:7:29: CTX003 [error] duplicate key 'role' (first at line 7); YAML keeps only the last "
             "value, so line 7 is silently ignored: remove one of them (duplicate-key)"]),
    Case("python-tag-is-not-executed", b"a: !!python/object/apply:os.system [echo hi]\n", code=0, lines=[]),
    # --- YAML 1.1 surprises in token-count fields ---
    Case("on-as-replicas", MANIFEST.replace("role: unified,", "role: unified, replicas: on,").encode(), lines=[
        "deploy.yaml:7:39: CTX002 [error] spec.serving.roles[0].replicas: expected an integer, got the boolean "
        "true (YAML 1.1 reads yes/no/on/off as booleans) (schema-violation)"]),
    Case("yes-as-token-count", pool("yes"), select=["CTX0"], lines=[
        "deploy.yaml:7:69: CTX002 [error] spec.serving.roles[0].kv_pool_tokens: expected an integer or a string, "
        "got the boolean true (YAML 1.1 reads yes/no/on/off as booleans) (schema-violation)"]),
    Case("octal-token-count", pool("0755"), select=["CTX0"], lines=[
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: '0755' is the octal number 493 "
        "in YAML 1.1 (a leading zero); write 755 for 755 tokens, or 493 if you meant octal (invalid-token-count)"]),
    Case("sexagesimal-token-count", pool("1:20"), select=["CTX0"], lines=[
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: '1:20' is the base-60 number 80 "
        "in YAML 1.1; write 80 if that is what you mean (invalid-token-count)"]),
    Case("hex-token-count", pool("0x80000"), select=["CTX0"], lines=[
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: '0x80000' is 524,288 written in "
        "base 16; write the decimal 524288 (invalid-token-count)"]),
    Case("quoted-leading-zero-is-decimal", pool("'0400000'"), code=0, lines=[]),
    Case("underscore-token-count", pool("1_048_576"), code=0, lines=[]),
    Case("1e6-is-a-string-in-yaml", pool("1e6"), select=["CTX0"], lines=[
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: '1e6' is not a token count: "
        "write an integer such as 131072 or a number with a suffix k, M, G (x1000) or Ki, Mi, Gi (x1024) "
        "(invalid-token-count)"]),
    Case("1.0e+6-is-a-float-in-yaml", pool("1.0e+6"), select=["CTX0"], lines=[
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: 1000000.0 is a float; write the "
        "integer 1000000 (or '1M') (invalid-token-count)"]),
    # --- numbers of every shape ---
    Case("token-count-as-string", pool('"400000"'), code=0, lines=[]),
    Case("negative-token-count", pool("-1"), select=["CTX005"], lines=[
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: -1 is not a positive token count "
        "(invalid-token-count)"]),
    Case("fractional-token-count", pool("400000.5"), select=["CTX0"], lines=[
        "deploy.yaml:7:69: CTX002 [error] spec.serving.roles[0].kv_pool_tokens: expected an integer or a string, "
        "got a float 400000.5 (schema-violation)",
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: 400000.5 is not a whole number of "
        "tokens (invalid-token-count)"]),
    Case("huge-token-count", pool("9" * 40), select=["CTX005"], contains=[
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: 9,999,999,999,999,999,999,999,999,"
        "999,999,999,999,999 tokens is implausibly large (over 1,000,000,000,000); check for a typo"]),
    Case("infinite-token-count", pool(".inf"), select=["CTX005"], lines=[
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: inf is not a whole number of "
        "tokens (invalid-token-count)"]),
    Case("nan-token-count", pool(".nan"), select=["CTX005"], lines=[
        "deploy.yaml:7:69: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: nan is not a whole number of "
        "tokens (invalid-token-count)"]),
    Case("null-token-count", pool("~"), select=["CTX0"], lines=[
        "deploy.yaml:7:69: CTX002 [error] spec.serving.roles[0].kv_pool_tokens: expected an integer or a string, "
        "got null (an empty value) (schema-violation)"]),
    Case("date-token-count", pool("2024-01-01"), select=["CTX0"], lines=[
        "deploy.yaml:7:69: CTX002 [error] spec.serving.roles[0].kv_pool_tokens: expected an integer or a string, "
        "got date datetime.date(2024, 1, 1) (schema-violation)"]),
    Case("json-exponent-overflow", b'{"apiVersion": "ctxlint/v1", "kind": "ModelDeployment", "metadata": {"name": "j"},'
         b' "spec": {"serving": {"roles": [{"role": "unified", "kv_pool_tokens": 1E+400}]}}}\n',
         name="deploy.json", select=["CTX005"], lines=[
             "deploy.json:1:153: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: inf is not a whole number of "
             "tokens (invalid-token-count)"]),
    # --- engines and args ---
    Case("unknown-engine", MANIFEST.replace("spec:\n", "spec:\n  engine: {name: vllm-turbo}\n").encode(), lines=[
        "deploy.yaml:5:18: CTX002 [error] spec.engine.name: 'vllm-turbo' is not one of vllm, sglang, tgi, trtllm, "
        "llamacpp, lmdeploy, other (schema-violation)"]),
    Case("engine-name-not-a-string", MANIFEST.replace("spec:\n", "spec:\n  engine: {name: [vllm]}\n").encode(),
         select=["CTX002"], lines=[
             "deploy.yaml:5:18: CTX002 [error] spec.engine.name: expected one of vllm, sglang, tgi, trtllm, "
             "llamacpp, lmdeploy, other, got a list (schema-violation)"]),
    Case("engine-args-not-a-mapping", MANIFEST.replace("kv_pool_tokens: 400000",
                                                       "kv_pool_tokens: 400000, engine_args: --max-model-len 8192")
         .encode(), select=["CTX002"], lines=[
             "deploy.yaml:7:90: CTX002 [error] spec.serving.roles[0].engine_args: expected a mapping, got a string "
             "'--max-model-len 8192' (schema-violation)"]),
    # --- alias bombs and nesting ---
    Case("billion-laughs", bomb(), lines=[
        "deploy.yaml:1:1: CTX001 [error] document 0 expands to more nodes than ctxlint reads (an alias bomb?); it "
        "was not checked (parse-error)"]),
    Case("billion-laughs-inside-a-manifest", MANIFEST.encode() + b"  custom_accelerators:\n" + b"".join(
        b"    " + line + b"\n" for line in bomb().splitlines()), lines=[
        "deploy.yaml:1:1: CTX001 [error] document 0 expands to more nodes than ctxlint reads (an alias bomb?); it "
        "was not checked (parse-error)"]),
    Case("bomb-in-second-document-keeps-first", MANIFEST.replace(POOL, "kv_pool_tokens: 100000").encode()
         + b"---\n" + bomb(), select=["CTX001", "CTX101"], contains=[
             "deploy.yaml:7:69: CTX101 [error] 131,072 > 100,000", "deploy.yaml:1:1: CTX001 [error] document 1 expands"]),
    Case("kind-is-a-yaml-boolean", b"apiVersion: apps/v1\nkind: yes\nitems: []\n---\napiVersion: ctxlint/v1\nkind: yes\n",
         lines=[
             "deploy.yaml:5:1: CTX002 [error] document: required field 'metadata' is missing (schema-violation)",
             "deploy.yaml:6:7: CTX002 [error] kind: expected 'ModelDeployment', got True (schema-violation)"]),
    Case("absurd-layer-count", MANIFEST.replace("spec:\n", "spec:\n  model:\n    id: example/m\n    architecture: {num_layers: "
                                                "104857648, num_kv_heads: 8, head_dim: 128, num_attention_heads: 64}\n").encode(),
         select=["CTX002"], lines=[
             "deploy.yaml:7:32: CTX002 [error] spec.model.architecture.num_layers: 104857648 is greater than the maximum "
             "of 10000 (schema-violation)"]),
    Case("10000-nested-block-sequences", ("- " * 10000 + "x\n").encode(), lines=[
        "deploy.yaml:1:513: CTX001 [error] document 0 nests mappings or lists more than "
        "256 levels deep; ctxlint does not read it, so it was not checked (parse-error)"]),
    Case("10000-nested-flow-mappings", ("{a: " * 10000 + "}" * 10000 + "\n").encode(), lines=[
        "deploy.yaml:1:1025: CTX001 [error] document 0 nests mappings or lists more than "
        "256 levels deep; ctxlint does not read it, so it was not checked (parse-error)"]),
    Case("10000-nested-json-arrays", ("[" * 10000 + "]" * 10000 + "\n").encode(), name="deploy.json", lines=[
        "deploy.json:1:1: CTX001 [error] JSON nested too deeply to read; it was not checked (parse-error)"]),
    Case("900-nested-inside-a-manifest", MANIFEST.replace("spec:\n", "spec:\n  model:\n    architecture: {x: "
                                                          + "[" * 900 + "]" * 900 + "}\n").encode(), lines=[
        "deploy.yaml:6:275: CTX001 [error] document 0 nests mappings or lists more than 256 levels deep; ctxlint does "
        "not read it, so it was not checked (parse-error)"]),
    # --- encodings and odd files ---
    Case("utf16-without-bom", MANIFEST.replace(POOL, "kv_pool_tokens: 100000").encode("utf-16-le"),
         select=["CTX101"], contains=["deploy.yaml:7:69: CTX101 [error] 131,072 > 100,000"]),
    Case("utf16-be-without-bom", MANIFEST.replace(POOL, "kv_pool_tokens: 100000").encode("utf-16-be"),
         select=["CTX101"], contains=["deploy.yaml:7:69: CTX101 [error] 131,072 > 100,000"]),
    Case("utf16-truncated", b"\xff\xfea\x00:", lines=[
        "deploy.yaml:1:1: CTX001 [error] not valid utf-16-le text: truncated data at byte 2 (parse-error)"]),
    Case("utf8-bom-then-invalid", b"\xef\xbb\xbfa: \xff\n", lines=[
        "deploy.yaml:1:1: CTX001 [error] not valid utf-8 text: invalid start byte at byte 3 (parse-error)"]),
    Case("only-a-bom", b"\xef\xbb\xbf", code=0, lines=[]),
    Case("elf-binary", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), lines=[
        "deploy.yaml:1:1: CTX001 [error] binary file (contains NUL bytes); expected YAML or JSON text "
        "(parse-error)"]),
    Case("only-document-markers", b"---\n---\n---\n", code=0, lines=[]),
    Case("only-whitespace", b"   \n\n  \n", code=0, lines=[]),
    Case("line-of-only-a-tab", b"a: 1\n\n\t\n", lines=[  # libyaml refuses it; the finding says why
        "deploy.yaml:3:1: CTX001 [error] invalid YAML: while scanning a plain scalar found a tab character that "
        "violates indentation (a tab in the indentation: YAML indents with spaces only) (parse-error)"]),
    Case("empty-json", b"", name="deploy.json", code=0, lines=[]),
    Case("json-trailing-comma", b'{"a": [1, 2,]}\n', name="deploy.json", lines=[
        # Python's json module words it (3.13 names the comma itself)
        "deploy.json:1:12: CTX001 [error] invalid JSON: Illegal trailing comma before end of array (parse-error)"
        if sys.version_info >= (3, 13) else
        "deploy.json:1:13: CTX001 [error] invalid JSON: Expecting value (parse-error)"]),
    Case("json-block-comment", b'/* hi */ {"a": 1}\n', name="deploy.json", lines=[
        "deploy.json:1:1: CTX001 [error] invalid JSON: Expecting value (parse-error)"]),
    Case("json-numbers-as-strings", b'{"apiVersion": "ctxlint/v1", "kind": "ModelDeployment", "metadata": {"name": '
         b'"j"}, "spec": {"advertised": {"context_window": "131072"}, "serving": {"roles": [{"role": "unified", '
         b'"kv_pool_tokens": "100000"}]}}}\n', name="deploy.json", select=["CTX101"], contains=[
             "deploy.json:1:197: CTX101 [error] 131,072 > 100,000"]),
    # --- size limits ---
    Case("size-limit-configurable", MANIFEST.encode(), args=["--max-file-size", "50"], lines=[
        f"deploy.yaml:1:1: CTX001 [error] file is {len(MANIFEST):,} bytes, over the 50-byte limit (raise it with "
        "--max-file-size) (parse-error)"]),
]

K8S = {
    "args-not-strings": """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.0
          args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, 131072, --tensor-parallel-size, 1,
                 --gpu-memory-utilization, 0.9, --enforce-eager, true, --served-model-name, null, {a: 1}, [x]]
""",
    "args-as-one-string": """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.0
          command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
          args: "--model meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072 --gpu-memory-utilization 0.95"
""",
    "env-from-secrets": """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.0
          args: ["--model", "$(MODEL)", "--max-model-len", "$(MAX_LEN)"]
          env:
            - name: MODEL
              valueFrom: {secretKeyRef: {name: model, key: id}}
            - name: MAX_LEN
              valueFrom: {configMapKeyRef: {name: limits, key: len}}
            - {name: HF_TOKEN, valueFrom: {secretKeyRef: {name: hf, key: token, optional: true}}}
""",
    "containers-not-a-list": """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec: {template: {spec: {containers: {name: vllm, args: 3}}}}
""",
    "args-mixed-with-anchors": """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.0
          args: &args ["--max-model-len", 0755, "--max-model-len", 1:20]
        - name: sidecar
          args: *args
""",
    "plain-1e6-in-args": """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - image: vllm/vllm-openai:v0.6.0
          args: ["--max-model-len", 1e6, "--max-num-seqs", "1e6"]
""",
    "engine-container-not-in-a-list": """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        name: vllm
        image: vllm/vllm-openai:v0.6.0
        args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "32768"]
""",
    "env-value-a-number-and-no-name": """apiVersion: apps/v1
kind: Deployment
metadata: {labels: {app: vllm}}
spec:
  template:
    spec:
      containers:
        - image: vllm/vllm-openai:v0.6.0
          args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "$(LEN)"]
          env:
            - {name: LEN, value: 32768}
            - {name: VLLM_LOGGING_LEVEL, value: DEBUG}
""",
}


def _lines(out: str, tmp_path: Path) -> List[str]:
    return [line.replace(str(tmp_path) + os.sep, "") for line in out.splitlines()]


def _check(tmp_path: Path, name: str, args: Sequence[str] = (), stdin: Optional[bytes] = None):
    start = time.monotonic()
    result = run(["check", str(tmp_path / name) if name != "-" else "-", *args], stdin=stdin)
    elapsed = time.monotonic() - start
    assert "Traceback" not in result.out + result.err
    assert result.code in (0, 1, 2)
    assert elapsed < TIME_LIMIT, f"took {elapsed:.1f} s"
    return result


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_catalogue(tmp_path, case: Case):
    (tmp_path / case.name).write_bytes(case.data)
    args = list(case.args) + [arg for code in case.select for arg in ("--select", code)]
    result = _check(tmp_path, case.name, args)
    lines = _lines(result.out, tmp_path)
    assert result.code == case.code, lines
    if case.lines is not None:
        assert lines == case.lines
    for text in case.contains:
        assert any(text in line for line in lines), (text, lines)
    assert all(FINDING.match(line) for line in lines), lines


def test_case_ids_are_unique():
    assert len({c.id for c in CASES}) == len(CASES)


REFUSED = "CTX002 [error] the Kubernetes API server refuses this object: "
NO_MODEL = ("CTX208 [info] KV pool of unified not declared and not derivable: no model id: name the model (or add it "
            "under `models:`); capacity checks skip these roles (capacity-not-derivable)")
DEVICES_AT_TP1 = ("L4 no, A10G no, L40S yes, A100-40GB yes, A100-SXM4-80GB yes, H100-SXM-80GB yes, H200 yes, B200 yes, "
                  "MI300X yes")


def no_type(tokens, need):
    """CTX208 for an unstated device: the memory one request needs, and which devices hold it."""
    return ("CTX208 [info] KV pool of unified not declared and not derivable: no accelerator type (or available_kv_gib) "
            f"is given; holding one request of {tokens} tokens needs >= {need} GiB per GPU at TP 1 ({DEVICES_AT_TP1}); "
            "state the device (a nodeSelector such as nvidia.com/gpu.product or node.kubernetes.io/instance-type, or "
            "`default-accelerator:` in .ctxlint.yaml); capacity checks skip these roles (capacity-not-derivable)")



K8S_LINES = {
    "args-as-one-string": [
        f"deploy.yaml:8:11: {NO_MODEL}",
        f"deploy.yaml:11:17: {REFUSED}`args` must be a list of strings, not the string '--model "
        "meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072 --gpu-memory-utilization 0.95'; write it as a list "
        '(`args: ["...", "..."]`) or run a shell (`command: [sh, -c]`, `args: ["..."]`) (schema-violation)'],
    "args-mixed-with-anchors": [
        f"deploy.yaml:8:11: {NO_MODEL}",
        f'deploy.yaml:10:43: {REFUSED}`args` items must be strings, and this one is the number 493; quote it ("0755") '
        "(schema-violation)"],  # `1:20` is base 60 to PyYAML but text to Kubernetes' go-yaml: accepted
    "args-not-strings": [  # Llama-3.1-8B, 131,072 tokens: 15 GiB of weights and 16 GiB of KV
        f"deploy.yaml:8:11: {no_type('131,072', '35.1 (band 34.8-35.9)')}",
        *(f"deploy.yaml:{where}: {REFUSED}`args` items must be strings, and this one is {what} (schema-violation)"
          for where, what in [("10:78", 'the number 131072; quote it ("131072")'), ("10:110", 'the number 1; quote it ("1")'),
                              ("11:44", 'the number 0.9; quote it ("0.9")'),
                              ("11:66", 'the boolean true; quote it ("true")')]),
        # `--enforce-eager` takes no value (store_true): the word is one more than vLLM's server has an argument for
        "deploy.yaml:11:66: CTX301 [error] vllm would refuse to start: unrecognized arguments: true (the image's "
        "server has no argument for it: `vllm serve` takes one model argument, which `--model "
        "meta-llama/Llama-3.1-8B-Instruct` gives, and the API server module of older images none) "
        "(engine-rejects-value)",
        *(f"deploy.yaml:{where}: {REFUSED}`args` items must be strings, and this one is {what} (schema-violation)"
          for where, what in [("11:93", 'null; remove it or write ""'), ("11:99", "a mapping"), ("11:107", "a list")])],
    "containers-not-a-list": [],  # no engine in it: not ctxlint's to judge (kubeconform's)
    "env-from-secrets": [
        f"deploy.yaml:8:11: {NO_MODEL}",
        "deploy.yaml:10:30: CTX008 [info] values ctxlint cannot resolve: --model $(MODEL) (MODEL has no literal value "
        "in the file (secret, config map or host variable)); --max-model-len $(MAX_LEN) (MAX_LEN has no literal value "
        "in the file (secret, config map or host variable)); the checks that need them are skipped (set them "
        "literally, or state the limits with ctxlint.io/* annotations) (unresolved-value)"],
    "plain-1e6-in-args": [
        f"deploy.yaml:8:11: {NO_MODEL}",
        f"deploy.yaml:9:37: {REFUSED}`args` items must be strings, and this one is the number 1e6 (Kubernetes' YAML "
        'reader, unlike PyYAML, takes a plain 1e6 as a float); quote it ("1e6") (schema-violation)',
        "deploy.yaml:9:37: CTX301 [error] vllm would refuse to start: argument --max-model-len: invalid "
        "human_readable_int_or_auto value: '1e6' (engine-rejects-value)",
        "deploy.yaml:9:61: CTX301 [error] vllm would refuse to start: argument --max-num-seqs: invalid int value: "
        "'1e6' (engine-rejects-value)"],  # the quoted "1e6" reaches vLLM, which refuses it too
    "engine-container-not-in-a-list": [
        f"deploy.yaml:8:9: {REFUSED}`containers` must be a list, not a mapping; start each container with `- ` (this "
        "one was not checked) (schema-violation)"],
    "env-value-a-number-and-no-name": [
        f"deploy.yaml:8:11: {no_type('32,768', '24 (band 23.2-26.5)')}",
        f'deploy.yaml:11:34: {REFUSED}an env var\'s `value` must be a string, and this one is the number 32768; quote '
        'it ("32768") (schema-violation)'],
}


def test_every_kubernetes_case_has_its_expected_lines():
    assert sorted(K8S) == sorted(K8S_LINES)


@pytest.mark.parametrize("name", sorted(K8S))
def test_kubernetes_shapes(tmp_path, name):
    (tmp_path / "deploy.yaml").write_text(K8S[name])
    result = _check(tmp_path, "deploy.yaml", ["--isolated"])
    lines = _lines(result.out, tmp_path)
    assert lines == K8S_LINES[name]
    assert result.code == (1 if any("[error]" in line for line in lines) else 0)


# --- cases that need more than one file of bytes ---

def test_50_megabyte_file_is_refused_with_a_clear_message_and_read_when_allowed(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:
        handle.write(MANIFEST.replace(POOL, "kv_pool_tokens: 100000").encode())
        line = b"# " + b"x" * 1022 + b"\n"
        handle.write(line * (50 * 1024))
    size = big.stat().st_size
    result = _check(tmp_path, "big.yaml")
    assert _lines(result.out, tmp_path) == [
        f"big.yaml:1:1: CTX001 [error] file is {size:,} bytes, over the 20,971,520-byte limit (raise it with "
        "--max-file-size) (parse-error)"]
    result = _check(tmp_path, "big.yaml", ["--max-file-size", str(64 * 2**20), "--select", "CTX101"])
    assert result.code == 1 and _lines(result.out, tmp_path)[0].startswith("big.yaml:7:69: CTX101")


def test_50_megabyte_stdin_is_refused(tmp_path):
    result = _check(tmp_path, "-", stdin=b"#" * (21 * 2**20))
    assert _lines(result.out, tmp_path) == [
        "-:1:1: CTX001 [error] input is over the 20,971,520-byte limit (raise it with --max-file-size) (parse-error)"]


def test_directory_named_like_yaml_inside_a_tree(tmp_path):
    (tmp_path / "x.yaml").mkdir()
    (tmp_path / "x.yaml" / "real.yaml").write_text(MANIFEST.replace(POOL, "kv_pool_tokens: 100000"))
    result = run(["check", str(tmp_path), "--select", "CTX101"])
    lines = _lines(result.out, tmp_path)
    assert result.code == 1 and len(lines) == 1 and lines[0].startswith("x.yaml/real.yaml:7:69: CTX101")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads chmod 000 files")
def test_unreadable_file(tmp_path):
    path = tmp_path / "deploy.yaml"
    path.write_text(MANIFEST)
    path.chmod(0)
    try:
        result = _check(tmp_path, "deploy.yaml")
    finally:
        path.chmod(0o644)
    assert _lines(result.out, tmp_path) == [
        "deploy.yaml:1:1: CTX001 [error] cannot read deploy.yaml: Permission denied (parse-error)"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root lists chmod 000 directories")
def test_unreadable_directory_is_a_usage_error(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "deploy.yaml").write_text(MANIFEST)
    locked.chmod(0)
    try:
        result = run(["check", str(tmp_path)])
    finally:
        locked.chmod(0o755)
    assert result.code == 2 and "cannot read directory" in result.err


def test_unreadable_directory_is_reported_not_skipped(tmp_path, monkeypatch):
    # Runs as root too: simulate the listing failure of one subdirectory.
    import ctxlint.discover as discover

    (tmp_path / "locked").mkdir()
    real_scandir = os.scandir

    def failing_scandir(path="."):
        if str(path) == str(tmp_path / "locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(discover.os, "scandir", failing_scandir)
    result = run(["check", str(tmp_path)])
    assert result.code == 2
    assert f"cannot read directory {tmp_path / 'locked'}: Permission denied" in result.err


def test_symlink_loops_and_dangling_links_in_a_tree_are_named(tmp_path):
    os.symlink(tmp_path / "loop.yaml", tmp_path / "loop.yaml")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling.yaml")
    os.symlink(tmp_path, tmp_path / "sub")  # a directory loop: not followed
    result = _check(tmp_path, "")
    assert _lines(result.out, tmp_path) == [
        "dangling.yaml:1:1: CTX001 [error] cannot read dangling.yaml: No such file or directory (parse-error)",
        "loop.yaml:1:1: CTX001 [error] cannot read loop.yaml: Too many levels of symbolic links (parse-error)"]


def _ctxlint(args: Sequence[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ctxlint", *args], cwd=cwd, capture_output=True,
                          timeout=30, **kwargs)


def test_fifo_in_a_walked_directory_is_skipped_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "deploy.yaml").write_text(MANIFEST)
    os.symlink(tmp_path / "pipe.yaml", tmp_path / "link-to-pipe.yaml")
    proc = _ctxlint(["check", "."], tmp_path)  # a blocked read would hit the timeout
    assert proc.returncode == 0 and proc.stdout == b""
    assert proc.stderr.decode() == "ctxlint: no findings in 1 file, 1 deployment\n"


def test_named_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    proc = _ctxlint(["check", "pipe.yaml"], tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.decode() == ("pipe.yaml:1:1: CTX001 [error] cannot read pipe.yaml: not a regular file "
                                    "(parse-error)\n")


@pytest.mark.parametrize("stdin", ["closed", "empty", "devnull"])
def test_stdin_closed_or_empty(tmp_path, stdin):
    if stdin == "closed":
        proc = subprocess.run(f'"{sys.executable}" -m ctxlint check - <&-', shell=True, cwd=tmp_path,
                              capture_output=True, timeout=30)
    else:
        proc = _ctxlint(["check", "-"], tmp_path, **({"input": b""} if stdin == "empty"
                                                     else {"stdin": subprocess.DEVNULL}))
    assert b"Traceback" not in proc.stderr
    assert proc.returncode == 0 and proc.stdout == b""
    assert proc.stderr == b"ctxlint: no findings in 1 file, 0 deployments\n"


def test_stdin_with_a_bad_document_is_not_a_silent_pass(tmp_path):
    proc = _ctxlint(["check", "-", "--stdin-filename", "deploy.yaml"], tmp_path, input=b"a: [1\n")
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("deploy.yaml:2:1: CTX001 [error] invalid YAML")
