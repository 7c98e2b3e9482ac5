import codecs
import math

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils import json


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 32 else f"{text[:32]}..."
        raise ValueError(f"Out of range float values are not JSON compliant: {shown}")
    return value


class StrictJSONParser(JSONParser):
    """DRF's JSON parser (strict: no NaN or Infinity), with two more bodies a 400, not a 500.

    - Nesting too deep for Python's parser: ``json.loads`` raises RecursionError (not
      ValueError) on "[[[[..." a hundred thousand levels deep, which DRF's parser does not catch.
    - A number too large for a float (``1e999``): Python reads it as infinity, the value
      DRF's strict parsing refuses when it is written ``Infinity``.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = get_encoding(parser_context or {})
        try:
            return json.load(codecs.getreader(encoding)(stream), parse_float=_finite_float)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None
