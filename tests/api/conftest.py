"""API clients: anonymous, and authenticated by token as the shared fixtures' users."""

import pytest
from rest_framework.test import APIClient

from tests.api import TOKEN_URL
from tests.factories import DEFAULT_PASSWORD


def token_client(user) -> APIClient:
    """A client authenticated with a token obtained from the token endpoint."""
    client = APIClient()
    response = client.post(TOKEN_URL, {"username": user.username, "password": DEFAULT_PASSWORD}, format="json")
    assert response.status_code == 200, response.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def student_api(student) -> APIClient:
    return token_client(student)


@pytest.fixture
def other_api(other_student) -> APIClient:
    return token_client(other_student)


@pytest.fixture
def outsider_api(outsider) -> APIClient:
    return token_client(outsider)
