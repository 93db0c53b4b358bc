"""One form per step. Forms validate and explain; they never write (services do).

Every form takes ``context``: the answers already given on the other steps, for the rules that
span steps (QLoRA with fp32, a sequence longer than the model's context). Numbers use text
inputs with ``inputmode`` (GOV.UK advice: number inputs mangle large values and scroll).
"""

from __future__ import annotations

import datetime

from django import forms
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _

from advisor.assessments.models import TITLE_MAX_LENGTH
from advisor.domain import document as rules_of_the_document
from advisor.domain import model_config
from advisor.domain.i18n import Message
from advisor.domain.scenario import (
    ARCHITECTURE_NAMES,
    FRAMEWORKS,
    LIMITS,
    LORA_TARGET_NAMES,
    architecture_problems,
)
from advisor.presentation.labels import (
    FRAMEWORK_LABELS,
    METHOD_LABELS,
    OPTIMIZER_LABELS,
    PACKING_LABELS,
    PRECISION_LABELS,
    default,
    recommended,
)
from advisor.presentation.text import render_text
from advisor.text import UserTextField, clean_text
from advisor.wizard import choices as catalog
from advisor.wizard import rules
from vendors.choices import SiteCooling

# The validator's words for a number out of range or not a number (advisor.domain.document).
RANGE = rules_of_the_document.RANGE
NOT_A_NUMBER = rules_of_the_document.NOT_A_NUMBER
NOT_A_WHOLE_NUMBER = rules_of_the_document.NOT_A_WHOLE_NUMBER


def _fmt(value) -> str:
    """As the validator writes a limit: 1 and 300, not 1.0 and 300.0; 0.5 stays 0.5."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


NAME_MAX_LENGTH = 100
SAMPLES_MAX = 10**12
BUDGET_MAX_CNY = 10**11
YEARS_MAX = 15
HOURS_PER_YEAR_MAX = 8760
DEADLINE_MAX_YEARS = rules_of_the_document.DEADLINE_MAX_YEARS
COMPARE_MIN, COMPARE_MAX = 2, 6


def _limits(path: str) -> dict:
    low, high = LIMITS[path]
    return {"min_value": low, "max_value": high}


def _field_problem(label, template: str, params: dict) -> str:
    """``<label> <the validator's words>.``: the same words the command line prints after the
    field path (``site.room.pue: must be between 1 and 3``). Escaped for Django, which formats
    a field's error message with the validator's parameters."""
    problem = render_text(Message(template, params))
    return (_("%(field)s %(problem)s.") % {"field": label, "problem": problem}).replace("%", "%%")


field_problem = lazy(_field_problem, str)


def _number_messages(label, low, high, *, whole_number: bool) -> dict:
    between = field_problem(label, RANGE, {"low": _fmt(low), "high": _fmt(high)})
    invalid = NOT_A_WHOLE_NUMBER if whole_number else NOT_A_NUMBER
    return {
        "min_value": between,
        "max_value": between,
        "invalid": field_problem(label, invalid, {}),
    }


def whole(label, path=None, *, low=None, high=None, required=False, help_text="", initial=None):
    """A whole-number field on a text input (limits from the scenario unless given)."""
    if path is not None:
        low, high = LIMITS[path]
    return forms.IntegerField(
        label=label,
        required=required,
        min_value=int(low),
        max_value=int(high),
        help_text=help_text,
        initial=initial,
        error_messages=_number_messages(label, low, high, whole_number=True),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "spellcheck": "false"}),
    )


def decimal(label, *, low, high, required=False, help_text="", initial=None):
    return forms.FloatField(
        label=label,
        required=required,
        min_value=low,
        max_value=high,
        help_text=help_text,
        initial=initial,
        error_messages=_number_messages(label, low, high, whole_number=False),
        widget=forms.TextInput(attrs={"inputmode": "decimal", "spellcheck": "false"}),
    )


def radios(label, choices, *, initial=None, required=True, help_text=""):
    return forms.ChoiceField(
        label=label,
        choices=choices,
        initial=initial,
        required=required,
        help_text=help_text,
        widget=forms.RadioSelect,
    )


YES_NO = [("yes", _("Yes")), ("no", _("No"))]


class StepForm(forms.Form):
    """Base: knows the other steps' answers and turns its cleaned data into JSON."""

    # Choice hints shown under each radio option: {field: {value: sentence}}.
    choice_hints: dict[str, dict[str, str]] = {}
    # What the check-answers page says for an empty optional answer: {field: sentence}.
    empty_display: dict = {}
    # Answers shown as CNY amounts on the check-answers page.
    money_fields: frozenset = frozenset()

    def __init__(self, *args, context: dict | None = None, stored: dict | None = None, **kw):
        self.context = context or {}
        self.stored = stored or {}
        if "initial" not in kw and stored:
            kw["initial"] = stored
        super().__init__(*args, **kw)

    def to_answers(self) -> dict:
        out = {}
        for name, value in self.cleaned_data.items():
            if isinstance(value, datetime.date):
                value = value.isoformat()
            elif hasattr(value, "read"):  # uploaded files are parsed, never stored
                continue
            out[name] = value
        return out

    def require(self, *names):
        for name in names:
            if name in self.errors:  # already explained (e.g. "Enter a whole number")
                continue
            if self.cleaned_data.get(name) in (None, "", []):
                self.add_error(name, forms.ValidationError(_("Enter this value.")))


