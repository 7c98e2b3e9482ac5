"""pylti1p3, as this tool uses it: registrations and deployments from django-lti's tables (an
unknown or inactive deployment is refused, never created), the signing key from ``keys``, the
nonce recorded at login and used up at launch (``nonces``), and the audience checked as OIDC
says (``aud`` holds the client id; with several audiences ``azp`` is it)."""

from urllib.parse import parse_qs, urlsplit

from lti_tool.models import LtiDeployment
from lti_tool.utils import DjangoToolConfig
from pylti1p3.contrib.django import DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.contrib.django.launch_data_storage.cache import DjangoCacheDataStorage
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException
from pylti1p3.launch_data_storage.base import LaunchDataStorage

from quizzes.integrations.lti.keys import signing_key
from quizzes.integrations.lti.nonces import nonce_issue

KEYSET_CACHE_SECONDS = 300
REGISTRATION_TEXT_MAX = 255  # LtiRegistration.issuer and .client_id, LtiDeployment.deployment_id


def _column_text(value) -> bool:
    """Whether ``value`` can be an issuer, client id or deployment id stored by django-lti: at login
    and launch they come from the request and from the id_token before its signature is checked,
    and PostgreSQL refuses a NUL in a text parameter (a DataError, a 500)."""
    return isinstance(value, str) and 0 < len(value) <= REGISTRATION_TEXT_MAX and "\x00" not in value


class ToolConfig(DjangoToolConfig):
    def find_registration_by_params(self, iss, client_id, *args, **kwargs):
        if not (_column_text(iss) and _column_text(client_id)):
            return None  # pylti1p3 refuses the login or launch: no registration
        registration = super().find_registration_by_params(iss, client_id, *args, **kwargs)
        if registration is not None and not self.registration.has_key:
            key = signing_key()
            registration.set_tool_private_key(key.private_key)
            registration.set_tool_public_key(key.public_key)
        return registration

    def find_deployment_by_params(self, iss, deployment_id, client_id, *args, **kwargs):
        if not _column_text(deployment_id):
            return None
        self.deployment = (
            LtiDeployment.objects.active()
            .filter(
                registration=self.registration,
                registration__is_active=True,
                deployment_id=deployment_id,
            )
            .select_related("registration")
            .first()
        )
        return None if self.deployment is None else Deployment().set_deployment_id(deployment_id)


class OIDCLogin(DjangoOIDCLogin):
    def _prepare_redirect_url(self, launch_url: str) -> str:
        url = super()._prepare_redirect_url(launch_url)
        params = parse_qs(urlsplit(url).query)
        nonce_issue(nonce=params["nonce"][0], state=params["state"][0])
        return url


class MessageLaunch(DjangoMessageLaunch):
    def validate_jwt_format(self):
        # pylti1p3 reads the (unverified) header and body as JSON objects and "aud" as a string or
        # a non-empty list: anything else would be an AttributeError or IndexError (a 500).
        super().validate_jwt_format()
        header, body = self._jwt["header"], self._jwt["body"]
        if not (isinstance(header, dict) and isinstance(body, dict)):
            raise LtiException("Invalid JWT format, header and body must be JSON objects")
        audiences = body.get("aud")
        if not (isinstance(audiences, str) or (isinstance(audiences, list) and audiences)):
            raise LtiException('"aud" must be a string or a non-empty list')
        return self

    def validate_nonce(self):
        # Only present here: it is used up (nonces.nonce_consume) once the whole token is valid.
        if not self._get_jwt_body().get("nonce"):
            raise LtiException('"nonce" is empty')
        return self

    def validate_registration(self):
        super().validate_registration()
        body = self._get_jwt_body()
        client_id = self._registration.get_client_id()
        audiences = body.get("aud") if isinstance(body.get("aud"), list) else [body.get("aud")]
        if client_id not in audiences:
            raise LtiException("Wrong audience")
        if (len(audiences) > 1 or "azp" in body) and body.get("azp") != client_id:
            raise LtiException("Wrong authorized party")
        return self

    def save_launch_data(self):
        # Nothing kept in pylti1p3's storage: what later pages need is in the session.
        return self


class _NoStorage(LaunchDataStorage):
    """pylti1p3's launch storage, unused: the nonce is in ``LtiNonce``, the state in its own
    cookie (checked by pylti1p3), the launch's data in the session. No process-local cache is
    relied upon, so that login and launch may reach different workers."""

    def get_session_cookie_name(self):
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key):
        return None

    def set_value(self, key, value, exp=None) -> None:
        pass

    def check_value(self, key) -> bool:
        return False


def oidc_login(request) -> OIDCLogin:
    return OIDCLogin(request, ToolConfig(), launch_data_storage=_NoStorage())


def message_launch(request) -> MessageLaunch:
    launch = MessageLaunch(request, ToolConfig(), launch_data_storage=_NoStorage())
    # The platform's JWKS (fetched by pylti1p3 with requests) is kept a while: a cache miss costs a fetch.
    launch.set_public_key_caching(DjangoCacheDataStorage(), cache_lifetime=KEYSET_CACHE_SECONDS)
    return launch
