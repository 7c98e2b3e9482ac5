"""/favicon.ico: browsers, Lighthouse and crawlers ask for it whatever a page's <link rel="icon"> says."""

from django.http import HttpResponseRedirect
from django.templatetags.static import static
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe


# The icon's hashed name changes with it: a day's cache of the redirect, never a permanent one.
@require_safe
@cache_control(public=True, max_age=24 * 60 * 60)
def favicon(request):
    return HttpResponseRedirect(static("quizzes/favicon.svg"))
