"""The web login: Django's, warning before the failure that would lock the username out."""

from django.contrib.auth import views as auth_views

from quizzes.accounts.lockout import failures_left, last_try_warning


class LoginView(auth_views.LoginView):
    redirect_authenticated_user = True

    def form_invalid(self, form):
        # The failure was counted when the form checked the password (axes' signal). Only a
        # username the field accepted reached that check (a NUL, say, is refused before it).
        username = form.cleaned_data.get("username")
        if username and failures_left(self.request, {"username": username}) == 1:
            form.add_error(None, last_try_warning(self.request))
        return super().form_invalid(form)
