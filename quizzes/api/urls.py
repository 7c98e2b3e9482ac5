from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from common.csp import csp_update, template_inline_style_hashes
from quizzes.api import views

app_name = "api"

# The docs page loads its init script from ?script (no inline script); the
# template's one inline <style> block is allowed by its hash.
docs_view = csp_update(style_src=template_inline_style_hashes(SpectacularSwaggerSplitView.template_name))(
    SpectacularSwaggerSplitView.as_view(url_name="api:schema")
)

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
    path("docs/", docs_view, name="docs"),
]
