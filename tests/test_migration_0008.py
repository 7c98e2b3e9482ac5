"""Migration 0008 on a database with answers: each answer gets the version it was answered
against, each attempt a layout in position order.

The test migrates its database back to 0007, writes data with the models of then, migrates
to the latest and reads the result with today's models; it migrates to the latest again
whatever happens, so that the tests after it find today's schema. (Each xdist worker has a
database of its own, and runs its tests one after the other: no other test sees 0007.)
"""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone

from quizzes.attempts.selectors import attempt_content
from quizzes.models import Answer, Attempt, AttemptQuestion, QuestionVersion

BEFORE = [("quizzes", "0007_quiz_content_version")]


def migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


def latest() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def translated(**texts) -> dict:
    """A translated field's base column and its language columns (``text``, ``text_en``...)."""
    (field,) = {name.rsplit("_", 1)[0] for name in texts}
    return {field: texts[f"{field}_en"], **texts}


def data_of_then(apps) -> dict:
    """Content, attempts and answers written with the historical models of 0007."""
    User = apps.get_model("auth", "User")
    Course, Quiz = apps.get_model("quizzes", "Course"), apps.get_model("quizzes", "Quiz")
    Question, Choice = apps.get_model("quizzes", "Question"), apps.get_model("quizzes", "Choice")
    Enrollment = apps.get_model("quizzes", "Enrollment")
    Attempt0007, Answer0007 = apps.get_model("quizzes", "Attempt"), apps.get_model("quizzes", "Answer")

    course = Course.objects.create(slug="old-course", **translated(title_en="Old course"))
    quiz = Quiz.objects.create(course=course, slug="old-quiz", is_published=True, **translated(title_en="Old quiz"))

    def question(position, text_en, text_ur="", **fields):
        return Question.objects.create(
            quiz=quiz,
            position=position,
            **translated(text_en=text_en, text_ur=text_ur or None),
            **translated(explanation_en=f"Why {position}.", explanation_ur=f"کیوں {position}"),
            **fields,
        )

    def choice(question_, position, text_en, **fields):
        return Choice.objects.create(
            question=question_, position=position, **translated(text_en=text_en, text_ur=f"{text_en} (ur)"), **fields
        )

    q1 = question(1, "First, as it was?", "پہلا؟")
    q2 = question(2, "Second, as it was?")
    q3 = question(3, "Third, archived after it was answered?", is_archived=True)
    q4 = question(4, "Fourth, archived and never answered?", is_archived=True)
    c = {
        "1a": choice(q1, 1, "One A", is_correct=True),
        "1b": choice(q1, 2, "One B"),
        "1c": choice(q1, 3, "One C, archived after it was chosen", is_archived=True),
        "1d": choice(q1, 4, "One D, archived, never chosen", is_archived=True),
        "2a": choice(q2, 1, "Two A"),
        "2b": choice(q2, 2, "Two B", is_correct=True),
        "3a": choice(q3, 1, "Three A", is_correct=True),
        "3b": choice(q3, 2, "Three B"),
        "4a": choice(q4, 1, "Four A", is_correct=True),
        "4b": choice(q4, 2, "Four B"),
    }
    users = [User.objects.create(username=f"old-student-{n}") for n in range(3)]
    for user in users:
        Enrollment.objects.create(user=user, course=course)
    finished = Attempt0007.objects.create(
        user=users[0],
        quiz=quiz,
        number=1,
        state="finished",
        finished_at=timezone.now(),
        score=1,
        max_score=3,
        pass_mark=50,
    )
    in_progress = Attempt0007.objects.create(
        user=users[1], quiz=quiz, number=1, state="in_progress", max_score=2, pass_mark=50
    )
    untouched = Attempt0007.objects.create(
        user=users[2], quiz=quiz, number=1, state="in_progress", max_score=2, pass_mark=50
    )
    answers = [
        Answer0007.objects.create(attempt=finished, question=q1, choice=c["1c"], is_correct=False, language="en"),
        Answer0007.objects.create(attempt=finished, question=q2, choice=c["2b"], is_correct=True, language="ur"),
        Answer0007.objects.create(attempt=finished, question=q3, choice=c["3b"], is_correct=False, language="en"),
        Answer0007.objects.create(attempt=in_progress, question=q2, choice=c["2a"], is_correct=False, language="ur"),
    ]
    return {
        "questions": {n: q.pk for n, q in enumerate((q1, q2, q3, q4), start=1)},
        "choices": {name: choice_.pk for name, choice_ in c.items()},
        "attempts": {"finished": finished.pk, "in_progress": in_progress.pk, "untouched": untouched.pk},
        "answers": [answer.pk for answer in answers],
        "users": [user.pk for user in users],
        "texts": {
            q.pk: {"text_en": q.text_en, "text_ur": q.text_ur or "", "explanation_en": q.explanation_en}
            for q in (q1, q2, q3, q4)
        },
    }


