"""The API tokens page: a signed-in user creates (shown once), lists and revokes tokens."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from advisor.api import tokens
from advisor.api.forms import TokenForm


@login_required
@require_http_methods(["GET", "POST"])
def token_list(request):
    form = TokenForm(request.POST) if request.method == "POST" else TokenForm()
    created = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                token, created = tokens.create_token(
                    user=request.user,
                    name=form.cleaned_data["name"],
                    scope=form.cleaned_data["scope"],
                    days=form.cleaned_data["days"],
                )
            except tokens.TooManyTokens:
                form.add_error(
                    None,
                    _("You hold %(count)d active tokens, the most allowed. Revoke one first.")
                    % {"count": tokens.MAX_ACTIVE_TOKENS},
                )
                status = 400
            else:
                form = TokenForm()
        else:
            status = 400
    return render(
        request,
        "api/tokens.html",
        {"form": form, "created": created, "tokens": tokens.tokens_of(request.user)},
        status=status,
    )


@login_required
@require_POST
def revoke(request, pk):
    token = tokens.revoke_token(user=request.user, pk=pk)
    if token is None:
        raise Http404
    messages.success(request, _("Token %(name)s revoked.") % {"name": token.name})
    return redirect("api_tokens:list")
