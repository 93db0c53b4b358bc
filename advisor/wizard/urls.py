from django.urls import path

from advisor.wizard import views

app_name = "wizard"

urlpatterns = [
    path("new/", views.create, name="create"),
    path("presets/", views.preset_options, name="preset_options"),
    path("<int:pk>/", views.task_list, name="task_list"),
    path("<int:pk>/rename/", views.rename, name="rename"),
    path("<int:pk>/duplicate/", views.duplicate, name="duplicate"),
    path("<int:pk>/delete/", views.delete, name="delete"),
    path("<int:pk>/check/", views.check, name="check"),
    path("<int:pk>/<slug:slug>/", views.step_page, name="step"),
    path("<int:pk>/<slug:slug>/estimate/", views.estimate_panel, name="estimate"),
]
