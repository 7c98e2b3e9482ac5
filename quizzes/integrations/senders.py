"""Which sender delivers each kind of outbox message (``quizzes.outbox.delivery``): what
``manage.py send_outbox`` runs. A kind whose receiver is not configured has no sender, and its
messages wait."""

from django.conf import settings

from quizzes.integrations.lti.scores import lti_score_send
from quizzes.integrations.xapi.sender import xapi_send
from quizzes.models import OutboxMessage
from quizzes.outbox.delivery import Sender

XAPI_KINDS = (OutboxMessage.Kind.XAPI_STARTED, OutboxMessage.Kind.XAPI_ANSWERED, OutboxMessage.Kind.XAPI_FINISHED)


def outbox_senders() -> dict[str, Sender]:
    senders: dict[str, Sender] = {}
    # Always: LTI needs no setting, and its messages exist only for platforms that launched us.
    senders[OutboxMessage.Kind.LTI_SCORE] = lti_score_send
    if settings.XAPI_ENDPOINT:
        senders.update({kind.value: xapi_send for kind in XAPI_KINDS})
    return senders
