"""Step 1: the model and the fine-tuning method."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from advisor.domain import model_config
from advisor.domain.scenario import (
    ARCHITECTURE_NAMES,
    LIMITS,
    LORA_TARGET_NAMES,
    MODEL_SHAPE_KEYS,
    architecture_problems,
)
from advisor.presentation.labels import (
    METHOD_LABELS,
)
from advisor.presentation.text import render_text
from advisor.text import UserTextField, clean_text
from advisor.wizard import choices as catalog
from advisor.wizard import rules
from advisor.wizard.forms.fields import (
    NAME_MAX_LENGTH,
    StepForm,
    decimal,
    radios,
    whole,
)

SOURCE_CHOICES = [
    ("preset", _("Choose a model from the list")),
    ("custom", _("Describe the architecture yourself")),
    ("upload", _("Upload the model's config.json")),
]
METHOD_CHOICES = list(METHOD_LABELS.items())
METHOD_HINTS = {
    "full": _("Every weight is trained: the best quality, and by far the most memory."),
    "lora": _(
        "The model stays frozen and small adapter matrices are trained: a fraction of the memory."
    ),
    "qlora": _("LoRA on a frozen model stored in 4 or 8 bits: the least memory, a little slower."),
    "dora": _(
        "LoRA that also trains the size of each adapted weight: closer to full "
        "fine-tuning, more memory and time than LoRA."
    ),
    "freeze": _(
        "Only some layers are trained; the advisor counts every layer as trained, to "
        "stay on the safe side."
    ),
}
QUANT_CHOICES = [
    ("", _("Not set (4 bits for QLoRA)")),
    ("4", _("4 bits (NF4)")),
    ("8", _("8 bits")),
]
QUANT_FORMAT_CHOICES = [
    ("", _("Not set (bitsandbytes NF4, the QLoRA default)")),
    ("nf4", _("NF4 (bitsandbytes)")),
    ("nf4-double-quant", _("NF4 (bitsandbytes) with double quantisation")),
    ("gptq", _("A GPTQ checkpoint")),
    ("awq", _("An AWQ checkpoint")),
    ("torchao-nf4", _("NF4 (torchao, as torchtune's QLoRA uses it)")),
]
TARGET_CHOICES = [
    ("", _("Default (query and value projections)")),
    ("attention", _("All attention projections")),
    ("all-linear", _("Every linear layer in each block")),
    ("custom", _("These matrices:")),
]


class ModelStepForm(StepForm):
    choice_hints = {"method": METHOD_HINTS}
    empty_display = {
        "lora_rank": _("8 (the PEFT default)"),
        "lora_alpha": _("Not set (does not change memory)"),
        "kv_heads": _("Same as the attention heads"),
        "experts": _("None (a dense model)"),
        "experts_per_token": _("None (a dense model)"),
        "quant_bits": _("4 bits (NF4)"),
        "head_dim": _("Hidden size ÷ attention heads"),
        "sliding_window": _("None (every layer attends to the whole sequence)"),
        "sliding_window_layers": _("Every layer, when a window is given"),
    }

    source = radios(_("Where should the model come from?"), SOURCE_CHOICES, initial="preset")
    preset = forms.ChoiceField(
        label=_("Model"),
        required=False,
        help_text=_("Type to narrow the list, or scroll it."),
    )
    name = UserTextField(label=_("Model name"), required=False, max_length=NAME_MAX_LENGTH)
    params_b = decimal(
        _("Parameters (billions)"),
        low=LIMITS["model.params_b"][0],
        high=LIMITS["model.params_b"][1],
        help_text=_("Total, embeddings included; every expert counted for mixture-of-experts."),
    )
    layers = whole(_("Transformer layers"), "model.layers")
    hidden = whole(_("Hidden size"), "model.hidden")
    heads = whole(_("Attention heads"), "model.heads")
    kv_heads = whole(
        _("Key/value heads"),
        "model.kv_heads",
        help_text=_("Fewer than the attention heads for grouped-query attention; empty if equal."),
    )
    intermediate = whole(
        _("MLP width"),
        "model.intermediate",
        help_text=_("One projection's width (one expert's for mixture-of-experts)."),
    )
    vocab = whole(_("Vocabulary size"), "model.vocab")
    tied_embeddings = forms.BooleanField(
        label=_("The output head shares the embedding matrix"), required=False
    )
    experts = whole(
        _("Experts per layer"), "model.experts", help_text=_("Empty for a dense model.")
    )
    experts_per_token = whole(_("Experts each token uses"), "model.experts_per_token")
    head_dim = whole(
        _("Attention head size"),
        "model.head_dim",
        help_text=_(
            "Only when it is not the hidden size ÷ the heads (Gemma 2 9B: 256; Qwen3: 128). "
            "Empty: hidden ÷ heads."
        ),
    )
    sliding_window = whole(
        _("Sliding attention window (tokens)"),
        "model.sliding_window",
        help_text=_("The most tokens a layer looks back (Mistral 7B v0.1: 4096). Empty: none."),
    )
    sliding_window_layers = whole(
        _("Layers that use the window"),
        "model.sliding_window_layers",
        help_text=_("Gemma 2 windows every other layer (21 of 42). Empty: every layer."),
    )
    context_length = whole(
        _("Longest context the model supports (tokens)"),
        low=1,
        high=100 * LIMITS["seq_len"][1],
    )
    config_file = forms.FileField(
        label=_("config.json"),
        required=False,
        help_text=_("The file from the model's Hugging Face page, at most 256 KiB."),
    )
    method = radios(_("How will it be fine-tuned?"), METHOD_CHOICES, initial="lora")
    quant_bits = forms.ChoiceField(
        label=_("QLoRA base weights"), choices=QUANT_CHOICES, required=False
    )
    quant_format = forms.ChoiceField(
        label=_("Quantisation format"),
        choices=QUANT_FORMAT_CHOICES,
        required=False,
        help_text=_(
            "How the frozen model is quantised. GPTQ and AWQ checkpoints keep smaller constants "
            "and the output layer in 16 bits. Filled in from an uploaded config.json that states "
            "it."
        ),
    )
    lora_rank = whole(
        _("Adapter rank"), "lora.rank", help_text=_("Empty: 8, the PEFT default. 8 to 64 is usual.")
    )
    lora_alpha = whole(_("Adapter alpha"), "lora.alpha", help_text=_("Does not change memory."))
    lora_targets = forms.ChoiceField(
        label=_("Adapted matrices"),
        choices=TARGET_CHOICES,
        required=False,
        widget=forms.RadioSelect,
    )
    lora_target_names = forms.MultipleChoiceField(
        label=_("Matrices"),
        choices=[(name, name) for name in LORA_TARGET_NAMES],
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    ARCH_FIELDS = (
        "name",
        *MODEL_SHAPE_KEYS,
        "context_length",
        "head_dim",
        "sliding_window",
        "sliding_window_layers",
    )

    @classmethod
    def shown_fields(cls, stored: dict) -> list[str]:
        """The answers the check-answers page lists for these stored answers."""
        names = ["source"]
        source = stored.get("source")
        if source == "preset":
            names.append("preset")
        elif source in ("custom", "upload"):
            names += [n for n in cls.ARCH_FIELDS if n != "tied_embeddings"]
        names.append("method")
        if stored.get("method") == "qlora":
            names += ["quant_bits", "quant_format"]
        if stored.get("method") in ("lora", "qlora", "dora"):
            names += ["lora_rank", "lora_alpha", "lora_targets"]
            if stored.get("lora_targets") == "custom":
                names.append("lora_target_names")
        return names

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = [("", _("Choose a model"))] + catalog.preset_choices()

    def clean(self):
        data = super().clean()
        source = data.get("source")
        if source == "preset":
            self.require("preset")
        elif source == "custom":
            self._clean_custom()
        elif source == "upload":
            self._clean_upload()
        self._clean_method()
        return data

    def _clean_custom(self):
        self.require("name", "params_b", "layers", "hidden", "heads", "intermediate", "vocab")
        data = self.cleaned_data
        # The same check as the config.json upload and the scenario loader.
        names = {name: f"“{self.fields[name].label}”" for name in ARCHITECTURE_NAMES}
        for name, message in architecture_problems(data, names):
            self.add_error(
                name,
                _("%(field)s %(problem)s.")
                % {"field": self.fields[name].label, "problem": render_text(message)},
            )
        self._clean_window()

    def _clean_window(self):
        """The same rules as the scenario's (model.sliding_window_layers), in the form's words."""
        data = self.cleaned_data
        windowed, layers = data.get("sliding_window_layers"), data.get("layers")
        if windowed is None:
            return
        if data.get("sliding_window") is None:
            self.add_error(
                "sliding_window_layers", _("Give the window's length too, or leave this empty.")
            )
        elif layers is not None and windowed > layers:
            self.add_error(
                "sliding_window_layers",
                _("At most the number of layers (%(layers)s).") % {"layers": layers},
            )

    def _clean_upload(self):
        upload = self.cleaned_data.get("config_file")
        if upload is None:
            if self.stored.get("source") == "upload" and self.stored.get("layers"):
                for name in self.ARCH_FIELDS:  # keep the file read earlier
                    self.cleaned_data[name] = self.stored.get(name)
                self.cleaned_data["config_filename"] = self.stored.get("config_filename", "")
                return
            self.add_error("config_file", _("Choose the model's config.json file."))
            return
        try:
            fields = model_config.read(upload.read(model_config.MAX_BYTES + 1))
        except model_config.ConfigProblem as problem:
            self.add_error("config_file", render_text(problem.message))
            return
        fields["name"] = clean_text(fields["name"])[:NAME_MAX_LENGTH]
        for name in self.ARCH_FIELDS:
            self.cleaned_data[name] = fields.get(name)
        if not self.cleaned_data.get("name"):
            self.cleaned_data["name"] = upload.name[:NAME_MAX_LENGTH]
        self.cleaned_data["config_filename"] = upload.name[:NAME_MAX_LENGTH]
        if self.cleaned_data.get("method") == "qlora":
            # A quantised checkpoint states its format and bits (quantization_config): they
            # fill the answers left empty, never one the buyer gave.
            if fields.get("quant_format") and not self.cleaned_data.get("quant_format"):
                self.cleaned_data["quant_format"] = fields["quant_format"]
            if fields.get("quant_bits") and not self.cleaned_data.get("quant_bits"):
                self.cleaned_data["quant_bits"] = str(fields["quant_bits"])

    def _clean_method(self):
        data = self.cleaned_data
        method = data.get("method")
        problem = rules.quant_bits_problem(method, data.get("quant_bits"))
        if problem:
            self.add_error("quant_bits", problem)
        problem = rules.quant_format_problem(
            method, data.get("quant_format"), data.get("quant_bits")
        )
        if problem:
            self.add_error("quant_format", problem)
        problem = rules.adapter_problem(method, data)
        if problem:
            for name in rules.ADAPTER_FIELDS:
                if data.get(name) not in (None, "", []):
                    self.add_error(name, problem)
                    break
        if data.get("lora_targets") == "custom" and not data.get("lora_target_names"):
            self.add_error("lora_target_names", _("Tick at least one matrix, or pick a preset."))
        precision = self.context.get("training", {}).get("precision")
        problem = rules.precision_problem(method, precision)
        if problem:
            self.add_error("method", problem)
