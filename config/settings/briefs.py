"""Briefs: the signer, the public address printed in them, approval, the brief workers, and the
verify page's limits."""

import os
from pathlib import Path

from config.settings.environment import DEBUG, VAR_DIR, env_flag

# --- Brief signing (docs/decisions/0008) -------------------------------------------------------
# The organisation's PKCS#12, its passphrase (from the environment, or from a secret file the
# deployment names) and the CA certificates come from the environment. Only with debug on do
# they default to the development signer that `manage.py make_dev_signing_cert` makes under
# var/signing/; production never does, refuses a signer issued by a development CA, and
# `check --deploy` and scripts/serve-production stop on one (advisor.security).
SIGNING_DIR = VAR_DIR / "signing"


def _signing_path(variable: str, development_default: Path) -> Path | None:
    value = os.environ.get(variable, "").strip()
    if value:
        return Path(value)
    return development_default if DEBUG else None


BRIEF_SIGNING = {
    "PKCS12_PATH": _signing_path("BRIEF_SIGNING_PKCS12", SIGNING_DIR / "dev-signer.p12"),
    "PASSPHRASE": os.environ.get("BRIEF_SIGNING_PASSPHRASE") or None,
    "PASSPHRASE_FILE": _signing_path(
        "BRIEF_SIGNING_PASSPHRASE_FILE", SIGNING_DIR / "dev-signer.passphrase"
    ),
    "TRUST_ROOTS": [
        Path(p.strip())
        for p in os.environ.get(
            "BRIEF_SIGNING_TRUST_ROOTS", str(SIGNING_DIR / "dev-ca.pem") if DEBUG else ""
        ).split(",")
        if p.strip()
    ],
    # The CAs an approver's own certificate must chain to (comma-separated PEM paths; empty:
    # TRUST_ROOTS). List them in BRIEF_SIGNING_TRUST_ROOTS too, or verifiers will not trust
    # the approval signatures they issue (docs/decisions/0121).
    "APPROVER_TRUST_ROOTS": [
        Path(p.strip())
        for p in os.environ.get("BRIEF_APPROVER_TRUST_ROOTS", "").split(",")
        if p.strip()
    ],
    # The key on a PKCS#11 token (an HSM, a smart card) instead of the PKCS#12 above, which is
    # then not used (docs/decisions/0137): the token's module (a .so), the token's label, the
    # key's label and/or id (hex; its certificate is stored on the token under the same ones)
    # and the user PIN, from the environment or a secret file the deployment names.
    "PKCS11": {
        "MODULE": os.environ.get("BRIEF_SIGNING_PKCS11_MODULE", "").strip() or None,
        "TOKEN_LABEL": os.environ.get("BRIEF_SIGNING_PKCS11_TOKEN", "").strip(),
        "KEY_LABEL": os.environ.get("BRIEF_SIGNING_PKCS11_KEY_LABEL", "").strip(),
        "KEY_ID": os.environ.get("BRIEF_SIGNING_PKCS11_KEY_ID", "").strip(),
        "PIN": os.environ.get("BRIEF_SIGNING_PKCS11_PIN") or None,
        "PIN_FILE": os.environ.get("BRIEF_SIGNING_PKCS11_PIN_FILE", "").strip() or None,
    },
    # Approvers' keys on their own PKCS#11 tokens (docs/decisions/0149): the module (a .so)
    # through which the server reaches them; unset, approvers can only upload a PKCS#12. Each
    # approver names their token and key on their certificate page and types the PIN at
    # each approval (never stored).
    "APPROVER_PKCS11_MODULE": os.environ.get("BRIEF_APPROVER_PKCS11_MODULE", "").strip() or None,
    # Approvers' keys at a remote signing service speaking the Cloud Signature Consortium API
    # (docs/decisions/0150): its base URL (before /csc/v1/) and the access token this site
    # presents to it (or a secret file holding it); each approver registers their credential
    # ID and authorises each signature with their PIN (and one-time code), never stored.
    "APPROVER_CSC": {
        "URL": os.environ.get("BRIEF_APPROVER_CSC_URL", "").strip() or None,
        "TOKEN": os.environ.get("BRIEF_APPROVER_CSC_TOKEN") or None,
        "TOKEN_FILE": os.environ.get("BRIEF_APPROVER_CSC_TOKEN_FILE", "").strip() or None,
    },
    # Shown in the signature; production's default is the certificate's own name.
    "SIGNER_NAME": os.environ.get(
        "BRIEF_SIGNER_NAME", "Procurement Advisor (development)" if DEBUG else ""
    ),
    "ORGANISATION": os.environ.get("BRIEF_SIGNING_ORGANISATION", "Procurement Advisor Dev"),
    # The organisation as a Chinese brief names it (the certificate keeps the name above).
    "ORGANISATION_ZH": os.environ.get("BRIEF_SIGNING_ORGANISATION_ZH", "采购顾问（开发环境）"),
    "LOCATION": os.environ.get("BRIEF_SIGNING_LOCATION", "Guiyang, Guizhou, CN"),
    "TIMESTAMP_URL": os.environ.get("BRIEF_TIMESTAMP_URL") or None,
    # B-LT's revocation information (docs/decisions/0117): CRL files of the signers' and the
    # timestamp authority's CAs (comma-separated paths), and/or fetching them from the
    # addresses in the certificates (on by default once a timestamp authority is set).
    "REVOCATION_FILES": [
        Path(p.strip())
        for p in os.environ.get("BRIEF_REVOCATION_FILES", "").split(",")
        if p.strip()
    ],
    "REVOCATION_FETCH": env_flag("BRIEF_REVOCATION_FETCH", default=True),
}

