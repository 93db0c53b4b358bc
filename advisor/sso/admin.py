"""The company sign-in is configured from settings (docs/company-sign-in.md), not in admin: an
identity provider added as a row would offer a second sign-in nobody configured, and linked
identities and their tokens are the provider's business. django-allauth's admin pages go."""

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount, SocialApp, SocialToken
from django.contrib import admin

for model in (EmailAddress, SocialApp, SocialAccount, SocialToken):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
