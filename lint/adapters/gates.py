"""Gates: which of the adapters that read any kind of file can find anything in one, from its outline.

Eight adapters (ctxlint's manifests, Kubernetes workloads, the pod-template fallback, Helm values, the gateway
readers) once ran on every file, each refusing most files only after its own walk of the objects: ~5% of a
warm run's bytecodes on files where they found nothing, and an AdaptResult each (issue 15, twenty-second pass).
`kinds.selected` now reads a file's outline once and calls each only where its gate holds.
"""
from __future__ import annotations

from typing import Any, Dict, List, Set, Tuple

from ctxlint.adapters.crd_common import objects, scalar
from ctxlint.nodes import MAP

# Adapters that once ran on every file, each refusing most files only after its own walk of the objects (~5% of a
# run's bytecodes on files where they found nothing, an AdaptResult each): what each needs to find anything, as a
# test of the file's outline (below), worked out once a file. Each is a necessary condition read off the adapter's
# adapt(); tests/adapters/test_adapter_gates.py calls every adapter a gate refuses, on every sample, test and corpus
# file and on generated ones, and checks it finds nothing.
K8S_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "Pod", "CronJob",
                       "LeaderWorkerSet"})  # kubernetes.matches: POD_SPEC_PATHS and LWS
ROUTER_KINDS = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"})  # gw_routers.WORKLOADS
GATEWAY_KINDS = frozenset({"Service", "InferencePool", "InferenceModel", "AIGatewayRoute", "AIServiceBackend",
                           "Backend", "LLMInferenceService", "ClientTrafficPolicy"})  # gw_k8s.adapt's branches
CATALOG_KINDS = frozenset({"KongPlugin", "Ingress", "Service"})  # gw_catalogs.adapt's objects
NATIVE_KIND, NATIVE_API = "ModelDeployment", "ctxlint/"  # native.KIND, native.API_GROUP (native.matches)


class Outline:
    """What the gates read of a file: the `kind` of every object (crd_common.objects: documents and `kind: *List`
    items) and of every document; the top-level keys of its mapping documents; whether it is one mapping; whether
    an object has a kind and API group no adapter reads (pod_templates.handled); whether a document is ctxlint's own
    (native.matches: its API group, or its kind)."""
    __slots__ = ("kinds", "pairs", "root_kinds", "keys", "one_map", "labelled", "foreign", "ours")

    def __init__(self, loaded) -> None:
        kinds: Set[Any] = set()
        pairs: Set[Tuple[str, str]] = set()  # (API group, kind) of the objects with both: kinds.present
        foreign = False
        for obj in objects(loaded):
            kind = scalar(obj.get("kind"))
            if isinstance(kind, str):
                kinds.add(kind)
                api = scalar(obj.get("apiVersion"))
                if isinstance(api, str):
                    pairs.add((api.split("/")[0], kind))
                    foreign = foreign or _foreign(api, kind)
        keys: Set[Any] = set()
        root_kinds: Set[Any] = set()
        ours, labelled = False, True
        for doc in loaded.documents:
            root = doc.root
            if root.kind == MAP:
                value = root.value
                keys.update(value)
                # kinds._labelled: a document with both keys (or no mapping), which no unlabelled shape matches
                labelled = labelled and "apiVersion" in value and "kind" in value
                kind, api = scalar(value.get("kind")), scalar(value.get("apiVersion"))
                if isinstance(kind, str):
                    root_kinds.add(kind)
                ours = ours or kind == NATIVE_KIND or isinstance(api, str) and api.startswith(NATIVE_API)
        self.kinds, self.pairs, self.root_kinds, self.keys = kinds, pairs, root_kinds, keys
        self.foreign, self.ours, self.labelled = foreign, ours, labelled
        self.one_map = len(loaded.documents) == 1 and loaded.documents[0].root.kind == MAP


_FOREIGN: Dict[Tuple[str, str], bool] = {}
_HANDLED: List[Dict[str, Tuple[str, ...]]] = []  # kinds.handled_kinds(), worked out at the first object with both


def _foreign(api: str, kind: str) -> bool:
    """An object pod_templates reads (pod_templates.handled refuses it): of no built-in kind kubernetes reads, of an
    API group that is not the core one, and of no (group, kind) another adapter reads. The table is pod_templates'
    own HANDLED, built by kinds.handled_kinds: read from there, a file with no foreign object (a native manifest)
    never imports pod_templates and the Kubernetes adapter behind it (~4 ms of a one-file run, issue 15)."""
    found = _FOREIGN.get((api, kind))
    if found is None:
        if not _HANDLED:
            from ctxlint.adapters.kinds import handled_kinds  # kinds imports this module

            _HANDLED.append(handled_kinds())
        group = api.split("/")[0] if "/" in api else ""
        found = not (kind in K8S_KINDS or group == "" or any(
            group.endswith(g) and kind in kinds for g, kinds in _HANDLED[0].items()))
        if len(_FOREIGN) < 4096:  # a file of made-up kinds must not grow it without bound
            _FOREIGN[(api, kind)] = found
    return found


GATES: Dict[str, Any] = {
    "native": lambda o: o.ours,
    "kubernetes": lambda o: not o.kinds.isdisjoint(K8S_KINDS),
    "pod_templates": lambda o: o.foreign,
    # its objects' containers, or a Compose-like file's `services` (one document)
    "gw_routers": lambda o: not o.kinds.isdisjoint(ROUTER_KINDS) or o.one_map and "services" in o.keys,
    # a semantic router's `routing`, Kong's objects
    "gw_catalogs": lambda o: "routing" in o.keys or not o.kinds.isdisjoint(CATALOG_KINDS),
    # a config's `model_list`, the Helm chart's `proxy_config`, a ConfigMap's `data`
    "gw_litellm": lambda o: "model_list" in o.keys or "proxy_config" in o.keys
    or "data" in o.keys and "ConfigMap" in o.root_kinds,
    "gw_k8s": lambda o: not o.kinds.isdisjoint(GATEWAY_KINDS),
    # one mapping that is no Kubernetes object (helm_values.adapt's own test)
    "helm_values": lambda o: o.one_map and not ("apiVersion" in o.keys and "kind" in o.keys),
}
