"""Settings for the lms project.

Everything that differs between a laptop and production comes from the environment, with
defaults that are safe for local development: the "Configuration" table of docs/deployment.md
is the one list of the variables, their defaults and what they do.
"""

import os
from datetime import timedelta
from pathlib import Path

from django.conf.locale import LANG_INFO
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from lms.databases import databases
from lms.error_reports import error_reports_init
from lms.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


_on_off = {word: True for word in ("1", "true", "yes", "on")} | {word: False for word in ("0", "false", "no", "off")}


def env_choice(name: str, choices: dict, default):
    """The value of ``choices`` the variable names (case and spaces ignored), ``default`` when unset or empty."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {value!r}.")
    return choices[value]


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_flag("DJANGO_DEBUG")

_INSECURE_DEV_KEY = "django-insecure-development-key-never-use-in-production"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or (_INSECURE_DEV_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("Set DJANGO_SECRET_KEY (or DJANGO_DEBUG=1 for local development).")

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
LOGGING = logging_config(os.environ)  # stderr, one line per record, DJANGO_LOG_LEVEL (lms/logs.py)
error_reports_init(os.environ)  # to Sentry when SENTRY_DSN is set, nothing personal (lms/error_reports.py)
# /metrics (common/metrics.py): the request figures on unless "0"; who may read them, by client address.
METRICS_ENABLED = os.environ.get("LMS_METRICS", "1") != "0"
METRICS_ALLOWED_NETWORKS = env_list("LMS_METRICS_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128")

INSTALLED_APPS = [
    # Domain-free infrastructure; first for its loaddata (common/management/commands/loaddata.py).
    "common",
    # modeltranslation must come before the admin so that its admin patches apply.
    "modeltranslation",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",  # django-csp; installed for its system checks (csp.E001: settings in the pre-4.0 format)
    "axes",
    # django-lti: LTI 1.3 registrations, deployments, keys, platform users, contexts and line items.
    "lti_tool",
    "quizzes",
]

MIDDLEWARE = [
    "common.request_id.RequestIdMiddleware",  # first: its id is on every log record and response, 500s too
    # /healthz and /readyz answered before any middleware that checks the Host, redirects to
    # https, reads a session or picks a language: probes ask by address, over http (common/health.py).
    "common.health.HealthCheckMiddleware",
    "common.metrics.RequestMetricsMiddleware",  # every request but the probes, by route (/metrics)
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and API responses gzipped for slow mobile networks (static files come compressed
    # from WhiteNoise, above). Django's gzip pads each response at random against BREACH, and
    # the CSRF token is masked anew on every page.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # DEBUG on: under /api/ the JSON 404, not Django's debug page (in the request's language, and
    # outside CommonMiddleware, whose redirect to the path with its slash comes first).
    "quizzes.web.errors.ApiNotFoundInDebugMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The user's time zone, from their session (quizzes/accounts/time_zones.py).
    "quizzes.accounts.time_zones.TimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: a login refused by the lockout becomes the 429 page (quizzes/accounts/lockout.py).
    "axes.middleware.AxesMiddleware",
]

# Every password check goes through the login lockout first (quizzes/accounts/lockout.py),
# then Django's ModelBackend, reading the session's user in one statement (quizzes/accounts/backends.py).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "quizzes.accounts.backends.StatementModelBackend",
]

ROOT_URLCONF = "lms.urls"

# The student pages are Jinja2 (quizzes/jinja2/, quizzes/web/jinja_env.py): the most visited
# pages, where Django's engine was the largest cost. Staff pages and the admin are
# Django templates. Jinja2 comes first: a student page is found at the first lookup.
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "environment": "quizzes.web.jinja_env.environment",
            "context_processors": ["quizzes.web.jinja_env.csrf_once"],
        },
    },
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "lms.wsgi.application"

# E-mail: password resets. In development (DEBUG) they are printed on the console; in
# production they go through SMTP (docs/deployment.md, "E-mail").
EMAIL_BACKEND = os.environ.get(
    "DJANGO_EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend" if DEBUG else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = os.environ.get("DJANGO_EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("DJANGO_EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("DJANGO_EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("DJANGO_EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_flag("DJANGO_EMAIL_USE_TLS")
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "webmaster@localhost")
# A password-reset link works once (it is signed with the password it replaces) and for this long.
PASSWORD_RESET_TIMEOUT = int(os.environ.get("DJANGO_PASSWORD_RESET_TIMEOUT", str(2 * 60 * 60)))

DATABASES = databases(os.environ, BASE_DIR)
DATABASE_ROUTERS = ["common.replica.ReplicaRouter"]
# PostgreSQL: the statements of the student paths (quizzes/*/statements.py) are prepared once per
# connection (PREPARE / EXECUTE) on a connection that goes straight to PostgreSQL, and sent as text
# through a pooler (PgBouncer), found once per new connection (common/pooler.py): "auto". "1"
# prepares on every connection (a pooler in session mode), "0" on none.
QUIZZES_PREPARED_STATEMENTS = env_choice("DJANGO_DB_PREPARED_STATEMENTS", {"auto": "auto", **_on_off}, "auto")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # django-redis keeps its redis-py client and connection pool (Django's own RedisCache builds
    # a client per operation), and gives the throttle's one-command count the client (common/throttle.py).
    CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": REDIS_URL}}
    # redis-py waits for ever by default: a Redis that stops answering would hold every request
    # (and /readyz's check) until gunicorn's timeout. Its commands take far less than a millisecond.
    CACHES["default"]["OPTIONS"] = {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 2}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
CACHES["default"]["KEY_PREFIX"] = os.environ.get("DJANGO_CACHE_KEY_PREFIX", "")

# Sessions live in the database; with a shared cache (Redis) they are read from it
# (written through to the database), which saves a query on every page. Not with the
# per-process local memory cache: a logout in one worker would not reach the others.
# Django's backends, a cookie that cannot be a session key being no session (common/sessions/).
SESSION_ENGINE = "common.sessions.cached_db" if REDIS_URL else "common.sessions.db"
# Saved only when changed (Django's default, stated here): a page view writes nothing.
SESSION_SAVE_EVERY_REQUEST = False

# Login lockout (django-axes; quizzes/accounts/lockout.py): failed logins per username AND
# address, so that nobody can lock a student out from elsewhere. No lockout per address
# alone: a school's or a mobile network's shared address would lock out all its students.
_LOGIN_THROTTLE_GONE = sorted(name for name in os.environ if name.startswith("DJANGO_LOGIN_THROTTLE_"))
if _LOGIN_THROTTLE_GONE:
    raise ImproperlyConfigured(
        f"{', '.join(_LOGIN_THROTTLE_GONE)}: no longer read. Failed logins now lock a username out "
        "from one address: set DJANGO_LOGIN_LOCKOUT_FAILURES and DJANGO_LOGIN_LOCKOUT_COOLOFF (seconds)."
    )
AXES_FAILURE_LIMIT = int(os.environ.get("DJANGO_LOGIN_LOCKOUT_FAILURES", "5"))
AXES_COOLOFF_TIME = timedelta(seconds=int(os.environ.get("DJANGO_LOGIN_LOCKOUT_COOLOFF", "900")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# Counted in the database: shared by every worker and server, with or without REDIS_URL.
AXES_HANDLER = "quizzes.accounts.lockout.LockoutDatabaseHandler"
# The address the API throttles see (common.throttle.client_ip: X-Forwarded-For behind
# REST_FRAMEWORK["NUM_PROXIES"] proxies), if it is an IP address.
AXES_CLIENT_IP_CALLABLE = "quizzes.accounts.lockout.client_address"
AXES_RESET_ON_SUCCESS = True
# A refused attempt (locked out) is not counted: the lockout ends on time, whoever keeps trying.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# The 429 page in the page's language, with Retry-After.
AXES_LOCKOUT_CALLABLE = "quizzes.accounts.lockout.lockout_response"
# No table of every successful login (addresses of students, kept forever): only the failures
# within the cool-off are stored, and deleted as they expire.
AXES_DISABLE_ACCESS_LOG = True
# Masked in the logs and in the failures' stored form data (the password always is).
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "csrfmiddlewaretoken"]

# Internationalisation ------------------------------------------------------

# Django ships no Shona; without this entry get_language_info("sn") raises
# KeyError and the admin's language-aware widgets fail with a 500.
LANG_INFO["sn"] = {"bidi": False, "code": "sn", "name": "Shona", "name_local": "chiShona"}

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("ur", _("Urdu")),
    ("sn", _("Shona")),
    ("id", _("Indonesian")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
# The site's time zone: a user's dates are written in their own (UserPreferences.time_zone) or this.
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "UTC")
# Where Shona's date formats live (Django has none for it).
FORMAT_MODULE_PATH = ["lms.formats"]
# How long after an attempt's deadline an answer is still taken: the time an answer sent just
# before the deadline may spend on a slow network. The server's clock decides.
ATTEMPT_DEADLINE_GRACE = timedelta(seconds=int(os.environ.get("LMS_ATTEMPT_DEADLINE_GRACE", "15")))
USE_TZ = True

# Integrations (quizzes/outbox, quizzes/integrations): the site's own address, and the LRS.
LMS_SITE_URL = os.environ.get("LMS_SITE_URL", "http://localhost:8000").rstrip("/")
XAPI_ENDPOINT = os.environ.get("XAPI_ENDPOINT", "")
XAPI_USERNAME = os.environ.get("XAPI_USERNAME", "")
XAPI_PASSWORD = os.environ.get("XAPI_PASSWORD", "")

# English is the source language of all content; an empty translation falls
# back to it field by field.
MODELTRANSLATION_DEFAULT_LANGUAGE = "en"
MODELTRANSLATION_LANGUAGES = ("en", "ur", "sn", "id")
MODELTRANSLATION_FALLBACK_LANGUAGES = ("en",)
# The tabbed admin would load jQuery UI from a CDN; we serve our own copy.
JQUERY_UI_URL = "vendor/jquery-ui/jquery-ui.min.js"

# API ---------------------------------------------------------------------------

REST_FRAMEWORK = {
    # Token first: an unauthenticated request then gets 401 with WWW-Authenticate.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "quizzes.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["quizzes.api.parsers.StrictJSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "quizzes.api.negotiation.ContentNegotiation",
    "DEFAULT_PAGINATION_CLASS": "quizzes.api.pagination.StrictPageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "quizzes.api.exceptions.api_exception_handler",
    # Counted in the cache (Redis with REDIS_URL): the limits hold across workers and servers.
    "DEFAULT_THROTTLE_CLASSES": [
        "common.throttle.UserRateThrottle",
        "common.throttle.AnonRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": os.environ.get("DJANGO_API_THROTTLE_USER", "600/min"),
        "anon": os.environ.get("DJANGO_API_THROTTLE_ANON", "60/min"),
    },
    # Whom the throttles count per address. Production runs behind one TLS-terminating
    # proxy that appends the client's address to X-Forwarded-For: the last entry is it
    # (whatever a client put before it). 0 (debug): REMOTE_ADDR.
    "NUM_PROXIES": int(os.environ.get("DJANGO_NUM_PROXIES", "0" if DEBUG else "1")),
}
# Far below its rate, a client's API requests are counted in the worker and sent to the
# shared count in batches: each worker may exceed a rate by this share of it (common/throttle.py).
API_THROTTLE_LOCAL_SHARE = float(os.environ.get("DJANGO_API_THROTTLE_LOCAL_SHARE", "0.01"))
SPECTACULAR_SETTINGS = {
    "TITLE": "Quizzes API",
    "DESCRIPTION": (
        "Multilingual tracked quizzes. Authenticate with POST /api/v1/auth/token/ and send "
        "`Authorization: Token <token>`. Texts come in the language of `?lang=` or Accept-Language, "
        "falling back to English per field; each text's `*_language` says which."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {"LanguageEnum": "quizzes.api.fields.LANGUAGE_CODES"},
    # Ids in URLs (common/converters.py) are integers, as in the bodies; not strings with a pattern.
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 1, "maximum": 10**18 - 1}},
    # Interactive docs from the sidecar package: served by the app, no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No badge from the online validator: the Content-Security-Policy allows no other origin.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}

# Static files ----------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Debug off: collectstatic writes hashed names with gzip and Brotli copies (the Brotli package);
# WhiteNoise serves the smallest accepted, cached for good. make run (debug on) serves the apps' files.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "quizzes:dashboard"
LOGOUT_REDIRECT_URL = "login"

# Security (production: DJANGO_DEBUG off) -------------------------------------

# TLS ends at the proxy in front of the app, which sets X-Forwarded-Proto (and must
# overwrite a client's own): a request is secure when it says "https".
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_flag("DJANGO_SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = 0 if DEBUG else 365 * 24 * 60 * 60
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = not DEBUG
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = not DEBUG
LANGUAGE_COOKIE_SECURE = not DEBUG
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
X_FRAME_OPTIONS = "DENY"

# django-csp's CSPMiddleware sends this on every response (with debug on, not on the
# debug 404 and 500 pages). No 'unsafe-inline' or 'unsafe-eval': pages load their
# scripts and styles from files. The API docs view adds its inline style's hash
# (quizzes/api/urls.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'self'"],
        "object-src": ["'none'"],
    },
}

# The LTI tool (quizzes/integrations/lti, docs/integrations.md). Platforms show it in an iframe:
# LTI_FRAME_ANCESTORS lists their origins (https://moodle.example.org), which may then frame
# every page, and the session, CSRF and language cookies become SameSite=None (with Secure, as
# browsers require: the site must be on https) so that the framed pages keep the session.
LTI_FRAME_ANCESTORS = env_list("LTI_FRAME_ANCESTORS")
if LTI_FRAME_ANCESTORS:
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["frame-ancestors"] = ["'self'", *LTI_FRAME_ANCESTORS]
    # CSP's frame-ancestors says who may frame; X-Frame-Options has no way to name them.
    MIDDLEWARE.remove("django.middleware.clickjacking.XFrameOptionsMiddleware")
    SILENCED_SYSTEM_CHECKS = ["security.W002"]  # the missing X-Frame-Options: CSP's frame-ancestors is there
    SESSION_COOKIE_SAMESITE = CSRF_COOKIE_SAMESITE = LANGUAGE_COOKIE_SAMESITE = "None"
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = LANGUAGE_COOKIE_SECURE = True
# A new signing key (manage.py rotate_keys) is in the JWKS this long before it signs.
LTI_KEY_PUBLISH_AHEAD = int(os.environ.get("LTI_KEY_PUBLISH_AHEAD", "3600"))
