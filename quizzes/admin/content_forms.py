"""Admin forms: the content rules an editor can't save past, and the stamps
that say which English each translation was written against.

Content problems (``problems.content_problems``) refuse only the publishing of a quiz;
warnings, such as a missing translation, refuse nothing."""

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from quizzes.content.languages import TRANSLATION_LANGUAGES
from quizzes.content.layout_rules import DRAW_AT_LEAST_ONE, draw_problems
from quizzes.content.layout_rules import MESSAGES as DRAW_MESSAGES
from quizzes.content.problems import content_problems
from quizzes.content.selectors import quiz_content_queryset
from quizzes.content.translation_status import (
    Status,
    translation_columns,
    translation_status,
    translations_stamp_changed,
)
from quizzes.content.true_false import true_false_choices_valid
from quizzes.models import Choice, PoolDraw, Question, QuestionKind

# The headline of a refusal whose every content problem follows as an item of its own.
PUBLISH_WITH_PROBLEMS = _("This quiz can't be published until its content problems are fixed:")
PUBLISH_NEW_QUIZ = _(
    "A new quiz can't be published yet: save it unpublished, add its questions and their choices, then publish it."
)
NO_CORRECT_CHOICE = _("Mark one choice as correct.")
SEVERAL_CORRECT_CHOICES = _("Only one choice may be marked correct.")
TOO_FEW_CHOICES = _("A question needs at least two choices that are not archived.")
TRUE_FALSE_CHOICES = _(
    "A true or false question has two choices, “True” then “False” in English; the other languages "
    "get the site's words where they have none."
)
ARCHIVED_CHOICE_CORRECT = _(
    "Choice %(position)s is archived and marked correct: mark another choice correct before archiving it."
)
QUESTION_HAS_ANSWERS = ngettext_lazy(
    "Question %(position)s can't be deleted: a student has answered it, and the answer stays on record. "
    "Untick “Delete” and tick “Archived” instead: it will no longer be asked.",
    "Question %(position)s can't be deleted: students have given %(count)d answers to it, and they stay on record. "
    "Untick “Delete” and tick “Archived” instead: it will no longer be asked.",
    "count",
)
CHOICE_HAS_ANSWERS = ngettext_lazy(
    "Choice %(position)s can't be deleted: a student chose it, and the answer stays on record. "
    "Untick “Delete” and tick “Archived” instead: it will no longer be offered.",
    "Choice %(position)s can't be deleted: %(count)d answers chose it, and they stay on record. "
    "Untick “Delete” and tick “Archived” instead: it will no longer be offered.",
    "count",
)
STALE_HELP = _("Stale: the English text changed after this translation was written. Check it, then save it.")
STALE_CLASS = "translation-stale"


