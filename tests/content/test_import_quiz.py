"""import_quiz: translations reproduce the fixtures, new quizzes, and all or nothing."""

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from quizzes.content.languages import column
from quizzes.models import Choice, Question, Quiz
from tests.conftest import SEEDS_DIR, fixture_records
from tests.factories import CourseFactory

GC = "gradient-checkpointing"
ART = "activation-recomputation-tradeoffs"
SEEDS = [
    ("000_7cee97ce0cfcf411.txt", GC, "ur"),
    ("001_b650afde84ce20b7.txt", GC, "sn"),
    ("002_b53ae698afd757eb.txt", ART, "id"),
    ("003_eecdd2a81399f9d5.txt", ART, "en"),
]
LANGUAGES = ("en", "ur", "sn", "id")
QUIZ_FIELDS = ("title", "description")
QUESTION_FIELDS = ("text", "explanation")


def import_quiz(path, language, *args) -> str:
    buf = io.StringIO()
    call_command("import_quiz", str(path), "--language", language, *args, stdout=buf)
    return buf.getvalue()


def columns(fields, languages=LANGUAGES) -> list[str]:
    return [column(field, language) for field in fields for language in languages]


def fixture_content(slug: str) -> dict:
    """Every translated column of a quiz as the fixture files hold them, by natural key."""
    content = {}
    for record in fixture_records("quizzes.quiz"):
        if record["fields"]["slug"] == slug:
            content[("quiz",)] = {name: record["fields"][name] for name in columns(QUIZ_FIELDS)}
    for record in fixture_records("quizzes.question"):
        quiz_slug, position = record["fields"]["quiz"][0], record["fields"]["position"]
        if quiz_slug == slug:
            content[("question", position)] = {name: record["fields"][name] for name in columns(QUESTION_FIELDS)}
    for record in fixture_records("quizzes.choice"):
        quiz_slug, question_position = record["fields"]["question"]
        if quiz_slug == slug:
            key = ("choice", question_position, record["fields"]["position"])
            content[key] = {name: record["fields"][name] for name in columns(("text",))}
    return content


def db_content(slug: str) -> dict:
    """The same columns as fixture_content, read from the database."""
    content = {("quiz",): Quiz.objects.filter(slug=slug).values(*columns(QUIZ_FIELDS)).get()}
    for row in Question.objects.filter(quiz__slug=slug).values("position", *columns(QUESTION_FIELDS)):
        content[("question", row.pop("position"))] = row
    for row in Choice.objects.filter(question__quiz__slug=slug).values(
        "question__position", "position", *columns(("text",))
    ):
        content[("choice", row.pop("question__position"), row.pop("position"))] = row
    return content


def all_text_columns() -> dict:
    return {
        "quizzes": list(Quiz.objects.order_by("pk").values("pk", "slug", "is_published", *columns(QUIZ_FIELDS))),
        "questions": list(Question.objects.order_by("pk").values("pk", "quiz_id", *columns(QUESTION_FIELDS))),
        "choices": list(Choice.objects.order_by("pk").values("pk", "question_id", "is_correct", *columns(("text",)))),
    }


def overwrite_language(slug: str, language: str, value) -> None:
    """Set a quiz's titles, description, question texts and choice texts in one language."""
    Quiz.objects.filter(slug=slug).update(**{column(field, language): value for field in QUIZ_FIELDS})
    Question.objects.filter(quiz__slug=slug).update(**{column("text", language): value})
    Choice.objects.filter(question__quiz__slug=slug).update(**{column("text", language): value})


@pytest.fixture
def write_seed(tmp_path):
    """Write a variant of a seed file: ``lines`` edited by ``edit(lines)``."""

    def write(filename: str, edit, name: str = "edited.txt") -> Path:
        lines = (SEEDS_DIR / filename).read_text(encoding="utf-8").split("\n")
        edit(lines)
        path = tmp_path / name
        path.write_bytes("\n".join(lines).encode("utf-8"))
        return path

    return write


