"""An LTI platform's services on loopback, and the tool registered with it."""

import pytest
from django.core.cache import cache

from tests.integrations.lti_services_platform import CLIENT_ID, ServicesPlatform


@pytest.fixture(scope="module")
def services_platform():
    platform = ServicesPlatform().start()
    yield platform
    platform.stop()


@pytest.fixture
def platform(services_platform, db):
    """The platform, forgetting what earlier tests did, trusting the tool's JWKS."""
    from lti_tool.models import Key

    Key.objects.generate()
    services_platform.reset(jwks=Key.objects.as_jwks())
    cache.clear()  # tokens of earlier tests' registrations
    yield services_platform
    if services_platform._server is None:
        services_platform.up()
    cache.clear()


@pytest.fixture
def lti_context(platform):
    from lti_tool.models import LtiContext, LtiDeployment, LtiRegistration

    registration = LtiRegistration.objects.create(
        name="Loopback LMS",
        issuer="https://platform.example",
        client_id=CLIENT_ID,
        auth_url=f"{platform.base}/auth",
        token_url=platform.token_url,
        keyset_url=f"{platform.base}/jwks",
    )
    deployment = LtiDeployment.objects.create(registration=registration, deployment_id="d-1", is_active=True)
    return LtiContext.objects.create(
        deployment=deployment, id_on_platform="c-1", title="ML 101", memberships_url=platform.memberships_url
    )
