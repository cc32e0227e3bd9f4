from django.dispatch import Signal

# Sent after the transaction that stored a Dokument (or changed its text) has committed.
# Receivers get `dokument`, and `index_now` when the sender needs the full-text index written before
# it goes on, whatever the text's length. The search index (recherche) listens to it.
dokument_saved = Signal()
