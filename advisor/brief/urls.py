from django.urls import path

from advisor.brief import views

app_name = "brief"

urlpatterns = [
    path("verify/", views.verify, name="verify"),
]
