"""The production settings as the production-shape test runs them: unchanged except that the
users the test creates carry the test settings' fast password hash."""

from helena.settings.production import *  # noqa: F403

PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
