"""Webhook endpoints are configured here; their messages and every attempt are the delivery
log (read only)."""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from advisor.webhooks.forms import EVENT_CHOICES
from advisor.webhooks.models import WebhookAttempt, WebhookEndpoint, WebhookMessage


class EndpointAdminForm(forms.ModelForm):
    """The events as one checkbox each, as on the webhooks page (decision 0143)."""

    events = forms.MultipleChoiceField(
        label=_("Events"), choices=EVENT_CHOICES, widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = WebhookEndpoint
        fields = ["name", "format", "url", "events", "active", "secret"]


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    form = EndpointAdminForm
    list_display = ["name", "format", "url", "active", "created_at"]
    list_filter = ["active", "format"]
    search_fields = ["name", "url"]
    fields = ["name", "format", "url", "events", "active", "secret"]


class AttemptInline(admin.TabularInline):
    model = WebhookAttempt
    extra = 0
    can_delete = False
    fields = ["number", "at", "status_code", "error", "response", "duration_ms"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(WebhookMessage)
class WebhookMessageAdmin(admin.ModelAdmin):
    list_display = [
        "created_at",
        "event_type",
        "brief_number",
        "endpoint",
        "status",
        "attempts",
        "next_attempt_at",
        "delivered_at",
    ]
    list_filter = ["status", "event_type", "endpoint"]
    search_fields = ["brief_number", "message_id"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "message_id",
        "endpoint",
        "event_type",
        "brief_number",
        "status",
        "attempts",
        "next_attempt_at",
        "delivered_at",
        "created_at",
        "body",
    ]
    fieldsets = [(_("Message"), {"fields": readonly_fields})]
    inlines = [AttemptInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
