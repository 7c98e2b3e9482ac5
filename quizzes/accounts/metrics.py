"""The login lockout's figure for the operator: logins refused for too many failures (axes'
``user_locked_out`` signal, connected in the app's ``ready``)."""

from prometheus_client import Counter

LOGIN_LOCKOUTS = Counter("lms_login_lockouts", "Logins refused by the lockout (too many failures).")


def login_locked_out(sender, **kwargs) -> None:
    LOGIN_LOCKOUTS.inc()