# Public address of this deployment: printed in briefs (verification link and QR code).
SITE_URL = os.environ.get("ADVISOR_SITE_URL", "http://127.0.0.1:8000")
# An approver must approve a brief before it loses its "Draft — not approved" mark.
BRIEF_APPROVAL_REQUIRED = env_flag("BRIEF_APPROVAL_REQUIRED", default=True)

# Uploads to the public verify page per client address (django-ratelimit's "N/period" form:
# s, m, h or d); empty turns the limit off. Counted in the default cache (docs/decisions/0019).
VERIFY_RATE_LIMIT = os.environ.get("ADVISOR_VERIFY_RATE_LIMIT", "10/m")
RATELIMIT_USE_CACHE = "default"
# Brief workers `scripts/serve-production` starts (its default mode): ADVISOR_TASK_WORKERS, by
# default one per CPU this process may use (each renders one brief at a time, ~1 s of CPU). The script reads the same variable, same default.
BRIEF_WORKERS = max(
    1, int(os.environ.get("ADVISOR_TASK_WORKERS") or len(os.sched_getaffinity(0)) or 1)
)
# A brief worker renders a brief at niceness BRIEF_WORKER_NICE (ADVISOR_WORKER_NICE) while it is
# on time, so page views come first, and at a page view's priority once it has waited
# BRIEF_LATE_AFTER_S (ADVISOR_BRIEF_LATE_AFTER_S) seconds in the queue (docs/decisions/0145).
BRIEF_WORKER_NICE = min(19, max(0, int(os.environ.get("ADVISOR_WORKER_NICE") or 10)))
BRIEF_LATE_AFTER_S = float(os.environ.get("ADVISOR_BRIEF_LATE_AFTER_S") or 10)
# Seconds a brief worker's lease on a brief lasts while it renders (renewed every third of
# it); a worker dead longer than this has its brief queued again by another (docs/decisions/0021).
BRIEF_GENERATION_LEASE_S = float(os.environ.get("BRIEF_GENERATION_LEASE_S", "60"))
# Checking an uploaded PDF runs in a child process with hard limits (docs/decisions/0019):
# ADVISOR_VERIFY_BUDGET_S wall-clock seconds before the child is killed (the page waits no
# longer), ADVISOR_VERIFY_CPU_S CPU seconds, ADVISOR_VERIFY_MEMORY_MB memory it may add, and at
# most ADVISOR_VERIFY_SLOTS checks at once on a host (file locks in ADVISOR_VERIFY_SLOT_DIR,
# shared by every web worker; the excess gets 503 with Retry-After). A brief takes ~0.1 s.
VERIFY_BUDGET_S = float(os.environ.get("ADVISOR_VERIFY_BUDGET_S", "4"))
VERIFY_CPU_S = float(os.environ.get("ADVISOR_VERIFY_CPU_S", "2"))
# A check waits up to ADVISOR_VERIFY_QUEUE_S seconds for its turn (one in flight per client
# address and per user, then a free slot) before it is answered "busy" (docs/decisions/0122).
VERIFY_QUEUE_S = float(os.environ.get("ADVISOR_VERIFY_QUEUE_S", "8"))
# At most ADVISOR_VERIFY_QUEUE_PLACES checks wait at once on a host (each holds a web worker);
# the excess is answered "busy" at once.
VERIFY_QUEUE_PLACES = max(1, int(os.environ.get("ADVISOR_VERIFY_QUEUE_PLACES", "2")))
VERIFY_MEMORY_MB = int(os.environ.get("ADVISOR_VERIFY_MEMORY_MB", "512"))
VERIFY_SLOTS = max(1, int(os.environ.get("ADVISOR_VERIFY_SLOTS", "2")))
# An approver's uploaded PKCS#12 is opened in a child process under the same kind of limits
# (docs/decisions/0120): ADVISOR_CREDENTIAL_BUDGET_S wall-clock, ADVISOR_CREDENTIAL_CPU_S CPU
# seconds, ADVISOR_CREDENTIAL_MEMORY_MB added memory; its declared rounds are counted first.
CREDENTIAL_BUDGET_S = float(os.environ.get("ADVISOR_CREDENTIAL_BUDGET_S", "3"))
CREDENTIAL_CPU_S = float(os.environ.get("ADVISOR_CREDENTIAL_CPU_S", "2"))
CREDENTIAL_MEMORY_MB = int(os.environ.get("ADVISOR_CREDENTIAL_MEMORY_MB", "256"))
VERIFY_SLOT_DIR = Path(os.environ.get("ADVISOR_VERIFY_SLOT_DIR", VAR_DIR / "verify-slots"))

