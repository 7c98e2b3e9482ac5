"""API representations. Texts come in the request's language, falling back
to English per field; each text's ``*_language`` says which one it is in.

Nothing here reveals which choice is correct, or an explanation, before the
student has answered: those appear only in answer feedback.
"""

from django.conf import settings
from django.utils.translation import get_language
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer

from quizzes.content.languages import language_reader, localized, text_reader
from quizzes.models import Answer, Attempt, Choice, Course, PoolDraw, Question, Quiz

MAX_ID = 2**63 - 1
LANGUAGE_CODES = [code for code, _name in settings.LANGUAGES]


class TranslatedText(serializers.Field):
    """A translated field in the active language, with English fallback."""

    def __init__(self, field: str, *, of: str | None = None, **kwargs):
        self.translated_field = field
        super().__init__(source=of or "*", read_only=True, **kwargs)

    def to_representation(self, obj):
        return localized(obj, self.translated_field, get_language()).text

    def representation_in(self, language: str):
        """``to_representation`` while ``language`` is active (common.serializer_render)."""
        return text_reader(self.translated_field, language)


@extend_schema_field({"type": "string", "enum": LANGUAGE_CODES})
class TextLanguage(TranslatedText):
    """The language a TranslatedText is really in ("en" when it fell back)."""

    def to_representation(self, obj):
        return localized(obj, self.translated_field, get_language()).language

    def representation_in(self, language: str):
        return language_reader(self.translated_field, language)


extend_schema_field(OpenApiTypes.STR)(TranslatedText)


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What went wrong, in the request's language.")
    code = serializers.CharField(help_text="A stable machine-readable code, e.g. already_answered.")
    errors = serializers.DictField(
        required=False, help_text="Per-field messages when the request body was invalid (code: invalid)."
    )


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

    class Meta:
        model = Choice
        fields = ["id", "position", "text", "text_language"]


class QuestionSerializer(serializers.ModelSerializer):
    text = TranslatedText("text")
    text_language = TextLanguage("text")
    choices = ChoiceSerializer(many=True, read_only=True)

    class Meta:
        model = Question
        fields = ["id", "position", "text", "text_language", "pool", "keep_choice_order", "choices"]


class PoolDrawSerializer(serializers.ModelSerializer):
    class Meta:
        model = PoolDraw
        fields = ["pool", "count"]


class QuizProgressSerializer(serializers.ModelSerializer):
    """A quiz with the student's progress (``grading.quiz_progress``), as ``selectors.student_courses`` gives it."""

    course = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    title = TranslatedText("title")
    title_language = TextLanguage("title")
    description = TranslatedText("description")
    description_language = TextLanguage("description")
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
            "description",
            "description_language",
            "pass_mark",
            "max_attempts",
            "attempts_used",
            "best_percent",
            "passed",
            "in_progress_attempt",
        ]


class QuizDetailSerializer(QuizProgressSerializer):
    """A quiz with how each attempt's layout is drawn (quizzes/attempts/layout.py) and its current
    questions, in position order; an attempt asks its own layout of them (``AttemptSerializer``)."""

    pool_draws = PoolDrawSerializer(many=True, read_only=True, help_text='"count from pool", per pool.')
    questions = QuestionSerializer(many=True, read_only=True)

    class Meta(QuizProgressSerializer.Meta):
        fields = [
            *QuizProgressSerializer.Meta.fields,
            "shuffle_questions",
            "shuffle_choices",
            "questions_per_attempt",
            "pool_draws",
            "questions",
        ]


class IdField(serializers.IntegerField):
    """A JSON integer id: "12", 12.0 and true are refused, not coerced."""

    def __init__(self, **kwargs):
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)

    def to_internal_value(self, data):
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


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


class AnswerFeedbackSerializer(serializers.ModelSerializer):
    """An answer with its feedback: shown only once the question is answered."""

    # The right choice and the explanation are those of the version the answer records
    # (Answer.feedback_question). (Not in the docstring: the schema shows it.)
    correct = serializers.BooleanField(source="is_correct", read_only=True, help_text="The grade that counts.")
    correct_choice = serializers.SerializerMethodField(help_text="The right choice, as the student was shown it.")
    regraded = serializers.SerializerMethodField(
        help_text="Whether a regrade changed the grade since the student was shown this feedback."
    )
    explanation = TranslatedText("explanation", of="feedback_question")
    explanation_language = TextLanguage("explanation", of="feedback_question")

    class Meta:
        model = Answer
        fields = [
            "question",
            "choice",
            "correct",
            "correct_choice",
            "regraded",
            "explanation",
            "explanation_language",
            "language",
            "answered_at",
        ]
        read_only_fields = fields

    def get_correct_choice(self, answer) -> int | None:
        return answer.feedback_question.correct_choice_id

    def get_regraded(self, answer) -> bool:
        return answer.is_regraded


class AttemptChoiceSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    text = TranslatedText("text")
    text_language = TextLanguage("text")


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
    choices = AttemptChoiceSerializer(source="question.choices", many=True, read_only=True)
    feedback = AnswerFeedbackSerializer(
        source="answer", read_only=True, allow_null=True, help_text="The answer and its feedback; null before it."
    )


class AttemptSerializer(serializers.ModelSerializer):
    quiz = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    percent = serializers.IntegerField(read_only=True, allow_null=True)
    passed = serializers.BooleanField(read_only=True, allow_null=True)
    questions = AttemptQuestionSerializer(many=True, read_only=True, help_text="In the attempt's order.")
    answers = AnswerFeedbackSerializer(many=True, read_only=True)

    class Meta:
        model = Attempt
        fields = [
            "id",
            "quiz",
            "number",
            "state",
            "started_at",
            "finished_at",
            "score",
            "max_score",
            "percent",
            "passed",
            "pass_mark",
            "questions",
            "answers",
        ]
        read_only_fields = fields


class AttemptResultSerializer(serializers.ModelSerializer):
    percent = serializers.IntegerField(read_only=True)
    passed = serializers.BooleanField(read_only=True)

    class Meta:
        model = Attempt
        fields = ["id", "score", "max_score", "percent", "passed", "pass_mark"]
        read_only_fields = fields


class CourseProgressSerializer(serializers.ModelSerializer):
    """A course with its quizzes' progress; needs ``selectors.student_courses``."""

    title = TranslatedText("title")
    title_language = TextLanguage("title")
    quizzes_total = serializers.IntegerField(source="progress.total", read_only=True)
    quizzes_passed = serializers.IntegerField(source="progress.passed", read_only=True)
    quizzes = QuizProgressSerializer(source="progress_quizzes", many=True, read_only=True)

    class Meta:
        model = Course
        fields = ["slug", "title", "title_language", "quizzes_total", "quizzes_passed", "quizzes"]
