"""gunicorn's settings for the lms site: ``gunicorn -c deploy/gunicorn.conf.py lms.wsgi:application``.

Each value can be changed from the environment (the systemd unit reads /etc/lms/env):
GUNICORN_BIND, GUNICORN_WORKERS, GUNICORN_THREADS, GUNICORN_TIMEOUT, GUNICORN_GRACEFUL_TIMEOUT,
GUNICORN_MAX_REQUESTS, GUNICORN_MAX_REQUESTS_JITTER, GUNICORN_ACCESSLOG.
"""

import multiprocessing
import os

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
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None  # nginx keeps the access log
errorlog = "-"
# This gunicorn opens a control socket under ~/.gunicorn by default; the service user has no home.
control_socket_disable = True
