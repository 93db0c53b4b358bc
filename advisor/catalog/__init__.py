"""Read-only queries: catalog rows in, domain dataclasses out (one module per domain area)."""
