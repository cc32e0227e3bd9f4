"""Embedded default for `make run`: one machine, no external services."""

import os

from .base import *  # noqa: F403
from .base import DATA_DIR, SECRET_KEY

# Off unless asked for (DEBUG=1): a Kanzlei running `make run` must never see a stack trace.
DEBUG = os.environ.get("DEBUG", "0") == "1"
if not SECRET_KEY:
    # A per-installation key kept next to the embedded database, never committed.
    _key_file = DATA_DIR / "secret_key"
    if not _key_file.exists():
        from django.core.management.utils import get_random_secret_key

        DATA_DIR.mkdir(parents=True, exist_ok=True)
        _key_file.write_text(get_random_secret_key())
        _key_file.chmod(0o600)
    SECRET_KEY = _key_file.read_text().strip()
WHITENOISE_USE_FINDERS = True
# Served from the apps' static folders through the finders; collecting them (STATIC_ROOT) is the
# production shape's step. Without this WhiteNoise warns at every start that the folder is missing.
STATIC_ROOT = None
