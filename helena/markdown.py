"""Markdown to HTML for anything shown in the browser: rendered, then sanitised with nh3 so that no
raw HTML from a document, a template or a model ever reaches the page."""

import markdown
import nh3

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
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}}


def render_markdown(text: str) -> str:
    html = markdown.markdown(text or "", extensions=["tables", "sane_lists"], output_format="html")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
