from django.urls import path

from advisor.brief import views

app_name = "brief"

urlpatterns = [
    path("", views.brief_list, name="list"),
    path("issue/", views.issue, name="issue"),
    path("approvals/", views.approvals, name="approvals"),
    path("certificate/", views.certificate, name="certificate"),
    path("verify/", views.verify, name="verify"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/download/", views.download, name="download"),
    path("<int:pk>/documents/<slug:kind>/", views.document, name="document"),
    path("<int:pk>/retry/", views.retry, name="retry"),
    path("<int:pk>/review/", views.review, name="review"),
]
