"""Hostile question files: whatever the bytes, a parser either reads them or refuses them with
a QuestionFileError naming a line of the file, never another exception (which would be a 500
in the admin)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzes.content.formats import aiken, gift, moodle_xml
from quizzes.content.seedformat import SeedFormatError

pytestmark = pytest.mark.database_independent  # pure parsing: once, in the SQLite pass

# GIFT's own characters, escapes, markers and keywords, mixed with text and line breaks.
GIFT_PIECES = st.sampled_from(
    ["::", "{", "}", "=", "~", "#", "####", "\\", "\\n", "\\{", ":", "->", "%50%", "%-100%", "%", "[html]",
     "[plain]", "[markdown]", "<p>", "</p>", "<b>", "&amp;", "T", "FALSE", "$CATEGORY: $course$/top/A", "//",
     "\n", "\n\n", " ", "a", "Which?", "_____", "\u202e", "ی", "\x00"]
)  # fmt: skip
XML_PIECES = st.sampled_from(
    ['<?xml version="1.0"?>', "<quiz>", "</quiz>", '<question type="multichoice">', '<question type="truefalse">',
     '<question type="essay">', '<question type="category">', "</question>", "<questiontext>", "</questiontext>",
     "<text>", "</text>", '<answer fraction="100">', '<answer fraction="0">', '<answer fraction="x">',
     '<answer fraction="50">', "</answer>", "<single>false</single>", "<name>", "</name>", "true", "false",
     "<![CDATA[", "]]>", '<span lang="ur" class="multilang">', "</span>", "&amp;", "&lt;", "a", "\n"]
)  # fmt: skip


def text_of(pieces) -> bytes:
    return "".join(pieces).encode("utf-8")


def assert_read_or_refused(parse, data: bytes) -> None:
    try:
        parse(data)
    except SeedFormatError as error:  # QuestionFileError is one
        assert error.line >= 1 and error.message, (data, error)


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.lists(GIFT_PIECES, max_size=60), st.booleans())
def test_gift(pieces, skip):
    assert_read_or_refused(lambda data: gift.parse(data, skip_unsupported=skip), text_of(pieces))


@FUZZ
@given(st.lists(XML_PIECES, max_size=60), st.booleans())
def test_moodle_xml(pieces, skip):
    assert_read_or_refused(lambda data: moodle_xml.parse(data, skip_unsupported=skip), text_of(pieces))


@FUZZ
@given(
    st.lists(st.sampled_from(["Which?", "A. one", "B) two", "ANSWER: A", "ANSWER: Z", "\n", "C. x", " "]), max_size=40)
)
def test_aiken(pieces):
    assert_read_or_refused(aiken.parse, text_of(pieces))


@pytest.mark.parametrize("data", [b"\xff\xfe{", b"\x00" * 10, b"::", b"{", b"}", b"\\", b"=~", "{\u202e}".encode()])
def test_odd_bytes(data):
    assert_read_or_refused(gift.parse, data)
    assert_read_or_refused(moodle_xml.parse, data)
