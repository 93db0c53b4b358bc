"""Work buffers: ZeRO-3/FSDP parameter gathers, gradient buckets, dequantisation copies, model
buffers. ``WorkBuffers`` is the part of :class:`~.model.MemoryModel` that gathers parameters.
"""

from __future__ import annotations

# --- Frameworks' buffers -------------------------------------------------------------------
# DeepSpeed ZeRO gradient buckets: reduce_bucket_size 2e8 elements in the configs shipped by Qwen
# and ms-swift (swift/llm/ds_config/zero2.json) and in the Hugging Face examples. ZeRO-1/2
# (deepspeed/runtime/zero/stage_1_and_2.py, backward()) allocate the whole bucket in the 16-bit
# parameter dtype before every backward pass when contiguous_gradients is on (the default), and a
# second one for double buffering when overlap_comm is on (it is in those configs), whatever the
# number of trained parameters: a LoRA job pays it too. ZeRO-3 (stage3.py) fills its bucket only
# as far as the trained parameters it collects; one bucket is counted there. The all-gather of
# updated parameters after the step reuses memory the gradients freed.
ZERO_BUCKET_ELEMENTS = 2e8
ZERO12_IPG_BUFFERS = 2
ZERO3_BUCKETS = 1
# ZeRO-3 keeps up to stage3_max_live_parameters gathered parameters (DeepSpeed default and the
# value in the HF/Qwen/PEFT/ms-swift configs: 1e9).
ZERO3_MAX_LIVE_PARAMETERS = 1e9
# FSDP gathers the unit being computed and prefetches the next one, and holds the unsharded
# gradient of the current unit before its reduce-scatter. FSDP1's BackwardPrefetch.BACKWARD_PRE
# (the default): "at the peak, it holds the current set of parameters, next set of parameters,
# and current set of gradients in memory" (torch/distributed/fsdp/api.py, BackwardPrefetch;
# https://pytorch.org/docs/stable/fsdp.html); FSDP2 (fully_shard) "allows two all-gather
# output tensors to be alive at once" in the forward pass and prefetches one unit in the
# backward pass (pytorch/pytorch#128884, torch/distributed/_composable/fsdp). Two units of
# parameters and one unit of gradients. The gradient unit is what the unit trains: all of it
# under full fine-tuning, and under FSDP1 whenever the unit mixes frozen and trained
# parameters (one FlatParameter: "the gradient memory usage will be higher than expected
# (namely, equivalent to not freezing those parameters)", FullyShardedDataParallel's
# docstring on use_orig_params), but only the adapters where they sit in units of their own
# (PEFT's wrap policy under the Trainer) or under FSDP2, which keeps each parameter as its
# own DTensor and makes no gradient for a frozen one (FrameworkTraits.fsdp_flat_parameters;
# decision 0140).
FSDP_PARAMETER_UNITS = 2
FSDP_GRADIENT_UNITS = 1
# QLoRA dequantises each frozen matrix in full before multiplying, in the forward pass and again
# in the backward pass (bitsandbytes MatMul4Bit: F.dequantize_4bit(B, state).to(A.dtype)): the
# dequantised copy in the quantisation dtype and its cast to the compute dtype, 16 bits each,
# are alive at once when the two differ (Lightning's BitsandbytesPrecision quantises from fp16
# and computes in bf16). The largest such matrix sets the buffer. Whether the output layer is
# quantised depends on the framework: PEFT/Transformers keep it in 16 bits, Lightning's
# BitsandbytesPrecision (LitGPT) replaces every nn.Linear, the output layer included, whose
# dequantised copy (vocab x hidden) then appears at the start of the backward pass, when every
# saved activation is alive. v1 does not say which, so the output layer's size is counted for
# the buffer while its storage stays 16-bit (the heavier reading of each).
DEQUANT_COPIES = 2
# GPTQ and AWQ kernels dequantise a matrix once, into one 16-bit buffer: AutoAWQ's
# WQLinear_GEMM (awq/modules/linear/gemm.py) calls awq_ext.dequantize_weights_cuda for batches
# of 1,024 tokens or more and multiplies with torch.matmul; AutoGPTQ's ExLlamaV2 QuantLinear
# reserves one temp_dq scratch of the largest layer's in x out 16-bit values
# (auto_gptq/nn_modules/qlinear/qlinear_exllamav2.py, ExLlamaV2DeviceTensors). Both keep the
# output layer in 16 bits (they quantise the decoder blocks' linear layers only).
DEQUANT_COPIES_GROUPWISE = 1
# A causal mask kept as a model buffer (scenario field model.causal_mask_positions): Qwen-1's
# remote modeling code registers ``torch.tril(torch.ones((max_positions, max_positions),
# dtype=torch.bool))`` as the non-persistent buffer ``registered_causal_mask`` of QWenModel
# (https://huggingface.co/Qwen/Qwen-7B/blob/main/modeling_qwen.py, QWenModel.__init__), one byte
# per entry, moved to the GPU with the model and never partitioned (ZeRO-3 and FSDP shard
# parameters, not buffers): 1 GiB at 32,768 positions. Counted on every GPU.
CAUSAL_MASK_BYTES_PER_ENTRY = 1


class WorkBuffers:
    """The gathered parameters' part of :class:`~.model.MemoryModel`."""

    def _gathered_bytes(
        self, strategy: str, mp: int, dp: int, offloaded: bool, not_held: float = 0.0
    ) -> float:
        """Parameters gathered at once under ZeRO-3 (DeepSpeed) or FSDP, in bytes.

        Across several data-parallel ranks, never more than sharding saves on weights when the
        partition stays on the GPU: with everything gathered, ZeRO-3/FSDP hold what ZeRO-2
        holds, not more (both free a unit's full parameters once it is done; the live-parameter
        ceiling is an upper bound). On one rank the gathered copies sit beside the partition.
        """
        # Under expert parallelism a GPU gathers only the routed experts its group holds
        # (``not_held``: the share of them it does not, 1 - 1/ep).
        layer = self.layer_params - self.routed_params_per_layer * not_held
        # A quantised base is gathered at its stored width (bitsandbytes bnb_4bit_quant_storage,
        # which lets FSDP and ZeRO-3 shard the packed 4-bit weights as 16-bit elements: Answer.AI,
        # "You can now train a 70b language model at home", 2024-03-06; Hugging Face PEFT docs,
        # "DeepSpeed" / "FSDP", QLoRA sections): a block's linears at their quantised bytes, the
        # embedding unit in 16 bits.
        layer_bytes = layer * self.gather_block_bytes
        unit = max(layer_bytes, self.embedding_unit_params * self.weight_elem_bytes) / mp
        if strategy == "fsdp":
            gradient_unit = unit
            if self.scenario.uses_adapters and not self.traits.fsdp_flat_parameters:
                gradient_unit = self.trained_params / self.arch.layers * self.trained_elem_bytes
                gradient_unit /= mp
            gathered = FSDP_PARAMETER_UNITS * unit + FSDP_GRADIENT_UNITS * gradient_unit
        else:
            params = self.scenario.model.params - self.routed_params_per_layer * (
                self.arch.layers * not_held
            )
            live = min(params / mp, ZERO3_MAX_LIVE_PARAMETERS) * self.gather_average_bytes
            gathered = max(live, unit)
        if not offloaded and dp > 1:
            weights = (self.frozen_bytes + self.trainable_bytes) / mp
            gathered = min(gathered, weights * (1 - 1 / dp))
        return gathered
