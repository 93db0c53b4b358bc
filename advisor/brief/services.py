"""Issuing, generating, approving and sending back briefs: the only code that writes them.

Issuing freezes the content (snapshot) in one transaction and queues the PDF generation as a
task; generation renders, signs and stores the PDF, or records the failure so it can be
retried without losing anything. Approval re-renders the same snapshot without the draft
mark and signs it again with the approval recorded.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext

from advisor.assessments.answers import Incomplete, assessment_document
from advisor.brief import audit, generation
from advisor.brief.comparison import shortlist
from advisor.brief.config import approver_remote, approver_token, signing_config
from advisor.brief.credentials import (
    CredentialError,
    kdf_work,
    remote_certificate,
    remote_fingerprint,
    remote_refusal,
    seal,
    token_certificate,
    token_fingerprint,
    token_refusal,
    unseal,
)
from advisor.brief.csc import RemoteCredential, sign_pdf_remotely_as
from advisor.brief.models import (
    AuditAction,
    Brief,
    BriefStatus,
    KeySource,
    Origin,
    SigningCertificate,
    new_failure_reference,
    next_brief_number,
    open_vetoes,
)
from advisor.brief.signing import (
    APPROVAL_FIELD,
    LEVEL_B,
    KeyUnavailable,
    SignatureRequest,
    TokenKey,
    sign_pdf_as,
    sign_pdf_with_token_as,
)
from advisor.brief.snapshot import brief_snapshot, choose, needs_reason
from advisor.brief.tasks import generate_brief
from advisor.recommendation.questions import questionnaire_snapshot
from advisor.recommendation.records import frozen_for, records_for
from advisor.recommendation.run import run_recommendation
from advisor.recommendation.services import shown_results, stored_records

logger = logging.getLogger(__name__)


class BriefError(Exception):
    """A brief cannot be issued or changed in the way asked (message is user-facing)."""


class ReasonRequired(BriefError):
    """The option is not rank 1 and the buyer did not say why it was chosen (``code``
    "missing"), or said it at more than ``REASON_MAX_LENGTH`` characters ("too_long")."""

    def __init__(self, message: str, code: str = "missing"):
        super().__init__(message)
        self.code = code


REASON_MAX_LENGTH = 2000


def _snapshot(
    document: dict,
    option_key: str | None,
    today: date,
    inputs: dict,
    run=None,
    records=None,
    reason: str = "",
) -> dict:
    """The brief's frozen content; from ``run`` (the stored recommendation the buyer saw, with
    the day it was computed for, and ``records``: the catalog records as they were then) when
    given, else computed now (the CLI). ``reason``: why the buyer chose an option other than
    rank 1."""
    if run is None:
        run = run_recommendation(document, today=today)
    today = run.today
    if not run.recommendation.options:
        raise BriefError(gettext("There is no option to put in a brief."))
    reason = _checked_reason(reason)
    try:
        snapshot = brief_snapshot(
            scenario=run.scenario,
            procurement=run.procurement,
            recommendation=run.recommendation,
            chosen_key=option_key,
            today=today,
            inputs=inputs,
            reason=reason,
        )
    except KeyError as error:
        raise BriefError(gettext("That option is no longer among the results.")) from error
    if records is not None:
        snapshot["catalog"] = frozen_for(records, [o["key"] for o in snapshot["options"]])
    else:
        snapshot["catalog"] = records_for(snapshot["options"])
    chosen = choose(run.recommendation, option_key)[0]
    snapshot["vendor_questionnaire"] = questionnaire_snapshot(run, chosen)
    snapshot["shortlist"] = shortlist(run, chosen.key)
    return snapshot


def _checked_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if len(reason) > REASON_MAX_LENGTH:
        raise ReasonRequired(
            gettext("Say why in at most %(n)d characters.") % {"n": REASON_MAX_LENGTH},
            code="too_long",
        )
    return reason


def check_reason(recommendation, option_key: str | None, reason: str) -> None:
    """An option other than rank 1 is issued only with the buyer's reason (the page, the API
    and ``manage.py issue_brief`` ask for it): :class:`ReasonRequired` without one."""
    if option_key is not None and all(o.key != option_key for o in recommendation.options):
        raise BriefError(gettext("That option is no longer among the results."))
    if not _checked_reason(reason) and needs_reason(recommendation, option_key):
        raise ReasonRequired(
            gettext(
                "This option is not rank 1: say why you chose it (the memo prints your reason "
                "for the finance director and the auditor)."
            )
        )


def issue_brief(
    *,
    user,
    document: dict,
    option_key: str | None = None,
    language: str = "zh-hans",
    assessment=None,
    inputs: dict | None = None,
    run=None,
    records: dict | None = None,
    reason: str = "",
    origin: str | None = None,
) -> Brief:
    """Freeze a brief for ``option_key`` (default: the top recommendation) and queue its PDF.
    ``origin``: where it was issued (:class:`Origin`; the page, the API and the command say;
    unsaid, a brief for an assessment is from the pages, one without from the command line).
    ``reason``: why the buyer chose it, printed in the memo (the page, the API and the
    command require it for an option other than rank 1: :func:`check_reason`).

    ``run`` and ``records``: the stored recommendation the buyer saw and the catalog records
    behind it (advisor.recommendation.services.Computed); the brief then holds exactly its options,
    figures, checks and sources. Without them the recommendation is computed.
    """
    today = timezone.localdate()
    snapshot = _snapshot(document, option_key, today, inputs or document, run, records, reason)
    with transaction.atomic():
        brief = Brief.objects.create(
            number=next_brief_number(today.year),
            language=language,
            status=BriefStatus.GENERATING,
            assessment=assessment,
            origin=origin or (Origin.PAGE if assessment is not None else Origin.COMMAND_LINE),
            prepared_by=user,
            snapshot=snapshot,
            ruleset_version=snapshot["ruleset_version"],
        )
        audit.record(
            AuditAction.BRIEF_ISSUED,
            actor=user,
            brief=brief,
            option=option_key,
            origin=brief.origin,
        )
        transaction.on_commit(lambda: queue_generation(brief))
    return brief


class StaleOptions(BriefError):
    """The options were computed again since the buyer looked at them."""


def issue_for_assessment(
    *,
    user,
    assessment,
    option_key: str,
    language: str,
    computed=None,
    reason: str = "",
    origin: str = Origin.PAGE,
) -> Brief:
    """Issue a brief for an option of ``assessment`` as its stored recommendation has it (the
    brief page and the API): never a new computation. ``computed``: the token of the stored
    result the buyer looked at, when known (:class:`StaleOptions` when it has been replaced).
    Raises :class:`Incomplete` while the assessment is unanswered, ``ScenarioError`` when it
    cannot be sized, :class:`BriefError` for an option that is not among the results
    (:class:`ReasonRequired` for an option other than rank 1 without ``reason``)."""
    shown = shown_results(assessment)
    if shown is None:
        raise Incomplete(assessment.pk)
    if computed is not None and computed != shown.stored.token:
        raise StaleOptions(
            gettext(
                "The options were computed again since you opened that page. Check them "
                "below and issue the brief again."
            )
        )
    check_reason(shown.run.recommendation, option_key, reason)
    return issue_brief(
        user=user,
        document=assessment_document(assessment),
        option_key=option_key,
        language=language,
        assessment=assessment,
        inputs=assessment.answers,
        run=shown.run,
        records=stored_records(shown.stored),
        reason=reason,
        origin=origin,
    )


def queue_generation(brief: Brief) -> None:
    generate_brief.enqueue(brief.pk)


def retry(brief: Brief, user) -> Brief:
    if brief.status != BriefStatus.FAILED:
        raise BriefError(gettext("Only a brief whose generation failed can be retried."))
    Brief.objects.filter(pk=brief.pk).update(
        status=BriefStatus.GENERATING, failure="", generation_attempts=0, lease_until=None
    )
    brief.refresh_from_db()
    transaction.on_commit(lambda: queue_generation(brief))
    return brief


class AlreadyDecided(BriefError):
    """Another approver decided the brief first; this decision was not recorded."""


_DECIDED = (BriefStatus.APPROVED, BriefStatus.SENT_BACK, BriefStatus.ISSUED)


def _already_decided(brief: Brief) -> AlreadyDecided:
    return AlreadyDecided(
        gettext(
            "Brief %(number)s has already been decided by someone else; "
            "your decision was not recorded."
        )
        % {"number": brief.number}
    )


def _check_decidable(brief: Brief, *, approving: bool) -> None:
    if brief.status in _DECIDED:
        raise _already_decided(brief)
    if brief.status != BriefStatus.AWAITING_APPROVAL:
        if approving:
            raise BriefError(gettext("Only a brief awaiting approval can be approved."))
        raise BriefError(gettext("Only a brief awaiting approval can be sent back."))


def _claim(brief: Brief, **fields) -> None:
    """The one decision: a conditional update on the status, inside the caller's transaction.

    Whoever's update finds the brief still awaiting approval decides it; the other gets
    ``AlreadyDecided`` and its transaction (audit entry, stored file) is rolled back.
    """
    won = Brief.objects.filter(pk=brief.pk, status=BriefStatus.AWAITING_APPROVAL).update(
        updated_at=timezone.now(), **fields
    )
    if not won:
        raise _already_decided(brief)


def approve(
    brief: Brief,
    approver,
    *,
    comment: str = "",
    acknowledged: bool = False,
    passphrase: str = "",
    otp: str = "",
) -> Brief:
    """Approve and re-sign; exactly one decision per brief, even when two approvers race.

    The row is locked (``select_for_update``: a second decision waits, then finds the brief
    decided and signs nothing) and the status is updated conditionally (the guard that also
    holds where the database has no row locks, e.g. SQLite). The approved PDF is stored only
    after this decision has won.

    An approver with a registered signing certificate signs the approval with it: the
    ``passphrase`` opens it (a wrong one refuses the approval before anything is signed), and
    their signature is added over the system's (two signatures in the approved PDF).
    """
    _check_decidable(brief, approving=True)
    if brief.prepared_by_id == approver.pk:
        raise BriefError(gettext("You cannot approve a brief you prepared yourself."))
    if open_vetoes(brief.snapshot) and not acknowledged:
        raise BriefError(
            gettext(
                "This brief has veto checks that await the vendor: acknowledge them to approve, "
                "or send the brief back."
            )
        )
    own_key = approver_key(approver, passphrase, otp)
    with transaction.atomic():
        current = Brief.objects.select_for_update().select_related("prepared_by").get(pk=brief.pk)
        _check_decidable(current, approving=True)
        current.approver_signed = own_key is not None
        current.approved_by = approver
        current.approved_at = timezone.now()
        current.status = BriefStatus.APPROVED
        current.review_comment = comment.strip()
        current.vetoes_acknowledged = bool(acknowledged and open_vetoes(current.snapshot))
        try:
            countersign = None
            if own_key is not None:

                def countersign(signed: bytes, level: str) -> bytes:
                    try:
                        return sign_approval(current, signed, own_key, level)
                    except KeyUnavailable as error:  # the token or service did not sign
                        logger.warning("Brief %s: approval not signed: %s", current.number, error)
                        raise own_key.refusal(error.fault) from None

            unsigned, signed = generation.signed_pdf(
                current, approved=True, countersign=countersign
            )
        except KeyRefused:
            raise  # the approver's token or signing service did not sign (0149, 0150)
        except Exception:
            reference = new_failure_reference()
            logger.exception(
                "Signing approved brief %s failed (reference %s)", current.number, reference
            )
            raise BriefError(
                gettext(
                    "The approved PDF could not be made and signed, so brief %(number)s was not "
                    "approved. Try again later; if it keeps failing, give the administrator the "
                    "reference %(reference)s."
                )
                % {"number": current.number, "reference": reference}
            ) from None
        _claim(
            current,
            status=BriefStatus.APPROVED,
            approved_by=approver,
            approved_at=current.approved_at,
            review_comment=current.review_comment,
            vetoes_acknowledged=current.vetoes_acknowledged,
            approver_signed=current.approver_signed,
        )
        generation.store(current, unsigned, signed)
        current.save(update_fields=["pdf", "sha256", "unsigned_sha256", "updated_at"])
        audit.record(
            AuditAction.BRIEF_APPROVED,
            actor=approver,
            brief=current,
            signed_by_approver=current.approver_signed,
        )
    brief.refresh_from_db()
    return brief


class KeyRefused(BriefError):
    """The approver's own key could not be opened with what they typed (their passphrase or
    their token's PIN, ``field``), or their token cannot be used; nothing was signed."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class ApproverKey:
    """The approver's own key, opened for one approval: their PKCS#12 and its passphrase,
    their key on a PKCS#11 token (with the PIN they typed) or their credential at a remote
    signing service (with the PIN and code that authorise the signature)."""

    pkcs12: bytes | None = field(default=None, repr=False)
    passphrase: str = field(default="", repr=False)
    token: TokenKey | None = None
    remote: RemoteCredential | None = None

    def refusal(self, fault: str) -> KeyRefused:
        """Why the token or the service did not sign (``KeyUnavailable.fault``)."""
        if self.remote is not None:
            return KeyRefused(str(remote_refusal(fault, self.remote)), "pin")
        return KeyRefused(str(token_refusal(fault, self.token)), "pin")


