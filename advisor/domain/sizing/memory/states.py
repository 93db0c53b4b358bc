"""Model states: weights (frozen and trained, 16-bit, fp32 or quantised), the fp32 master copy of
mixed precision, gradients and optimizer states, each divided by the sharding the strategy
applies (ZeRO-1 optimizer, ZeRO-2 + gradients, ZeRO-3/FSDP + weights) and by the tensor x
pipeline split. ``ModelStates`` is the part of :class:`~.model.MemoryModel` that counts them.
"""

from __future__ import annotations

from advisor.domain.scenario import (
    STRATEGIES,
    ArchLayout,
    ModelArch,
    Scenario,
    adapter_count,
    routed_expert_params,
    routed_trainable_params,
)
from advisor.domain.sizing.memory.buffers import (
    CAUSAL_MASK_BYTES_PER_ENTRY,
    DEQUANT_COPIES,
    DEQUANT_COPIES_GROUPWISE,
    ZERO3_BUCKETS,
    ZERO12_IPG_BUFFERS,
    ZERO_BUCKET_ELEMENTS,
)
from advisor.domain.sizing.memory.capacity import HOST_PROCESS_GIB, length_drift_share
from advisor.domain.sizing.memory.frameworks import (
    optimizer_step_is_foreach,
    quantises_output_layer,
    upcasts_kbit_rest,
)
from advisor.domain.sizing.memory.layout import Layout
from advisor.domain.sizing.memory.sizes import (
    DTYPE_BYTES,
    FP32,
    GIB,
    GROUPWISE_FORMATS,
    quantised_weight_bytes,
)

# --- Optimizer states ----------------------------------------------------------------------
# AdamW keeps two moments per trained parameter (Loshchilov & Hutter 2019), in the parameter's
# dtype under pure 16-bit or fp32 training and in fp32 under mixed precision. bitsandbytes 8-bit
# AdamW quantises both moments to 1 byte (Dettmers et al. 2022, "8-bit Optimizers via
# Block-wise Quantization"; its fp32 block constants, one per 2048 values, are negligible).
# SGD is counted with one momentum buffer (the safe side; without momentum it keeps none).
# Adafactor (Shazeer & Stern 2018) keeps factored second moments, one row and one column vector
# per matrix: about 2/hidden fp32 values per parameter (handled in code).
ADAM_MOMENTS = 2
OPTIMIZER_8BIT_BYTES = 2.0
PAGED_OPTIMIZERS = ("paged-adamw", "paged-adamw-8bit")

