"""What every question file format shares: its errors, question names, category paths, and
the questions of kinds it cannot import, skipped where the importer is asked to."""

from dataclasses import dataclass

from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

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


class UnsupportedQuestion(QuestionFileError):
    """A well-formed question of a kind this site has not (an essay, a matching question...):
    refused with the whole file, or skipped and reported (``Skipping``)."""

    def __init__(self, line: int, number: int, name: str, kind: str, reason: str):
        super().__init__(line, question_error(line, number, name, reason).message)
        self.skipped = SkippedQuestion(line=line, number=number, name=name, kind=kind, reason=reason)


@dataclass(frozen=True)
class SkippedQuestion:
    """A question a file holds and the import left out: where, its kind, why (translated)."""

    line: int
    number: int
    name: str
    kind: str
    reason: str


class Skipping:
    """The questions of a file, in order, with those of kinds it cannot import set aside when
    ``skip`` (else the first one refuses the file). ``add(read)`` calls ``read()`` for the next
    question; ``questions()`` refuses a file with none to import, saying what was skipped."""

    def __init__(self, skip: bool):
        self.skip = skip
        self.read: list = []
        self.skipped: list[SkippedQuestion] = []

    @property
    def next_number(self) -> int:
        """The number of the next question in the file, skipped ones counted."""
        return len(self.read) + len(self.skipped) + 1

    def add(self, read) -> None:
        try:
            self.read.append(read())
        except UnsupportedQuestion as error:
            if not self.skip:
                raise
            self.skipped.append(error.skipped)

    def questions(self, line: int, none_message: str) -> list:
        if self.read:
            return self.read
        if self.skipped:
            message = ngettext(
                "no question of a kind this site can import: %(count)d skipped",
                "no question of a kind this site can import: %(count)d skipped",
                len(self.skipped),
            ) % {"count": len(self.skipped)}
            raise QuestionFileError(self.skipped[0].line, message)
        raise QuestionFileError(line, none_message)


def skipped_line(skipped: SkippedQuestion) -> str:
    """One skipped question, as the command and the admin list it (after its line)."""
    where = question_error(skipped.line, skipped.number, skipped.name, skipped.reason).message
    return _("skipped (%(kind)s): %(where)s") % {"kind": skipped.kind, "where": where}


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
    return UnsupportedQuestion(
        line,
        number,
        name,
        _("several right answers"),
        _("%(count)d answers are marked right; only questions with one right answer can be imported")
        % {"count": right},
    )
