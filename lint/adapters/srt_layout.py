"""Where an srt-slurm recipe puts its workers: the roles it runs, how many workers each, GPUs per worker.

srtctl (NVIDIA/srt-slurm, read at c88ef731636890ff6385a783e152c1790e15b194) has two spellings of one layout:

* schema 1 (src/srtctl/core/schema.py ResourceConfig): `resources.{prefill,decode,agg}_nodes`,
  `..._workers` and `gpus_per_{prefill,decode,agg}`, `resources.gpus_per_node` (default 4);
* schema 2 (SemiAnalysisAI/srt-slurm@a2b7ebc3a442da93901b6b3291e3fcc6c6199ac0:src/srtctl/core/roles.py
  expand_roles): `roles.{prefill,decode,agg}.{nodes,workers,gpus}`, which srtctl writes back into the
  schema-1 fields before it loads the recipe (`decode.nodes: colocate` is schema 1's `decode_nodes: 0`).

A recipe is disaggregated when it states prefill or decode nodes (ResourceConfig.is_disaggregated): it runs
prefill and decode workers, else aggregated ones; a role whose workers are absent, null or 0 runs none and is
no role here. GPUs per worker are as ResourceConfig.gpus_per_prefill (and
its siblings) compute them: the explicit count, else nodes x gpus_per_node // workers, else (decode on the
prefill nodes) the prefill workers' count, else gpus_per_node. A count that needs gpus_per_node when the recipe
does not state it is left unknown: srtctl's docs say the cluster's srtslurm.yaml may set it.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, Node

from ..records import record

MODES = (("prefill", "prefill"), ("decode", "decode"), ("agg", "aggregated"))  # role -> its config/env key
COLOCATE = "colocate"  # roles.decode.nodes: share the prefill nodes (roles.py COLOCATE)


@record(frozen=True)
class RoleLayout:
    role: str  # prefill | decode | agg
    mode: str  # prefill | decode | aggregated: its key in backend.<engine>_config and *_environment
    workers: Optional[Val[int]]
    gpus: Optional[Val[int]]  # GPUs per worker
    source: Source  # where the role is declared


def srt_int(node: Optional[Node]) -> Tuple[Optional[int], Optional[str]]:
    """(the count srtctl reads, why srtctl refuses it) for one of ResourceConfig's `int` fields.

    srtctl loads a recipe with marshmallow_dataclass (NVIDIA/srt-slurm@c88ef731:src/srtctl/core/schema.py
    ResourceConfig, `int | None` and `fields.Integer(data_key="gpus_per_prefill", ...)`), which maps `int` to
    marshmallow's fields.Integer, not strict (lovasoa/marshmallow_dataclass@696d8f6:marshmallow_dataclass/
    __init__.py _field_for_schema; marshmallow 3.26.2 and 4.3.1 fields.py Integer/Number._validated): a bool is
    refused, anything else is `int(value)`, so `"0"` is 0, `" 2 "` 2 and `2.9` 2, while `"2.0"`, `"two"` and
    `.nan` are refused ("Not a valid integer.") and load_config raises before anything runs. A string holding
    a `{name}` is a sweep's, replaced before the schema reads it (core/sweep.py): not known, not refused."""
    if node is None:
        return None, None
    if node.kind != SCALAR:
        return None, "Not a valid integer."
    value = node.value
    if value is None:
        return None, None
    if isinstance(value, bool):
        return None, "Not a valid integer."
    if isinstance(value, str) and "{" in value:
        return None, None
    if isinstance(value, (str, int, float)):
        try:
            return int(value), None
        except (ValueError, OverflowError):
            pass
    return None, "Not a valid integer."


def _none(node: Optional[Node]) -> bool:
    """Workers absent, null or 0 (or fewer): srtctl runs no worker of the role (core/schema.py
    ResourceConfig.num_prefill... are `prefill_workers or 0`, and core/topology.py allocate_endpoints allocates
    a role only `if num_prefill > 0`); its preflight (core/validation.py validate_topology) only warns of such a
    block. A count written as a string is read as srtctl reads it (srt_int): `"0"` is 0."""
    if node is None or node.kind == SCALAR and node.value is None:
        return True
    count, refused = srt_int(node)
    return refused is None and count is not None and count <= 0


def _count(node: Optional[Node]) -> Optional[int]:
    count, _ = srt_int(node)
    return count if count is not None and count >= 0 else None


