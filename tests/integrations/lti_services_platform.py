"""A loopback LTI platform's service side: its OAuth 2 token endpoint, a line item's score
endpoint and a context's memberships (Assignment and Grade Services, Names and Role
Provisioning), on a threaded ``http.server`` on a free loopback port.

The token endpoint checks the client assertion as a platform does: signed (RS256) by a key of
the tool's JWKS (given to it, as a platform reads the tool's keyset URL), issued by and about
the client id, for this token URL, and asks only for scopes it grants. Tests read what was
posted (``scores``), make it answer an error (``score_status``), forget its tokens
(``revoke_tokens``: 401 to the next call) or stop listening altogether (``down`` / ``up``).
"""

import json
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt

from quizzes.integrations.lti.tokens import MEMBERSHIPS_SCOPE, SCORE_SCOPE

CLIENT_ID = "tool-client-1"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"


@dataclass
class Request:
    method: str
    path: str
    query: dict
    headers: dict
    body: object


@dataclass
class PlatformState:
    jwks: dict = field(default_factory=lambda: {"keys": []})
    tokens: dict[str, str] = field(default_factory=dict)  # token -> scope
    token_requests: list[Request] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)  # every request to a service
    scores: list[Request] = field(default_factory=list)  # score posts taken
    score_status: int = 200
    score_error_body: str = '{"errors": {"type": "bad_request", "message": "userId unknown"}}'
    members_pages: list[list[dict]] = field(default_factory=list)
    members_status: int = 200  # the answer from page members_failing_from on
    members_failing_from: int = 1
    expires_in: int = 3600


class ServicesPlatform:
    """Start it, point a registration's ``token_url`` at ``token_url`` and line items at
    ``line_item_url(...)``; ``stop()`` at the end."""

    def __init__(self):
        self.state = PlatformState()
        self._server = None
        self._thread = None
        self.port = None

    # Addresses ----------------------------------------------------------------------------
    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def token_url(self) -> str:
        return f"{self.base}/token"

    def line_item_url(self, number: int, query: str = "") -> str:
        return f"{self.base}/lineitems/{number}/lineitem" + (f"?{query}" if query else "")

    @property
    def memberships_url(self) -> str:
        return f"{self.base}/contexts/c-1/memberships"

    # Running ------------------------------------------------------------------------------
    def start(self, port: int = 0) -> "ServicesPlatform":
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join()
            self._server = None

    def down(self) -> None:
        """Stop listening: connections to it are refused."""
        self.stop()

    def up(self) -> None:
        """Listen again, on the same port."""
        self.start(self.port)

    def reset(self, jwks: dict) -> None:
        self.state = PlatformState(jwks=jwks)

    def revoke_tokens(self) -> None:
        self.state.tokens.clear()

    # Handling -----------------------------------------------------------------------------
    def token(self, request: Request) -> tuple[int, dict]:
        self.state.token_requests.append(request)
        form = request.body
        if form.get("grant_type") != "client_credentials" or form.get("client_assertion_type") != (
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        ):
            return 400, {"error": "unsupported_grant_type"}
        try:
            assertion = form["client_assertion"]
            kid = jwt.get_unverified_header(assertion).get("kid")
            key = jwt.PyJWKSet.from_dict(self.state.jwks)[kid]
            claims = jwt.decode(
                assertion,
                key.key,
                algorithms=["RS256"],
                audience=self.token_url,
                issuer=CLIENT_ID,
                options={"require": ["iss", "sub", "aud", "iat", "exp", "jti"]},
            )
        except (KeyError, jwt.PyJWTError) as error:
            return 401, {"error": "invalid_client", "error_description": str(error)}
        if claims["sub"] != CLIENT_ID:
            return 401, {"error": "invalid_client"}
        scopes = set(form.get("scope", "").split())
        if not scopes or not scopes <= {SCORE_SCOPE, MEMBERSHIPS_SCOPE}:
            return 400, {"error": "invalid_scope"}
        token = secrets.token_urlsafe(16)
        self.state.tokens[token] = form["scope"]
        return 200, {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": self.state.expires_in,
            "scope": form["scope"],
        }

    def authorized(self, request: Request, scope: str) -> bool:
        auth = request.headers.get("authorization", "")
        return auth.startswith("Bearer ") and scope in self.state.tokens.get(auth[7:], "").split()

    def score(self, request: Request) -> tuple[int, object]:
        if not self.authorized(request, SCORE_SCOPE):
            return 401, {"error": "invalid_token"}
        if request.headers.get("content-type") != SCORE_TYPE:
            return 415, {"error": "unsupported media type"}
        if self.state.score_status != 200:
            return self.state.score_status, self.state.score_error_body
        self.state.scores.append(request)
        return 200, None

    def members(self, request: Request) -> tuple[int, object, dict]:
        if not self.authorized(request, MEMBERSHIPS_SCOPE):
            return 401, {"error": "invalid_token"}, {}
        pages = self.state.members_pages
        page = int(request.query.get("page", ["1"])[0])
        if self.state.members_status != 200 and page >= self.state.members_failing_from:
            return self.state.members_status, "platform trouble", {}
        headers = {"Content-Type": MEMBERSHIPS_TYPE}
        if page < len(pages):
            # Mixed case on purpose: the URL must be followed as given.
            headers["Link"] = f'<{self.memberships_url}?page={page + 1}&Rlid=AbC>; rel="next"'
        body = {"id": self.memberships_url, "context": {"id": "c-1"}, "members": pages[page - 1] if pages else []}
        return 200, body, headers


def _handler(platform: ServicesPlatform):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _request(self) -> Request:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode() if length else ""
            content_type = self.headers.get("Content-Type", "")
            if content_type.startswith("application/x-www-form-urlencoded"):
                body = {k: v[0] for k, v in parse_qs(raw).items()}
            else:
                body = json.loads(raw) if raw else None
            headers = {k.lower(): v for k, v in self.headers.items()}
            return Request(self.command, parts.path, parse_qs(parts.query), headers, body)

        def _answer(self, status: int, body, headers: dict | None = None):
            data = body.encode() if isinstance(body, str) else (b"" if body is None else json.dumps(body).encode())
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            request = self._request()
            if request.path == "/token":
                return self._answer(*platform.token(request))
            platform.state.requests.append(request)
            if request.path.startswith("/lineitems/") and request.path.endswith("/lineitem/scores"):
                return self._answer(*platform.score(request))
            return self._answer(404, {"error": "not found"})

        def do_GET(self):
            request = self._request()
            platform.state.requests.append(request)
            if request.path == urlsplit(platform.memberships_url).path:
                return self._answer(*platform.members(request))
            return self._answer(404, {"error": "not found"})

    return Handler
