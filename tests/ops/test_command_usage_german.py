"""Our management commands answer a wrong invocation in German (Du-Form), with an exit code and
without a traceback: argparse's English ("usage: … error: unrecognized arguments") never reaches a
user, neither on the command line nor from `call_command`. `--help` is German too."""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import CommandError, call_command, find_commands, load_command_class
from django.core.management.base import BaseCommand

from helena.command_base import (
    ARGUMENT_ERROR,
    ARGUMENT_MESSAGES,
    PARSER_MESSAGES,
    GermanBaseCommand,
    GermanCommandParser,
    usage_error_german,
)

ROOT = Path(settings.BASE_DIR)
ENGLISH = re.compile(r"usage:|error:|\b(?:arguments?|invalid|expected|required|choose|unrecognized)\b", re.IGNORECASE)


def our_commands() -> list[tuple[str, str]]:
    """(app, command) for every command module of the apps in this repository."""
    return sorted(
        (app.name, name)
        for app in apps.get_app_configs()
        if Path(app.path).resolve().parent == ROOT
        for name in find_commands(str(Path(app.path) / "management"))
    )


def assert_german_usage_error(message: str) -> None:
    assert not ENGLISH.search(message), message
    assert "Traceback" not in message


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("helena_run", ["--user", "anwalt@kanzlei.example", "--bogus"], "Unbekannte Option: --bogus"),
        ("helena_run", ["Welche Fristen laufen?"], "Fehlende Angabe: --user"),
        ("helena_run", ["--user"], "--user braucht einen Wert."),
        (
            "helena_run",
            ["--user", "anwalt@kanzlei.example", "--mode", "schnell"],
            "Ungültige Auswahl für --mode: „schnell“ (möglich: inline, background)",
        ),
        ("helena_run", ["--user", "a@b.example", "--a", "12/25"], "Mehrdeutige Option: --a passt zu --akte, --allow-demo"),
        ("prune_run_traces", ["--days", "abc"], "Ungültige Zahl für --days: „abc“"),
        ("worker_health", ["--min", "1.5"], "Ungültige Zahl für --min: „1.5“"),
        ("ingest_gesetze", [], "Fehlende Angabe: pfad"),
        ("ingest_urteile", ["a.jsonl", "b.jsonl"], "Überzählige Angabe: b.jsonl"),
        ("restore", ["sicherungen/2026-12-04"], "Fehlende Angabe: --database"),
        ("embedding_cache", ["import"], "Ungültige Auswahl für aktion: „import“ (möglich: export)"),
        ("embed_chunks", ["--kind", "AKTE"], "Ungültige Auswahl für --kind: „AKTE“ (möglich: NORM, URTEIL, MUSTER, DOKUMENT)"),
        ("rebuild_postings", ["alles", "--schnell"], "Unbekannte Angaben: alles, --schnell"),
        ("seed_demo", ["-v", "7"], "Ungültige Auswahl für -v/--verbosity: „7“ (möglich: 0, 1, 2, 3)"),
        ("backup", ["--no-color", "--force-color"], "--no-color und --force-color schließen einander aus."),
        ("db_worker", ["--concurrency", "0"], "--concurrency: Eine ganze Zahl ab 1 erwartet, nicht „0“."),
        ("db_worker", ["--concurrency", "zwei"], "--concurrency: Eine ganze Zahl ab 1 erwartet, nicht „zwei“."),
        ("db_worker", ["--interval", "bald"], "--interval: Eine Zahl ab 0 (Sekunden) erwartet, nicht „bald“."),
        ("db_worker", ["--max-tasks", "0"], "--max-tasks: Eine ganze Zahl ab 1 erwartet, nicht „0“."),
    ],
)
def test_a_wrong_invocation_through_call_command_is_a_german_usage_error(command, args, message):
    with pytest.raises(CommandError) as refused:
        call_command(command, *args, stdout=io.StringIO(), stderr=io.StringIO())

    assert str(refused.value) == message
    assert refused.value.returncode == 2
    assert_german_usage_error(str(refused.value))


