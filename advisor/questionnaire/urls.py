from django.urls import path

from advisor.questionnaire import views

app_name = "questionnaire"

urlpatterns = [
    path("option/<str:key>/<str:kind>/", views.download, name="download"),
    path("vendors/", views.bulk, name="bulk"),
    path("upload/", views.upload, name="upload"),
    path("sheets/<int:sheet>/", views.preview, name="preview"),
]
