"""Calling an LTI platform's services (Assignment and Grade Services, Names and Role
Provisioning): an OAuth 2 access token per registration and scope, and the requests themselves.

The token is got by the client-credentials grant with a JWT client assertion signed by the
tool's key (RFC 7523, as the LTI security framework says) and kept in Django's cache until
shortly before it expires, so every ``send_outbox`` process and worker shares it. Requests
go out with a timeout: they run in ``send_outbox`` and in staff actions, never in a
student's request.

Plain requests and PyJWT rather than pylti1p3's ``ServiceConnector``: that one keeps tokens
in the instance only (one token request per batch), ignores ``expires_in``, has no timeouts,
cannot forget a token the platform stopped taking, and lowercases the next page's URL.
"""

import hashlib
import time
import uuid
from dataclasses import dataclass

import jwt
import requests
from django.core.cache import cache
from jwcrypto.jwk import JWK
from lti_tool.models import LtiRegistration

from quizzes.integrations.lti import keys

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
MEMBERSHIPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
TIMEOUT = 10  # seconds, to connect and between two bytes of the answer
# A token is used until this long before it expires, so that none expires on its way.
EXPIRY_MARGIN = 60
ASSERTION_LIFETIME = 300
USER_AGENT = "lms-lti-tool"


class ServiceError(Exception):
    """A platform's service did not do what was asked. ``retry``: it may later (it is down,
    busy or slow); otherwise it refused, and will again."""

    def __init__(self, message: str, *, retry: bool, status: int | None = None):
        super().__init__(message)
        self.retry = retry
        self.status = status


@dataclass(frozen=True)
class SigningKey:
    private_pem: str
    kid: str


def signing_key(registration: LtiRegistration) -> SigningKey:
    """The key the tool signs with for this platform: the registration's own, or else the
    key of the tool's JWKS that signs its launches' messages."""
    if registration.has_key:
        kid = JWK.from_pem(registration.public_key.encode()).thumbprint()
        return SigningKey(private_pem=registration.private_key, kid=kid)
    # The tool's key a platform caching our JWKS knows already (keys.signing_key), as a launch's.
    key = keys.signing_key()
    if key is None:
        raise ServiceError("the tool has no active key to sign with", retry=False)
    return SigningKey(private_pem=key.private_key, kid=key.as_jwk()["kid"])


def client_assertion(registration: LtiRegistration) -> str:
    key = signing_key(registration)
    now = int(time.time())
    claims = {
        "iss": registration.client_id,
        "sub": registration.client_id,
        "aud": registration.audience or registration.token_url,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME,
        "jti": str(uuid.uuid4()),
    }
    return jwt.encode(claims, key.private_pem, algorithm="RS256", headers={"kid": key.kid})


def _token_cache_key(registration: LtiRegistration, scope: str) -> str:
    return f"lti:token:{registration.pk}:{hashlib.sha256(scope.encode()).hexdigest()[:16]}"


def access_token(registration: LtiRegistration, scope: str) -> str:
    """A bearer token for ``scope`` at this registration's platform, from the cache or new."""
    cache_key = _token_cache_key(registration, scope)
    token = cache.get(cache_key)
    if token:
        return token
    data = {
        "grant_type": "client_credentials",
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": client_assertion(registration),
        "scope": scope,
    }
    response = _send("POST", registration.token_url, data=data, headers={"Accept": "application/json"})
    _raise_for_status(response, "token")
    try:
        body = response.json()
        token, expires_in = body["access_token"], int(body.get("expires_in", 3600))
    except (ValueError, KeyError, TypeError):
        raise ServiceError(f"token: an answer without an access token: {response.text[:500]}", retry=True) from None
    if expires_in > EXPIRY_MARGIN:
        cache.set(cache_key, token, expires_in - EXPIRY_MARGIN)
    return token


def access_token_forget(registration: LtiRegistration, scope: str) -> None:
    """Drop the cached token (the platform answered 401 to it): the next call gets a new one."""
    cache.delete(_token_cache_key(registration, scope))


def service_request(
    registration: LtiRegistration, scope: str, method: str, url: str, *, json_body=None, content_type=None, accept
) -> requests.Response:
    """One request to a platform's service with a token for ``scope``; ``ServiceError`` unless
    it answered 2xx. A 401 drops the token, and is worth a retry with a new one."""
    headers = {"Authorization": f"Bearer {access_token(registration, scope)}", "Accept": accept}
    if content_type:
        headers["Content-Type"] = content_type
    response = _send(method, url, json=json_body, headers=headers)
    if response.status_code == 401:
        access_token_forget(registration, scope)
    _raise_for_status(response, method)
    return response


def _send(method: str, url: str, **kwargs) -> requests.Response:
    kwargs["headers"] = {"User-Agent": USER_AGENT, **kwargs.get("headers", {})}
    try:
        return requests.request(method, url, timeout=TIMEOUT, allow_redirects=False, **kwargs)
    except requests.RequestException as error:
        raise ServiceError(f"{method} {url}: {type(error).__name__}: {error}", retry=True) from None


def _raise_for_status(response: requests.Response, what: str) -> None:
    status = response.status_code
    if 200 <= status < 300:
        return
    # Down, busy, or a token to renew: later. Any other refusal will be the same next time.
    retry = status >= 500 or status in (401, 408, 429)
    message = f"{what} {response.url}: {status} {response.reason}: {response.text[:1000]}"
    raise ServiceError(message, retry=retry, status=status)
