from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class StrictJSONParser(JSONParser):
    """JSON whose nesting is too deep for Python's parser is a 400, not a 500.

    ``json.loads`` raises RecursionError (not ValueError) on "[[[[..." a
    hundred thousand levels deep, which DRF's parser does not catch.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
