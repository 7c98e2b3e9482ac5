"""One platform, end to end: its login and launch (tests/integrations/lti_platform.py) open the
quiz for a new student; the student takes it; ``send_outbox`` posts the grade to the platform's
line item (tests/integrations/lti_services_platform.py) once, exactly (7 of 8 right is 7 of a
column out of 8), with a token the platform issued against the tool's JWKS; and the platform's
roster comes into the course."""

import io

from django.core.cache import cache
from django.core.management import call_command
from lti_tool.models import Key, LtiLineItem, LtiUser

from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
from quizzes.integrations.lti.roster import course_roster_import
from quizzes.models import Enrollment, Quiz
from tests.integrations.lti_platform import AGS_CLAIM, NRPS_CLAIM, LoopbackPlatform
from tests.integrations.lti_services_platform import SCORE_TYPE

COURSE = "memory-efficient-training"
QUIZ = "gradient-checkpointing"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


def test_launch_take_the_quiz_and_the_grade_reaches_the_platform_once(client, content, platform, editor):
    cache.clear()
    with LoopbackPlatform() as lms:
        lms.register(COURSE, token_url=platform.token_url)  # the platform's services answer apart
        platform.reset(jwks=Key.objects.as_jwks())  # the platform reads the tool's JWKS

        def claims(nonce):
            found = lms.claims(nonce, quiz=QUIZ, locale="sn")
            found[AGS_CLAIM] = {**found[AGS_CLAIM], "lineitem": platform.line_item_url(1)}
            found[NRPS_CLAIM] = {**found[NRPS_CLAIM], "context_memberships_url": platform.memberships_url}
            return found

        response, _form = lms.launch(client, claims=claims)
    assert response.status_code == 302 and response["Location"] == f"/sn/quizzes/{QUIZ}/"
    assert client.get(response["Location"]).status_code == 200
    lti_user = LtiUser.objects.get(sub="student-1")
    student, quiz = lti_user.auth_user, Quiz.objects.get(slug=QUIZ)

    # The launch made the column out of 100; this platform's is out of 8, one point a question.
    line_item = LtiLineItem.objects.get(url=platform.line_item_url(1))
    assert line_item.maximum_score == 100
    line_item.maximum_score = 8
    line_item.save(update_fields=["maximum_score"])

    attempt, _created = attempt_start(user=student, quiz=quiz)
    for position, slot in enumerate(attempt.drawn_layout):  # 7 of 8 right
        choices = quiz.questions.get(pk=slot.question_id).choices
        choice = choices.get(is_correct=True) if position < 7 else choices.filter(is_correct=False).first()
        attempt_answer_submit(
            user=student, attempt_id=attempt.pk, question_id=slot.question_id, choice_id=choice.pk, language="sn"
        )
    attempt = attempt_finish(attempt=attempt)
    assert (attempt.score, attempt.max_score, attempt.percent) == (7, 8, 87)
    assert platform.state.requests == []  # the finish waited for no platform

    call_command("send_outbox", "--once", stdout=io.StringIO())
    call_command("send_outbox", "--once", stdout=io.StringIO())  # nothing twice
    [post] = platform.state.scores
    assert {name.lower(): value for name, value in post.headers.items()}["content-type"] == SCORE_TYPE
    assert post.body["userId"] == "student-1"
    assert (post.body["scoreGiven"], post.body["scoreMaximum"]) == (7, 8)  # not 87 % of 8 (6.96)
    assert (post.body["activityProgress"], post.body["gradingProgress"]) == ("Completed", "FullyGraded")

    # The roster the launch pointed at comes into the course the launch mapped.
    platform.state.members_pages = [
        [{"user_id": "student-1", "roles": [LEARNER], "status": "Active"}],
        [{"user_id": "student-2", "roles": [LEARNER], "status": "Active", "name": "Rudo"}],
    ]
    report = course_roster_import(course=quiz.course, changed_by=editor)
    assert (report.added, report.already_enrolled) == (1, 1)
    newcomer = LtiUser.objects.get(sub="student-2").auth_user
    assert Enrollment.objects.filter(course=quiz.course, user=newcomer).exists()
