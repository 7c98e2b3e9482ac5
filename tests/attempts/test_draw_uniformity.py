"""The layout's draws are uniform: every combination of a pool, every order of choices, as likely.

``layout_draw`` is called directly with a seeded generator, so that the run is the same every
time; the statistic is Pearson's chi-square, computed here (no scipy).
"""

import itertools
import random
from collections import Counter

from quizzes.attempts.layout import DrawQuestion, DrawSettings, layout_draw

DRAWS = 10_000
# The chi-square distribution's upper 0.001 quantiles: a uniform draw exceeds them once in a
# thousand runs (and with the seeds below, never).
CRITICAL_DF_55 = 93.17  # C(8, 3) = 56 combinations
CRITICAL_DF_23 = 49.73  # 4! = 24 orders


def chi_square(counts: Counter, outcomes: list) -> float:
    expected = sum(counts.values()) / len(outcomes)
    return sum((counts.get(outcome, 0) - expected) ** 2 / expected for outcome in outcomes)


def pool_of(size: int, pool: str = "memory") -> list[DrawQuestion]:
    return [
        DrawQuestion(
            id=100 + n,
            position=n,
            pool=pool,
            keep_choice_order=False,
            version_id=1000 + n,
            version_token=n,
            choice_ids=(10 * n + 1, 10 * n + 2),
        )
        for n in range(1, size + 1)
    ]


def test_three_from_a_pool_of_eight_is_uniform_over_the_56_combinations():
    questions = pool_of(8)
    settings = DrawSettings(
        shuffle_questions=False, shuffle_choices=False, questions_per_attempt=0, pool_draws={"memory": 3}
    )
    rng = random.Random(20)
    counts = Counter()
    for _ in range(DRAWS):
        slots = layout_draw(questions, settings, rng)
        assert len(slots) == 3
        counts[frozenset(slot.question_id for slot in slots)] += 1

    combinations = [frozenset(c) for c in itertools.combinations([q.id for q in questions], 3)]
    assert len(combinations) == 56
    assert set(counts) == set(combinations)
    statistic = chi_square(counts, combinations)
    assert statistic < CRITICAL_DF_55, statistic

    # Each question is drawn 3 times in 8, within five standard deviations of a binomial.
    per_question = Counter()
    for combination, n in counts.items():
        for question_id in combination:
            per_question[question_id] += n
    p = 3 / 8
    spread = 5 * (DRAWS * p * (1 - p)) ** 0.5
    for question in questions:
        assert abs(per_question[question.id] - DRAWS * p) < spread, (question.id, per_question[question.id])


def test_questions_per_attempt_draws_uniformly_too():
    questions = pool_of(8, pool="")
    settings = DrawSettings(shuffle_questions=False, shuffle_choices=False, questions_per_attempt=3, pool_draws={})
    rng = random.Random(21)
    counts = Counter(
        frozenset(slot.question_id for slot in layout_draw(questions, settings, rng)) for _ in range(DRAWS)
    )
    combinations = [frozenset(c) for c in itertools.combinations([q.id for q in questions], 3)]
    assert set(counts) == set(combinations)
    assert chi_square(counts, combinations) < CRITICAL_DF_55


def test_shuffled_choices_are_uniform_over_the_24_orders():
    question = DrawQuestion(
        id=1, position=1, pool="", keep_choice_order=False, version_id=1, version_token=1, choice_ids=(11, 12, 13, 14)
    )
    settings = DrawSettings(shuffle_questions=False, shuffle_choices=True, questions_per_attempt=0, pool_draws={})
    rng = random.Random(22)
    counts = Counter(layout_draw([question], settings, rng)[0].choice_order for _ in range(DRAWS))
    orders = list(itertools.permutations(question.choice_ids))
    assert len(orders) == 24
    assert set(counts) == set(orders)
    assert chi_square(counts, orders) < CRITICAL_DF_23
    # Each choice comes first a quarter of the time.
    for choice_id in question.choice_ids:
        first = sum(n for order, n in counts.items() if order[0] == choice_id)
        assert abs(first - DRAWS / 4) < 5 * (DRAWS * 0.25 * 0.75) ** 0.5


def test_a_question_that_keeps_its_order_is_never_shuffled():
    kept = DrawQuestion(
        id=1, position=1, pool="", keep_choice_order=True, version_id=1, version_token=1, choice_ids=(11, 12, 13, 14)
    )
    settings = DrawSettings(shuffle_questions=True, shuffle_choices=True, questions_per_attempt=0, pool_draws={})
    rng = random.Random(23)
    assert {layout_draw([kept], settings, rng)[0].choice_order for _ in range(500)} == {kept.choice_ids}
