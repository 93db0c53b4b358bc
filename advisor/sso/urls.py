"""The company sign-in (OpenID Connect through django-allauth): the provider's login and
callback, and the few pages allauth sends a person to when it does not complete."""

from django.urls import include, path

from advisor.sso import views

urlpatterns = [
    path("", include("allauth.socialaccount.providers.openid_connect.urls")),
    path("cancelled/", views.problem, name="socialaccount_login_cancelled"),
    path("error/", views.problem, name="socialaccount_login_error"),
    path("signup/", views.problem, name="socialaccount_signup"),
]
