"""Tensor parallelism that does not divide the attention heads, or more GPUs than a replica has.

Why:
    Engines split attention heads evenly across tensor-parallel ranks; vLLM and
    SGLang refuse to start when the head count is not divisible by the TP size.
    And an engine that needs tensor x pipeline x data GPUs cannot start on a
    replica that has fewer. A vLLM pod given `--data-parallel-size-local` runs
    that many of the data-parallel ranks, and one given `--data-parallel-rank`
    (external load balancing) runs that one rank: data counts only those.
    SGLang's DP attention splits the heads over the attention group only: tensor
    parallel size / DP-attention width ranks, not all of the tensor-parallel ones,
    for the models whose code runs attention on that group (DeepSeek-V2/V3, Qwen3,
    Qwen2/3-MoE, GLM-4-MoE, gpt-oss, Llama-4, ...). Llama, Mistral, Qwen2, Mixtral,
    Gemma and the other models whose code splits the heads over every
    tensor-parallel rank are held to the whole tensor parallel size.

Example (bad):
    ```yaml
    model: {id: meta-llama/Llama-3.1-70B-Instruct}    # 64 attention heads
    serving:
      roles:
        - role: unified
          accelerators: {type: H100, count: 4}
          parallelism: {tensor: 6}                    # 64 % 6 != 0, and 6 > 4 GPUs
    ```

Example (good):
    ```yaml
    model: {id: meta-llama/Llama-3.1-70B-Instruct}
    serving:
      roles:
        - role: unified
          accelerators: {type: H100, count: 4}
          parallelism: {tensor: 4}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Tuple

from ctxlint.findings import Problem
from ctxlint.model import Deployment

ID = "CTX204"
NAME = "parallelism-mismatch"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("engine", "model", "roles[].accelerators", "roles[].parallelism", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


# SGLang model classes whose attention splits its heads over the whole tensor-parallel group even with DP
# attention (`assert self.total_num_heads % tp_size == 0`, tp_size the TP world size, not the attention TP): every
# class of sglang/srt/models/*.py that does so in both the 0.5.5.post2 and the 0.5.23 wheel (llama.py, qwen2.py,
# mixtral.py, glm4.py, gemma2.py, gemma3_causal.py, olmoe.py, hunyuan.py, ...; 0.5.23's read
# `get_parallel().tp_size`). DeepSeek-V2/V3, Qwen3 (dense and MoE), Qwen2-MoE, GLM-4-MoE, gpt-oss and Llama-4 split
# them over the attention TP in both (`num_heads % attn_tp_size`); a class that moved between them (MiniMax-M2,
# Nemotron-H: whole TP in 0.5.5.post2, attention TP in 0.5.23; Grok the other way) or that neither names is read as
# the attention TP, so no release is refused for a split it may accept.
_WHOLE_TP_HEADS = frozenset({
    "ApertusForCausalLM", "ArceeForCausalLM", "BaichuanForCausalLM", "ChatGLMModel", "Cohere2ForCausalLM",
    "CohereForCausalLM", "DeepseekForCausalLM", "ExaoneForCausalLM", "Gemma2ForCausalLM", "Gemma3ForCausalLM",
    "Gemma3nForCausalLM", "GemmaForCausalLM", "Glm4ForCausalLM", "GraniteForCausalLM", "GraniteMoeForCausalLM",
    "HunYuanDenseV1ForCausalLM", "HunYuanMoEV1ForCausalLM", "InternLM2ForCausalLM", "InternLM3ForCausalLM",
    "LlamaForCausalLM", "MiniCPM3ForCausalLM", "MiniCPMForCausalLM", "MixtralForCausalLM", "Olmo2ForCausalLM",
    "OlmoeForCausalLM", "Phi3ForCausalLM", "Phi3SmallForCausalLM", "QuantMixtralForCausalLM", "Qwen2ForCausalLM",
    "SolarForCausalLM", "StableLmForCausalLM", "Starcoder2ForCausalLM", "XverseForCausalLM", "XverseMoeForCausalLM",
    "MistralForCausalLM"})  # mistral.py: MistralForCausalLM(LlamaForCausalLM) in both
# The same by config.json model_type, as the catalog keeps it (its entries carry no `architectures`): the HF
# model_type of each class above
_WHOLE_TP_TYPES = frozenset({
    "llama", "mistral", "qwen2", "mixtral", "phi3", "internlm2", "internlm3", "gemma", "gemma2", "gemma3_text",
    "glm4", "chatglm", "olmo2", "olmoe", "granite", "granitemoe", "cohere", "cohere2", "starcoder2", "baichuan",
    "exaone", "deepseek", "minicpm", "minicpm3", "stablelm", "solar", "xverse", "apertus", "arcee"})


def _attention_groups(dep: Deployment, role) -> Tuple[int, str]:
    """SGLang's DP-attention width (0: off) and, when the model's code splits its heads over the whole TP all the
    same, its class. With DP attention each group of tensor parallel size / width ranks holds all the heads of a
    model whose attention runs on the attention TP. sglang-0.5.5.post2 wheel: sglang/srt/layers/dp_attention.py
    compute_dp_attention_world_info (attn_tp_size = tp_size // dp_size with --enable-dp-attention) and
    sglang/srt/models/deepseek_v2.py:1124 (`num_heads % attn_tp_size`); the width as
    physics/reserve_sglang.dp_attention_width reads it (0.5.22's --attn-dp-size too)."""
    if dep.engine.name is None or dep.engine.name.value != "sglang":
        return 0, ""
    from ctxlint.physics.reserve_sglang import dp_attention_width
    width = dp_attention_width({key: val.value for key, val in role.engine_args})
    arch = dep.arch
    whole = next((a for a in (arch.architectures if arch is not None else ()) if a in _WHOLE_TP_HEADS), "") or \
        (f"{arch.model_type} code" if arch is not None and arch.model_type in _WHOLE_TP_TYPES else "")
    return width, whole


def check(dep: Deployment, options) -> Iterator[Problem]:
    for role in dep.roles:
        par = role.parallelism
        tp, used = par.tp, par.gpus
        heads = dep.arch.num_attention_heads if dep.arch is not None else None
        width, whole = _attention_groups(dep, role)
        split = tp // width if width > 1 and tp % width == 0 and not whole else tp
        if par.tensor is not None and heads and heads % split:
            what = f"tensor parallel size {tp} does" if split == tp else \
                f"the {split} ranks of a DP-attention group (tensor parallel size {tp} / DP-attention width {width}) do"
            why = f" (SGLang's {whole} splits them over every tensor-parallel rank, with DP attention too)" \
                if whole and width > 1 else ""
            # a model named only by its served name: the heads are the architecture's, so still an error (_served.py)
            said = ""
            if getattr(dep.resolution, "via", "") == "served":
                from ctxlint.rules._served import inferred
                said = inferred(dep)
            yield Problem(
                f"{heads} % {split} = {heads % split}: {dep.arch.name}{said} has {heads} attention heads, which {what} "
                f"not divide{why}; the engine refuses to start. Use a divisor of {heads}",
                par.tensor.source, dep.display_name)
        count = role.accelerators.count
        if count is not None and used > count.value:
            where = par.tensor or par.pipeline or par.data or count
            how = f" ({count.raw})" if count.raw and count.raw != str(count.value) else ""  # 4 chips x 2 ...
            yield Problem(
                f"{used} > {count.value}: the {role.label} engine needs tensor x pipeline x data = {used} GPUs "
                f"but a replica has {count.value}{how}. Lower the parallel sizes or raise the accelerator count",
                where.source, dep.display_name)
