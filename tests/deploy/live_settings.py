"""Production settings (lms.settings) with STATIC_ROOT in the stack's own directory, where its
collectstatic writes and nginx serves from; nothing else differs."""

import os

from lms.settings import *  # noqa: F403

STATIC_ROOT = os.environ["LMS_STATIC_ROOT"]
