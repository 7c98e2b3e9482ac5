from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from quizzes.integrations.lti.config import tool_url
from quizzes.integrations.lti.registrations import RegistrationError, lti_registration_write


class Command(BaseCommand):
    help = (
        "Register an LTI 1.3 platform (or bring its registration to these values): its issuer, the "
        "client id and deployment id it gave the tool, its URLs, and the course its launches open."
    )

    def add_arguments(self, parser):
        parser.add_argument("--issuer", required=True, help="The platform's issuer (Moodle: its site URL).")
        parser.add_argument("--client-id", required=True)
        parser.add_argument("--deployment-id", required=True)
        parser.add_argument("--keyset-url", required=True, help="The platform's public keyset (JWKS) URL.")
        parser.add_argument("--auth-url", required=True, help="The platform's OIDC authentication request URL.")
        parser.add_argument("--token-url", required=True, help="The platform's OAuth 2 access token URL.")
        parser.add_argument("--course", required=True, help="The slug of the course its launches open.")
        parser.add_argument("--context-id", default="", help="Only for this platform context (course) id.")
        parser.add_argument("--name", default="", help="A name for the admin (default: the issuer).")

    def handle(self, *args, **options):
        try:
            written = lti_registration_write(
                issuer=options["issuer"],
                client_id=options["client_id"],
                deployment_id=options["deployment_id"],
                keyset_url=options["keyset_url"],
                auth_url=options["auth_url"],
                token_url=options["token_url"],
                course_slug=options["course"],
                context_id=options["context_id"],
                name=options["name"],
            )
        except RegistrationError as error:
            raise CommandError(str(error)) from None
        message = (
            _("Registered %(name)s.") if written.changed else _("%(name)s was registered already: nothing changed.")
        )
        self.stdout.write(message % {"name": written.registration.name})
        for label, name in (
            (_("Login URL"), "lti:login"),
            (_("Launch URL"), "lti:launch"),
            (_("Keyset URL"), "lti:jwks"),
        ):
            self.stdout.write(f"{label}: {tool_url(name)}")
