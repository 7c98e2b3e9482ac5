from django.conf import settings


def add_language_argument(parser) -> None:
    parser.add_argument(
        "--language",
        required=True,
        choices=[code for code, _name in settings.LANGUAGES],
        help="Language code: " + ", ".join(code for code, _name in settings.LANGUAGES),
    )