class _Fields:
    """The per-role fields of either schema, as (node) lookups."""

    def __init__(self, root: Node) -> None:
        res, roles = root.get("resources"), root.get("roles")
        self.res = res if res is not None and res.kind == MAP else None
        self.roles = roles if roles is not None and roles.kind == MAP else None
        self.per_node = self.res.get("gpus_per_node") if self.res is not None else None

    def spec(self, role: str) -> Optional[Node]:
        spec = self.roles.get(role) if self.roles is not None else None
        return spec if spec is not None and spec.kind == MAP else None

    def get(self, role: str, what: str) -> Optional[Node]:
        """what: nodes | workers | gpus."""
        spec = self.spec(role)
        if spec is not None and spec.get(what) is not None:
            return spec.get(what)
        key = f"gpus_per_{role}" if what == "gpus" else f"{role}_{what}"
        return self.res.get(key) if self.res is not None else None

    def nodes(self, role: str) -> Tuple[Optional[int], bool]:
        """(nodes, stated): `colocate` is 0 nodes."""
        node = self.get(role, "nodes")
        if node is None or node.kind == SCALAR and node.value is None:
            return None, False  # `prefill_nodes: null` is ResourceConfig's None: not disaggregated by it
        if node.kind == SCALAR and isinstance(node.value, str) and node.value.strip().lower() == COLOCATE:
            return 0, True
        return _count(node), True


def layouts(root: Node, file: str) -> List[RoleLayout]:
    """The roles the recipe runs, each with its workers and GPUs per worker (None where not known)."""
    f = _Fields(root)
    disaggregated = f.nodes("prefill")[1] or f.nodes("decode")[1]
    wanted = ("prefill", "decode") if disaggregated else ("agg",)
    out: List[RoleLayout] = []
    gpus_of = {}
    for role, mode in MODES:
        if role not in wanted:
            continue
        workers_node = f.get(role, "workers")
        if _none(workers_node):
            continue  # ResourceConfig.num_<role> is `<role>_workers or 0`: allocate_endpoints starts none
        count = _count(workers_node)
        workers = Val(count, workers_node.source(file)) if count else None  # `{n}` of a sweep, or no count
        gpus = _gpus(f, role, count, file, gpus_of.get("prefill"))
        gpus_of[role] = gpus
        declared = next((n for n in (f.spec(role), workers_node, f.get(role, "nodes")) if n is not None), root)
        out.append(RoleLayout(role, mode, workers, gpus, declared.source(file)))
    return out


def _gpus(f: _Fields, role: str, workers: Optional[int], file: str,
          prefill: Optional[Val[int]]) -> Optional[Val[int]]:
    explicit = f.get(role, "gpus")
    if explicit is not None:
        n = _count(explicit)
        return Val(n, explicit.source(file)) if n else None
    nodes, _ = f.nodes(role)
    per_node = _count(f.per_node)
    if nodes and workers:
        if not per_node:
            return None
        node = f.get(role, "nodes")
        return Val(nodes * per_node // workers, node.source(file),
                   raw=f"{role} nodes {nodes} x gpus_per_node {per_node} / {workers} workers")
    if role == "decode" and nodes == 0 and workers:
        return prefill  # ResourceConfig.gpus_per_decode: decode on the prefill nodes takes the prefill size
    return Val(per_node, f.per_node.source(file), raw="gpus_per_node") if per_node else None


_INT_FIELDS = ("gpus_per_node",) + tuple(f"{role}_{what}" for role, _ in MODES for what in ("nodes", "workers")) \
    + tuple(f"gpus_per_{role}" for role, _ in MODES)


def refused_count(root: Node, file: str) -> Optional[Tuple[str, Source]]:
    """(why, where) for the first count srtctl's schema refuses (srt_int), or None: `srtctl apply -f` then
    raises "Invalid config" and submits nothing. Schema 2's `roles.<role>.{nodes,workers,gpus}` are written into
    these fields before the schema reads them (roles.py expand_roles), `nodes: colocate` as 0."""
    f = _Fields(root)
    found = [(f"resources.{key}", f.res.get(key)) for key in _INT_FIELDS] if f.res is not None else []
    for role, _ in MODES:
        spec = f.spec(role)
        for what in ("nodes", "workers", "gpus") if spec is not None else ():
            node = spec.get(what)
            if not (what == "nodes" and node is not None and node.kind == SCALAR and isinstance(node.value, str)
                    and node.value.strip().lower() == COLOCATE):
                found.append((f"roles.{role}.{what}", node))
    for where, node in found:
        why = srt_int(node)[1] if node is not None else None
        if why is not None:
            shown = node.value if node.kind == SCALAR else "a " + ("mapping" if node.kind == MAP else "list")
            return f"{where} {shown!r}: {why}", node.source(file)
    return None
