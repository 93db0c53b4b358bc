"""Production cannot sign with the development signer, and a signing failure shows the buyer a
plain message and a reference while the detail goes to the operator's log (issue 33, item 2).

Finding: with no BRIEF_SIGNING_* variables and the development files in the data folder (e.g.
var/ left from scripts/run), production signed as "Procurement Advisor (development)", the
passphrase sat in a plain file beside the key, and `check --deploy` passed; a failed brief's
page showed the raw error (signing configuration, server file paths).
"""

from __future__ import annotations

import logging
import shutil
import subprocess

import pytest
from django.urls import reverse

from advisor.brief import services
from advisor.brief.models import FAILURE_REFERENCE, Brief, BriefStatus
from advisor.brief.pki import create_dev_pki
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from tests.support.briefs import signer_env
from tests.support.scenarios import QWEN_7B_LORA_COMPARED as SCENARIO
from tests.support.servers import PYTHON, ROOT, SERVE, production_env
from tests.support.users import make_user

DEV_PASSPHRASE = "dev-only"


@pytest.fixture(scope="module")
def development_pki(tmp_path_factory):
    """What `make_dev_signing_cert` leaves in var/signing/ (made once: RSA keys are slow)."""
    directory = tmp_path_factory.mktemp("dev-signing")
    create_dev_pki(directory, DEV_PASSPHRASE, "Procurement Advisor Dev", "Procurement Advisor")
    return directory


def data_folder_with_the_development_signer(tmp_path, development_pki):
    var = tmp_path / "var"
    shutil.copytree(development_pki, var / "signing")
    return var


def check_deploy(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PYTHON), "manage.py", "check", "--deploy", "--fail-level", "ERROR"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def production(var, **extra) -> dict:
    return production_env(
        var,
        f"sqlite:///{var / 'db.sqlite3'}",
        ADVISOR_SITE_URL="https://advisor.example.cn",
        **extra,
    )


# --- check --deploy and the production start ---------------------------------------------------


def test_check_deploy_names_the_development_signer_left_in_the_data_folder(
    tmp_path, development_pki
):
    var = data_folder_with_the_development_signer(tmp_path, development_pki)
    result = check_deploy(production(var))
    assert result.returncode != 0
    assert "advisor.E010" in result.stderr
    assert str(var / "signing" / "dev-signer.p12") in result.stderr
    assert "advisor.E013" in result.stderr  # no trust roots either


def test_check_deploy_refuses_the_development_signer_named_explicitly(tmp_path, development_pki):
    var = data_folder_with_the_development_signer(tmp_path, development_pki)
    signing = var / "signing"
    result = check_deploy(
        production(
            var,
            BRIEF_SIGNING_PKCS12=str(signing / "dev-signer.p12"),
            BRIEF_SIGNING_PASSPHRASE_FILE=str(signing / "dev-signer.passphrase"),
            BRIEF_SIGNING_TRUST_ROOTS=str(signing / "dev-ca.pem"),
        )
    )
    assert result.returncode != 0
    assert "advisor.E011" in result.stderr and "development signer" in result.stderr
    assert "advisor.E013" in result.stderr and "Development CA" in result.stderr


def test_check_deploy_knows_a_development_signer_by_its_ca_under_any_file_name(
    tmp_path, development_pki, pki_dir
):
    elsewhere = tmp_path / "secrets"
    elsewhere.mkdir()
    shutil.copy(development_pki / "dev-signer.p12", elsewhere / "org-signer.p12")
    (elsewhere / "passphrase").write_text(DEV_PASSPHRASE)
    env = production(
        tmp_path / "var",
        **{
            **signer_env(pki_dir),
            "BRIEF_SIGNING_PKCS12": str(elsewhere / "org-signer.p12"),
            "BRIEF_SIGNING_PASSPHRASE_FILE": str(elsewhere / "passphrase"),
        },
    )
    result = check_deploy(env)
    assert result.returncode != 0
    assert "advisor.E011" in result.stderr
    assert "Procurement Advisor Dev Development CA" in result.stderr


def test_check_deploy_wants_a_passphrase_from_the_environment_or_a_named_file(tmp_path, pki_dir):
    env = production(tmp_path / "var", **signer_env(pki_dir))
    del env["BRIEF_SIGNING_PASSPHRASE_FILE"]
    result = check_deploy(env)
    assert result.returncode != 0 and "advisor.E012" in result.stderr
    assert "BRIEF_SIGNING_PASSPHRASE_FILE" in result.stderr


