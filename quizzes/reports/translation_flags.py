"""The translation-problem flag of the item statistics, per translation revision.

A language is flagged for a question when its facility is far below English's, on enough
answers, and unlikely to be chance (the thresholds below). Answers are counted per
translation revision: the revision of an answer is its version's
``revisions[language]["question"]`` (quizzes/content/versions.py), the number of the
version in which anything a reader of that language sees last changed. The flag judges
each language's current revision, the one of the question's current version, so a fixed
translation starts a fresh count: answers to an earlier translation are shown, as not
counted, and no longer flag it.

English is judged by the same rule, against its own current revision: its answers count
across versions as long as the English texts did not change (a translation fixed, a key
changed, another language's edit leave its revision alone), and only those to the current
English texts once they changed, since answers to an English wording no longer shown say
nothing about the translations of the new one.
"""

import math
from dataclasses import dataclass, replace

from django.conf import settings
from django.utils.translation import get_language_info

from quizzes.content.languages import SOURCE_LANGUAGE
from quizzes.reports.item_measures import percent

# A language is flagged as a probable translation problem when all hold, on the answers
# to its current revision and to English's:
FLAG_MIN_ANSWERS = 20  # at least this many answers in English and in the language,
FLAG_MIN_POINTS = 20  # its facility at least this many percentage points below English's,
FLAG_MAX_P_VALUE = 0.05  # and a two-sided two-proportion z-test gives p below this.


def two_proportion_p_value(correct_a: int, n_a: int, correct_b: int, n_b: int) -> float | None:
    """Two-sided p-value of the pooled two-proportion z-test; None when undefined."""
    if not n_a or not n_b:
        return None
    pooled = (correct_a + correct_b) / (n_a + n_b)
    variance = pooled * (1 - pooled) * (1 / n_a + 1 / n_b)
    if variance == 0:
        # Everyone right (or everyone wrong) in both languages: no difference to test.
        return 1.0
    z = (correct_a / n_a - correct_b / n_b) / math.sqrt(variance)
    return math.erfc(abs(z) / math.sqrt(2))


@dataclass(frozen=True)
class LanguageStatistics:
    language: str
    name: str
    # Every answer in the language (all versions and revisions).
    answers: int
    correct: int
    facility: float | None
    # The revision judged (the current one) and its answers; None for a version's figures.
    revision: int | None = None
    judged_answers: int = 0
    judged_correct: int = 0
    # Percentage points below English (positive: harder than in English), judged answers.
    points_below_english: float | None = None
    p_value: float | None = None
    flagged: bool = False

    @property
    def judged_facility(self) -> float | None:
        return percent(self.judged_correct, self.judged_answers)

    @property
    def earlier_answers(self) -> int:
        """Answers to an earlier revision, not counted by the flag."""
        return self.answers - self.judged_answers if self.revision is not None else 0


def _name(code: str, known: list[str]) -> str:
    return get_language_info(code)["name_translated"] if code in known else code


def language_statistics(
    totals: dict[str, list[int]], judged: dict[str, list[int]] | None = None, revisions: dict[str, int] | None = None
) -> list[LanguageStatistics]:
    """Each language's figures from ``totals`` ({code: [answers, correct]}), in settings order
    (a code no longer in the settings still counts, at the end). With ``judged`` (the same,
    for the answers to each language's current revision, ``revisions``), the flag."""
    known = [code for code, _name in settings.LANGUAGES]
    codes = [code for code in known if code in totals] + sorted(set(totals) - set(known))
    result = []
    for code in codes:
        answers, correct = totals[code]
        language = LanguageStatistics(code, _name(code, known), answers, correct, percent(correct, answers))
        if judged is not None:
            own = judged.get(code, [0, 0])
            language = replace(language, revision=revisions.get(code), judged_answers=own[0], judged_correct=own[1])
            english = judged.get(SOURCE_LANGUAGE, [0, 0])
            if code != SOURCE_LANGUAGE and english[0] and own[0]:
                language = _judged(language, *english)
        result.append(language)
    return result


def _judged(language: LanguageStatistics, english_answers: int, english_correct: int) -> LanguageStatistics:
    answers, correct = language.judged_answers, language.judged_correct
    p_value = two_proportion_p_value(english_correct, english_answers, correct, answers)
    # "At least 20 points below", in integers: no float rounding at the boundary.
    far_below = 100 * (english_correct * answers - correct * english_answers) >= (
        FLAG_MIN_POINTS * english_answers * answers
    )
    flagged = (
        answers >= FLAG_MIN_ANSWERS
        and english_answers >= FLAG_MIN_ANSWERS
        and far_below
        and p_value is not None
        and p_value < FLAG_MAX_P_VALUE
    )
    below = percent(english_correct, english_answers) - percent(correct, answers)
    return replace(language, points_below_english=below, p_value=p_value, flagged=flagged)
