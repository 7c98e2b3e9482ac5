"""Factories for the quizzes models.

Translated fields are always set by their English column (``title_en``):
the base field (``title=``) writes whichever language is active.
"""

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from quizzes.models import Answer, Attempt, Choice, Course, Enrollment, Question, Quiz

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


class AnswerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Answer

    attempt = factory.SubFactory(AttemptFactory)
    question = factory.SubFactory(QuestionFactory, quiz=factory.SelfAttribute("..attempt.quiz"))
    choice = factory.SubFactory(ChoiceFactory, question=factory.SelfAttribute("..question"))
    is_correct = factory.SelfAttribute("choice.is_correct")
    language = "en"
