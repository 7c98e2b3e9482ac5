"""Rules that content must keep, checked over whole quizzes.

``content_problems`` lists what a quiz must not be published with, as it leaves a question
unanswerable or unexplained, or the quiz unusable: no correct choice, several on a
single-answer question, fewer than two choices, a true-or-false question whose choices are
not "True" then "False", an empty English title, text, explanation
or choice, no questions, a pool draw its pool can't give.
The admin refuses to publish a quiz that has any (a quiz already published is still saved,
with a warning, so that its settings can always change), and ``validate_content`` exits 1.
Archived questions and choices are left out: students no longer see them (a question must
keep exactly one correct choice among those not archived).

``content_warnings`` lists what never blocks anything, because students still get a
question they can answer: a translation that leaves some of a question in English (its
texts fall back to English one by one), a stale translation (the English changed after it
was written) and what the translation checks (``translation_checks``) find. A translator
may need days, and may be right where a check is not; blocking the quiz, or a teacher's
change to its dates, would take away more than the gap does.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from quizzes.content import layout_rules
from quizzes.content.languages import SOURCE_LANGUAGE, TRANSLATION_LANGUAGES, text_in
from quizzes.content.selectors import quiz_content_queryset
from quizzes.content.true_false import true_false_choices_valid
from quizzes.models import PoolDraw, QuestionKind, Quiz

MESSAGES = {
    "empty_title": _("The quiz has no English title."),
    "no_questions": _("The quiz has no questions."),
    "empty_text": _("The question has no English text."),
    "empty_explanation": _("The question has no English explanation."),
    "empty_choice": _("Choice %(position)s has no English text."),
    "too_few_choices": _("The question has fewer than two choices."),
    "no_correct_choice": _("No choice is marked correct."),
    "several_correct_choices": _("%(count)s choices are marked correct; exactly one must be."),
    "true_false_choices": _("A true-or-false question has two choices, “True” then “False”."),
    # Questions archived or moved out of a pool after its draw was saved (the admin refuses to save one).
    **layout_rules.MESSAGES,
    # Warnings (content_warnings): a missing text shows in English, a stale or checked one as written.
    "translation_missing_choice": _(
        "The %(language)s translation has %(translated)s of %(count)s choices; the others would show in English."
    ),
    "translation_missing_text": _("The %(language)s translation has choices but no question text."),
    "translation_missing_explanation": _("The %(language)s translation has no explanation."),
    "translation_stale": _(
        "The %(language)s translation of %(fields)s is stale: the English changed after it was written."
    ),
    "translation_check": _("The %(language)s translation of %(field)s: %(problem)s"),
}


@dataclass(frozen=True)
class ContentProblem:
    quiz: str
    question: int | None
    code: str
    params: tuple[tuple[str, object], ...] = ()

    @property
    def message(self) -> str:
        return str(MESSAGES[self.code] % dict(self.params))

    def __str__(self):
        where = self.quiz if self.question is None else f"{self.quiz} #{self.question}"
        return f"{where}: {self.message}"


def content_problems(quizzes: Iterable[Quiz] | None = None) -> list[ContentProblem]:
    """Every problem in the given quizzes (all quizzes when None), in order.

    Pass quizzes fetched with ``quiz_content_queryset()`` to avoid a query
    per question.
    """
    if quizzes is None:
        quizzes = quiz_content_queryset().order_by("course__slug", "position", "slug")
    quizzes = list(quizzes)
    draws: dict[int, dict[str, int]] = {quiz.pk: {} for quiz in quizzes}
    for draw in PoolDraw.objects.filter(quiz_id__in=list(draws)):
        draws[draw.quiz_id][draw.pool] = draw.count
    problems: list[ContentProblem] = []
    for quiz in quizzes:
        problems.extend(_quiz_problems(quiz))
        problems.extend(_draw_problems(quiz, draws[quiz.pk]))
    return problems


def _draw_problems(quiz: Quiz, draws: dict[str, int]) -> Iterable[ContentProblem]:
    found = layout_rules.draw_problems(
        pools=[question.pool for question in quiz.questions.all()],
        draws=draws,
        questions_per_attempt=quiz.questions_per_attempt,
    )
    for problem in found:
        yield ContentProblem(quiz.slug, None, problem.code, problem.params)


def _quiz_problems(quiz: Quiz) -> Iterable[ContentProblem]:
    if not text_in(quiz, "title", SOURCE_LANGUAGE).strip():
        yield ContentProblem(quiz.slug, None, "empty_title")
    questions = list(quiz.questions.all())
    if not questions:
        yield ContentProblem(quiz.slug, None, "no_questions")
    for question in questions:
        for code, params in _question_problems(question):
            yield ContentProblem(quiz.slug, question.position, code, tuple(params.items()))


def _question_problems(question) -> Iterable[tuple[str, dict]]:
    choices = list(question.choices.all())
    if not text_in(question, "text", SOURCE_LANGUAGE).strip():
        yield "empty_text", {}
    if not text_in(question, "explanation", SOURCE_LANGUAGE).strip():
        yield "empty_explanation", {}
    for choice in choices:
        if not text_in(choice, "text", SOURCE_LANGUAGE).strip():
            yield "empty_choice", {"position": choice.position}
    if len(choices) < 2:
        yield "too_few_choices", {}
    english = [text_in(choice, "text", SOURCE_LANGUAGE) for choice in choices]
    if question.kind == QuestionKind.TRUE_FALSE and not true_false_choices_valid(english):
        yield "true_false_choices", {}
    correct = sum(choice.is_correct for choice in choices)
    if correct == 0:
        yield "no_correct_choice", {}
    elif correct > 1:
        yield "several_correct_choices", {"count": correct}


def _missing_translation_warnings(quiz: Quiz) -> Iterable[ContentProblem]:
    for question in quiz.questions.all():
        choices = list(question.choices.all())
        for language in TRANSLATION_LANGUAGES:
            for code, params in _missing_translations(question, choices, language):
                yield ContentProblem(quiz.slug, question.position, code, tuple(params.items()))


def _missing_translations(question, choices, language: str) -> Iterable[tuple[str, dict]]:
    has_text = bool(text_in(question, "text", language).strip())
    translated_choices = sum(bool(text_in(choice, "text", language).strip()) for choice in choices)
    if not has_text and not translated_choices:
        return  # untranslated: the learner sees the whole question in English
    name = _language_name(language)
    if translated_choices != len(choices):
        yield "translation_missing_choice", {"language": name, "translated": translated_choices, "count": len(choices)}
    if not has_text:
        yield "translation_missing_text", {"language": name}
    if not text_in(question, "explanation", language).strip():
        yield "translation_missing_explanation", {"language": name}


def _language_name(code: str) -> str:
    return str(dict(settings.LANGUAGES)[code])


def content_warnings(quizzes: Iterable[Quiz] | None = None) -> list[ContentProblem]:
    """What never blocks publishing, in the given quizzes (all when None), quiz by quiz: the
    translations that leave part of a question in English, the stale ones (one warning per
    text owner and language) and what the translation checks find."""
    from quizzes.content.translation_status import Status, object_translation_problems

    if quizzes is None:
        quizzes = quiz_content_queryset().order_by("course__slug", "position", "slug")
    warnings: list[ContentProblem] = []
    for quiz in quizzes:
        owners = [(None, quiz, "")]
        for question in quiz.questions.all():
            owners.append((question.position, question, ""))
            owners += [
                (question.position, choice, str(_("choice %(position)s") % {"position": choice.position}))
                for choice in question.choices.all()
            ]
        warnings.extend(_missing_translation_warnings(quiz))
        stale: dict[tuple[int | None, str], list[str]] = {}
        for position, obj, label in owners:
            for language, found in object_translation_problems(obj).items():
                names = [
                    label or str(obj._meta.get_field(name).verbose_name)
                    for name, status in found
                    if status == Status.STALE
                ]
                if names:
                    stale.setdefault((position, language), []).extend(names)
        for (position, language), fields in stale.items():
            params = (("language", _language_name(language)), ("fields", ", ".join(fields)))
            warnings.append(ContentProblem(quiz.slug, position, "translation_stale", params))
        warnings.extend(_check_warnings(quiz.slug, owners))
    return warnings


def _check_warnings(slug: str, owners) -> Iterable[ContentProblem]:
    from quizzes.content.translation_checks import object_check_problems

    for position, obj, label in owners:
        for name, language, problem in object_check_problems(obj):
            params = (
                ("language", _language_name(language)),
                ("field", label or str(obj._meta.get_field(name).verbose_name)),
                ("problem", problem.message),
            )
            yield ContentProblem(slug, position, "translation_check", params)
