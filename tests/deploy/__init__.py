"""The deployment files of deploy/: nginx's site, gunicorn's settings and the systemd units."""