# --- Step 1: the model and the method ----------------------------------------------------

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
        "params_b",
        "layers",
        "hidden",
        "heads",
        "kv_heads",
        "intermediate",
        "vocab",
        "tied_embeddings",
        "experts",
        "experts_per_token",
        "context_length",
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
            names.append("quant_bits")
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

    def _clean_method(self):
        data = self.cleaned_data
        method = data.get("method")
        problem = rules.quant_bits_problem(method, data.get("quant_bits"))
        if problem:
            self.add_error("quant_bits", problem)
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


# --- Step 2: training --------------------------------------------------------------------

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


PACKING_CHOICES = [
    (NOT_SURE, _("Not sure")),
    ("yes", PACKING_LABELS[True]),
    ("no", PACKING_LABELS[False]),
]


class TrainingStepForm(StepForm):
    choice_hints = {"precision": PRECISION_HINTS, "optimizer": OPTIMIZER_HINTS}
    empty_display = {"deadline": _("No deadline")}

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
            "“Not sure” assumes the heavier behaviour wherever they differ."
        ),
    )

    packed = radios(
        _("Sample lengths"),
        PACKING_CHOICES,
        initial=NOT_SURE,
        required=False,
        help_text=_(
            "Packing joins samples into full-length sequences. When lengths vary, GPU monitoring "
            "shows more memory than the job needs (the allocator keeps blocks sized for earlier "
            "batches); it does not change which servers fit."
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
            "packed",
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
        return data


# --- Step 3: site ------------------------------------------------------------------------

SITE_MODE_CHOICES = [
    ("catalog", _("A data center from the catalog")),
    ("own", _("Our own machine room")),
    ("compare", _("Compare several data centers")),
]


class SiteStepForm(StepForm):
    mode = radios(_("Where will the servers run?"), SITE_MODE_CHOICES, initial="catalog")
    data_center = forms.ChoiceField(label=_("Data center"), required=False)
    compare = forms.MultipleChoiceField(
        label=_("Data centers to compare"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Tick 2 to 6."),
    )
    room_name = UserTextField(label=_("Room name"), required=False, max_length=NAME_MAX_LENGTH)
    province = forms.ChoiceField(
        label=_("Province"),
        required=False,
        help_text=_("Sets the policy zone: its PUE limit and electricity tariff."),
    )
    max_kw_per_rack = decimal(
        _("Power per rack (kW)"),
        low=0.5,
        high=300,
        help_text=_("An 8-GPU server draws about 10 kW at full load."),
    )
    cooling_available = forms.MultipleChoiceField(
        label=_("Cooling available"),
        choices=SiteCooling.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    floor_load_kg_per_m2 = decimal(
        _("Floor load (kg/m²)"),
        low=100,
        high=20_000,
        help_text=_("An 8-GPU server alone weighs 130 kg or more."),
    )
    inlet_temp_min_c = decimal(_("Lowest inlet temperature held (°C)"), low=-10, high=60)
    inlet_temp_max_c = decimal(_("Highest inlet temperature held (°C)"), low=-10, high=60)
    humidity_min_pct = decimal(_("Lowest relative humidity held (%)"), low=0, high=100)
    humidity_max_pct = decimal(_("Highest relative humidity held (%)"), low=0, high=100)
    pue = decimal(
        _("PUE"),
        low=1.0,
        high=3.0,
        help_text=_("Measured over a year if you have it; Guizhou's limit for new rooms is 1.2."),
    )
    power_feeds = whole(_("Independent utility power feeds"), low=1, high=8)
    ups_minutes = decimal(_("UPS backup (minutes)"), low=0, high=1440)
    generator_start_s = decimal(
        _("Diesel generator start time (seconds)"),
        low=0,
        high=3600,
        help_text=_("Empty if there is no generator."),
    )

    ROOM_FIELDS = (
        "room_name",
        "province",
        "max_kw_per_rack",
        "cooling_available",
        "floor_load_kg_per_m2",
        "inlet_temp_min_c",
        "inlet_temp_max_c",
        "humidity_min_pct",
        "humidity_max_pct",
        "pue",
        "power_feeds",
        "ups_minutes",
        "generator_start_s",
    )

    @classmethod
    def shown_fields(cls, stored: dict) -> list[str]:
        mode = stored.get("mode")
        if mode == "catalog":
            return ["mode", "data_center"]
        if mode == "compare":
            return ["mode", "compare"]
        return ["mode", *cls.ROOM_FIELDS]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        centers = catalog.data_center_choices()
        self.fields["data_center"].choices = [("", _("Choose a data center"))] + centers
        self.fields["compare"].choices = centers
        self.fields["province"].choices = [("", _("Choose a province"))] + (
            catalog.province_choices()
        )
        # An unknown key (a crafted post) gets the command line's words for it.
        for name, template in (
            ("province", rules_of_the_document.NOT_A_POLICY_ZONE),
            ("data_center", rules_of_the_document.NOT_A_DATA_CENTER),
            ("compare", rules_of_the_document.NOT_A_DATA_CENTER),
        ):
            self.fields[name].error_messages["invalid_choice"] = render_text(
                Message(template, {"value": "%(value)s"})
            )

    def clean(self):
        data = super().clean()
        mode = data.get("mode")
        if mode == "catalog":
            self.require("data_center")
        elif mode == "compare":
            chosen = data.get("compare") or []
            if not COMPARE_MIN <= len(chosen) <= COMPARE_MAX:
                self.add_error(
                    "compare",
                    _("Tick between %(low)s and %(high)s data centers (you ticked %(n)s).")
                    % {"low": COMPARE_MIN, "high": COMPARE_MAX, "n": len(chosen)},
                )
        elif mode == "own":
            self.require("room_name", "province", "max_kw_per_rack", "pue", "power_feeds")
            self._ordered("inlet_temp_min_c", "inlet_temp_max_c")
            self._ordered("humidity_min_pct", "humidity_max_pct")
        return data

    def _ordered(self, low_name, high_name):
        low, high = self.cleaned_data.get(low_name), self.cleaned_data.get(high_name)
        if low is not None and high is not None and low > high:
            self.add_error(
                high_name, render_text(Message(rules_of_the_document.HIGHEST_BELOW_LOWEST))
            )


# --- Step 4: procurement -----------------------------------------------------------------

MODE_CHOICES = [
    ("any", _("Show every way")),
    ("buy", _("Buy servers")),
    ("rent", _("Rent servers by the month")),
    ("cloud", _("Rent cloud GPUs by the hour")),
]
USAGE_CHOICES = [
    ("once", _("One job: price this run")),
    ("programme", _("A programme: runs a year over several years")),
]
QUALIFICATION_CHOICES = [
    ("idc-licence", _("Value-added telecom licence for IDC services (增值电信业务经营许可证)")),
    ("icp-filing", _("ICP filing number")),
    ("iso-27001", _("ISO/IEC 27001")),
    ("iso-9001", _("ISO 9001")),
    ("mlps-3", _("MLPS 2.0 level 3 assessment (等保三级)")),
]


class ProcurementStepForm(StepForm):
    money_fields = frozenset({"budget_cny"})
    empty_display = {
        "budget_cny": _("No ceiling"),
        "qualifications": _("No requirement"),
        "preferred_families": _("Every family"),
        "excluded_families": _("None excluded"),
        "excluded_products": _("None excluded"),
    }
    mode = radios(_("How would you like to pay?"), MODE_CHOICES, initial="any")
    budget_cny = decimal(
        _("Budget ceiling (CNY)"),
        low=0,
        high=BUDGET_MAX_CNY,
        help_text=_("Over the whole period of use, tax included."),
    )
    qualifications = forms.MultipleChoiceField(
        label=_("The hosting vendor must hold"),
        choices=QUALIFICATION_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    preferred_families = forms.MultipleChoiceField(
        label=_("Consider only these accelerator families"),
        required=False,
        help_text=_("Leave all unticked to consider every family."),
        widget=forms.CheckboxSelectMultiple,
    )
    excluded_families = forms.MultipleChoiceField(
        label=_("Excluded accelerator families"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    excluded_products = forms.MultipleChoiceField(
        label=_("Excluded accelerators"),
        required=False,
        help_text=_(
            "One product rather than its whole family: for example H100 excluded while H20, "
            "of the same family, stays."
        ),
        widget=forms.CheckboxSelectMultiple,
    )
    domestic_only = forms.BooleanField(
        label=_("Domestic accelerators only"),
        required=False,
        help_text=_("Only accelerators made in China (for example Huawei Ascend)."),
    )
    usage = radios(
        _("Is this one job, or a programme of runs?"),
        USAGE_CHOICES,
        initial="once",
        help_text=_(
            "One job is priced for this run. A programme is priced for its runs over the years, "
            "so that every option does the same work."
        ),
    )
    runs_per_year = whole(
        _("Runs a year (programme)"),
        low=1,
        high=HOURS_PER_YEAR_MAX,
        initial=12,
        help_text=_("How many times a year you fine-tune a job like this one."),
    )
    years = whole(
        _("Years (programme)"),
        low=1,
        high=YEARS_MAX,
        initial=3,
        help_text=_("The programme's costs are compared over this period."),
    )
    rent_min_months = whole(
        _("Shortest rental term (months)"),
        low=1,
        high=120,
        initial=1,
        help_text=_(
            "Dedicated servers are rented in whole months; enter the shortest term the vendor "
            "offers (often 1, 3, 6 or 12). Empty: one month."
        ),
    )
    resale_pct = decimal(
        _("Resale value at the end (per cent of the purchase price)"),
        low=0,
        high=100,
        help_text=_(
            "Leave empty for the rule of thumb: 30 % after three years, less the longer they "
            "are used, at most 65 %."
        ),
    )

    @classmethod
    def shown_fields(cls, stored: dict) -> list[str]:
        names = list(cls.base_fields)
        if stored.get("usage") != "programme":
            names = [n for n in names if n not in ("runs_per_year", "years")]
        return names

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        families = catalog.family_choices()
        self.fields["preferred_families"].choices = families
        self.fields["excluded_families"].choices = families
        self.fields["excluded_products"].choices = catalog.accelerator_choices()

    def clean(self):
        data = super().clean()
        if data.get("usage") == "programme":
            self.require("runs_per_year", "years")
        else:  # one job: its runs and years are not asked for
            data["runs_per_year"] = data["years"] = None
        chosen = data.get("preferred_families") or []
        excluded = data.get("excluded_families") or []
        both = sorted(set(chosen) & set(excluded))
        problem = rules_of_the_document.overlap_problem(
            [catalog.family_label(key) for key in both], [catalog.family_label(k) for k in both]
        )
        if problem is not None:
            self.add_error("excluded_families", render_text(problem))
        foreign = [catalog.family_label(k) for k in chosen if not catalog.family_is_domestic(k)]
        problem = rules_of_the_document.domestic_problem(bool(data.get("domestic_only")), foreign)
        if problem is not None:
            self.add_error("preferred_families", render_text(problem))
        return data


# --- Drafts ------------------------------------------------------------------------------


class TitleForm(forms.Form):
    title = UserTextField(label=_("Name"), max_length=TITLE_MAX_LENGTH)

    def clean_title(self):
        title = self.cleaned_data["title"].strip()
        if not title:
            raise forms.ValidationError(_("Enter a name."))
        return title
