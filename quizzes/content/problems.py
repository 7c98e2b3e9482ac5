"""Rules that published content must keep, checked over whole quizzes.

Used by ``validate_content`` and by the admin, which refuses to publish a
quiz that breaks any of them. Archived questions and choices are left out:
students no longer see them (a question must keep exactly one correct choice
among those not archived).

``content_warnings`` lists what does not block publication: stale
translations (the English changed after they were written). Students still
read them, and a translator may need days; blocking the quiz, or falling back
to English, would take away a text that is probably still mostly right. It
also lists what the translation checks (``translation_checks``) find: a
translator may be right where a check is not.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from quizzes.content import layout_rules
from quizzes.content.languages import SOURCE_LANGUAGE, TRANSLATION_LANGUAGES, text_in
from quizzes.content.selectors import quiz_content_queryset
from quizzes.models import PoolDraw, Quiz

MESSAGES = {
    "empty_title": _("The quiz has no English title."),
    "no_questions": _("The quiz has no questions."),
    "empty_text": _("The question has no English text."),
    "empty_explanation": _("The question has no English explanation."),
    "empty_choice": _("Choice %(position)s has no English text."),
    "too_few_choices": _("The question has fewer than two choices."),
    "no_correct_choice": _("No choice is marked correct."),
    "several_correct_choices": _("%(count)s choices are marked correct; exactly one must be."),
    "translation_missing_choice": _(
        "The %(language)s translation has %(translated)s of %(count)s choices; the others would show in English."
    ),
    "translation_missing_text": _("The %(language)s translation has choices but no question text."),
    "translation_missing_explanation": _("The %(language)s translation has no explanation."),
    "translation_stale": _(
        "The %(language)s translation of %(fields)s is stale: the English changed after it was written."
    ),
    "translation_check": _("The %(language)s translation of %(field)s: %(problem)s"),
    # Questions archived or moved out of a pool after its draw was saved (the admin refuses to save one).
    **layout_rules.MESSAGES,
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
    correct = sum(choice.is_correct for choice in choices)
    if correct == 0:
        yield "no_correct_choice", {}
    elif correct > 1:
        yield "several_correct_choices", {"count": correct}
    for language in TRANSLATION_LANGUAGES:
        yield from _translation_problems(question, choices, language)


def _translation_problems(question, choices, language: str) -> Iterable[tuple[str, dict]]:
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
    """Stale translations in the given quizzes (all when None): one per text owner and language."""
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
