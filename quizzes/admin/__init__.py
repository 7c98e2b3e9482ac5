"""The staff's side: the Django admin's registrations (``registrations``), the forms and
pages of each model's admin, and the staff pages beside it (enrollment, question files,
regrade confirmation) under /<lang>/admin/reports/ (``urls``; the reports themselves are
``quizzes.reports``). They use the admin's look and login, and each checks a model
permission of the "Content editors" or "Teachers" group (see quizzes/accounts/roles.py).

Django's admin autodiscovery imports this package: importing ``registrations`` registers
every model."""

from quizzes.admin import registrations  # noqa: F401
