"""Settings of a live server that serves the web pages: production settings (lms.settings) with
the static files served from the apps, as the test settings do, instead of a ``collectstatic``
(10-20 s of compression) before the server starts. Nothing else differs: the database, the
sessions, CSRF and the rest are production's.
"""

from lms.settings import *  # noqa: F403
from lms.settings import STORAGES

STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
WHITENOISE_USE_FINDERS = True
