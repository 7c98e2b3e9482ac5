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

from quizzes.content.cache import derived
from quizzes.content.languages import localized
from quizzes.models import Answer, Attempt, Choice, Course, Question, Quiz

MAX_ID = 2**63 - 1
LANGUAGE_CODES = [code for code, _name in settings.LANGUAGES]


class TranslatedText(serializers.Field):
    """A translated field in the active language, with English fallback."""

    def __init__(self, field: str, *, of: str | None = None, **kwargs):
        self.translated_field = field
        super().__init__(source=of or "*", read_only=True, **kwargs)

    def to_representation(self, obj):
        return self.localized(obj).text

    def localized(self, obj):
        return localized(obj, self.translated_field, get_language())


@extend_schema_field({"type": "string", "enum": LANGUAGE_CODES})
class TextLanguage(TranslatedText):
    """The language a TranslatedText is really in ("en" when it fell back)."""

    def to_representation(self, obj):
        return self.localized(obj).language


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
        fields = ["id", "position", "text", "text_language", "choices"]


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
    questions = QuestionSerializer(many=True, read_only=True)

    class Meta(QuizProgressSerializer.Meta):
        fields = [*QuizProgressSerializer.Meta.fields, "questions"]


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

    correct = serializers.BooleanField(source="is_correct", read_only=True)
    correct_choice = serializers.SerializerMethodField()
    explanation = TranslatedText("explanation", of="question")
    explanation_language = TextLanguage("explanation", of="question")

    class Meta:
        model = Answer
        fields = [
            "question",
            "choice",
            "correct",
            "correct_choice",
            "explanation",
            "explanation_language",
            "language",
            "answered_at",
        ]
        read_only_fields = fields

    def get_correct_choice(self, answer) -> int | None:
        return next((choice.pk for choice in answer.question.choices.all() if choice.is_correct), None)


def quiz_progress_data(quiz: Quiz, language: str) -> dict:
    """What ``QuizProgressSerializer(quiz).data`` gives, built directly: a class
    starting a quiz fetches it at once, and a ModelSerializer builds its fields
    anew for every object. tests/test_query_counts.py checks that both give the same."""
    title = localized(quiz, "title", language)
    description = localized(quiz, "description", language)
    return {
        "slug": quiz.slug,
        "course": quiz.course.slug,
        "title": title.text,
        "title_language": title.language,
        "description": description.text,
        "description_language": description.language,
        "pass_mark": quiz.pass_mark,
        "max_attempts": quiz.max_attempts,
        "attempts_used": quiz.attempts_used,
        "best_percent": quiz.best_percent,
        "passed": quiz.passed,
        "in_progress_attempt": quiz.in_progress_id,
    }


def quiz_questions_data(content, language: str) -> list[dict]:
    """What ``QuizDetailSerializer`` gives for ``questions``, built from the cached
    content (``content_cache.QuizContent``): no query, and none of the per-object
    field set-up of nested ModelSerializers (a class starting a quiz fetches it at
    once). tests/test_query_counts.py checks that both give the same. Made once
    per snapshot and language (``content_cache.derived``): treat it as read-only."""
    return derived(content, "api-questions", language, lambda: _questions_data(content, language))


def _questions_data(content, language: str) -> list[dict]:
    def text(obj, field: str) -> tuple[str, str]:
        found = localized(obj, field, language)
        return found.text, found.language

    questions = []
    for question in content.questions:
        question_text, question_language = text(question, "text")
        choices = []
        for choice in question.choices:
            choice_text, choice_language = text(choice, "text")
            choices.append(
                {"id": choice.id, "position": choice.position, "text": choice_text, "text_language": choice_language}
            )
        questions.append(
            {
                "id": question.id,
                "position": question.position,
                "text": question_text,
                "text_language": question_language,
                "choices": choices,
            }
        )
    return questions


_DATETIME = serializers.DateTimeField()  # DRF's datetime format, for the dicts built here


def answer_feedback_data(answer: Answer, question) -> dict:
    """What ``AnswerFeedbackSerializer(answer).data`` gives, built directly from
    ``question`` (a ``content_cache.ContentQuestion``): the answer endpoint is the
    hottest path, and a ModelSerializer builds its fields anew for every object.
    tests/test_query_counts.py checks that both give the same."""
    explanation = localized(question, "explanation", get_language())
    return {
        "question": answer.question_id,
        "choice": answer.choice_id,
        "correct": answer.is_correct,
        "correct_choice": question.correct_choice_id,
        "explanation": explanation.text,
        "explanation_language": explanation.language,
        "language": answer.language,
        "answered_at": _DATETIME.to_representation(answer.answered_at),
    }


class AttemptSerializer(serializers.ModelSerializer):
    quiz = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    percent = serializers.IntegerField(read_only=True, allow_null=True)
    passed = serializers.BooleanField(read_only=True, allow_null=True)
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
            "answers",
        ]
        read_only_fields = fields


def new_attempt_data(attempt: Attempt) -> dict:
    """What ``AttemptSerializer(attempt).data`` gives for an attempt just started (no
    answers, no score), built directly: a class starting a quiz starts at once.
    tests/test_query_counts.py checks that both give the same."""
    return {
        "id": attempt.pk,
        "quiz": attempt.quiz.slug,
        "number": attempt.number,
        "state": attempt.state,
        "started_at": _DATETIME.to_representation(attempt.started_at),
        "finished_at": None,
        "score": None,
        "max_score": attempt.max_score,
        "percent": None,
        "passed": None,
        "pass_mark": attempt.pass_mark,
        "answers": [],
    }


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
