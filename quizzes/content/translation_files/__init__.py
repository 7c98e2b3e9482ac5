"""A quiz's translations as files for translators' tools: XLIFF 1.2 and PO.

``units`` lists the translatable texts of a quiz (one unit per translated
field that has English), ``export`` writes them in one language with their
states, ``imports`` reads a file back, all or nothing. Both formats are read
and written with translate-toolkit, so that the files are what Weblate,
Pontoon, Poedit or a CAT tool expect.
"""
