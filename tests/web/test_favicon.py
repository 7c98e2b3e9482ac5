from django.templatetags.static import static


def test_favicon_ico_redirects_to_the_icon(client, db):
    response = client.get("/favicon.ico")

    assert response.status_code == 302
    assert response["Location"] == static("quizzes/favicon.svg")
    assert "max-age=86400" in response["Cache-Control"]


def test_student_pages_name_the_icon(student_client):
    page = student_client.get("/en/").content.decode()

    assert f'<link rel="icon" href="{static("quizzes/favicon.svg")}" type="image/svg+xml">' in page
