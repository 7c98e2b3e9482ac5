"""The teachers' settings in the admin: a quiz's dates, time limit and review options, its
overrides (inline on its page and in their own list) and the course groups they may be for.

Each refusal is a message on its field, in the editor's language, before the database's
constraints are reached (never a 500, never "Constraint ... is violated"), and nothing is
written; the happy paths save what the page said.
"""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import translation

from quizzes.admin import override_forms, quiz_dates
from quizzes.models import CourseGroup, FeedbackTiming, Quiz, QuizOverride
from tests.admin_forms import admin_url, form_data
from tests.factories import CourseFactory, EnrollmentFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

OPENS = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
CLOSES = datetime(2026, 12, 14, 17, 0, tzinfo=UTC)


@pytest.fixture
def quiz(db) -> Quiz:
    # Unpublished: publishing asks for questions, which these tests do not need.
    course = CourseFactory(slug="settings-course", title_en="Settings course")
    return QuizFactory(course=course, slug="settings-quiz", title_en="Settings quiz", is_published=False)


@pytest.fixture
def amina(quiz):
    """A student enrolled in the quiz's course."""
    user = UserFactory(username="amina")
    EnrollmentFactory(user=user, course=quiz.course)
    return user


@pytest.fixture
def stranger(db):
    """A user enrolled in another course only."""
    user = UserFactory(username="stranger")
    EnrollmentFactory(user=user, course=CourseFactory(slug="other-course", title_en="Other course"))
    return user


def split(value: datetime | None) -> dict[str, str]:
    """A date and time as the admin's two inputs take them."""
    if value is None:
        return {"0": "", "1": ""}
    return {"0": value.strftime("%Y-%m-%d"), "1": value.strftime("%H:%M:%S")}


def dates(prefix: str = "", **values) -> dict[str, str]:
    """``opens_at=``/``closes_at=`` as POST fields, under ``prefix`` ("overrides-0-")."""
    return {f"{prefix}{name}_{part}": text for name, value in values.items() for part, text in split(value).items()}


def quiz_page_data(client, quiz, language="en", **changes):
    url = admin_url("quizzes_quiz_change", quiz.pk, language=language)
    data = form_data(client.get(url).text, "quiz_form")
    data.update(changes)
    data["_save"] = "Save"
    return url, data


def add_override(data, *, user="", group="", time_limit="", max_attempts="", **when) -> str:
    index = int(data["overrides-TOTAL_FORMS"])
    data["overrides-TOTAL_FORMS"] = str(index + 1)
    prefix = f"overrides-{index}-"
    data.update({f"{prefix}user": user, f"{prefix}group": group, f"{prefix}time_limit": time_limit})
    data[f"{prefix}max_attempts"] = max_attempts
    data.update(dates(prefix, **{"opens_at": None, "closes_at": None, **when}))
    return prefix


def errors(response) -> dict[str, list[str]]:
    """The page's errors by field: the main form's by name, each inline form's as
    "<prefix>-<name>" ("overrides-0-user"), a form's own as "<prefix>-__all__"."""
    assert response.status_code == 200, "the page was saved"
    found = {name: list(messages) for name, messages in response.context["adminform"].form.errors.items()}
    for inline in response.context.get("inline_admin_formsets", []):
        for form in inline.formset.forms:
            found.update({f"{form.prefix}-{name}": list(messages) for name, messages in form.errors.items()})
    assert "Constraint" not in response.text  # the model's last word, never the message staff read
    return found


def group_of(course, name="Extra time", members=()):
    group = CourseGroup.objects.create(course=course, name=name)
    group.members.set(members)
    return group


# The quiz's settings --------------------------------------------------------------------------


def test_the_quiz_page_has_the_dates_and_review_options_with_their_help(editor_client, quiz, parse_html):
    form = parse_html(editor_client.get(admin_url("quizzes_quiz_change", quiz.pk))).one("form", id="quiz_form")

    for name in ("opens_at_0", "opens_at_1", "closes_at_0", "closes_at_1", "time_limit"):
        assert form.find("input", name=name) is not None, name
    assert form.find("select", name="feedback_timing") is not None
    assert form.find("input", name="show_right_answer") is not None
    assert "Dates and time limit" in form.text and "Review options" in form.text
    assert str(Quiz._meta.get_field("time_limit").help_text) in form.text
    assert str(Quiz._meta.get_field("feedback_timing").help_text) in form.text


