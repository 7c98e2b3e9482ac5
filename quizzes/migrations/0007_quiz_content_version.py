"""The version of each quiz's content, in the database that every process shares
(quizzes/content/cache.py). Each existing quiz gets one, drawn at random as every later one is."""

import secrets

import django.db.models.deletion
from django.db import migrations, models


def versions_create(apps, schema_editor):
    Quiz = apps.get_model("quizzes", "Quiz")
    QuizContentVersion = apps.get_model("quizzes", "QuizContentVersion")
    database = schema_editor.connection.alias
    QuizContentVersion.objects.using(database).bulk_create(
        QuizContentVersion(quiz_id=quiz_id, version=secrets.randbits(63))
        for quiz_id in Quiz.objects.using(database).values_list("pk", flat=True)
    )


class Migration(migrations.Migration):

    dependencies = [
        ('quizzes', '0006_enrollment_spelling'),
    ]

    operations = [
        migrations.CreateModel(
            name='QuizContentVersion',
            fields=[
                ('quiz', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='content_version', serialize=False, to='quizzes.quiz', verbose_name='quiz')),
                ('version', models.BigIntegerField()),
            ],
        ),
        migrations.RunPython(versions_create, migrations.RunPython.noop, elidable=True),
    ]
