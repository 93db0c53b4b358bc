"""Model presets: the open models buyers fine-tune, with their shapes.

See :mod:`vendors.models` for the conventions every catalog model follows.
"""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from vendors import choices, constants
from vendors.models.base import CatalogEntry, null_or


class ModelPreset(CatalogEntry):
    """An LLM's architecture as the sizing engine needs it (scenario v1 ``model`` fields)."""

    name = models.CharField(verbose_name=_("name"), max_length=constants.NAME_MAX_LENGTH)
    family = models.CharField(
        verbose_name=_("family"), max_length=20, choices=choices.ModelFamily.choices
    )
    hf_repo = models.CharField(
        verbose_name=_("Hugging Face repository"),
        max_length=constants.NAME_MAX_LENGTH,
        blank=True,
        help_text=_("e.g. Qwen/Qwen2.5-7B-Instruct"),
    )
    params_b = models.FloatField(
        verbose_name=_("total parameters (billions)"),
        validators=[MinValueValidator(0.001), MaxValueValidator(constants.MODEL_PARAMS_B_MAX)],
        help_text=_("Every expert included; tied embedding and output counted once."),
    )
    active_params_b = models.FloatField(
        verbose_name=_("active parameters per token (billions)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0.001), MaxValueValidator(constants.MODEL_PARAMS_B_MAX)],
    )
    layers = models.PositiveIntegerField(verbose_name=_("layers"), null=True, blank=True)
    hidden = models.PositiveIntegerField(verbose_name=_("hidden size"), null=True, blank=True)
    heads = models.PositiveIntegerField(verbose_name=_("attention heads"), null=True, blank=True)
    kv_heads = models.PositiveIntegerField(verbose_name=_("key/value heads"), null=True, blank=True)
    head_dim = models.PositiveIntegerField(
        verbose_name=_("head size"),
        null=True,
        blank=True,
        help_text=_("Only when it differs from hidden size / heads."),
    )
    sliding_window = models.PositiveIntegerField(
        verbose_name=_("sliding attention window (tokens)"),
        null=True,
        blank=True,
        help_text=_("Only when the config states one (Mistral 7B v0.1, Gemma 2, gpt-oss)."),
    )
    sliding_window_layers = models.PositiveIntegerField(
        verbose_name=_("layers that use the window"),
        null=True,
        blank=True,
        help_text=_("Empty: every layer uses it (Gemma 2: 21 of 42, gpt-oss: 12 of 24)."),
    )
    intermediate = models.PositiveIntegerField(
        verbose_name=_("intermediate size (one MLP / one routed expert)"), null=True, blank=True
    )
    vocab = models.PositiveIntegerField(
        verbose_name=_("vocabulary (embedding rows)"), null=True, blank=True
    )
    tied_embeddings = models.BooleanField(
        verbose_name=_("tied input/output embeddings"), null=True, blank=True
    )
    experts = models.PositiveIntegerField(
        verbose_name=_("routed experts per MoE layer"), null=True, blank=True
    )
    experts_per_token = models.PositiveIntegerField(
        verbose_name=_("experts per token (top-k)"), null=True, blank=True
    )
    context_length = models.PositiveIntegerField(
        verbose_name=_("context length (tokens)"), null=True, blank=True
    )

    class Meta:
        verbose_name = _("model preset")
        verbose_name_plural = _("model presets")
        ordering = ["family", "params_b"]
        constraints = [
            models.CheckConstraint(
                condition=Q(params_b__gt=0), name="%(app_label)s_%(class)s_params_positive"
            ),
            models.CheckConstraint(
                condition=null_or(Q(active_params_b__lte=models.F("params_b")), "active_params_b"),
                name="%(app_label)s_%(class)s_active_within_total",
            ),
            models.CheckConstraint(
                condition=null_or(Q(kv_heads__lte=models.F("heads")), "kv_heads", "heads"),
                name="%(app_label)s_%(class)s_kv_heads_within_heads",
            ),
            models.CheckConstraint(
                condition=null_or(
                    Q(experts_per_token__lte=models.F("experts")), "experts_per_token", "experts"
                ),
                name="%(app_label)s_%(class)s_top_k_within_experts",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def is_moe(self) -> bool:
        return bool(self.experts and self.experts > 1)

    def clean(self):
        super().clean()
        errors = {}
        if self.active_params_b is not None and self.active_params_b > self.params_b:
            errors["active_params_b"] = _("Active parameters cannot exceed the total.")
        if self.heads and self.kv_heads:
            if self.kv_heads > self.heads:
                errors["kv_heads"] = _("There cannot be more key/value heads than heads.")
            elif self.heads % self.kv_heads:
                errors["kv_heads"] = _("The heads must divide evenly into key/value groups.")
        if bool(self.experts) != bool(self.experts_per_token):
            field = "experts_per_token" if self.experts else "experts"
            errors[field] = _("A mixture-of-experts model needs both experts and top-k.")
        elif self.experts and self.experts_per_token > self.experts:
            errors["experts_per_token"] = _("Top-k cannot exceed the number of experts.")
        if errors:
            raise ValidationError(errors)
