"""REST API v1: thin views over the same selectors and services as the web pages."""

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from common.serializer_render import RenderedListMixin, renderer
from quizzes.accounts.lockout import lockout_wait, login_succeeded
from quizzes.api.exceptions import ApiError, LoginLockedOut
from quizzes.api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from quizzes.api.parsers import StrictJSONParser
from quizzes.api.serializers import (
    AnswerFeedbackSerializer,
    AnswerRequestSerializer,
    AttemptResultSerializer,
    AttemptSerializer,
    CourseProgressSerializer,
    ErrorSerializer,
    QuizDetailSerializer,
    QuizProgressSerializer,
    TokenCredentialsSerializer,
    TokenRequestSerializer,
    TokenSerializer,
    answer_request_ids,
)
from quizzes.attempts.selectors import (
    answer_feedback,
    published_quiz_get,
    shown_questions,
    slot_key,
    student_answer_get,
    student_attempt_get,
    student_attempt_status_set,
    student_attempt_with_answers,
    student_courses,
    student_quiz_get,
    student_quizzes,
)
from quizzes.attempts.services import (
    attempt_answer_submit,
    attempt_finish,
    attempt_finish_if_overdue,
    attempt_start,
    practice_start,
)
from quizzes.content.cache import derived, quiz_content
from quizzes.content.layout_cache import layout_content
from quizzes.models import Attempt, Quiz

UNKNOWN_LANGUAGE = _("Unknown language %(language)r; use one of: %(languages)s.")
NOT_ENROLLED = _("You are not enrolled in the course of this quiz.")

# The languages' one enum (LanguageEnum, as the texts' *_language fields), not one inline enum
# per operation: a generated client would have a QuizzesListLang, an AttemptsRetrieveLang, ...
LANG_PARAMETER = OpenApiParameter(
    "lang",
    {"$ref": "#/components/schemas/LanguageEnum"},
    OpenApiParameter.QUERY,
    description="Language of the texts (overrides Accept-Language). Untranslated texts fall back to English.",
)


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    """Documented error responses: every one is an ErrorSerializer body."""
    descriptions = {
        400: "Invalid input or unknown language.",
        401: "Not authenticated.",
        403: (
            "Not enrolled in the quiz's course (not_enrolled), the quiz not open yet (quiz_not_open) or closed "
            "(quiz_closed), by the student's dates; or a session-authenticated write without its CSRF token."
        ),
        404: "No such quiz or attempt (or not yours), or a page past the last.",
        405: "Method not allowed.",
        409: (
            "Conflict with the attempt's state: already_answered, attempt_finished, no_attempts_left, or "
            "deadline_passed (the attempt's time ran out: the answer was not recorded and the attempt is finished)."
        ),
        422: "The Idempotency-Key was already used for a different request.",
        429: (
            "Too many requests: this user's or address's API rate, or (token) too many failed logins "
            "for this username from this address. Retry after the Retry-After header's seconds."
        ),
        413: "Request body too large.",
        415: "Unsupported media type.",
    }
    return {code: OpenApiResponse(ErrorSerializer, description=descriptions[code]) for code in statuses}


PRACTICE_CONFLICT = (
    "No practice can start: the attempt is in progress (attempt_not_finished), its review does not show its "
    "answers yet (review_not_available), or it missed no question (nothing_to_practise)."
)


class LanguageMixin:
    """Texts in the language of ``?lang=``, else of Accept-Language (LocaleMiddleware)."""

    def initial(self, request, *args, **kwargs):
        values = request.query_params.getlist("lang")
        codes = [code for code, _name in settings.LANGUAGES]
        valid = len(values) == 1 and values[0] in codes
        if valid:
            translation.activate(values[0])
            request.LANGUAGE_CODE = values[0]
        # Authentication comes first: an anonymous request is a 401 whatever its ?lang=.
        super().initial(request, *args, **kwargs)
        if values and not valid:
            raise ApiError(
                UNKNOWN_LANGUAGE % {"language": ",".join(values)[:40], "languages": ", ".join(codes)},
                code="unknown_language",
                status_code=400,
            )


class TokenView(ObtainAuthToken):
    """Exchange a username and password for an API token."""

    parser_classes = (StrictJSONParser, FormParser, MultiPartParser)
    serializer_class = TokenCredentialsSerializer
    # ObtainAuthToken turns rate throttles off; keep the anonymous rate per address
    # (failed logins lock a username out from an address separately: quizzes/accounts/lockout.py).
    throttle_classes = api_settings.DEFAULT_THROTTLE_CLASSES

    # JSON only in the schema, as every other endpoint: the same body under three media types
    # becomes a union of one model three times in generated clients, which do not import (issue
    # 22). Form and multipart posts stay accepted (DRF's ObtainAuthToken takes them, and clients
    # written before the schema may send them), undocumented.
    @extend_schema(
        request={"application/json": TokenRequestSerializer},
        responses={200: TokenSerializer, **errors(400, 413, 415, 429)},
        auth=[],
        summary="Obtain a token",
        operation_id="token_create",
    )
    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        try:
            serializer.is_valid(raise_exception=True)
        except ValidationError:
            # authenticate() said no; axes marks the request when the username is locked out
            # from this address (already, or by this failure).
            if getattr(request, "axes_locked_out", False):
                raise LoginLockedOut(lockout_wait(request, getattr(request, "axes_credentials", None))) from None
            raise
        user = serializer.validated_data["user"]
        login_succeeded(request, user)
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


