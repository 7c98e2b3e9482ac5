"""The LTI tool's URLs, under /lti/ (not language-prefixed: platforms store them)."""

from django.urls import path

from quizzes.integrations.lti import views

app_name = "lti"

urlpatterns = [
    path("config.json", views.config_json, name="config"),
    path("jwks.json", views.jwks_json, name="jwks"),
    path("login/", views.login_initiation, name="login"),
    path("launch/", views.launch, name="launch"),
    path("deep-link/", views.deep_link, name="deep_link"),
]