# Webhooks for brief events (advisor/webhooks, docs/decisions/0049-webhooks.md, 0123): seconds
# the webhook worker waits to connect to a receiver (ADVISOR_WEBHOOK_CONNECT_TIMEOUT_S) and for
# its answer (ADVISOR_WEBHOOK_TIMEOUT_S), and the networks a receiver may be on beyond public
# addresses (ADVISOR_WEBHOOK_ALLOWED_NETWORKS, comma-separated, e.g. "10.1.2.0/24": loopback,
# private, link-local and metadata addresses are refused otherwise).
WEBHOOK_CONNECT_TIMEOUT_S = float(os.environ.get("ADVISOR_WEBHOOK_CONNECT_TIMEOUT_S", "3"))
WEBHOOK_TIMEOUT_S = float(os.environ.get("ADVISOR_WEBHOOK_TIMEOUT_S", "5"))
# How long a webhook worker holds a message it is sending (ADVISOR_WEBHOOK_CLAIM_S): a worker
# killed mid-send leaves the claim to run out, then any webhook worker tries again (0144).
WEBHOOK_CLAIM_S = float(os.environ.get("ADVISOR_WEBHOOK_CLAIM_S", "60"))
WEBHOOK_ALLOWED_NETWORKS = [
    n.strip()
    for n in os.environ.get("ADVISOR_WEBHOOK_ALLOWED_NETWORKS", "").split(",")
    if n.strip()
]
