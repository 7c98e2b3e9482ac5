"""Seven foreign keys lose the index Django gave each one: a composite index of the same
table leads with the column and finds its rows as well (an answer's attempt: the unique
(attempt, question)). Each INSERT of an answer, an attempt or an enrolment then updates one
index fewer.

Only the indexes are dropped. An AlterField would also drop and re-create each foreign key
constraint, which on PostgreSQL validates it again over the whole table (the answers: every
row, under lock); here the database gets DROP INDEX alone and the migration state the
AlterFields. The names are the ones Django gave the indexes in 0001-0003 (the same on every
database: they derive from the table and column names).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# index name: (table, column)
INDEXES = {
    "quizzes_answer_attempt_id_edb0a031": ("quizzes_answer", "attempt_id"),
    "quizzes_attempt_user_id_ef81d7e3": ("quizzes_attempt", "user_id"),
    "quizzes_choice_question_id_46d39dbb": ("quizzes_choice", "question_id"),
    "quizzes_enrollment_user_id_447c0581": ("quizzes_enrollment", "user_id"),
    "quizzes_enrollmentchange_course_id_74a19c77": ("quizzes_enrollmentchange", "course_id"),
    "quizzes_idempotencykey_user_id_3aabd4b9": ("quizzes_idempotencykey", "user_id"),
    "quizzes_question_quiz_id_70961654": ("quizzes_question", "quiz_id"),
}


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0004_translation_sources_and_regrades"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    sql=[f'DROP INDEX IF EXISTS "{name}"' for name in INDEXES],
                    reverse_sql=[
                        f'CREATE INDEX "{name}" ON "{table}" ("{column}")' for name, (table, column) in INDEXES.items()
                    ],
                )
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="answer",
                    name="attempt",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="answers",
                        to="quizzes.attempt",
                        verbose_name="attempt",
                    ),
                ),
                migrations.AlterField(
                    model_name="attempt",
                    name="user",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="attempts",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="user",
                    ),
                ),
                migrations.AlterField(
                    model_name="choice",
                    name="question",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="choices",
                        to="quizzes.question",
                        verbose_name="question",
                    ),
                ),
                migrations.AlterField(
                    model_name="enrollment",
                    name="user",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="enrollments",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="user",
                    ),
                ),
                migrations.AlterField(
                    model_name="enrollmentchange",
                    name="course",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="enrollment_changes",
                        to="quizzes.course",
                        verbose_name="course",
                    ),
                ),
                migrations.AlterField(
                    model_name="idempotencykey",
                    name="user",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AlterField(
                    model_name="question",
                    name="quiz",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="questions",
                        to="quizzes.quiz",
                        verbose_name="quiz",
                    ),
                ),
            ],
        )
    ]
