"""The native manifest: `apiVersion: ctxlint/v1`, `kind: ModelDeployment`.

Validates each document against the shipped JSON Schema, then builds the
normalized model from whatever values have the right type (so one bad field does
not hide the capacity findings of the rest).
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.engine_args import rejected_values
from ctxlint.findings import Diagnostic
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile
from ctxlint.model import (DECODE, PREFILL, UNIFIED, Accelerators, Advertised, Deployment, Engine,
                           Gateway, ModelFacts, Parallelism, Role, Val)
from ctxlint.nodes import MAP, SCALAR, SEQ, Node
from ctxlint.records import replace
from ctxlint.schema import SCHEMA_VIOLATION, validate
from ctxlint.tokens import TokenCountError, parse_token_count

NAME = "native"
API_GROUP = "ctxlint/"
KIND = "ModelDeployment"
SCHEMA = "manifest.schema.json"
INVALID_TOKEN_COUNT = "invalid-token-count"


def matches(root: Node) -> bool:
    """A document is ours when it claims our API group, or our kind without another project's API group
    (so a manifest with a mistyped or missing apiVersion still gets its schema errors): Kubernetes API
    groups are DNS names, and `airunway.ai/v1alpha1` `kind: ModelDeployment` is KubeAIRunway's."""
    if root.kind != MAP:
        return False
    api, kind = _scalar(root.get("apiVersion")), _scalar(root.get("kind"))
    if isinstance(api, str) and api.startswith(API_GROUP):
        return True
    group = api.split("/", 1)[0] if isinstance(api, str) and "/" in api else ""
    return kind == KIND and ("." not in group or group.startswith("ctxlint"))  # ctxlint.io/v1: a typo of ours


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    for doc in loaded.documents:
        if matches(doc.root):
            _Reader(loaded.path, doc.root, result, loaded.text).read()
    return result


def _scalar(node: Optional[Node]) -> Any:
    return node.value if node is not None and node.kind == SCALAR else None


class _Reader:
    def __init__(self, file: str, root: Node, result: AdaptResult, text: str = "") -> None:
        self.file, self.root, self.result, self.text = file, root, result, text
        self.name = _scalar(root.dig("metadata", "name"))
        self.name = self.name if isinstance(self.name, str) else None

    def diag(self, kind: str, message: str, node: Node) -> None:
        self.result.diagnostics.append(Diagnostic(kind, message, node.source(self.file), self.name))

    def read(self) -> None:
        for diag in validate(self.root, SCHEMA, self.file):
            self.result.diagnostics.append(Diagnostic(diag.kind, diag.message, diag.source, self.name))
        spec = self.root.get("spec")
        if spec is None or spec.kind != MAP:
            return  # the schema already said so
        model = spec.get("model")
        advertised, gateway, engine = spec.get("advertised"), spec.get("gateway"), spec.get("engine")
        serving = spec.get("serving")
        disaggregation = self.val(serving, "disaggregation", str)
        roles = self.roles(serving, disaggregation)
        engine_name = self.val(engine, "name", str)
        self.result.diagnostics.extend(rejected_values(engine_name, roles, self.name))
        self.result.deployments.append(Deployment(
            file=self.file,
            source=self.root.source(self.file),
            input_format=NAME,
            name=self.val(self.root.get("metadata"), "name", str),
            model=ModelFacts(id=self.val(model, "id", str),
                             max_position_embeddings=self.tokens(model, "max_position_embeddings"),
                             rope_scaling_factor=self.val(model, "rope_scaling_factor", (int, float)),
                             config_path=self.val(model, "config", str),
                             architecture=self.mapping(model.get("architecture") if model is not None else None)),
            advertised=Advertised(context_window=self.tokens(advertised, "context_window"),
                                  max_output_tokens=self.tokens(advertised, "max_output_tokens")),
            gateway=Gateway(max_prompt_tokens=self.tokens(gateway, "max_prompt_tokens")),
            engine=Engine(name=engine_name, version=self.val(engine, "version", (str, int, float))),
            disaggregation=disaggregation,
            roles=roles,
            labels=self.labels(),
            custom_accelerators=tuple((k, v.plain()) for k, v in _items(spec.get("custom_accelerators"))
                                      if v.kind == MAP),
        ))

    def mapping(self, node: Optional[Node]) -> tuple:
        """A free-form mapping as (key, Val) pairs; lists are kept as plain lists."""
        return tuple((str(k), Val(v.plain(), v.source(self.file))) for k, v in _items(node)
                     if v.kind in (SCALAR, SEQ))

    def val(self, parent: Optional[Node], key: str, types, convert: Callable[[Any], Any] = lambda v: v) -> Optional[Val]:
        node = parent.get(key) if parent is not None else None
        if node is None or node.kind != SCALAR or isinstance(node.value, bool) or not isinstance(node.value, types):
            return None
        value = convert(node.value)
        return Val(value, node.source(self.file), raw=str(node.value))

    def tokens(self, parent: Optional[Node], key: str) -> Optional[Val[int]]:
        node = parent.get(key) if parent is not None else None
        if node is None or node.kind != SCALAR or not isinstance(node.value, (str, int, float)) \
                or isinstance(node.value, bool):
            return None  # wrong types are the schema's to report
        try:
            _refuse_yaml11_integer(self.text[node.start_index:node.end_index], node)
            count = parse_token_count(node.value)
        except TokenCountError as exc:
            self.diag(INVALID_TOKEN_COUNT, f"{node.path}: {exc}", node)
            return None
        return Val(count, node.source(self.file), raw=str(node.value))

    def roles(self, serving: Optional[Node], disaggregation: Optional[Val]) -> tuple:
        items = serving.get("roles") if serving is not None else None
        if items is None or items.kind != SEQ:
            return ()
        roles: List[Role] = []
        for item in items.value:
            kind = self.val(item, "role", str)
            if item.kind != MAP or kind is None or kind.value not in (UNIFIED, PREFILL, DECODE):
                continue
            accel, par = item.get("accelerators"), item.get("parallelism")
            roles.append(Role(
                role=kind,
                replicas=self.val(item, "replicas", int),
                context_length=self.tokens(item, "context_length"),
                kv_pool_tokens=self.tokens(item, "kv_pool_tokens"),
                kv_cache_dtype=self.val(item, "kv_cache_dtype", str),
                accelerators=Accelerators(type=self.val(accel, "type", str), count=self.val(accel, "count", int)),
                parallelism=Parallelism(tensor=self.val(par, "tensor", int), pipeline=self.val(par, "pipeline", int),
                                        data=self.val(par, "data", int)),
                source=item.source(self.file),
                engine_args=self.mapping(item.get("engine_args")),
                available_kv_gib=self.val(item, "available_kv_gib", (int, float)),
                draft_layers=self.val(item, "draft_layers", int),
                name=_scalar(item.get("name")) if isinstance(_scalar(item.get("name")), str) else "",
            ))
        self.check_mode(items, disaggregation, roles)
        return tuple(_number_duplicates(roles))

    def check_mode(self, items: Node, disaggregation: Optional[Val], roles: List[Role]) -> None:
        mode = disaggregation.value if disaggregation else "none"
        kinds = {r.kind for r in roles}
        if mode == "none" and kinds & {PREFILL, DECODE}:
            message = ("spec.serving: roles include prefill/decode but disaggregation is "
                       f"{'none' if disaggregation else 'not set (none)'}: set disaggregation: prefill-decode")
        elif mode == "prefill-decode" and not {PREFILL, DECODE} <= kinds:
            missing = " and ".join(k for k in (PREFILL, DECODE) if k not in kinds)
            message = f"spec.serving: disaggregation is prefill-decode but there is no {missing} role"
        elif mode == "prefill-decode" and UNIFIED in kinds:
            message = "spec.serving: a 'unified' role cannot be part of a prefill-decode deployment"
        else:
            return
        where = disaggregation.source if disaggregation else items.source(self.file)
        self.result.diagnostics.append(Diagnostic(SCHEMA_VIOLATION, message, where, self.name))

    def labels(self) -> tuple:
        labels = self.root.dig("metadata", "labels")
        if labels is None or labels.kind != MAP:
            return ()
        return tuple((str(k), str(v.value)) for k, v in labels.value.items() if v.kind == SCALAR)