@pytest.mark.usefixtures("content")
class TestRoundTrip:
    @pytest.mark.parametrize(("filename", "slug", "language"), SEEDS)
    def test_import_reproduces_the_fixtures(self, filename, slug, language):
        expected = fixture_content(slug)
        assert db_content(slug) == expected  # the fixtures as loaded
        # English may not be empty; a stale value has to be overwritten instead.
        overwrite_language(slug, language, "stale" if language == "en" else None)
        assert db_content(slug) != expected

        output = import_quiz(SEEDS_DIR / filename, language, "--quiz", slug)

        assert db_content(slug) == expected
        assert output.startswith("Imported the ")
        assert slug in output

    def test_code_names_are_kept_within_translated_questions(self):
        overwrite_language(GC, "ur", None)
        import_quiz(SEEDS_DIR / "000_7cee97ce0cfcf411.txt", "ur", "--quiz", GC)
        question_5 = Question.objects.get(quiz__slug=GC, position=5)
        assert question_5.text_ur
        assert [choice.text_ur for choice in question_5.choices.order_by("position")] == [
            "torch.utils.checkpoint",
            "torch.optim.SGD",
            "torch.nn.Dropout",
            "torch.cuda.empty_cache",
        ]

    def test_untranslated_questions_stay_empty(self):
        overwrite_language(GC, "sn", None)
        import_quiz(SEEDS_DIR / "001_b650afde84ce20b7.txt", "sn", "--quiz", GC)
        quiz = Quiz.objects.get(slug=GC)
        assert quiz.title_sn is None  # the Shona file shows the English title
        for position in (3, 4, 6, 7, 8):
            question = Question.objects.get(quiz=quiz, position=position)
            assert question.text_sn is None
            assert set(question.choices.values_list("text_sn", flat=True)) == {None}

    def test_importing_twice_changes_nothing(self):
        import_quiz(SEEDS_DIR / "000_7cee97ce0cfcf411.txt", "ur", "--quiz", GC)
        before = all_text_columns()
        import_quiz(SEEDS_DIR / "000_7cee97ce0cfcf411.txt", "ur", "--quiz", GC)
        assert all_text_columns() == before

    def test_translation_import_keeps_answer_key_and_explanations(self):
        before = all_text_columns()
        import_quiz(SEEDS_DIR / "002_b53ae698afd757eb.txt", "id", "--quiz", ART)
        assert all_text_columns() == before

    def test_identical_to_english_stays_untranslated(self, write_seed):
        # A Shona file whose question 1 is the English text: Shona question 1
        # and its choices become untranslated (English shows through).
        english_q1 = Question.objects.get(quiz__slug=GC, position=1)
        english_choices = list(english_q1.choices.order_by("position").values_list("text_en", flat=True))

        def use_english_question_1(lines):
            lines[4] = f"1. {english_q1.text_en}"
            lines[5:9] = [f"   \u2022 {text}" for text in english_choices]

        path = write_seed("001_b650afde84ce20b7.txt", use_english_question_1)
        import_quiz(path, "sn", "--quiz", GC)
        english_q1.refresh_from_db()
        assert english_q1.text_sn is None
        assert set(english_q1.choices.values_list("text_sn", flat=True)) == {None}
        # Question 2 is still Shona.
        assert Question.objects.get(quiz__slug=GC, position=2).text_sn.startswith("Sei ma activation")


