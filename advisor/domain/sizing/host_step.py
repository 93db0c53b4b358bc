"""Host work of one optimizer step, by the loop that runs it (issue 29 item 6).

The optimizer step's device time (compute.optimizer_seconds) is its memory traffic at the
memory bandwidth. The host must also issue it: each Python-level operator call costs host time
whatever the tensor's size, so a step over many small tensors (LoRA's adapters: two per adapted
matrix) or a loop that visits every tensor in Python is bounded by the host, not the device.
How many calls a step makes depends on the loop type, read from the framework code:

* **foreach** (PyTorch's multi-tensor AdamW, its default on CUDA since 2.0): ``torch/optim/
  adamw.py`` ``_multi_tensor_adamw`` at v2.5.0 (https://github.com/pytorch/pytorch/blob/v2.5.0/
  torch/optim/adamw.py) makes one ``torch._foreach_add_`` on the step counters, then
  ``_foreach_mul_`` (weight decay), ``_foreach_lerp_`` (first moment), ``_foreach_mul_`` and
  ``_foreach_addcmul_`` (second moment), ``_foreach_sqrt``, ``_foreach_div_``, ``_foreach_add_``
  (eps) and ``_foreach_addcdiv_`` (the update): 9 calls per (device, dtype) group, whatever the
  number of tensors (the C++ multi_tensor_apply splits them into kernel launches without Python).
* **fused** (``torch.optim.AdamW(fused=True)``, the Trainer's ``adamw_torch_fused``, DeepSpeed's
  FusedAdam, Megatron's fused Adam): ``_fused_adamw`` in the same file makes one
  ``_foreach_add_`` on the counters and one ``torch._fused_adamw_``: 2 calls per group.
* **per tensor, synchronised** (bitsandbytes' 8-bit and paged optimizers): ``Optimizer8bit.step``
  in ``bitsandbytes/optim/optimizer.py`` (https://github.com/bitsandbytes-foundation/
  bitsandbytes/blob/06029dd6edcc719e5831443179bcb206c6355093/bitsandbytes/optim/optimizer.py)
  loops over every parameter in Python: ``prefetch_state`` (two ``F.prefetch_tensor`` calls when
  the states are paged), ``update_step`` (one ``F.optimizer_update_32bit`` or
  ``optimizer_update_8bit_blockwise`` kernel) and ``torch.cuda.synchronize()`` after each
  parameter: 2 calls per tensor, 4 when paged. The synchronisation makes the device wait for the
  host between tensors, so host and device time add up instead of overlapping.
* **optimizer in the backward pass** (torchtune's ``optimizer_in_bwd``: ``training.
  register_optim_in_bwd_hooks`` builds one optimizer per parameter, ``{p: config.instantiate(
  cfg_optimizer, [p]) for p in model.parameters()}`` in ``recipes/full_finetune_single_device.py``
  at v0.5.0, https://github.com/pytorch/torchtune/blob/v0.5.0/recipes/
  full_finetune_single_device.py): every tensor is its own group, so a foreach or fused step
  makes its calls once per tensor.
* **gradient clipping** (the Hugging Face Trainer clips at ``max_grad_norm`` 1.0 by default,
  ``TrainingArguments`` in ``src/transformers/training_args.py`` at v4.46.0, https://github.com/
  huggingface/transformers/blob/v4.46.0/src/transformers/training_args.py):
  ``torch.nn.utils.clip_grad_norm_`` (``torch/nn/utils/clip_grad.py`` at v2.5.0) makes
  ``_foreach_norm``, ``stack``, ``vector_norm``, the add and division of ``clip_coef``,
  ``clamp`` and ``_foreach_mul_``: 7 calls. Counted for ``framework: hf`` and when the framework
  is not stated (the heavier default); torchtune's and LitGPT's recipes leave clipping off unless
  configured, Megatron clips with its own fused multi-tensor kernels.

**ZeRO-3's fetch and release** (issue 49 item 5): DeepSpeed ZeRO-3 gathers a module's partitioned
parameter tensors before the module runs and frees them after it, in every pass that uses them
(the forward, a recomputed forward and the backward). Its host loop visits every tensor: at
v0.17.2 (https://github.com/deepspeedai/DeepSpeed/blob/v0.17.2/deepspeed/runtime/zero/
partition_parameters.py) ``_all_gather_dtype`` moves each tensor's shard with two ``.to`` calls
into the flat buffer; ``AllGatherCoalescedHandle.wait`` takes one ``narrow`` of each rank's piece
and records each piece on the compute stream (``record_stream``), then ``torch.cat``, ``view``,
``to`` and the ``param.data`` assignment; ``fetch_sub_module`` (``partitioned_param_coordinator
.py``) creates and records an Event per tensor; ``free_param`` records the data on the stream,
makes an empty tensor and assigns it: ``2 x ranks + 11`` calls per tensor and pass
(ZERO3_CALLS_PER_TENSOR_AND_RANK, ZERO3_CALLS_PER_TENSOR). DeepSpeed's own maintainers name the
cost: "the loop time is excessively long in fine-grained module" and it introduces "a device
bubble" (pull request 6694, "Reduce the device bubble introduced by heavy loop synchronization in
coalesced fetch/release (z3_leaf_module)", https://github.com/deepspeedai/DeepSpeed/pull/6694,
on MoE blocks of 64 experts of three matrices each, pull request 6649). Where a model's experts
run as a Python loop that waits for the device (compute.EXPERT_CALL_SHARE_OF_LAYER: torch.where
in every expert), the host cannot run ahead, so the fetch and release of the routed experts'
tensors (each expert's matrices and the router; norms and biases stay whole below ZeRO-3's
persistence threshold) add to the step. Every other tensor's fetch is issued ahead of the device,
behind DeepSpeed's prefetch, and is not counted: no published dense ZeRO-3 run shows it, and
with each of its calls (many of them views: ``narrow``, ``view``) at the cost of a layer's
operator call it would halve a 7B model's ZeRO-3 throughput on eight H100s, which no source
reports.

Tensors are counted from the architecture (trained_tensors). Under DeepSpeed ZeRO and with
Megatron's distributed optimizer the optimizer sees flat buffers, one per parameter group
(DeepSpeed ``stage_1_and_2.py`` ``bit16_groups_flat``), so the count there is the groups'.

The host time of one call is the calibrated launch overhead of a layer and pass
(``calibration.Calibration.layer_pass_overhead_s``) over the 37 operator calls of an eager Llama
decoder layer (the count behind compute.EXPERT_CALL_SHARE_OF_LAYER): no new fitted constant.
Not counted: the Python bookkeeping per tensor inside a foreach step (``_init_group``,
``_get_value`` of each step counter), a fraction of a call each; Adafactor and the optimizer
on the CPU (offload), whose step is in compute.offload_seconds.
"""