def test_the_settings_are_saved(editor_client, quiz):
    url, data = quiz_page_data(
        editor_client,
        quiz,
        time_limit="00:45:00",
        feedback_timing=FeedbackTiming.AFTER_CLOSE,
        **dates(opens_at=OPENS, closes_at=CLOSES),
    )
    data.pop("show_right_answer", None)  # unticked

    response = editor_client.post(url, data)

    assert response.status_code == 302, errors(response)
    quiz.refresh_from_db()
    assert (quiz.opens_at, quiz.closes_at, quiz.time_limit) == (OPENS, CLOSES, timedelta(minutes=45))
    assert (quiz.feedback_timing, quiz.show_right_answer) == (FeedbackTiming.AFTER_CLOSE, False)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (dates(opens_at=CLOSES, closes_at=OPENS), "closes_at", quiz_dates.CLOSES_BEFORE_OPENS),
        (dates(opens_at=OPENS, closes_at=OPENS), "closes_at", quiz_dates.CLOSES_BEFORE_OPENS),
        ({"time_limit": "00:00:00"}, "time_limit", quiz_dates.TIME_LIMIT_NOT_POSITIVE),
        ({"time_limit": "-00:10:00"}, "time_limit", quiz_dates.TIME_LIMIT_NOT_POSITIVE),
        (
            {"feedback_timing": FeedbackTiming.AFTER_CLOSE},
            "feedback_timing",
            quiz_dates.AFTER_CLOSE_WITHOUT_CLOSE,
        ),
    ],
    ids=["closes-before-opens", "closes-when-opens", "zero-limit", "negative-limit", "after-close-never-closes"],
)
def test_a_setting_the_quiz_can_not_keep_is_refused_on_its_field(editor_client, quiz, changes, field, message):
    url, data = quiz_page_data(editor_client, quiz, pass_mark="70", **changes)

    found = errors(editor_client.post(url, data))

    assert found == {field: [str(message)]}
    quiz.refresh_from_db()
    assert (quiz.opens_at, quiz.closes_at, quiz.time_limit, quiz.pass_mark) == (None, None, None, 50)
    assert quiz.feedback_timing == FeedbackTiming.IMMEDIATELY


def test_the_message_is_in_the_editors_language(editor_client, quiz):
    url, data = quiz_page_data(editor_client, quiz, language="ur", time_limit="00:00:00")

    found = errors(editor_client.post(url, data))

    with translation.override("ur"):
        assert found == {"time_limit": [str(quiz_dates.TIME_LIMIT_NOT_POSITIVE)]}


# Overrides on the quiz's page ---------------------------------------------------------------------


def test_the_quiz_page_lists_its_overrides(editor_client, quiz, amina, parse_html):
    group = group_of(quiz.course, members=[amina])
    QuizOverride.objects.create(quiz=quiz, user=amina, time_limit=timedelta(minutes=45))
    QuizOverride.objects.create(quiz=quiz, group=group, max_attempts=3)

    form = parse_html(editor_client.get(admin_url("quizzes_quiz_change", quiz.pk))).one("form", id="quiz_form")

    assert form.one("input", name="overrides-TOTAL_FORMS")["value"] == "2"
    assert form.one("input", name="overrides-0-user")["value"] == "amina"
    assert form.one("input", name="overrides-0-time_limit")["value"] == "00:45:00"
    selected = form.one("select", name="overrides-1-group").find("option", selected=True)
    assert selected["value"] == str(group.pk)
    assert form.one("input", name="overrides-1-max_attempts")["value"] == "3"


def test_the_add_page_has_the_settings_and_the_overrides(editor_client, db, parse_html):
    form = parse_html(editor_client.get(admin_url("quizzes_quiz_add"))).one("form", id="quiz_form")

    assert form.find("input", name="time_limit") is not None
    assert form.one("input", name="overrides-TOTAL_FORMS")["value"] == "0"


def test_an_override_for_an_enrolled_student_is_saved_with_the_quiz(editor_client, quiz, amina):
    url, data = quiz_page_data(editor_client, quiz, **dates(opens_at=OPENS, closes_at=CLOSES))
    add_override(data, user="amina", time_limit="00:45:00", closes_at=CLOSES + timedelta(days=2))

    response = editor_client.post(url, data)

    assert response.status_code == 302, errors(response)
    override = QuizOverride.objects.get(quiz=quiz)
    assert (override.user, override.group, override.opens_at) == (amina, None, None)
    assert (override.closes_at, override.time_limit) == (CLOSES + timedelta(days=2), timedelta(minutes=45))


def test_an_override_for_a_group_of_the_course_is_saved(editor_client, quiz, amina):
    group = group_of(quiz.course, members=[amina])
    url, data = quiz_page_data(editor_client, quiz)
    add_override(data, group=str(group.pk), max_attempts="0")

    response = editor_client.post(url, data)

    assert response.status_code == 302, errors(response)
    assert QuizOverride.objects.get(quiz=quiz).group == group
    assert QuizOverride.objects.get(quiz=quiz).max_attempts == 0


