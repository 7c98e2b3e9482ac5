"""A Content-Security-Policy on every response, with per-view additions."""

import base64
import hashlib
import re
from functools import wraps

from django.conf import settings
from django.template.loader import get_template

CSP_HEADER = "Content-Security-Policy"


def csp_header_value(directives: dict[str, list[str]]) -> str:
    return "; ".join(" ".join([name, *sources]) for name, sources in directives.items())


class ContentSecurityPolicyMiddleware:
    """``Content-Security-Policy`` from ``settings.CONTENT_SECURITY_POLICY`` on every response."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.directives = {name: list(sources) for name, sources in settings.CONTENT_SECURITY_POLICY.items()}
        self.header = csp_header_value(self.directives)

    def __call__(self, request):
        response = self.get_response(request)
        if CSP_HEADER in response:
            return response
        extra = getattr(response, "csp_update", None)
        if extra:
            directives = {name: list(sources) for name, sources in self.directives.items()}
            for name, sources in extra.items():
                directives.setdefault(name, []).extend(source for source in sources if source not in directives[name])
            response[CSP_HEADER] = csp_header_value(directives)
        else:
            response[CSP_HEADER] = self.header
        return response


def csp_update(**directives: list[str]):
    """View decorator: add sources to the policy of this view's responses (``style_src=[...]``)."""
    update = {name.replace("_", "-"): list(sources) for name, sources in directives.items()}

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            response = view(request, *args, **kwargs)
            response.csp_update = update
            return response

        return wrapped

    return decorator


def template_inline_style_hashes(template_name: str) -> list[str]:
    """CSP sources ('sha256-...') for the inline ``<style>`` blocks of a template without tags inside them."""
    source = get_template(template_name).template.source
    hashes = []
    for block in re.findall(r"<style[^>]*>(.*?)</style>", source, flags=re.DOTALL):
        if "{%" in block or "{{" in block:
            raise ValueError(f"{template_name}: an inline style with template tags can't be hashed ahead")
        digest = base64.b64encode(hashlib.sha256(block.encode()).digest()).decode()
        hashes.append(f"'sha256-{digest}'")
    return hashes
