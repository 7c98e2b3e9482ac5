"""quizzes/content/bidi.py: which Latin runs of right-to-left text are isolated, and the HTML."""

import pytest

from quizzes.content.bidi import ISOLATED, isolated, runs_to_isolate
from quizzes.content.languages import LocalizedText
from quizzes.content.translation_checks import check_bidi

pytestmark = pytest.mark.database_independent

CASES = [
    # (Urdu text, the runs isolated)
    ("torch.utils.checkpoint میں checkpoint() ہے", ["torch.utils.checkpoint", "checkpoint()"]),
    # The Urdu parenthesis's closing bracket stays with the Urdu.
    ("(اور checkpoint_sequential()) فنکشن", ["checkpoint_sequential()"]),
    ("O(sqrt(N)) میموری 16 GB تک", ["O(sqrt(N))", "16 GB"]),
    # A bare word, or one in brackets, is strongly left to right: nothing to isolate.
    ("PyTorch میں (recomputation) سے", []),
    # Already isolated by the translator: left as it is.
    ("\u2066sqrt(N)\u2069 میں", []),
]


@pytest.mark.parametrize(("text", "runs"), CASES)
def test_the_runs_isolated_are_those_the_check_asks_to_mark(text, runs):
    assert [run for _start, _end, run in runs_to_isolate(ISOLATED.sub("\u2060", text))] == runs
    assert [problem.code for problem in check_bidi(text, "ur")] == ["bidi_unmarked"] * len(runs)


def test_the_html_isolates_each_run_and_escapes_the_rest():
    html = isolated("a<b میں checkpoint() & x", "ur")
    assert html == '<bdi dir="ltr">a&lt;b</bdi> میں <bdi dir="ltr">checkpoint()</bdi> &amp; x'
    assert isolated("\u2066sqrt(N)\u2069 میں", "ur") == "\u2066sqrt(N)\u2069 میں"


def test_left_to_right_text_is_only_escaped():
    assert isolated("checkpoint() <b>", "en") == "checkpoint() &lt;b&gt;"
    # A template shows a LocalizedText through its HTML form; the stored text is unchanged.
    text = LocalizedText("checkpoint() میں", "ur", "ur")
    assert text.__html__() == '<bdi dir="ltr">checkpoint()</bdi> میں' and str(text) == "checkpoint() میں"
