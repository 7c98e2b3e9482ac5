from django.urls import path

from quizzes.web import practice, views

app_name = "quizzes"

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("courses/<slug:slug>/enroll/", views.course_enroll, name="course_enroll"),
    path("quizzes/<slug:slug>/", views.quiz_detail, name="quiz"),
    path("quizzes/<slug:slug>/start/", views.attempt_start_view, name="attempt_start"),
    path("attempts/<id:pk>/", views.attempt_resume, name="attempt"),
    path("attempts/<id:pk>/questions/<id:position>/", views.attempt_question, name="attempt_question"),
    path("attempts/<id:pk>/time/", views.attempt_time, name="attempt_time"),
    path("attempts/<id:pk>/finish/", views.attempt_finish_view, name="attempt_finish"),
    path("attempts/<id:pk>/result/", views.attempt_result, name="attempt_result"),
    path("attempts/<id:pk>/practice/", practice.attempt_practice, name="attempt_practice"),
]
