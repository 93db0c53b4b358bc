"""django-allauth for the company sign-in only: local accounts keep Django's own sign-in page,
new people signing in through the provider get an account at once, with their mapped roles."""

import logging

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.models import SocialApp
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from advisor.sso.directories import DirectoryError, departments
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
        """A provider whose settings are not given does not exist: its pages are 404s."""
        try:
            return super().get_provider(request, provider, client_id)
        except SocialApp.DoesNotExist:
            raise Http404 from None

    def is_open_for_signup(self, request, sociallogin):
        return True

    def is_auto_signup_allowed(self, request, sociallogin):
        return True

    def save_user(self, request, sociallogin, form=None):
        user = super().save_user(request, sociallogin, form)
        if maps_roles(sociallogin):
            self.give_roles(request, user, sociallogin.account)
        return user

    def pre_social_login(self, request, sociallogin):
        """A returning person's roles follow the provider's groups at every sign-in."""
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
