"""Grades to LTI platforms (Assignment and Grade Services 2.0): the outbox's ``lti.score``
sender.

A message names a grade target (a student's line item for a quiz). What is posted is the
student's grade *when it is sent*: their best finished graded attempt (``grading.best_attempt``,
after any regrade), its score of its maximum exactly, scaled to the line item's
``scoreMaximum``, the column's maximum (``grading.scaled``: 7 of 8 right is 7 out of 8, 87.5
out of 100; not the whole percent the site's pages show): an attempt's own ``max_score`` can
differ between attempts (archived questions), the column's cannot.

Several messages for one target in a batch are one post, and once a platform is found down
the batch's other grades for it wait without trying (each try could take the whole timeout).
"""

from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

from django.utils import timezone

from quizzes.attempts import grading
from quizzes.integrations.lti.tokens import SCORE_SCOPE, ServiceError, service_request
from quizzes.models import Attempt, LtiGradeTarget, OutboxMessage
from quizzes.outbox.delivery import Delivered, Outcome, Refused, Retry

SCORE_CONTENT_TYPE = "application/vnd.ims.lis.v1.score+json"
TARGET_GONE = "its grade target was deleted (the line item, the platform user or the quiz)"
NO_GRADE = "the student has no finished graded attempt"


def scores_url(line_item_url: str) -> str:
    """The line item's score endpoint: ``/scores`` after its path, its query string kept."""
    parts = urlsplit(line_item_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def best_score(target: LtiGradeTarget) -> tuple[int | float, float] | None:
    """(scoreGiven, scoreMaximum) of the student's best finished graded attempt, or None."""
    attempts = (
        Attempt.objects.graded()
        .filter(user_id=target.lti_user.auth_user_id, quiz_id=target.quiz_id)
        .only("id", "state", "score", "max_score", "pass_mark")
    )
    best = grading.best_attempt(attempts)
    if best is None:
        return None
    maximum = target.line_item.maximum_score
    return grading.scaled(best.score, best.max_score, maximum), maximum


def score_document(target: LtiGradeTarget, given: int | float, maximum: float) -> dict:
    return {
        "userId": target.lti_user.sub,
        "scoreGiven": given,
        "scoreMaximum": maximum,
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
        # The platform keeps the latest timestamp's score: the time of this post, to the millisecond.
        "timestamp": timezone.now().isoformat(timespec="milliseconds"),
    }


def score_post(target: LtiGradeTarget) -> Outcome:
    """Post the student's grade to the target's line item, and say how it went."""
    if target.lti_user.auth_user_id is None:
        return Refused("the platform user is linked to no account")
    score = best_score(target)
    if score is None:
        return Refused(NO_GRADE)
    registration = _registration(target)
    try:
        service_request(
            registration,
            SCORE_SCOPE,
            "POST",
            scores_url(target.line_item.url),
            json_body=score_document(target, *score),
            content_type=SCORE_CONTENT_TYPE,
            accept="application/json",
        )
    except ServiceError as error:
        return Retry(str(error)) if error.retry else Refused(str(error))
    return Delivered()


def lti_score_send(messages: list[OutboxMessage]) -> Mapping[int, Outcome]:
    """The ``lti.score`` sender: one post per grade target of the batch."""
    by_target: dict[int, list[OutboxMessage]] = {}
    for message in messages:
        by_target.setdefault(message.payload.get("target"), []).append(message)
    targets = LtiGradeTarget.objects.select_related("lti_user", "line_item__context__deployment__registration").in_bulk(
        [pk for pk in by_target if pk is not None]
    )
    outcomes: dict[int, Outcome] = {}
    down: dict[int, Retry] = {}  # registration id -> the retry its platform answered
    for target_id, waiting in by_target.items():
        target = targets.get(target_id)
        if target is None:
            outcome = Refused(TARGET_GONE)
        elif _registration(target).pk in down:
            outcome = down[_registration(target).pk]
        else:
            outcome = score_post(target)
            if isinstance(outcome, Retry):
                down[_registration(target).pk] = outcome
        outcomes.update((message.pk, outcome) for message in waiting)
    return outcomes


def _registration(target: LtiGradeTarget):
    return target.line_item.context.deployment.registration
