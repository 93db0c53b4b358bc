"""The company sign-in (OpenID Connect, DingTalk and Feishu through django-allauth): each
provider's login and callback (404s while its settings are not given), and the few pages
allauth sends a person to when it does not complete."""

from django.urls import include, path

from advisor.sso import views

urlpatterns = [
    path("", include("allauth.socialaccount.providers.openid_connect.urls")),
    path("", include("allauth.socialaccount.providers.dingtalk.urls")),
    path("", include("allauth.socialaccount.providers.feishu.urls")),
    path("cancelled/", views.problem, name="socialaccount_login_cancelled"),
    path("error/", views.problem, name="socialaccount_login_error"),
    path("signup/", views.problem, name="socialaccount_signup"),
]
