"""Structured logs on stderr: one JSON object per line, tracebacks included.

Production has no console logging by default in Django (errors go to ``mail_admins``, which
has no admins here), so a 500 left no trace. ``LOGGING`` in settings sends every record at
INFO and above (``django.request`` errors with their traceback) through this formatter to
stderr, where gunicorn, systemd or a container runtime collects it.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", ...}``; ``traceback`` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request = getattr(record, "request", None)
        if request is not None and hasattr(request, "method"):
            entry["method"] = request.method
            entry["path"] = request.path
        status = getattr(record, "status_code", None)
        if status is not None:
            entry["status"] = status
        if record.exc_info:
            entry["exception"] = record.exc_info[0].__name__ if record.exc_info[0] else None
            entry["traceback"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)
