import base64
import hashlib
import re

from csp.decorators import csp_update
from django.template.loader import get_template
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from quizzes.api import views

app_name = "api"


def _inline_style_hashes(template_name: str) -> list[str]:
    """CSP sources ('sha256-...') for a template's inline ``<style>`` blocks (django-csp takes, not makes, them)."""
    source = get_template(template_name).template.source
    hashes = []
    for block in re.findall(r"<style[^>]*>(.*?)</style>", source, flags=re.DOTALL):
        if "{%" in block or "{{" in block:
            raise ValueError(f"{template_name}: an inline style with template tags can't be hashed ahead")
        digest = base64.b64encode(hashlib.sha256(block.encode()).digest()).decode()
        hashes.append(f"'sha256-{digest}'")
    return hashes


# The docs page loads its init script from ?script (no inline script); the
# template's one inline <style> block is allowed by its hash.
docs_view = csp_update({"style-src": _inline_style_hashes(SpectacularSwaggerSplitView.template_name)})(
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
    path("attempts/<id:pk>/practice/", views.AttemptPracticeView.as_view(), name="attempt-practice"),
    path("progress/", views.ProgressView.as_view(), name="progress"),
    path("schema/", SpectacularAPIView.as_view(api_version="v1"), name="schema"),
    path("docs/", docs_view, name="docs"),
]
