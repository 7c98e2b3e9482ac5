"""GIFT: one language at a time out and back in, a file from Moodle, and what is refused."""

import io
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from quizzes.content.formats import gift
from quizzes.content.formats.common import QuestionFileError
from quizzes.content.formats.files import MAX_FILE_BYTES, MAX_QUESTIONS
from quizzes.models import Question, Quiz
from tests.content.question_files import (
    ART,
    GC,
    all_rows,
    assert_refused,
    export,
    import_file,
    quiz_content,
    row_counts,
)

FILES = Path(__file__).resolve().parent / "files"


def gift_file(tmp_path, text: str, name: str = "questions.gift") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.usefixtures("content")
class TestRoundTrip:
    @pytest.mark.parametrize("slug", [GC, ART])
    def test_each_language_exported_then_imported_rebuilds_the_quiz(self, tmp_path, slug):
        english = gift_file(tmp_path, export(slug, "gift"), name="en.gift")
        output = import_file(english, "gift", "--quiz", "copy")
        assert "Created quiz copy (unpublished)" in output
        assert quiz_content("copy", ("en",), quiz_fields=("title",)) == quiz_content(
            slug, ("en",), quiz_fields=("title",)
        )

        for language in ("ur", "sn", "id"):
            path = gift_file(tmp_path, export(slug, "gift", "--language", language), name=f"{language}.gift")
            import_file(path, "gift", "--language", language, "--quiz", "copy")

        # GIFT holds no description; everything else of every language came back.
        assert quiz_content("copy", quiz_fields=("title",)) == quiz_content(slug, quiz_fields=("title",))

    def test_the_export_in_english(self):
        gift = export(ART, "gift")
        assert "$CATEGORY: $course$/top/Activation Recomputation Tradeoffs Quiz\n" in gift
        assert "\n~Model accuracy\n=Extra compute (FLOPs)\n" in gift
        assert gift.count("####") == 8
        assert export(ART, "gift", "--language", "en") == gift

    def test_special_characters_are_escaped(self, tmp_path):
        question = Question.objects.get(quiz__slug=ART, position=1)
        question.text_en = "In {x}: is a = b ~ c #1 \\ d?"
        question.explanation_en = "Because a == b.\nSecond line."
        question.save()
        choice = question.choices.get(position=1)
        choice.text_en = "=~#{}:"
        choice.save()
        path = gift_file(tmp_path, export(ART, "gift"))
        assert "In \\{x\\}\\: is a \\= b \\~ c \\#1 \\\\ d?" in path.read_text(encoding="utf-8")

        import_file(path, "gift", "--quiz", "copy")

        assert quiz_content("copy", ("en",), quiz_fields=()) == quiz_content(ART, ("en",), quiz_fields=())

    def test_importing_twice_changes_nothing(self, tmp_path):
        path = gift_file(tmp_path, export(GC, "gift", "--language", "ur"))
        import_file(path, "gift", "--language", "ur", "--quiz", GC)
        before = all_rows()
        import_file(path, "gift", "--language", "ur", "--quiz", GC)
        assert all_rows() == before


@pytest.mark.usefixtures("content")
class TestFileFromMoodle:
    def test_comments_category_html_feedback_escapes_and_true_false(self):
        output = import_file(FILES / "moodle_export.gift.txt", "gift")

        assert "Created quiz recomputation (unpublished)" in output
        quiz = Quiz.objects.get(slug="recomputation")
        assert quiz.title_en == "Recomputation"
        first, second, third = quiz.questions.order_by("position")
        assert first.text_en == "What does recomputation trade for lower memory use?"
        assert first.explanation_en == "It spends extra compute & time."
        assert [(c.text_en, c.is_correct) for c in first.choices.order_by("position")] == [
            ("Extra compute", True),
            ("Model accuracy", False),  # a penalty is a wrong answer; per-answer feedback is dropped
            ("Disk space = bandwidth", False),
        ]
        assert second.text_en == "Checkpointing changes the gradients' values."
        assert second.explanation_en == "The recomputed activations are the same."
        assert [(c.text_en, c.is_correct) for c in second.choices.order_by("position")] == [
            ("True", False),
            ("False", True),
        ]
        assert third.text_en == "Which one is a dict literal in Python: two lines?"
        assert [(c.text_en, c.is_correct) for c in third.choices.order_by("position")] == [
            ("[1, 2]", False),
            ("{1: 2}", True),
            ("(1, 2)", False),
        ]


