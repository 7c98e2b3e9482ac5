"""Charts drawn on the server as inline SVG: no JavaScript, nothing from elsewhere.

Only SVG presentation attributes (fill=, x=, font-family=), never style="":
the Content-Security-Policy admits no inline style.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

WIDTH = 480
LABEL_WIDTH = 120
VALUE_WIDTH = 80
BAR_WIDTH = WIDTH - LABEL_WIDTH - VALUE_WIDTH
BAR_HEIGHT = 18
LATIN_FONTS = "Roboto, 'Segoe UI', 'Noto Sans', Arial, sans-serif"
# As quizzes/static/quizzes/fonts.css names it; Nastaliq needs taller rows.
URDU_FONTS = "'Noto Nastaliq Urdu', 'Noto Naskh Arabic', serif"
BAR_FILL = "#5b6f8a"
CORRECT_FILL = "#1f6f3f"
TEXT_FILL = "#1a1a1a"


@dataclass(frozen=True)
class Bar:
    position: int
    count: int
    percent: float | None
    is_correct: bool


def _percent_label(bar: Bar) -> str:
    return _("no answers") if bar.percent is None else f"{bar.percent:.0f}% ({bar.count})"


def _bar_label(bar: Bar) -> str:
    label = _("Choice %(position)s") % {"position": bar.position}
    return f"✓ {label}" if bar.is_correct else label


def _description(bars: Sequence[Bar]) -> str:
    lines = []
    for bar in bars:
        if bar.percent is None:
            line = _("Choice %(position)s: no answers") % {"position": bar.position}
        else:
            line = _("Choice %(position)s: %(count)s answers, %(percent)s%%") % {
                "position": bar.position,
                "count": bar.count,
                "percent": f"{bar.percent:.0f}",
            }
        if bar.is_correct:
            line += " " + _("(correct answer)")
        lines.append(line)
    return "; ".join(lines) + "."


def choice_distribution_svg(*, bars: Sequence[Bar], chart_id: str, title: str, rtl: bool = False) -> SafeString:
    """Horizontal bars, one per choice: how often each was picked, the correct one hatched and ticked.

    ``chart_id`` makes the ids inside unique on the page. With ``rtl`` the
    chart is mirrored (labels on the right, bars growing leftwards) and its
    labels use the Urdu typeface.
    """
    row_height = 40 if rtl else 30
    height = row_height * len(bars) + 8
    fonts = URDU_FONTS if rtl else LATIN_FONTS
    direction = "rtl" if rtl else "ltr"
    title_id, desc_id, hatch_id = f"{chart_id}-title", f"{chart_id}-desc", f"{chart_id}-hatch"

    rows = []
    for index, bar in enumerate(bars):
        top = 4 + index * row_height
        middle = top + row_height / 2
        length = round(BAR_WIDTH * (bar.percent or 0) / 100, 1)
        if rtl:
            bar_x = WIDTH - LABEL_WIDTH - length
            label_x, value_x = WIDTH - 4, bar_x - 6
        else:
            bar_x = LABEL_WIDTH
            label_x, value_x = LABEL_WIDTH - 8, LABEL_WIDTH + length + 6
        # In right-to-left text "start" is the right end: both anchors read the same mirrored.
        label_anchor = "start" if rtl else "end"
        fill = f"url(#{hatch_id})" if bar.is_correct else BAR_FILL
        stroke = format_html(' stroke="{}" stroke-width="2"', CORRECT_FILL) if bar.is_correct else ""
        rows.append(
            format_html(
                '<g class="bar{}">'
                '<text x="{}" y="{}" text-anchor="{}" direction="{}" dominant-baseline="central"'
                ' font-family="{}" font-size="14" fill="{}"{}>{}</text>'
                '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"{}/>'
                '<text x="{}" y="{}" text-anchor="start" direction="{}" dominant-baseline="central"'
                ' font-family="{}" font-size="13" fill="{}">{}</text>'
                "</g>",
                " correct" if bar.is_correct else "",
                label_x,
                middle,
                label_anchor,
                direction,
                fonts,
                TEXT_FILL,
                mark_safe(' font-weight="bold"') if bar.is_correct else "",
                _bar_label(bar),
                bar_x,
                middle - BAR_HEIGHT / 2,
                length,
                BAR_HEIGHT,
                fill,
                stroke,
                value_x,
                middle,
                direction,
                fonts,
                TEXT_FILL,
                _percent_label(bar),
            )
        )
    axis_x = WIDTH - LABEL_WIDTH if rtl else LABEL_WIDTH
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" width="{width}"'
        ' height="{height}" role="img" aria-label="{title}" aria-describedby="{desc_id}" direction="{direction}">'
        '<title id="{title_id}">{title}</title><desc id="{desc_id}">{desc}</desc>'
        '<defs><pattern id="{hatch_id}" width="6" height="6" patternUnits="userSpaceOnUse"'
        ' patternTransform="rotate(45)"><rect width="6" height="6" fill="#cfe8d8"/>'
        '<rect width="3" height="6" fill="{correct}"/></pattern></defs>'
        '<line x1="{axis_x}" y1="0" x2="{axis_x}" y2="{height}" stroke="#767676" stroke-width="1"/>'
        "{rows}</svg>",
        width=WIDTH,
        height=height,
        title=title,
        title_id=title_id,
        desc_id=desc_id,
        desc=_description(bars),
        hatch_id=hatch_id,
        correct=CORRECT_FILL,
        direction=direction,
        axis_x=axis_x,
        rows=format_html_join("", "{}", ((row,) for row in rows)),
    )


def question_chart(question, *, rtl: bool = False) -> SafeString:
    """The choice distribution of a ``QuestionStatistics``."""
    bars = [Bar(choice.position, choice.count, choice.percent, choice.is_correct) for choice in question.choices]
    title = _("Question %(position)s: how often each choice was picked") % {"position": question.position}
    return choice_distribution_svg(bars=bars, chart_id=f"chart-q{question.id}", title=title, rtl=rtl)
