from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from advisor import views
from advisor.api.endpoints import mounted

# The admin modules are imported here, with the pages they serve (advisor.admin_config).
admin.autodiscover()

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", views.health, name="health"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/company/", include("advisor.sso.urls")),
    # Before the wizard: its "<pk>/<step slug>/" pattern would otherwise take "results".
    path("assessments/<int:pk>/results/", include("advisor.results.urls")),
    path("assessments/<int:pk>/questionnaire/", include("advisor.questionnaire.urls")),
    path("assessments/", include("advisor.wizard.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("brief/", include("advisor.brief.urls")),
    path("admin/", admin.site.urls),
    # The HTTP API, version 1; /api/ answers the same for one release (docs/api.md).
    path("api/v1/", mounted("api")),
    path("api/", mounted("api-alias", alias=True)),
    path("account/api-tokens/", include("advisor.api.urls")),
    path("integration/webhooks/", include("advisor.webhooks.urls")),
]

# A database outage anywhere in a request is a translated 503 page (advisor/errors.py).
handler500 = "advisor.errors.server_error"
