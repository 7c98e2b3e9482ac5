"""True-or-false questions (``QuestionKind.TRUE_FALSE``): their two choices, "True" then
"False", in every language the site speaks, in the site's own words (its catalogue) where the
content has none. Moodle does the same: its true/false answers are its language strings."""

from django.conf import settings
from django.utils.translation import override, pgettext

from quizzes.content.languages import SOURCE_LANGUAGE, column
from quizzes.content.translation_status import SOURCES_FIELD, Status, translations_stamp
from quizzes.models import Choice, Question, QuestionKind

# The choices' English, as files and editors write it.
TRUE_FALSE_ENGLISH = {True: "True", False: "False"}


def true_false_word(value: bool) -> str:
    """ "True" or "False" in the active language."""
    if value:
        return pgettext("the answer of a true-or-false question", "True")
    return pgettext("the answer of a true-or-false question", "False")


def true_false_value(english: str) -> bool | None:
    """Which answer an English choice text is ("True" or "False", in any case), else None."""
    return {"true": True, "false": False}.get(english.strip().lower())


def true_false_choices_valid(english: list[str]) -> bool:
    """Whether the English texts of a true-or-false question's offered choices, in order, are
    its two: "True" then "False"."""
    return [true_false_value(text) for text in english] == [True, False]


def true_false_texts(value: bool) -> dict[str, str]:
    """The choice's text in each language the site speaks, by column (``text_en``, ``text_ur``...)."""
    texts = {}
    for language, _name in settings.LANGUAGES:
        with override(language):
            texts[column("text", language)] = true_false_word(value)
    return texts


def true_false_choices_translate(question: Question) -> int:
    """Give the True and False choices of a true-or-false ``question`` the site's words in each
    language they have none in, stamped reviewed (the site's words are); saves each choice it
    changed and returns how many it changed. Other questions and choices are left as they are."""
    if question.kind != QuestionKind.TRUE_FALSE:
        return 0
    english = column("text", SOURCE_LANGUAGE)
    changed = 0
    for choice in Choice.objects.filter(question=question, is_archived=False).order_by("position"):
        value = true_false_value(getattr(choice, english) or "")
        if value is None:
            continue
        filled = []
        for name, text in true_false_texts(value).items():
            if name != english and not getattr(choice, name):
                setattr(choice, name, text)
                filled.append(name)
        if filled:
            translations_stamp(choice, columns=filled, state=Status.REVIEWED)
            choice.save(update_fields=[*filled, SOURCES_FIELD])
            changed += 1
    return changed
