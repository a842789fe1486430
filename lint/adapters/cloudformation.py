"""SageMaker real-time endpoints in CloudFormation templates (YAML with `!Ref`/`!Sub` tags, or JSON such as CDK's
synthesized `cdk.out/*.template.json`).

Resource types as the CloudFormation resource reference (AWS::SageMaker::*) and the CDK's generated bindings
state them (aws/aws-cdk-go, awscdk/awssagemaker/CfnModel*.go, CfnEndpointConfig*.go, CfnInferenceComponent*.go):

- `AWS::SageMaker::Model`: `PrimaryContainer`, or `Containers` (a list), each with `Image`, `Environment` (a map
  of strings) and the weights in `ModelDataUrl` or `ModelDataSource.S3DataSource.S3Uri`. The container runs its
  image's entrypoint (no command field exists), so it is read as a container without `command` would be: the LMI
  and TGI DLC images by the env their entrypoints read (lmi_env.py, sagemaker_env.py), the engine's release from
  the image's tag.
- `AWS::SageMaker::EndpointConfig`: each of `ProductionVariants` (and of `ShadowProductionVariants`, the same
  shape: aws/aws-cdk-go@12577f61a2163fd7aa6063ee7f34c0faedcc9708:awscdk/awssagemaker/CfnEndpointConfigProps.go) runs the model its `ModelName` names (`!GetAtt
  M.ModelName`, `!Ref M`, or the model's literal `ModelName`) on `InitialInstanceCount` instances of
  `InstanceType` (an `ml.<EC2 type>`: its GPUs are the EC2 type's, instance_types.AWS_GPUS): one deployment per
  variant, every instance one replica of the container with all the instance's GPUs.
- `AWS::SageMaker::InferenceComponent`: `Specification.ModelName` or `Specification.Container` run
  `RuntimeConfig.CopyCount` copies, each on `ComputeResourceRequirements.NumberOfAcceleratorDevicesRequired` GPUs of
  the instance type of the variant (`VariantName`) of the endpoint (`EndpointName`) it is placed on.

A model no variant or inference component of the template names is read without a device (CTX208 says so).
Values are resolved by cfn_values.py: a Parameter's Default is taken and said to be (a deploy may override it),
anything known only at deploy time is unknown (CTX008), at the place it is written.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.cfn_values import Resolved, Template
from ctxlint.adapters.hardware import canonical_type
from ctxlint.adapters.instance_types import AWS_GPUS
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import UNRESOLVED, Container, EngineRole, Workload, read_container
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.adapters.workload_inputs import EnvVar
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

from ..records import replace

NAME = "cloudformation"
MODEL, CONFIG = "AWS::SageMaker::Model", "AWS::SageMaker::EndpointConfig"
ENDPOINT, COMPONENT = "AWS::SageMaker::Endpoint", "AWS::SageMaker::InferenceComponent"
# env an LLM serving image reads (LMI's OPTION_*, the DLCs' HF_MODEL_ID and SM_NUM_GPUS): a container with one of
# them whose image is not known is said unread, a scikit-learn model's is not
_LLM_ENV = ("HF_MODEL_ID", "SM_NUM_GPUS", "OPTION_ROLLING_BATCH", "OPTION_MAX_MODEL_LEN", "OPTION_MODEL_ID")


class _Place:
    """Where a model runs: the devices of one copy, the copies, and what of them is not known."""
    __slots__ = ("label", "device", "count", "replicas", "unknown")

    def __init__(self, label: str) -> None:
        self.label = label
        self.device: Optional[Val[str]] = None
        self.count: Optional[Val[int]] = None
        self.replicas: Optional[Val[int]] = None
        self.unknown: List[Tuple[str, Source]] = []


class _Reader:
    def __init__(self, loaded: LoadedFile, root: Node, result: AdaptResult) -> None:
        self.file, self.t, self.result = loaded.path, Template(root), result
        self.spans = ScalarSpans(loaded.path, loaded.text)
        self.defaults: Dict[str, Node] = {}  # the Parameters whose Defaults a workload's values took
        self._by_type: Dict[str, List[Tuple[str, Node]]] = {}  # _of's answers: each variant looks models up by name

    def value(self, node: Node, keep_unknown: bool = False) -> Resolved:
        found = self.t.resolve(node, keep_unknown)
        for name, at in found.defaults:
            self.defaults.setdefault(name, at)
        return found

    def workloads(self) -> List[Workload]:
        t, out, placed = self.t, [], set()
        for config_id, config in self._of(CONFIG):
            # a shadow variant (ShadowProductionVariants: the same ProductionVariant shape) runs its model as well
            for variant in _items(config.get("Properties"), "ProductionVariants") + _items(
                    config.get("Properties"), "ShadowProductionVariants"):
                model_id = self._model_of(variant.get("ModelName"))
                if model_id is None:
                    continue
                placed.add(model_id)
                self.defaults = {}
                name = _text(variant.get("VariantName")) or "variant"
                place = self._instances(variant, f"{config_id}/{name}")
                out += self._workload(model_id, t.resources[model_id], None, place, variant)
        for ic_id, ic in self._of(COMPONENT):
            spec = _get(ic.get("Properties"), "Specification")
            if spec is None:
                continue
            model_id = self._model_of(spec.get("ModelName"))
            placed.update([model_id] if model_id else [])
            own = spec.get("Container")
            if model_id is None and (own is None or own.kind != MAP):
                continue
            self.defaults = {}
            place = self._component(ic_id, ic.get("Properties"), spec)
            model = t.resources[model_id] if model_id is not None else ic
            out += self._workload(model_id or ic_id, model, own if model_id is None else None, place, ic)
        for model_id, model in self._of(MODEL):
            if model_id not in placed:
                self.defaults = {}
                place = _Place(model_id)
                place.unknown.append(("the instance type (no EndpointConfig or InferenceComponent of this template "
                                      "runs the model: the endpoint is made elsewhere)", self._named(model_id, model)))
                out += self._workload(model_id, model, None, place, model)
        return out

    def _named(self, resource_id: str, node: Node) -> Source:
        """Where a resource is named (its logical id's key), else where it is."""
        resources = self.t.root.get("Resources")
        key = resources.keys.get(resource_id) if resources is not None and resources.kind == MAP else None
        return (key or node).source(self.file)

    def _of(self, kind: str) -> List[Tuple[str, Node]]:
        if not self._by_type:
            for k, v in self.t.resources.items():
                if v.kind == MAP:
                    self._by_type.setdefault(self.t.resource_type(k) or "", []).append((k, v))
        return self._by_type.get(kind, [])

    def _model_of(self, node: Optional[Node]) -> Optional[str]:
        """The Model resource a ModelName names: by Ref or GetAtt, or by the model's own literal ModelName."""
        return self._resource_of(node, MODEL, "ModelName")

    def _resource_of(self, node: Optional[Node], kind: str, name_key: str) -> Optional[str]:
        """The resource of type `kind` a value names: by Ref or GetAtt, or by the resource's `name_key` written the
        same (a literal, or the same `!Sub`)."""
        target = self.t.target(node)
        if target is not None:
            return target if self.t.resource_type(target) == kind else None
        text = self._name(node)
        return next((k for k, m in self._of(kind) if self._name(_get(m.get("Properties"), name_key)) == text), None) \
            if text else None

    def _name(self, node: Optional[Node]) -> Optional[str]:
        """A resource's name as written: a literal, or a `!Sub '${AWS::StackName}-model'` with what is known only
        at deploy time kept as written (the same expression names the same resource)."""
        if node is None:
            return None
        found = self.t.resolve(node, keep_unknown=True)
        return found.text.strip() or None if found.text is not None else None

    def _instances(self, variant: Node, label: str) -> _Place:
        place = _Place(label)
        kind = variant.get("InstanceType")
        if kind is None:
            at = variant.source(self.file)
            why = "a serverless variant (ServerlessConfig) runs on no GPU" if variant.get("ServerlessConfig") \
                is not None else "the variant names no InstanceType"
            place.unknown.append((f"the device ({why})", at))
        else:
            self._device(place, kind)
        count = variant.get("InitialInstanceCount")
        if count is not None:
            place.replicas = self._int(count, "InitialInstanceCount", place)
        return place

    def _device(self, place: _Place, node: Node) -> Optional[str]:
        found = self.value(node)
        if found.text is None:
            place.unknown.append((f"the instance type ({found.why})", found.node.source(self.file)))
            return None
        text, at = found.text.strip(), found.node.source(self.file)
        size = text[3:].lower() if text.lower().startswith("ml.") else None
        device = canonical_type(text) if size is not None else None
        if device is None or device[0] == text:
            place.unknown.append((f"the device (instance type {text}: ctxlint knows no GPU of it)", at))
            return None
        place.device = Val(device[0], at, raw=text)
        if size in AWS_GPUS:
            place.count = Val(AWS_GPUS[size], at, raw=f"{text} ({AWS_GPUS[size]} GPUs)")
        else:
            place.unknown.append((f"the GPUs of instance type {text} (not in ctxlint's table of AWS sizes)", at))
        return text

    def _int(self, node: Node, what: str, place: _Place) -> Optional[Val[int]]:
        found = self.value(node)
        text = found.text.strip() if found.text is not None else None
        if text is None or not text.isdigit():
            place.unknown.append((f"{what} ({found.why or f'`{text}` is no whole number'})",
                                  found.node.source(self.file)))
            return None
        return Val(int(text), found.node.source(self.file), raw=text)

    def _component(self, ic_id: str, props: Node, spec: Node) -> _Place:
        """An inference component's copies and devices, on its endpoint's variant's instance type."""
        place = _Place(ic_id)
        need = _get(spec.get("ComputeResourceRequirements"), "NumberOfAcceleratorDevicesRequired")
        if need is not None:
            place.count = self._int(need, "NumberOfAcceleratorDevicesRequired", place)
        copies = _get(props.get("RuntimeConfig"), "CopyCount")
        if copies is not None:
            place.replicas = self._int(copies, "RuntimeConfig.CopyCount", place)
        variant = self._component_variant(props)
        if variant is None:
            place.unknown.append(("the instance type (the endpoint the component is placed on is not made by this "
                                  "template, or its variant is not found)", props.source(self.file)))
        elif variant.get("InstanceType") is not None:
            count = place.count
            self._device(place, variant.get("InstanceType"))
            place.count = count  # the component's own devices, not the instance's
        return place

    def _component_variant(self, props: Node) -> Optional[Node]:
        endpoint = self._resource_of(props.get("EndpointName"), ENDPOINT, "EndpointName")
        if endpoint is None:
            return None
        config = self._resource_of(_get(self.t.resources[endpoint].get("Properties"), "EndpointConfigName"), CONFIG,
                                   "EndpointConfigName")
        if config is None:
            return None
        variants = _items(self.t.resources[config].get("Properties"), "ProductionVariants")
        wanted = _text(props.get("VariantName"))
        named = [v for v in variants if wanted is not None and _text(v.get("VariantName")) == wanted]
        return named[0] if named else variants[0] if len(variants) == 1 else None

    def _workload(self, model_id: str, model: Node, own: Optional[Node], place: _Place, at: Node) -> List[Workload]:
        props = model.get("Properties") if own is None else None
        containers = [own] if own is not None else [props.get("PrimaryContainer")] if _get(props, "PrimaryContainer") \
            is not None else _items(props, "Containers")
        roles: List[EngineRole] = []
        for container in containers:
            if container is not None and container.kind == MAP:
                roles += self._roles(model_id, container, place)
        if not roles:
            return []
        if self.defaults:
            listed = ", ".join(f"{name}={_text(node)}" for name, node in self.defaults.items())
            first = next(iter(self.defaults.values()))
            self.result.diagnostics.append(Diagnostic(UNRESOLVED, (
                f"read with the Parameters' Defaults ({listed}): a deploy that passes other values "
                "(--parameter-overrides) runs those instead, which these checks do not see"),
                first.source(self.file), place.label))
        name = Val(place.label, at.source(self.file))
        return [Workload(name=name, source=self._named(model_id, model), input_format=NAME, roles=roles,
                         replicas=place.replicas)]

    def _roles(self, model_id: str, container: Node, place: _Place) -> List[EngineRole]:
        image_node = container.get("Image")
        image: Optional[Resolved] = self.value(image_node, keep_unknown=True) if image_node is not None else None
        env = [self._env(k, v) for k, v in (container.get("Environment").value.items() if _get(
            container, "Environment") is not None and container.get("Environment").kind == MAP else ())
            if isinstance(k, str)]
        text = image.text.strip() if image is not None and image.text else None
        if text is not None and "${" in text.rsplit("/", 1)[-1]:  # the repository or tag is not known
            text = None
        if text is None:
            if any(v.name in _LLM_ENV for v in env):
                why = image.why if image is not None else "the container names no Image"
                self.result.diagnostics.append(Diagnostic(UNRESOLVED, (
                    f"the image is not known ({why}), so the engine it runs is not: nothing of this container is "
                    "checked"), (image.node if image is not None else container).source(self.file), place.label))
            return []
        reading = read_container(Container(
            spans=self.spans, node=container, name=model_id, image=image.node, image_text=text, env=env,
            args_only=True, accelerator_count=place.count, accelerator_type=place.device))
        self.result.diagnostics.extend(reading.diagnostics)
        data = self._weights(container)
        return [replace(r, unresolved=place.unknown + r.unresolved + (
            [data] if data is not None and r.model is None else [])) for r in reading.roles]

    def _env(self, name: str, node: Node) -> EnvVar:
        found = self.value(node)
        return EnvVar(name, found.text, found.node, None if found.text is not None else
                      f"Environment {name}: {found.why}")

    def _weights(self, container: Node) -> Optional[Tuple[str, Source]]:
        """The model's weights when the env names no model: the S3 location, which ctxlint does not read."""
        node = container.get("ModelDataUrl")
        source = _get(container.get("ModelDataSource"), "S3DataSource")
        node = node if node is not None else _get(source, "S3Uri")
        if node is None:
            return None
        found = self.value(node)
        where = found.text if found.text is not None else "a location known at deploy time"
        return (f"the model (the weights in {where}, which ctxlint does not read)", found.node.source(self.file))


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    from ctxlint.adapters.kinds import cloudformation_template

    for doc in loaded.documents:
        if cloudformation_template(doc.root):
            result.extend(deployments_from(loaded.path, _Reader(loaded, doc.root, result).workloads()))
    return result


def _get(node: Optional[Node], key: str) -> Optional[Node]:
    return node.get(key) if node is not None and node.kind == MAP else None


def _items(node: Optional[Node], key: str) -> List[Node]:
    found = _get(node, key)
    return [n for n in found.value if n.kind == MAP] if found is not None and found.kind == SEQ else []


def _text(node: Optional[Node]) -> Optional[str]:
    if node is None or node.kind != SCALAR or node.value is None or isinstance(node.value, bool):
        return None
    return node.value if isinstance(node.value, str) and not (node.tag or "").startswith("!") else \
        str(node.value) if not isinstance(node.value, str) else None
