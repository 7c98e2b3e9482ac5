"""The production settings, with the benchmark's ceiling view mounted (benchmarks/urls.py)."""

from lms.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.urls"
