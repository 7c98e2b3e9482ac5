"""The measures of one item (a question) that the item statistics report gives, from counts
and sums the database computed: facility, Kelley's upper-lower discrimination, and the
corrected item-total correlation."""

import math
from dataclasses import dataclass

# Kelley's upper and lower groups: the top and bottom 27% of attempts by score.
GROUP_PERCENT = 27
# Below this many finished attempts the groups hold fewer than 6 attempts
# each, and a single attempt moves the index by more than 0.15: shown as n/a.
MIN_ATTEMPTS_FOR_DISCRIMINATION = 20


def kelley_group_size(attempts: int) -> int:
    """ceil(27% of ``attempts``), in integers (0.27 * 100 is 27.000000000000004 in floats)."""
    return (GROUP_PERCENT * attempts + 99) // 100


def percent(part: int, whole: int) -> float | None:
    return 100 * part / whole if whole else None


def point_biserial(n: int, sum_x: int, sum_y: int, sum_xy: int, sum_yy: int) -> float | None:
    """Pearson's r of a 0/1 item score x and the rest of the score y, from their sums."""
    # x is 0 or 1, so the sum of x squared is the sum of x.
    spread_x = n * sum_x - sum_x * sum_x
    spread_y = n * sum_yy - sum_y * sum_y
    if n < 2 or spread_x <= 0 or spread_y <= 0:
        return None
    return (n * sum_xy - sum_x * sum_y) / math.sqrt(spread_x * spread_y)


@dataclass(frozen=True)
class Discrimination:
    """Right answers in the upper and lower groups, out of the attempts of each group counted:
    the whole groups for a question (an unanswered question counts as not right), the
    attempts of each group shown the version for one version of it."""

    upper_size: int
    lower_size: int
    upper_correct: int
    lower_correct: int

    @property
    def group_size(self) -> int:
        """The groups' size, for a question (both groups have it)."""
        return self.upper_size

    @property
    def index(self) -> float:
        """Share right in the upper group minus share right in the lower group, -1 to 1."""
        numerator = self.upper_correct * self.lower_size - self.lower_correct * self.upper_size
        return numerator / (self.upper_size * self.lower_size)
