"""Factories for the quizzes models.

Translated fields are always set by their English column (``title_en``):
the base field (``title=``) writes whichever language is active.
"""

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from quizzes.models import (
    Answer,
    Attempt,
    AttemptQuestion,
    Choice,
    Course,
    Enrollment,
    Question,
    QuestionVersion,
    Quiz,
)

DEFAULT_PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.django.Password(DEFAULT_PASSWORD)


class CourseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Course

    slug = factory.Sequence(lambda n: f"course-{n}")
    title_en = factory.Sequence(lambda n: f"Course {n}")
    description_en = "A course."


class EnrollmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Enrollment

    user = factory.SubFactory(UserFactory)
    course = factory.SubFactory(CourseFactory)


class QuizFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Quiz

    course = factory.SubFactory(CourseFactory)
    slug = factory.Sequence(lambda n: f"quiz-{n}")
    position = factory.Sequence(lambda n: n + 1)
    title_en = factory.Sequence(lambda n: f"Quiz {n}")
    description_en = "A quiz."
    pass_mark = 50
    is_published = True


class QuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Question

    quiz = factory.SubFactory(QuizFactory)
    position = factory.Sequence(lambda n: n + 1)
    text_en = factory.Sequence(lambda n: f"Question {n}?")
    explanation_en = "Because the first choice is right. The others are wrong."


class ChoiceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Choice

    question = factory.SubFactory(QuestionFactory)
    position = factory.Sequence(lambda n: n + 1)
    text_en = factory.Sequence(lambda n: f"Choice {n}")
    is_correct = False


class AttemptFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Attempt
        skip_postgeneration_save = True  # the layout hook writes rows of its own, not the attempt

    user = factory.SubFactory(UserFactory)
    quiz = factory.SubFactory(QuizFactory)
    number = factory.Sequence(lambda n: n + 1)
    state = Attempt.State.IN_PROGRESS
    max_score = 8
    pass_mark = factory.SelfAttribute("quiz.pass_mark")

    class Params:
        finished = factory.Trait(
            state=Attempt.State.FINISHED,
            finished_at=factory.LazyFunction(timezone.now),
            score=5,
        )

    @factory.post_generation
    def layout(attempt, create, extracted, **kwargs):
        """The layout the service would draw unshuffled: the quiz's questions not archived, in
        position order, each its current version (``layout=False``: none)."""
        if create and extracted is not False:
            for question in attempt.quiz.questions.filter(is_archived=False).order_by("position"):
                slot_for(attempt, question)


def current_version(question) -> QuestionVersion:
    return QuestionVersion.objects.filter(question_id=question.pk).order_by("-number").first()


def slot_for(attempt, question) -> AttemptQuestion:
    """The place of ``question`` in ``attempt``'s layout, added at its end when it has none (an
    attempt made by a factory has no layout), with the question's current version."""
    slot = AttemptQuestion.objects.filter(attempt_id=attempt.pk, question_id=question.pk).first()
    if slot is None:
        version = current_version(question)
        last = AttemptQuestion.objects.filter(attempt_id=attempt.pk).order_by("-position").first()
        slot = AttemptQuestion.objects.create(
            attempt_id=attempt.pk,
            position=last.position + 1 if last else 1,
            question_id=question.pk,
            version=version,
            choice_order=[choice["id"] for choice in version.choices],
        )
    return slot


def answer_row(*, attempt, question, choice, is_correct, language="en", **fields) -> Answer:
    """An unsaved answer as the service would record it: with the version of its place in the
    attempt's layout (added by ``slot_for`` when missing). For tests that write answers directly."""
    version = slot_for(attempt, question).version
    return Answer(
        attempt=attempt,
        question=question,
        choice=choice,
        version=version,
        is_correct=is_correct,
        language=language,
        **fields,
    )


def answer_rows(answers: list[dict]) -> list[Answer]:
    """``answer_row`` for many answers (each a dict of its arguments) of attempts that have no
    layout yet (made in bulk, or with ``layout=False``): their places are added in the order
    given, in one INSERT, with each question's current version read once."""
    versions, positions, slots = {}, {}, {}
    for given in answers:
        attempt, question = given["attempt"], given["question"]
        if (attempt.pk, question.pk) in slots:
            continue
        if question.pk not in versions:
            versions[question.pk] = current_version(question)
        positions[attempt.pk] = positions.get(attempt.pk, 0) + 1
        version = versions[question.pk]
        slots[attempt.pk, question.pk] = AttemptQuestion(
            attempt_id=attempt.pk,
            position=positions[attempt.pk],
            question_id=question.pk,
            version=version,
            choice_order=[choice["id"] for choice in version.choices],
        )
    AttemptQuestion.objects.bulk_create(slots.values())
    return [
        Answer(version=slots[given["attempt"].pk, given["question"].pk].version, **{"language": "en", **given})
        for given in answers
    ]


class AnswerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Answer

    attempt = factory.SubFactory(AttemptFactory)
    question = factory.SubFactory(QuestionFactory, quiz=factory.SelfAttribute("..attempt.quiz"))
    choice = factory.SubFactory(ChoiceFactory, question=factory.SelfAttribute("..question"))
    is_correct = factory.SelfAttribute("choice.is_correct")
    language = "en"
    version = factory.LazyAttribute(lambda answer: slot_for(answer.attempt, answer.question).version)