def approver_key(approver, passphrase: str, otp: str = "") -> ApproverKey | None:
    """The approver's own key, opened with ``passphrase`` (their PKCS#12's passphrase, or their
    token's or signing service's PIN, with ``otp`` the service's one-time code); None when
    they registered none.

    A registered key must sign: without the passphrase or PIN, or with a wrong one, or with
    their token out of reach, the approval is refused (KeyRefused) and nothing is signed.
    """
    registered = SigningCertificate.objects.filter(user=approver).first()
    if registered is None:
        return None
    if registered.source == KeySource.PKCS11:
        return _token_key(registered, passphrase)
    if registered.source == KeySource.CSC:
        return _remote_key(registered, passphrase, otp)
    if not passphrase:
        raise KeyRefused(
            gettext("Enter the passphrase of your signing certificate to approve."), "passphrase"
        )
    try:
        data = unseal(
            bytes(registered.ciphertext),
            bytes(registered.salt),
            bytes(registered.nonce),
            passphrase,
            approver.pk,
        )
        kdf_work(data)  # opened in this process to sign: within the rounds' ceiling (0120)
        return ApproverKey(pkcs12=data, passphrase=passphrase)
    except CredentialError as error:
        raise KeyRefused(str(error), "passphrase") from None


def _token_key(registered: SigningCertificate, pin: str) -> ApproverKey:
    """The registered key on the approver's token, checked now: the PIN opens the token and the
    certificate stored with the key is the one registered (decision 0149)."""
    if not pin:
        raise KeyRefused(gettext("Enter the PIN of your signing token to approve."), "pin")
    token = approver_token(registered.token_label, registered.key_label, registered.key_id, pin)
    unreachable = gettext(
        "Your key is on a signing token, and this site is no longer set up to reach "
        "signing tokens. Ask the administrator, or register a certificate file instead."
    )
    other = gettext(
        "The certificate on your token is not the one you registered. Register the "
        "token again on your signing certificate page."
    )
    return ApproverKey(token=_registered(token, token_fingerprint, registered, unreachable, other))


