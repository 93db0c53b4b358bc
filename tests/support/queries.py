"""The catalog rows a page reads, counted by their SQL (the catalog stamp's query reads no row)."""

import re

from django.db import connection
from django.test.utils import CaptureQueriesContext

ROW_READ = re.compile(r'^SELECT "(vendors_\w+)"\."id"')


def catalog_row_reads(client, url) -> list[str]:
    """The catalog tables whose rows a GET of ``url`` reads, in order (200 asserted)."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return [m.group(1) for q in queries if (m := ROW_READ.match(q["sql"]))]
