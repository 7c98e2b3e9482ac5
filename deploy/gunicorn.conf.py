"""gunicorn's settings for the lms site: ``gunicorn -c deploy/gunicorn.conf.py lms.wsgi:application``.

Each value can be changed from the environment (the systemd unit reads /etc/lms/env):
GUNICORN_BIND, GUNICORN_WORKERS, GUNICORN_THREADS, GUNICORN_TIMEOUT, GUNICORN_GRACEFUL_TIMEOUT,
GUNICORN_MAX_REQUESTS, GUNICORN_MAX_REQUESTS_JITTER, GUNICORN_ACCESSLOG; DJANGO_LOG_LEVEL is gunicorn's
level too.
"""

import multiprocessing
import os
import tempfile
from pathlib import Path

wsgi_app = "lms.wsgi:application"
bind = [address.strip() for address in os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").split(",")]
# Two processes per core, two threads each (docs/performance.md): a thread waits on the
# database while the other serves.
workers = int(os.environ.get("GUNICORN_WORKERS") or 2 * multiprocessing.cpu_count())
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
# nginx's proxy_read_timeout (deploy/nginx/lms.conf) is a little longer, so a slow request is
# ended by gunicorn, which logs it, rather than cut by nginx.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "20"))
keepalive = 5
# Workers are replaced now and then, not all at once, so a slow leak cannot grow for ever.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "5000"))
max_requests_jitter = int(os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", "500"))
# Only nginx on this machine talks to gunicorn; the app reads the client address from
# X-Forwarded-For itself (DJANGO_NUM_PROXIES).
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1")
# Logs go where the app's do (lms/logs.py: stderr, one line per record), for the journal to collect:
# the access log on stdout ("-"; GUNICORN_ACCESSLOG names a file instead, or is empty for none),
# gunicorn's own on stderr. Each request's line ends with its id (common/request_id.py), as the
# app's records of it and the X-Request-ID header the client got carry it. No cookie, credential or body.
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-") or None
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(M)sms %({x-request-id}o)s'
errorlog = "-"
loglevel = os.environ.get("DJANGO_LOG_LEVEL", "").strip().lower() or "info"
# This gunicorn opens a control socket under ~/.gunicorn by default; the service user has no home.
control_socket_disable = True

# /metrics adds up the figures of every worker (prometheus-client's multiprocess mode): each writes
# its own files in this directory, which starts empty (the figures of the last run would count
# again), and a worker that leaves is marked so its gauges drop out. Set before the workers
# import the app; PROMETHEUS_MULTIPROC_DIR names a directory of one's own (systemd's RuntimeDirectory).
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="lms-metrics-")


def on_starting(server):
    directory = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.db"):
        stale.unlink()


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