@pytest.mark.usefixtures("content")
class TestNewQuiz:
    def test_english_file_creates_an_unpublished_quiz(self, course):
        output = import_quiz(SEEDS_DIR / "003_eecdd2a81399f9d5.txt", "en", "--quiz", "copy-of-arc")
        quiz = Quiz.objects.get(slug="copy-of-arc")
        assert "Created quiz copy-of-arc (unpublished)" in output
        assert not quiz.is_published
        assert quiz.course == course
        assert quiz.position == 3  # after the two seed quizzes
        assert quiz.title_en == "Activation Recomputation Tradeoffs Quiz"
        assert quiz.title_ur is None
        assert quiz.questions.count() == 8
        for question in quiz.questions.all():
            assert question.choices.count() == 4
            assert list(question.choices.values_list("position", flat=True).order_by("position")) == [1, 2, 3, 4]
        assert not Choice.objects.filter(question__quiz=quiz, is_correct=True).exists()
        assert Question.objects.get(quiz=quiz, position=4).text_en.startswith("For an idealized N-layer chain")

    def test_new_quiz_is_reported_by_validate_content(self):
        import_quiz(SEEDS_DIR / "003_eecdd2a81399f9d5.txt", "en", "--quiz", "copy-of-arc")
        out = io.StringIO()
        with pytest.raises(SystemExit) as excinfo:
            call_command("validate_content", stdout=out, stderr=io.StringIO())
        assert excinfo.value.code == 1
        lines = out.getvalue().splitlines()
        for position in range(1, 9):
            assert f"copy-of-arc #{position}: No choice is marked correct." in lines
            assert f"copy-of-arc #{position}: The question has no English explanation." in lines
        # The shipped quizzes' translation warnings aside, every problem is the new quiz's.
        problems = [line for line in lines if not line.startswith("Warning: ")]
        assert not [line for line in problems if not line.startswith("copy-of-arc")]

    def test_new_quiz_then_its_translation(self):
        import_quiz(SEEDS_DIR / "003_eecdd2a81399f9d5.txt", "en", "--quiz", "copy-of-arc")
        import_quiz(SEEDS_DIR / "002_b53ae698afd757eb.txt", "id", "--quiz", "copy-of-arc")
        imported = db_content("copy-of-arc")
        expected = fixture_content(ART)
        text_columns = [*columns(("title", "description", "text"))]
        for key, values in expected.items():
            assert {name: value for name, value in imported[key].items() if name in text_columns} == {
                name: value for name, value in values.items() if name in text_columns
            }

    def test_slug_from_title_when_no_quiz_given(self, tmp_path):
        path = tmp_path / "new.txt"
        path.write_bytes("A Brand New Quiz\n\nAbout it.\n\n1. Why?\n   \u2022 Yes\n   \u2022 No".encode())
        import_quiz(path, "en")
        quiz = Quiz.objects.get(slug="a-brand-new-quiz")
        assert quiz.title_en == "A Brand New Quiz"
        assert quiz.description_en == "About it."

    def test_non_english_new_quiz_refused(self):
        before = all_text_columns()
        with pytest.raises(CommandError, match="English"):
            import_quiz(SEEDS_DIR / "000_7cee97ce0cfcf411.txt", "ur", "--quiz", "new-urdu-quiz")
        assert all_text_columns() == before

    def test_several_courses_without_course_refused(self):
        CourseFactory(slug="another-course")
        with pytest.raises(CommandError, match="--course"):
            import_quiz(SEEDS_DIR / "003_eecdd2a81399f9d5.txt", "en", "--quiz", "copy-of-arc")
        assert not Quiz.objects.filter(slug="copy-of-arc").exists()

    def test_several_courses_with_course(self):
        other = CourseFactory(slug="another-course")
        import_quiz(SEEDS_DIR / "003_eecdd2a81399f9d5.txt", "en", "--quiz", "copy-of-arc", "--course", other.slug)
        quiz = Quiz.objects.get(slug="copy-of-arc")
        assert quiz.course == other
        assert quiz.position == 1

    def test_unknown_course_refused(self):
        with pytest.raises(CommandError, match="no-such-course"):
            import_quiz(
                SEEDS_DIR / "003_eecdd2a81399f9d5.txt", "en", "--quiz", "copy-of-arc", "--course", "no-such-course"
            )
        assert not Quiz.objects.filter(slug="copy-of-arc").exists()

    def test_existing_quiz_of_another_course_refused(self):
        CourseFactory(slug="another-course")
        before = all_text_columns()
        with pytest.raises(CommandError, match="another-course"):
            import_quiz(SEEDS_DIR / "002_b53ae698afd757eb.txt", "id", "--quiz", ART, "--course", "another-course")
        assert all_text_columns() == before

    def test_slug_taken_without_quiz_refused(self, tmp_path):
        # The title "Gradient Checkpointing" gives the slug of a seed quiz.
        path = tmp_path / "taken.txt"
        path.write_bytes("Gradient Checkpointing\n\nDescription.\n\n1. Q?\n   \u2022 a\n   \u2022 b".encode())
        before = all_text_columns()
        with pytest.raises(CommandError, match="--quiz gradient-checkpointing"):
            import_quiz(path, "en")
        assert all_text_columns() == before

    def test_title_without_slug_refused(self, tmp_path):
        path = tmp_path / "urdu-title.txt"
        path.write_bytes("؟؟؟\n\nDescription.\n\n1. Q?\n   \u2022 a\n   \u2022 b".encode())
        with pytest.raises(CommandError, match="--quiz"):
            import_quiz(path, "en")
        assert Quiz.objects.count() == 2


