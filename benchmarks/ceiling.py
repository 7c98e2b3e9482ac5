"""The ceiling: a bare Django view doing one SELECT and one INSERT.

Mounted at /bench/ceiling/ only in the benchmark's server (benchmarks/settings.py),
in the same gunicorn process and behind the same middleware stack as the
application, so that the ratio of a page's throughput to this one's says how
much the application itself costs. The INSERT goes into ``bench_ceiling``, a
table the benchmark creates (benchmarks/run.py); the SELECT reads a user by
primary key, as a page's user lookup does.
"""

import random

from django.db import connection
from django.http import HttpResponse

TABLE = "bench_ceiling"


def ceiling(request):
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, username FROM auth_user WHERE id = %s", [random.randint(1, 1000)])
        cursor.fetchone()
        cursor.execute(f"INSERT INTO {TABLE} (note) VALUES (%s)", ["ceiling"])
    return HttpResponse(b"ok", content_type="text/plain")
