"""loaddata as modeltranslation's (which fills the translated columns), inside
``common.loading.rows_loaded``: what receivers derive from each row is derived once at the
end of the load, in its transaction. This app comes before modeltranslation in
INSTALLED_APPS so that this command is the one ``manage.py loaddata`` runs."""

from modeltranslation.management.commands import loaddata

from common.loading import rows_loaded


class Command(loaddata.Command):
    def loaddata(self, fixture_labels):
        # Inside handle()'s transaction: the rows and what is derived from them commit together.
        with rows_loaded():
            super().loaddata(fixture_labels)
