"""Quality checks of one translation against its English.

(Interface only for now: the checks themselves are being written.)
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckProblem:
    """One thing a translation gets wrong: ``code`` names the check, ``message`` says what is
    wrong in the active language."""

    code: str
    message: str


def translation_problems(english: str, translation: str, language: str) -> list[CheckProblem]:
    """The problems of ``translation`` (in ``language``) of ``english``; [] when it passes."""
    return []
