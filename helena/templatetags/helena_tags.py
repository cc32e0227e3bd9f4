import re

from django import template
from django.template.defaultfilters import linebreaksbr
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from helena.icons import icon_svg
from helena.markdown import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    return mark_safe(render_markdown(text))  # noqa: S308 - sanitised by nh3 in render_markdown


@register.simple_tag(name="icon")
def icon_tag(name: str) -> SafeString:
    return icon_svg(name)


_SATZ_MARK = re.compile(r"&lt;sup&gt;(\d{1,3})&lt;/sup&gt;")


@register.filter(name="normtext")
def normtext_filter(text: str) -> SafeString:
    """A paragraph of a statute: escaped, line breaks kept, and the source's Satz numbers
    ("<sup>2</sup>", EStG) as superscripts instead of visible markup."""
    return linebreaksbr(mark_safe(_SATZ_MARK.sub(r"<sup>\1</sup>", escape(text))))  # noqa: S308 - escaped first
