"""The base of Helena's management commands: usage errors and `--help` in German.

argparse writes its messages in English through `gettext.gettext` of the default domain, for which
no catalog exists, and Django prints them as "usage: … error: …" (or raises "Error: …" from
`call_command`). Installing a gettext catalog would change every parser of the process, so the
German parser translates the finished message instead: each message template that argparse (Python
3.11) passes to `_()` or `ngettext()` is matched back into its fields and written anew in German.
A test compares this catalog with argparse's source, so a new Python that adds a message is noticed.

Every command of our apps derives from `GermanBaseCommand` (a test checks that too); Django's own
commands (migrate, runserver) stay as Django writes them. `manage.py` itself (its overview and the
answer to an unknown command) is German through `GermanManagementUtility`."""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from difflib import get_close_matches
from typing import Any, NoReturn

from django.conf import settings
from django.core.management import ManagementUtility, get_commands
from django.core.management.base import BaseCommand, CommandError, CommandParser, DjangoHelpFormatter, SystemCheckError
from django.core.management.color import color_style

USAGE_PREFIX = "Aufruf: "
POSITIONALS_TITLE = "Argumente"
OPTIONALS_TITLE = "Optionen"
HELP_HELP = "diese Hilfe zeigen und beenden"
HELP_HINT = "Hilfe: {prog} --help"
COLORS_EXCLUSIVE = "--no-color und --force-color schließen einander aus."
USAGE_ERROR_EXIT_CODE = 2  # argparse's and the shell's convention for a wrong invocation

# The help texts of the options every Django command has, by dest.
BASE_OPTION_HELP = {
    "version": "Versionsnummer zeigen und beenden",
    "verbosity": "Ausführlichkeit: 0 = knapp, 1 = normal, 2 = ausführlich, 3 = sehr ausführlich",
    "settings": 'Python-Pfad des Einstellungsmoduls, z. B. "helena.settings.production" (sonst DJANGO_SETTINGS_MODULE)',
    "pythonpath": 'Verzeichnis, das dem Python-Pfad hinzugefügt wird, z. B. "/srv/helena"',
    "traceback": "bei einem Fehler den vollständigen Stacktrace zeigen",
    "no_color": "Ausgabe nicht einfärben",
    "force_color": "Ausgabe immer einfärben",
    "skip_checks": "Systemprüfungen überspringen",
}

# The name argparse gives a type in "invalid %(type)s value" → what a user was asked for.
TYPE_NOUNS = {"int": "Ungültige Zahl", "float": "Ungültige Zahl", "Decimal": "Ungültige Zahl", "Path": "Ungültiger Pfad"}

Fields = dict[str, str]

# Every message argparse wraps as "argument <name>: <message>" (an ArgumentError): the German text
# names the argument itself.
ARGUMENT_ERROR = "argument %(argument_name)s: %(message)s"


def _quoted(value: str) -> str:
    return f"„{value}“"


