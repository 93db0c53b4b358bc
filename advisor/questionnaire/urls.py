from django.urls import path

from advisor.questionnaire import views

app_name = "questionnaire"

urlpatterns = [
    path("option/<str:key>/<str:kind>/", views.download, name="download"),
    path("upload/", views.upload, name="upload"),
    path("sheets/<int:sheet>/", views.preview, name="preview"),
]
