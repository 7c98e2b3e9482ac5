"""Settings for the test suite: production settings with a throwaway secret."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-secret-key-not-for-production-use-0123456789")

from lms.settings import *  # noqa: F403
from lms.settings import REST_FRAMEWORK, STORAGES

# Tests render templates without running collectstatic first.
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
# Hashing passwords properly is slow by design; tests don't need that.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Serve static files from the apps (as runserver does) instead of a
# collectstatic output that tests never build.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True
# The test client and the live server speak plain http.
SECURE_SSL_REDIRECT = False
# Throttles and the login lockout far out of reach of the suite; tests/common/test_throttling.py,
# tests/accounts/test_lockout.py and tests/common/test_security.py lower them where they test them.
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"user": "1000000/min", "anon": "1000000/min"}
AXES_FAILURE_LIMIT = 1_000_000
# A second alias to the same test database (Django's test mirror of "default"), for the tests of
# the fixed SQL's ``using`` (tests/attempts/test_queries.py): a connection of its own.
DATABASES["other"] = {**DATABASES["default"], "TEST": {"MIRROR": "default"}}  # noqa: F405
