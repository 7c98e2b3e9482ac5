"""A client generated from the live schema by openapi-python-client, as an integrator makes one,
takes a quiz on a live server: every response, errors included, parsed into its generated model.

The client is generated once per session (offline: the generator's post-hooks are off,
scripts/openapi-client.yaml) and imported from a temporary directory.
"""

import importlib
import pkgutil
import subprocess
import sys
import uuid
from http import HTTPStatus
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from django.test.utils import modify_settings

from quizzes.models import Answer, Attempt, Choice
from tests.api import SCHEMA_URL
from tests.conftest import content_load
from tests.factories import DEFAULT_PASSWORD

PROJECT_DIR = Path(__file__).resolve().parents[2]
GENERATOR_CONFIG = PROJECT_DIR / "scripts" / "openapi-client.yaml"
PACKAGE = "lms_api_client"
SLUG = "gradient-checkpointing"


@pytest.fixture(scope="session")
def generated(django_db_setup, django_db_blocker, live_server, tmp_path_factory) -> SimpleNamespace:
    """The generated package's modules: ``models``, ``client``, ``errors`` and each operation's."""
    work = tmp_path_factory.mktemp("generated-client")
    # The live server's host is allowed during tests only (pytest-django), not session fixtures.
    with django_db_blocker.unblock(), modify_settings(ALLOWED_HOSTS={"append": httpx.URL(live_server.url).host}):
        response = httpx.get(f"{live_server.url}{SCHEMA_URL}", timeout=30)
    assert response.status_code == 200, response.text[:500]
    schema = work / "schema.yaml"
    schema.write_bytes(response.content)
    # The generator's console script sits beside this interpreter (same virtualenv).
    generator = Path(sys.executable).with_name("openapi-python-client")
    command = [str(generator), "generate", "--path", str(schema), "--config", str(GENERATOR_CONFIG)]
    command += ["--meta", "none", "--output-path", str(work / PACKAGE)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    # A schema the generator only partly understands still generates, with warnings.
    assert "warning" not in (result.stdout + result.stderr).lower(), result.stdout + result.stderr

    sys.path.insert(0, str(work))
    try:
        package = importlib.import_module(PACKAGE)
        # Every module imports (the token endpoint's did not: issue 22).
        names = [module.name for module in pkgutil.walk_packages(package.__path__, f"{PACKAGE}.")]
        modules = {name.rsplit(".", 1)[1]: importlib.import_module(name) for name in names}
        assert len(modules) == len(names), "two generated modules of one name"
        yield SimpleNamespace(package=package, **modules)
    finally:
        sys.path.remove(str(work))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


@pytest.fixture
def content(transactional_db, live_server):
    """The seed content, in the database the live server reads."""
    content_load()


@pytest.fixture
def anonymous(generated, live_server):
    # Closed after the test: a keep-alive connection still open when the live server stops
    # would close the server's shared SQLite connection from its request thread.
    with generated.package.Client(base_url=live_server.url, raise_on_unexpected_status=True) as client:
        yield client


@pytest.fixture
def sign_in(generated, anonymous, live_server):
    """Sign a user in: a generated AuthenticatedClient with the token the generated token call gave."""
    clients = []

    def sign_in(user):
        body = generated.models.TokenRequest(username=user.username, password=DEFAULT_PASSWORD)
        token = generated.token_create.sync(client=anonymous, body=body)
        assert isinstance(token, generated.models.Token), token
        client = generated.package.AuthenticatedClient(
            base_url=live_server.url, token=token.token, prefix="Token", raise_on_unexpected_status=True
        )
        clients.append(client.__enter__())
        return client

    yield sign_in
    for client in clients:
        client.__exit__(None, None, None)


def undocumented(value, generated) -> set[str]:
    """Properties of the responses that their models do not declare (kept as additional_properties)."""
    found = set()
    if isinstance(value, list):
        for item in value:
            found |= undocumented(item, generated)
    elif hasattr(value, "additional_properties") and not isinstance(value, generated.models.ErrorErrors):
        found |= {f"{type(value).__name__}.{key}" for key in value.additional_properties}
        for name in type(value).__attrs_attrs__:
            found |= undocumented(getattr(value, name.name), generated)
    return found


def parsed(response, status: int, model):
    """The parsed body of a ``sync_detailed`` response of that status, an instance of ``model``."""
    assert response.status_code == HTTPStatus(status), (response.status_code, response.content[:500])
    assert isinstance(response.parsed, model), response.parsed
    return response.parsed


def error(response, status: int, code: str, generated):
    body = parsed(response, status, generated.models.Error)
    assert body.code == code and body.detail, body
    return body


def test_the_generated_client_has_its_models_named_as_the_schema_means(generated):
    models = generated.models
    assert {"TokenRequest", "AnswerRequest", "Token", "Error", "Attempt", "LanguageEnum"} <= set(models.__all__)
    assert not [name for name in models.__all__ if "RequestRequest" in name or name.endswith("Lang")]
    # The token call takes one body type; its ids are integers.
    assert "body: TokenRequest," in Path(generated.token_create.__file__).read_text(encoding="utf-8")
    assert "    id: int," in Path(generated.answer_create.__file__).read_text(encoding="utf-8")


def test_a_generated_client_takes_a_quiz(generated, sign_in, content, student):
    models, g = generated.models, generated
    api = sign_in(student)

    quizzes = g.quizzes_list.sync(client=api)
    assert isinstance(quizzes, models.PaginatedQuizProgressList)
    listed = {quiz.slug: quiz for quiz in quizzes.results}
    assert listed[SLUG].attempts_used == 0 and listed[SLUG].in_progress_attempt is None

    quiz = g.quiz_retrieve.sync(client=api, slug=SLUG, lang=models.LanguageEnum.SN)
    assert isinstance(quiz, models.QuizDetail) and quiz.questions
    assert models.LanguageEnum.SN in {question.text_language for question in quiz.questions}

    started = parsed(
        g.attempt_start.sync_detailed(client=api, slug=SLUG, idempotency_key=str(uuid.uuid4())), 201, models.Attempt
    )
    resumed = parsed(g.attempt_start.sync_detailed(client=api, slug=SLUG), 200, models.Attempt)
    assert resumed.id == started.id and started.state == models.StateEnum.IN_PROGRESS
    first, second = started.questions[0], started.questions[1]
    right = Choice.objects.get(question_id=first.id, is_correct=True)
    wrong = Choice.objects.filter(question_id=second.id, is_correct=False).first()

    key = str(uuid.uuid4())
    body = models.AnswerRequest(question=first.id, choice=right.id)
    feedback = parsed(
        g.answer_create.sync_detailed(client=api, id=started.id, body=body, idempotency_key=key),
        201,
        models.AnswerFeedback,
    )
    assert feedback.correct is True and feedback.correct_choice == right.id and feedback.explanation
    replay = g.answer_create.sync_detailed(client=api, id=started.id, body=body, idempotency_key=key)
    assert parsed(replay, 201, models.AnswerFeedback).choice == right.id
    assert replay.headers["Idempotent-Replayed"] == "true"
    same = g.answer_create.sync_detailed(client=api, id=started.id, body=body)
    assert parsed(same, 200, models.AnswerFeedback).choice == right.id

    body = models.AnswerRequest(question=second.id, choice=wrong.id)
    feedback = parsed(
        g.answer_create.sync_detailed(client=api, id=started.id, body=body, lang=models.LanguageEnum.UR),
        201,
        models.AnswerFeedback,
    )
    assert feedback.correct is False and feedback.correct_choice != wrong.id
    assert feedback.language == models.LanguageEnum.UR

    attempt = g.attempt_retrieve.sync(client=api, id=started.id)
    assert isinstance(attempt, models.Attempt) and len(attempt.answers) == 2
    assert attempt.questions[0].feedback.correct is True
    assert not undocumented([quizzes, quiz, started, attempt, feedback], g)

    result = parsed(g.attempt_finish.sync_detailed(client=api, id=started.id), 200, models.AttemptResult)
    assert (result.score, result.max_score) == (1, len(started.questions))
    assert g.attempt_finish.sync(client=api, id=started.id).to_dict() == result.to_dict()

    progress = g.progress_list.sync(client=api)
    assert isinstance(progress, models.PaginatedCourseProgressList)
    (course,) = progress.results
    quiz_progress = {quiz.slug: quiz for quiz in course.quizzes}[SLUG]
    assert quiz_progress.attempts_used == 1 and quiz_progress.best_percent == result.percent
    assert not undocumented([result, progress], g)
    assert Answer.objects.filter(attempt_id=started.id).count() == 2


def test_a_generated_client_parses_every_error(
    generated, anonymous, sign_in, content, student, other_student, outsider
):
    models, g = generated.models, generated
    api = sign_in(student)

    refused = g.token_create.sync_detailed(
        client=anonymous, body=models.TokenRequest(username=student.username, password="not the password")
    )
    assert error(refused, 400, "invalid", g).errors.additional_properties
    error(g.quizzes_list.sync_detailed(client=anonymous), 401, "not_authenticated", g)
    outsiders = sign_in(outsider)
    error(g.quiz_retrieve.sync_detailed(client=outsiders, slug=SLUG), 403, "not_enrolled", g)
    error(g.quiz_retrieve.sync_detailed(client=api, slug="no-such-quiz"), 404, "not_found", g)

    attempt = g.attempt_start.sync(client=api, slug=SLUG)
    first, second = attempt.questions[0], attempt.questions[1]
    chosen, other = Choice.objects.filter(question_id=first.id).order_by("position")[:2]
    assert (
        g.answer_create.sync_detailed(
            client=api, id=attempt.id, body=models.AnswerRequest(question=first.id, choice=chosen.id)
        ).status_code
        == 201
    )

    again = g.answer_create.sync_detailed(
        client=api, id=attempt.id, body=models.AnswerRequest(question=first.id, choice=other.id)
    )
    error(again, 409, "already_answered", g)
    of_another = Choice.objects.filter(question_id=first.id).first()
    mismatched = models.AnswerRequest(question=second.id, choice=of_another.id)
    error(g.answer_create.sync_detailed(client=api, id=attempt.id, body=mismatched), 400, "choice_not_in_question", g)
    key = str(uuid.uuid4())
    g.attempt_finish.sync_detailed(client=api, id=attempt.id, idempotency_key=key)
    reused = g.attempt_start.sync_detailed(client=api, slug=SLUG, idempotency_key=key)
    error(reused, 422, "idempotency_key_reused", g)
    error(g.answer_create.sync_detailed(client=api, id=attempt.id, body=mismatched), 409, "attempt_finished", g)

    others = sign_in(other_student)
    theirs = g.attempt_start.sync(client=others, slug=SLUG)
    unknown = Attempt.objects.order_by("-pk").first().pk + 1000
    for attempt_id in (theirs.id, unknown):
        error(g.attempt_retrieve.sync_detailed(client=api, id=attempt_id), 404, "not_found", g)
        error(g.attempt_finish.sync_detailed(client=api, id=attempt_id), 404, "not_found", g)
        body = models.AnswerRequest(question=first.id, choice=chosen.id)
        error(g.answer_create.sync_detailed(client=api, id=attempt_id, body=body), 404, "not_found", g)
    assert not Answer.objects.filter(attempt_id=theirs.id).exists()