def _unrepr(text: str) -> str:
    """The value behind argparse's `%r` ('abc' → abc); the text itself if it is no literal."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    return str(value)


def _choices(text: str) -> str:
    """argparse lists choices as reprs joined by ", " ('inline', 'background' → inline, background)."""
    try:
        values = ast.literal_eval(f"[{text}]")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    return ", ".join(str(value) for value in values)


def _invalid_value(argument: str, fields: Fields) -> str:
    noun = TYPE_NOUNS.get(fields["type"], "Ungültiger Wert")
    return f"{noun} für {argument}: {_quoted(fields['value'])}"


# Tried in this order: "expected one argument" would also fit "expected %s argument".
ARGUMENT_MESSAGES: dict[str, Callable[[str, Fields], str]] = {
    "invalid %(type)s value: %(value)r": _invalid_value,
    "invalid choice: %(value)r (choose from %(choices)s)": lambda argument, fields: (
        f"Ungültige Auswahl für {argument}: {_quoted(fields['value'])} (möglich: {_choices(fields['choices'])})"
    ),
    "expected one argument": lambda argument, fields: f"{argument} braucht einen Wert.",
    "expected at most one argument": lambda argument, fields: f"{argument} nimmt höchstens einen Wert.",
    "expected at least one argument": lambda argument, fields: f"{argument} braucht mindestens einen Wert.",
    "expected %s argument": lambda argument, fields: f"{argument} braucht genau einen Wert.",
    "expected %s arguments": lambda argument, fields: f"{argument} braucht genau {fields['arg']} Werte.",
    "not allowed with argument %s": lambda argument, fields: f"{argument} geht nicht zusammen mit {fields['arg']}.",
    "ignored explicit argument %r": lambda argument, fields: (
        f"{argument} nimmt keinen Wert (angegeben: {_quoted(fields['arg'])})."
    ),
    "unknown parser %(parser_name)r (choices: %(choices)s)": lambda argument, fields: (
        f"Unbekannter Unterbefehl {_quoted(fields['parser_name'])} (möglich: {fields['choices']})"
    ),
    "can't open '%(filename)s': %(error)s": lambda argument, fields: (
        f"{argument}: Die Datei {_quoted(fields['filename'])} lässt sich nicht öffnen."
    ),
}


def _unrecognized(fields: Fields) -> str:
    words = fields["arg"].split(" ")
    if all(word.startswith("-") for word in words):
        return ("Unbekannte Option: " if len(words) == 1 else "Unbekannte Optionen: ") + ", ".join(words)
    if not any(word.startswith("-") for word in words):
        return ("Überzählige Angabe: " if len(words) == 1 else "Überzählige Angaben: ") + ", ".join(words)
    return "Unbekannte Angaben: " + ", ".join(words)


def _required(fields: Fields) -> str:
    names = fields["arg"].split(", ")
    return ("Fehlende Angabe: " if len(names) == 1 else "Fehlende Angaben: ") + ", ".join(names)


# Messages argparse passes to `error()` as they are.
PARSER_MESSAGES: dict[str, Callable[[Fields], str]] = {
    "unrecognized arguments: %s": _unrecognized,
    "the following arguments are required: %s": _required,
    "one of the arguments %s is required": lambda fields: f"Fehlende Angabe: eine von {', '.join(fields['arg'].split(' '))}",
    "ambiguous option: %(option)s could match %(matches)s": lambda fields: (
        f"Mehrdeutige Option: {fields['option']} passt zu {fields['matches']}"
    ),
    "unexpected option string: %s": lambda fields: f"Unerwartete Option: {fields['arg']}",
}

_PLACEHOLDER = re.compile(r"%(?:\((?P<name>\w+)\))?(?P<conversion>[sr])")


class _Template:
    """An argparse message template (`'invalid %(type)s value: %(value)r'`) read backwards: the
    fields of a message made from it, `%r` fields as the value they show."""

    def __init__(self, msgid: str) -> None:
        pattern: list[str] = []
        position = 0
        self.repr_fields: set[str] = set()
        for placeholder in _PLACEHOLDER.finditer(msgid):
            name = placeholder["name"] or "arg"
            if placeholder["conversion"] == "r":
                self.repr_fields.add(name)
            pattern += [re.escape(msgid[position : placeholder.start()]), f"(?P<{name}>.*?)"]
            position = placeholder.end()
        pattern.append(re.escape(msgid[position:]))
        self.pattern = re.compile("".join(pattern), re.DOTALL)

    def fields(self, message: str) -> Fields | None:
        match = self.pattern.fullmatch(message)
        if match is None:
            return None
        return {name: _unrepr(value) if name in self.repr_fields else value for name, value in match.groupdict().items()}


_ARGUMENT_ERROR = _Template(ARGUMENT_ERROR)
_ARGUMENT_TEMPLATES = [(_Template(msgid), render) for msgid, render in ARGUMENT_MESSAGES.items()]
_PARSER_TEMPLATES = [(_Template(msgid), render) for msgid, render in PARSER_MESSAGES.items()]


def usage_error_german(message: str) -> str:
    """The German text of an argparse error message. A message that is no argparse template (a
    command's own `missing_args_message`, a type function's German ArgumentTypeError) stays as it is,
    after the name of its argument."""
    wrapped = _ARGUMENT_ERROR.fields(message)
    if wrapped is not None:
        argument, inner = wrapped["argument_name"], wrapped["message"]
        for template, render_argument in _ARGUMENT_TEMPLATES:
            fields = template.fields(inner)
            if fields is not None:
                return render_argument(argument, fields)
        return f"{argument}: {inner}"
    for template, render in _PARSER_TEMPLATES:
        fields = template.fields(message)
        if fields is not None:
            return render(fields)
    return message


class GermanHelpFormatter(DjangoHelpFormatter):
    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, USAGE_PREFIX if prefix is None else prefix)


class GermanCommandParser(CommandParser):
    """Django's parser with German help headings and German usage errors: on the command line the
    message and a pointer to `--help` on stderr, exit code 2; from `call_command` a CommandError."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", GermanHelpFormatter)
        add_help = kwargs.pop("add_help", True)
        super().__init__(add_help=False, **kwargs)
        self._positionals.title = POSITIONALS_TITLE
        self._optionals.title = OPTIONALS_TITLE
        self.add_help = add_help
        if add_help:
            self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help=HELP_HELP)

    def error(self, message: str) -> NoReturn:
        german = usage_error_german(message)
        if self.called_from_command_line:
            self.exit(USAGE_ERROR_EXIT_CODE, f"{german}\n{HELP_HINT.format(prog=self.prog)}\n")
        raise CommandError(german, returncode=USAGE_ERROR_EXIT_CODE)


