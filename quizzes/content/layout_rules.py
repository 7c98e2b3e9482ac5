"""What a quiz's layout settings may ask for: pool draws that their pools can give, and no more
questions per attempt than an attempt can have.

The one statement of these rules: the admin refuses to save settings that break them
(``forms.PoolDrawFormSet``), and ``content_problems`` lists the quizzes that break them later,
when questions were archived or moved out of a pool after the draw was saved. A student's
start never fails on them: ``quizzes.attempts.layout.layout_draw`` takes what exists.
"""

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

DRAW_LARGER_THAN_POOL = ngettext_lazy(
    "The pool %(pool)s has %(available)d question; you draw %(count)d.",
    "The pool %(pool)s has %(available)d questions; you draw %(count)d.",
    "available",
)
DRAW_FROM_EMPTY_POOL = _(
    "The pool %(pool)s has no question to draw (no question asked is tagged with it); you draw %(count)d."
)
TOO_MANY_PER_ATTEMPT = ngettext_lazy(
    "An attempt can have at most %(available)d question (after the pool draws); you ask %(count)d per attempt.",
    "An attempt can have at most %(available)d questions (after the pool draws); you ask %(count)d per attempt.",
    "available",
)
DRAW_AT_LEAST_ONE = _("Draw at least one question.")

MESSAGES = {
    "draw_larger_than_pool": DRAW_LARGER_THAN_POOL,
    "draw_from_empty_pool": DRAW_FROM_EMPTY_POOL,
    "too_many_per_attempt": TOO_MANY_PER_ATTEMPT,
}


@dataclass(frozen=True)
class DrawProblem:
    code: str
    params: tuple[tuple[str, object], ...]

    @property
    def message(self) -> str:
        return str(MESSAGES[self.code] % dict(self.params))

    def __str__(self):
        return self.message


def attempt_size(pools: Iterable[str], draws: Mapping[str, int]) -> int:
    """How many questions an attempt asks before ``questions_per_attempt``: every question in no
    drawn pool, and from each drawn pool its draw, or the whole pool when it is smaller."""
    sizes = Counter(pools)
    undrawn = sum(size for pool, size in sizes.items() if pool not in draws)
    return undrawn + sum(min(count, sizes.get(pool, 0)) for pool, count in draws.items())


def draw_problems(*, pools: Iterable[str], draws: Mapping[str, int], questions_per_attempt: int) -> list[DrawProblem]:
    """What breaks the rules above. ``pools``: the pool of each question an attempt may ask
    (not archived; '' for none); ``draws``: pool -> how many to draw."""
    pools = list(pools)
    sizes = Counter(pools)
    problems = []
    for pool, count in sorted(draws.items()):
        available = sizes.get(pool, 0) if pool else 0
        if available == 0:
            problems.append(DrawProblem("draw_from_empty_pool", (("pool", pool), ("count", count))))
        elif count > available:
            params = (("pool", pool), ("available", available), ("count", count))
            problems.append(DrawProblem("draw_larger_than_pool", params))
    available = attempt_size(pools, draws)
    if questions_per_attempt > available:
        params = (("available", available), ("count", questions_per_attempt))
        problems.append(DrawProblem("too_many_per_attempt", params))
    return problems
