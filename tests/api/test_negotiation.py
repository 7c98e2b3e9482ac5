"""quizzes/api/negotiation.py: the shortcut for ``*/*`` answers exactly as DRF's negotiation."""

import pytest
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiYamlRenderer
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from quizzes.api.negotiation import ContentNegotiation

RENDERER_LISTS = [
    [JSONRenderer()],
    [OpenApiYamlRenderer(), OpenApiJsonRenderer()],
    [BrowsableAPIRenderer(), JSONRenderer()],
]
ACCEPTS = [
    None,
    "*/*",
    "application/json",
    "application/json; indent=4",
    "text/html",
    "application/*",
    "*/*; q=0.5",
    "text/html, */*",
    "application/vnd.oai.openapi",
    "image/png",
]


def outcome(negotiation, accept, path, format_suffix):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get(path, **headers))
    results = []
    for renderers in RENDERER_LISTS:
        try:
            renderer, media_type = negotiation.select_renderer(request, renderers, format_suffix)
            results.append((type(renderer), media_type))
        except NotAcceptable:
            results.append("406")
        except Exception as error:
            results.append(type(error))
    return results


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("path", ["/api/v1/quizzes/", "/api/v1/quizzes/?format=json", "/api/v1/quizzes/?format=yaml"])
@pytest.mark.parametrize("format_suffix", [None, "json", "html"])
def test_the_negotiation_is_drfs(accept, path, format_suffix):
    assert outcome(ContentNegotiation(), accept, path, format_suffix) == outcome(
        DefaultContentNegotiation(), accept, path, format_suffix
    )


def test_the_api_uses_it(client):
    from rest_framework.settings import api_settings

    assert api_settings.DEFAULT_CONTENT_NEGOTIATION_CLASS is ContentNegotiation
