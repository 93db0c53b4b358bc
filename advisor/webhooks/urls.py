from django.urls import path

from advisor.webhooks import views

app_name = "webhooks"

urlpatterns = [
    path("", views.endpoint_list, name="list"),
    path("new/", views.add, name="add"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/change/", views.change, name="change"),
    path("<int:pk>/test/", views.send_test, name="test"),
]
