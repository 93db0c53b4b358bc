"""django-allauth for the company sign-in only: local accounts keep Django's own sign-in page,
new people signing in through the provider get an account at once, with their mapped roles."""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.models import SocialApp
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from advisor.sso.roles import apply_roles, claimed_groups


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request):
        return False  # no self-service local accounts (only the company sign-in makes users)

    def respond_user_inactive(self, request, user):
        messages.error(request, _("This account is deactivated. Ask an administrator."))
        return redirect("login")


# Providers whose user info names no groups: the roles of people signing in through them are
# given (and kept) by an administrator, never taken away at sign-in.
WITHOUT_GROUPS = {"dingtalk", "feishu"}


def maps_roles(sociallogin) -> bool:
    return sociallogin.account.provider not in WITHOUT_GROUPS


def give_roles(user, account) -> None:
    groups = claimed_groups(account.provider, account.extra_data)
    apply_roles(user, groups, account.provider)


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
            give_roles(user, sociallogin.account)
        return user

    def pre_social_login(self, request, sociallogin):
        """A returning person's roles follow the provider's groups at every sign-in."""
        if sociallogin.is_existing and maps_roles(sociallogin):
            give_roles(sociallogin.user, sociallogin.account)
