"""Activations saved for the backward pass, per token and per block, counted tensor by tensor
after Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
Models" (arXiv:2205.05198, section 4.1: 34*s*b*h + 5*a*s^2*b bytes per layer), adapted to
grouped-query attention, gated MLPs, mixture-of-experts routing, FlashAttention (no s^2 term,
Dao et al. 2022) and frozen layers (a frozen linear layer needs no saved input).
``Activations`` is the part of :class:`~.model.MemoryModel` that counts them.
"""

from __future__ import annotations

from advisor.domain.scenario import (
    ArchLayout,
    ModelArch,
    Scenario,
    adapter_count,
)
from advisor.domain.sizing.memory.frameworks import stores_attention_scores
from advisor.domain.sizing.memory.layout import Layout
from advisor.domain.sizing.memory.loss import (
    FUSED_LOSS_HIDDEN_COPIES,
    WHOLE_LOSS_FP32_TENSORS,
    chunked_loss_bytes,
    loss_is_chunked,
)
from advisor.domain.sizing.memory.sizes import FP32


class Activations:
    """The activations' part of :class:`~.model.MemoryModel` (rates built by its ``__init__``)."""

    # -- activations -------------------------------------------------------------------

    def _activation_rates(self, s: Scenario, m: ModelArch, lay: ArchLayout) -> None:
        """Bytes saved per token: per block (all of it, and with checkpointing), and the rest."""
        b = self.compute_bytes
        h, inter = m.hidden, m.intermediate
        q_out = lay.q_out
        frozen_base = s.uses_adapters
        quantised = s.method == "qlora"

        # Attention block (Korthikanti et al. 2022, 4.1, with their dropout masks left out:
        # fine-tuning recipes use attention dropout 0). Saved for every layer whatever trains:
        # q, k and v after rotary embedding, the attention output and the softmax statistics
        # (one fp32 value per head), which FlashAttention and PyTorch SDPA both keep.
        # Grouped-query attention: the SDPA paths of Hugging Face Transformers (repeat_kv) and
        # LitGPT (k.expand(...).reshape) copy k and v to the full head count before the kernel,
        # so the saved k and v are q-wide; only FlashAttention-2's own kernel takes the narrow
        # ones. v1 does not say which, so the q-wide copies are counted (the safe side).
        attention = (4 * q_out) * b + 4 * m.heads
        if stores_attention_scores(s):
            # Eager attention (stated ``flash_attention: false``) also keeps the s x s
            # softmax per head (Korthikanti's 5as/h term): Hugging Face's eager attention takes
            # the softmax in fp32 (softmax(..., dtype=float32)) and keeps that output, and the
            # product with v keeps its cast back to the compute type; in fp32 the second is the
            # attention-dropout output where dropout is on (T5: 0.1).
            attention += m.heads * self.seq_len * (FP32 + b)

        # Inputs of the linear layers. A trained linear layer keeps its input for its weight
        # gradient; a frozen 16-bit one keeps nothing (PyTorch saves only what the required
        # gradients use); its LoRA adapter keeps its own dropped-out copy, counted with the
        # adapters below. Quantised linears (bitsandbytes MatMul4Bit: ctx.tensors = (A, B);
        # GPTQ and torchao NF4 likewise) save their 16-bit input whenever the activation needs
        # a gradient, so QLoRA keeps them all, like full fine-tuning.
        keeps_inputs = not frozen_base or quantised
        # Norms: the RMSNorm of Llama-family models (Hugging Face, LitGPT, torchtune) upcasts
        # its input to fp32 and keeps that copy for its backward; when its weight trains it
        # also keeps the normalised 16-bit tensor for the weight gradient.
        norm = h * max(b, FP32) + (h * b if not frozen_base else 0)
        if keeps_inputs:
            # The q/k/v input (the norm output, shared by the three projections), and the
            # o_proj input: the attention output transposed back to (tokens, heads x head_dim)
            # is a contiguous copy (reshape of a transposed tensor), not the kernel's output.
            attention += h * b + q_out * b
        attention += norm
        # MLP: what the nonlinearity needs: the gate output, its activation and the up
        # projection for a gated MLP (SwiGLU: act(g) * u), the first projection's output for
        # a plain GELU MLP; the down projection's input when it keeps it.
        expert = (3 if lay.gated_mlp else 1) * inter * b
        expert_input = h * b if keeps_inputs else 0
        if keeps_inputs:
            expert += inter * b
        if m.is_moe:
            # Each token's MLP work happens in its top-k experts. The dispatcher (the Hugging
            # Face per-expert loop: hidden_states[top_x], expert(x) * routing_weight) gathers a
            # copy of the token for each expert it goes to, which the expert's first projection
            # keeps when it keeps its input, and the weighting multiply keeps each expert's
            # output; the router keeps its fp32 logits and softmax.
            mlp = lay.active_experts * (expert + h * b + expert_input) + 2 * m.experts * FP32
            if lay.shared_expert_params:
                # The shared experts (model.shared_expert_intermediate) run on every token like
                # a dense MLP: their nonlinearity, their down projection's input when it keeps
                # it, and the MLP norm's output they read, kept once.
                width = m.shared_expert_intermediate
                mlp += (3 if lay.gated_mlp else 1) * width * b
                mlp += (width * b + h * b) if keeps_inputs else 0
        else:
            mlp = expert + expert_input
        mlp += norm
        adapters = 0.0
        if frozen_base:
            # x A (rank r) per adapted matrix, kept for B's weight gradient.
            rank = s.lora_or_default.rank_or_default
            per_block = adapter_count(s).adapted_matrices
            adapter_inputs = self._adapter_input_width(s, m, lay)
            if m.is_moe:
                per_block = per_block / lay.routed_expert_count * lay.active_experts
            adapters = per_block * rank * b
            # LoRA dropout (0.05 in the LitGPT, Qwen, ms-swift and LLaMA-Factory recipes; PEFT's
            # default is 0): each adapted matrix keeps its own dropped-out copy of its input and
            # the 1-byte mask. Counted unless the scenario states it off (lora.dropout 0): the
            # safe side. Off, PEFT (LoraLayer.update_layer) and torchtune (LoRALinear:
            # ``nn.Dropout(p=dropout) if dropout > 0.0 else nn.Identity()``, pytorch/torchtune
            # torchtune/modules/peft/lora.py at 30b8519) pass the input itself, which the
            # adapter's A keeps for its weight gradient: once per distinct input, and nothing
            # beyond what a quantised base already keeps (QLoRA's linears keep their inputs).
            if not s.lora_or_default.dropout_off:
                adapters += adapter_inputs * (b + 1)
            elif not keeps_inputs:
                adapters += self._adapter_shared_input_width(s, m, lay) * b
            if s.method == "dora":
                # PEFT DoRA also keeps the base output of every adapted matrix for the
                # magnitude's gradient (about one output row per adapted matrix and token).
                adapters += per_block * max(q_out, inter) * b
        self.block_bytes_per_token = attention + mlp + adapters
        # Gradient checkpointing (one checkpoint per block, as HF, torchtune, LitGPT and
        # Megatron's full recompute do): the block input in 16 bits is kept; the block's
        # activations are recomputed one block at a time in the backward pass.
        self.checkpoint_bytes_per_token = h * b
        # Outside the blocks: the embedding output and the final norm's input and output.
        self.outside_bytes_per_token = 3 * h * b
        # Logits and loss (the "loss spike"), per logit (token x vocabulary entry). Whole
        # vocabulary at once (the Hugging Face Trainer path): WHOLE_LOSS_FP32_TENSORS fp32
        # tensors at the loss's peak (see there). With the loss computed in chunks (scenario
        # field loss_chunking, or the framework's default): chunked_loss_bytes. Not stated: the
        # whole logits at once (the heavier case).
        if s.fused_loss:
            # Fused linear cross-entropy (scenario field fused_loss; Liger Kernel,
            # src/liger_kernel/ops/fused_linear_cross_entropy.py): no logits tensor. The kernel
            # computes the input's gradient in the forward pass and keeps it for the backward
            # (tokens x hidden, compute dtype), works through chunks of about tokens x hidden /
            # vocab tokens (a chunk's logits are about tokens x hidden values in the compute
            # dtype, their gradient written in place) and keeps one fp32 loss per token.
            self.logit_bytes_per_token = FUSED_LOSS_HIDDEN_COPIES * h * b + FP32
        elif loss_is_chunked(s):
            self.logit_bytes_per_token = m.vocab * chunked_loss_bytes(s, b)
        else:
            self.logit_bytes_per_token = m.vocab * WHOLE_LOSS_FP32_TENSORS * FP32

    @staticmethod
    def _adapter_input_width(s: Scenario, m: ModelArch, lay: ArchLayout) -> float:
        """Sum of the input widths of the adapted matrices of one block (routed experts: top-k)."""
        width = {
            "q_proj": m.hidden,
            "k_proj": m.hidden,
            "v_proj": m.hidden,
            "qkv_proj": m.hidden,
            "o_proj": lay.q_out,
            "gate_proj": m.hidden if lay.gated_mlp else 0,
            "up_proj": m.hidden,
            "down_proj": m.intermediate,
        }
        total = 0.0
        for name in s.lora_or_default.target_names:
            if name == "lm_head":
                total += m.hidden / m.layers  # once per model, spread over the blocks
                continue
            copies = lay.active_experts if name in ("gate_proj", "up_proj", "down_proj") else 1
            total += copies * width[name]
            if name in ("gate_proj", "up_proj", "down_proj") and lay.shared_expert_params:
                # The shared experts' adapted projections read the token once more.
                shared_in = m.shared_expert_intermediate if name == "down_proj" else m.hidden
                total += shared_in if width[name] else 0
        return total

    @staticmethod
    def _adapter_shared_input_width(s: Scenario, m: ModelArch, lay: ArchLayout) -> float:
        """Width of the distinct inputs the adapted matrices of one block read, without dropout:
        q, k and v share the attention norm's output, gate and up the MLP norm's (per active
        expert); o and down read their own; lm_head once per model, spread over the blocks."""
        names = set(s.lora_or_default.target_names)
        width = 0.0
        if names & {"q_proj", "k_proj", "v_proj", "qkv_proj"}:
            width += m.hidden
        if "o_proj" in names:
            width += lay.q_out
        if "up_proj" in names or ("gate_proj" in names and lay.gated_mlp):
            width += lay.active_experts * m.hidden
        if "down_proj" in names:
            width += lay.active_experts * m.intermediate
            if lay.shared_expert_params:
                width += m.shared_expert_intermediate
        if "lm_head" in names:
            width += m.hidden / m.layers
        return width

    def activation_bytes(
        self, layout: Layout, micro_batch: int | None = None, seq_len: int | None = None
    ) -> tuple[float, float]:
        """(activations, logits) in bytes per GPU for one micro-batch in this layout."""
        mb = micro_batch or self.micro_batch
        seq = seq_len or self.seq_len
        # Context parallelism: each GPU holds seq / cp of every sequence (Megatron-Core).
        cp = self.scenario.parallelism.context_parallel
        tokens = mb * seq / (cp if layout.data_parallel % cp == 0 else 1)
        m = self.arch
        tp, pp = layout.tensor_parallel, layout.pipeline_parallel
        block = self.block_bytes_per_token
        if stores_attention_scores(self.scenario) and seq != self.seq_len:
            block += m.heads * (seq - self.seq_len) * (FP32 + self.compute_bytes)
        layers_here = -(-m.layers // pp)  # the fullest stage
        # Pipeline schedules (1F1B) keep up to pp micro-batches in flight on the first stage
        # (Korthikanti et al. 2022, 4.2.3); never more than there are micro-batches.
        # A naive layer split (device_map) runs one micro-batch through the stages at a time.
        in_flight = min(pp, self.scenario.grad_accum) if pp > 1 else 1
        if self.traits.naive_pipeline:
            in_flight = 1
        if self.scenario.gradient_checkpointing:
            # The checkpoints stay; the block being recomputed is the working set on top.
            saved = layers_here * self.checkpoint_bytes_per_token * in_flight
            working = 2 * block  # its recomputed activations and the gradients through it
        else:
            saved = layers_here * block * in_flight
            working = block  # the gradients flowing through the block being differentiated
        saved_bytes = tokens * (saved + self.outside_bytes_per_token) / tp
        working_bytes = tokens * working / tp
        logits = tokens * self.logit_bytes_per_token / tp
        # The logits spike happens at the end of the forward pass and is freed once the output
        # layer's backward is done, before any block's backward starts: the peak is the saved
        # activations plus the larger of the two, not both.
        activations = saved_bytes + max(0.0, working_bytes - logits)
        self._dequant_extra[(tp, pp, mb, seq)] = self._dequant_beside(working_bytes, logits)
        return activations, logits

    def dequant_at_peak(
        self, layout: Layout, micro_batch: int | None = None, seq_len: int | None = None
    ) -> float:
        """QLoRA's dequantised copies at the backward pass's peak, in bytes: a block matrix's
        beside the block's working set, the output layer's (when quantised) beside the loss's
        buffers; what they add to the larger of the two."""
        key = (
            layout.tensor_parallel,
            layout.pipeline_parallel,
            micro_batch or self.micro_batch,
            seq_len or self.seq_len,
        )
        if key not in self._dequant_extra:
            self.activation_bytes(layout, micro_batch, seq_len)
        return self._dequant_extra[key]

    def _dequant_beside(self, working: float, logits: float) -> float:
        if not self.dequant_bytes:
            return 0.0
        with_copies = max(working + self.dequant_block_bytes, logits + self.dequant_head_bytes)
        return with_copies - max(working, logits)