def test_an_override_for_a_student_not_enrolled_is_refused_and_nothing_is_written(editor_client, quiz, stranger):
    url, data = quiz_page_data(editor_client, quiz, pass_mark="70", **dates(opens_at=OPENS, closes_at=CLOSES))
    prefix = add_override(data, user="stranger", time_limit="00:45:00")

    found = errors(editor_client.post(url, data))

    message = override_forms.STUDENT_NOT_ENROLLED % {"student": "stranger", "course": quiz.course}
    assert found == {f"{prefix}user": [message]}
    assert "stranger is not enrolled in Settings course" in message
    assert not QuizOverride.objects.exists()
    quiz.refresh_from_db()
    assert (quiz.pass_mark, quiz.opens_at, quiz.closes_at) == (50, None, None)  # the quiz's edits neither


def test_a_quiz_date_moved_past_an_override_is_refused(editor_client, quiz, amina):
    QuizOverride.objects.create(quiz=quiz, user=amina, closes_at=CLOSES)
    url, data = quiz_page_data(editor_client, quiz, **dates(opens_at=CLOSES + timedelta(days=1)))

    found = errors(editor_client.post(url, data))

    assert list(found) == ["overrides-0-closes_at"]
    quiz.refresh_from_db()
    assert quiz.opens_at is None


@pytest.mark.parametrize(
    ("case", "field"),
    [
        ("neither", "user"),
        ("both", "group"),
        ("unknown-username", "user"),
        ("group-of-another-course", "group"),
        ("closes-before-its-opens", "closes_at"),
        ("closes-before-the-quiz-opens", "closes_at"),
        ("opens-after-the-quiz-closes", "opens_at"),
        ("zero-time-limit", "time_limit"),
        ("nothing-set", "__all__"),
    ],
)
def test_an_override_that_can_not_apply_is_refused_on_its_field(editor_client, quiz, amina, case, field):
    other_group = group_of(CourseFactory(slug="elsewhere"), name="Elsewhere")
    group = group_of(quiz.course, members=[amina])
    values = {
        "neither": {"time_limit": "00:45:00"},
        "both": {"user": "amina", "group": str(group.pk), "time_limit": "00:45:00"},
        "unknown-username": {"user": "nobody", "time_limit": "00:45:00"},
        "group-of-another-course": {"group": str(other_group.pk), "time_limit": "00:45:00"},
        "closes-before-its-opens": {"user": "amina", "opens_at": CLOSES, "closes_at": OPENS},
        "closes-before-the-quiz-opens": {"user": "amina", "closes_at": OPENS - timedelta(days=1)},
        "opens-after-the-quiz-closes": {"user": "amina", "opens_at": CLOSES + timedelta(days=1)},
        "zero-time-limit": {"user": "amina", "time_limit": "00:00:00"},
        "nothing-set": {"user": "amina"},
    }[case]
    url, data = quiz_page_data(editor_client, quiz, **dates(opens_at=OPENS, closes_at=CLOSES))
    prefix = add_override(data, **values)

    found = errors(editor_client.post(url, data))

    assert list(found) == [f"{prefix}{field}"], found
    assert not QuizOverride.objects.exists()


def test_an_override_closing_before_the_quiz_opens_names_both_dates(editor_client, quiz, amina):
    url, data = quiz_page_data(editor_client, quiz, **dates(opens_at=OPENS))
    prefix = add_override(data, user="amina", closes_at=OPENS - timedelta(hours=1))

    found = errors(editor_client.post(url, data))

    [message] = found[f"{prefix}closes_at"]
    expected = override_forms.OVERRIDE_CLOSES_BEFORE_OPENS % {
        "closes_at": "Dec. 7, 2026, 8 a.m. UTC",
        "opens_at": "Dec. 7, 2026, 9 a.m. UTC",
    }
    assert message == expected


# The list of overrides -------------------------------------------------------------------------


def test_the_override_list_filters_by_quiz(editor_client, quiz, amina, parse_html):
    other = QuizFactory(course=quiz.course, slug="other-quiz", title_en="Other quiz", is_published=False)
    QuizOverride.objects.create(quiz=quiz, user=amina, time_limit=timedelta(minutes=45))
    QuizOverride.objects.create(quiz=other, user=amina, max_attempts=2)

    everything = editor_client.get(admin_url("quizzes_quizoverride_changelist"))
    one_quiz = editor_client.get(admin_url("quizzes_quizoverride_changelist") + f"?quiz__id__exact={quiz.pk}")

    assert everything.status_code == one_quiz.status_code == 200
    assert everything.context["cl"].result_count == 2
    assert [override.quiz for override in one_quiz.context["cl"].result_list] == [quiz]


