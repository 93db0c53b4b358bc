"""The company sign-in (OpenID Connect, SAML 2.0, DingTalk and Feishu through django-allauth): each
provider's login and callback (404s while its settings are not given), and the few pages
allauth sends a person to when it does not complete."""

from django.urls import include, path

from advisor.sso import views

urlpatterns = [
    path("", include("allauth.socialaccount.providers.openid_connect.urls")),
    path(
        "saml/<str:organization_slug>/",
        include(
            [
                path("login/", views.saml_login, name="saml_login"),
                path("acs/", views.saml_acs, name="saml_acs"),
                path("acs/finish/", views.saml_finish_acs, name="saml_finish_acs"),
                path("sls/", views.saml_sls, name="saml_sls"),
                path("metadata/", views.saml_metadata, name="saml_metadata"),
            ]
        ),
    ),
    path("", include("allauth.socialaccount.providers.dingtalk.urls")),
    path("", include("allauth.socialaccount.providers.feishu.urls")),
    path("cancelled/", views.problem, name="socialaccount_login_cancelled"),
    path("error/", views.problem, name="socialaccount_login_error"),
    path("signup/", views.problem, name="socialaccount_signup"),
]
