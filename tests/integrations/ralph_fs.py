"""``ralph`` with its file backend able to take more than one write: the test LRS.

Run by tests/integrations/lrs.py with the LRS's own virtualenv (.venv-lrs, ``make lrs-venv``),
exactly as the ``ralph`` command (``python ralph_fs.py runserver -b fs ...``); never imported
by the tests or the site.

Why: ralph 5.1.0's ``FSLRSBackend`` writes each statement POST to its one statements file with
the default operation, ``INDEX``, which requires the file to be absent, so every POST after the
first answers 500 (``FileExistsError``), and no setting changes that operation. This launcher
makes ``APPEND`` the file LRS's default before ralph starts (uvicorn serves the app in this
process): nothing in the installed package is edited.
"""

import sys

from ralph.backends.data.base import BaseOperationType
from ralph.backends.lrs.fs import FSLRSBackend
from ralph.cli import cli

FSLRSBackend.default_operation_type = BaseOperationType.APPEND

if __name__ == "__main__":
    sys.exit(cli())