GOOD = "::Fine:: Which?{=yes ~no}\n\n"


@pytest.mark.usefixtures("content")
class TestRefused:
    @pytest.mark.parametrize(
        ("question", "match"),
        [
            ("::Bad:: Name a colour.{=red =blue}", "short-answer questions"),
            ("::Bad:: How many?{#4:1}", "only multiple-choice and true/false"),
            ("::Bad:: Match.{=a -> 1 =b -> 2 =c -> 3}", "matching questions"),
            ("::Bad:: Write an essay.{}", "only multiple-choice and true/false"),
            ("::Bad:: Which?{~%50%half ~%50%other half}", "multiple-answer questions"),
            ("::Bad:: Which?{=all ~%50%half ~none}", "partial credit (50%)"),
            ("::Bad:: Which?{=one =two ~three}", "2 answers are marked right"),
            ("::Bad:: Which?{~one ~two}", "no answer is marked right"),
            ("::Bad:: Which?{=one", "no closing }"),
            ("::Bad:: No answers at all.", "no answers in braces"),
        ],
    )
    def test_named_with_question_and_line(self, tmp_path, question, match):
        path = gift_file(tmp_path, GOOD + "// a comment\n" + question + "\n")
        message = assert_refused(path, "gift", line=4, match=match)
        assert "question 2 (“Bad”)" in message

    def test_a_wrong_shape_into_an_existing_quiz(self, tmp_path):
        path = gift_file(tmp_path, GOOD)
        assert_refused(path, "gift", "--language", "sn", "--quiz", GC, line=1, match="the quiz has 8 questions")

    def test_a_new_quiz_in_another_language(self, tmp_path):
        path = gift_file(tmp_path, GOOD)
        with pytest.raises(Exception, match="English"):
            import_file(path, "gift", "--language", "ur", "--quiz", "new-one")
        assert not Quiz.objects.filter(slug="new-one").exists()


def one_question(text: str):
    return gift.parse(text.encode("utf-8")).questions[0]


