"""Question files teachers already have: Moodle XML, GIFT and Aiken (parse and render).

Each format's module turns a file's bytes into ``seedformat.ParsedQuiz`` structures (one per
language the file holds, with the key and explanations where the format carries them) and a
quiz back into a file; ``files`` names the formats for the commands and the admin.
"""
