"""Step 2: the data, the precision and the training set-up."""

from __future__ import annotations

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from advisor.domain import document as rules_of_the_document
from advisor.domain.scenario import (
    FRAMEWORKS,
    LIMITS,
)
from advisor.presentation.labels import (
    FRAMEWORK_LABELS,
    OPTIMIZER_LABELS,
    PACKING_LABELS,
    PRECISION_LABELS,
    default,
    recommended,
)
from advisor.presentation.text import render_text
from advisor.wizard import choices as catalog
from advisor.wizard import rules
from advisor.wizard.forms.fields import (
    SAMPLES_MAX,
    YES_NO,
    StepForm,
    decimal,
    radios,
    whole,
)

DATASET_CHOICES = [
    ("samples", _("Number of samples and their average length")),
    ("tokens", _("Total tokens")),
]
PRECISION_CHOICES = [
    (code, recommended(words) if code == "amp-bf16" else words)
    for code, words in PRECISION_LABELS.items()
]
PRECISION_HINTS = {
    "amp-bf16": _(
        "Computes in bf16 and keeps fp32 master weights: what most trainers do with "
        "bf16 switched on, on A100, H100, H20, Ascend and newer."
    ),
    "bf16": _("Everything in bf16, no fp32 copy: less memory, a little less precise."),
    "amp-fp16": _("For older GPUs without bf16 (V100, T4): computes in fp16 with loss scaling."),
    "fp16": _("Everything in fp16: rarely stable for training."),
    "fp32": _("Everything in fp32: twice the memory and much slower; for debugging."),
}
OPTIMIZER_CHOICES = [
    (code, default(words) if code == "adamw" else words) for code, words in OPTIMIZER_LABELS.items()
]
OPTIMIZER_HINTS = {
    "adamw": _("Two moments per trained weight; the standard choice."),
    "adamw-8bit": _("Moments stored in 8 bits: about a quarter of AdamW's optimizer memory."),
    "paged-adamw-8bit": _(
        "8-bit AdamW that spills to host memory instead of running out; the usual QLoRA choice."
    ),
    "paged-adamw": _("32-bit AdamW that spills to host memory when the GPU runs short."),
    "adafactor": _("Factored moments: much less optimizer memory, tuning is fussier."),
    "sgd": _("No moments: least memory, rarely used to fine-tune language models."),
}
NOT_SURE = ""  # stored for "not sure"; the scenario says null
FRAMEWORK_CHOICES = [
    (NOT_SURE, _("Not sure")),
    *((key, FRAMEWORK_LABELS[key]) for key in FRAMEWORKS),
]


OPTIMIZER_IMPL_CHOICES = [
    (NOT_SURE, _("Not sure: the framework's default")),
    ("fused", _("Fused (one kernel, no extra memory at the step)")),
    ("foreach", _("Foreach (PyTorch's default: a temporary the size of one moment at the step)")),
]
FUSED_LOSS_CHOICES = [
    (NOT_SURE, _("Not sure: the logits are kept")),
    ("yes", _("Yes, a fused linear cross-entropy (no logits kept)")),
    ("no", _("No")),
]

TORCH_COMPILE_CHOICES = [
    (NOT_SURE, _("Not sure: run eagerly")),
    ("yes", _("Yes, torch.compile")),
    ("no", _("No")),
]

LENGTH_GROUPED_CHOICES = [
    (NOT_SURE, _("Not sure: shuffled")),
    ("yes", _("Yes, grouped by length, longest batch first")),
    ("no", _("No")),
]

PACKING_CHOICES = [
    (NOT_SURE, _("Not sure")),
    ("yes", PACKING_LABELS[True]),
    ("no", PACKING_LABELS[False]),
]


