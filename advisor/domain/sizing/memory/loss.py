"""The loss: the logits/loss spike of the output layer (b*s*vocab elements in 16 bits, upcast to
fp32 for the loss, and their gradient), fused and chunked losses.
"""

from __future__ import annotations

from advisor.domain.scenario import (
    Scenario,
)
from advisor.domain.sizing.memory.frameworks import traits_of
from advisor.domain.sizing.memory.sizes import FP32

# Fused linear cross-entropy (scenario field ``fused_loss``): Liger Kernel's
# LigerFusedLinearCrossEntropyLoss (Hsu et al., "Liger Kernel: Efficient Triton Kernels for LLM
# Training", LinkedIn, arXiv:2410.10989, 2024-10; src/liger_kernel/ops/fused_linear_cross_entropy.py,
# fused_linear_cross_entropy_forward) never materialises the logits: it allocates grad_input
# (zeros_like the hidden states) and walks the tokens in chunks of
# next_power_of_2(BT / ceil(V / H)) tokens, so a chunk's logits hold about BT x H values. Two
# hidden-sized tensors per token in the compute dtype, and a fp32 loss per token.
FUSED_LOSS_HIDDEN_COPIES = 2
# Whole-vocabulary cross-entropy, as the Hugging Face Trainer runs it (Transformers'
# loss/loss_utils.py ForCausalLMLoss since 4.46: ``logits = logits.float()``, labels shifted by
# padding, then F.cross_entropy; before 4.46 the model's forward upcast the logits and the loss
# took ``logits[..., :-1, :].contiguous()``, a second fp32 copy). Forward, at the loss: the
# 16-bit logits (held by the model's output), the fp32 upcast and the fp32 log-softmax output
# that cross_entropy saves for the backward: 2 + 4 + 4 bytes per logit (before 4.46 the fp32
# logits, their shifted copy and the log-softmax: 4 + 4 + 4). The Trainer drops the output
# (compute_loss returns the loss alone) before the backward, which then holds the saved
# log-softmax, nll_loss's fp32 gradient and log_softmax's fp32 gradient at once: 4 + 4 + 4;
# the cast back to 16 bits comes after the first two are freed. Three fp32 tensors per logit
# at the peak in every case, whatever the compute dtype (fp32 logits are not copied by
# ``.float()``).
WHOLE_LOSS_FP32_TENSORS = 3
# Chunked cross-entropy (scenario field ``loss_chunking``; torchtune's CEWithChunkedOutputLoss,
# torchtune/modules/loss/ce_chunked_output_loss.py, and LitGPT's lm_head_chunk_size with
# chunked_cross_entropy): the output layer projects each chunk of tokens on its own
# (TransformerDecoder.chunked_output: ``[self.output(chunk) for chunk in h.chunk(n)]``), so the
# logits' gradient exists one chunk at a time, consumed by that chunk's own projection. What
# stays for the whole batch: the 16-bit logit chunks, alive until the loss is computed
# (torchtune's recipes then ``del logits``: "free logits otherwise it peaks backward memory"),
# and what each chunk's cross-entropy saves for the backward. Eager, torchtune's
# compute_cross_entropy upcasts the chunk (``logits.float()``) and F.cross_entropy's
# log_softmax saves its fp32 output: 4 bytes per logit, for every chunk (LitGPT's 16-bit
# log-softmax saves 2: the heavier one is counted). Under torch.compile (scenario field
# ``torch_compile``; torchtune's training.compile_loss compiles compute_cross_entropy alone,
# "The CE and upcasting have to be compiled together"), the upcast and the cross-entropy are
# one generated kernel whose backward recomputes the upcast from the 16-bit chunk it keeps
# (PyTorch's min-cut partitioner, torch/_functorch/partitioners.py,
# min_cut_rematerialization_partition, saves the fewest bytes and recomputes pointwise ops):
# nothing beyond the chunks and one fp32 value per token.
CHUNKED_LOSS_EAGER_SAVED_BYTES = FP32


def chunked_loss_bytes(scenario: Scenario, compute_bytes: int) -> int:
    """Bytes per logit a chunked loss keeps for the whole batch: the 16-bit chunks, and unless
    the step is compiled each chunk's fp32 log-softmax (CHUNKED_LOSS_EAGER_SAVED_BYTES)."""
    saved = 0 if scenario.torch_compile else CHUNKED_LOSS_EAGER_SAVED_BYTES
    return compute_bytes + saved


def loss_is_chunked(scenario: Scenario) -> bool:
    """Whether the loss is computed in chunks: as stated, else the framework's default."""
    if scenario.loss_chunking is not None:
        return scenario.loss_chunking
    return traits_of(scenario).chunked_loss
