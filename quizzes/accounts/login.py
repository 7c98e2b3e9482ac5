"""The logins (the students' and the admin's): Django's, warning before the failure that would
lock the username out."""

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from quizzes.accounts.lockout import failures_left, last_try_warning


class WarnsBeforeLockout:
    """A login form that says, under a wrong password, when one more failure locks it out."""

    def clean(self):
        try:
            return super().clean()
        except ValidationError as error:
            self.add_error(None, error)
            # The failure was counted when the password was checked (axes' signal), and only
            # a username the field accepted reached that check (a NUL, say, is refused before
            # it). A right password refused for another reason (an inactive or non-staff account)
            # counted no failure.
            username = self.cleaned_data.get("username")
            if self.get_user() is None and username and failures_left(self.request, {"username": username}) == 1:
                self.add_error(None, last_try_warning(self.request))
            return self.cleaned_data


class LoginForm(WarnsBeforeLockout, AuthenticationForm):
    pass


class AdminLoginForm(WarnsBeforeLockout, AdminAuthenticationForm):
    # Django's own words, in this project's catalogues too: Django's Urdu lacks them and it has no Shona.
    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "invalid_login": _(
            "Please enter the correct %(username)s and password for a staff account. Note that both fields may be "
            "case-sensitive."
        ),
    }


class LoginView(auth_views.LoginView):
    authentication_form = LoginForm
    redirect_authenticated_user = True