# Gradient bytes per trained parameter held through the backward pass under mixed precision,
# by strategy: fp32 .grad of an autocast fp32 model (single, DDP), Megatron's fp32 main_grad
# buffer (its distributed optimizer is recorded as zero1), DeepSpeed ZeRO-2/3's gradient
# partition in the 16-bit parameter dtype, FSDP's fp32 reduce dtype (sharded).
AMP_BACKWARD_GRAD_BYTES = {"single": 4, "ddp": 4, "zero1": 4, "zero2": 2, "zero3": 2, "fsdp": 4}
# Gradient lifetime. PyTorch creates a parameter's .grad when autograd's AccumulateGrad node
# runs for it in the backward pass, and Optimizer.zero_grad() frees them (set_to_none=True, the
# default since PyTorch 2.0: torch/optim/optimizer.py, Optimizer.zero_grad; PyTorch 2.0 release
# notes, 2023-03-15). Without gradient accumulation (grad_accum 1) no gradient exists when the
# backward pass starts: they appear layer by layer as the saved activations of that layer are
# freed, so the backward pass peaks at its start (activations, no gradients) or at its end
# (gradients, no activations), never both; the output layer's gradient is the first made, beside
# the logits. With accumulation, the previous micro-batches' gradients are alive at the start.
# Megatron allocates its fp32 main_grad buffer once for the whole run
# (megatron/core/distributed/param_and_grad_buffer.py), so it is alive throughout.
GRADIENT_BUFFER_PERSISTENT_FRAMEWORKS = ("megatron",)
# The optimizer step's transient. PyTorch's multi-tensor AdamW (torch/optim/adam.py,
# _multi_tensor_adam, used by AdamW: ``exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)``
# then _foreach_div_/_foreach_add_/_foreach_addcdiv_) allocates one new tensor per parameter the
# size of the second moment for the whole parameter group at once: one moment-sized temporary
# alive at the step. The fused implementations update in place in one kernel (torch
# _fused_adamw_, DeepSpeed FusedAdam csrc/adam/multi_tensor_adam.cu, Apex/Transformer Engine
# FusedAdam used by Megatron) and allocate none. PyTorch picks foreach by default for CUDA
# tensors (torch/optim/optimizer.py, _default_to_fused_or_foreach; fused=False unless asked);
# DeepSpeed builds FusedAdam when its configuration names an "AdamW" optimizer, as the Qwen and
# ms-swift ZeRO configurations do; Megatron always uses a fused Adam.
FOREACH_TEMPORARY_MOMENTS = 1
# DeepSpeed ZeRO-1/2/3 convert the rank's gradient partition to fp32 for the optimizer step
# (stage_1_and_2.py single_partition_of_fp32_groups[i].grad; stage3.py per optimizer
# sub-group), after the activations are freed.
AMP_STEP_GRAD_BYTES = {"zero1": 4, "zero2": 4, "zero3": 4}


def gradients_made_in_backward(scenario: Scenario) -> bool:
    """Whether the gradients are created during the backward pass (so not alive at its start):
    one micro-batch per step, and no persistent gradient buffer (Megatron's main_grad)."""
    return (
        scenario.grad_accum == 1
        and not scenario.optimizer_in_backward
        and scenario.framework not in GRADIENT_BUFFER_PERSISTENT_FRAMEWORKS
    )


