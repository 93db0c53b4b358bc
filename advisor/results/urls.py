from django.urls import path

from advisor.results import views

app_name = "results"

urlpatterns = [
    path("", views.results, name="list"),
    path("compare/", views.compare, name="compare"),
    path("figures/", views.figures, name="figures"),
    path("recompute/", views.recompute, name="recompute"),
    path("option/<str:key>/", views.option_detail, name="option"),
]