def _remote_key(registered: SigningCertificate, pin: str, otp: str) -> ApproverKey:
    """The registered credential at the signing service, checked now: the service lists it with
    the certificate registered (decision 0150). The PIN is checked by the service when it
    authorises the signature."""
    if not pin and not otp:
        raise KeyRefused(
            gettext("Enter the PIN for your key at the signing service to approve."), "pin"
        )
    remote = approver_remote(registered.credential_id, pin, otp)
    unreachable = gettext(
        "Your key is at a signing service, and this site is no longer set up to reach "
        "it. Ask the administrator, or register a certificate file instead."
    )
    other = gettext(
        "The signing service now lists another certificate for your credential. "
        "Register it again on your signing certificate page."
    )
    return ApproverKey(
        remote=_registered(remote, remote_fingerprint, registered, unreachable, other)
    )


def _registered(handle, fingerprint_of, registered: SigningCertificate, unreachable, other):
    """``handle`` (a token or a signing service's credential) when it is reachable and holds
    the certificate registered; KeyRefused on the PIN field with ``unreachable`` or ``other``
    (another certificate) when not."""
    if handle is None:
        raise KeyRefused(unreachable, "pin")
    try:
        fingerprint = fingerprint_of(handle)
    except CredentialError as error:
        raise KeyRefused(str(error), "pin") from None
    if fingerprint != registered.fingerprint:
        raise KeyRefused(other, "pin")
    return handle


