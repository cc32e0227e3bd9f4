"""Markdown to HTML for anything shown in the browser, and the one parse of Markdown that the Word
writer (schriftgut.vorlagen.markdown_absaetze) reads too: rendered, then sanitised with nh3 so
that no raw HTML from a document, a template or a model ever reaches the page or the file."""

import markdown
import nh3
from markdown.extensions.tables import TableExtension

ALLOWED_TAGS = {
    "p",
    "br",
    "strong",
    "em",
    "ul",
    "ol",
    "li",
    "blockquote",
    "code",
    "pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "a",
}
# a numbered list keeps its first number ("3. …"); table cells their alignment (amounts right)
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}


def render_markdown(text: str) -> str:
    html = markdown.markdown(
        text or "", extensions=[TableExtension(use_align_attribute=True), "sane_lists", "fenced_code"], output_format="html"
    )
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
