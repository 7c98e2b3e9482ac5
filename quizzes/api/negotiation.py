from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.settings import api_settings


class ContentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, with its answer to a client that accepts anything given at once.

    Most clients send no Accept header or ``*/*``; DRF parses it and matches it against
    each renderer on every request (about 4% of an API answer's time), to return the first
    renderer and its own media type. That result is returned here directly; any other
    Accept header, a ``?format=`` or a format suffix goes through DRF's negotiation.
    """

    def select_renderer(self, request, renderers, format_suffix=None):
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        if accept == "*/*" and not format_suffix and api_settings.URL_FORMAT_OVERRIDE not in request.query_params:
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)
