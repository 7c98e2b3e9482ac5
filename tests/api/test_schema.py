"""The OpenAPI schema and the offline interactive docs."""

import re

import pytest
import yaml
from django.core.management import call_command

from quizzes.api.views import LanguageMixin
from tests.api import DOCS_URL, SCHEMA_URL

PATHS = {
    "/api/v1/auth/token/": {"post"},
    "/api/v1/quizzes/": {"get"},
    "/api/v1/quizzes/{slug}/": {"get"},
    "/api/v1/quizzes/{slug}/attempts/": {"post"},
    "/api/v1/attempts/{id}/": {"get"},
    "/api/v1/attempts/{id}/answers/": {"post"},
    "/api/v1/attempts/{id}/finish/": {"post"},
    "/api/v1/attempts/{id}/practice/": {"post"},
    "/api/v1/progress/": {"get"},
}


@pytest.fixture
def schema(anon, db) -> dict:
    response = anon.get(SCHEMA_URL, {"format": "json"})
    assert response.status_code == 200
    return response.json()


def test_schema_is_yaml_by_default(anon, db):
    response = anon.get(SCHEMA_URL)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi")
    document = yaml.safe_load(response.content)
    assert document["openapi"].startswith("3.")
    assert set(document["paths"]) == set(PATHS)


@pytest.mark.parametrize(
    "request_kwargs",
    [{"HTTP_ACCEPT": "application/json"}, {"data": {"format": "json"}}],
    ids=["accept", "format"],
)
def test_schema_as_json(student_api, request_kwargs):
    response = student_api.get(SCHEMA_URL, **request_kwargs)

    assert response.status_code == 200
    assert "json" in response["Content-Type"]
    assert response.json()["openapi"].startswith("3.")


def test_schema_lists_every_path_and_method(schema):
    assert schema["info"]["title"] == "Quizzes API"
    assert {path: set(operations) - {"parameters"} for path, operations in schema["paths"].items()} == PATHS


def test_schema_documents_token_auth(schema):
    schemes = schema["components"]["securitySchemes"]
    assert schemes["tokenAuth"] == schemes["tokenAuth"] | {"type": "apiKey", "in": "header", "name": "Authorization"}
    token_operation = schema["paths"]["/api/v1/auth/token/"]["post"]
    assert token_operation.get("security", []) in ([], [{}])  # no credentials needed
    assert "security" not in schema  # nor globally
    assert {"tokenAuth": []} in schema["paths"]["/api/v1/quizzes/"]["get"]["security"]


def test_schema_documents_the_lang_parameter_everywhere(schema):
    for path, operations in schema["paths"].items():
        if path == "/api/v1/auth/token/":
            continue
        for operation in operations.values():
            lang = [p for p in operation.get("parameters", []) if p["name"] == "lang"]
            assert len(lang) == 1, path
            assert lang[0]["in"] == "query"


