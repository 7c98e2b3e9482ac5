"""Question versions, attempts' layouts and the quiz settings they are drawn by.

Existing data: every question gets version 1, what it holds now (its offered choices, and any
archived choice an answer chose, so that a review can show it); every answer that version;
every attempt a layout in position order: the quiz's questions not archived, and those it
answered, with their choices in position order.
"""

import django.db.models.deletion

import quizzes.models
from django.db import migrations, models


LANGUAGE_SUFFIXES = ("en", "ur", "sn", "ind")
BATCH = 2000


def _texts(obj, fields):
    return {f"{field}_{suffix}": getattr(obj, f"{field}_{suffix}") or "" for field in fields for suffix in LANGUAGE_SUFFIXES}


def versions_and_layouts(apps, schema_editor):
    database = schema_editor.connection.alias
    Question = apps.get_model("quizzes", "Question")
    Choice = apps.get_model("quizzes", "Choice")
    QuestionVersion = apps.get_model("quizzes", "QuestionVersion")
    Attempt = apps.get_model("quizzes", "Attempt")
    AttemptQuestion = apps.get_model("quizzes", "AttemptQuestion")
    Answer = apps.get_model("quizzes", "Answer")
    answered_choices = set(Answer.objects.using(database).values_list("choice_id", flat=True).distinct())
    choices_of = {}
    for choice in Choice.objects.using(database).order_by("question_id", "position"):
        if not choice.is_archived or choice.pk in answered_choices:
            choices_of.setdefault(choice.question_id, []).append(choice)
    versions = []
    for question in Question.objects.using(database).order_by("pk"):
        choices = choices_of.get(question.pk, [])
        names = ["text", "explanation", *(f"choice:{choice.pk}" for choice in choices)]
        versions.append(
            QuestionVersion(
                question_id=question.pk,
                number=1,
                texts=_texts(question, ("text", "explanation")),
                choices=[{"id": c.pk, "position": c.position, **_texts(c, ("text",))} for c in choices],
                correct_choice_id=next((c.pk for c in choices if c.is_correct and not c.is_archived), None),
                revisions={
                    language: {"question": 1, "texts": dict.fromkeys(names, 1)} for language in ("en", "ur", "sn", "id")
                },
            )
        )
    QuestionVersion.objects.using(database).bulk_create(versions, batch_size=BATCH)
    version_of = dict(QuestionVersion.objects.using(database).values_list("question_id", "pk"))
    order_of = {version.question_id: [choice["id"] for choice in version.choices] for version in versions}
    open_questions = {}
    for question in Question.objects.using(database).filter(is_archived=False).order_by("position"):
        open_questions.setdefault(question.quiz_id, []).append(question)
    positions = dict(Question.objects.using(database).values_list("pk", "position"))
    answered = {}
    for attempt_id, question_id in Answer.objects.using(database).values_list("attempt_id", "question_id"):
        answered.setdefault(attempt_id, set()).add(question_id)
    slots = []
    for attempt in Attempt.objects.using(database).order_by("pk").iterator(chunk_size=BATCH):
        asked = {question.pk for question in open_questions.get(attempt.quiz_id, [])} | answered.get(attempt.pk, set())
        for position, question_id in enumerate(sorted(asked, key=lambda pk: positions[pk]), start=1):
            slots.append(
                AttemptQuestion(
                    attempt_id=attempt.pk,
                    position=position,
                    question_id=question_id,
                    version_id=version_of[question_id],
                    choice_order=order_of[question_id],
                )
            )
        if len(slots) >= BATCH:
            AttemptQuestion.objects.using(database).bulk_create(slots)
            slots = []
    AttemptQuestion.objects.using(database).bulk_create(slots)
    for question_id, version_id in version_of.items():
        Answer.objects.using(database).filter(question_id=question_id).update(version_id=version_id)


