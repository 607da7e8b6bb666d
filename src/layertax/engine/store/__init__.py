"""Keeping results: the result document (schema, atomic saving, loading), the history index,
and imports of other tools' results."""