def sign_approval(brief: Brief, signed: bytes, key: ApproverKey, level: str = LEVEL_B) -> bytes:
    """The approver's signature over the system's (an approval signature of its own), at the
    system's signature level (decision 0117), with their key wherever it is (decision 0149)."""
    with translation.override(brief.language):  # the visible stamp reads as the brief does
        reason = gettext("Approval of procurement brief %(number)s") % {"number": brief.number}
    request = SignatureRequest(
        reason,
        contact_info=brief.approved_by.email or brief.approved_by.get_username(),
        field_name=APPROVAL_FIELD,
    )
    config = signing_config()
    if key.remote is not None:
        return sign_pdf_remotely_as(signed, key.remote, request, config.location, config, level)
    if key.token is not None:
        return sign_pdf_with_token_as(signed, key.token, request, config.location, config, level)
    return sign_pdf_as(signed, key.pkcs12, key.passphrase, request, config.location, config, level)


def register_certificate(user, data: bytes, passphrase: str) -> SigningCertificate:
    """Keep ``user``'s signing certificate, encrypted under ``passphrase`` (replacing any
    earlier one); CredentialError when the passphrase does not open a valid certificate."""
    sealed = seal(data, passphrase, user)
    with transaction.atomic():
        SigningCertificate.objects.filter(user=user).delete()
        registered = SigningCertificate.objects.create(
            user=user,
            ciphertext=sealed.ciphertext,
            salt=sealed.salt,
            nonce=sealed.nonce,
            subject=sealed.subject,
            issuer=sealed.issuer,
            fingerprint=sealed.fingerprint,
            not_after=sealed.not_after,
        )
        audit.record(AuditAction.CERTIFICATE_REGISTERED, actor=user, fingerprint=sealed.fingerprint)
    return registered


