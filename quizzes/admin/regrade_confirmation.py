"""The question admin's confirmation of a key change after students answered: what the
regrade would do, per version students were shown, with a checkbox for each (all ticked);
then ``quizzes.attempts.regrade`` does it, for the versions ticked.

None ticked is a choice the page states: the new key is for new attempts only (no recorded
answer changes, attempts in progress keep the version they hold). A post that did not come
from the page (no ``VERSIONS_SHOWN_FIELD``) is shown the page first, so a key never changes
without the versions being asked.
"""

from django.contrib import messages
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from quizzes.admin.content_forms import ChoiceInlineFormSet
from quizzes.attempts.regrade import (
    RegradeError,
    question_correct_choice_change,
    question_regrade_plan,
)
from quizzes.managers import is_answered

CONFIRM_REGRADE_FIELD = "_confirm_regrade"
# The versions whose answers take the new key (checkboxes), and the mark that they were offered.
REGRADE_VERSIONS_FIELD = "_regrade_versions"
VERSIONS_SHOWN_FIELD = "_regrade_versions_shown"


class _ConfirmationNeeded(Exception):
    def __init__(self, question, old, new, plan, error=None):
        super().__init__("regrade confirmation needed")
        self.question, self.old, self.new, self.plan, self.error = question, old, new, plan, error


def _posted_versions(request) -> list[int] | None:
    """The version numbers ticked on the confirmation page; None when the post did not come
    from it (the page always sends ``VERSIONS_SHOWN_FIELD``), so it is shown first. None
    ticked is a choice: the new key is for new attempts only."""
    if request.POST.get(VERSIONS_SHOWN_FIELD) != "yes":
        return None
    try:
        return [int(value) for value in request.POST.getlist(REGRADE_VERSIONS_FIELD)]
    except ValueError:
        return None


def _plan_headline(plan) -> list[str]:
    """The page's totals, one sentence per column of its table: answers regraded, finished
    attempts whose score changes, attempts in progress moved (a student's two attempts are
    two scores)."""
    scores = len(plan.scores)
    return [
        ngettext("%(count)d answer will be regraded.", "%(count)d answers will be regraded.", plan.answers_changed)
        % {"count": plan.answers_changed},
        ngettext(
            "The score of %(count)d finished attempt will change.",
            "The scores of %(count)d finished attempts will change.",
            scores,
        )
        % {"count": scores},
        ngettext(
            "%(count)d attempt in progress will move to the new version.",
            "%(count)d attempts in progress will move to the new version.",
            plan.attempts_moved,
        )
        % {"count": plan.attempts_moved},
    ]


def _regrade_message(regrade) -> str:
    if regrade.versions:
        done = _(
            "The correct choice changed: %(answers)d answers regraded, %(attempts)d finished attempts rescored."
        ) % {"answers": regrade.answers_changed, "attempts": regrade.attempts_regraded}
    else:
        done = _("The correct choice changed for new attempts only: no recorded answer was regraded.")
    return format_html(
        '{} <a href="{}">{}</a>',
        done,
        reverse("admin:quizzes_regrade_change", args=[regrade.pk]),
        _("See the record of this regrade."),
    )


class QuestionRegradeMixin:
    """Asks before changing an answered question's key, then regrades the versions chosen."""

    regrade_confirmation_template = "admin/quizzes/question/regrade_confirmation.html"

    # Changing the correct choice ----------------------------------------------------------
    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except _ConfirmationNeeded as needed:
            # Raised inside the admin's transaction: everything it saved is rolled back.
            return self.regrade_confirmation(request, needed)

    def save_related(self, request, form, formsets, change):
        question = form.instance
        choices = next((formset for formset in formsets if isinstance(formset, ChoiceInlineFormSet)), None)
        key_change = choices.correct_choice_change() if (change and choices is not None) else None
        if key_change is not None and is_answered(question):
            old, new = key_change
            versions = _posted_versions(request)
            if request.POST.get(CONFIRM_REGRADE_FIELD) != "yes" or versions is None:
                raise _ConfirmationNeeded(question, old, new, question_regrade_plan(question=question, new_correct=new))
            try:
                regrade = question_correct_choice_change(
                    question=question, new_correct=new, changed_by=request.user, versions=versions
                )
            except RegradeError as error:
                plan = question_regrade_plan(question=question, new_correct=new)
                raise _ConfirmationNeeded(question, old, new, plan, error=str(error)) from None
            if regrade is not None:
                self.message_user(request, _regrade_message(regrade), messages.SUCCESS)
        super().save_related(request, form, formsets, change)

    def regrade_confirmation(self, request, needed: _ConfirmationNeeded):
        hidden = [
            (name, value)
            for name, values in request.POST.lists()
            if name not in ("csrfmiddlewaretoken", CONFIRM_REGRADE_FIELD, REGRADE_VERSIONS_FIELD, VERSIONS_SHOWN_FIELD)
            for value in values
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": needed.question,
            "title": _("Change the correct choice of %(question)s?") % {"question": needed.question},
            "question": needed.question,
            "old": needed.old,
            "new": needed.new,
            "plan": needed.plan,
            "headline": _plan_headline(needed.plan),
            "error": needed.error,
            "hidden_fields": hidden,
            "confirm_field": CONFIRM_REGRADE_FIELD,
            "versions_field": REGRADE_VERSIONS_FIELD,
            "versions_shown_field": VERSIONS_SHOWN_FIELD,
            "cancel_url": reverse("admin:quizzes_question_change", args=[needed.question.pk]),
        }
        return TemplateResponse(request, self.regrade_confirmation_template, context)
