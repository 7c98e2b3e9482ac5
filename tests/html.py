"""Pages as trees for assertions on structure, attributes and text: lxml's HTML parser
(libxml2, as forgiving as a browser) behind a small interface: ``find``, ``find_all``, ``one``,
``text``, ``attrs``, ``classes``, ``parent``, ``ancestors``, ``children``."""

import lxml.html
from lxml import etree


class HtmlNode:
    __slots__ = ("element",)

    def __init__(self, element):
        self.element = element

    @property
    def tag(self) -> str:
        return self.element.tag

    @property
    def attrs(self) -> dict[str, str]:
        return dict(self.element.attrib)

    def __getitem__(self, name: str) -> str:
        return self.element.attrib[name]

    def get(self, name: str, default=None):
        return self.element.attrib.get(name, default)

    def __eq__(self, other):
        return isinstance(other, HtmlNode) and other.element is self.element

    def __hash__(self):
        return hash(self.element)

    @property
    def classes(self) -> set[str]:
        return set((self.element.attrib.get("class") or "").split())

    @property
    def parent(self) -> "HtmlNode | None":
        parent = self.element.getparent()
        return None if parent is None else HtmlNode(parent)

    @property
    def children(self) -> list["HtmlNode | str"]:
        """Texts and elements in document order (comments left out)."""
        children = [self.element.text] if self.element.text else []
        for child in self.element:
            if isinstance(child.tag, str):
                children.append(HtmlNode(child))
            if child.tail:
                children.append(child.tail)
        return children

    @property
    def text(self) -> str:
        """All text inside, whitespace collapsed; an element's bounds count as a space."""
        parts = []

        def walk(element):
            if element.text and isinstance(element.tag, str):
                parts.append(element.text)
            for child in element:
                if isinstance(child.tag, str):
                    parts.append(" ")
                    walk(child)
                    parts.append(" ")
                if child.tail:
                    parts.append(child.tail)

        walk(self.element)
        return " ".join("".join(parts).split())

    def iter(self):
        for element in self.element.iterdescendants():
            if isinstance(element.tag, str):
                yield HtmlNode(element)

    def ancestors(self):
        for element in self.element.iterancestors():
            yield HtmlNode(element)

    def _matches(self, tag, class_, attrs) -> bool:
        element = self.element
        if tag is not None and element.tag != tag:
            return False
        if class_ is not None and not set(class_.split()) <= self.classes:
            return False
        for name, value in attrs.items():
            name = name.rstrip("_").replace("_", "-")
            if value is True:
                if name not in element.attrib:
                    return False
            elif element.attrib.get(name) != value:
                return False
        return True

    def find_all(self, tag=None, class_=None, **attrs) -> list["HtmlNode"]:
        return [node for node in self.iter() if node._matches(tag, class_, attrs)]

    def find(self, tag=None, class_=None, **attrs) -> "HtmlNode | None":
        return next(iter(self.find_all(tag, class_, **attrs)), None)

    def one(self, tag=None, class_=None, **attrs) -> "HtmlNode":
        found = self.find_all(tag, class_, **attrs)
        assert len(found) == 1, f"expected one <{tag} {class_ or ''} {attrs}>, found {len(found)}"
        return found[0]

    def __repr__(self):
        return f"<{self.tag} {self.attrs}>"


def html_tree(content: bytes | str) -> HtmlNode:
    """The document (a fragment too) as a tree whose root holds the whole page."""
    text = content.decode() if isinstance(content, bytes) else content
    if not text.strip():
        return HtmlNode(etree.Element("document"))
    document = lxml.html.document_fromstring(text) if "<html" in text[:1000].lower() else None
    if document is None:
        wrapper = etree.Element("document")
        for fragment in lxml.html.fragments_fromstring(text):
            if isinstance(fragment, str):
                if len(wrapper):
                    wrapper[-1].tail = (wrapper[-1].tail or "") + fragment
                else:
                    wrapper.text = (wrapper.text or "") + fragment
            else:
                wrapper.append(fragment)
        return HtmlNode(wrapper)
    wrapper = etree.Element("document")
    wrapper.append(document)
    return HtmlNode(wrapper)