def manage(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "helena.settings.test"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["helena_run", "--user", "anwalt@kanzlei.example", "--bogus"], "Unbekannte Option: --bogus"),
        (["prune_run_traces", "--days", "abc"], "Ungültige Zahl für --days: „abc“"),
    ],
)
def test_a_wrong_invocation_on_the_command_line_is_a_german_usage_error(args, message):
    finished = manage(*args)

    assert finished.returncode == 2
    assert finished.stderr == f"{message}\nHilfe: manage.py {args[0]} --help\n"
    assert finished.stdout == ""
    assert_german_usage_error(finished.stderr)


def test_an_error_of_the_command_itself_reads_fehler_on_the_command_line():
    finished = manage("prune_run_traces", "--days", "0", "--skip-checks")

    assert finished.returncode == 2
    assert finished.stderr.strip() == "Fehler: Die Aufbewahrung muss mindestens einen Tag betragen."
    assert "CommandError" not in finished.stderr


def test_help_on_the_command_line_is_german():
    finished = manage("helena_run", "--help")

    assert finished.returncode == 0
    assert finished.stdout.startswith("Aufruf: manage.py helena_run [-h] --user E-MAIL")
    for heading in ("Argumente:", "Optionen:", "diese Hilfe zeigen und beenden", "Systemprüfungen überspringen"):
        assert heading in finished.stdout
    for english in ("usage:", "positional arguments", "options:", "show this help", "Verbosity level"):
        assert english not in finished.stdout


def test_every_command_of_our_apps_uses_the_german_base():
    commands = our_commands()
    assert {("agent", "helena_run"), ("agent", "db_worker"), ("recherche", "ingest_gesetze")} <= set(commands)

    not_german = [name for app, name in commands if not isinstance(load_command_class(app, name), GermanBaseCommand)]

    assert not_german == [], "Commands must derive from helena.command_base.GermanBaseCommand"


@pytest.mark.parametrize(("app", "name"), our_commands())
def test_the_german_parser_has_the_options_django_gives_a_command(app, name):
    command = load_command_class(app, name)

    def options(parser):
        return sorted((tuple(action.option_strings), action.dest, type(action).__name__) for action in parser._actions)

    assert options(command.create_parser("manage.py", name)) == options(BaseCommand.create_parser(command, "manage.py", name))


ENGLISH_HELP = re.compile(r"\b(?:the|and|to|of|or|is|be|if|default|show|display|must|queues?)\b", re.IGNORECASE)


@pytest.mark.parametrize(("app", "name"), our_commands())
def test_every_argument_of_our_commands_is_described_in_german(app, name):
    """Help text and value placeholder (metavar) of each argument come from us, in German."""
    parser = load_command_class(app, name).create_parser("manage.py", name)
    text = parser.format_help()

    assert isinstance(parser, GermanCommandParser)
    assert text.startswith(f"Aufruf: manage.py {name}")
    assert "usage:" not in text and "options:" not in text and "positional arguments" not in text
    for action in parser._actions:
        assert action.help, f"{name} {action.option_strings or action.dest}: Hilfetext fehlt"
        words = re.sub(r"%\(\w+\)s", "", action.help)  # argparse's placeholders, e.g. %(default)s
        assert not ENGLISH_HELP.search(words), f"{name} {action.option_strings or action.dest}: {action.help}"
        if action.option_strings and action.nargs != 0 and action.choices is None:
            assert action.metavar, f"{name} {action.option_strings}: ohne metavar zeigt --help den englischen dest"


def parser_for_unit_tests() -> GermanCommandParser:
    parser = GermanCommandParser(prog="manage.py probe")
    parser.add_argument("--punkte", nargs=2, type=int)
    parser.add_argument("--flagge", action="store_true")
    parser.add_argument("--datei", type=argparse.FileType("r"))
    exclusive = parser.add_mutually_exclusive_group(required=True)
    exclusive.add_argument("--hell", action="store_true")
    exclusive.add_argument("--dunkel", action="store_true")
    return parser


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--flagge"], "Fehlende Angabe: eine von --hell, --dunkel"),
        (["--hell", "--dunkel"], "--dunkel geht nicht zusammen mit --hell."),
        (["--hell", "--punkte", "1"], "--punkte braucht genau 2 Werte."),
        (["--hell", "--punkte", "1", "x"], "Ungültige Zahl für --punkte: „x“"),
        (["--hell", "--flagge=ja"], "--flagge nimmt keinen Wert (angegeben: „ja“)."),
        (["--hell", "--datei", "/nicht/da.txt"], "--datei: Die Datei „/nicht/da.txt“ lässt sich nicht öffnen."),
        (["--hell", "--unbekannt", "--noch-eine"], "Unbekannte Optionen: --unbekannt, --noch-eine"),
    ],
)
def test_argparse_messages_are_translated_from_a_real_parser(args, message):
    with pytest.raises(CommandError) as refused:
        parser_for_unit_tests().parse_args(args)

    assert str(refused.value) == message
    assert_german_usage_error(message)


