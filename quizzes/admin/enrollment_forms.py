"""The bulk enrollment form: a course, and usernames pasted or in a CSV file."""

import csv
import io
import re

from django import forms
from django.core import signing
from django.utils.translation import gettext_lazy as _

from quizzes.models import Course

MAX_FILE_BYTES = 1024 * 1024
MAX_NAMES = 5000
TOKEN_SALT = "quizzes.admin.enroll-bulk"
TOKEN_MAX_AGE = 60 * 60

NOT_CSV = _("The file must be a CSV file (.csv or .txt).")
TOO_BIG = _("The file is larger than 1 MB; split it into smaller files.")
NOT_UTF8 = _("The file could not be read as UTF-8 text; save it as “CSV UTF-8” and upload it again.")
BAD_CSV = _("The file could not be read as CSV: %(error)s")
TOO_MANY = _("At most %(max)d usernames at a time; this list has %(count)d.")
NOTHING_GIVEN = _("Paste usernames or choose a CSV file.")
NO_NAMES = _("No usernames were found in what you gave.")
EXPIRED = _("This preview has expired or was altered; prepare the enrollment again.")

_SEPARATORS = re.compile(r"[\s,;]+")
_CSV_SUFFIXES = (".csv", ".txt")
_CSV_TYPES = {"text/csv", "text/plain", "application/csv", "application/vnd.ms-excel", "application/octet-stream", ""}
_USERNAME_HEADERS = {"username", "user name", "user", "login"}


def usernames_from_text(text: str) -> list[str]:
    """Names separated by new lines, commas, semicolons or spaces."""
    return [name for name in _SEPARATORS.split(text) if name]


def usernames_from_csv(data: bytes) -> list[str]:
    """The ``username`` column of a CSV file (the first column when no header names it).

    Raises ``forms.ValidationError`` with a message for the staff member.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise forms.ValidationError(NOT_UTF8, code="not_utf8") from None
    if "\x00" in text:
        raise forms.ValidationError(NOT_UTF8, code="not_utf8")
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    names = []
    column = 0
    try:
        for number, row in enumerate(csv.reader(io.StringIO(text), dialect)):
            cells = [cell.strip() for cell in row]
            if number == 0:
                headers = [cell.lower() for cell in cells]
                header = next((i for i, cell in enumerate(headers) if cell in _username_headers()), None)
                if header is not None:
                    column = header
                    continue
            if len(cells) > column and cells[column]:
                names.append(cells[column])
            if len(names) > MAX_NAMES:
                raise forms.ValidationError(TOO_MANY, code="too_many", params={"max": MAX_NAMES, "count": len(names)})
    except csv.Error as error:
        raise forms.ValidationError(BAD_CSV, code="bad_csv", params={"error": error}) from None
    return names


def _username_headers() -> set[str]:
    # "username" in English, and the word staff see in their own language.
    return {*_USERNAME_HEADERS, str(_("username")).lower()}


class BulkEnrollmentForm(forms.Form):
    course = forms.ModelChoiceField(queryset=Course.objects.none(), label=_("Course"))
    usernames = forms.CharField(
        label=_("Usernames"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "cols": 40, "spellcheck": "false", "autocapitalize": "none"}),
        help_text=_("One per line, or separated by commas or spaces."),
        max_length=MAX_FILE_BYTES,
    )
    csv_file = forms.FileField(
        label=_("or a CSV file"),
        required=False,
        help_text=_("UTF-8, at most 1 MB and 5,000 rows: a “username” column, or the usernames in the first column."),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,.txt,text/csv"}),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["course"].queryset = Course.objects.order_by("slug")

    def clean_csv_file(self):
        upload = self.cleaned_data.get("csv_file")
        if not upload:
            return []
        name = (upload.name or "").lower()
        if not name.endswith(_CSV_SUFFIXES) or (upload.content_type or "").lower() not in _CSV_TYPES:
            raise forms.ValidationError(NOT_CSV, code="not_csv")
        if upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError(TOO_BIG, code="too_big")
        return usernames_from_csv(upload.read())

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        names = usernames_from_text(cleaned.get("usernames") or "") + (cleaned.get("csv_file") or [])
        if not names:
            if not (cleaned.get("usernames") or "").strip() and not self.files.get("csv_file"):
                raise forms.ValidationError(NOTHING_GIVEN, code="nothing_given")
            raise forms.ValidationError(NO_NAMES, code="no_names")
        if len(names) > MAX_NAMES:
            raise forms.ValidationError(TOO_MANY, code="too_many", params={"max": MAX_NAMES, "count": len(names)})
        cleaned["names"] = names
        return cleaned


def preview_token(*, course: Course, names: list[str], user_ids, staff_user) -> str:
    """What the preview showed, signed: the confirm step re-validates it and writes only that."""
    payload = {"course": course.pk, "names": names, "users": sorted(user_ids), "by": staff_user.pk}
    return signing.dumps(payload, salt=TOKEN_SALT, compress=True)


def preview_token_read(token: str, *, staff_user) -> dict | None:
    """The preview's payload, or None when the token is expired, altered or someone else's."""
    try:
        payload = signing.loads(token, salt=TOKEN_SALT, max_age=TOKEN_MAX_AGE)
    except (signing.BadSignature, ValueError):
        return None
    if not isinstance(payload, dict) or payload.get("by") != staff_user.pk:
        return None
    return payload


class BulkEnrollmentConfirmForm(forms.Form):
    token = forms.CharField(widget=forms.HiddenInput, max_length=4 * MAX_FILE_BYTES)
