"""Which sender delivers each kind of outbox message (``quizzes.outbox.delivery``): what
``manage.py send_outbox`` runs. A kind whose receiver is not configured has no sender, and its
messages wait."""

from quizzes.integrations.lti.scores import lti_score_send
from quizzes.models import OutboxMessage
from quizzes.outbox.delivery import Sender


def outbox_senders() -> dict[str, Sender]:
    senders: dict[str, Sender] = {}
    # Always: LTI needs no setting, and its messages exist only for platforms that launched us.
    senders[OutboxMessage.Kind.LTI_SCORE] = lti_score_send
    return senders