def test_several_missing_arguments_and_an_unknown_subcommand_are_german():
    parser = GermanCommandParser(prog="manage.py probe")
    parser.add_argument("quelle")
    parser.add_argument("--ziel", required=True)
    with pytest.raises(CommandError, match=r"^Fehlende Angaben: quelle, --ziel$"):
        parser.parse_args([])
    parser = GermanCommandParser(prog="manage.py probe")
    parser.add_subparsers(dest="was", required=True).add_parser("export")
    with pytest.raises(CommandError, match=r"^Ungültige Auswahl für was: „import“ \(möglich: export\)$"):
        parser.parse_args(["import"])


def test_a_message_that_is_no_argparse_template_stays_as_it_is():
    assert usage_error_german("Bitte einen Pfad angeben.") == "Bitte einen Pfad angeben."
    assert usage_error_german("argument --tage: Höchstens 365.") == "--tage: Höchstens 365."
    assert (
        usage_error_german("argument was: unknown parser 'import' (choices: export, backup)")
        == "Unbekannter Unterbefehl „import“ (möglich: export, backup)"
    )


# Raised while a command defines its options: a programming error, never a user's input.
ARGPARSE_DEFINITION_ERRORS = {
    ".__call__() not defined",
    "conflicting subparser: %s",
    "conflicting subparser alias: %s",
    'argument "-" with mode %r',  # a ValueError inside FileType: argparse reports "invalid FileType value"
    "cannot merge actions - two groups are named %r",
    "'required' is an invalid argument for positionals",
    "invalid option string %(option)r: must start with a character %(prefix_chars)r",
    "dest= is required for options like %r",
    "invalid conflict_resolution value: %r",
    "conflicting option string: %s",
    "conflicting option strings: %s",
    "mutually exclusive arguments must be optional",
    "cannot have multiple subparser arguments",
    "%r is not callable",
}
# Replaced by GermanCommandParser and GermanHelpFormatter.
ARGPARSE_HELP_AND_ERROR_FRAME = {
    "usage: ",
    "positional arguments",
    "options",
    "show this help message and exit",
    "%(prog)s: error: %(message)s\n",
}


def test_every_message_argparse_can_show_a_user_is_translated():
    source = ast.parse(Path(argparse.__file__).read_text(encoding="utf-8"))
    msgids = {
        argument.value
        for node in ast.walk(source)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"_", "ngettext"}
        for argument in node.args[: 2 if node.func.id == "ngettext" else 1]
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str)
    }
    translated = {ARGUMENT_ERROR, *ARGUMENT_MESSAGES, *PARSER_MESSAGES}

    assert msgids == translated | ARGPARSE_DEFINITION_ERRORS | ARGPARSE_HELP_AND_ERROR_FRAME


def test_manage_py_overview_is_german_and_lists_the_commands_by_app():
    done = manage("help")
    assert done.returncode == 0, done.stderr
    assert "Hilfe zu einem Befehl: manage.py help <Befehl>" in done.stdout
    assert "Verfügbare Befehle:" in done.stdout
    assert "[akten]" in done.stdout and "    dokumente_text_erneuern" in done.stdout
    assert "[django]" in done.stdout and "    migrate" in done.stdout
    assert "Type '" not in done.stdout and "subcommand" not in done.stdout


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("migrat", "Unbekannter Befehl: „migrat“. Meintest du „migrate“?\nÜbersicht: manage.py help\n"),
        ("gibtsnicht", "Unbekannter Befehl: „gibtsnicht“.\nÜbersicht: manage.py help\n"),
    ],
)
def test_manage_py_answers_an_unknown_command_in_german(command, message):
    done = manage(command)
    assert done.returncode == 2
    assert done.stderr == message
