"""The browser tests' live server answers requests one after another.

Its thread shares the test's in-memory SQLite connection (tests/browser/conftest.py): requests
handled in threads of their own used it at once and one of them, now and then, failed with
"bad parameter or other API misuse" (a browser's htmx estimate posted while its form was sent).
"""

import socketserver

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_live_server_is_not_threaded(live_server):
    assert not isinstance(live_server.thread.httpd, socketserver.ThreadingMixIn)