class TrainingStepForm(StepForm):
    choice_hints = {"precision": PRECISION_HINTS, "optimizer": OPTIMIZER_HINTS}
    empty_display = {
        "deadline": _("No deadline"),
        "longest_sample": _("Not stated: estimated from the average, else the sequence length"),
    }

    seq_len = whole(
        _("Sequence length (tokens)"),
        "seq_len",
        required=True,
        help_text=_("The longest sample after truncation; 2,048 to 8,192 is common."),
    )
    micro_batch = whole(
        _("Sequences per GPU per step"),
        "micro_batch",
        required=True,
        initial=1,
        help_text=_("The micro-batch; 1 needs the least memory."),
    )
    dataset_mode = radios(
        _("How do you know the dataset's size?"), DATASET_CHOICES, initial="samples"
    )
    samples = whole(_("Number of samples"), low=1, high=SAMPLES_MAX)
    avg_tokens = whole(_("Average tokens per sample"), "seq_len")
    total_tokens = whole(_("Total tokens in the dataset"), "training.dataset_tokens")
    epochs = decimal(
        _("Epochs"),
        low=LIMITS["training.epochs"][0],
        high=LIMITS["training.epochs"][1],
        required=True,
        initial=3,
        help_text=_("Passes over the dataset; 1 to 3 is usual for fine-tuning."),
    )
    deadline = forms.DateField(
        label=_("Training must finish by"),
        required=False,
        help_text=_("For example 2027-03-31."),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    precision = radios(_("Precision"), PRECISION_CHOICES, initial="amp-bf16")
    optimizer = radios(_("Optimizer"), OPTIMIZER_CHOICES, initial="adamw")
    gradient_checkpointing = radios(
        _("Gradient checkpointing"),
        YES_NO,
        initial="yes",
        help_text=_(
            "Recomputes activations instead of storing them: much less memory, about "
            "a third slower. Recommended."
        ),
    )
    flash_attention = radios(
        _("FlashAttention"),
        YES_NO,
        initial="yes",
        help_text=_(
            "A fused attention kernel that never stores the full attention matrix. "
            "Recommended wherever it is supported."
        ),
    )
    framework = radios(
        _("Training framework"),
        FRAMEWORK_CHOICES,
        initial=NOT_SURE,
        required=False,
        help_text=_(
            "The software your team will fine-tune with. Frameworks differ in how they compute "
            "the loss, keep the adapters and load the model, which changes the memory needed. "
            "“Not sure” sizes the job as the most used stack (Hugging Face Transformers with "
            "PEFT and TRL); where another framework needs more, the upper edge of the memory "
            "band includes it."
        ),
    )
    optimizer_impl = radios(
        _("AdamW implementation"),
        OPTIMIZER_IMPL_CHOICES,
        initial=NOT_SURE,
        required=False,
        help_text=_(
            "Only for AdamW. “Not sure” takes the framework's default: fused under DeepSpeed "
            "and Megatron, foreach otherwise."
        ),
    )
    fused_loss = radios(
        _("Fused loss kernel"),
        FUSED_LOSS_CHOICES,
        initial=NOT_SURE,
        required=False,
        help_text=_(
            "Kernels such as Liger's fused linear cross-entropy compute the loss without ever "
            "holding the logits, which saves memory on large vocabularies."
        ),
    )
    torch_compile = radios(
        _("Compiled training step"),
        TORCH_COMPILE_CHOICES,
        initial=NOT_SURE,
        required=False,
        help_text=_(
            "Whether the training step runs under torch.compile (torchtune's compile: True). "
            "With a chunked loss it keeps only the 16-bit logits, not their fp32 log-softmax."
        ),
    )

    packed = radios(
        _("Sample lengths"),
        PACKING_CHOICES,
        initial=NOT_SURE,
        required=False,
        help_text=_(
            "Packing joins samples into full-length sequences. With “Varying”, each batch is "
            "padded to its own longest sample, so memory is sized for the dataset's longest sample "
            "(asked below) rather than the full sequence length; “Not sure” sizes the full "
            "length. When lengths vary, GPU monitoring shows more memory than the job needs "
            "(the allocator keeps blocks sized for earlier batches)."
        ),
    )
    longest_sample = whole(
        _("Longest sample (tokens)"),
        "longest_sample_tokens",
        help_text=_(
            "The dataset's longest sample after tokenisation, chat template included: at most "
            "the sequence length, at least the average tokens per sample. Batches that are not "
            "packed are padded to their longest sample, so memory is sized for this length. "
            "Left empty, the advisor estimates it from the average tokens per sample and the "
            "number of samples, or, without them, uses the sequence length."
        ),
    )

    length_grouped = radios(
        _("Samples grouped by length"),
        LENGTH_GROUPED_CHOICES,
        initial=NOT_SURE,
        required=False,
        help_text=_(
            "For samples of varying length: Transformers' group_by_length puts the longest "
            "batch first, so GPU monitoring shows little more than the job needs."
        ),
    )
    empty_cache_steps = whole(
        _("Cache emptied every N steps"),
        "empty_cache_steps",
        help_text=_(
            "For samples of varying length: Transformers' torch_empty_cache_steps. Only 1 "
            "(every step) is counted as lowering what GPU monitoring shows. Leave empty if not."
        ),
    )

    @classmethod
    def shown_fields(cls, stored: dict) -> list[str]:
        dataset = (
            ["samples", "avg_tokens"]
            if stored.get("dataset_mode") == "samples"
            else ["total_tokens"]
        )
        return [
            "seq_len",
            "micro_batch",
            "dataset_mode",
            *dataset,
            "epochs",
            "deadline",
            "precision",
            "optimizer",
            "gradient_checkpointing",
            "flash_attention",
            "framework",
            "optimizer_impl",
            "fused_loss",
            "torch_compile",
            "packed",
            *(["longest_sample"] if stored.get("packed") == "no" else []),
            *(["length_grouped", "empty_cache_steps"] if stored.get("packed") != "yes" else []),
        ]

    def clean_deadline(self):
        deadline = self.cleaned_data.get("deadline")
        if deadline is None:
            return None
        problem = rules_of_the_document.deadline_problem(deadline, timezone.localdate())
        if problem is not None:
            raise forms.ValidationError(render_text(problem))
        return deadline

    def clean(self):
        data = super().clean()
        if data.get("dataset_mode") == "samples":
            self.require("samples", "avg_tokens")
            samples, avg = data.get("samples"), data.get("avg_tokens")
            if samples and avg and samples * avg > LIMITS["training.dataset_tokens"][1]:
                self.add_error(
                    "samples",
                    _(
                        "Samples × tokens exceeds the largest dataset the "
                        "advisor accepts (10¹⁵ tokens)."
                    ),
                )
        elif data.get("dataset_mode") == "tokens":
            self.require("total_tokens")
        model = self.context.get("model", {})
        problem = rules.seq_len_problem(data.get("seq_len"), catalog.context_length(model))
        if problem:
            self.add_error("seq_len", problem)
        problem = rules.precision_problem(model.get("method"), data.get("precision"))
        if problem:
            self.add_error("precision", problem)
        if data.get("packed") == "no":  # only unpacked batches are sized at the longest sample
            average = data.get("avg_tokens") if data.get("dataset_mode") == "samples" else None
            problem = rules.longest_sample_problem(
                data.get("seq_len"), data.get("longest_sample"), average
            )
            if problem:
                self.add_error("longest_sample", problem)
        problem = rules.optimizer_impl_problem(data.get("optimizer"), data.get("optimizer_impl"))
        if problem:
            self.add_error("optimizer_impl", problem)
        return data
