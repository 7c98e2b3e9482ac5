"""The quiz content held by each process follows the version in the database.

"Another process" is simulated as it would act: it writes the rows and gives
the quiz a new version in the database, and this process learns of it only by
reading that version, at most once every VERSION_RECHECK seconds (the clock is
moved with time-machine). Nothing here depends on the cache being shared: the
cache is the local-memory one of this process, as with no REDIS_URL.
"""

import secrets

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from quizzes.content import cache as content_cache
from quizzes.content.cache import VERSION_RECHECK, quiz_content, quiz_content_invalidate
from quizzes.content.versions import question_version_sync
from quizzes.models import Choice, Course, Question, Quiz, QuizContentVersion
from tests.factories import CourseFactory, QuizFactory

GC = "gradient-checkpointing"
ART = "activation-recomputation-tradeoffs"


@pytest.fixture(autouse=True)
def nothing_held():
    """Each test starts as a process that holds nothing, with an empty cache."""
    content_cache._held.clear()
    cache.clear()
    yield
    content_cache._held.clear()
    cache.clear()


@pytest.fixture
def clock(time_machine):
    """The wall clock, stopped: it moves only when a test moves it."""
    time_machine.move_to(timezone.now(), tick=False)
    return time_machine


def version(quiz) -> int | None:
    return QuizContentVersion.objects.filter(quiz=quiz).values_list("version", flat=True).first()


def edit_elsewhere(quiz, position: int, text: str) -> None:
    """Another process's edit: its rows, and the new version it gives the quiz in the same transaction,
    with no signal and nothing in this process's memory or cache."""
    with transaction.atomic():
        Question.objects.filter(quiz=quiz, position=position).update(text_en=text)
        # What that process's receivers write besides: the question's version, the quiz's.
        question_version_sync(Question.objects.get(quiz=quiz, position=position).pk)
        QuizContentVersion.objects.filter(quiz=quiz).update(version=secrets.randbits(63))


def statements(work) -> int:
    with CaptureQueriesContext(connection) as queries:
        work()
    return len(queries)


class TestAnotherProcessEdit:
    def test_served_once_the_interval_is_over_and_not_before(self, content, clock):
        quiz = content[GC]
        held = quiz_content(quiz.pk)
        edit_elsewhere(quiz, 1, "Edited elsewhere?")
        clock.shift(VERSION_RECHECK / 2)
        assert quiz_content(quiz.pk) is held  # within the interval: what this process holds
        clock.shift(VERSION_RECHECK / 2)
        fresh = quiz_content(quiz.pk)
        assert fresh is not held
        assert fresh.questions[0].text_en == "Edited elsewhere?"
        assert quiz_content(quiz.pk) is fresh

    def test_the_stale_snapshot_in_the_cache_is_not_served(self, content, clock):
        """The cache still holds the old snapshot (it is this process's, and nobody told it): the
        new version is looked for under its own key, then read from the database."""
        quiz = content[GC]
        quiz_content(quiz.pk)
        old_version = version(quiz)
        assert cache.get(content_cache._content_key(quiz.pk, old_version)) is not None
        edit_elsewhere(quiz, 2, "Also edited elsewhere?")
        clock.shift(VERSION_RECHECK)
        content_cache._held.clear()  # and a process that held nothing yet
        assert quiz_content(quiz.pk).questions[1].text_en == "Also edited elsewhere?"

    def test_a_snapshot_stored_late_under_the_old_version_is_never_served(self, content, clock):
        """A worker that read the version and the rows before an edit and stores them after it:
        under the old version, which no process reads any more."""
        quiz = content[GC]
        stale = quiz_content(quiz.pk)
        old_version = version(quiz)
        question = quiz.questions.get(position=1)
        question.text_en = "New text?"
        question.save()
        cache.set(content_cache._content_key(quiz.pk, old_version), stale)
        assert version(quiz) != old_version
        assert quiz_content(quiz.pk).questions[0].text_en == "New text?"
        content_cache._held.clear()
        assert quiz_content(quiz.pk).questions[0].text_en == "New text?"

    def test_every_quiz_is_rechecked_on_its_own(self, content, clock):
        gc, art = content[GC], content[ART]
        quiz_content(gc.pk)
        clock.shift(VERSION_RECHECK / 2)
        quiz_content(art.pk)
        edit_elsewhere(gc, 1, "GC edited?")
        edit_elsewhere(art, 1, "ART edited?")
        clock.shift(VERSION_RECHECK / 2)
        assert quiz_content(gc.pk).questions[0].text_en == "GC edited?"
        assert quiz_content(art.pk).questions[0].text_en != "ART edited?"  # confirmed half an interval ago
        clock.shift(VERSION_RECHECK / 2)
        assert quiz_content(art.pk).questions[0].text_en == "ART edited?"

    def test_a_clock_set_back_ends_the_interval(self, content, clock):
        quiz = content[GC]
        quiz_content(quiz.pk)
        edit_elsewhere(quiz, 1, "Edited while the clock went back?")
        clock.shift(-3600)
        assert quiz_content(quiz.pk).questions[0].text_en == "Edited while the clock went back?"

    def test_a_quiz_without_questions_gets_its_first_ones(self, db, clock):
        quiz = QuizFactory(course=CourseFactory())
        assert quiz_content(quiz.pk).questions == ()
        with transaction.atomic():  # another process adds a question
            (question,) = Question.objects.bulk_create([Question(quiz=quiz, position=1, text_en="The first question?")])
            question_version_sync(question.pk)
            QuizContentVersion.objects.filter(quiz=quiz).update(version=secrets.randbits(63))
        clock.shift(VERSION_RECHECK)
        assert [question.text_en for question in quiz_content(quiz.pk).questions] == ["The first question?"]