class TranslationStampMixin:
    """For a ModelForm of a translated model, in the admin.

    Saving stamps each translation the editor changed as translated against the
    English beside it; translations left untouched keep their record, so a
    change of the English alone leaves them stale. Stale inputs carry the
    ``translation-stale`` class and say so in their help text.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        columns = translation_columns(type(self.instance))
        self._stored_translations = (
            {col: getattr(self.instance, col) for _name, _language, col in columns} if self.instance.pk else {}
        )
        if self.instance.pk:
            for name, language, col in columns:
                if col in self.fields and translation_status(self.instance, name, language) == Status.STALE:
                    widget = self.fields[col].widget
                    widget.attrs["class"] = f"{widget.attrs.get('class', '')} {STALE_CLASS}".strip()
                    self.fields[col].help_text = STALE_HELP

    def clean(self):
        cleaned_data = super().clean()
        # Browsers send textareas with CRLF line ends: store LF, so that saving
        # an unchanged English text does not change it (nor its translations' status).
        for name, value in cleaned_data.items():
            if isinstance(value, str) and "\r" in value:
                cleaned_data[name] = value.replace("\r\n", "\n")
        return cleaned_data

    def save(self, commit=True):
        translations_stamp_changed(self.instance, before=self._stored_translations)
        return super().save(commit)


class CourseAdminForm(TranslationStampMixin, forms.ModelForm):
    pass


class QuizAdminForm(TranslationStampMixin, forms.ModelForm):
    """A quiz's page. Publishing it (ticking "published" on a quiz that was not, or on a new
    one) is refused while it has content problems; a quiz already published is saved whatever
    its content, so that a teacher can always change its settings (the admin warns after saving)."""

    def clean(self):
        cleaned_data = super().clean()
        # Before _post_clean, the instance holds the quiz as stored.
        if not cleaned_data.get("is_published") or (self.instance.pk and self.instance.is_published):
            return cleaned_data
        if not self.instance.pk:
            # Choices are added on each question's page, after the quiz is saved.
            self.add_error("is_published", ValidationError(PUBLISH_NEW_QUIZ, code="publish_new_quiz"))
            return cleaned_data
        # Checks the saved questions; the admin warns again after saving
        # in case edits on this page introduced a problem.
        problems = content_problems(quiz_content_queryset().filter(pk=self.instance.pk))
        # The draws are checked as edited on this page, by PoolDrawFormSet.
        problems = [problem for problem in problems if problem.code not in DRAW_MESSAGES]
        if problems:
            # The page's "Content check" shows this instance: it leaves out what the refusal lists.
            self.instance.refused_problems = problems
            # Added, not raised: the checks of subclasses (the dates) still run and show at once.
            self.add_error(
                None,
                ValidationError(
                    [
                        ValidationError(PUBLISH_WITH_PROBLEMS, code="content_problems"),
                        *(ValidationError(str(problem), code=problem.code) for problem in problems),
                    ]
                ),
            )
        return cleaned_data


def _language_choices():
    names = dict(settings.LANGUAGES)
    return [(code, names[code]) for code in TRANSLATION_LANGUAGES]


class TrueFalseKeepsOrderMixin:
    """A true or false question's choices keep their order, True then False (a database
    constraint): the form says so rather than refusing the save."""

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("kind") == QuestionKind.TRUE_FALSE:
            cleaned["keep_choice_order"] = True
        return cleaned


class QuestionAdminForm(TrueFalseKeepsOrderMixin, TranslationStampMixin, forms.ModelForm):
    translations_reviewed = forms.MultipleChoiceField(
        label=_("Translations reviewed"),
        choices=_language_choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "Tick a language after checking its translation of this question and its choices "
            "against the current English: its translations, stale and machine-made ones too, become reviewed."
        ),
    )


class QuestionInlineForm(TrueFalseKeepsOrderMixin, TranslationStampMixin, forms.ModelForm):
    pass


class ChoiceInlineForm(TranslationStampMixin, forms.ModelForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A table row's inputs have only the column heading for a label: name each one.
        row = self.instance.position or (int(self.prefix.rsplit("-", 1)[-1]) + 1 if self.prefix[-1:].isdigit() else "")
        for field in self.fields.values():
            field.widget.attrs.setdefault(
                "aria-label", _("%(field)s, choice %(row)s") % {"field": field.label, "row": row}
            )


def _kept(formset) -> list:
    # Blank extra rows have empty cleaned_data; deleted rows don't count.
    return [form for form in formset.forms if form.cleaned_data and not form.cleaned_data.get("DELETE")]


def _deleted_with_answers(formset) -> list[tuple[object, int]]:
    """The questions or choices the formset deletes that students answered, each with its count of answers."""
    deleted = [
        form.instance
        for form in formset.forms
        if form.cleaned_data and form.cleaned_data.get("DELETE") and form.instance.pk
    ]
    if not deleted:
        return []
    answered = formset.model.objects.filter(pk__in=[instance.pk for instance in deleted]).answered()
    counts = dict(answered.annotate(count=Count("answers")).values_list("pk", "count"))
    return [(instance, counts[instance.pk]) for instance in deleted if instance.pk in counts]


class QuestionInlineFormSet(forms.BaseInlineFormSet):
    """The questions of a quiz: one that students answered can't be deleted, only archived."""

    def clean(self):
        # Before super().clean(): its unique check runs the admin's generic
        # "protected related objects" refusal, which lists every answer.
        refused = _deleted_with_answers(self)
        if refused:
            raise ValidationError(
                [
                    ValidationError(
                        QUESTION_HAS_ANSWERS % {"position": question.position, "count": count},
                        code="question_has_answers",
                    )
                    for question, count in refused
                ]
            )
        super().clean()