class GermanBaseCommand(BaseCommand):
    """The base of every management command of our apps (in place of Django's BaseCommand; a command
    extending another app's command lists it second: `class Command(GermanBaseCommand, Theirs)`).

    Builds the German parser with Django's base options (a test keeps them equal to Django's), and
    on the command line prints a CommandError as "Fehler: …" instead of "CommandError: …"."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        kwargs.setdefault("formatter_class", GermanHelpFormatter)
        parser = GermanCommandParser(
            prog=f"{os.path.basename(prog_name)} {subcommand}",
            description=self.help or None,
            missing_args_message=getattr(self, "missing_args_message", None),
            called_from_command_line=getattr(self, "_called_from_command_line", None),
            **kwargs,
        )
        help_of = BASE_OPTION_HELP
        self.add_base_argument(parser, "--version", action="version", version=self.get_version(), help=help_of["version"])
        self.add_base_argument(parser, "-v", "--verbosity", default=1, type=int, choices=[0, 1, 2, 3], help=help_of["verbosity"])
        self.add_base_argument(parser, "--settings", metavar="MODUL", help=help_of["settings"])
        self.add_base_argument(parser, "--pythonpath", metavar="VERZEICHNIS", help=help_of["pythonpath"])
        self.add_base_argument(parser, "--traceback", action="store_true", help=help_of["traceback"])
        self.add_base_argument(parser, "--no-color", action="store_true", help=help_of["no_color"])
        self.add_base_argument(parser, "--force-color", action="store_true", help=help_of["force_color"])
        if self.requires_system_checks:
            parser.add_argument("--skip-checks", action="store_true", help=help_of["skip_checks"])
        self.add_arguments(parser)
        return parser

    def execute(self, *args: Any, **options: Any) -> str | None:
        try:
            if options.get("force_color") and options.get("no_color"):
                raise CommandError(COLORS_EXCLUSIVE, returncode=USAGE_ERROR_EXIT_CODE)
            return super().execute(*args, **options)
        except CommandError as exc:
            on_command_line = getattr(self, "_called_from_command_line", False)
            if isinstance(exc, SystemCheckError) or not on_command_line or options.get("traceback"):
                raise
            self.stderr.write(f"Fehler: {exc}")
            sys.exit(exc.returncode)


class GermanManagementUtility(ManagementUtility):
    """`manage.py` itself in German: the overview of `manage.py help` (grouped by app, as Django
    groups it) and the answer to an unknown command. `help <Befehl>` and `<Befehl> --help` print
    the command's own help (German for our commands, see GermanBaseCommand)."""

    def main_help_text(self, commands_only: bool = False) -> str:
        if commands_only:
            return "\n".join(sorted(get_commands()))
        by_app: dict[str, list[str]] = defaultdict(list)
        for name, app in get_commands().items():
            by_app["django" if app == "django.core" else app.rpartition(".")[-1]].append(name)
        style = color_style()
        lines = ["", f"Hilfe zu einem Befehl: {self.prog_name} help <Befehl>", "", "Verfügbare Befehle:"]
        for app in sorted(by_app):
            lines += ["", style.NOTICE(f"[{app}]"), *(f"    {name}" for name in sorted(by_app[app]))]
        if self.settings_exception is not None:
            lines.append(
                style.NOTICE(
                    f"Nur Djangos eigene Befehle sind aufgeführt: die Einstellungen sind fehlerhaft ({self.settings_exception})."
                )
            )
        return "\n".join(lines)

    def fetch_command(self, subcommand: str) -> BaseCommand:
        commands = get_commands()
        if subcommand in commands:
            return super().fetch_command(subcommand)  # type: ignore[no-any-return]
        if os.environ.get("DJANGO_SETTINGS_MODULE"):
            settings.INSTALLED_APPS  # noqa: B018 - raises ImproperlyConfigured for broken settings, as Django does
        close = get_close_matches(subcommand, commands)
        hint = f" Meintest du {_quoted(close[0])}?" if close else ""
        sys.stderr.write(f"Unbekannter Befehl: {_quoted(subcommand)}.{hint}\nÜbersicht: {self.prog_name} help\n")
        sys.exit(USAGE_ERROR_EXIT_CODE)


def execute_from_command_line(argv: list[str] | None = None) -> None:
    """`manage.py`'s entry: Django's command line with German overview and errors."""
    GermanManagementUtility(argv).execute()
