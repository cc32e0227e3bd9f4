"""What a failed run tells its user: a fixed German category, never the text of an exception.

The engine ends a run FAILED when no model is left after a model client's error, on an error of
its own, or when its process stopped it (agent/engine/loop.py); its outcome then carries the error's text. A model server's text
can name internal hosts or echo what it was sent (prompt snippets, client data), and `run.error`
goes everywhere the user looks: "Meine Aufträge", the run's reply in its conversation, the terminal
websocket frame (also on replay) and the admin. So a run keeps only the category, like an
escalation's `cause`; its finish reason names the same category for the operators.
"""

from __future__ import annotations

from agent.engine.loop import (
    ERR_PROCESS_STOPPED,
    ERR_RAW_CALL,
    FAILED_CONTEXT_OVERFLOW,
    FAILED_EMPTY_ANSWER,
    FAILED_MODEL_ERROR,
    FAILED_NO_MODEL,
    FAILED_PROCESS_STOPPED,
    FAILED_RAW_CALL,
    FAILED_STREAM_CUT,
    RunOutcome,
    RunStatus,
)

ERR_RUN_FAILED = "Helena ist bei diesem Auftrag auf einen internen Fehler gestoßen. Bitte versuche es erneut."
ERR_START = "Der Auftrag konnte nicht starten. Bitte versuche es erneut."
# by the engine's finish reason of a failed run (ModelErrorPolicy.finish_reason)
FAILURE_TEXTS = {
    FAILED_MODEL_ERROR: "Das Sprachmodell hat einen Fehler gemeldet. Bitte versuche es erneut.",
    FAILED_NO_MODEL: "Kein Sprachmodell erreichbar. Bitte versuche es später erneut.",
    FAILED_STREAM_CUT: "Der Modellserver hat seine Antwort vor ihrem Ende abgebrochen. Bitte versuche es erneut.",
    FAILED_CONTEXT_OVERFLOW: (
        "Die Anfrage passt nicht in das Kontextfenster des Sprachmodells. Bitte beginne ein neues Gespräch oder kürze die Frage."
    ),
    FAILED_EMPTY_ANSWER: (
        "Das Sprachmodell hat keine Antwort geliefert. Bitte versuche es erneut oder formuliere die Frage anders."
    ),
    FAILED_RAW_CALL: ERR_RAW_CALL,
    FAILED_PROCESS_STOPPED: ERR_PROCESS_STOPPED,
}


def outcome_error_public(outcome: RunOutcome) -> str:
    """The error a run stores and shows for `outcome`: for a failed run its category text, else the
    engine's own message (a time limit, nothing of a server)."""
    if outcome.status != RunStatus.FAILED:
        return outcome.error
    return FAILURE_TEXTS.get(outcome.finish_reason, ERR_RUN_FAILED)
