"""Errors the CLI turns into exit codes."""


class UsageError(Exception):
    """Bad input from the user (unreadable file, malformed argument): one line on stderr, exit 2."""


class NotFound(Exception):
    """The thing asked for is not there (no board in the image): one line on stderr, exit 1."""
