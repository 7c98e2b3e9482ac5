"""``LOGGING`` from the environment: every record of the level ``DJANGO_LOG_LEVEL`` names (INFO by
default) and above goes to stderr, one line each (common/log_format.py) with the request's id,
method and path (common/request_id.py). Under systemd the journal collects it, beside gunicorn's
access and error logs (deploy/gunicorn.conf.py).

Django's own ``django`` handlers are replaced: no console handler that only speaks in debug, and no
mail to ADMINS (none are set, and a mail per error is no log). Unhandled exceptions reach stderr
through ``django.request`` with their traceback.
"""

from django.core.exceptions import ImproperlyConfigured

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def logging_config(environ) -> dict:
    level = environ.get("DJANGO_LOG_LEVEL", "").strip().upper() or "INFO"
    if level not in LEVELS:
        raise ImproperlyConfigured(f"DJANGO_LOG_LEVEL must be one of {', '.join(LEVELS)}, not {level!r}.")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request": {"()": "common.request_id.RequestContextFilter"}},
        "formatters": {"one_line": {"()": "common.log_format.OneLineFormatter"}},
        "handlers": {
            "stderr": {"class": "common.log_format.StderrHandler", "filters": ["request"], "formatter": "one_line"},
        },
        "root": {"level": level, "handlers": ["stderr"]},
        "loggers": {
            "django": {"level": level, "handlers": [], "propagate": True},
            # Its DEBUG records are SQL with their parameters: session keys, password hashes, answers.
            "django.db.backends": {"level": "INFO" if level == "DEBUG" else level},
        },
    }
