"""django-allauth for the company sign-in only: local accounts keep Django's own sign-in page,
new people signing in through the provider get an account at once, with their mapped roles."""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.contrib import messages
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from advisor.sso.roles import apply_roles, claimed_groups


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request):
        return False  # no self-service local accounts (only the company sign-in makes users)

    def respond_user_inactive(self, request, user):
        messages.error(request, _("This account is deactivated. Ask an administrator."))
        return redirect("login")


class CompanySignInAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request, sociallogin):
        return True

    def is_auto_signup_allowed(self, request, sociallogin):
        return True

    def save_user(self, request, sociallogin, form=None):
        user = super().save_user(request, sociallogin, form)
        apply_roles(user, claimed_groups(sociallogin.account.extra_data))
        return user

    def pre_social_login(self, request, sociallogin):
        """A returning person's roles follow the provider's groups at every sign-in."""
        if sociallogin.is_existing:
            apply_roles(sociallogin.user, claimed_groups(sociallogin.account.extra_data))
