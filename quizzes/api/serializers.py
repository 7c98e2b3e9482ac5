"""API representations. Texts come in the request's language, falling back
to English per field; each text's ``*_language`` says which one it is in.

Nothing here reveals which choice is correct, or an explanation, before the
student has answered: those appear only in answer feedback, and only as the quiz's
review options allow at the time of the response.
"""

from django.conf import settings
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer

from quizzes.api.fields import MAX_ID, IdField, SecondsField, TextLanguage, TextMachine, TranslatedText
from quizzes.models import Attempt, Choice, Course, FeedbackTiming, PoolDraw, Question, Quiz


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What went wrong, in the request's language.")
    code = serializers.CharField(help_text="A stable machine-readable code, e.g. already_answered.")
    errors = serializers.DictField(
        required=False, help_text="Per-field messages when the request body was invalid (code: invalid)."
    )


# Request bodies: spectacular names a serializer's request component "<name>Request"
# (COMPONENT_SPLIT_REQUEST), so these are named without it: TokenRequest, AnswerRequest,
# as generated clients call their models (not TokenRequestRequest).
@extend_schema_serializer(component_name="Token")
class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, style={"input_type": "password"})


class TokenCredentialsSerializer(AuthTokenSerializer):
    """DRF's, with a username no longer than the documented 150 (the user model's): a longer one
    is nobody's, and would not fit the login lockout's username column (django-axes: 255)."""

    username = serializers.CharField(max_length=150, write_only=True)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class ChoiceSerializer(serializers.ModelSerializer):
    text = TranslatedText("text")
    text_language = TextLanguage("text")
    text_machine = TextMachine("text")

    class Meta:
        model = Choice
        fields = ["id", "position", "text", "text_language", "text_machine"]


class QuestionSerializer(serializers.ModelSerializer):
    text = TranslatedText("text")
    text_language = TextLanguage("text")
    text_machine = TextMachine("text")
    choices = ChoiceSerializer(many=True, read_only=True)

    class Meta:
        model = Question
        fields = [
            "id",
            "position",
            "kind",
            "text",
            "text_language",
            "text_machine",
            "pool",
            "keep_choice_order",
            "choices",
        ]


class PoolDrawSerializer(serializers.ModelSerializer):
    class Meta:
        model = PoolDraw
        fields = ["pool", "count"]


class QuizProgressSerializer(serializers.ModelSerializer):
    """A quiz with the student's progress (``grading.quiz_progress``), as ``selectors.student_courses`` gives it."""

    course = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    title = TranslatedText("title")
    title_language = TextLanguage("title")
    title_machine = TextMachine("title")
    description = TranslatedText("description")
    description_language = TextLanguage("description")
    description_machine = TextMachine("description")
    attempts_used = serializers.IntegerField(read_only=True)
    best_percent = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Best finished attempt's score in percent; null before any."
    )
    passed = serializers.BooleanField(read_only=True, help_text="Whether any finished attempt reached the pass mark.")
    in_progress_attempt = serializers.IntegerField(
        source="in_progress_id", read_only=True, allow_null=True, help_text="Id of the attempt to resume, if any."
    )

    class Meta:
        model = Quiz
        fields = [
            "slug",
            "course",
            "title",
            "title_language",
            "title_machine",
            "description",
            "description_language",
            "description_machine",
            "pass_mark",
            "max_attempts",
            "attempts_used",
            "best_percent",
            "passed",
            "in_progress_attempt",
        ]


FEEDBACK_TIMING_HELP = (
    "When correctness, the right answer and the explanation are shown: immediately (once answered), "
    "after_attempt (once the attempt is finished), after_close (once the quiz closes), never."
)
SHOW_RIGHT_ANSWER_HELP = "Whether the right choice is ever shown (when feedback_timing shows the feedback)."


FOR_THIS_STUDENT = " For this student: their own override, else their groups' most generous, else the quiz's."


