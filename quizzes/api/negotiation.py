from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.settings import api_settings


class ContentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, with its answer to the usual Accept headers given at once.

    Most clients send no Accept header, ``*/*`` or ``application/json``; DRF parses it and
    matches it against each renderer on every request (docs/performance.md).
    Its answer is known: the first renderer, with its own media type for ``*/*``, or with
    ``application/json`` when that renderer's type is exactly that. Those are returned here
    directly; any other Accept header, a ``?format=`` or a format suffix goes through DRF.
    """

    def select_renderer(self, request, renderers, format_suffix=None):
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        if renderers and not format_suffix and api_settings.URL_FORMAT_OVERRIDE not in request.query_params:
            first = renderers[0]
            if accept == "*/*" or (accept == "application/json" and first.media_type == accept):
                return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)