def register_token(user, token_label: str, key_label: str, key_id: str, pin: str):
    """Register the key on ``user``'s PKCS#11 token (replacing any earlier key): the PIN opens
    the token, and the certificate stored with the key passes the checks an uploaded one does
    (decision 0121). The PIN is not kept. CredentialError in plain words otherwise."""
    token = approver_token(token_label, key_label, key_id, pin)
    if token is None:
        raise CredentialError(gettext("This site is not set up to reach signing tokens."))
    facts = token_certificate(token, user)
    with transaction.atomic():
        SigningCertificate.objects.filter(user=user).delete()
        registered = SigningCertificate.objects.create(
            user=user,
            source=KeySource.PKCS11,
            token_label=token_label,
            key_label=key_label,
            key_id=key_id,
            subject=facts.subject,
            issuer=facts.issuer,
            fingerprint=facts.fingerprint,
            not_after=facts.not_after,
        )
        audit.record(
            AuditAction.CERTIFICATE_REGISTERED,
            actor=user,
            fingerprint=facts.fingerprint,
            token=token_label,
        )
    return registered


def register_remote(user, credential_id: str) -> SigningCertificate:
    """Register ``user``'s credential at the remote signing service (replacing any earlier
    key): the service lists its certificate, which passes the checks an uploaded one does
    (decision 0121). CredentialError in plain words otherwise."""
    remote = approver_remote(credential_id)
    if remote is None:
        raise CredentialError(gettext("This site is not set up to reach a signing service."))
    facts = remote_certificate(remote, user)
    with transaction.atomic():
        SigningCertificate.objects.filter(user=user).delete()
        registered = SigningCertificate.objects.create(
            user=user,
            source=KeySource.CSC,
            credential_id=credential_id,
            subject=facts.subject,
            issuer=facts.issuer,
            fingerprint=facts.fingerprint,
            not_after=facts.not_after,
        )
        audit.record(
            AuditAction.CERTIFICATE_REGISTERED,
            actor=user,
            fingerprint=facts.fingerprint,
            credential=credential_id,
        )
    return registered


def remove_certificate(user) -> None:
    with transaction.atomic():
        removed, _ = SigningCertificate.objects.filter(user=user).delete()
        if removed:
            audit.record(AuditAction.CERTIFICATE_REMOVED, actor=user)


def send_back(brief: Brief, approver, comment: str) -> Brief:
    _check_decidable(brief, approving=False)
    if not comment.strip():
        raise BriefError(gettext("Say what needs to change before sending the brief back."))
    with transaction.atomic():
        current = Brief.objects.select_for_update().get(pk=brief.pk)
        _check_decidable(current, approving=False)
        _claim(current, status=BriefStatus.SENT_BACK, review_comment=comment.strip())
        audit.record(AuditAction.BRIEF_SENT_BACK, actor=approver, brief=current, comment=comment)
    brief.refresh_from_db()
    return brief


def record_download(brief: Brief, user) -> None:
    audit.record(AuditAction.BRIEF_DOWNLOADED, actor=user, brief=brief)