class TestReadAsMoodleReadsIt:
    """question/format/gift/format.php: escapedchar_pre/post and parse_text_with_format."""

    @pytest.mark.parametrize(
        ("written", "read"),
        [
            # Moodle's escapes: the six control characters, a backslash and a line break.
            ("a \\~ b", "a ~ b"),
            ("a \\= b", "a = b"),
            ("a \\# b", "a # b"),
            ("a \\{ b \\}", "a { b }"),
            ("a\\: b", "a: b"),
            ("a \\\\ b", "a \\ b"),
            ("one\\ntwo", "one\ntwo"),
            # Every other backslash is itself: LaTeX, a Windows path, a regular expression.
            ("Half: \\(\\frac\\{1\\}\\{2\\}\\)", "Half: \\(\\frac{1}{2}\\)"),
            ("Open C\\:\\Windows\\System32", "Open C:\\Windows\\System32"),
            ("Match \\d+ or \\s", "Match \\d+ or \\s"),
            ("A backslash \\ alone", "A backslash \\ alone"),
            # A format marker is removed from the start of a text, not elsewhere.
            ("[plain]Plain <b>text</b>", "Plain <b>text</b>"),
            ("[moodle]Moodle text", "Moodle text"),
            ("[markdown]Some **bold**", "Some **bold**"),
            ("[html]<p>Some <b>HTML</b> &amp; more</p>", "Some HTML & more"),
            ("[HTML]<p>Upper case</p>", "Upper case"),
            ("[latex]Not a format", "[latex]Not a format"),
            ("Text [plain] inside", "Text [plain] inside"),
        ],
    )
    def test_the_question_text(self, written, read):
        assert one_question(f"{written}{{=yes ~no}}").text == read

    @pytest.mark.parametrize(
        ("answers", "read"),
        [
            ("=[plain]blue ~[html]<b>red</b> ~[moodle]green", ["blue", "red", "green"]),
            ("=%100%[markdown]blue ~%0%[plain]red", ["blue", "red"]),
            ("=C\\:\\Temp ~\\(x^2\\)", ["C:\\Temp", "\\(x^2\\)"]),
            ("=a \\= b ~a \\~ b # a feedback", ["a = b", "a ~ b"]),
        ],
    )
    def test_each_answer(self, answers, read):
        assert [choice.text for choice in one_question(f"Which?{{{answers}}}").choices] == read

    def test_an_answer_without_a_marker_takes_its_questions_format(self):
        question = one_question("[html]<p>Which?</p>{=<b>bold</b> ~[plain]<b>plain</b>}")
        assert [choice.text for choice in question.choices] == ["bold", "<b>plain</b>"]

    def test_the_general_feedback_has_its_marker_removed_too(self):
        assert one_question("Which?{=yes ~no ####[plain]Because.}").explanation == "Because."

    @pytest.mark.parametrize("answer", ["T", "TRUE", "F", "FALSE"])
    def test_true_false(self, answer):
        question = one_question(f"The sky is blue.{{{answer}}}")
        assert [choice.text for choice in question.choices] == ["True", "False"]
        assert question.correct == (1 if answer.startswith("T") else 2)

    def test_a_missing_word_question_has_a_blank_where_its_answers_were(self):
        question = one_question("Grant is {~buried =entombed ~living} in Grant's tomb.")
        assert question.text == "Grant is _____ in Grant's tomb."
        assert question.correct == 2

    @pytest.mark.parametrize(
        ("text", "line", "match"),
        [
            ("::A:: Which?{=a ~b}\n$CATEGORY: $course$/top/Other\n\n::B:: Which?{=a ~b}\n", 2, "before this"),
            ("$CATEGORY: $course$/top/Quiz\n::A:: Which?{=a ~b}\n", 2, "after the $CATEGORY line (line 1)"),
        ],
    )
    def test_a_category_needs_blank_lines_around_it(self, text, line, match):
        with pytest.raises(QuestionFileError) as error:
            gift.parse(text.encode("utf-8"))
        assert error.value.line == line
        assert "blank line is missing" in error.value.message and match in error.value.message


@pytest.mark.usefixtures("content")
class TestRealBanksWithOtherKinds:
    """Moodle's own GIFT examples (tests/content/files/moodle/README.md): every kind mixed."""

    def test_refused_whole_by_default(self):
        assert_refused(
            FILES / "moodle" / "gift_examples.txt", "gift", line=14, match="question 4: short-answer questions"
        )

    def test_with_skip_unsupported_the_rest_is_imported_and_each_skipped_one_listed(self):
        path = FILES / "moodle" / "gift_examples.txt"
        err = io.StringIO()
        output = import_file(path, "gift", "--skip-unsupported", "--quiz", "grants-tomb", stderr=err)
        quiz = Quiz.objects.get(slug="grants-tomb")
        questions = list(quiz.questions.order_by("position"))
        assert len(questions) == 18
        assert [question.position for question in questions] == list(range(1, 19))
        assert questions[1].text_en == "Grant is _____ in Grant's tomb."
        control = questions[13]
        assert [(c.text_en, c.is_correct) for c in control.choices.order_by("position")] == [
            ("~", False),
            ("=", False),
            ("#", False),
            ("{", False),
            ("}", False),
            ("\\", True),
        ]
        skipped = err.getvalue().splitlines()
        assert len(skipped) == 25
        reason = "short-answer questions (only = answers) cannot be imported"
        assert skipped[0] == f"{path}:14: skipped (short answer): question 4: {reason}"
        kinds = [line.split("skipped (")[1].split(")")[0] for line in skipped]
        assert kinds.count("numerical") == 8 and kinds.count("matching") == 3
        assert kinds.count("multiple answers") == 2 and kinds.count("partial credit") == 3
        assert "25 questions skipped" in output

    def test_moodles_test_fixture_markers_and_kinds(self):
        err = io.StringIO()
        import_file(
            FILES / "moodle" / "gift_test_fixture.txt", "gift", "--skip-unsupported", "--quiz", "mixed", stderr=err
        )
        first = Quiz.objects.get(slug="mixed").questions.order_by("position").first()
        assert [choice.text_en for choice in first.choices.order_by("position")] == ["yellow", "red", "blue"]
        assert [line.split("skipped (")[1].split(")")[0] for line in err.getvalue().splitlines()] == [
            "essay",
            "matching",
            "multiple answers",
            "numerical",
            "short answer",
        ]

    def test_a_file_with_no_question_it_can_import_is_refused_and_writes_nothing(self, tmp_path):
        path = gift_file(tmp_path, "::E:: Write.{}\n\n::M:: Match.{=a -> 1 =b -> 2}\n")
        counts = row_counts()
        with pytest.raises(CommandError, match="no question of a kind this site can import: 2 skipped"):
            import_file(path, "gift", "--skip-unsupported")
        assert row_counts() == counts

    def test_the_same_file_twice_asks_first(self, tmp_path):
        path = gift_file(tmp_path, "$CATEGORY: $course$/top/Twice\n\n::A:: Which?{=a ~b}\n")
        import_file(path, "gift")
        with pytest.raises(CommandError, match=r"has a quiz titled “Twice” already \(twice\).*--quiz twice"):
            import_file(path, "gift")
        output = import_file(path, "gift", "--same-title")
        assert "Created quiz twice-2" in output
        import_file(path, "gift", "--quiz", "twice")  # into the first: nothing new
        assert Quiz.objects.filter(title_en="Twice").count() == 2


