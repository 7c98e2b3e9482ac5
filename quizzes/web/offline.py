"""The service worker (quizzes/static/quizzes/service-worker.js), served from the site's root.

From there its scope is every page, the attempt's question pages included, whatever their
language prefix. Its first line is its version: a hash of its source and settings, so a
deploy that changes either is a new worker, which browsers install in place of the old one
(and which drops what the old one kept).
"""

import hashlib
import json
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

SOURCE = "quizzes/service-worker.js"


@require_GET
def service_worker(request):
    response = HttpResponse(_script(), content_type="text/javascript; charset=utf-8")
    # Checked again on every visit: a deploy's worker replaces the old one at once.
    response["Cache-Control"] = "no-cache"
    return response


def worker_script(source: str, *, static_url: str, answer_url: str) -> str:
    """The worker's source after its settings and its version, a hash of all three."""
    config = f"const STATIC_URL = {json.dumps(static_url)};\nconst ANSWER_URL = {json.dumps(answer_url)};\n"
    version = hashlib.sha256((config + source).encode()).hexdigest()[:16]
    return f'const VERSION = "{version}";\n{config}{source}'


@cache
def _script() -> str:
    source = Path(finders.find(SOURCE)).read_text(encoding="utf-8")
    # The worker puts the attempt's id in place of the 0.
    answer_url = reverse("api:answer-create", kwargs={"pk": 0})
    # The URL itself (with the script prefix), not static(""), which the manifest storage refuses.
    return worker_script(source, static_url=settings.STATIC_URL, answer_url=answer_url)
