"""The tool's endpoints under /lti/ (not language-prefixed: platforms hold these URLs).

Login and launch are posted by the platform (no CSRF token of ours; framed by it). A refusal is
a page in the user's language (the launch's locale when it was read) and writes nothing.
"""

from django.conf import settings
from django.contrib.auth import login
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from lti_tool.models import LtiLaunch
from pylti1p3.exception import LtiException, OIDCException

from quizzes.integrations.lti import deep_linking
from quizzes.integrations.lti.config import tool_configuration, tool_url
from quizzes.integrations.lti.keys import jwks, key_ensure
from quizzes.integrations.lti.nonces import nonce_consume
from quizzes.integrations.lti.services import LaunchRefused, launch_accept
from quizzes.integrations.lti.tool import message_launch, oidc_login

LOGIN_REFUSED = _("This sign-in from your learning platform could not be started: %(reason)s")
LAUNCH_REFUSED = _("This launch from your learning platform was refused: it could not be verified.")
LAUNCH_REPLAYED = _("This launch was already used or has expired. Open the activity again from your course.")
PRESENTATION_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/launch_presentation"
# Our user's session is made by login(); several backends are configured, so it is named.
LOGIN_BACKEND = "quizzes.accounts.backends.StatementModelBackend"


def refusal(request, message, *, status: int, reason: str = ""):
    return render(request, "lti/refusal.html", {"message": message, "reason": reason}, status=status)


def launch_language(lti_launch: LtiLaunch) -> str:
    """The launch's locale ("ur", "id-ID", "sn_ZW") when it is one of ours, else the site's."""
    locale = (lti_launch.get_claim(PRESENTATION_CLAIM) or {}).get("locale") or ""
    code = locale.replace("_", "-").split("-")[0].lower()
    code = {"in": "id"}.get(code, code)  # "in": Java's old code for Indonesian
    return code if code in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


@require_GET
def config_json(request):
    return JsonResponse(tool_configuration())


@require_GET
def jwks_json(request):
    return JsonResponse(jwks())


@csrf_exempt
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
def login_initiation(request):
    key_ensure()
    try:
        # The launch URL is ours, whatever target_link_uri says: it is where the id_token goes.
        return oidc_login(request).redirect(tool_url("lti:launch"))
    except (LtiException, OIDCException) as error:
        return refusal(request, LOGIN_REFUSED % {"reason": error}, status=400)


@csrf_exempt
@xframe_options_exempt
@require_POST
def launch(request):
    launch_ = message_launch(request)
    try:
        launch_.validate()
    except (LtiException, KeyError, ValueError) as error:
        return refusal(request, LAUNCH_REFUSED, status=403, reason=str(error))
    lti_launch = LtiLaunch(launch_)
    with translation.override(launch_language(lti_launch)):
        if not nonce_consume(nonce=lti_launch.get_claim("nonce"), state=request.POST.get("state", "")):
            return refusal(request, LAUNCH_REPLAYED, status=403)
        if not (lti_launch.is_resource_launch or lti_launch.is_deep_link_launch):
            return refusal(request, LAUNCH_REFUSED, status=400, reason="message type")
        try:
            result = launch_accept(lti_launch=lti_launch)
        except LaunchRefused as error:
            return refusal(request, error.message, status=error.status)
        login(request, result.user, backend=LOGIN_BACKEND)
        request.session[deep_linking.SESSION_LANGUAGE] = translation.get_language()
        if lti_launch.is_deep_link_launch:
            deep_linking.session_store(request.session, lti_launch=lti_launch, course=result.course)
            return redirect("lti:deep_link")
        if result.teaches:
            return redirect(reverse("staff:gradebook", kwargs={"course_slug": result.course.slug}))
        if result.quiz is not None:
            return redirect(reverse("quizzes:quiz", kwargs={"slug": result.quiz.slug}))
        return redirect(reverse("quizzes:dashboard"))


@method_decorator(xframe_options_exempt, name="dispatch")
class DeepLinkView(deep_linking.DeepLinkPickView):
    refusal = staticmethod(refusal)


deep_link = DeepLinkView.as_view()