from __future__ import annotations

from advisor.domain.scenario import Scenario, adapter_count

# Operator calls of an eager Llama decoder layer in one pass (compute.EXPERT_CALL_SHARE_OF_LAYER).
CALLS_PER_LAYER_PASS = 37

# Kernels of a Llama decoder layer compiled by TorchInductor in one pass: the seven weight
# products and attention stay library calls (extern kernels); the norms, rotary embedding,
# residual adds, the output copy and the MLP's activation and product fuse into five generated
# kernels (the input norm; rotary on q and k; the residual add with the second norm; the
# activation with the product; the last residual add).
COMPILED_CALLS_PER_LAYER_PASS = 13

FOREACH_ADAMW_CALLS = 9  # per (device, dtype) group: _multi_tensor_adamw at PyTorch v2.5.0
FUSED_ADAMW_CALLS = 2  # per group: _fused_adamw (the counters' _foreach_add_, _fused_adamw_)
BNB_CALLS_PER_TENSOR = 2  # update_step's kernel and torch.cuda.synchronize()
BNB_PAGED_PREFETCH_CALLS = 2  # prefetch_state: the two states (paged optimizers)
CLIP_CALLS = 7  # torch.nn.utils.clip_grad_norm_, foreach path, at PyTorch v2.5.0
FLAT_BUFFERS = 2  # DeepSpeed ZeRO / Megatron: one flat buffer per group (decay, no decay)

# DeepSpeed ZeRO-3's host calls per partitioned tensor and pass (see the module docstring).
ZERO3_CALLS_PER_TENSOR_AND_RANK = 2  # a narrow and a record_stream of each rank's piece
ZERO3_CALLS_PER_TENSOR = 11  # 2 .to, cat, view, to, data; Event and record; release's 3

BNB_OPTIMIZERS = frozenset(("adamw-8bit", "paged-adamw", "paged-adamw-8bit"))
PAGED_OPTIMIZERS = frozenset(("paged-adamw", "paged-adamw-8bit"))
ZERO_STRATEGIES = frozenset(("zero1", "zero2", "zero3"))
CLIPPING_FRAMEWORKS = frozenset(("hf", None))

# Per block of a full fine-tuning: the two norms' weights besides the matrices; per model: the
# input embedding and the final norm (the untied output head is one more).
NORMS_PER_BLOCK = 2
ATTENTION_MATRICES = 4  # q, k, v, o


def layer_call_share(scenario: Scenario) -> float:
    """Operator calls per layer and pass of the scenario's loop over an eager layer's 37."""
    if scenario.torch_compile:
        return COMPILED_CALLS_PER_LAYER_PASS / CALLS_PER_LAYER_PASS
    return 1.0