@extend_schema_view(
    get=extend_schema(
        parameters=[LANG_PARAMETER],
        responses={200: QuizProgressSerializer(many=True), **errors(400, 401, 404, 429)},
        operation_id="quizzes_list",
    )
)
class QuizListView(LanguageMixin, RenderedListMixin, generics.ListAPIView):
    """The quizzes the user may take, with their progress."""

    serializer_class = QuizProgressSerializer

    def get_queryset(self):
        return student_quizzes(user=self.request.user)


@extend_schema_view(
    get=extend_schema(
        parameters=[LANG_PARAMETER],
        responses={200: QuizDetailSerializer, **errors(400, 401, 403, 404, 429)},
        operation_id="quiz_retrieve",
    )
)
class QuizDetailView(LanguageMixin, generics.RetrieveAPIView):
    """A quiz's questions and choices, with ids; no hint of the right answers."""

    serializer_class = QuizDetailSerializer
    lookup_field = "slug"
    queryset = Quiz.objects.none()  # only for the schema (the slug's type): get_object reads the quiz

    def get_object(self):
        try:
            quiz, enrolled, _attempts = student_quiz_get(user=self.request.user, slug=self.kwargs["slug"])
        except Quiz.DoesNotExist:
            raise NotFound from None
        if not enrolled:
            raise ApiError(NOT_ENROLLED, code="not_enrolled", status_code=403)
        return quiz

    def retrieve(self, request, *args, **kwargs):
        # Three fixed statements in one message (quiz, enrollment, attempts); the questions and
        # choices come from the content cache, rendered once per snapshot and language (shared:
        # read-only): a class starting a quiz fetches it at once.
        quiz = self.get_object()
        content = quiz_content(quiz.pk)
        render = renderer(QuizDetailSerializer)
        questions = derived(
            content, "api-questions", translation.get_language(), lambda: render.nested("questions")(content.questions)
        )
        draws = [{"pool": pool, "count": count} for pool, count in content.pool_draws.items()]
        return Response(render(quiz, questions=questions, pool_draws=draws))


def _attempt_now(request, kwargs, body) -> dict:
    """A started attempt's recorded body as it stands now (a replay: its time left, its review)."""
    return attempt_rendered(request.user, body["id"])


def _answer_now(request, kwargs, body) -> dict:
    """An answer's recorded feedback as the review shows it now (a replay)."""
    answer = student_answer_get(
        user=request.user, attempt_id=kwargs["pk"], question_id=body["question"], now=timezone.now()
    )
    return renderer(AnswerFeedbackSerializer)(answer)


class AttemptStartView(LanguageMixin, APIView):
    """Start an attempt at the quiz (201), or resume the one in progress (200)."""

    @extend_schema(
        request=None,
        parameters=[LANG_PARAMETER, IDEMPOTENCY_PARAMETER],
        responses={
            201: OpenApiResponse(AttemptSerializer, description="A new attempt."),
            200: OpenApiResponse(AttemptSerializer, description="The attempt in progress, resumed."),
            **errors(400, 401, 403, 404, 409, 422, 429),
        },
        summary="Start or resume an attempt",
        operation_id="attempt_start",
    )
    @idempotent(current=_attempt_now)
    def post(self, request, slug):
        try:
            quiz = published_quiz_get(slug=slug)
        except Quiz.DoesNotExist:
            raise NotFound from None
        return _started(request.user, *attempt_start(user=request.user, quiz=quiz))


def _started(user, attempt, created: bool) -> Response:
    """A started attempt: 201 if new, else 200 (resumed)."""
    if created:  # its layout is the one just drawn, and it has no answer yet: nothing to read
        student_attempt_status_set(user=user, attempt=attempt, now=timezone.now())
        content = layout_content(attempt.quiz, [slot_key(slot) for slot in attempt.drawn_layout])
        return Response(_rendered(attempt, content, {}), status=201)
    return Response(attempt_rendered(user, attempt.pk), status=200)


