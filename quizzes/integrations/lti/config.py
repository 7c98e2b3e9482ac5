"""The tool as a platform configures it by URL (``GET /lti/config.json``): Canvas's "Enter URL"
format, with the LTI tool configuration block (Moodle's and dynamic registration's names)."""

from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _

SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
]
DEEP_LINKING = "LtiDeepLinkingRequest"


def tool_url(name: str) -> str:
    return settings.LMS_SITE_URL + reverse(name)


def tool_configuration() -> dict:
    login, launch, jwks = tool_url("lti:login"), tool_url("lti:launch"), tool_url("lti:jwks")
    domain = urlsplit(settings.LMS_SITE_URL).netloc
    title, description = _("Quizzes"), _("Multilingual tracked quizzes; grades go to the course's gradebook.")
    # A link's custom parameter "quiz" (a quiz's slug) opens that quiz; deep linking sets it.
    custom = {"quiz": ""}
    placements = [
        {"placement": placement, "message_type": DEEP_LINKING, "target_link_uri": launch, "text": title}
        for placement in ("link_selection", "assignment_selection")
    ]
    return {
        "title": title,
        "description": description,
        "oidc_initiation_url": login,
        "target_link_uri": launch,
        "public_jwk_url": jwks,
        "scopes": SCOPES,
        "custom_fields": custom,
        "extensions": [
            {
                "platform": "canvas.instructure.com",
                "domain": domain,
                "privacy_level": "public",
                "settings": {"text": title, "placements": placements},
            }
        ],
        "https://purl.imsglobal.org/spec/lti-tool-configuration": {
            "domain": domain,
            "target_link_uri": launch,
            "initiate_login_uri": login,
            "jwks_uri": jwks,
            "redirect_uris": [launch],
            "custom_parameters": custom,
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
            "messages": [{"type": DEEP_LINKING, "target_link_uri": launch, "label": title}],
        },
    }
