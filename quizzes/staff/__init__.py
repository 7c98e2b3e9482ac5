"""Staff pages beside the Django admin: reports (item statistics, gradebook),
enrollment management and translation status. They use the admin's look and
login, and each checks a model permission of the "Content editors" or
"Teachers" group (see quizzes/accounts/roles.py)."""
