"""Question versions: what each question was when students were shown it.

A question's current version is its highest-numbered ``QuestionVersion``: its
texts and offered choices in every language and its key, copied from the rows
editors edit. Every write of a question or of one of its choices calls
``question_version_sync`` (the receivers at the end of this module, in the
writing transaction), which compares the rows with the current version:

- the same: nothing is written (loading the fixtures again writes nothing);
- different, and no attempt's layout holds the current version: it is
  rewritten in place (a question nobody was shown has one version);
- different, and an attempt holds it: a new version is made and becomes the
  current one; the old one never changes again.

Locks: the question row (``FOR NO KEY UPDATE``) serialises two syncs of one
question without making a student's answer wait (its foreign-key check takes a
key-share lock, which that does not conflict with). Only before rewriting a
version in place is the quiz row locked ``FOR UPDATE``, and the version's
layouts looked for again: a start takes a key-share lock on its quiz before it
reads the versions (the lock its attempt's foreign key takes anyway), which
conflicts with that lock, so either the edit sees the attempt (and makes a new
version) or the start waits for the edit and then reads the rewritten version,
which nobody was shown yet. No version is ever locked: an answer never waits
for an edit, and a class starting at once takes no lock on the versions it is
shown (one lock, on the quiz, per start).

Translation revisions (``QuestionVersion.revisions``): for each language, the
number of the version each text a student reading that language sees (its
translation, or English where it has none) last changed in, and the
question's revision in that language, the version in which anything that
student sees last changed. Statistics count answers per revision, so a fixed
translation starts a fresh count while English answers keep theirs.
"""

from django.db import transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from common.loading import collecting
from quizzes.content.languages import LANGUAGES, SOURCE_LANGUAGE, column, translated_fields
from quizzes.content.shown import shown_columns
from quizzes.models import AttemptQuestion, Choice, Question, QuestionVersion, Quiz, new_token


def question_version_content(question: Question, choices: list[Choice] | None = None) -> dict:
    """What a version of ``question`` holds, read from its rows now: ``texts``, ``choices``
    (offered ones, by position: ``choices`` when the caller read them), ``correct_choice_id``
    and ``kind``, each text as learners are shown it (``shown.shown_column``: a machine
    translation its language hides is left out), and ``machine_texts``, the machine
    translations it shows."""
    if choices is None:
        choices = list(Choice.objects.filter(question_id=question.pk, is_archived=False).order_by("position"))
    texts, machine = shown_columns(question, translated_fields(Question))
    shown_choices = []
    for choice in choices:
        choice_texts, choice_machine = shown_columns(choice, translated_fields(Choice))
        shown_choices.append({"id": choice.pk, "position": choice.position, **choice_texts})
        machine |= {f"choice:{choice.pk}:{name}" for name in choice_machine}
    return {
        "texts": texts,
        "choices": shown_choices,
        "correct_choice_id": next((choice.pk for choice in choices if choice.is_correct), None),
        "machine_texts": sorted(machine),
        "kind": question.kind,
    }


def shown_texts(texts: dict, choices: list[dict], language: str) -> dict[str, str]:
    """Each text a student reading ``language`` sees, by name: ``text``, ``explanation`` and
    ``choice:<id>``, English where there is no translation."""

    def shown(values: dict, field: str) -> str:
        return values.get(column(field, language)) or values.get(column(field, SOURCE_LANGUAGE)) or ""

    result = {field: shown(texts, field) for field in translated_fields(Question)}
    result.update({f"choice:{choice['id']}": shown(choice, "text") for choice in choices})
    return result


def _revisions(content: dict, number: int, previous: QuestionVersion | None) -> dict:
    revisions = {}
    for language in LANGUAGES:
        now = shown_texts(content["texts"], content["choices"], language)
        if previous is None:
            revisions[language] = {"question": number, "texts": dict.fromkeys(now, number)}
            continue
        before = shown_texts(previous.texts, previous.choices, language)
        earlier = previous.revisions[language]
        texts = {
            name: earlier["texts"][name] if before.get(name) == text and name in earlier["texts"] else number
            for name, text in now.items()
        }
        revisions[language] = {"question": earlier["question"] if now == before else number, "texts": texts}
    return revisions


def _same(version: QuestionVersion, content: dict) -> bool:
    return (
        version.texts == content["texts"]
        and version.choices == content["choices"]
        and version.correct_choice_id == content["correct_choice_id"]
        and version.machine_texts == content["machine_texts"]
        and version.kind == content["kind"]
    )