class AttemptPracticeView(LanguageMixin, APIView):
    @extend_schema(
        request=None,
        parameters=[LANG_PARAMETER, IDEMPOTENCY_PARAMETER],
        responses={
            201: OpenApiResponse(AttemptSerializer, description="A new practice attempt of the questions missed."),
            200: OpenApiResponse(AttemptSerializer, description="The practice in progress at this quiz, resumed."),
            **errors(400, 401, 403, 404, 422, 429),
            409: OpenApiResponse(ErrorSerializer, description=PRACTICE_CONFLICT),
        },
        summary="Practise the questions a finished attempt missed",
        operation_id="attempt_practice",
        description=(
            "Starts (or resumes) a practice attempt with the questions this finished attempt answered wrong or "
            "left unanswered: no deadline, feedback at once, counted in no grade or progress."
        ),
    )
    @idempotent(current=_attempt_now)
    def post(self, request, pk):
        try:
            return _started(request.user, *practice_start(user=request.user, attempt_id=pk))
        except Attempt.DoesNotExist:
            raise NotFound from None


@extend_schema_view(
    get=extend_schema(
        parameters=[LANG_PARAMETER],
        responses={200: AttemptSerializer, **errors(400, 401, 404, 429)},
        operation_id="attempt_retrieve",
    )
)
class AttemptDetailView(LanguageMixin, APIView):
    """An attempt of the user's: its questions in its order, as they were shown, with the
    feedback of those already answered."""

    def get(self, request, pk):
        return Response(attempt_rendered(request.user, pk))


def attempt_rendered(user, pk) -> dict:
    """The attempt as AttemptSerializer renders it: one fixed statement (the attempt, its layout
    and its answers), the versions from the content cache. One past its deadline is finished
    first, and read again: finished, its review may show more."""
    try:
        attempt, content, answers = student_attempt_with_answers(user=user, attempt_id=pk)
        if attempt_finish_if_overdue(attempt=attempt) is not None:
            attempt, content, answers = student_attempt_with_answers(user=user, attempt_id=pk)
    except Attempt.DoesNotExist:
        raise NotFound from None
    return _rendered(attempt, content, answers)


def _rendered(attempt, content, answers) -> dict:
    render = renderer(AttemptSerializer)
    shown = shown_questions(content=content, answers=answers)
    return render(
        attempt,
        questions=render.nested("questions")(shown),
        answers=render.nested("answers")([item.answer for item in shown if item.answer is not None]),
    )


class AnswerCreateView(LanguageMixin, APIView):
    """Answer a question of the attempt. The first answer is final: the same choice again returns
    the recorded answer (200), another choice is refused (409 already_answered)."""

    @extend_schema(
        request=AnswerRequestSerializer,
        parameters=[LANG_PARAMETER, IDEMPOTENCY_PARAMETER],
        responses={
            201: OpenApiResponse(AnswerFeedbackSerializer, description="Recorded; the feedback."),
            200: OpenApiResponse(
                AnswerFeedbackSerializer, description="The same choice was recorded already (a retry); its feedback."
            ),
            **errors(400, 401, 403, 404, 409, 413, 415, 422, 429),
        },
        summary="Answer a question",
        operation_id="answer_create",
    )
    @idempotent(current=_answer_now)
    def post(self, request, pk):
        try:
            question_id, choice_id = answer_request_ids(request.data)
        except APIException:  # unreadable or invalid body
            _own_attempt(request.user, pk)  # someone else's attempt is a 404, whatever the body
            raise
        try:
            answer, created = attempt_answer_submit(
                user=request.user,
                attempt_id=pk,
                question_id=question_id,
                choice_id=choice_id,
                language=translation.get_language(),
            )
        except Attempt.DoesNotExist:  # the service's lock checks the owner: no read before it
            raise NotFound from None
        # The feedback (right choice, explanation) of the version answered, as shown now.
        feedback = answer_feedback(user=request.user, answer=answer, now=timezone.now())
        data = renderer(AnswerFeedbackSerializer)(feedback)
        return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class AttemptFinishView(LanguageMixin, APIView):
    """Grade and finish the attempt; finishing it again returns the same result."""

    @extend_schema(
        request=None,
        parameters=[LANG_PARAMETER, IDEMPOTENCY_PARAMETER],
        responses={200: AttemptResultSerializer, **errors(400, 401, 403, 404, 422, 429)},
        summary="Finish an attempt (repeating it returns the same result)",
        operation_id="attempt_finish",
    )
    @idempotent
    def post(self, request, pk):
        attempt = _own_attempt(request.user, pk)
        # An overdue attempt is finished the same way (attempt_finish_if_overdue would do no more).
        return Response(renderer(AttemptResultSerializer)(attempt_finish(attempt=attempt)))


@extend_schema_view(
    get=extend_schema(
        parameters=[LANG_PARAMETER],
        responses={200: CourseProgressSerializer(many=True), **errors(400, 401, 404, 429)},
        operation_id="progress_list",
    )
)
class ProgressView(LanguageMixin, RenderedListMixin, generics.ListAPIView):
    """Progress per course (quizzes passed of quizzes) and per quiz."""

    serializer_class = CourseProgressSerializer

    def get_queryset(self):
        return student_courses(user=self.request.user)


def _own_attempt(user, pk) -> Attempt:
    try:
        return student_attempt_get(user=user, attempt_id=pk)
    except Attempt.DoesNotExist:
        raise NotFound from None
