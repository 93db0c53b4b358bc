"""Communication per step from the strategy's collective volumes over the links
(:mod:`advisor.domain.sizing.network`): tensor-, context-, data- and expert-parallel traffic.
"""

from __future__ import annotations

from advisor.domain.sizing.compute.flops import BYTES_16BIT, EXPERT_CALL_SHARE_OF_LAYER
from advisor.domain.sizing.compute.job import JobFigures
from advisor.domain.sizing.network import (
    Links,
)

# --- Communication ---------------------------------------------------------------------------------


def _ring_share(group: int) -> float:
    """Share of a buffer each GPU sends in a ring reduce-scatter or all-gather: (g - 1) / g."""
    return (group - 1) / group if group > 1 else 0.0


def tensor_parallel_seconds(job: JobFigures, links: Links) -> tuple[float, float]:
    """Per micro-batch: (seconds, GB/s) of Megatron-style tensor-parallel all-reduces.

    Two all-reduces of the micro-batch's activations (tokens x hidden, 16-bit) per layer in the
    forward, two in the backward and two more in a recomputed forward (Korthikanti et al. 2022;
    sequence parallelism replaces each by a reduce-scatter plus all-gather of the same volume).
    """
    tp = job.tensor_parallel
    if tp <= 1:
        return 0.0, 0.0
    per_layer = 4 + (2 if job.recompute else 0)
    layers_here = job.layers / job.pipeline_parallel
    buffer = job.tokens_per_micro_batch * job.hidden * BYTES_16BIT
    sent = 2 * _ring_share(tp) * buffer * per_layer * layers_here
    gbs = links.collective_gbs(tp, spans_servers=tp > links.gpus_per_server)
    return sent / (gbs * 1e9), gbs


def context_parallel_seconds(job: JobFigures, links: Links, attention_s: float) -> float:
    """Per micro-batch: context parallelism's attention traffic on the critical path.

    Each GPU holds tokens / cp of every sequence (Megatron-Core's context parallelism; its
    per-GPU work and activations are already divided). ``ring`` (Megatron-Core
    ``AttnFuncWithCPAndKVP2P``, --cp-comm-type p2p, after Liu, Zaharia and Abbeel, "Ring
    Attention with Blockwise Transformers", arXiv:2310.01889): in every layer the key and value
    blocks (2 x tokens x kv_heads·head_dim / tp, 16-bit) go round the ring in cp - 1 steps in
    the forward pass, and the backward pass sends them again with their gradients (twice the
    forward's bytes; a recomputed forward once more); each step's transfer runs during the
    attention of the block already received, so only what exceeds the attention time is paid.
    ``all-to-all`` (Jacobs et al., "DeepSpeed Ulysses", arXiv:2309.14509, section 3; MindSpeed
    ulysses_cp_algo): q, k and v are re-split by heads before attention and the output back
    after it, (cp - 1) / cp of each leaving the GPU, the same four again for the gradients in
    the backward pass; attention waits for them, so none is hidden.
    """
    cp = job.context_parallel
    if cp <= 1:
        return 0.0
    tokens = job.tokens_per_micro_batch
    layers_here = job.layers / job.pipeline_parallel
    passes = 1 + (1 if job.recompute else 0)
    spans = cp * job.tensor_parallel > links.gpus_per_server
    gbs = links.collective_gbs(cp, spans_servers=spans) * 1e9
    if job.context_parallel_comm == "all-to-all":
        width = 2 * job.q_width + 2 * job.kv_width
        sent = (passes + 1) * _ring_share(cp) * tokens * width * BYTES_16BIT
        return sent * layers_here / job.tensor_parallel / gbs
    blocks = (passes + 2) * (cp - 1) * 2 * tokens * job.kv_width * BYTES_16BIT
    ring_s = blocks * layers_here / job.tensor_parallel / gbs
    return max(0.0, ring_s - attention_s)


