"""Practice on the web: "Practise the questions I missed" on a result page and on the dashboard
(spaced practice) start a practice attempt through ``services.practice_start``."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from quizzes.attempts import rules
from quizzes.attempts.services import AttemptError, practice_start
from quizzes.models import Attempt


@login_required
@require_POST
def attempt_practice(request, pk):
    """Start (or resume) the practice of the questions attempt ``pk`` missed; a refusal is the
    refusal page with the service's message and status."""
    try:
        practice, _created = practice_start(user=request.user, attempt_id=pk)
    except Attempt.DoesNotExist:
        raise Http404 from None
    except AttemptError as error:
        return render(request, "quizzes/refusal.html", {"message": error.message}, status=error.status)
    return redirect("quizzes:attempt", pk=practice.pk)


def practice_offered(attempt: Attempt, content, answers: dict) -> bool:
    """Whether a result page offers to practise what its attempt missed (``rules.practice_offered``),
    from the attempt's layout and answers as the page read them."""
    right = [question_id for question_id, answer in answers.items() if answer.is_correct]
    missed = rules.missed_question_ids([question.id for question in content.questions], right)
    return rules.practice_offered(attempt, attempt.review, missed)
