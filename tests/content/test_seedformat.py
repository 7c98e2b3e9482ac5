"""The seed text format: what parses, and the line each mistake is reported on."""

import pytest

from quizzes.content.seedformat import CHOICE_PREFIX, SeedFormatError, parse, render

B = CHOICE_PREFIX  # "   • "

GOOD = (
    "Quiz title\n"
    "\n"
    "The description.\n"
    "\n"
    "1. First question?\n"
    f"{B}One\n"
    f"{B}Two\n"
    "2. Second question?\n"
    f"{B}Three\n"
    f"{B}Four\n"
    f"{B}Five"
)


def lines_of(text: str) -> list[str]:
    return text.split("\n")


def error_line(text: str | bytes) -> int:
    data = text.encode("utf-8") if isinstance(text, str) else text
    with pytest.raises(SeedFormatError) as excinfo:
        parse(data)
    return excinfo.value.line


class TestParseGood:
    def test_structure(self):
        quiz = parse(GOOD.encode())
        assert quiz.title == "Quiz title"
        assert quiz.description == "The description."
        assert [q.text for q in quiz.questions] == ["First question?", "Second question?"]
        assert [q.number for q in quiz.questions] == [1, 2]
        assert [q.line for q in quiz.questions] == [5, 8]
        assert [[c.text for c in q.choices] for q in quiz.questions] == [["One", "Two"], ["Three", "Four", "Five"]]
        assert [c.line for c in quiz.questions[1].choices] == [9, 10, 11]

    def test_byte_order_mark_tolerated(self):
        assert parse(b"\xef\xbb\xbf" + GOOD.encode()) == parse(GOOD.encode())

    def test_trailing_newline_tolerated(self):
        assert parse(GOOD.encode() + b"\n") == parse(GOOD.encode())

    def test_crlf_tolerated(self):
        assert parse(GOOD.replace("\n", "\r\n").encode()) == parse(GOOD.encode())

    def test_non_latin_text(self):
        text = GOOD.replace("Quiz title", "گریڈینٹ چیک پوائنٹنگ کوئز").replace("One", "ایک")
        quiz = parse(text.encode())
        assert quiz.title == "گریڈینٹ چیک پوائنٹنگ کوئز"
        assert quiz.questions[0].choices[0].text == "ایک"

    def test_empty_description_is_allowed(self):
        lines = lines_of(GOOD)
        lines[2] = ""
        assert parse("\n".join(lines).encode()).description == ""

    def test_render_parse_round_trip(self):
        quiz = parse(GOOD.encode())
        rendered = render(
            title=quiz.title,
            description=quiz.description,
            questions=[(q.text, [c.text for c in q.choices]) for q in quiz.questions],
        )
        assert rendered == GOOD


class TestParseErrors:
    def test_empty_file(self):
        assert error_line(b"") == 1

    def test_blank_first_line(self):
        assert error_line("\n" + GOOD) == 1

    def test_question_as_title(self):
        assert error_line("1. Question?\n\nDescription\n\n" + "\n".join(lines_of(GOOD)[4:])) == 1

    def test_missing_blank_line_after_title(self):
        lines = lines_of(GOOD)
        del lines[1]
        assert error_line("\n".join(lines)) == 2

    def test_missing_blank_line_after_description(self):
        lines = lines_of(GOOD)
        del lines[3]
        assert error_line("\n".join(lines)) == 4

    def test_no_questions(self):
        with pytest.raises(SeedFormatError, match="no questions") as excinfo:
            parse(b"Quiz title\n\nThe description.\n\n")
        assert excinfo.value.line == 5

    def test_description_then_end_of_file(self):
        assert error_line("Quiz title\n\nThe description.") == 4

    def test_title_only(self):
        assert error_line("Quiz title") == 2

    def test_question_numbering_skip(self):
        assert error_line(GOOD.replace("2. Second question?", "3. Second question?")) == 8

    def test_first_question_not_numbered_one(self):
        assert error_line(GOOD.replace("1. First question?", "2. First question?")) == 5

    def test_choice_before_question(self):
        lines = lines_of(GOOD)
        lines.insert(4, f"{B}Orphan")
        assert error_line("\n".join(lines)) == 5

    def test_question_with_one_choice_is_reported_on_its_line(self):
        lines = lines_of(GOOD)
        del lines[6]  # "Two": question 1 (line 5) keeps one choice
        assert error_line("\n".join(lines)) == 5

    def test_last_question_with_one_choice(self):
        lines = lines_of(GOOD)[:-2]  # question 2 (line 8) keeps only "Three"
        assert error_line("\n".join(lines)) == 8

    def test_question_without_choices_at_the_end(self):
        assert error_line(GOOD + "\n3. Third question?") == 12

    def test_garbage_line(self):
        lines = lines_of(GOOD)
        lines.insert(7, "this is not a question")
        with pytest.raises(SeedFormatError) as excinfo:
            parse("\n".join(lines).encode())
        assert excinfo.value.line == 8
        assert "this is not a question" in excinfo.value.message

    def test_blank_line_among_questions(self):
        lines = lines_of(GOOD)
        lines.insert(7, "")
        assert error_line("\n".join(lines)) == 8

    def test_choice_with_wrong_indentation(self):
        assert error_line(GOOD.replace(f"{B}Three", "  \u2022 Three")) == 9

    def test_empty_choice(self):
        assert error_line(GOOD.replace(f"{B}Four", B)) == 10

    def test_invalid_utf8_reported_on_its_line(self):
        data = GOOD.encode().replace(b"Four", b"F\xffour")
        assert error_line(data) == 10

    def test_invalid_utf8_in_title(self):
        assert error_line(b"\xc3(\n" + GOOD.encode().split(b"\n", 1)[1]) == 1

    def test_message_names_the_line(self):
        with pytest.raises(SeedFormatError) as excinfo:
            parse(GOOD.replace("2. Second", "3. Second").encode())
        assert str(excinfo.value).startswith("line 8: ")
        assert isinstance(excinfo.value, ValueError)


class TestRender:
    def test_format(self):
        text = render(title="T", description="D", questions=[("Q?", ["a", "b"])])
        assert text == f"T\n\nD\n\n1. Q?\n{B}a\n{B}b"
        assert not text.endswith("\n")

    @pytest.mark.parametrize(
        "kwargs",
        [
            {"title": "Two\nlines"},
            {"description": "Carriage\rreturn"},
            {"questions": [("Q\n?", ["a", "b"])]},
            {"questions": [("Q?", ["a", "b\r\nc"])]},
        ],
    )
    def test_refuses_line_breaks(self, kwargs):
        arguments = {"title": "T", "description": "D", "questions": [("Q?", ["a", "b"])], **kwargs}
        with pytest.raises(ValueError, match="line break"):
            render(**arguments)
