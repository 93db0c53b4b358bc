"""What the memory model assumed about a job, as translatable messages (shown with every sizing)."""

from __future__ import annotations

from advisor.domain.i18n import N_, Message
from advisor.domain.scenario import (
    Scenario,
)
from advisor.domain.sizing.memory.buffers import CAUSAL_MASK_BYTES_PER_ENTRY, ZERO_BUCKET_ELEMENTS
from advisor.domain.sizing.memory.capacity import drift_controls
from advisor.domain.sizing.memory.frameworks import (
    FrameworkTraits,
    casts_back_in_bf16,
    optimizer_step_is_foreach,
    quantises_output_layer,
    traits_of,
    upcasts_kbit_rest,
)
from advisor.domain.sizing.memory.lengths import ESTIMATE, LONGEST, batch_length
from advisor.domain.sizing.memory.loss import loss_is_chunked
from advisor.domain.sizing.memory.sizes import GIB, quant_constant_bits
from advisor.domain.sizing.memory.states import gradients_made_in_backward


def memory_assumptions(scenario: Scenario) -> list[Message]:
    """Plain sentences for what the memory model assumed about this scenario."""
    out: list[Message] = []
    if scenario.gradient_checkpointing is None:
        out.append(
            Message(N_("Gradient checkpointing was not stated; it is assumed off (more memory)."))
        )
    if scenario.flash_attention is None:
        out.append(
            Message(
                N_(
                    "The attention kernel was not stated; the framework's default, PyTorch's "
                    "scaled-dot-product attention, is assumed: it does not store the "
                    "sequence-by-sequence scores."
                )
            )
        )
    if scenario.packed is False:
        out.append(_length_assumption(scenario))
    out.extend(_drift_control_assumptions(scenario))
    traits = traits_of(scenario)
    out.extend(_framework_assumptions(scenario, traits))
    if scenario.uses_adapters:
        out.append(_adapter_assumption(scenario, traits))
    if scenario.method == "qlora":
        upcast = upcasts_kbit_rest(scenario, traits)
        stored = (
            N_(
                "The frozen base is stored in {bits} bits with {constants} bit per weight of "
                "quantisation constants; embeddings, the output layer and norms are cast to fp32, "
                "as PEFT's k-bit preparation in the Hugging Face recipes does."
            )
            if upcast
            else N_(
                "The frozen base is stored in {bits} bits with {constants} bit per weight of "
                "quantisation constants; embeddings and the output layer stay in 16 bits."
            )
        )
        if not upcast and casts_back_in_bf16(scenario, traits):
            stored = N_(
                "The frozen base is stored in {bits} bits with {constants} bit per weight of "
                "quantisation constants; embeddings and the output layer are in 16 bits: PEFT's "
                "k-bit preparation casts them to fp32 and TRL's trainer casts them back to bf16 "
                "when it trains in bf16."
            )
        out.append(
            Message(
                stored,
                {
                    "bits": scenario.quant_bits_or_default,
                    "constants": f"{quant_constant_bits(scenario):.2g}",
                },
            )
        )
        if quantises_output_layer(scenario, traits):
            buffer = N_(
                "Each quantised matrix is dequantised to 16 bits when it is used; the work "
                "buffer is sized for the output layer, which some frameworks (LitGPT) "
                "quantise too."
            )
        else:
            buffer = N_(
                "Each quantised matrix is dequantised to 16 bits when it is used; the work "
                "buffer is sized for the largest block matrix (the output layer stays in 16 "
                "bits)."
            )
        out.append(Message(buffer))
    out.extend(_optimizer_step_assumptions(scenario))
    if scenario.parallelism.strategy in ("zero1", "zero2"):
        out.append(
            Message(
                N_(
                    "DeepSpeed ZeRO-1/2 keep two gradient buckets of {elements} million elements "
                    "whatever the job's size (overlap_comm on, as in the Qwen and ms-swift "
                    "configurations)."
                ),
                {"elements": f"{ZERO_BUCKET_ELEMENTS / 1e6:g}"},
            )
        )
    if scenario.model.causal_mask_positions:
        positions = scenario.model.causal_mask_positions
        out.append(
            Message(
                N_(
                    "The model's code keeps a causal mask of {positions} x {positions} positions "
                    "on every GPU: {gib} GiB."
                ),
                {
                    "positions": f"{positions:,}",
                    "gib": f"{CAUSAL_MASK_BYTES_PER_ENTRY * positions * positions / GIB:,.2f}",
                },
            )
        )
    if scenario.parallelism.expert_parallel > 1:
        out.append(
            Message(
                N_(
                    "Expert parallelism over {ep} GPUs: each GPU keeps 1/{ep} of every layer's "
                    "routed experts with their gradients and optimizer states."
                ),
                {"ep": scenario.parallelism.expert_parallel},
            )
        )
    if scenario.model.layout is None:
        out.append(
            Message(
                N_(
                    "The model's shape is not given: a Llama-like shape of {params} billion "
                    "parameters with a 32,000-token vocabulary is assumed."
                ),
                {"params": f"{scenario.model.params_b:g}"},
            )
        )
    if scenario.fused_loss:
        out.append(
            Message(
                N_(
                    "The output layer and the loss run as one fused kernel, as stated: no "
                    "logits are kept, only the hidden states' gradient and one chunk at a time."
                )
            )
        )
    elif scenario.loss_chunking:
        out.append(
            Message(
                N_(
                    "The loss is computed in chunks, as stated: the 16-bit logits are counted; "
                    "their gradient and the fp32 work exist one chunk at a time."
                )
            )
        )
        out.append(_compiled_loss_assumption(scenario))
    elif loss_is_chunked(scenario):
        out.append(
            Message(
                N_(
                    "The loss is computed in chunks, as {framework}'s recipes do: the 16-bit "
                    "logits are counted; their gradient and the fp32 work exist one chunk at a "
                    "time."
                ),
                {"framework": FRAMEWORK_NAMES[scenario.framework]},
            )
        )
        out.append(_compiled_loss_assumption(scenario))
    else:
        out.append(
            Message(
                N_(
                    "The loss is assumed computed on the whole vocabulary at once in fp32 (the "
                    "Hugging Face default); chunked or fused loss kernels need less memory."
                )
            )
        )
    return out


