"""The xAPI 1.0.3 statements of an attempt: its start, each answer and its finish.

Each statement is a pure function of records that never change once written: the attempt's
start (user, quiz, start time, practice flag), an ``Answer`` row with the ``QuestionVersion``
it was shown, and the finish's figures as the outbox message copied them (a regrade may change
the attempt's score since; the statement says what the student was told). So building one
again, for a resend, gives the same statement, with the same id (a UUID named by the message's
kind and key): the LRS keeps one. Only the names shown beside the ids (the username, the quiz's
and course's titles) are read as they are now: a resend after one was edited is a statement
the LRS refuses as a conflict (409) with the one it keeps, which counts as delivered.

Ids are IRIs under ``LMS_SITE_URL``: the quiz is ``<site>/quizzes/<slug>``, its questions
``<site>/quizzes/<slug>/questions/<question id>``, the course ``<site>/courses/<slug>``, and
the student an account on ``<site>`` named by their user id (stable when the username changes;
no e-mail address leaves the site).
"""

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from django.conf import settings

from quizzes.attempts import grading
from quizzes.content.languages import column
from quizzes.content.shown import shown_columns
from quizzes.models import Answer, Attempt, OutboxMessage, QuestionKind

Kind = OutboxMessage.Kind
VERSION = "1.0.3"
LANGUAGES = tuple(code for code, _name in settings.LANGUAGES)

VERB_INITIALIZED = "http://adlnet.gov/expapi/verbs/initialized"
VERB_ANSWERED = "http://adlnet.gov/expapi/verbs/answered"
VERB_COMPLETED = "http://adlnet.gov/expapi/verbs/completed"
ACTIVITY_ASSESSMENT = "http://adlnet.gov/expapi/activities/assessment"
ACTIVITY_COURSE = "http://adlnet.gov/expapi/activities/course"
ACTIVITY_INTERACTION = "http://adlnet.gov/expapi/activities/cmi.interaction"
_VERB_NAMES = {VERB_INITIALIZED: "initialized", VERB_ANSWERED: "answered", VERB_COMPLETED: "completed"}


def site_url() -> str:
    return settings.LMS_SITE_URL.rstrip("/")


def extension(name: str) -> str:
    """The IRI of one of the site's context extensions (``question-version``, ``practice``)."""
    return f"{site_url()}/xapi/extensions/{name}"


def _namespace() -> uuid.UUID:
    # Per site: two sites sending to one LRS never name two statements alike.
    return uuid.uuid5(uuid.NAMESPACE_URL, f"{site_url()}/xapi")


def statement_id(kind: str, key: str) -> str:
    """The id of the statement of the outbox message ``kind``/``key``: the same on every send."""
    return str(uuid.uuid5(_namespace(), f"{kind}:{key}"))


def registration(attempt_id: int) -> str:
    """The attempt's ``context.registration``, shared by all its statements."""
    return str(uuid.uuid5(_namespace(), f"attempt:{attempt_id}"))


def timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def duration(elapsed: timedelta) -> str:
    """An ISO 8601 duration to the hundredth of a second, as xAPI keeps them: ``PT1M2.5S``."""
    hundredths = max(round(elapsed.total_seconds() * 100), 0)
    hours, rest = divmod(hundredths, 360000)
    minutes, rest = divmod(rest, 6000)
    seconds = f"{rest // 100}.{rest % 100:02d}".rstrip("0").rstrip(".")
    parts = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    return f"PT{parts}{seconds}S" if rest or not parts else f"PT{parts}"


def _language_map(values: dict, field: str) -> dict[str, str]:
    """Every language with a text, by its RFC 5646 tag."""
    return {language: text for language in LANGUAGES if (text := values.get(column(field, language)) or "")}


def _columns(obj, field: str) -> dict[str, str]:
    # As learners are shown them: a machine translation its language hides is left out.
    return shown_columns(obj, (field,))[0]


def _actor(user) -> dict:
    return {
        "objectType": "Agent",
        "name": user.get_username(),
        "account": {"homePage": site_url(), "name": str(user.pk)},
    }


def _verb(iri: str) -> dict:
    return {"id": iri, "display": {"en-US": _VERB_NAMES[iri]}}


def quiz_activity(quiz) -> dict:
    return {
        "objectType": "Activity",
        "id": f"{site_url()}/quizzes/{quiz.slug}",
        "definition": {"type": ACTIVITY_ASSESSMENT, "name": _language_map(_columns(quiz, "title"), "title")},
    }


def course_activity(course) -> dict:
    return {
        "objectType": "Activity",
        "id": f"{site_url()}/courses/{course.slug}",
        "definition": {"type": ACTIVITY_COURSE, "name": _language_map(_columns(course, "title"), "title")},
    }


def question_activity(quiz, version) -> dict:
    """The question as ``version`` showed it: its text and offered choices, and its key. A
    true-or-false one is xAPI's ``true-false`` interaction, whose responses are "true" and
    "false"."""
    definition = {"type": ACTIVITY_INTERACTION, "description": _language_map(version.texts, "text")}
    if version.kind == QuestionKind.TRUE_FALSE:
        definition["interactionType"] = "true-false"
    else:
        definition["interactionType"] = "choice"
        definition["choices"] = [
            {"id": str(choice["id"]), "description": _language_map(choice, "text")} for choice in version.choices
        ]
    if version.correct_choice_id is not None:
        definition["correctResponsesPattern"] = [_response(version, version.correct_choice_id)]
    return {
        "objectType": "Activity",
        "id": f"{site_url()}/quizzes/{quiz.slug}/questions/{version.question_id}",
        "definition": definition,
    }


