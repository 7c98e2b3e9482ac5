# Urdu dates as Pakistan writes them: day, month, year, then the 24-hour clock after the Urdu
# comma. (Django has no Urdu formats: without these its English ones would be used.)
DATE_FORMAT = "j F Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j F Y، H:i"
SHORT_DATE_FORMAT = "d/m/Y"
SHORT_DATETIME_FORMAT = "d/m/Y H:i"
FIRST_DAY_OF_WEEK = 1
