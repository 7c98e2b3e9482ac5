"""The test settings with tests/common/logging_urls.py's URLs: for the gunicorn that
tests/common/test_logging.py starts (debug off, as in production)."""

from lms.settings_test import *  # noqa: F403

ROOT_URLCONF = "tests.common.logging_urls"
