"""A SAML 2.0 identity provider for the tests: a key and a self-signed certificate of its own,
it reads the authentication request the site sends the browser to (HTTP-Redirect binding) and
writes the signed response the browser posts back to the site (HTTP-POST binding), the way an
identity provider answers after the person signed in there. Signatures are made by xmlsec
through python3-saml's own helper (RSA-SHA256, exclusive canonicalisation), the assertion
signed, as the site requires."""

from __future__ import annotations

import base64
import datetime
import secrets
import zlib
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from lxml import etree
from onelogin.saml2.constants import OneLogin_Saml2_Constants as Saml
from onelogin.saml2.utils import OneLogin_Saml2_Utils

ENTITY_ID = "https://idp.example.cn/saml/metadata"
SSO_URL = "https://idp.example.cn/saml/sso"
PROTOCOL = "urn:oasis:names:tc:SAML:2.0:protocol"
ASSERTION = "urn:oasis:names:tc:SAML:2.0:assertion"


def key_and_certificate(common_name: str) -> tuple[str, str]:
    """A 2048-bit RSA key and a self-signed certificate for it, both PEM."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    return key_pem, certificate.public_bytes(serialization.Encoding.PEM).decode()


@dataclass
class IdentityProvider:
    entity_id: str = ENTITY_ID
    sso_url: str = SSO_URL
    keys: tuple[str, str] = field(default_factory=lambda: key_and_certificate("Test IdP"))

    @property
    def certificate(self) -> str:
        return self.keys[1]

    def read_request(self, location: str) -> dict:
        """The authentication request in the URL the site redirected the browser to."""
        parts = urlsplit(location)
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == self.sso_url, location
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        xml = zlib.decompress(base64.b64decode(query["SAMLRequest"]), -15)
        request = etree.fromstring(xml)
        issuer = request.find(f"{{{ASSERTION}}}Issuer")
        return {
            "id": request.get("ID"),
            "acs": request.get("AssertionConsumerServiceURL"),
            "destination": request.get("Destination"),
            "sp_entity_id": issuer.text if issuer is not None else None,
            "relay_state": query.get("RelayState", ""),
        }

    def response(
        self,
        request: dict,
        attributes: dict[str, list[str]],
        name_id: str,
        *,
        in_response_to: str | None = "request",
        sign: bool = True,
        signing_keys: tuple[str, str] | None = None,
        audience: str | None = None,
        algorithms: tuple[str, str] = (Saml.RSA_SHA256, Saml.SHA256),
    ) -> str:
        """The base64 ``SAMLResponse`` the browser posts to the site's assertion consumer."""
        answer_to = request["id"] if in_response_to == "request" else in_response_to
        assertion = self.assertion(request, attributes, name_id, answer_to, audience)
        if sign:
            key, certificate = signing_keys or self.keys
            assertion = OneLogin_Saml2_Utils.add_sign(
                assertion,
                key,
                certificate,
                sign_algorithm=algorithms[0],
                digest_algorithm=algorithms[1],
            )
        return base64.b64encode(self.envelope(request, answer_to, assertion)).decode()

    def assertion(self, request, attributes, name_id, answer_to, audience) -> bytes:
        now = datetime.datetime.now(datetime.UTC)
        later = instant(now + datetime.timedelta(minutes=5))
        root = element(
            ASSERTION, "Assertion", ID=new_id(), Version="2.0", IssueInstant=instant(now)
        )
        sub(root, ASSERTION, "Issuer").text = self.entity_id
        subject = sub(root, ASSERTION, "Subject")
        sub(subject, ASSERTION, "NameID", Format=Saml.NAMEID_UNSPECIFIED).text = name_id
        confirmation = sub(subject, ASSERTION, "SubjectConfirmation", Method=Saml.CM_BEARER)
        data = {"NotOnOrAfter": later, "Recipient": request["acs"]}
        if answer_to:
            data["InResponseTo"] = answer_to
        sub(confirmation, ASSERTION, "SubjectConfirmationData", **data)
        conditions = sub(
            root,
            ASSERTION,
            "Conditions",
            NotBefore=instant(now - datetime.timedelta(minutes=1)),
            NotOnOrAfter=later,
        )
        restriction = sub(conditions, ASSERTION, "AudienceRestriction")
        sub(restriction, ASSERTION, "Audience").text = audience or request["sp_entity_id"]
        statement = sub(
            root, ASSERTION, "AuthnStatement", AuthnInstant=instant(now), SessionIndex=new_id()
        )
        context = sub(statement, ASSERTION, "AuthnContext")
        sub(context, ASSERTION, "AuthnContextClassRef").text = Saml.AC_PASSWORD_PROTECTED
        attribute_statement = sub(root, ASSERTION, "AttributeStatement")
        for name, values in attributes.items():
            attribute = sub(attribute_statement, ASSERTION, "Attribute", Name=name)
            for value in values:
                sub(attribute, ASSERTION, "AttributeValue").text = value
        return etree.tostring(root)

    def envelope(self, request, answer_to, assertion: bytes | str) -> bytes:
        now = datetime.datetime.now(datetime.UTC)
        attributes = {
            "ID": new_id(),
            "Version": "2.0",
            "IssueInstant": instant(now),
            "Destination": request["acs"],
        }
        if answer_to:
            attributes["InResponseTo"] = answer_to
        root = element(PROTOCOL, "Response", **attributes)
        sub(root, ASSERTION, "Issuer").text = self.entity_id
        status = sub(root, PROTOCOL, "Status")
        sub(status, PROTOCOL, "StatusCode", Value=Saml.STATUS_SUCCESS)
        if isinstance(assertion, str):
            assertion = assertion.encode()
        root.append(etree.fromstring(assertion))
        return etree.tostring(root)


def element(namespace: str, tag: str, **attributes) -> etree._Element:
    prefix = "samlp" if namespace == PROTOCOL else "saml"
    return etree.Element(
        f"{{{namespace}}}{tag}", attributes, nsmap={prefix: namespace, "saml": ASSERTION}
    )


def sub(parent, namespace: str, tag: str, **attributes) -> etree._Element:
    return etree.SubElement(parent, f"{{{namespace}}}{tag}", attributes)


def new_id() -> str:
    return "_" + secrets.token_hex(16)


def instant(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def tampered(saml_response: str, old: str, new: str) -> str:
    """The same posted response with one text changed after it was signed."""
    xml = base64.b64decode(saml_response).decode()
    assert old in xml
    return base64.b64encode(xml.replace(old, new).encode()).decode()