@pytest.mark.usefixtures("content")
class TestLimits:
    """docs/teachers.md: one import takes at most MAX_QUESTIONS questions and MAX_FILE_BYTES
    (make bench-import measures the largest)."""

    def test_a_bank_over_the_question_limit_is_refused_naming_the_first_question_over(self, tmp_path):
        questions = [f"::Q{number}:: Which?{{=a ~b}}\n" for number in range(1, MAX_QUESTIONS + 2)]
        path = gift_file(tmp_path, "\n".join(questions))
        assert_refused(
            path, "gift", line=2 * MAX_QUESTIONS + 1, match=f"the file has {MAX_QUESTIONS + 1} questions to import"
        )

    def test_a_file_over_the_size_limit_is_refused_before_it_is_read(self, tmp_path):
        path = tmp_path / "big.gift"
        path.write_bytes(b"::Q:: Which?{=a ~b}\n\n" + b"// padding\n" * (MAX_FILE_BYTES // 11 + 1))
        assert_refused(path, "gift", line=1, match="larger than 5 MB")

    def test_a_file_not_in_utf_8_is_refused_naming_the_line(self, tmp_path):
        path = tmp_path / "latin1.gift"
        path.write_bytes("::Q:: Which?{=a ~b}\n\n::R:: Où est-il?{=ici ~là}\n".encode("latin-1"))
        assert_refused(path, "gift", line=3, match="not valid UTF-8")

    @pytest.mark.parametrize("file_format", ["gift", "aiken", "seed"])
    def test_a_nul_character_is_refused_naming_the_line(self, tmp_path, file_format):
        """No text holds one, and PostgreSQL's text cannot: refused before any query."""
        text = {
            "gift": b"::Q:: Which?{=a ~b}\n\n::R:: Wh\x00ich?{=a ~b}\n",
            "aiken": b"Which?\nA. one\nB. two\nANSWER: A\n\nWh\x00ich?\nA. one\nB. two\nANSWER: A\n",
            "seed": b"A quiz\n\n1. Which?\n- one\n- tw\x00o\n",
        }[file_format]
        path = tmp_path / f"nul.{file_format}"
        path.write_bytes(text)
        line = {"gift": 3, "aiken": 6, "seed": 5}[file_format]
        language = ["--language", "en"] if file_format == "seed" else []
        assert_refused(path, file_format, *language, line=line, match="NUL character")
