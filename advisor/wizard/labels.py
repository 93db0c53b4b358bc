"""Labels of the scenario values the wizard asks for, shared by its form and the brief."""

from django.utils.translation import gettext_lazy as _

# The scenario's optional ``framework``: each label names the tools that behave alike.
FRAMEWORK_LABELS = {
    "hf": _("Hugging Face Transformers / PEFT (LLaMA-Factory, ms-swift, TRL)"),
    "torchtune": _("torchtune"),
    "litgpt": _("LitGPT"),
    "megatron": _("Megatron-LM (NeMo, MindSpeed, Megatron-SWIFT)"),
}

# The scenario's ``packed``: whether every sequence is filled to the full length.
PACKING_LABELS = {
    True: _("Packed: every sequence is filled to the full length"),
    False: _("Varying: each batch is padded to its longest sample"),
}