def question_version_sync(question_id: int) -> QuestionVersion | None:
    """Make the question's current version hold what its rows hold (see the module's
    docstring); returns it, or None for a question that no longer exists."""
    with transaction.atomic():
        # FOR NO KEY UPDATE: two syncs of a question run one after the other, while the key-share
        # locks of students' foreign-key checks (an answer naming it) never wait for it.
        # of=self and no ordering: the question's row alone (Meta's ordering joins the quiz and course).
        locking = Question.objects.select_for_update(no_key=True, of=("self",)).filter(pk=question_id)
        question = locking.order_by().first()
        if question is None:
            return None
        content = question_version_content(question)
        current = question_current_version(question_id)
        if current is not None and _same(current, content):
            return current
        if current is not None and not _shown(current):
            # The quiz FOR UPDATE waits for every start in flight (each holds a key-share lock on
            # its quiz from before it reads the versions) and holds back the next ones until
            # this rewrite commits; then look again.
            list(Quiz.objects.select_for_update(of=("self",)).filter(pk=question.quiz_id).order_by().values_list("pk"))
            if not _shown(current):
                previous = QuestionVersion.objects.filter(question_id=question_id, number__lt=current.number)
                previous = previous.order_by("-number").first()
                for name, value in content.items():
                    setattr(current, name, value)
                current.revisions = _revisions(content, current.number, previous)
                current.token = new_token()
                current.save(update_fields=[*content, "revisions", "token"])
                return current
        number = 1 if current is None else current.number + 1
        return QuestionVersion.objects.create(
            question_id=question_id, number=number, revisions=_revisions(content, number, current), **content
        )


def question_versions_sync(question_ids) -> None:
    """``question_version_sync`` for many questions (a quiz's, after its rows were loaded
    whole), in a few statements: the questions locked and read, their choices and their
    current versions read once each, and the first versions of new questions made in one
    INSERT. A question whose current version differs from its rows goes through
    ``question_version_sync``."""
    question_ids = sorted(set(question_ids))
    if not question_ids:
        return
    with transaction.atomic():
        locking = Question.objects.select_for_update(no_key=True, of=("self",)).filter(pk__in=question_ids)
        questions = list(locking.order_by("pk"))
        choices: dict[int, list[Choice]] = {question.pk: [] for question in questions}
        offered = Choice.objects.filter(question_id__in=question_ids, is_archived=False)
        for choice in offered.order_by("question_id", "position"):
            choices[choice.question_id].append(choice)
        latest = QuestionVersion.objects.filter(question_id=OuterRef("question_id")).order_by("-number").values("pk")
        current = {
            version.question_id: version
            for version in QuestionVersion.objects.filter(question_id__in=question_ids, pk=Subquery(latest[:1]))
        }
        new = []
        for question in questions:
            content = question_version_content(question, choices[question.pk])
            version = current.get(question.pk)
            if version is None:
                new.append(
                    QuestionVersion(
                        question_id=question.pk, number=1, revisions=_revisions(content, 1, None), **content
                    )
                )
            elif not _same(version, content):
                question_version_sync(question.pk)
        QuestionVersion.objects.bulk_create(new)


def _shown(version: QuestionVersion) -> bool:
    """Whether an attempt's layout holds it (and so may have shown it): then it never changes."""
    return AttemptQuestion.objects.filter(version_id=version.pk).exists()


def question_current_version(question_id: int) -> QuestionVersion | None:
    return QuestionVersion.objects.filter(question_id=question_id).order_by("-number").first()


def _sync_asked(question_id: int) -> None:
    """A question's rows were written: its version synced now, or once at the end of a load
    (``common.loading``; ``quizzes.content.cache.quiz_contents_loaded`` syncs them)."""
    touched = collecting()
    if touched is None:
        question_version_sync(question_id)
    else:
        touched["questions"].add(question_id)


@receiver(post_save, sender=Question, dispatch_uid="question_version_question")
def _question_saved(sender, instance, **kwargs):
    _sync_asked(instance.pk)


@receiver(post_save, sender=Choice, dispatch_uid="question_version_choice_saved")
def _choice_saved(sender, instance, **kwargs):
    _sync_asked(instance.question_id)


@receiver(post_delete, sender=Choice, dispatch_uid="question_version_choice_deleted")
def _choice_deleted(sender, instance, origin=None, **kwargs):
    # A choice deleted with its question (or its quiz) leaves no version to update.
    deleted_itself = isinstance(origin, Choice) or (isinstance(origin, QuerySet) and origin.model is Choice)
    if deleted_itself:
        _sync_asked(instance.question_id)
