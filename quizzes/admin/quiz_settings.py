"""The quiz admin's layout settings: shuffling, questions per attempt and pool draws.

The rules they must keep are ``quizzes.content.layout_rules``; ``PoolDrawFormSet`` applies
them to the page as edited (its draws, its settings and its questions inline), so nothing is
saved when they are broken. ``QuizAdmin`` in ``quizzes/admin/registrations.py`` mixes this in.
"""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from quizzes.admin.content_forms import PoolDrawForm, PoolDrawFormSet, QuestionInlineFormSet
from quizzes.models import PoolDraw, Question

KEEPING_ORDER = _(
    "This quiz shuffles the choices of each question, except in these questions, which keep their order: %(questions)s."
)


class PoolDrawInline(admin.TabularInline):
    model = PoolDraw
    form = PoolDrawForm
    formset = PoolDrawFormSet
    fields = ("pool", "count")
    extra = 0
    verbose_name = _("pool draw")
    verbose_name_plural = _("pool draws: each attempt asks this many of the questions tagged with the pool")

    # A draw is one of the quiz's settings: whoever may change the quiz may change its draws,
    # and whoever may view it may view them (the staff groups name no pool draw permission).
    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("quizzes.view_quiz") or request.user.has_perm("quizzes.change_quiz")

    def has_add_permission(self, request, obj=None):
        return request.user.has_perm("quizzes.change_quiz")

    def has_change_permission(self, request, obj=None):
        return request.user.has_perm("quizzes.change_quiz")

    def has_delete_permission(self, request, obj=None):
        return request.user.has_perm("quizzes.change_quiz")


class QuizLayoutSettingsMixin:
    """Links the pool draws to the questions edited on the same page; after a save, says which
    questions keep their choice order in a quiz that shuffles choices."""

    def _create_formsets(self, request, obj, change):
        # The draws are checked against the questions as this page edits them, so that a pool
        # filled (or emptied) and drawn from in one save is judged as it will be saved.
        formsets, inline_instances = super()._create_formsets(request, obj, change)
        questions = next((formset for formset in formsets if isinstance(formset, QuestionInlineFormSet)), None)
        for formset in formsets:
            if isinstance(formset, PoolDrawFormSet):
                formset.questions_formset = questions
        return formsets, inline_instances

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        quiz = form.instance
        if not quiz.shuffle_choices:
            return  # a question keeping its order in a quiz that keeps every order: nothing to say
        keeping = Question.objects.filter(quiz=quiz, is_archived=False, keep_choice_order=True).order_by("position")
        keeping = [str(question) for question in keeping]
        if keeping:
            self.message_user(request, KEEPING_ORDER % {"questions": ", ".join(keeping)}, messages.INFO)
