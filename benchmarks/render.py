"""In-process CPU of rendering the four hot API representations (not a test, no server).

Standalone: ``.venv/bin/python -m benchmarks.render [--number 1000] [--repeat 7]``.
Migrates a throwaway SQLite database, loads the fixtures, enrols a student, starts an
attempt and answers a question, then times, per call, in microseconds of process CPU
(the best of ``--repeat`` runs of ``--number`` calls, and their median):

- ``progress``: the fixtures' two quizzes with the student's progress (QuizProgressSerializer);
- ``questions``: the quiz detail's questions built from the content snapshot
  (QuestionSerializer, many=True), uncached: the API serves it once per snapshot and
  language (``content.cache.derived``), so this is a cold render;
- ``feedback``: an answer's feedback (AnswerFeedbackSerializer): DRF's from the rows (question
  and choices prefetched), the others from the content snapshot, as the view gives it;
- ``new_attempt``: an attempt just started (AttemptSerializer, no answers).

Each is timed through ``Serializer(obj).data`` (DRF, the reference), through
``common.serializer_render`` (``fast``: what the views call) and, for comparison, through
DRF's ``to_representation`` on the renderer's instance, bound once (``kept``). Copied onto
a revision that still has the hand-built dicts (241e7df and before), it times those
instead (``hand-built``): the same script measures before and after. ``--language``:
en and ur by default.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent


def setup() -> dict:
    sys.path.insert(0, str(PROJECT_DIR))
    database = Path(tempfile.mkdtemp(prefix="bench-render-")) / "db.sqlite3"
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lms.settings_test")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from quizzes.attempts.selectors import student_quiz_get, student_quizzes
    from quizzes.attempts.services import attempt_answer_submit, attempt_start
    from quizzes.content.cache import quiz_content
    from quizzes.models import Course, Enrollment, Quiz

    call_command("migrate", verbosity=0)
    call_command("loaddata", *sorted(str(path) for path in (PROJECT_DIR / "fixtures").glob("*.json")), verbosity=0)
    user = get_user_model().objects.create_user("bench-render", password="unused-password-0123")
    Enrollment.objects.create(user=user, course=Course.objects.get(slug="memory-efficient-training"))
    quiz = Quiz.objects.get(slug="gradient-checkpointing")
    attempt, created = attempt_start(user=user, quiz=quiz)
    assert created
    content = quiz_content(quiz.pk)
    question = content.question_at(1)
    answer, _created = attempt_answer_submit(
        user=user, attempt_id=attempt.pk, question_id=question.id, choice_id=question.choices[1].id, language="ur"
    )
    try:  # an answer's feedback is a selector's dataclass (before: attributes attached to the answer)
        from django.utils import timezone

        from quizzes.attempts.selectors import answer_feedback
    except ImportError:
        pass
    else:
        answer = answer_feedback(user=user, answer=answer, now=timezone.now())
    detail_quiz, _enrolled, _attempts = student_quiz_get(user=user, slug=quiz.slug)
    new_attempt, created = attempt_start(user=user, quiz=Quiz.objects.get(slug="activation-recomputation-tradeoffs"))
    assert created
    return {
        "quizzes": list(student_quizzes(user=user)),
        "detail_quiz": detail_quiz,
        "content": content,
        "answer": answer,
        "attempt": new_attempt,
    }


def variants(objects: dict, language: str) -> dict[str, dict[str, object]]:
    """{path: {variant: a no-argument function}}."""
    from django.db.models import prefetch_related_objects

    from quizzes.api import serializers as api

    quizzes, content, answer = objects["quizzes"], objects["content"], objects["answer"]
    attempt = objects["attempt"]
    # DRF's serializers would query the rows each time: fetched once here (the new attempt's
    # no answers; the answer's question and choices).
    drf_attempt = type(attempt).objects.select_related("quiz").get(pk=attempt.pk)
    prefetch_related_objects([drf_attempt], "answers")
    shown = []
    if hasattr(api, "AttemptQuestionSerializer"):  # the attempt's questions, in its layout's order
        from quizzes.attempts.selectors import attempt_content, shown_questions

        shown = shown_questions(content=attempt_content(attempt=attempt), answers={})
        drf_attempt.questions = shown
    if hasattr(answer, "pk"):  # an Answer with its feedback attached (before the dataclass)
        drf_answer = type(answer).objects.select_related("question").get(pk=answer.pk)
        prefetch_related_objects([drf_answer], "question__choices")
    else:  # an AnswerFeedback: DRF reads the same object
        drf_answer = answer
    paths = {
        "progress": {"drf": lambda: [api.QuizProgressSerializer(quiz).data for quiz in quizzes]},
        "questions": {"drf": lambda: api.QuestionSerializer(content.questions, many=True).data},
        "feedback": {"drf": lambda: api.AnswerFeedbackSerializer(drf_answer).data},
        "new_attempt": {"drf": lambda: api.AttemptSerializer(drf_attempt).data},
    }
    if hasattr(api, "answer_feedback_data"):  # the hand-built dicts (before)
        paths["progress"]["hand-built"] = lambda: [api.quiz_progress_data(quiz, language) for quiz in quizzes]
        paths["questions"]["hand-built"] = lambda: api._questions_data(content, language)
        paths["feedback"]["hand-built"] = lambda: api.answer_feedback_data(answer, answer.content_question)
        paths["new_attempt"]["hand-built"] = lambda: api.new_attempt_data(attempt)
    try:
        from common.serializer_render import renderer
    except ImportError:
        pass
    else:
        progress, feedback = renderer(api.QuizProgressSerializer), renderer(api.AnswerFeedbackSerializer)
        questions = renderer(api.QuizDetailSerializer).nested("questions")
        new_attempt = renderer(api.AttemptSerializer)
        paths["progress"]["fast"] = lambda: progress.many(quizzes)  # as the quiz list renders its page
        paths["questions"]["fast"] = lambda: questions(content.questions)
        paths["feedback"]["fast"] = lambda: feedback(answer)
        if shown:
            shown_rendered = new_attempt.nested("questions")
            paths["new_attempt"]["fast"] = lambda: new_attempt(attempt, questions=shown_rendered(shown), answers=[])
        else:
            paths["new_attempt"]["fast"] = lambda: new_attempt(attempt, answers=[])
        # For comparison: DRF's to_representation on the renderer's kept (bound once) instance.
        kept = {
            "progress": progress.serializer,
            "questions": renderer(api.QuestionSerializer).serializer,
            "feedback": feedback.serializer,
        }
        paths["progress"]["kept"] = lambda: [kept["progress"].to_representation(quiz) for quiz in quizzes]
        paths["questions"]["kept"] = lambda: [kept["questions"].to_representation(q) for q in content.questions]
        paths["feedback"]["kept"] = lambda: kept["feedback"].to_representation(answer)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--number", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--language", action="append", help="en, ur... (default: en and ur)")
    arguments = parser.parse_args()
    objects = setup()
    from django.utils import translation

    print(f"µs of process CPU per call: best (median) of {arguments.repeat} x {arguments.number}")
    for language in arguments.language or ["en", "ur"]:
        with translation.override(language):
            for path, functions in variants(objects, language).items():
                reference = None
                figures = []
                for name, function in functions.items():
                    if reference is None:
                        reference = function()
                    assert function() == reference, (path, name)  # the same representation
                    timer = timeit.Timer(function, timer=time.process_time)
                    runs = [
                        seconds / arguments.number * 1e6 for seconds in timer.repeat(arguments.repeat, arguments.number)
                    ]
                    figures.append(f"{name} {min(runs):7.2f} ({statistics.median(runs):7.2f})")
                print(f"{language} {path:12} " + "   ".join(figures))


if __name__ == "__main__":
    main()
