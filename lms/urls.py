from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from common.metrics import metrics_view
from quizzes.accounts import login, time_zones
from quizzes.web.favicon import favicon
from quizzes.web.offline import service_worker

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include("quizzes.api.urls")),
    # The LTI 1.3 tool: URLs that platforms store, so without a language prefix.
    path("lti/", include("quizzes.integrations.lti.urls")),
    # At the root, so that its scope covers the pages of every language.
    path("sw.js", service_worker, name="service_worker"),
    path("favicon.ico", favicon, name="favicon"),
    # /healthz and /readyz, for probes: without a language prefix (common/health.py).
    path("", include("common.health")),
    # Prometheus' scrape, for the allowed addresses only (common/metrics.py).
    path("metrics", metrics_view, name="metrics"),
]

# Every page carries its language in the URL: /en/, /ur/, /sn/, /id/.
urlpatterns += i18n_patterns(
    # The student pages first: the most requested, matched without trying the others.
    path("", include("quizzes.web.urls")),
    # Staff reports and tools before the admin: admin.site.urls would claim every admin/ path.
    path("admin/reports/", include("quizzes.admin.urls")),
    path("admin/", admin.site.urls),
    path("accounts/login/", login.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Django's password reset, with the student pages' templates and a plain-text e-mail in the
    # page's language. An unknown address gets the same page as a known one, and no e-mail.
    path(
        "accounts/password-reset/",
        auth_views.PasswordResetView.as_view(email_template_name="registration/password_reset_email.txt"),
        name="password_reset",
    ),
    path("accounts/password-reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("accounts/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    path("account/time-zone/", time_zones.time_zone_view, name="time_zone"),
    prefix_default_language=True,
)

handler404 = "quizzes.web.errors.page_not_found"
handler500 = "quizzes.web.errors.server_error"