def _drift_control_assumptions(scenario: Scenario) -> list[Message]:
    """What lowers the device reading of an unpacked run (length_grouped, empty_cache_steps)."""
    if scenario.packed is True:
        return []
    out: list[Message] = []
    grouped, emptied = drift_controls(scenario)
    if grouped:
        out.append(
            Message(
                N_(
                    "Samples are grouped by length with the longest batch first, as stated: "
                    "later batches fit into the blocks cached for it, so a device reading "
                    "stays close to what the job needs."
                )
            )
        )
    if emptied:
        out.append(
            Message(
                N_(
                    "The cache is emptied at every step, as stated: blocks cached for longer "
                    "batches are given back before each backward pass, so a device reading "
                    "climbs less above what the job needs."
                )
            )
        )
    elif scenario.empty_cache_steps is not None:
        out.append(
            Message(
                N_(
                    "The cache is emptied every {steps} steps: only emptying at every step is "
                    "counted as lowering the device reading."
                ),
                {"steps": f"{scenario.empty_cache_steps:,}"},
            )
        )
    return out


def _adapter_assumption(scenario: Scenario, traits: FrameworkTraits) -> Message:
    """The adapters' dtype and whether LoRA dropout keeps a copy of each adapted input."""
    dropout_off = scenario.lora_or_default.dropout_off
    if traits.adapters_in_compute_dtype:
        text = (
            N_(
                "Adapters, their gradients and AdamW states are kept in the training dtype "
                "(as {framework} builds them); LoRA dropout is off, so each adapter keeps its "
                "input without a copy."
            )
            if dropout_off
            else N_(
                "Adapters, their gradients and AdamW states are kept in the training dtype "
                "(as {framework} builds them), with LoRA dropout keeping a copy of each "
                "adapted input."
            )
        )
        return Message(text, {"framework": FRAMEWORK_NAMES[scenario.framework]})
    if dropout_off:
        return Message(
            N_(
                "Adapters are counted in fp32 with fp32 gradients and AdamW states (PEFT's "
                "default); LoRA dropout is off, so each adapter keeps its input without a copy."
            )
        )
    return Message(
        N_(
            "Adapters are counted in fp32 with fp32 gradients and AdamW states (PEFT's "
            "default), with LoRA dropout keeping a copy of each adapted input."
        )
    )


def _compiled_loss_assumption(scenario: Scenario) -> Message:
    """What a chunked loss keeps besides the 16-bit logits: compiled or eager (torch_compile)."""
    if scenario.torch_compile:
        return Message(
            N_(
                "The step is compiled (torch.compile), as stated: each chunk's fp32 upcast and "
                "cross-entropy are one kernel that keeps only the 16-bit logits."
            )
        )
    return Message(
        N_(
            "The step is taken as eager (torch.compile not stated): each chunk's fp32 "
            "log-softmax is counted as kept for the backward pass."
        )
    )


