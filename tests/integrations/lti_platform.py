"""A loopback LTI 1.3 platform for the tests, on PyJWT and cryptography: its RSA key, its JWKS
served on a free loopback port (pylti1p3 fetches it with requests), the OIDC authorization
step of a launch (it takes the tool's login redirect, checks it, and signs the id_token that
its auto-post form would send) and the reading of the tool's deep linking response (checked
against the tool's JWKS)."""

import io
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings
from django.core.management import call_command

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


class _JwksHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps(self.server.jwks).encode()
        self.send_response(200 if self.path == "/jwks.json" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class LoopbackPlatform:
    client_id = "tool-client-1"
    deployment_id = "deployment-1"

    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = uuid.uuid4().hex
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _JwksHandler)
        self.server.jwks = {"keys": [{**jwk, "kid": self.kid, "alg": "RS256", "use": "sig"}]}
        self.issuer = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    @property
    def keyset_url(self):
        return f"{self.issuer}/jwks.json"

    @property
    def auth_url(self):
        return f"{self.issuer}/auth"

    @property
    def token_url(self):
        return f"{self.issuer}/token"

    def register(self, course_slug: str, *, token_url: str | None = None, **extra) -> None:
        """Register this platform with the tool (``token_url``: where its services answer, when
        they run apart from it)."""
        call_command(
            "lti_register",
            issuer=self.issuer,
            client_id=self.client_id,
            deployment_id=self.deployment_id,
            keyset_url=self.keyset_url,
            auth_url=self.auth_url,
            token_url=token_url or self.token_url,
            course=course_slug,
            stdout=io.StringIO(),
            **extra,
        )

    # The launch -------------------------------------------------------------------------

    def login(self, client, *, method="post", **params):
        """The platform's third-party login initiation: the tool's answer (a redirect)."""
        data = {
            "iss": self.issuer,
            "login_hint": "hint-1",
            "target_link_uri": settings.LMS_SITE_URL + "/lti/launch/",
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment_id,
            **params,
        }
        return getattr(client, method)("/lti/login/", data)

    def authorize(self, location: str) -> dict:
        """The OIDC authorization request the tool redirected to, checked as a platform does;
        the parameters it asks to be posted back (state, nonce)."""
        url = urlsplit(location)
        assert f"{url.scheme}://{url.netloc}{url.path}" == self.auth_url
        query = {name: values[0] for name, values in parse_qs(url.query).items()}
        assert query["redirect_uri"] == settings.LMS_SITE_URL + "/lti/launch/"
        assert query["client_id"] == self.client_id
        assert (query["scope"], query["response_type"], query["response_mode"], query["prompt"]) == (
            "openid",
            "id_token",
            "form_post",
            "none",
        )
        assert query["login_hint"] == "hint-1" and query["state"] and query["nonce"]
        return query

    def claims(self, nonce: str, *, sub="student-1", roles=(LEARNER,), quiz=None, locale="en", **overrides) -> dict:
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": [self.client_id],
            "azp": self.client_id,
            "sub": sub,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "given_name": "Tendai",
            "family_name": "Moyo",
            "name": "Tendai Moyo",
            "email": f"{sub}@platform.example",
            LTI + "deployment_id": self.deployment_id,
            LTI + "message_type": "LtiResourceLinkRequest",
            LTI + "version": "1.3.0",
            LTI + "target_link_uri": settings.LMS_SITE_URL + "/lti/launch/",
            LTI + "roles": list(roles),
            LTI + "context": {"id": "course-7", "title": "Memory 101", "type": ["CourseOffering"]},
            LTI + "resource_link": {"id": "link-1", "title": "Checkpointing quiz"},
            LTI + "launch_presentation": {"locale": locale, "document_target": "iframe"},
            LTI + "custom": {"quiz": quiz} if quiz else {},
            AGS_CLAIM: {
                "scope": [
                    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
                ],
                "lineitems": f"{self.issuer}/courses/course-7/lineitems",
                "lineitem": f"{self.issuer}/courses/course-7/lineitems/1",
            },
            NRPS_CLAIM: {
                "context_memberships_url": f"{self.issuer}/courses/course-7/memberships",
                "service_versions": ["2.0"],
            },
        }
        claims.update(overrides)
        return {name: value for name, value in claims.items() if value is not None}

    def deep_linking_claims(self, nonce: str, **overrides) -> dict:
        claims = self.claims(nonce, roles=(INSTRUCTOR,), **overrides)
        del claims[LTI + "resource_link"], claims[AGS_CLAIM]
        claims[LTI + "message_type"] = "LtiDeepLinkingRequest"
        claims[DL + "deep_linking_settings"] = {
            "deep_link_return_url": f"{self.issuer}/deep-link-return",
            "accept_types": ["ltiResourceLink"],
            "accept_presentation_document_targets": ["iframe", "window"],
            "data": "opaque-platform-data",
        }
        return claims

    def sign(self, claims: dict, *, key=None) -> str:
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": self.kid})

    def launch(self, client, *, claims=None, tamper=None, **claim_options):
        """Login, authorization and the auto-posted id_token: the tool's answer to the post,
        with what was posted (to post it again)."""
        login = self.login(client)
        assert login.status_code == 302, login.content
        query = self.authorize(login["Location"])
        body = claims(query["nonce"]) if callable(claims) else self.claims(query["nonce"], **claim_options)
        id_token = self.sign(body)
        if tamper is not None:
            id_token = tamper(id_token)
        form = {"id_token": id_token, "state": query["state"]}
        return client.post("/lti/launch/", form), form

    # Deep linking ---------------------------------------------------------------------------

    def read_deep_link_response(self, token: str, tool_jwks: dict) -> dict:
        header = jwt.get_unverified_header(token)
        jwk = next(key for key in tool_jwks["keys"] if key["kid"] == header["kid"])
        public_key = jwt.algorithms.RSAAlgorithm.from_jwk(json.dumps(jwk))
        return jwt.decode(token, public_key, algorithms=["RS256"], audience=self.issuer, issuer=self.client_id)
