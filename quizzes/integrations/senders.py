"""Which sender delivers each kind of outbox message (``quizzes.outbox.delivery``): what
``manage.py send_outbox`` runs. A kind whose receiver is not configured has no sender, and its
messages wait."""

from quizzes.outbox.delivery import Sender


def outbox_senders() -> dict[str, Sender]:
    senders: dict[str, Sender] = {}
    return senders
