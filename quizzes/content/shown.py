"""What a learner reading a language is shown of a translated field, and in which language.

``shown_column`` is the one definition: a field's translation, except a machine translation
(its record's state is ``machine``, ``quizzes.content.translation_status``) where the
language's setting (``LanguageSetting.machine_translations``) says its students read the
English; then pages mark the English, as where a text is not translated
(``quizzes.content.machine_translations`` writes the settings). A row read now (a Course,
Quiz, Question or Choice) is judged now; a snapshot of what a version showed
(``quizzes.content.cache``: it carries ``machine_columns``) was judged when its version was
made, and is shown as it was.

The settings are read in one query, only when a machine translation is met, and held for the
rest of the request, never longer: a change reaches every worker's next request, and nothing
outside a request (a command, a test) ever reads an old value.
"""

from collections.abc import Callable

from asgiref.local import Local
from django.core.signals import request_finished, request_started
from django.dispatch import receiver

from quizzes.content.languages import LANGUAGES, SOURCE_LANGUAGE, LocalizedText, column, text_in
from quizzes.content.translation_status import Status, translation_record
from quizzes.models import MACHINE_TRANSLATIONS_DEFAULT, LanguageSetting, MachineTranslations

_request = Local()


def _settings() -> dict[str, str]:
    held = getattr(_request, "settings", None)
    if held is not None:
        return held
    read = dict(LanguageSetting.objects.values_list("language", "machine_translations"))
    if getattr(_request, "open", False):
        _request.settings = read
    return read


def settings_forget() -> None:
    _request.settings = None


@receiver(request_started, dispatch_uid="machine_translations_request_started")
def _request_started(**kwargs):
    _request.open = True
    settings_forget()


@receiver(request_finished, dispatch_uid="machine_translations_request_finished")
def _request_finished(**kwargs):
    _request.open = False
    settings_forget()


def machine_made(obj, name: str) -> bool:
    """Whether the translation column ``name`` of a row is recorded as a machine translation."""
    return translation_record(obj, name).get("state") == Status.MACHINE


def machine_translations_shown(language: str) -> bool:
    """Whether the students reading ``language`` are shown its machine translations."""
    return _settings().get(language, MACHINE_TRANSLATIONS_DEFAULT) == MachineTranslations.SHOW


def shown_column(obj, field: str, language: str) -> tuple[str, bool]:
    """``field``'s ``language`` column as learners are shown it, '' when they read the English
    instead, and whether it is a machine translation."""
    name = column(field, language)
    text = getattr(obj, name) or ""
    decided = getattr(obj, "machine_columns", None)
    if decided is not None:  # a snapshot: judged when its version was made
        return text, name in decided
    if not text or language == SOURCE_LANGUAGE:
        return text, False
    if not machine_made(obj, name):
        return text, False
    if machine_translations_shown(language):
        return text, True
    return "", False


def shown_columns(obj, fields) -> tuple[dict[str, str], frozenset[str]]:
    """Every column of ``fields`` (``text_en``, ``text_ur``...) as learners are shown them, and
    the machine translations among them: what a version or a snapshot holds."""
    texts, machine = {}, set()
    for field in fields:
        for language in LANGUAGES:
            text, is_machine = shown_column(obj, field, language)
            texts[column(field, language)] = text
            if is_machine:
                machine.add(column(field, language))
    return texts, frozenset(machine)


def localized(obj, field: str, language: str) -> LocalizedText:
    """The text a learner reading ``language`` sees, the language it is in, and whether it is a
    machine translation."""
    text, machine = shown_column(obj, field, language)
    if text:
        return LocalizedText(text, language, language, machine)
    return LocalizedText(text_in(obj, field, SOURCE_LANGUAGE), SOURCE_LANGUAGE, language)


def shown_in_english(question, language: str) -> bool:
    """Whether a learner reading ``language`` sees any text of ``question`` (a content
    snapshot's, ``quizzes.content.cache``, with its offered ``choices``) in English, for want of
    a translation: its text, its explanation or one of its choices. Never in English itself."""
    if language == SOURCE_LANGUAGE:
        return False
    texts = [(question, "text"), (question, "explanation"), *((choice, "text") for choice in question.choices)]
    return any(
        text_in(obj, field, SOURCE_LANGUAGE) and localized(obj, field, language).is_fallback for obj, field in texts
    )


def text_reader(field: str, language: str) -> Callable[[object], str]:
    """``lambda obj: localized(obj, field, language).text``."""
    return lambda obj: localized(obj, field, language).text


def language_reader(field: str, language: str) -> Callable[[object], str]:
    """``lambda obj: localized(obj, field, language).language``."""
    return lambda obj: localized(obj, field, language).language


def machine_reader(field: str, language: str) -> Callable[[object], bool]:
    """``lambda obj: localized(obj, field, language).machine``."""
    return lambda obj: localized(obj, field, language).machine