def test_schema_documents_errors(schema):
    answers = schema["paths"]["/api/v1/attempts/{id}/answers/"]["post"]["responses"]
    assert {"200", "201", "400", "401", "404", "409"} <= set(answers)
    assert answers["409"]["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/Error"
    assert {"detail", "code"} <= set(schema["components"]["schemas"]["Error"]["required"])
    start = schema["paths"]["/api/v1/quizzes/{slug}/attempts/"]["post"]["responses"]
    assert {"200", "201", "403", "404", "409"} <= set(start)


OPERATION_IDS = {
    ("/api/v1/auth/token/", "post"): "token_create",
    ("/api/v1/quizzes/", "get"): "quizzes_list",
    ("/api/v1/quizzes/{slug}/", "get"): "quiz_retrieve",
    ("/api/v1/quizzes/{slug}/attempts/", "post"): "attempt_start",
    ("/api/v1/attempts/{id}/", "get"): "attempt_retrieve",
    ("/api/v1/attempts/{id}/answers/", "post"): "answer_create",
    ("/api/v1/attempts/{id}/finish/", "post"): "attempt_finish",
    ("/api/v1/attempts/{id}/practice/", "post"): "attempt_practice",
    ("/api/v1/progress/", "get"): "progress_list",
}


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            if method != "parameters":
                yield path, method, operation


def test_schema_names_each_operation_for_generated_clients(schema):
    """Generated clients name their functions by operationId: fixed here, not derived from the URLs."""
    assert {(path, method): operation["operationId"] for path, method, operation in operations(schema)} == (
        OPERATION_IDS
    )
    for path, _method, operation in operations(schema):
        assert operation["description"] != LanguageMixin.__doc__, path  # the view's own, not the mixin's


def test_schema_component_names_have_no_doubled_request(schema):
    components = set(schema["components"]["schemas"])
    assert {"TokenRequest", "AnswerRequest", "Token", "Error"} <= components
    assert not {name for name in components if "RequestRequest" in name}
    answer = schema["paths"]["/api/v1/attempts/{id}/answers/"]["post"]["requestBody"]
    assert answer["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/AnswerRequest"


def test_schema_token_body_is_json_only(schema):
    """One body type: three media types of one model become a union that generated clients can't
    import (issue 22). Form posts are still accepted (tests/api/test_auth.py), undocumented."""
    body = schema["paths"]["/api/v1/auth/token/"]["post"]["requestBody"]
    assert body["content"] == {"application/json": {"schema": {"$ref": "#/components/schemas/TokenRequest"}}}
    assert body["required"] is True


def test_schema_parameters_reference_their_enums(schema):
    """The languages are one enum (LanguageEnum), not one inline enum per operation; ids are integers."""
    for path, _method, operation in operations(schema):
        for parameter in operation.get("parameters", []):
            assert "enum" not in parameter["schema"], (path, parameter["name"])
            if parameter["name"] == "lang":
                assert parameter["schema"] == {"$ref": "#/components/schemas/LanguageEnum"}
            if parameter["name"] == "id":
                assert parameter["schema"] == {"type": "integer", "minimum": 1, "maximum": 10**18 - 1}
    assert set(schema["components"]["schemas"]["LanguageEnum"]["enum"]) == {"en", "ur", "sn", "id"}


def test_schema_documents_the_error_body_of_every_error(schema):
    """Every 4xx a client can meet is a documented Error, so that generated clients parse it."""
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, _method, operation in operations(schema):
        responses = operation["responses"]
        expected = {"400", "429"} if path == "/api/v1/auth/token/" else {"400", "401", "404", "429"}
        assert expected <= set(responses), path
        for status, response in responses.items():
            if status.startswith("4"):
                assert response["content"] == error, (path, status)
    for path in ("/api/v1/quizzes/{slug}/", "/api/v1/quizzes/{slug}/attempts/", "/api/v1/attempts/{id}/answers/"):
        assert "403" in next(iter(schema["paths"][path].values()))["responses"], path
    for path in (
        "/api/v1/quizzes/{slug}/attempts/",
        "/api/v1/attempts/{id}/answers/",
        "/api/v1/attempts/{id}/practice/",
    ):
        assert "409" in schema["paths"][path]["post"]["responses"], path


def test_schema_answer_request_is_two_integer_ids(schema):
    request = schema["paths"]["/api/v1/attempts/{id}/answers/"]["post"]["requestBody"]
    ref = request["content"]["application/json"]["schema"]["$ref"]
    body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert set(body["properties"]) == {"question", "choice"}
    assert set(body["required"]) == {"question", "choice"}
    for field in body["properties"].values():
        assert field["type"] == "integer"
        assert field["minimum"] == 1


def test_schema_of_quiz_content_has_no_correct_or_explanation(schema):
    components = schema["components"]["schemas"]
    for name in ("QuizDetail", "Question", "Choice", "QuizProgress", "CourseProgress"):
        properties = set(components[name]["properties"])
        assert not {p for p in properties if "correct" in p or "explanation" in p}, name


def test_schema_documents_the_teachers_settings(schema):
    components = schema["components"]["schemas"]
    attempt = components["Attempt"]["properties"]
    for name in ("deadline", "time_left"):
        assert attempt[name]["nullable"] is True and attempt[name]["description"], name
    assert attempt["time_left"]["type"] == "integer"
    assert {"is_practice", "feedback_timing", "show_right_answer", "feedback_shown"} <= set(attempt)
    assert "is_practice" in components["AttemptResult"]["properties"]
    quiz = components["QuizDetail"]["properties"]
    for name in ("opens_at", "closes_at", "time_limit", "attempts_left"):
        assert quiz[name]["nullable"] is True and quiz[name]["description"], name
    assert quiz["time_limit"]["type"] == "integer"
    assert {"max_attempts", "is_open", "feedback_timing", "show_right_answer"} <= set(quiz)
    timings = components["FeedbackTimingEnum"]["enum"]
    assert set(timings) == {"immediately", "after_attempt", "after_close", "never"}
    feedback = components["AnswerFeedback"]["properties"]
    for name in ("correct", "correct_choice", "regraded", "explanation", "explanation_language"):
        assert feedback[name]["nullable"] is True and "null" in feedback[name]["description"].lower(), name


def test_schema_documents_the_settings_error_codes(schema):
    start = schema["paths"]["/api/v1/quizzes/{slug}/attempts/"]["post"]["responses"]
    assert {"quiz_not_open", "quiz_closed"} <= set(re.findall(r"[a-z_]+", start["403"]["description"]))
    answers = schema["paths"]["/api/v1/attempts/{id}/answers/"]["post"]["responses"]
    assert "deadline_passed" in answers["409"]["description"]
    practice = schema["paths"]["/api/v1/attempts/{id}/practice/"]["post"]
    assert {"200", "201", "403", "404", "409"} <= set(practice["responses"])
    for code in ("attempt_not_finished", "review_not_available", "nothing_to_practise"):
        assert code in practice["responses"]["409"]["description"], code
    assert practice["responses"]["409"]["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/Error"
    assert any(parameter["name"] == "Idempotency-Key" for parameter in practice["parameters"])


def test_spectacular_validates_without_warnings(db, tmp_path, capsys):
    target = tmp_path / "schema.yaml"

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))

    captured = capsys.readouterr()
    assert "warning" not in (captured.out + captured.err).lower()
    assert "error" not in (captured.out + captured.err).lower()
    document = yaml.safe_load(target.read_text(encoding="utf-8"))
    assert set(document["paths"]) == set(PATHS)


def test_docs_are_served_offline(anon, db):
    response = anon.get(DOCS_URL)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    for remote in ("cdn", "jsdelivr", "unpkg", "cdnjs", "googleapis"):
        assert remote not in html.lower(), remote
    script_url = re.search(r'<script src="([^"]*[?&]script=[^"]*)"', html).group(1)
    assert SCHEMA_URL in anon.get(script_url.replace("&amp;", "&")).content.decode()


def test_docs_assets_are_local_and_served(anon, db):
    html = anon.get(DOCS_URL).content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)

    assert assets
    for asset in assets:
        assert asset.startswith("/"), asset
        assert not asset.startswith("//"), asset
        assert anon.get(asset).status_code == 200, asset