class TestQueries:
    def test_none_within_the_interval(self, content, clock):
        quiz = content[GC]
        quiz_content(quiz.pk)
        clock.shift(VERSION_RECHECK * 0.99)
        assert statements(lambda: quiz_content(quiz.pk)) == 0

    def test_one_after_it_while_the_version_is_the_same(self, content, clock):
        quiz = content[GC]
        held = quiz_content(quiz.pk)
        clock.shift(VERSION_RECHECK)
        assert statements(lambda: quiz_content(quiz.pk)) == 1
        assert quiz_content(quiz.pk) is held
        assert statements(lambda: quiz_content(quiz.pk)) == 0  # confirmed again: a new interval

    def test_a_process_that_holds_nothing_reads_the_version_with_the_questions(self, content):
        quiz = content[GC]
        assert statements(lambda: quiz_content(quiz.pk)) == 3  # questions, current versions, draws

    def test_a_new_version_found_in_the_cache_costs_no_content_query(self, content, clock):
        """What a shared cache gives: the first process to read the new version stored it."""
        quiz = content[GC]
        quiz_content(quiz.pk)
        edit_elsewhere(quiz, 1, "Read by another process first?")
        other = content_cache._held.pop(quiz.pk)
        quiz_content(quiz.pk)  # "the other process" reads and stores it
        content_cache._held[quiz.pk] = other  # this one still holds the old snapshot
        clock.shift(VERSION_RECHECK)
        found = []
        assert statements(lambda: found.append(quiz_content(quiz.pk))) == 1
        assert found[0].questions[0].text_en == "Read by another process first?"

    def test_an_unknown_quiz(self, content, clock):
        quiz = content[GC]
        quiz_content(quiz.pk)
        with pytest.raises(Quiz.DoesNotExist):
            quiz_content(10**9)
        content_cache._held[10**9] = content_cache._held[quiz.pk]  # held, and deleted since
        clock.shift(VERSION_RECHECK)
        with pytest.raises(Quiz.DoesNotExist):
            quiz_content(10**9)