def test_an_override_is_added_in_its_own_page(editor_client, quiz, amina):
    url = admin_url("quizzes_quizoverride_add")
    data = {**form_data(editor_client.get(url).text, "quizoverride_form"), "quiz": str(quiz.pk), "user": "amina"}
    data.update({"time_limit": "01:30:00", "_save": "Save", **dates(opens_at=None, closes_at=None)})

    response = editor_client.post(url, data)

    assert response.status_code == 302, errors(response)
    assert QuizOverride.objects.get().time_limit == timedelta(hours=1, minutes=30)


def test_the_own_page_refuses_a_student_not_enrolled(editor_client, quiz, stranger):
    url = admin_url("quizzes_quizoverride_add")
    data = {**form_data(editor_client.get(url).text, "quizoverride_form"), "quiz": str(quiz.pk), "user": "stranger"}
    data.update({"time_limit": "01:30:00", "_save": "Save", **dates(opens_at=None, closes_at=None)})

    found = errors(editor_client.post(url, data))

    assert found == {"user": [override_forms.STUDENT_NOT_ENROLLED % {"student": "stranger", "course": quiz.course}]}
    assert not QuizOverride.objects.exists()


def test_a_second_override_for_the_same_student_is_refused(editor_client, quiz, amina):
    QuizOverride.objects.create(quiz=quiz, user=amina, max_attempts=2)
    url = admin_url("quizzes_quizoverride_add")
    data = {**form_data(editor_client.get(url).text, "quizoverride_form"), "quiz": str(quiz.pk), "user": "amina"}
    data.update({"max_attempts": "4", "_save": "Save", **dates(opens_at=None, closes_at=None)})

    found = errors(editor_client.post(url, data))

    assert found and QuizOverride.objects.get().max_attempts == 2


def test_a_teacher_sees_the_overrides_on_the_quiz_page_and_edits_them_in_their_list(client, teacher, quiz, amina):
    QuizOverride.objects.create(quiz=quiz, user=amina, time_limit=timedelta(minutes=45))
    client.force_login(teacher)

    page = client.get(admin_url("quizzes_quiz_change", quiz.pk))
    override_list = client.get(admin_url("quizzes_quizoverride_changelist"))

    assert page.status_code == 200 and "amina" in page.text and "0:45:00" in page.text
    assert 'name="overrides-0-user"' not in page.text  # read-only there: the quiz is not theirs to change
    assert override_list.status_code == 200 and override_list.context["cl"].result_count == 1
    assert client.get(admin_url("quizzes_quizoverride_add")).status_code == 200


# Course groups ---------------------------------------------------------------------------------


def group_page_data(client, group=None, **changes):
    url = admin_url("quizzes_coursegroup_change", group.pk) if group else admin_url("quizzes_coursegroup_add")
    data = form_data(client.get(url).text, "coursegroup_form")
    data.update(changes)
    data["_save"] = "Save"
    return url, data


def test_a_group_of_enrolled_students_is_saved(editor_client, quiz, amina, parse_html):
    url, data = group_page_data(editor_client, course=str(quiz.course.pk), name="Extra time", members=[str(amina.pk)])
    tree = parse_html(editor_client.get(url))

    response = editor_client.post(url, data)

    assert "selectfilter" in tree.one("select", name="members").classes  # filter_horizontal
    assert response.status_code == 302, errors(response)
    group = CourseGroup.objects.get()
    assert (group.course, group.name, list(group.members.all())) == (quiz.course, "Extra time", [amina])
    assert editor_client.get(admin_url("quizzes_coursegroup_changelist")).context["cl"].result_count == 1


def test_a_member_not_enrolled_in_the_course_is_refused_by_name(editor_client, quiz, amina, stranger):
    url, data = group_page_data(
        editor_client, course=str(quiz.course.pk), name="Extra time", members=[str(amina.pk), str(stranger.pk)]
    )

    found = errors(editor_client.post(url, data))

    message = override_forms.MEMBERS_NOT_ENROLLED % {"course": quiz.course, "students": "stranger"}
    assert found == {"members": [message]}
    assert "Not enrolled in Settings course: stranger." in message
    assert not CourseGroup.objects.exists()


def test_a_group_with_overrides_stays_in_its_course(editor_client, quiz, amina):
    group = group_of(quiz.course, members=[])
    QuizOverride.objects.create(quiz=quiz, group=group, max_attempts=3)
    url, data = group_page_data(editor_client, group, course=str(CourseFactory(slug="elsewhere").pk))

    found = errors(editor_client.post(url, data))

    assert list(found) == ["course"]
    group.refresh_from_db()
    assert group.course == quiz.course