def data_parallel_bytes(job: JobFigures, strategy: str, data_parallel: int) -> tuple[float, str]:
    """Bytes one GPU sends per optimizer step for data parallelism, and when they are sent.

    Returns (bytes, timing) where timing is ``"step"`` (once after the last micro-batch: DDP's
    and ZeRO-1's gradient all-reduce) or ``"micro-batch"`` (ZeRO-2 reduce-scatters each
    micro-batch's gradients; ZeRO-3/FSDP also gather the weights for the forward and again for
    the backward of every micro-batch). Ring all-reduce sends 2 (g-1)/g of the buffer,
    reduce-scatter and all-gather (g-1)/g each.
    """
    if data_parallel <= 1:
        return 0.0, "step"
    mp = job.model_parallel
    share = _ring_share(data_parallel)
    grad_bytes, weight_bytes = job.gradient_bytes_per_param, job.weight_bytes_per_param
    # Expert parallelism: the routed experts a GPU holds (1/ep of them) are reduced and
    # gathered only over the dp / ep ranks of their expert-data-parallel group, never over
    # the whole data-parallel group, and never gathered at all when ep equals it (Megatron-Core
    # expert_data_parallel groups; DeepSpeed-MoE, Rajbhandari et al. 2022, section 5.1).
    ep = expert_parallel_degree(job, data_parallel)
    if ep > 1:
        expert_share = _ring_share(data_parallel // ep)
        routed_trained, routed = job.routed_trainable_params, job.routed_params
        grads = share * (job.trainable_params - routed_trained) + (
            expert_share * routed_trained / ep
        )
        weights = share * (job.total_params - routed) + expert_share * routed / ep
        grads *= grad_bytes / mp
        weights *= weight_bytes / mp
    else:
        grads = share * job.trainable_params * grad_bytes / mp
        weights = share * job.total_params * weight_bytes / mp
    accum = job.grad_accum
    if strategy in ("zero3", "fsdp"):
        return accum * (2 * weights + grads), "micro-batch"
    if strategy == "zero2":
        updated = grads / grad_bytes * BYTES_16BIT
        return accum * grads + updated, "micro-batch"
    return 2 * grads, "step"  # ddp, zero1, and single with replicas


def expert_parallel_degree(job: JobFigures, data_parallel: int) -> int:
    """The job's expert-parallel degree where it divides ``data_parallel``, else 1."""
    ep = job.expert_parallel
    return ep if ep > 1 and data_parallel % ep == 0 else 1


def expert_loop_seconds(job: JobFigures, data_parallel: int, layer_pass_overhead_s: float) -> float:
    """Per micro-batch: the host time of running this GPU's experts one by one (see
    EXPERT_CALL_SHARE_OF_LAYER); 0 for dense models and grouped GEMM."""
    if not job.experts_in_loop:
        return 0.0
    local = job.experts_in_loop / expert_parallel_degree(job, data_parallel)
    layers_here = job.layers / job.pipeline_parallel
    calls = local * layers_here * job.activation_passes
    return calls * EXPERT_CALL_SHARE_OF_LAYER * layer_pass_overhead_s


def expert_parallel_seconds(job: JobFigures, links: Links, data_parallel: int) -> float:
    """Per micro-batch: the all-to-all exchanges of expert parallelism (critical path).

    Every MoE layer sends each token to its top-k experts and brings the results back: two
    all-to-alls of tokens x k hidden vectors (16-bit), of which (ep - 1) / ep leave the GPU, in
    the forward pass, two more carrying the gradients in the backward pass, and two in a
    recomputed forward (GShard, Lepikhin et al. 2020, section 2.2; Megatron-Core's alltoall
    token dispatcher: dispatch and combine). Each layer's expert work waits for them, so they
    are not hidden behind compute. Every layer is counted as a MoE layer (v1 does not say how
    many leading layers are dense). 0 without expert parallelism.
    """
    ep = expert_parallel_degree(job, data_parallel)
    if ep <= 1:
        return 0.0
    tokens = job.tokens_per_micro_batch / job.tensor_parallel
    exchanges = 2 * (2 + (1 if job.recompute else 0))
    layers_here = job.layers / job.pipeline_parallel
    sent = exchanges * tokens * job.experts_per_token * job.hidden * BYTES_16BIT
    sent *= _ring_share(ep) * layers_here
    gbs = links.collective_gbs(ep, spans_servers=ep * job.model_parallel > links.gpus_per_server)
    return sent / (gbs * 1e9)
