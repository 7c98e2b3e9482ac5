"""Admin forms: the content rules an editor can't save past."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from quizzes.content_problems import content_problems
from quizzes.selectors import quiz_content_queryset

PUBLISH_WITH_PROBLEMS = _("This quiz can't be published until its content problems are fixed: %(problems)s")
NO_CORRECT_CHOICE = _("Mark one choice as correct.")
SEVERAL_CORRECT_CHOICES = _("Only one choice may be marked correct.")
TOO_FEW_CHOICES = _("A question needs at least two choices.")


class QuizAdminForm(forms.ModelForm):
    def clean(self):
        cleaned_data = super().clean()
        if cleaned_data.get("is_published") and self.instance.pk:
            # Checks the saved questions; the admin warns again after saving
            # in case edits on this page introduced a problem.
            problems = content_problems(quiz_content_queryset().filter(pk=self.instance.pk))
            if problems:
                raise ValidationError(
                    PUBLISH_WITH_PROBLEMS,
                    code="content_problems",
                    params={"problems": "; ".join(str(problem) for problem in problems)},
                )
        return cleaned_data


class ChoiceInlineFormSet(forms.BaseInlineFormSet):
    def clean(self):
        super().clean()
        # Blank extra rows have empty cleaned_data; deleted rows don't count.
        kept = [form for form in self.forms if form.cleaned_data and not form.cleaned_data.get("DELETE")]
        if len(kept) < 2:
            raise ValidationError(TOO_FEW_CHOICES, code="too_few_choices")
        correct = sum(bool(form.cleaned_data.get("is_correct")) for form in kept)
        if correct == 0:
            raise ValidationError(NO_CORRECT_CHOICE, code="no_correct_choice")
        if correct > 1:
            raise ValidationError(SEVERAL_CORRECT_CHOICES, code="several_correct_choices")