def _response(version, choice_id: int) -> str:
    """A choice as an xAPI response: its id, or for a true-or-false question (its choices True
    then False) "true" or "false"."""
    offered = [choice["id"] for choice in version.choices]
    if version.kind == QuestionKind.TRUE_FALSE and choice_id in offered:
        return "true" if offered.index(choice_id) == 0 else "false"
    return str(choice_id)


def _context(attempt: Attempt, *, parent: bool, **extensions) -> dict:
    activities = {"grouping": [course_activity(attempt.quiz.course)]}
    if parent:
        activities = {"parent": [quiz_activity(attempt.quiz)], **activities}
    return {
        "registration": registration(attempt.pk),
        "contextActivities": activities,
        "extensions": {
            **{extension(name): value for name, value in extensions.items()},
            extension("practice"): attempt.is_practice,
        },
    }


def _statement(message: OutboxMessage, attempt: Attempt, verb: str, obj: dict, moment: datetime, **rest) -> dict:
    return {
        "id": statement_id(message.kind, message.key),
        "actor": _actor(attempt.user),
        "verb": _verb(verb),
        "object": obj,
        **rest,
        "timestamp": timestamp(moment),
        "version": VERSION,
    }


def started_statement(message: OutboxMessage, attempt: Attempt) -> dict:
    return _statement(
        message, attempt, VERB_INITIALIZED, quiz_activity(attempt.quiz), attempt.started_at,
        context=_context(attempt, parent=False),
    )  # fmt: skip


def finished_statement(message: OutboxMessage, attempt: Attempt) -> dict:
    """The finish as it was graded then: the score and pass mark its message copied."""
    score, max_score, pass_mark = (message.payload[name] for name in ("score", "max_score", "pass_mark"))
    result = {
        "completion": True,
        "success": grading.passed(score, max_score, pass_mark),
        "score": {"raw": score, "min": 0, "max": max_score, "scaled": grading.scaled(score, max_score)},
        "duration": duration(attempt.finished_at - attempt.started_at),
    }
    return _statement(
        message, attempt, VERB_COMPLETED, quiz_activity(attempt.quiz), attempt.finished_at,
        result=result, context=_context(attempt, parent=False),
    )  # fmt: skip


def answered_statement(message: OutboxMessage, answer: Answer, since: datetime) -> dict:
    """An answer: right or wrong by the key of the version shown (what its student was told),
    the choice, the time since ``since`` (the attempt's previous answer, or its start)."""
    attempt, version = answer.attempt, answer.version
    result = {
        "success": answer.choice_id == version.correct_choice_id,
        "response": _response(version, answer.choice_id),
        "duration": duration(answer.answered_at - since),
    }
    context = {**_context(attempt, parent=True, **{"question-version": version.number}), "language": answer.language}
    return _statement(
        message, attempt, VERB_ANSWERED, question_activity(attempt.quiz, version), answer.answered_at,
        result=result, context=context,
    )  # fmt: skip


def statements_build(messages: Iterable[OutboxMessage]) -> dict[int, dict]:
    """The statement of each xAPI message, by message id, in a few queries whatever their
    number; a message whose attempt or answer no longer exists is left out."""
    messages = list(messages)
    attempt_ids = {m.subject_id for m in messages if m.kind in (Kind.XAPI_STARTED, Kind.XAPI_FINISHED)}
    answer_ids = {m.subject_id for m in messages if m.kind == Kind.XAPI_ANSWERED}
    attempts = Attempt.objects.select_related("user", "quiz__course").in_bulk(attempt_ids) if attempt_ids else {}
    answers = (
        Answer.objects.select_related("attempt__user", "attempt__quiz__course", "version").in_bulk(answer_ids)
        if answer_ids
        else {}
    )
    previous = _previous_moments(answers.values())
    built = {}
    for message in messages:
        if message.kind == Kind.XAPI_ANSWERED and (answer := answers.get(message.subject_id)):
            built[message.pk] = answered_statement(message, answer, previous[answer.pk])
        elif message.kind == Kind.XAPI_STARTED and (attempt := attempts.get(message.subject_id)):
            built[message.pk] = started_statement(message, attempt)
        elif message.kind == Kind.XAPI_FINISHED and (attempt := attempts.get(message.subject_id)):
            built[message.pk] = finished_statement(message, attempt)
    return built


def _previous_moments(answers: Iterable[Answer]) -> dict[int, datetime]:
    """For each answer, when its attempt's answer before it was given, or the attempt started."""
    answers = list(answers)
    if not answers:
        return {}
    starts = {answer.attempt_id: answer.attempt.started_at for answer in answers}
    rows = Answer.objects.filter(attempt_id__in=starts).order_by("attempt_id", "answered_at", "id")
    moments, last = {}, {}
    for answer_id, attempt_id, answered_at in rows.values_list("id", "attempt_id", "answered_at"):
        moments[answer_id] = last.get(attempt_id, starts[attempt_id])
        last[attempt_id] = answered_at
    return moments
