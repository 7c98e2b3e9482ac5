"""What the attempts count for the operator (``lms_``-prefixed, served by ``common.metrics``):
answers recorded, attempts started and finished, and refusals by the code the API answers with."""

from prometheus_client import Counter

ANSWERS_RECORDED = Counter("lms_answers_recorded", "Answers recorded (a replayed answer is not counted again).")
ATTEMPTS_STARTED = Counter("lms_attempts_started", "Attempts started, graded or practice.", ["practice"])
ATTEMPTS_FINISHED = Counter("lms_attempts_finished", "Attempts finished: by the student, overdue, or by the command.")
REFUSALS = Counter("lms_refusals", "Attempt writes refused, by the code the API answers with.", ["code"])