class Migration(migrations.Migration):

    dependencies = [
        ('quizzes', '0007_quiz_content_version'),
    ]

    operations = [
        migrations.AddField(
            model_name='question',
            name='keep_choice_order',
            field=models.BooleanField(default=False, help_text='Never shuffle this question\'s choices (for "all of the above").', verbose_name='keep choice order'),
        ),
        migrations.AddField(
            model_name='question',
            name='pool',
            field=models.SlugField(blank=True, db_index=False, help_text='A short tag. When the quiz draws from this pool, each attempt asks only the number drawn.', verbose_name='pool'),
        ),
        migrations.AddField(
            model_name='quiz',
            name='questions_per_attempt',
            field=models.PositiveSmallIntegerField(default=0, help_text="Ask this many of the quiz's questions, drawn at random for each attempt; 0 asks them all.", verbose_name='questions per attempt'),
        ),
        migrations.AddField(
            model_name='quiz',
            name='shuffle_choices',
            field=models.BooleanField(default=False, help_text='Each attempt shows the choices in its own order, except where a question keeps its order.', verbose_name='shuffle choices'),
        ),
        migrations.AddField(
            model_name='quiz',
            name='shuffle_questions',
            field=models.BooleanField(default=False, help_text='Each attempt asks the questions in its own order.', verbose_name='shuffle questions'),
        ),
        migrations.AddField(
            model_name='regrade',
            name='versions',
            field=models.JSONField(default=list, verbose_name='versions regraded'),
        ),
        migrations.CreateModel(
            name='QuestionVersion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveSmallIntegerField(verbose_name='version')),
                ('texts', models.JSONField(verbose_name='texts')),
                ('choices', models.JSONField(verbose_name='choices')),
                ('correct_choice_id', models.BigIntegerField(null=True, verbose_name='correct choice')),
                ('revisions', models.JSONField(verbose_name='translation revisions')),
                ('token', models.BigIntegerField(default=quizzes.models.new_token, editable=False)),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created at')),
                ('question', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='versions', to='quizzes.question', verbose_name='question')),
            ],
            options={
                'verbose_name': 'question version',
                'verbose_name_plural': 'question versions',
                'ordering': ['question', 'number'],
            },
        ),
        migrations.CreateModel(
            name='AttemptQuestion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(verbose_name='position')),
                ('choice_order', models.JSONField(verbose_name='choice order')),
                ('attempt', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='layout', to='quizzes.attempt', verbose_name='attempt')),
                ('question', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='quizzes.question', verbose_name='question')),
                ('version', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='slots', to='quizzes.questionversion', verbose_name='version')),
            ],
            options={
                'verbose_name': 'attempt question',
                'verbose_name_plural': 'attempt questions',
                'ordering': ['attempt', 'position'],
            },
        ),
        migrations.AddField(
            model_name='answer',
            name='version',
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT, related_name='answers', to='quizzes.questionversion', verbose_name='version'),
        ),
        migrations.RunPython(versions_and_layouts, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='answer',
            name='version',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='answers', to='quizzes.questionversion', verbose_name='version'),
        ),
        migrations.CreateModel(
            name='PoolDraw',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('pool', models.SlugField(db_index=False, verbose_name='pool')),
                ('count', models.PositiveSmallIntegerField(verbose_name='questions drawn')),
                ('quiz', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='pool_draws', to='quizzes.quiz', verbose_name='quiz')),
            ],
            options={
                'verbose_name': 'pool draw',
                'verbose_name_plural': 'pool draws',
                'ordering': ['quiz', 'pool'],
                'constraints': [models.UniqueConstraint(fields=('quiz', 'pool'), name='pooldraw_unique_pool_in_quiz'), models.CheckConstraint(condition=models.Q(('count__gte', 1)), name='pooldraw_count_positive')],
            },
        ),
        migrations.AddConstraint(
            model_name='questionversion',
            constraint=models.UniqueConstraint(fields=('question', 'number'), name='questionversion_unique_number'),
        ),
        migrations.AddConstraint(
            model_name='questionversion',
            constraint=models.CheckConstraint(condition=models.Q(('number__gte', 1)), name='questionversion_number_positive'),
        ),
        migrations.AddConstraint(
            model_name='attemptquestion',
            constraint=models.UniqueConstraint(fields=('attempt', 'position'), name='attemptquestion_unique_position'),
        ),
        migrations.AddConstraint(
            model_name='attemptquestion',
            constraint=models.UniqueConstraint(fields=('attempt', 'question'), name='attemptquestion_unique_question'),
        ),
        migrations.AddConstraint(
            model_name='attemptquestion',
            constraint=models.CheckConstraint(condition=models.Q(('position__gte', 1)), name='attemptquestion_position_positive'),
        ),
    ]
