"""The admin of the language settings: one row per translation language, made by a migration,
changed in the list or on its page, never added nor deleted here. A change is written by
``language_setting_update`` (the one way in), which also brings the questions' versions and
the quizzes' content up to date."""

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from quizzes.content.machine_translations import language_setting_update


class LanguageSettingAdmin(admin.ModelAdmin):
    list_display = ("language", "machine_translations")
    list_display_links = ("language",)
    list_editable = ("machine_translations",)
    fields = ("language", "machine_translations")
    readonly_fields = ("language",)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        try:
            language_setting_update(language=obj.language, machine_translations=obj.machine_translations)
        except ValidationError as error:  # the form's choices refuse these first: a forged post
            messages.error(request, " ".join(error.messages))
            return
        if "machine_translations" in form.changed_data:
            message = _("Students reading %(language)s now see: %(choice)s.")
            messages.info(
                request,
                message % {"language": obj.get_language_display(), "choice": obj.get_machine_translations_display()},
            )
