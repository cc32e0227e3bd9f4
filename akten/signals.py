from django.dispatch import Signal

# Sent after the transaction that stored a Dokument (or changed its text) has committed; the
# re-extraction of a stored text (`services.dokument_text_erneuern`) sends it inside its transaction,
# with `index_now`, as it needs the full-text index written (whatever the text's length) before it
# commits. Receivers get `dokument` and `index_now`. The search index (recherche) listens to it.
dokument_saved = Signal()