class QuizDetailSerializer(QuizProgressSerializer):
    """A quiz with how each attempt's layout is drawn (quizzes/attempts/layout.py) and its current
    questions, in position order; an attempt asks its own layout of them (``AttemptSerializer``).
    Its dates and limits are the student's (``selectors.student_quiz_get``: ``rules``)."""

    opens_at = serializers.DateTimeField(
        source="rules.opens_at",
        read_only=True,
        allow_null=True,
        help_text="No attempt starts before it (quiz_not_open); null: open." + FOR_THIS_STUDENT,
    )
    closes_at = serializers.DateTimeField(
        source="rules.closes_at",
        read_only=True,
        allow_null=True,
        help_text="No attempt starts after it (quiz_closed), and none lasts past it; null: never closes."
        + FOR_THIS_STUDENT,
    )
    time_limit = SecondsField(
        source="rules.time_limit",
        allow_null=True,
        help_text="How long an attempt may take, in seconds; null: no limit." + FOR_THIS_STUDENT,
    )
    max_attempts = serializers.IntegerField(
        source="rules.max_attempts", read_only=True, help_text="Attempts allowed; 0: unlimited." + FOR_THIS_STUDENT
    )
    attempts_left = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Attempts that may still start; null: unlimited."
    )
    is_open = serializers.BooleanField(read_only=True, help_text="Whether an attempt may start now (its dates).")
    feedback_timing = serializers.ChoiceField(
        choices=FeedbackTiming.choices, read_only=True, help_text=FEEDBACK_TIMING_HELP
    )
    show_right_answer = serializers.BooleanField(read_only=True, help_text=SHOW_RIGHT_ANSWER_HELP)
    pool_draws = PoolDrawSerializer(many=True, read_only=True, help_text='"count from pool", per pool.')
    questions = QuestionSerializer(many=True, read_only=True)

    class Meta(QuizProgressSerializer.Meta):
        fields = [
            *QuizProgressSerializer.Meta.fields,
            "attempts_left",
            "opens_at",
            "closes_at",
            "is_open",
            "time_limit",
            "feedback_timing",
            "show_right_answer",
            "shuffle_questions",
            "shuffle_choices",
            "questions_per_attempt",
            "pool_draws",
            "questions",
        ]


@extend_schema_serializer(component_name="Answer")
class AnswerRequestSerializer(serializers.Serializer):
    question = IdField(help_text="Id of a question of this quiz.")
    choice = IdField(help_text="Id of one of that question's choices.")


def answer_request_ids(data) -> tuple[int, int]:
    """The (question, choice) of an answer's body, as ``AnswerRequestSerializer`` validates it.

    The usual body, two JSON integers in range, is read directly: a serializer deep-copies its
    fields for every request, a tenth of an API answer's CPU. Anything else goes through the
    serializer, for its errors (tests/api/test_validation.py checks that both agree).
    """
    if type(data) is dict:
        question, choice = data.get("question"), data.get("choice")
        if type(question) is int and type(choice) is int and 1 <= question <= MAX_ID and 1 <= choice <= MAX_ID:
            return question, choice
    body = AnswerRequestSerializer(data=data)
    body.is_valid(raise_exception=True)
    return body.validated_data["question"], body.validated_data["choice"]


WITHHELD = " Null while the quiz's feedback_timing withholds it (see feedback_shown)."


class AnswerFeedbackSerializer(serializers.Serializer):
    """An answer with its feedback: shown only once the question is answered, and then as the
    quiz's review options allow now (``feedback_timing``, ``show_right_answer``)."""

    # An AnswerFeedback (quizzes.attempts.selectors): what the review shows of the version the
    # answer records. (Not in the docstring: the schema shows it.)
    question = serializers.IntegerField(source="answer.question_id", read_only=True, help_text="The question.")
    choice = serializers.IntegerField(source="answer.choice_id", read_only=True, help_text="The choice answered.")
    correct = serializers.BooleanField(read_only=True, allow_null=True, help_text="The grade that counts." + WITHHELD)
    correct_choice = serializers.IntegerField(
        source="correct_choice_id",
        read_only=True,
        allow_null=True,
        help_text=(
            "The right choice, as the student was shown it. Null while the feedback is withheld, "
            "when the quiz never shows the right answer (show_right_answer false), or when no choice is right."
        ),
    )
    regraded = serializers.BooleanField(
        read_only=True,
        allow_null=True,
        help_text="Whether a regrade changed the grade since the student was shown this feedback." + WITHHELD,
    )
    explanation = TranslatedText("explanation", of="explanation_question", allow_null=True, help_text="Why." + WITHHELD)
    explanation_language = TextLanguage(
        "explanation", of="explanation_question", allow_null=True, help_text="The explanation's language." + WITHHELD
    )
    explanation_machine = TextMachine(
        "explanation",
        of="explanation_question",
        allow_null=True,
        help_text="Whether the explanation is a machine translation." + WITHHELD,
    )
    feedback_shown = serializers.BooleanField(
        source="review.correctness",
        read_only=True,
        help_text="Whether correct, regraded and the explanation are shown now (feedback_timing).",
    )
    language = serializers.ChoiceField(
        source="answer.language", choices=settings.LANGUAGES, read_only=True, help_text="The language answered in."
    )
    answered_at = serializers.DateTimeField(source="answer.answered_at", read_only=True, help_text="When.")


class AttemptChoiceSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    text = TranslatedText("text")
    text_language = TextLanguage("text")
    text_machine = TextMachine("text")


class AttemptQuestionSerializer(serializers.Serializer):
    """A question of the attempt as its layout shows it (``selectors.ShownQuestion``): the
    version shown, its choices in the attempt's order, and the feedback once answered."""

    id = serializers.IntegerField(source="question.id", read_only=True)
    position = serializers.IntegerField(
        source="question.position", read_only=True, help_text="Its place in this attempt, from 1."
    )
    version = serializers.IntegerField(
        source="question.version_number", read_only=True, help_text="The version of the question shown."
    )
    text = TranslatedText("text", of="question")
    text_language = TextLanguage("text", of="question")
    text_machine = TextMachine("text", of="question")
    choices = AttemptChoiceSerializer(source="question.choices", many=True, read_only=True)
    feedback = AnswerFeedbackSerializer(
        source="answer", read_only=True, allow_null=True, help_text="The answer and its feedback; null before it."
    )


class AttemptSerializer(serializers.ModelSerializer):
    """An attempt as ``selectors.student_attempt_with_answers`` gives it (``review``,
    ``time_left`` and ``feedback_timing`` attached: ``selectors.student_attempt_status_set``)."""

    quiz = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    percent = serializers.IntegerField(read_only=True, allow_null=True)
    passed = serializers.BooleanField(read_only=True, allow_null=True)
    deadline = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text=(
            "No answer is taken after it (but for a few seconds' grace for the network); the attempt is then "
            "finished with the answers given. The earlier of the start plus the time limit "
            "and the quiz's close date, as they apply to the student now: a teacher's change of the quiz or "
            "an override moves it while the attempt is in progress. Null: no limit (always for a practice)."
        ),
    )
    time_left = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text=(
            "Whole seconds until the deadline by the server's clock (0 once passed); "
            "null without a deadline or once finished."
        ),
    )
    is_practice = serializers.BooleanField(
        read_only=True, help_text="A practice of the questions an attempt missed: counted in no grade or progress."
    )
    feedback_timing = serializers.ChoiceField(
        choices=FeedbackTiming.choices,
        read_only=True,
        help_text=FEEDBACK_TIMING_HELP + " A practice shows its feedback immediately.",
    )
    show_right_answer = serializers.BooleanField(
        source="quiz.show_right_answer", read_only=True, help_text=SHOW_RIGHT_ANSWER_HELP
    )
    feedback_shown = serializers.BooleanField(
        source="review.correctness", read_only=True, help_text="Whether its answers' feedback is shown now."
    )
    questions = AttemptQuestionSerializer(many=True, read_only=True, help_text="In the attempt's order.")
    answers = AnswerFeedbackSerializer(many=True, read_only=True)

    class Meta:
        model = Attempt
        fields = [
            "id",
            "quiz",
            "number",
            "is_practice",
            "state",
            "started_at",
            "deadline",
            "time_left",
            "finished_at",
            "score",
            "max_score",
            "percent",
            "passed",
            "pass_mark",
            "feedback_timing",
            "show_right_answer",
            "feedback_shown",
            "questions",
            "answers",
        ]
        read_only_fields = fields


class AttemptResultSerializer(serializers.ModelSerializer):
    percent = serializers.IntegerField(read_only=True)
    passed = serializers.BooleanField(read_only=True)
    is_practice = serializers.BooleanField(read_only=True, help_text="A practice: counted in no grade or progress.")

    class Meta:
        model = Attempt
        fields = ["id", "is_practice", "score", "max_score", "percent", "passed", "pass_mark"]
        read_only_fields = fields


class CourseProgressSerializer(serializers.ModelSerializer):
    """A course with its quizzes' progress; needs ``selectors.student_courses``."""

    title = TranslatedText("title")
    title_language = TextLanguage("title")
    title_machine = TextMachine("title")
    quizzes_total = serializers.IntegerField(source="progress.total", read_only=True)
    quizzes_passed = serializers.IntegerField(source="progress.passed", read_only=True)
    quizzes = QuizProgressSerializer(source="progress_quizzes", many=True, read_only=True)

    class Meta:
        model = Course
        fields = ["slug", "title", "title_language", "title_machine", "quizzes_total", "quizzes_passed", "quizzes"]