@pytest.mark.usefixtures("content")
class TestAllOrNothing:
    def assert_refused_at(self, path, line: int, language: str, *args) -> None:
        before_counts = (Quiz.objects.count(), Question.objects.count(), Choice.objects.count())
        before = all_text_columns()
        with pytest.raises(CommandError) as excinfo:
            import_quiz(path, language, *args)
        assert f"{path}:{line}:" in str(excinfo.value)
        assert (Quiz.objects.count(), Question.objects.count(), Choice.objects.count()) == before_counts
        assert all_text_columns() == before

    def test_extra_question(self, write_seed):
        def add_question_9(lines):
            lines += ["9. A ninth question?", "   \u2022 a", "   \u2022 b"]

        path = write_seed("000_7cee97ce0cfcf411.txt", add_question_9)
        self.assert_refused_at(path, 45, "ur", "--quiz", GC)

    def test_missing_question(self, write_seed):
        def drop_question_8(lines):
            del lines[-5:]

        path = write_seed("001_b650afde84ce20b7.txt", drop_question_8)
        self.assert_refused_at(path, 39, "sn", "--quiz", GC)

    def test_question_with_three_choices(self, write_seed):
        def drop_a_choice_of_question_6(lines):
            assert lines[29].startswith("6. ")
            del lines[31]

        path = write_seed("002_b53ae698afd757eb.txt", drop_a_choice_of_question_6)
        self.assert_refused_at(path, 30, "id", "--quiz", ART)

    def test_question_with_five_choices(self, write_seed):
        def add_a_choice_to_question_2(lines):
            assert lines[9].startswith("2. ")
            lines.insert(11, "   \u2022 An extra choice")

        path = write_seed("003_eecdd2a81399f9d5.txt", add_a_choice_to_question_2)
        self.assert_refused_at(path, 10, "en", "--quiz", ART)

    def test_format_error_late_in_the_file(self, write_seed):
        def break_last_line(lines):
            lines[-1] = "not a choice"

        path = write_seed("000_7cee97ce0cfcf411.txt", break_last_line)
        self.assert_refused_at(path, 44, "ur", "--quiz", GC)

    def test_invalid_utf8(self, tmp_path):
        data = (SEEDS_DIR / "001_b650afde84ce20b7.txt").read_bytes().split(b"\n")
        data[20] = data[20] + b"\xff"
        path = tmp_path / "bad-utf8.txt"
        path.write_bytes(b"\n".join(data))
        self.assert_refused_at(path, 21, "sn", "--quiz", GC)

    def test_malformed_new_quiz(self, write_seed):
        def skip_question_number(lines):
            lines[9] = lines[9].replace("2. ", "3. ", 1)

        path = write_seed("003_eecdd2a81399f9d5.txt", skip_question_number)
        self.assert_refused_at(path, 10, "en", "--quiz", "copy-of-arc")

    def test_unreadable_file(self, tmp_path):
        missing = tmp_path / "missing.txt"
        with pytest.raises(CommandError, match="Cannot read"):
            import_quiz(missing, "en")
        assert Quiz.objects.count() == 2


@pytest.mark.usefixtures("content")
class TestTooLong:
    """Text longer than its column must be refused with the line, like any other mistake."""

    def test_choice_longer_than_500_characters(self, write_seed):
        def lengthen_first_choice(lines):
            lines[5] = "   \u2022 " + "x" * 600

        path = write_seed("001_b650afde84ce20b7.txt", lengthen_first_choice)
        before = all_text_columns()
        with pytest.raises(CommandError, match=":6:"):
            import_quiz(path, "sn", "--quiz", GC)
        assert all_text_columns() == before

    def test_title_longer_than_200_characters(self, write_seed):
        def lengthen_title(lines):
            lines[0] = "Long " * 50

        path = write_seed("003_eecdd2a81399f9d5.txt", lengthen_title)
        with pytest.raises(CommandError, match=":1:"):
            import_quiz(path, "en", "--quiz", "long-title")
        assert not Quiz.objects.filter(slug="long-title").exists()

    def test_slug_from_a_long_title_is_refused(self, write_seed):
        def lengthen_title(lines):
            lines[0] = "Long title " * 15

        path = write_seed("003_eecdd2a81399f9d5.txt", lengthen_title)
        with pytest.raises(CommandError, match="no usable slug"):
            import_quiz(path, "en")
        assert Quiz.objects.count() == 2
