"""An HTML page read back as a small tree (html.parser), for the tests of `maskref explain`'s page."""
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children = []

    @property
    def classes(self):
        return (self.attrs.get("class") or "").split()

    def text(self):
        out, stack = [], [self]
        while stack:
            n = stack.pop()
            if isinstance(n, str):
                out.append(n)
            else:
                stack.extend(reversed(n.children))
        return "".join(out)

    def find_all(self, tag=None, cls=None, **attrs):
        out, stack = [], list(reversed(self.children))
        while stack:
            n = stack.pop()
            if isinstance(n, str):
                continue
            if ((tag is None or n.tag == tag) and (cls is None or cls in n.classes)
                    and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())):
                out.append(n)
            stack.extend(reversed(n.children))
        return out

    def kids(self, tag):
        return [n for n in self.children if not isinstance(n, str) and n.tag == tag]

    def find(self, tag=None, cls=None, **attrs):
        found = self.find_all(tag, cls, **attrs)
        assert found, (tag, cls, attrs)
        return found[0]


class TreeBuilder(HTMLParser):
    """A tree of the page; fails on a closing tag that does not match the open one."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.open = Node("#document", [], None)
        self.start_tags = []

    def handle_starttag(self, tag, attrs):
        self.start_tags.append((tag, attrs))
        node = Node(tag, attrs, self.open)
        self.open.children.append(node)
        if tag not in VOID:
            self.open = node

    def handle_startendtag(self, tag, attrs):
        self.start_tags.append((tag, attrs))
        self.open.children.append(Node(tag, attrs, self.open))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        assert self.open.tag == tag, "</%s> closes <%s>" % (tag, self.open.tag)
        self.open = self.open.parent

    def handle_data(self, data):
        self.open.children.append(data)


def read_page(page):
    """The page as a tree of Nodes, each reference to a part drawn earlier (`div.ref`: a
    row, a DFA picture) replaced by a copy of it, as the page's script does; fails on
    unclosed or mismatched tags and on a reference to nothing."""
    b = TreeBuilder()
    b.feed(page)
    b.close()
    assert b.open is b.root, "unclosed <%s>" % b.open.tag
    by_id = {n.attrs["id"]: n for n in b.root.find_all() if "id" in n.attrs}
    for ref in b.root.find_all("div", "ref"):
        source = by_id[ref.attrs["data-ref"]]
        copy = _copy(source, ref.parent)
        del copy.attrs["id"]
        ref.parent.children[ref.parent.children.index(ref)] = copy
    return b


def _copy(node, parent):
    out = Node(node.tag, node.attrs.items(), parent)
    out.children = [c if isinstance(c, str) else _copy(c, out) for c in node.children]
    return out