class ModelStates:
    """The model states' part of :class:`~.model.MemoryModel` (built by its ``__init__``)."""

    # -- model states ------------------------------------------------------------------

    def _model_states(self, s: Scenario, m: ModelArch, lay: ArchLayout) -> None:
        # A framework that builds the output layer as its own matrix holds a tied model's
        # shared embedding twice (FrameworkTraits.separate_output_layer): params_b counts it
        # once.
        self.extra_head_params = 0.0
        if self.traits.separate_output_layer and m.tied_embeddings:
            self.extra_head_params = float(m.vocab * m.hidden)
        total = s.model.params + self.extra_head_params
        per_layer = lay.attention_params_per_layer + lay.mlp_params_per_layer
        block_params = min(total, m.layers * (per_layer + lay.shared_expert_params))
        self.block_params = block_params
        self.layer_params = block_params / m.layers
        self.embedding_unit_params = m.vocab * m.hidden
        amp = s.precision.startswith("amp-")
        weight_bytes = 2 if amp else DTYPE_BYTES[s.precision]
        self.weight_elem_bytes = weight_bytes
        adapters = adapter_count(s)
        if s.uses_adapters:
            trained = adapters.total
            self.frozen_bytes = self._frozen_base_bytes(s, m, total, block_params)
        else:
            trained = total
            self.frozen_bytes = 0.0
        self.trained_params = trained
        # The share of the gradients made first in the backward pass, beside the logits: the
        # output layer's (the embedding's, when tied) under full fine-tuning.
        self.first_gradient_share = 0.0
        if not s.uses_adapters and trained:
            self.first_gradient_share = min(1.0, m.vocab * m.hidden / trained)
        self.gradients_in_backward = gradients_made_in_backward(s)
        self.length_drift_share = length_drift_share(s)
        self.length_drift_high_share = length_drift_share(s, high=True)
        if s.uses_adapters and not amp and not self.traits.adapters_in_compute_dtype:
            # PEFT keeps adapters in fp32 even when the base is 16-bit (LoraConfig
            # autocast_adapter_dtype=True, the default since PEFT 0.12, and nn.Linear's fp32
            # default before it), so their gradients and AdamW moments are fp32 too. Frameworks
            # that keep them in 16 bits (torchtune, LitGPT) use less: the safe side when the
            # framework is not stated.
            weight_bytes = max(weight_bytes, FP32)
        self.trainable_bytes = trained * weight_bytes
        self.trained_elem_bytes = weight_bytes
        self.master_bytes = trained * FP32 if amp else 0.0
        # Gradients held through the backward pass, per trained parameter: the parameter's
        # dtype, or under mixed precision what each framework accumulates into (see
        # AMP_BACKWARD_GRAD_BYTES); DeepSpeed ZeRO-1/2 add an fp32 copy of the partition only
        # for the optimizer step, when the activations are gone (AMP_STEP_GRAD_BYTES).
        self.amp = amp
        self.grad_elem_bytes = weight_bytes
        self.optimizer_in_backward = s.optimizer_in_backward
        # Strategies whose AdamW step allocates the foreach temporary (a property of the
        # scenario and strategy alone, so found once here rather than for every layout).
        self.foreach_strategies = frozenset(
            strategy
            for strategy in STRATEGIES
            if optimizer_step_is_foreach(s, strategy) and not s.optimizer_in_backward
        )
        self.largest_gradient_bytes = 0.0
        if s.optimizer_in_backward:
            # Each gradient is applied and freed during the backward pass: only the largest
            # single tensor's gradient exists at once (the embedding or one MLP matrix).
            largest = self._largest_trained_tensor(s, m, lay, adapters)
            self.largest_gradient_bytes = min(trained, largest) * (FP32 if amp else weight_bytes)
        state_bytes = FP32 if (amp or weight_bytes == FP32) else DTYPE_BYTES[s.precision]
        self.optimizer_bytes = trained * self._optimizer_bytes_per_param(s, state_bytes, m)
        self.paged = s.optimizer in PAGED_OPTIMIZERS
        # Bytes per parameter gathered under ZeRO-3/FSDP: the stored width (DTYPE of the weights,
        # or the quantised width of a QLoRA base's block linears; on average over the model for
        # ZeRO-3's live-parameter window).
        self.gather_block_bytes = float(self.weight_elem_bytes)
        self.gather_average_bytes = float(self.weight_elem_bytes)
        if s.method == "qlora":
            self.gather_block_bytes = quantised_weight_bytes(s)
            self.gather_average_bytes = self.frozen_bytes / total
        self.dequant_bytes = 0.0
        # The dequantised copies live only while a quantised matrix multiplies: a block's
        # (beside the block's working set in the backward pass) or the output layer's (beside
        # the loss's buffers, when the framework quantises it). They are added to the
        # backward pass's peak where they fall (Activations.dequant_at_peak), never to the
        # optimizer step's, when no matrix multiplies (decision 0140).
        self.dequant_block_bytes = 0.0
        self.dequant_head_bytes = 0.0
        if s.method == "qlora":
            groupwise = s.quant_format in GROUPWISE_FORMATS
            copies = DEQUANT_COPIES_GROUPWISE if groupwise else DEQUANT_COPIES
            widest = max(m.intermediate, lay.q_out, m.shared_expert_intermediate or 0)
            self.dequant_block_bytes = copies * m.hidden * widest * 2
            if quantises_output_layer(s, self.traits):
                self.dequant_head_bytes = copies * m.hidden * m.vocab * 2
            self.dequant_bytes = max(self.dequant_block_bytes, self.dequant_head_bytes)
        self._expert_states(s, m, state_bytes)
        positions = s.model.causal_mask_positions or 0
        self.mask_bytes = CAUSAL_MASK_BYTES_PER_ENTRY * positions * positions
        self.dora_bytes = 0.0
        if s.method == "dora":
            # DoRA materialises W + scale x B A of the adapted matrix to take its column norm.
            widest = m.hidden * max(m.intermediate, lay.q_out)
            self.dora_bytes = 2 * widest * weight_bytes

    def _expert_states(self, s: Scenario, m: ModelArch, state_bytes: int) -> None:
        """The routed experts' part of the model states, for expert parallelism.

        Under expert parallelism (``parallelism.expert_parallel`` = ep) each GPU of an
        expert-parallel group holds 1/ep of every layer's routed experts, with their gradients
        and optimizer states (Megatron-Core ``--expert-model-parallel-size``; Rajbhandari et al.
        2022, "DeepSpeed-MoE", section 5.1; NeMo AutoModel ``ep_size``). Where a strategy
        already shards a state over all data-parallel ranks (ZeRO/FSDP), the experts' part is
        sharded over the dp / ep ranks of the expert-data-parallel group instead: 1/ep x
        ep/dp = 1/dp per GPU, the same share; EP changes what a replicating strategy keeps.
        """
        routed = routed_expert_params(m)
        if s.uses_adapters:
            bits = s.quant_bits_or_default
            per_weight = quantised_weight_bytes(s) if bits else DTYPE_BYTES.get(s.precision, 2)
            self.routed_frozen_bytes = routed * per_weight
        else:
            self.routed_frozen_bytes = 0.0
        trained = routed_trainable_params(s)
        self.routed_trained_share = trained / self.trained_params if self.trained_params else 0.0
        self.routed_trainable_bytes = trained * self.trained_elem_bytes
        self.routed_master_bytes = trained * FP32 if self.amp else 0.0
        self.routed_optimizer_bytes = trained * self._optimizer_bytes_per_param(s, state_bytes, m)
        self.routed_params_per_layer = routed / m.layers

    def _frozen_base_bytes(
        self, s: Scenario, m: ModelArch, total: float, block_params: float
    ) -> float:
        base_bytes = DTYPE_BYTES["fp32"] if s.precision == "fp32" else 2
        bits = s.quant_bits_or_default
        if bits is None:
            return total * base_bytes
        # Quantised: the linear layers of the blocks; embeddings, output head and norms stay
        # in 16 bits (bitsandbytes/PEFT and torchao quantise nn.Linear modules of the blocks),
        # or fp32 where the framework prepares a bitsandbytes base with PEFT's
        # prepare_model_for_kbit_training (FrameworkTraits.upcasts_kbit_rest; not GPTQ/AWQ or
        # torchao NF4: BLOCKS_ONLY_FORMATS).
        # Parameters the architecture fields cannot place (neither in the blocks' attention
        # and MLP nor in the embeddings: a shared expert, a vision tower, an encoder, a
        # dense first layer) are linear layers of the same model: bitsandbytes quantises
        # every nn.Linear the model holds except the output layer (Transformers'
        # get_keys_to_not_convert; https://github.com/huggingface/transformers/blob/v4.46.0/
        # src/transformers/integrations/bitsandbytes.py, replace_with_bnb_linear), so they
        # are stored at the width of their quantised neighbours, and the k-bit preparation
        # (which casts only what is not quantised) leaves them there. Norms and biases,
        # a few thousand parameters per layer, are within that remainder.
        quantised = block_params * quantised_weight_bytes(s)
        if upcasts_kbit_rest(s, self.traits):
            base_bytes = FP32
        lay = self.layout
        embeddings = min(total - block_params, lay.embedding_params + self.extra_head_params)
        unplaced = total - block_params - embeddings
        quantised += unplaced * quantised_weight_bytes(s)
        if self.traits.stores_output_layer_quantised and quantises_output_layer(s, self.traits):
            # Lightning's BitsandbytesPrecision (LitGPT) replaces the output layer too: its
            # own matrix (a tied model's second copy included) is stored quantised.
            head = min(embeddings, float(m.vocab * m.hidden))
            embeddings -= head
            quantised += head * quantised_weight_bytes(s)
        return quantised + embeddings * base_bytes

    @staticmethod
    def _largest_trained_tensor(s, m, lay, adapters) -> float:
        if s.uses_adapters:
            return max(adapters.largest_adapted_out, 1.0) * s.lora_or_default.rank_or_default
        return max(m.vocab * m.hidden, m.hidden * m.intermediate, m.hidden * lay.q_out)

    @staticmethod
    def _optimizer_bytes_per_param(s: Scenario, state_bytes: int, m: ModelArch) -> float:
        if s.optimizer == "adamw":
            return ADAM_MOMENTS * state_bytes
        if s.optimizer == "paged-adamw":
            return ADAM_MOMENTS * FP32  # bitsandbytes PagedAdamW keeps 32-bit states
        if s.optimizer in ("adamw-8bit", "paged-adamw-8bit"):
            return OPTIMIZER_8BIT_BYTES
        if s.optimizer == "sgd":
            return state_bytes
        return FP32 * 2 / m.hidden  # adafactor: a row and a column vector per matrix

    def _state_bytes(self, layout: Layout) -> tuple[float, ...]:
        """Model states and buffers per GPU in bytes, and host RAM per GPU, for a layout.

        Returns (frozen, trainable, master, gradients, optimizer, buffers, paged, host,
        step_gradients, transient, at_start): a plain tuple, kept per layout key and unpacked by
        position in _phase_bytes and per_gpu. A named tuple would name the fields once, but
        building one is a Python call (~4 k instructions): about 6 M more instructions, ~5 %,
        in a catalog sweep that builds ~1,200 of them (measured 2026-12-03).
        """
        mp = layout.tensor_parallel * layout.pipeline_parallel  # Layout.model_parallel
        key = (layout.gpus, layout.strategy, layout.offload, mp)
        cached = self._state_cache.get(key)
        if cached is not None:
            return cached
        strategy, offload = layout.strategy, layout.offload
        dp = max(1, layout.gpus // mp)  # Layout.data_parallel
        shard_optimizer = dp if strategy in ("zero1", "zero2", "zero3", "fsdp") else 1
        shard_grads = dp if strategy in ("zero2", "zero3", "fsdp") else 1
        shard_weights = dp if strategy in ("zero3", "fsdp") else 1
        params_offloaded = offload == "optimizer+params"
        optimizer_offloaded = offload in ("optimizer", "optimizer+params")

        frozen = self.frozen_bytes / mp / shard_weights
        trainable = self.trainable_bytes / mp / shard_weights
        master = self.master_bytes / mp / shard_optimizer
        gradients, step_gradients = self._gradient_bytes(strategy, dp)
        if strategy == "fsdp" and self.traits.fsdp_flat_parameters and self.frozen_bytes:
            # FSDP1's FlatParameter mixes a block's frozen base with its adapters: the sharded
            # gradient covers the frozen weights too (buffers.FSDP_PARAMETER_UNITS), at their
            # stored width, until the optimizer step's zero_grad.
            gradients += self.frozen_bytes
        # Expert parallelism: what a replicating strategy keeps of the routed experts is 1/ep
        # (see _expert_states); sharded states are unchanged.
        # (Without it not_held is 0 and every such term would subtract or scale by zero.)
        ep = self.scenario.parallelism.expert_parallel  # as expert_parallel_for(scenario, layout)
        ep = ep if ep > 1 and dp % ep == 0 else 1
        not_held = 1 - 1 / ep
        optimizer = self.optimizer_bytes / mp / shard_optimizer
        if ep > 1:
            if shard_weights == 1:
                frozen -= self.routed_frozen_bytes * not_held / mp
                trainable -= self.routed_trainable_bytes * not_held / mp
            if shard_optimizer == 1:
                master -= self.routed_master_bytes * not_held / mp
                optimizer -= self.routed_optimizer_bytes * not_held / mp
            if shard_grads == 1:
                gradients *= 1 - self.routed_trained_share * not_held
        gradients /= mp * shard_grads
        step_gradients /= mp
        host = 0.0
        paged = 0.0
        if self.paged and not optimizer_offloaded:
            paged, optimizer = optimizer, 0.0
        if optimizer_offloaded:
            # The optimizer step runs on the CPU: master copy and moments live in host RAM, and
            # under mixed precision an fp32 gradient per trained parameter too (DeepSpeed
            # ZeRO-Offload); pure 16-bit runs step on the gradients moved below.
            host += optimizer + master
            if self.amp:
                host += self.trained_params * FP32 / mp / shard_optimizer
            optimizer = master = 0.0
        # AdamW's foreach step: one moment-sized temporary (FOREACH_TEMPORARY_MOMENTS) beside
        # the states it updates; none when the step runs on the CPU or in the backward pass.
        transient = 0.0
        if strategy in self.foreach_strategies:
            transient = optimizer * FOREACH_TEMPORARY_MOMENTS / ADAM_MOMENTS
        buffers = self.dora_bytes + self.mask_bytes
        if params_offloaded:
            # Parameters and gradients live in host RAM and stream in one unit at a time.
            host += frozen + trainable + gradients + step_gradients
            frozen = trainable = gradients = step_gradients = 0.0
            buffers += self._gathered_bytes(strategy, mp, dp, offloaded=True, not_held=not_held)
        elif strategy in ("zero3", "fsdp"):
            buffers += self._gathered_bytes(strategy, mp, dp, offloaded=False, not_held=not_held)
        if strategy in ("zero1", "zero2"):
            buffers += ZERO12_IPG_BUFFERS * ZERO_BUCKET_ELEMENTS * self.weight_elem_bytes
        elif strategy == "zero3":
            buckets = ZERO3_BUCKETS * min(self.trained_params / mp, ZERO_BUCKET_ELEMENTS)
            buffers += buckets * self.trained_elem_bytes
        elif strategy == "ddp":
            # DDP's default gradient buckets (gradient_as_bucket_view=False) copy every
            # gradient once more.
            held = 1 - self.routed_trained_share * not_held
            buffers += self.trained_params * held / mp * self.trained_elem_bytes
        # Host RAM per GPU besides offload: the paged optimizer states when the GPU runs
        # short, this rank's share of the checkpoint read before it moves to the device, and
        # the rank's process with its data-loader workers.
        host += paged + (self.frozen_bytes + self.trainable_bytes) / layout.gpus
        host += HOST_PROCESS_GIB * GIB
        # At the start of the backward pass: all gradients when they outlive a step (gradient
        # accumulation, Megatron's buffer), else only the output layer's (gradients_made_in_backward).
        at_start = gradients
        if self.gradients_in_backward:
            at_start = gradients * self.first_gradient_share
        result = (
            frozen,
            trainable,
            master,
            gradients,
            optimizer,
            buffers,
            paged,
            host,
            step_gradients,
            transient,
            at_start,
        )
        self._state_cache[key] = result
        return result

    def _gradient_bytes(self, strategy: str, dp: int) -> tuple[float, float]:
        """(gradients through the backward pass, extra gradients at the optimizer step), bytes.

        The first is before sharding (the caller divides by the strategy's gradient shard); the
        second is already per data-parallel rank.
        """
        if self.optimizer_in_backward:
            return self.largest_gradient_bytes, 0.0
        if not self.amp:
            return self.trained_params * self.grad_elem_bytes, 0.0
        backward = self.trained_params * AMP_BACKWARD_GRAD_BYTES[strategy]
        step = self.trained_params * AMP_STEP_GRAD_BYTES.get(strategy, 0) / dp
        return backward, step