def loop_type(scenario: Scenario, strategy: str) -> str | None:
    """``"bnb"``, ``"fused"``, ``"foreach"``, or ``None`` when no host loop is counted (the
    step runs on the CPU, or an optimizer whose loop is not modelled)."""
    if scenario.parallelism.offload != "none":
        return None
    if scenario.optimizer in BNB_OPTIMIZERS:
        return "bnb"
    if scenario.optimizer != "adamw":
        return None
    if scenario.optimizer_impl is not None:
        return scenario.optimizer_impl
    fused_by_default = scenario.framework == "megatron" or strategy in ZERO_STRATEGIES
    return "fused" if fused_by_default else "foreach"


def trained_tensors(scenario: Scenario) -> float:
    """Parameter tensors that receive gradients and an optimizer update, whole model.

    Adapters: A and B per adapted matrix of every block (routed experts counted), DoRA's
    magnitude vector a third, and the output head's pair when adapted. Full fine-tuning: every
    matrix of every block, its two norms, the router of a mixture of experts, the embedding,
    the final norm and an untied output head (biases not counted: v1 does not say them).
    """
    model = scenario.model
    if scenario.uses_adapters:
        per_matrix = 3 if scenario.method == "dora" else 2
        count = adapter_count(scenario)
        tensors = _layers(model) * count.adapted_matrices * per_matrix
        if "lm_head" in scenario.lora_or_default.target_names:
            tensors += per_matrix
        return tensors
    layout = model.layout
    gated = layout.gated_mlp if layout is not None else True
    experts = layout.routed_expert_count if layout is not None else 1
    mlp = (3 if gated else 2) * experts + (1 if experts > 1 else 0)
    per_block = ATTENTION_MATRICES + mlp + NORMS_PER_BLOCK
    head = 0 if model.tied_embeddings else 1
    return _layers(model) * per_block + 2 + head


def _layers(model) -> float:
    """The model's blocks, or for a generic size the estimate scenario.adapter_count makes
    (hidden ~ (P x 128 / 12)^(1/3), layers ~ hidden / 128)."""
    if model.layers is not None:
        return model.layers
    return (model.params * 128 / 12) ** (1 / 3) / 128


def optimizer_host_calls(scenario: Scenario, strategy: str, pipeline_parallel: int = 1) -> float:
    """Python-level operator calls one GPU makes for one optimizer step (the loop and, for the
    Hugging Face Trainer or an unstated framework, gradient clipping)."""
    loop = loop_type(scenario, strategy)
    if loop is None:
        return 0.0
    flat = strategy in ZERO_STRATEGIES or scenario.framework == "megatron"
    tensors = FLAT_BUFFERS if flat else trained_tensors(scenario) / pipeline_parallel
    clip = CLIP_CALLS if scenario.framework in CLIPPING_FRAMEWORKS else 0
    if loop == "bnb":
        per_tensor = BNB_CALLS_PER_TENSOR
        if scenario.optimizer in PAGED_OPTIMIZERS:
            per_tensor += BNB_PAGED_PREFETCH_CALLS
        return tensors * per_tensor + clip
    calls = FOREACH_ADAMW_CALLS if loop == "foreach" else FUSED_ADAMW_CALLS
    # One group a step, or every tensor its own: an optimizer per tensor in the backward pass,
    # and ZeRO's FusedAdam steps each flat buffer's group in turn.
    groups = tensors if scenario.optimizer_in_backward or flat else 1
    return groups * calls + clip


def host_synchronised(scenario: Scenario) -> bool:
    """Whether the step waits for the device after every tensor (bitsandbytes), so its host
    and device time add up; otherwise the host issues ahead and the longer of the two counts."""
    return scenario.parallelism.offload == "none" and scenario.optimizer in BNB_OPTIMIZERS


def call_seconds(layer_pass_overhead_s: float) -> float:
    """Host seconds of one operator call: the calibrated overhead of a layer and pass over its
    calls (the time model's step and the catalog sweep both take it from here)."""
    return layer_pass_overhead_s / CALLS_PER_LAYER_PASS


def host_seconds(calls: float, layer_pass_overhead_s: float) -> float:
    """Host seconds of ``calls`` operator calls at the calibrated cost of one call."""
    return calls * layer_pass_overhead_s / CALLS_PER_LAYER_PASS


def zero3_calls_per_tensor(data_parallel: int) -> float:
    """Host calls of ZeRO-3's fetch and release of one tensor in one pass, gathered over
    ``data_parallel`` ranks (0 on one rank: DeepSpeed's ``_no_gather_coalesced`` path)."""
    if data_parallel <= 1:
        return 0.0
    return ZERO3_CALLS_PER_TENSOR_AND_RANK * data_parallel + ZERO3_CALLS_PER_TENSOR


def zero3_routed_tensors(scenario: Scenario) -> float:
    """The routed experts' tensors of the whole model that ZeRO-3 fetches per pass: each
    expert's matrices and the router of every MoE layer (0 for a dense model)."""
    model = scenario.model
    layout = model.layout
    experts = layout.routed_expert_count if layout is not None else 1
    if experts <= 1:
        return 0.0
    matrices = 3 if layout.gated_mlp else 2
    return _layers(model) * (matrices * experts + 1)
