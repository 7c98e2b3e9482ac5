"""Admin pages in tests: their URLs in a language, and a change form submitted as a
browser would (every field the page holds, then edits)."""

from django.urls import reverse
from django.utils import translation

from tests.conftest import html_tree


def admin_url(name, *args, language="en"):
    """The admin URL ``admin:<name>`` under the ``language`` prefix."""
    with translation.override(language):
        return reverse(f"admin:{name}", args=args)


def form_data(html: str, form_id: str) -> dict[str, object]:
    """The values a browser would send from the form ``form_id`` (checked boxes only, no buttons)."""
    form = html_tree(html).one("form", id=form_id)
    data: dict[str, object] = {}

    def add(name, value):
        if name in data:
            previous = data[name]
            data[name] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            data[name] = value

    for node in form.iter():
        name = node.get("name")
        if not name:
            continue
        if node.tag == "input":
            kind = node.get("type", "text")
            if kind in ("submit", "button", "image", "file"):
                continue
            if kind in ("checkbox", "radio"):
                if "checked" in node.attrs:
                    add(name, node.get("value", "on"))
                continue
            add(name, node.get("value", ""))
        elif node.tag == "textarea":
            add(name, _raw_text(node))
        elif node.tag == "select":
            selected = [option for option in node.find_all("option") if "selected" in option.attrs]
            for option in selected:
                add(name, option.get("value", ""))
    return {name: value for name, value in data.items() if "__prefix__" not in name}


def _raw_text(node) -> str:
    # Browsers drop the newline Django writes after <textarea>.
    text = "".join(child for child in node.children if isinstance(child, str))
    return text[1:] if text.startswith("\n") else text
