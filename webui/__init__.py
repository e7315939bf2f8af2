"""The application: the CLI, the companion loop, persistence and the Flask display."""
