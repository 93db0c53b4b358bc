"""The standard job's brief, generated once per test process for the tests that only read it.

Generating a brief (render, PDF/A writing, signature) costs 1–3 s of CPU. Tests that only read
what the standard job's brief says (its PDF text and snapshot) share one generated brief per
language instead of each generating the same one. It is made the way a buyer's is
(``issue_brief``, the task run on commit, signed with the test PKI) inside a transaction that
is rolled back, so no test sees its rows; what the tests get is its snapshot and its bytes.
Tests of what happens to a brief (approval, storage, verification) issue their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction
from django.test import TestCase, override_settings

from advisor.brief.services import issue_brief
from tests.support.briefs import signing_settings
from tests.support.catalog import load_catalog
from tests.support.pdf import pdf_bytes
from tests.support.scenarios import QWEN_7B_LORA_COMPARED
from tests.support.tasks import IMMEDIATE_TASKS


@dataclass(frozen=True)
class SharedBrief:
    number: str
    snapshot: dict
    pdf: bytes


class SharedBriefs:
    """``briefs(language)``: the standard job's brief (its rank 1), made on first use."""

    def __init__(self, blocker, pki_dir: Path, media_root: Path):
        self.blocker = blocker
        self.pki_dir = pki_dir
        self.media_root = media_root
        self.made: dict[str, SharedBrief] = {}

    def __call__(self, language: str) -> SharedBrief:
        if language not in self.made:
            self.made[language] = self.generate(language)
        return self.made[language]

    def generate(self, language: str) -> SharedBrief:
        settings = override_settings(
            BRIEF_SIGNING=signing_settings(self.pki_dir),
            MEDIA_ROOT=self.media_root,
            TASKS=IMMEDIATE_TASKS,
        )
        with self.blocker.unblock(), settings, transaction.atomic():
            load_catalog()
            buyer = User.objects.create_user("shared-brief-buyer")
            with TestCase.captureOnCommitCallbacks(execute=True):
                brief = issue_brief(user=buyer, document=QWEN_7B_LORA_COMPARED, language=language)
            brief.refresh_from_db()
            shared = SharedBrief(brief.number, brief.snapshot, pdf_bytes(brief))
            transaction.set_rollback(True)
        return shared
