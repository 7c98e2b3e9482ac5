"""An attempt's layout: which questions it asks, in what order, each with its choices in what
order. Drawn once, when the attempt starts (``attempt_start`` stores it), from the quiz's
current content; every page, the API and the answer check read the stored layout after that.

The rule, in this order:
1. Each pool the quiz draws from ("2 from pool memory") gives that many of its questions, at
   random; a question in no drawn pool is always asked. A draw larger than its pool asks the
   whole pool (the admin refuses such a draw; a question archived since must not stop a start).
2. ``questions_per_attempt`` (0 = all) keeps that many of those, at random.
3. The questions are asked in position order, or each attempt in its own order when the quiz
   shuffles questions.
4. Each question's choices are in position order, or in an order of the attempt's own when
   the quiz shuffles choices and the question does not keep its order.

Every draw is uniform: ``random.sample`` and ``random.shuffle`` over the operating system's
randomness, so no student can predict another's layout.
"""

import random
from dataclasses import dataclass

_system_random = random.SystemRandom()


@dataclass(frozen=True)
class DrawQuestion:
    """A question a layout may ask: the quiz's question not archived, as its current version is."""

    id: int
    position: int
    pool: str
    keep_choice_order: bool
    version_id: int
    version_token: int
    choice_ids: tuple[int, ...]  # the version's choices, by position


@dataclass(frozen=True)
class DrawSettings:
    shuffle_questions: bool
    shuffle_choices: bool
    questions_per_attempt: int
    pool_draws: dict[str, int]  # pool -> how many to draw

    @classmethod
    def of(cls, quiz, pool_draws: dict[str, int]) -> "DrawSettings":
        return cls(quiz.shuffle_questions, quiz.shuffle_choices, quiz.questions_per_attempt, pool_draws)


@dataclass(frozen=True)
class Slot:
    position: int
    question_id: int
    version_id: int
    version_token: int
    choice_order: tuple[int, ...]


def layout_draw(
    questions: list[DrawQuestion], settings: DrawSettings, rng: random.Random = _system_random
) -> list[Slot]:
    """A new attempt's layout of ``questions`` (in position order), by the rule above."""
    chosen = _chosen(questions, settings, rng)
    if settings.shuffle_questions:
        rng.shuffle(chosen)
    else:
        chosen.sort(key=lambda question: question.position)
    slots = []
    for position, question in enumerate(chosen, start=1):
        order = list(question.choice_ids)
        if settings.shuffle_choices and not question.keep_choice_order:
            rng.shuffle(order)
        slots.append(Slot(position, question.id, question.version_id, question.version_token, tuple(order)))
    return slots


def layout_size(questions, settings: DrawSettings) -> int:
    """How many questions an attempt of the quiz asks (steps 1 and 2 of the rule): ``questions``
    are the quiz's questions not archived, each with its ``pool``."""
    return len(_chosen(list(questions), settings, random.Random(0)))


def _chosen(questions: list, settings: DrawSettings, rng: random.Random) -> list:
    draws = settings.pool_draws
    chosen = [question for question in questions if question.pool not in draws]
    for pool, count in sorted(draws.items()):
        members = [question for question in questions if question.pool == pool]
        chosen += rng.sample(members, min(count, len(members)))
    if 0 < settings.questions_per_attempt < len(chosen):
        chosen = rng.sample(chosen, settings.questions_per_attempt)
    return chosen
