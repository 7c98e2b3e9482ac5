from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
]

# Every page carries its language in the URL: /en/, /ur/, /sn/, /id/.
urlpatterns += i18n_patterns(
    path("admin/", admin.site.urls),
    prefix_default_language=True,
)