class TestVersions:
    def test_every_content_write_gives_a_new_version(self, content):
        quiz = content[GC]
        question = quiz.questions.get(position=1)
        choice = question.choices.get(position=1)
        seen = [version(quiz)]
        for write in (
            lambda: Question.objects.get(pk=question.pk).save(),
            lambda: Choice.objects.get(pk=choice.pk).save(),  # its question not at hand
            lambda: Quiz.objects.get(pk=quiz.pk).save(),
            lambda: Course.objects.get(pk=quiz.course_id).save(),
            lambda: quiz_content_invalidate(quiz.pk),
        ):
            write()
            seen.append(version(quiz))
        assert None not in seen
        assert len(set(seen)) == len(seen)

    def test_a_course_save_gives_each_of_its_quizzes_a_new_version(self, content):
        before = {quiz.pk: version(quiz) for quiz in content.values()}
        Course.objects.get(slug="memory-efficient-training").save()
        after = {quiz.pk: version(quiz) for quiz in content.values()}
        assert all(after[pk] != before[pk] for pk in before)

    def test_the_version_is_written_in_the_edit_transaction(self, content):
        quiz = content[GC]
        before = version(quiz)
        with pytest.raises(RuntimeError), transaction.atomic():
            question = quiz.questions.get(position=1)
            question.text_en = "Never committed?"
            question.save()
            assert version(quiz) != before  # in the transaction
            raise RuntimeError("rolled back")
        assert version(quiz) == before
        assert quiz.questions.get(position=1).text_en != "Never committed?"

    def test_a_rolled_back_edit_leaves_nothing_to_serve(self, content, clock):
        """Read inside the edit's transaction, then rolled back: the snapshot it cached is under a
        version the database never had, and the next edit's version is another."""
        quiz = content[GC]
        with pytest.raises(RuntimeError), transaction.atomic():
            question = quiz.questions.get(position=1)
            question.text_en = "Rolled back?"
            question.save()
            assert quiz_content(quiz.pk).questions[0].text_en == "Rolled back?"
            rolled_back = version(quiz)
            raise RuntimeError("rolled back")
        question = quiz.questions.get(position=1)
        question.text_en = "Committed?"
        question.save()
        assert version(quiz) != rolled_back
        clock.shift(VERSION_RECHECK)
        assert quiz_content(quiz.pk).questions[0].text_en == "Committed?"

    def test_a_new_quiz_has_a_version(self, db):
        assert version(QuizFactory(course=CourseFactory())) is not None

    @pytest.mark.django_db(transaction=True)
    def test_a_deleted_quiz_has_none(self, content):
        """Committed (the foreign key is checked then): deleting its questions gives the quiz a
        new version on the way, which goes with it."""
        quiz = content[GC]
        quiz_content(quiz.pk)
        with transaction.atomic():
            Quiz.objects.get(pk=quiz.pk).delete()
        assert not QuizContentVersion.objects.filter(quiz_id=quiz.pk).exists()
        assert quiz.pk not in content_cache._held
        with pytest.raises(Quiz.DoesNotExist):
            quiz_content(quiz.pk)

    def test_a_quiz_without_a_version_row_is_served_and_gets_one_at_its_next_write(self, content, clock):
        """A quiz made without signals (bulk_create) has no version yet: its content is held by the
        process but not shared, and the first write through the invalidation gives it one."""
        quiz = content[GC]
        QuizContentVersion.objects.filter(quiz=quiz).delete()
        held = quiz_content(quiz.pk)
        assert content_cache._held[quiz.pk][0] is None
        clock.shift(VERSION_RECHECK)
        assert quiz_content(quiz.pk) is held
        Question.objects.filter(quiz=quiz, position=1).update(text_en="Bulk-edited?")
        quiz_content_invalidate(quiz.pk)
        assert version(quiz) is not None
        assert quiz_content(quiz.pk).questions[0].text_en == "Bulk-edited?"

    def test_the_version_is_not_content(self, content):
        """Not a column of the quiz: saving a Quiz read before an edit can't write an old version
        back, and the fixtures, the admin and the exports never see it."""
        stale_quiz = Quiz.objects.get(slug=GC)
        question = stale_quiz.questions.get(position=1)
        question.save()
        after_edit = version(stale_quiz)
        stale_quiz.save()
        assert version(stale_quiz) not in (None, after_edit)
        assert "content_version" not in [field.name for field in Quiz._meta.concrete_fields]
