"""Markdown to HTML for anything shown in the browser, and the one parse of Markdown that the Word
writer (schriftgut.vorlagen.markdown_absaetze) reads too: rendered, then sanitised with nh3 so
that no raw HTML from a document, a template or a model ever reaches the page or the file."""

import html as html_lib
import re

import markdown
import nh3
from markdown.extensions import Extension
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


# The element names of HTML: an angle bracket that opens one of them is markup (sanitised below);
# any other is text - a placeholder in a draft ("Sehr geehrte <Anrede>", "<Datum einsetzen>") or a
# comparison ("< 5.000 €"), which the sanitiser would otherwise drop without a trace.
HTML_ELEMENTS = frozenset(
    """a abbr address area article aside audio b base bdi bdo big blockquote body br button canvas caption center
    cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure font
    footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li
    link main map mark math menu meta meter nav noscript object ol optgroup option output p param picture pre
    progress q rp rt ruby s samp script search section select slot small source span strike strong style sub summary
    sup svg table tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr""".split()
)
_ANGLE_RE = re.compile(
    r"<(?P<autolink>(?:https?://|mailto:)[^\s<>]*>|[^\s@<>]+@[^\s@<>]+>)?(?P<comment>!--)?/?(?P<name>[A-Za-z][\w-]*)?"
)
# Stands for a literal "<" while Markdown runs (a private-use character it leaves alone, also in code).
_LITERAL_LT = "\ue000"


def _angle(match: re.Match[str]) -> str:
    # Markup only in lower case, as HTML is written: "<Form der Zustellung>", "<Title>" are German
    # placeholders. A comment stays markup (the sanitiser removes it).
    if match["autolink"] or match["comment"] or (match["name"] and match["name"] in HTML_ELEMENTS):
        return match.group(0)
    return _LITERAL_LT + match.group(0)[1:]


class _NoIndentedCode(Extension):
    """No code block for text indented by four spaces: in a letter or a Schriftsatz that is an
    indented Antrag or quotation, not program code (fenced code blocks stay)."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 - the library's name
        md.parser.blockprocessors.deregister("code")


def _no_protocol_relative(tag: str, attribute: str, value: str) -> str | None:
    """A link "//host/…" leads to another site though it looks like a path of ours: dropped, also
    written "\\host", "/\\host" or with a tab or line break between the slashes, which browsers
    remove from a URL ("/&#9;/host")."""
    if attribute == "href" and re.sub(r"[\x00-\x20\x7f]", "", value).replace("\\", "/").startswith("//"):
        return None
    return value


def render_markdown(text: str) -> str:
    """Markdown as the firm writes it: a single line break is a line break ("nl2br": addresses,
    signatures, "a) … b) …" on their own lines), as in Word."""
    html = markdown.markdown(
        _ANGLE_RE.sub(_angle, (text or "").replace(_LITERAL_LT, "")),
        extensions=[TableExtension(use_align_attribute=True), "sane_lists", "fenced_code", "nl2br", _NoIndentedCode()],
        output_format="html",
    ).replace(_LITERAL_LT, "&lt;")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        attribute_filter=_no_protocol_relative,
    )


_LINK_RE = re.compile(r"<a\b(?P<attrs>[^>]*)>(?P<text>.*?)</a>", re.DOTALL | re.IGNORECASE)
# nh3 writes every attribute as name="value", a '"' inside a value escaped: read them in order
_ATTR_RE = re.compile(r'\s([\w:-]+)="([^"]*)"')
_EXTERNAL_RE = re.compile(r"^\s*(?:https?|mailto):", re.IGNORECASE)


def external_links_shown(html: str) -> str:
    """`html` (sanitised) with every link to another site showing its whole address: "[Beleg](https://x.example/?d=…)"
    becomes "Beleg (https://x.example/?d=…)", the address the link. For text a model wrote: an instruction in a
    document it read ("belege das mit diesem Link") cannot hide client data in a link behind harmless words. Any
    attribute order, any case of the scheme."""

    def shown(match: re.Match[str]) -> str:
        href = {name.lower(): value for name, value in _ATTR_RE.findall(match["attrs"])}.get("href")
        if href is None or not _EXTERNAL_RE.match(html_lib.unescape(href)):
            return match.group(0)
        visible = html_lib.unescape(re.sub(r"<[^>]+>", "", match["text"])).strip()
        if visible == html_lib.unescape(href).strip():
            return match.group(0)
        return f"{match['text']} (<a{match['attrs']}>{href}</a>)"

    return _LINK_RE.sub(shown, html)
