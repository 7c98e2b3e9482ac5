from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
]

# Every page carries its language in the URL: /en/, /ur/, /sn/, /id/.
urlpatterns += i18n_patterns(
    path("admin/", admin.site.urls),
    # Until the student dashboard exists, the site's front door is the admin.
    path("", RedirectView.as_view(pattern_name="admin:index"), name="home"),
    prefix_default_language=True,
)