def test_the_organisations_signer_passes(tmp_path, pki_dir):
    result = check_deploy(production(tmp_path / "var", **signer_env(pki_dir)))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("named", [False, True], ids=["left-in-data-folder", "named"])
def test_the_production_start_refuses_the_development_signer(tmp_path, development_pki, named):
    var = data_folder_with_the_development_signer(tmp_path, development_pki)
    extra = {}
    if named:
        extra = {
            "BRIEF_SIGNING_PKCS12": str(var / "signing" / "dev-signer.p12"),
            "BRIEF_SIGNING_PASSPHRASE": DEV_PASSPHRASE,
        }
    result = subprocess.run(
        [str(SERVE)],
        env=production(var, **extra),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "the brief signer is not fit for production" in result.stderr
    assert ("advisor.E011" if named else "advisor.E010") in result.stderr
    assert not (var / "db.sqlite3").exists(), "nothing was prepared or served"


# --- At signing time ----------------------------------------------------------------------------


@pytest.fixture
def buyer(brief_ready):
    return make_user("buyer-sign", PROCUREMENT_STAFF)


def issue(buyer, django_capture_on_commit_callbacks) -> Brief:
    with django_capture_on_commit_callbacks(execute=True):
        brief = services.issue_brief(user=buyer, document=SCENARIO, language="en")
    brief.refresh_from_db()
    return brief


@pytest.mark.django_db
@pytest.mark.usefixtures("one_page_briefs")
def test_production_refuses_to_sign_with_a_development_ca(
    buyer, settings, development_pki, django_capture_on_commit_callbacks, caplog
):
    settings.BRIEF_SIGNING = {
        **settings.BRIEF_SIGNING,
        "PKCS12_PATH": development_pki / "dev-signer.p12",
        "PASSPHRASE": DEV_PASSPHRASE,
    }
    assert settings.PRODUCTION
    brief = issue(buyer, django_capture_on_commit_callbacks)
    assert brief.status == BriefStatus.FAILED
    assert "refused the development signer" in brief.failure
    assert "refused the development signer" in caplog.text


@pytest.mark.django_db
@pytest.mark.usefixtures("one_page_briefs")
def test_a_signing_failure_shows_a_plain_message_and_a_reference(
    client, buyer, settings, tmp_path, django_capture_on_commit_callbacks, caplog
):
    missing = tmp_path / "secret-keys" / "organisation.p12"
    settings.BRIEF_SIGNING = {**settings.BRIEF_SIGNING, "PKCS12_PATH": missing}
    caplog.set_level(logging.ERROR, logger="advisor.brief.services")
    brief = issue(buyer, django_capture_on_commit_callbacks)
    assert brief.status == BriefStatus.FAILED
    reference = brief.failure_reference
    assert FAILURE_REFERENCE.fullmatch(reference)
    client.force_login(buyer)
    html = client.get(reverse("brief:detail", args=[brief.pk]), HTTP_ACCEPT_LANGUAGE="en")
    html = html.content.decode()
    assert "This is a fault on our side, not in your answers." in html
    assert reference in html
    for leak in (str(missing), "secret-keys", "SigningError", "signing key not found"):
        assert leak not in html
    # The operator's log has the detail, under the same reference.
    assert reference in caplog.text and str(missing) in caplog.text


@pytest.mark.django_db
@pytest.mark.usefixtures("one_page_briefs")
def test_an_approval_whose_signature_fails_is_not_recorded_and_says_so_plainly(
    client, buyer, settings, tmp_path, django_capture_on_commit_callbacks, caplog
):
    brief = issue(buyer, django_capture_on_commit_callbacks)
    assert brief.status == BriefStatus.AWAITING_APPROVAL
    approver = make_user("approver-sign", APPROVER)
    missing = tmp_path / "gone.p12"
    settings.BRIEF_SIGNING = {**settings.BRIEF_SIGNING, "PKCS12_PATH": missing}
    client.force_login(approver)
    response = client.post(
        reverse("brief:review", args=[brief.pk]),
        {"decision": "approve", "acknowledge_vetoes": "on"},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "could not be made and signed" in html and str(missing) not in html
    reference = FAILURE_REFERENCE.search(html).group(0)
    assert reference in caplog.text and str(missing) in caplog.text
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL and brief.approved_by is None
