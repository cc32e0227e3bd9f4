from django.dispatch import Signal

# Sent after the transaction that stored a Dokument (or changed its text) has committed.
# Receivers get `dokument`. The search index (recherche) listens to it.
dokument_saved = Signal()
