"""Archiving questions and choices: the way to retire content that students answered.

Answers point at their question and choice with PROTECT, so answered content
can't be deleted; archived content is no longer asked or offered (new attempts
count only the questions not archived in their maximum score) and every answer
stays on record. Rows are saved one by one (``save()``): the quiz content
cache follows post_save.
"""

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from quizzes.models import Choice, Question

CORRECT_CHOICE_ARCHIVE = _("Choice %(position)s is the correct one: mark another choice correct before archiving it.")


class ArchiveError(Exception):
    """A refused archive; nothing was changed."""


def questions_archive(*, questions, archived: bool = True) -> int:
    """Archive (or bring back) the given questions; returns how many changed."""
    changed = 0
    with transaction.atomic():
        for question in (
            Question.objects.select_for_update(of=("self",)).filter(pk__in=[q.pk for q in questions]).order_by("pk")
        ):
            if question.is_archived != archived:
                question.is_archived = archived
                question.save(update_fields=["is_archived"])
                changed += 1
    return changed


def choice_archive(*, choice: Choice, archived: bool = True) -> bool:
    """Archive (or bring back) one choice; the correct choice can't be archived."""
    with transaction.atomic():
        choice = Choice.objects.select_for_update().get(pk=choice.pk)
        if archived and choice.is_correct:
            raise ArchiveError(CORRECT_CHOICE_ARCHIVE % {"position": choice.position})
        if choice.is_archived == archived:
            return False
        choice.is_archived = archived
        choice.save(update_fields=["is_archived"])
    return True