# How the assumptions name each framework (product names, not translated).
FRAMEWORK_NAMES = {
    "hf": "Hugging Face Transformers/PEFT",
    "torchtune": "torchtune",
    "litgpt": "LitGPT",
    "megatron": "Megatron-LM",
}


def _optimizer_step_assumptions(scenario: Scenario) -> list[Message]:
    """What the optimizer step and the gradients' lifetime add (decision 0052)."""
    out: list[Message] = []
    p = scenario.parallelism
    on_device = p.offload == "none" and not scenario.optimizer_in_backward
    if scenario.optimizer == "adamw" and on_device:
        if optimizer_step_is_foreach(scenario, p.strategy):
            out.append(
                Message(
                    N_(
                        "AdamW's step is counted as PyTorch's foreach implementation (its "
                        "default unless fused is stated): a temporary the size of one moment "
                        "at the step."
                    )
                )
            )
        else:
            out.append(
                Message(
                    N_(
                        "AdamW's step is counted as a fused implementation (stated, or the "
                        "default of DeepSpeed and Megatron-LM): no temporary at the step."
                    )
                )
            )
    if not scenario.uses_adapters and gradients_made_in_backward(scenario):
        out.append(
            Message(
                N_(
                    "Without gradient accumulation the gradients are made during the backward "
                    "pass as the activations are freed: only the output layer's gradient is "
                    "counted at its start."
                )
            )
        )
    return out


def _length_assumption(scenario: Scenario) -> Message:
    """Which length an unpacked run's memory is sized at (lengths.batch_length)."""
    length = batch_length(scenario)
    if length.basis == LONGEST:
        return Message(
            N_(
                "Samples are not packed: each batch is padded to its longest sample, so memory "
                "is sized for the longest sample stated, {tokens} tokens ({seq_len} is the "
                "truncation bound)."
            ),
            {"tokens": length.tokens, "seq_len": scenario.seq_len},
        )
    if length.basis == ESTIMATE:
        return Message(
            N_(
                "Samples are not packed: each batch is padded to its longest sample. Only the "
                "average length ({average} tokens) is stated, so memory is sized for an "
                "estimated longest sample of {tokens} tokens: the longest expected among "
                "{samples} samples whose lengths spread exponentially about that average "
                "({seq_len} is the truncation bound). State the longest sample to size for it."
            ),
            {
                "average": scenario.avg_tokens_per_sample,
                "tokens": length.tokens,
                "samples": length.samples,
                "seq_len": scenario.seq_len,
            },
        )
    return Message(
        N_(
            "Samples are not packed: memory is sized for batches padded to the full "
            "sequence length of {seq_len} tokens, the longest batch the run can meet."
        ),
        {"seq_len": scenario.seq_len},
    )


def _framework_assumptions(scenario: Scenario, traits: FrameworkTraits) -> list[Message]:
    """What the framework (or its absence) changes, in plain sentences."""
    out: list[Message] = []
    if scenario.framework is None:
        out.append(
            Message(
                N_(
                    "The training framework was not stated: the job is sized as the most used "
                    "stack, Hugging Face Transformers with PEFT and the Trainer or TRL (loss on "
                    "the whole logits, fp32 adapters, the whole model loaded before ZeRO-3 "
                    "partitions it); where another framework needs more, the band's upper edge "
                    "includes it."
                )
            )
        )
    p = scenario.parallelism
    if traits.naive_pipeline and p.pipeline_parallel > 1:
        out.append(
            Message(
                N_(
                    "The {stages} pipeline stages are a layer split (device_map): one "
                    "micro-batch passes through them at a time, so only one GPU works at once."
                ),
                {"stages": p.pipeline_parallel},
            )
        )
    if traits.whole_load_under_zero3 and p.strategy == "zero3" and p.offload != "optimizer+params":
        out.append(
            Message(
                N_(
                    "Under ZeRO-3 the whole model is assumed loaded onto each GPU before "
                    "DeepSpeed partitions it, whenever it fits there (as ms-swift's loader does; "
                    "the memory stays reserved): the peak is at least the whole 16-bit model. "
                    "Loading under deepspeed.zero.Init avoids it."
                )
            )
        )
    return out
