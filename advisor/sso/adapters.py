"""django-allauth for the company sign-in only: local accounts keep Django's own sign-in page,
new people signing in through the provider get an account at once, with their mapped roles."""

import logging
import re

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.adapter import get_adapter as get_account_adapter
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.openid_connect.provider import OpenIDConnectProvider
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from advisor.sso.directories import DirectoryError, departments
from advisor.sso.oidc import NonceOpenIDConnectProvider, nonce_problem
from advisor.sso.roles import apply_roles, claimed_groups, role_mapping

logger = logging.getLogger(__name__)


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request):
        return False  # no self-service local accounts (only the company sign-in makes users)

    def respond_user_inactive(self, request, user):
        messages.error(request, _("This account is deactivated. Ask an administrator."))
        return redirect("login")


# Providers whose sign-in names no groups: their people's departments are read from the
# company directory when a mapping for them is set; otherwise an administrator gives (and
# keeps) their roles, and a sign-in never takes them away.
FROM_THE_DIRECTORY = {"dingtalk", "feishu"}


def maps_roles(sociallogin) -> bool:
    provider = sociallogin.account.provider
    return provider not in FROM_THE_DIRECTORY or bool(role_mapping(provider))


class CompanySignInAdapter(DefaultSocialAccountAdapter):
    def get_provider(self, request, provider, client_id=None):
        """A provider whose settings are not given does not exist: its pages are 404s. An
        OpenID Connect provider sends and checks a nonce (advisor/sso/oidc.py)."""
        try:
            found = super().get_provider(request, provider, client_id)
        except SocialApp.DoesNotExist:
            raise Http404 from None
        if type(found) is OpenIDConnectProvider:
            return NonceOpenIDConnectProvider(request, app=found.app)
        return found

    def populate_user(self, request, sociallogin, data):
        """The provider's user name, or, where a local account already has it, the provider's
        full identifier for the person (never a name made up from the e-mail)."""
        user = super().populate_user(request, sociallogin, data)
        user.username = company_username(data, sociallogin.account)
        user.provider_username = (data.get("username") or "").strip()  # for save_user
        return user

    def is_open_for_signup(self, request, sociallogin):
        return True

    def is_auto_signup_allowed(self, request, sociallogin):
        return True

    def save_user(self, request, sociallogin, form=None):
        user = super().save_user(request, sociallogin, form)
        given = getattr(user, "provider_username", "")
        if given and given != user.username:
            logger.info("New company account %s: the user name %s is taken", user, given)
            messages.info(
                request,
                _("Your user name here is %(name)s: %(given)s belongs to another account.")
                % {"name": user.username, "given": given},
            )
        if maps_roles(sociallogin):
            self.give_roles(request, user, sociallogin.account)
        return user

    def pre_social_login(self, request, sociallogin):
        """An OpenID Connect sign-in whose ID token does not carry the nonce it was sent with is
        refused; a returning person's roles follow the provider's groups at every sign-in."""
        provider = self.get_provider(request, sociallogin.account.provider)
        if isinstance(provider, OpenIDConnectProvider):
            problem = nonce_problem(sociallogin)
            if problem:
                logger.warning("OpenID Connect sign-in refused: %s nonce", problem)
                raise ImmediateHttpResponse(
                    render(request, "sso/problem.html", {"reason": nonce_reason()}, status=400)
                )
        if sociallogin.is_existing and maps_roles(sociallogin):
            self.give_roles(request, sociallogin.user, sociallogin.account)

    def give_roles(self, request, user, account) -> None:
        provider = account.provider
        if provider not in FROM_THE_DIRECTORY:
            apply_roles(user, claimed_groups(provider, account.extra_data), provider)
            return
        app = self.get_provider(request, provider).app
        try:
            groups = departments(
                provider, account.extra_data, app.client_id, app.secret, self.get_requests_session()
            )
        except DirectoryError as error:
            # The person signs in; their roles stay as they were (none for a new account).
            logger.warning("Departments of %s from %s not read: %s", user, provider, error)
            return
        apply_roles(user, groups, provider)


def nonce_reason() -> str:
    """Shown when the provider's ID token lacks the nonce this sign-in sent, or has another."""
    return _(
        "The company account's answer did not carry the one-time code (nonce) this sign-in "
        "sent, so it may belong to another sign-in or be replayed. Start the sign-in again."
    )


# What Django's user names may hold (letters, digits and @ . + - _), at most 150 characters.
NOT_IN_A_USER_NAME = re.compile(r"[^\w.@+-]")


def company_username(data: dict, account) -> str:
    """The first free, valid user name among the provider's own (``li.wei``), it qualified by
    the provider (``li.wei@company``), the person's e-mail address, and the provider's
    identifier of the person (``<uid>@<provider>``), which is unique by construction."""
    given = (data.get("username") or "").strip()
    candidates = [given, f"{given}@{account.provider}" if given else "", data.get("email") or ""]
    adapter = get_account_adapter()
    for candidate in candidates:
        if candidate:
            try:
                return adapter.clean_username(candidate)
            except ValidationError:
                continue
    return NOT_IN_A_USER_NAME.sub("_", f"{account.uid}@{account.provider}")[-150:]
