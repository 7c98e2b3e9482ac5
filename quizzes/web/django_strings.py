"""Django's own strings that students read, listed so that makemessages puts
them in our catalogues: Django ships no Shona, and our wording should match
in every language.
"""

from django.utils.translation import gettext_noop

DJANGO_STRINGS = (
    gettext_noop("Please enter a correct %(username)s and password. Note that both fields may be case-sensitive."),
    gettext_noop("This account is inactive."),
    gettext_noop("This field is required."),
    gettext_noop("username"),
    # The months of dates written out ("1 December 2026": lms/formats), from django.utils.dates.
    gettext_noop("January"),
    gettext_noop("February"),
    gettext_noop("March"),
    gettext_noop("April"),
    gettext_noop("May"),
    gettext_noop("June"),
    gettext_noop("July"),
    gettext_noop("August"),
    gettext_noop("September"),
    gettext_noop("October"),
    gettext_noop("November"),
    gettext_noop("December"),
)
