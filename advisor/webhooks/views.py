"""The webhooks page (the integration role, decision 0143): endpoints listed, added, changed and
deactivated, a test event sent, and each endpoint's delivery log."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from advisor.roles import integration_required
from advisor.webhooks import services
from advisor.webhooks.forms import EVENT_CHOICES, EndpointForm, NewEndpointForm
from advisor.webhooks.log import delivery_log
from advisor.webhooks.models import WebhookEndpoint


@integration_required
def endpoint_list(request):
    return render(
        request, "webhooks/list.html", {"endpoints": WebhookEndpoint.objects.order_by("name", "pk")}
    )


@integration_required
@require_http_methods(["GET", "POST"])
def add(request):
    form = NewEndpointForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        if form.is_valid():
            endpoint = services.save_endpoint(form, request.user)
            # The signing secret is shown here, once; no page shows it again.
            context = {"endpoint": endpoint, "secret": form.made_secret}
            return render(request, "webhooks/added.html", context)
        return render(request, "webhooks/form.html", {"form": form, "adding": True}, status=400)
    return render(request, "webhooks/form.html", {"form": form, "adding": True})


@integration_required
@require_http_methods(["GET", "POST"])
def change(request, pk):
    endpoint = get_object_or_404(WebhookEndpoint, pk=pk)
    form = EndpointForm(request.POST if request.method == "POST" else None, instance=endpoint)
    if request.method == "POST":
        if form.is_valid():
            services.save_endpoint(form, request.user)
            if form.made_secret:  # shown here, once, as when it was added
                context = {"endpoint": endpoint, "secret": form.made_secret, "renewed": True}
                return render(request, "webhooks/added.html", context)
            messages.success(request, _("Endpoint %(name)s saved.") % {"name": endpoint.name})
            return redirect("webhooks:detail", endpoint.pk)
        context = {"form": form, "endpoint": endpoint}
        return render(request, "webhooks/form.html", context, status=400)
    return render(request, "webhooks/form.html", {"form": form, "endpoint": endpoint})


@integration_required
def detail(request, pk):
    endpoint = get_object_or_404(WebhookEndpoint, pk=pk)
    page, rows = delivery_log(endpoint, request.GET.get("page"))
    context = {
        "endpoint": endpoint,
        "event_labels": [label for value, label in EVENT_CHOICES if value in endpoint.events],
        "page": page,
        "rows": rows,
    }
    return render(request, "webhooks/detail.html", context)


@integration_required
@require_POST
def send_test(request, pk):
    endpoint = get_object_or_404(WebhookEndpoint, pk=pk)
    if not endpoint.active:
        messages.error(request, _("The endpoint is inactive: activate it to send a test event."))
    else:
        services.send_test(endpoint, request.user)
        messages.success(
            request,
            _("A test event was queued for %(name)s; its delivery is in the log below.")
            % {"name": endpoint.name},
        )
    return redirect("webhooks:detail", endpoint.pk)
