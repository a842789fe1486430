"""Engine settings from outside the command line: the reader's half that merges an engine config file the
command names (`--config`, written by the container's own script or held in a ConfigMap) or an operator's
settings section, and reads the engine's own switches set by environment (VLLM_ALLOW_LONG_MAX_MODEL_LEN)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ctxlint.adapters.config_files import written_by_script
from ctxlint.engines import apply_config
from ctxlint.model import Source, Val


class ConfigSettings:
    """Mixed into workload._Reader, which sets what these read: `c` (the Container), `file`, `item_nodes`,
    `item_texts`, and the `config_sources` / `config_missing` these set."""

    c: Any
    file: str
    item_nodes: List[Any]
    item_texts: List[str]
    config_sources: Dict[str, Source]
    config_missing: Optional[str]
    token_source: Any  # workload_positions.Positions.token_source

    def with_config(self, inv):
        if inv.config_file is None and self.c.settings is not None:
            data, sources, label = self.c.settings
            self.config_sources = dict(sources)
            # an adapter's settings (KubeRay engine_kwargs, KAITO's ConfigMap and its own `max-model-len: auto`)
            # reach the engine through that adapter's runner, not the release's CLI reading (int_eras.py)
            return apply_config(inv, data, label, by_release=False)
        path = inv.config_file.value if inv.config_file is not None else None
        if inv.config_file is not None and path is None and inv.config_file.raw_text:
            # `--config "$CFG"` (a variable nothing sets, a Secret's): a file ctxlint cannot name, whose settings
            # are as unknown as a missing file's (the checks that would judge by the defaults it may override wait)
            self.config_missing = inv.config_file.raw_text
            return inv
        if not isinstance(path, str) or not path:
            return inv
        found = written_by_script(self.c.spans, self.item_nodes, self.item_texts, path)
        if found is None and self.c.config_reader is None:
            return inv
        found = found or self.c.config_reader(path)
        if found is None:
            self.config_missing = path
            return inv
        self.config_sources = dict(found[1])
        return apply_config(inv, found[0], path)

    def engine_env_args(self, inv, assigns) -> Tuple[Tuple[str, Val[str]], ...]:
        """The engine's own switches set by environment (VLLM_ALLOW_LONG_MAX_MODEL_LEN, ...), under
        their variable names, at the env value (or the `NAME=value` word before the command)."""
        nodes = {var.name: var.node for var in self.c.env if var.node is not None}
        out = []
        for name, value in inv.engine_env.items():
            if name in assigns:
                token = assigns[name].token
                source = self.token_source(token)
            elif name in nodes:
                source = nodes[name].source(self.file)
            else:
                continue
            out.append((name, Val(value, source, raw=value)))
        return tuple(out)