@pytest.mark.django_db(transaction=True)
def test_existing_answers_get_their_version_and_attempts_a_layout():
    try:
        executor = migrate(BEFORE)
        old = data_of_then(executor.loader.project_state(BEFORE).apps)
        migrate(latest())
        check_migrated(old)
    finally:
        migrate(latest())


def check_migrated(old: dict) -> None:
    q, c, a = old["questions"], old["choices"], old["attempts"]

    # Every question has version 1, holding its texts of then.
    versions = {version.question_id: version for version in QuestionVersion.objects.all()}
    assert set(versions) == set(q.values())
    for question_id, version in versions.items():
        assert version.number == 1
        for name, value in old["texts"][question_id].items():
            assert version.texts[name] == value, (question_id, name)
        assert set(version.revisions) == {"en", "ur", "sn", "id"}
    # Its offered choices, and the archived one an answer chose (a review shows it); not the
    # archived one nobody chose.
    assert [choice["id"] for choice in versions[q[1]].choices] == [c["1a"], c["1b"], c["1c"]]
    assert versions[q[1]].correct_choice_id == c["1a"]
    assert [choice["id"] for choice in versions[q[3]].choices] == [c["3a"], c["3b"]]
    assert versions[q[1]].choices[2]["text_en"] == "One C, archived after it was chosen"

    # Every answer: the version it was answered against, which its attempt's layout holds.
    answers = list(Answer.objects.filter(pk__in=old["answers"]).select_related("version"))
    assert len(answers) == 4
    for answer in answers:
        assert answer.version.question_id == answer.question_id
        assert answer.version.number == 1
        slot = AttemptQuestion.objects.get(attempt_id=answer.attempt_id, question_id=answer.question_id)
        assert slot.version_id == answer.version_id

    # Every attempt: a layout in position order, its questions not archived and those it answered.
    def layout(attempt_id):
        slots = AttemptQuestion.objects.filter(attempt_id=attempt_id).order_by("position")
        return [(slot.position, slot.question_id, slot.version_id, slot.choice_order) for slot in slots]

    def slot(position, number):
        version = versions[q[number]]
        return (position, q[number], version.pk, [choice["id"] for choice in version.choices])

    assert layout(a["finished"]) == [slot(1, 1), slot(2, 2), slot(3, 3)]
    assert layout(a["in_progress"]) == [slot(1, 1), slot(2, 2)]
    assert layout(a["untouched"]) == [slot(1, 1), slot(2, 2)]

    # And today's code reads them: the finished attempt's review shows what was answered.
    finished = Attempt.objects.get(pk=a["finished"])
    content = attempt_content(attempt=finished)
    assert [question.id for question in content.questions] == [q[1], q[2], q[3]]
    assert [choice.id for choice in content.questions[0].choices] == [c["1a"], c["1b"], c["1c"]]
    client = Client()
    client.force_login(finished.user)
    response = client.get(f"/en/attempts/{finished.pk}/result/")
    assert response.status_code == 200
    page = response.content.decode()
    for text in ("First, as it was?", "Third, archived after it was answered?", "One C, archived after it was chosen"):
        assert text in page
    assert "Fourth, archived and never answered?" not in page
