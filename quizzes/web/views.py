"""Student pages: dashboard, quiz, one question at a time with feedback, result.

Views parse the request, call a selector or a service, and render. Every
refusal is a page in the student's language with a 4xx status.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, get_language_info
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from common.converters import parse_id
from quizzes.attempts.layout import DrawSettings, layout_size
from quizzes.attempts.practice_selectors import practice_due
from quizzes.attempts.selectors import (
    published_quiz_get,
    student_attempt_get,
    student_attempt_with_answers,
    student_dashboard,
    student_quiz_get,
)
from quizzes.attempts.services import (
    ATTEMPT_FINISHED,
    AttemptError,
    attempt_answer_submit,
    attempt_finish,
    attempt_start,
)
from quizzes.content.cache import derived, quiz_content, quiz_contents
from quizzes.content.languages import SOURCE_LANGUAGE
from quizzes.content.localized import quiz_localize
from quizzes.content.shown import shown_in_english
from quizzes.enrollment.services import EnrollmentError, enrollment_self_create
from quizzes.models import Attempt, Course, Quiz
from quizzes.web import timing
from quizzes.web.practice import practice_offered

CHOOSE_AN_ANSWER = _("Choose one of the answers, then submit.")
MALFORMED_ANSWER = _("This answer could not be read; please choose again.")
ENROLLED = _("You are now enrolled in %(course)s.")


@login_required
@require_GET
def dashboard(request):
    courses, joinable = student_dashboard(user=request.user)
    for course in courses:
        course.resume = next((quiz for quiz in course.progress_quizzes if quiz.in_progress_id), None)
    due = practice_due(user=request.user, today=timezone.localdate(), courses=courses)
    language = get_language()
    quizzes = [quiz for course in courses for quiz in course.progress_quizzes]
    # Each quiz some of whose questions this student would read in English is marked.
    contents = {}
    if quizzes and language != SOURCE_LANGUAGE:
        contents = quiz_contents({quiz.pk: quiz.content_version_number for quiz in quizzes})
    for quiz in quizzes:
        content = contents.get(quiz.pk)
        quiz.in_english = _in_english(content, language) if content is not None else 0
        quiz.question_total = len(content.questions) if content is not None else 0
    context = {"courses": courses, "joinable": joinable, "practice_due": due}
    return render(request, "quizzes/dashboard.html", context)


def _in_english(content, language: str) -> int:
    """How many of the questions of ``content`` (a quiz's) a student reading ``language`` sees
    partly in English: once per content snapshot and language, as the question pages' HTML is."""
    if language == SOURCE_LANGUAGE:
        return 0
    questions = content.questions
    return derived(content, "in-english", language, lambda: sum(shown_in_english(q, language) for q in questions))


@login_required
@require_POST
def course_enroll(request, slug):
    course = get_object_or_404(Course, slug=slug)
    try:
        enrollment_self_create(user=request.user, course=course)
    except EnrollmentError as error:
        return _refusal(request, error.message, status=403, course=course)
    messages.success(request, ENROLLED % {"course": course.title})
    next_url = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return redirect(next_url)
    return redirect("quizzes:dashboard")


@login_required
@require_GET
def quiz_detail(request, slug):
    try:
        quiz, enrolled, attempts = student_quiz_get(user=request.user, slug=slug)
    except Quiz.DoesNotExist:
        raise Http404 from None
    if not enrolled:
        return _not_enrolled(request, quiz)
    # A practice counts for nothing: listed apart, and neither the attempt to continue nor one used.
    practice_attempts = [attempt for attempt in attempts if not attempt.counts_for_grade]
    attempts = [attempt for attempt in attempts if attempt.counts_for_grade]
    in_progress = next((attempt for attempt in attempts if not attempt.is_finished), None)
    if in_progress is not None and (finished := timing.overdue_finish(request, in_progress)):
        return finished
    content = quiz_content(quiz.pk)
    language = get_language()
    context = {
        "quiz": quiz,
        "question_count": layout_size(content.questions, DrawSettings.of(quiz, content.pool_draws)),
        # Said before the start: how many of its questions this student would read in English.
        "in_english": _in_english(content, language),
        "question_total": len(content.questions),
        "language_name": get_language_info(language)["name_translated"],
        "attempts": attempts,
        "in_progress": in_progress,
        "attempts_left": quiz.attempts_left,
        "practice_attempts": practice_attempts,
        **timing.quiz_facts(quiz, quiz.rules, timezone.now()),
    }
    return render(request, "quizzes/quiz_detail.html", context)


@login_required
@require_POST
def attempt_start_view(request, slug):
    quiz = _published_quiz_or_404(slug)
    try:
        attempt, _created = attempt_start(user=request.user, quiz=quiz)
    except AttemptError as error:
        if error.code == "not_enrolled":
            return _not_enrolled(request, quiz)
        return _refusal(request, error.message, status=error.status, quiz=quiz)
    return redirect("quizzes:attempt", pk=attempt.pk)


@login_required
@require_GET
def attempt_resume(request, pk):
    """Where an attempt continues: the first unanswered question, or the result."""
    attempt, content, answers = _own_attempt_with_answers_or_404(request, pk)
    if finished := timing.overdue_finish(request, attempt):
        return finished
    if attempt.is_finished:
        return redirect("quizzes:attempt_result", pk=attempt.pk)
    if not content.questions:
        raise Http404
    unanswered = [question.position for question in content.questions if question.id not in answers]
    position = unanswered[0] if unanswered else content.questions[-1].position
    return redirect("quizzes:attempt_question", pk=attempt.pk, position=position)


@login_required
@require_http_methods(["GET", "POST"])
def attempt_question(request, pk, position):
    if request.method == "POST":
        return _answer_submit(request, pk, position)
    attempt, content, answers = _own_attempt_with_answers_or_404(request, pk)
    if finished := timing.overdue_finish(request, attempt):
        return finished
    if attempt.is_finished:
        return redirect("quizzes:attempt_result", pk=attempt.pk)
    page = _QuestionPage(attempt, content, answers, position, get_language())
    first_open = page.first_unanswered_position()
    if page.answer is None and first_open is not None and first_open < position:
        # Questions are taken in order; a later one waits for the earlier ones.
        return redirect("quizzes:attempt_question", pk=attempt.pk, position=first_open)
    return page.render(request)


def _answer_submit(request, pk: int, position: int):
    """Record the answer and go to its feedback. The service's lock checks the owner: a
    recorded answer reads the attempt once, and only a refusal reads it again to say why."""
    question_id = parse_id(request.POST.get("question", ""))
    choice_id = parse_id(request.POST.get("choice", ""))
    refused = None
    if question_id is not None and choice_id is not None:
        try:
            attempt_answer_submit(
                user=request.user,
                attempt_id=pk,
                question_id=question_id,
                choice_id=choice_id,
                language=get_language(),
                position=position,
            )
        except Attempt.DoesNotExist:
            raise Http404 from None
        except AttemptError as error:
            if error.code == "deadline_passed":
                # The service finished the attempt: its result is all there is to see.
                return _refusal(request, error.message, status=error.status, result_pk=pk)
            refused = error
        else:
            # Back to the page the form was posted from (this URL), now with the feedback.
            return HttpResponseRedirect(f"{request.path}#feedback")
    return _answer_refusal(request, *_own_attempt_with_answers_or_404(request, pk), position, refused)


def _answer_refusal(request, attempt: Attempt, content, answers, position: int, refused: AttemptError | None):
    """The question's page with why the answer was not recorded, checked in this order."""

    def refuse(message, status):
        page = _QuestionPage(attempt, content, answers, position, get_language())
        return page.render(request, error_message=message, status=status)

    if content.question_at(position) is None:
        raise Http404
    if attempt.is_finished:
        return refuse(ATTEMPT_FINISHED, 409)
    if not request.POST.get("choice"):
        return refuse(CHOOSE_AN_ANSWER, 400)
    question_id, choice_id = parse_id(request.POST.get("question", "")), parse_id(request.POST["choice"])
    if question_id is None or choice_id is None:
        return refuse(MALFORMED_ANSWER, 400)
    # The form was readable, so the service was asked, and it refused and said why (a form
    # from another page or forged included: it checks the question against the page's position).
    return refuse(refused.message, refused.status)


@login_required
@require_GET
@never_cache
def attempt_time(request, pk):
    """The attempt's deadline as it stands now: what the question page's countdown asks while it
    runs, so that a teacher's change reaches an open page without a reload."""
    return JsonResponse(timing.time_status(_own_attempt_or_404(request, pk), timezone.now()))


@login_required
@require_POST
def attempt_finish_view(request, pk):
    attempt = _own_attempt_or_404(request, pk)
    attempt_finish(attempt=attempt)
    return redirect("quizzes:attempt_result", pk=attempt.pk)


@login_required
@require_GET
def attempt_result(request, pk):
    attempt, content, answers = _own_attempt_with_answers_or_404(request, pk)
    if finished := timing.overdue_finish(request, attempt):
        return finished  # this page again, read with the attempt finished
    if not attempt.is_finished:
        return redirect("quizzes:attempt", pk=attempt.pk)
    # Each question as this student was shown it: its version, its choices in their order.
    view = quiz_localize(quiz=content, language=get_language())
    review = [(question, answers.get(question.id)) for question in view.questions]
    context = {
        "attempt": attempt,
        "quiz": view,
        "review": review,
        "withheld": timing.review_withheld(attempt, timing.RESULT_WITHHELD),
        "practice_offered": practice_offered(attempt, content, answers),
    }
    return render(request, "quizzes/attempt_result.html", context)


class _QuestionPage:
    """One question of an attempt, with its feedback once answered."""

    def __init__(self, attempt: Attempt, content, answers: dict, position: int, language: str):
        self.attempt = attempt
        self.language = language
        # The attempt's layout (``attempt_content``): its versions come from the shared cache.
        self.content = content
        self.quiz = quiz_localize(quiz=content, language=language)
        self.question = next((q for q in self.quiz.questions if q.position == position), None)
        if self.question is None:
            raise Http404
        self.answers = answers
        self.answer = self.answers.get(self.question.id)

    def first_unanswered_position(self) -> int | None:
        return next((q.position for q in self.quiz.questions if q.id not in self.answers), None)

    def render(self, request, *, error_message=None, status=200):
        questions = self.quiz.questions
        index = questions.index(self.question)
        next_question = questions[index + 1] if index + 1 < len(questions) else None
        context = {
            "attempt": self.attempt,
            "quiz": self.quiz,
            "question": self.question,
            "answer": self.answer,
            "number": index + 1,
            "total": len(questions),
            "answered_count": len(self.answers),
            "next_question": next_question,
            "all_answered": len(self.answers) == len(questions),
            "error_message": error_message,
            "question_body": self._question_body(),
            "countdown": timing.countdown(self.attempt, timezone.now()),
        }
        return render(request, "quizzes/attempt_question.html", context, status=status)

    def _question_body(self) -> str:
        """The question's text and choices (marked, with the feedback, once answered).

        They depend only on the quiz content, the language, the answer's choice and result,
        and what the review shows of it (its key and the quiz's timing, which says why the
        rest waits), so each is rendered once per process for a content snapshot
        (``content_cache.derived``): the template work of the most visited page.
        """
        question, answer = self.question, self.answer
        context = {"question": question, "answer": answer}
        if answer is None:
            name, template = f"question:{question.id}", "quizzes/_question_choices.html"
        else:
            review, feedback_timing = answer.review, self.attempt.quiz.feedback_timing
            name = (
                f"answered:{question.id}:{answer.choice_id}:{answer.is_correct}:{answer.is_regraded}"
                f":{review.key}:{feedback_timing}"
            )
            template = "quizzes/_answered_question.html"
            context["withheld"] = timing.review_withheld(self.attempt, timing.ANSWER_WITHHELD)
        # Our own template's output: safe to insert into the page as it is.
        return derived(self.content, name, self.language, lambda: mark_safe(render_to_string(template, context)))


def _published_quiz_or_404(slug) -> Quiz:
    try:
        return published_quiz_get(slug=slug)
    except Quiz.DoesNotExist:
        raise Http404 from None


def _own_attempt_with_answers_or_404(request, pk):
    try:
        return student_attempt_with_answers(user=request.user, attempt_id=pk)
    except Attempt.DoesNotExist:
        raise Http404 from None


def _own_attempt_or_404(request, pk) -> Attempt:
    try:
        return student_attempt_get(user=request.user, attempt_id=pk)
    except Attempt.DoesNotExist:
        raise Http404 from None


def _not_enrolled(request, quiz: Quiz):
    context = {"quiz": quiz, "course": quiz.course}
    return render(request, "quizzes/not_enrolled.html", context, status=403)


def _refusal(request, message, *, status, **context):
    return render(request, "quizzes/refusal.html", {"message": message, **context}, status=status)
