"""The forms of the question file pages: a file to import, a format and language to export."""

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from quizzes.content.formats.files import FORMAT_CHOICES, MAX_FILE_BYTES, MOODLE_XML, file_too_large
from quizzes.models import Course, Quiz


class QuestionFileImportForm(forms.Form):
    file = forms.FileField(label=_("file"))
    file_format = forms.ChoiceField(label=_("format"), choices=FORMAT_CHOICES, initial=MOODLE_XML)
    language = forms.ChoiceField(
        label=_("language"),
        choices=settings.LANGUAGES,
        initial="en",
        help_text=_("The language of a one-language file; a Moodle XML file holds every language it has."),
    )
    quiz = forms.ModelChoiceField(
        label=_("into quiz"),
        queryset=Quiz.objects.none(),
        required=False,
        empty_label=_("A new quiz (unpublished)"),
        help_text=_("Import into an existing quiz of the same questions (a translation, corrected texts)."),
    )
    course = forms.ModelChoiceField(
        label=_("course"),
        queryset=Course.objects.none(),
        required=False,
        help_text=_("The course of a new quiz; leave empty when there is only one."),
    )
    skip_unsupported = forms.BooleanField(
        label=_("import the questions this site can take, and list the others"),
        required=False,
        help_text=_(
            "Essays, matching, short-answer and other kinds this site has not are left out and listed "
            "with their line. Unticked: a file with any of them writes nothing."
        ),
    )
    same_title = forms.BooleanField(
        label=_("make a new quiz even if the course has one of the same title"),
        required=False,
        help_text=_("Leave it unticked to be asked first: importing the same file twice makes two quizzes."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["quiz"].queryset = Quiz.objects.select_related("course").order_by("course", "position")
        self.fields["course"].queryset = Course.objects.order_by("slug")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_BYTES:
            raise ValidationError(file_too_large(), code="too_large")
        return upload


class QuestionFileExportForm(forms.Form):
    file_format = forms.ChoiceField(
        label=_("format"), choices=[choice for choice in FORMAT_CHOICES], initial=MOODLE_XML
    )
    language = forms.ChoiceField(
        label=_("language"),
        choices=settings.LANGUAGES,
        initial="en",
        help_text=_(
            "For a one-language format: the quiz as a student reading it sees it (English where untranslated)."
        ),
    )
