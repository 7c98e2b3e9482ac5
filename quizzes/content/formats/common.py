"""What every question file format shares: its errors, question names, category paths."""

from django.utils.text import Truncator
from django.utils.translation import gettext as _

from quizzes.content.seedformat import SeedFormatError

NAME_LENGTH = 60


class QuestionFileError(SeedFormatError):
    """A question file that is refused; ``line`` is 1-based, the message names the question."""


def question_error(line: int, number: int, name: str, message: str) -> QuestionFileError:
    """An error about question ``number`` (and its name, where the file gives one)."""
    if name:
        where = _("question %(number)d (“%(name)s”)") % {"number": number, "name": name}
    else:
        where = _("question %(number)d") % {"number": number}
    return QuestionFileError(line, f"{where}: {message}")


def question_name(position: int, text: str) -> str:
    """The name a question is exported under: its number and the start of its English text."""
    return f"{position}. {Truncator(' '.join(text.split())).chars(NAME_LENGTH)}"


def category_path_split(path: str) -> list[str]:
    """The segments of a Moodle category path: "/" separates them, "//" is a "/" in a name."""
    return [segment.replace("\0", "/").strip() for segment in path.replace("//", "\0").split("/")]


def category_path_title(path: str) -> str | None:
    """The quiz title a category path names: its last segment below ``$course$/top``."""
    segments = [segment for segment in category_path_split(path) if segment]
    segments = [segment for segment in segments if not (segment.startswith("$") and segment.endswith("$"))]
    if segments and segments[0] == "top":
        segments = segments[1:]
    return segments[-1] if segments else None


def category_path(title: str) -> str:
    return "$course$/top/" + title.replace("/", "//")


def right_choice_count_error(line: int, number: int, name: str, right: int) -> QuestionFileError:
    if right == 0:
        return question_error(line, number, name, _("no answer is marked right; one must be"))
    return question_error(
        line,
        number,
        name,
        _("%(count)d answers are marked right; only questions with one right answer can be imported")
        % {"count": right},
    )