class ChoiceInlineFormSet(forms.BaseInlineFormSet):
    """The choices of a question: exactly one correct among those offered (not archived);
    a choice that students picked can't be deleted, only archived."""

    def clean(self):
        refused = _deleted_with_answers(self)  # before super().clean(), as above
        if refused:
            raise ValidationError(
                [
                    ValidationError(
                        CHOICE_HAS_ANSWERS % {"position": choice.position, "count": count},
                        code="choice_has_answers",
                    )
                    for choice, count in refused
                ]
            )
        super().clean()
        kept = _kept(self)
        for form in kept:
            if form.cleaned_data.get("is_archived") and form.cleaned_data.get("is_correct"):
                raise ValidationError(
                    ARCHIVED_CHOICE_CORRECT,
                    code="archived_choice_correct",
                    params={"position": form.cleaned_data.get("position")},
                )
        offered = [form for form in kept if not form.cleaned_data.get("is_archived")]
        if len(offered) < 2:
            raise ValidationError(TOO_FEW_CHOICES, code="too_few_choices")
        if self.instance.kind == QuestionKind.TRUE_FALSE:
            if not true_false_choices_valid([form.cleaned_data.get("text_en") or "" for form in offered]):
                raise ValidationError(TRUE_FALSE_CHOICES, code="true_false_choices")
        correct = sum(bool(form.cleaned_data.get("is_correct")) for form in offered)
        if correct == 0:
            raise ValidationError(NO_CORRECT_CHOICE, code="no_correct_choice")
        if correct > 1:
            raise ValidationError(SEVERAL_CORRECT_CHOICES, code="several_correct_choices")

    def add_fields(self, form, index):
        super().add_fields(form, index)
        if "DELETE" in form.fields:
            row = form.instance.position or (index + 1 if index is not None else "")
            form.fields["DELETE"].widget.attrs["aria-label"] = _("Delete choice %(row)s") % {"row": row}

    def correct_choice_change(self) -> tuple[Choice | None, Choice] | None:
        """(previously correct choice, newly correct choice) when this valid formset
        changes which choice is correct; None when it does not.

        The new choice may be unsaved (a row added on this page).
        """
        stored = next(
            (form.instance for form in self.initial_forms if form.initial.get("is_correct")),
            None,
        )
        new = next(
            (
                form.instance
                for form in _kept(self)
                if form.cleaned_data.get("is_correct") and not form.cleaned_data.get("is_archived")
            ),
            None,
        )
        if new is None or (stored is not None and stored.pk == new.pk):
            return None
        return stored, new


class PoolDrawForm(forms.ModelForm):
    # The database checks count >= 1; this says so in the editor's language.
    count = forms.IntegerField(
        label=_("questions drawn"),
        min_value=1,
        max_value=32767,
        error_messages={"min_value": DRAW_AT_LEAST_ONE},
    )

    class Meta:
        model = PoolDraw
        fields = ("pool", "count")


class PoolDrawFormSet(forms.BaseInlineFormSet):
    """A quiz's draws ("N from pool P"), checked with its settings (``questions_per_attempt``, on
    ``instance`` as this page edits it) against its questions: as saved, or as the questions
    formset of the same page (``questions_formset``) edits them."""

    questions_formset: forms.BaseInlineFormSet | None = None

    def clean(self):
        super().clean()
        if any(self.errors) or (self.questions_formset is not None and not self.questions_formset.is_valid()):
            return  # the page shows those errors first; the draws are checked on the next save
        draws = {
            form.cleaned_data["pool"]: form.cleaned_data["count"]
            for form in _kept(self)
            if form.cleaned_data.get("pool") and form.cleaned_data.get("count")
        }
        problems = draw_problems(
            pools=[question.pool for question in self._questions() if not question.is_archived],
            draws=draws,
            questions_per_attempt=self.instance.questions_per_attempt or 0,
        )
        if problems:
            raise ValidationError(
                [ValidationError(DRAW_MESSAGES[p.code], code=p.code, params=dict(p.params)) for p in problems]
            )

    def _questions(self) -> list[Question]:
        by_key: dict[object, Question] = {}
        if self.instance.pk:
            by_key = {question.pk: question for question in Question.objects.filter(quiz_id=self.instance.pk)}
        if self.questions_formset is not None:
            for index, form in enumerate(self.questions_formset.forms):
                key = form.instance.pk or ("new", index)
                if not form.cleaned_data or form.cleaned_data.get("DELETE"):
                    by_key.pop(key, None)
                else:
                    by_key[key] = form.instance  # the edited values (the form's instance is updated)
        return list(by_key.values())
