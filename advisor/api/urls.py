from django.urls import path

from advisor.api import views

app_name = "api_tokens"

urlpatterns = [
    path("", views.token_list, name="list"),
    path("<int:pk>/revoke/", views.revoke, name="revoke"),
]
