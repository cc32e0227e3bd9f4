from django import template
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
