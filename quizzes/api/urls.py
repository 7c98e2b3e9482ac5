from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from quizzes import converters  # noqa: F401  (registers <id:>)
from quizzes.api import views

app_name = "api"

urlpatterns = [
    path("auth/token/", views.TokenView.as_view(), name="token"),
    path("quizzes/", views.QuizListView.as_view(), name="quiz-list"),
    path("quizzes/<slug:slug>/", views.QuizDetailView.as_view(), name="quiz-detail"),
    path("quizzes/<slug:slug>/attempts/", views.AttemptStartView.as_view(), name="attempt-start"),
    path("attempts/<id:pk>/", views.AttemptDetailView.as_view(), name="attempt-detail"),
    path("attempts/<id:pk>/answers/", views.AnswerCreateView.as_view(), name="answer-create"),
    path("attempts/<id:pk>/finish/", views.AttemptFinishView.as_view(), name="attempt-finish"),
    path("progress/", views.ProgressView.as_view(), name="progress"),
    path("schema/", SpectacularAPIView.as_view(api_version="v1"), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
]
