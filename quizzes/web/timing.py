"""The teacher's settings as the student pages say them: a quiz's dates, its time limit, when
its answers are shown, an attempt's time left (the countdown's data), and the finish of an
attempt whose time ran out. The rules themselves are ``quizzes.attempts.rules``'s."""

import json
import math
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from common.dates import local_datetime, local_time
from quizzes.attempts import rules
from quizzes.attempts.services import AttemptError, attempt_finish_if_overdue, start_refusal_check
from quizzes.models import Attempt, FeedbackTiming

OPENS_ON = _("Opens on %(date)s.")
CLOSED_ON = _("Closed on %(date)s.")
CLOSES_ON = _("Closes on %(date)s.")
TIME_RAN_OUT = _("Time ran out at %(time)s; your attempt was finished with the answers you gave.")
TIME_LEFT_UNTIL = _("Time left: until %(time)s")
TIME_IS_UP = _("Time is up.")
NO_RIGHT_ANSWERS = _("This quiz does not show which answers are right.")
# What the quiz page says of each timing (the first is what the seeds have always promised).
FEEDBACK_TIMING = {
    FeedbackTiming.IMMEDIATELY: _(
        "After each answer you see at once whether it was right, and why. Your first answer to a question is final."
    ),
    FeedbackTiming.AFTER_ATTEMPT: _(
        "You see whether each answer was right, and why, once you finish the attempt. "
        "Your first answer to a question is final."
    ),
    FeedbackTiming.AFTER_CLOSE: _(
        "You see whether each answer was right, and why, once the quiz closes. "
        "Your first answer to a question is final."
    ),
    FeedbackTiming.NEVER: _(
        "This quiz does not show whether answers were right. Your first answer to a question is final."
    ),
}
# What an answered question says in place of its feedback while the review withholds it.
ANSWER_WITHHELD = {
    FeedbackTiming.AFTER_ATTEMPT: _(
        "Your answer is saved. You will see whether it was right after you finish the attempt."
    ),
    FeedbackTiming.AFTER_CLOSE: _("Your answer is saved. You will see whether it was right after the quiz closes."),
    FeedbackTiming.NEVER: _("Your answer is saved. This quiz does not show whether answers were right."),
}
# What a finished attempt's review says while it withholds the feedback.
RESULT_WITHHELD = {
    FeedbackTiming.AFTER_CLOSE: _("You will see whether each answer was right after the quiz closes."),
    FeedbackTiming.NEVER: _("This quiz does not show whether answers were right."),
}
# How often an open question page asks for its attempt's deadline (a teacher may move it):
# within a minute, as the teachers' settings promise, at a light request per student.
POLL_SECONDS = 30
# When the countdown tells a screen reader the time left (seconds before the deadline).
ANNOUNCED_MINUTES = (10, 5, 2, 1)
ANNOUNCED_SECONDS = (30,)


def quiz_facts(quiz, quiz_rules: rules.QuizRules, now: datetime) -> dict:
    """What the quiz page says of ``quiz``'s settings for a student (``quiz_rules``, with
    their overrides): its dates, its time limit, when answers are shown, and why no attempt
    can start now (the service's own refusal) or None."""
    dates = []
    if quiz_rules.opens_at is not None and quiz_rules.has_not_opened(now):
        dates.append(OPENS_ON % {"date": local_datetime(quiz_rules.opens_at)})
    if quiz_rules.closes_at is not None:
        closed = CLOSED_ON if quiz_rules.has_closed(now) else CLOSES_ON
        dates.append(closed % {"date": local_datetime(quiz_rules.closes_at)})
    feedback = [FEEDBACK_TIMING[quiz.feedback_timing]]
    if not quiz.show_right_answer and quiz.feedback_timing != FeedbackTiming.NEVER:
        feedback.append(NO_RIGHT_ANSWERS)
    try:
        start_refusal_check(quiz_rules, now)
    except AttemptError as error:
        not_startable = error.message
    else:
        not_startable = None
    return {
        "dates": dates,
        "time_limit": time_limit_text(quiz_rules.time_limit) if quiz_rules.time_limit else None,
        "feedback": feedback,
        "not_startable": not_startable,
    }


def time_limit_text(limit: timedelta) -> str:
    minutes = math.ceil(limit.total_seconds() / 60)
    return ngettext("Time limit: %(minutes)s minute", "Time limit: %(minutes)s minutes", minutes) % {"minutes": minutes}


def review_withheld(attempt: Attempt, templates: dict) -> str | None:
    """What a page says in place of the feedback ``attempt.review`` withholds (``templates``:
    ``ANSWER_WITHHELD`` or ``RESULT_WITHHELD``), or None when it shows it."""
    if attempt.review.correctness:
        return None
    return templates.get(attempt.quiz.feedback_timing)


def countdown(attempt: Attempt, now: datetime) -> dict | None:
    """The question page's time left: the deadline as a clock time (for a page without
    JavaScript) and what ``countdown.js`` reads (the deadline and the server's now, the grace
    after which the server finishes the attempt, and the sentences it announces); None for an
    attempt without a deadline."""
    if attempt.deadline is None or attempt.is_finished:
        return None
    same_day = timezone.localdate(attempt.deadline) == timezone.localdate(now)
    clock = local_time(attempt.deadline) if same_day else local_datetime(attempt.deadline)
    announcements = {
        minutes * 60: ngettext("%(minutes)s minute left.", "%(minutes)s minutes left.", minutes) % {"minutes": minutes}
        for minutes in ANNOUNCED_MINUTES
    }
    for seconds in ANNOUNCED_SECONDS:
        announcements[seconds] = ngettext("%(seconds)s second left.", "%(seconds)s seconds left.", seconds) % {
            "seconds": seconds
        }
    return {
        "static": TIME_LEFT_UNTIL % {"time": clock},
        "deadline": attempt.deadline.isoformat(timespec="milliseconds"),
        "now": now.isoformat(timespec="milliseconds"),
        "grace": int(settings.ATTEMPT_DEADLINE_GRACE.total_seconds()),
        "poll": POLL_SECONDS,
        "announcements": json.dumps({str(at): text for at, text in announcements.items()}, ensure_ascii=False),
        "time_is_up": TIME_IS_UP,
    }


def time_status(attempt: Attempt, now: datetime) -> dict:
    """What ``countdown.js`` reads when it asks again: whether the attempt is still in progress,
    its deadline as it stands (a teacher may have moved it) and the server's now (the page keeps
    the clock correction it made on load: a poll's round trip would only blur it)."""
    return {
        "state": attempt.state,
        "deadline": attempt.deadline.isoformat(timespec="milliseconds") if attempt.deadline else None,
        "now": now.isoformat(timespec="milliseconds"),
    }


def overdue_finish(request, attempt: Attempt):
    """Finish ``attempt`` if its time ran out (``attempt_finish_if_overdue``) and send the
    student to its result, saying so; None when it was not overdue. Every page of an attempt
    asks this first."""
    finished = attempt_finish_if_overdue(attempt=attempt)
    if finished is None:
        return None
    messages.info(request, TIME_RAN_OUT % {"time": local_datetime(finished.deadline)})
    return redirect("quizzes:attempt_result", pk=finished.pk)
