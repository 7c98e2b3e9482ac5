"""Deep Linking: a teacher, launched from the platform's "add an activity", picks one of the
course's published quizzes; the tool answers with a signed LtiDeepLinkingResponse (posted by
the browser to the platform's return URL) holding an ltiResourceLink whose custom ``quiz`` is
the slug and a line item, so that the platform makes the grade column."""

from urllib.parse import urlsplit

from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.views import View
from lti_tool.models import LtiLaunch, LtiRegistration
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from quizzes.integrations.lti.config import tool_url
from quizzes.integrations.lti.services import SCORE_MAXIMUM
from quizzes.integrations.lti.tool import ToolConfig
from quizzes.models import Quiz

SESSION_KEY = "lti_deep_link"
SESSION_LANGUAGE = "lti_language"
DEEP_LINKING_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
NO_DEEP_LINK = _("Open this page from your learning platform's “add an activity”.")
CHOOSE_A_QUIZ = _("Choose one of the quizzes.")


def session_store(session, *, lti_launch: LtiLaunch, course) -> None:
    session[SESSION_KEY] = {
        "registration": lti_launch.registration.pk,
        "deployment_id": lti_launch.deployment.deployment_id,
        "settings": lti_launch.get_claim(DEEP_LINKING_CLAIM),
        "course": course.pk,
    }


def deep_link_response(*, registration: LtiRegistration, deployment_id: str, settings: dict, quiz: Quiz) -> str:
    """The signed JWT for the platform: one resource link to ``quiz``."""
    tool_registration = ToolConfig().find_registration_by_params(registration.issuer, registration.client_id)
    resource = (
        DeepLinkResource()
        .set_type("ltiResourceLink")
        .set_title(quiz.title)
        .set_url(tool_url("lti:launch"))
        .set_custom_params({"quiz": quiz.slug})
        .set_lineitem(LineItem().set_score_maximum(SCORE_MAXIMUM).set_label(quiz.title).set_resource_id(quiz.slug))
    )
    return DeepLink(tool_registration, deployment_id, settings).get_response_jwt([resource])


class DeepLinkPickView(View):
    refusal = None  # the views module's refusal page

    def dispatch(self, request, *args, **kwargs):
        self.picked = request.session.get(SESSION_KEY)
        with translation.override(request.session.get(SESSION_LANGUAGE)):
            if self.picked is None or not request.user.is_authenticated:
                return self.refusal(request, NO_DEEP_LINK, status=400)
            return super().dispatch(request, *args, **kwargs)

    def _quizzes(self):
        return Quiz.objects.published().filter(course_id=self.picked["course"]).order_by("title", "pk")

    def get(self, request, error=None, status=200):
        return render(request, "lti/deep_link.html", {"quizzes": self._quizzes(), "error": error}, status=status)

    def post(self, request):
        quiz = self._quizzes().filter(slug=request.POST.get("quiz", "")).first()
        if quiz is None:
            return self.get(request, error=CHOOSE_A_QUIZ, status=400)
        registration = LtiRegistration.objects.active().filter(pk=self.picked["registration"]).first()
        if registration is None:
            return self.refusal(request, NO_DEEP_LINK, status=400)
        settings = self.picked["settings"]
        token = deep_link_response(
            registration=registration, deployment_id=self.picked["deployment_id"], settings=settings, quiz=quiz
        )
        del request.session[SESSION_KEY]
        return_url = settings["deep_link_return_url"]
        response = render(request, "lti/deep_link_return.html", {"return_url": return_url, "jwt": token})
        # The form goes to the platform: CSP's form-action allows that one origin here.
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(return_url))
        response._csp_update = {"form-action": [origin]}
        return response