_PLAIN_DECIMAL = lazy_compile(r"^(0|[1-9][0-9_]*)$")


def _refuse_yaml11_integer(raw: str, node: Node) -> None:
    """YAML 1.1 reads a plain 0755 as octal 493, 1:20 as base-60 80 and 0x10 as 16; in a
    token count these are typos far more often than intent, and the number changes silently."""
    if node.style or not isinstance(node.value, int) or isinstance(node.value, bool) or not raw \
            or node.value <= 0 or _PLAIN_DECIMAL.match(raw.lstrip("+")):
        return  # zero and negatives get parse_token_count's message
    value = node.value
    if ":" in raw:
        raise TokenCountError(f"'{raw}' is the base-60 number {value:,} in YAML 1.1; "
                              f"write {value} if that is what you mean")
    digits = raw.lstrip("+-").replace("_", "")
    if digits[:2].lower() in ("0x", "0b"):
        raise TokenCountError(f"'{raw}' is {value:,} written in base {16 if digits[1] in 'xX' else 2}; "
                              f"write the decimal {value}")
    if digits.startswith("0") and len(digits) > 1:
        raise TokenCountError(f"'{raw}' is the octal number {value:,} in YAML 1.1 (a leading zero); "
                              f"write {digits.lstrip('0') or '0'} for {int(digits.lstrip('0') or '0'):,} tokens, "
                              f"or {value} if you meant octal")


def _items(node: Optional[Node]):
    return node.value.items() if node is not None and node.kind == MAP else ()


def _number_duplicates(roles: List[Role]) -> List[Role]:
    """Give unnamed roles of the same kind distinct labels ('prefill #2')."""
    counts = {}
    for role in roles:
        counts[role.kind] = counts.get(role.kind, 0) + 1
    seen = {}
    out = []
    for role in roles:
        seen[role.kind] = seen.get(role.kind, 0) + 1
        if not role.name and counts[role.kind] > 1:
            role = replace(role, name=f"{role.kind} #{seen[role.kind]}")
        out.append(role)
    return out
