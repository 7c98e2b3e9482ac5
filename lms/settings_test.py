"""Settings for the test suite: production settings with a throwaway secret."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-secret-key-not-for-production-use-0123456789")

from lms.settings import *  # noqa: F403
from lms.settings import STORAGES

# Tests render templates without running collectstatic first.
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
# Hashing passwords properly is slow by design; tests don't need that.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Serve static files from the apps (as runserver does) instead of a
# collectstatic output that tests never build.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True
