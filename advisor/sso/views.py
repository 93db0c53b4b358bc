"""What a person sees when a company sign-in does not complete (cancelled, refused, failed), and
django-allauth's SAML pages, loaded on first use and given the host Django checked."""

import binascii
import logging
import zlib

from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt

logger = logging.getLogger(__name__)


def problem(request, *args, **kwargs):
    return render(request, "sso/problem.html", status=400)


def saml_page(
    name: str, *, posted_by_the_identity_provider: bool = False, refuses_in_plain_text=False
):
    """allauth's SAML view ``name``. python3-saml and xmlsec load when a SAML page is first
    asked for, not with the URLs (decision 0054): most sites never turn SAML on. python3-saml
    reads the Host header itself (a request without one would fail): it gets the host Django
    checked against ALLOWED_HOSTS and the proxy settings, and a request naming no allowed host
    is a 400 before any SAML is read. The identity provider's posts carry no CSRF token (the
    signed response is their proof)."""

    def page(request, *args, **kwargs):
        from allauth.socialaccount.providers.saml import views as saml
        from lxml.etree import XMLSyntaxError
        from onelogin.saml2.xmlparser import DTDForbidden, EntitiesForbidden, NotSupportedError

        request.META["HTTP_HOST"] = request.get_host()
        unreadable = (
            XMLSyntaxError,
            DTDForbidden,
            EntitiesForbidden,
            NotSupportedError,
            binascii.Error,
            zlib.error,
        )
        try:
            response = getattr(saml, name)(request, *args, **kwargs)
        except unreadable as error:
            # allauth lets python3-saml's decoding and parser errors through: a message that is
            # no base64, no deflate, no XML, or declares a DTD or entities, is refused like any
            # other bad one.
            logger.warning("SAML message refused: %s: %s", type(error).__name__, error)
            return render(request, "socialaccount/authentication_error.html", status=401)
        if refuses_in_plain_text and response.status_code == 400:
            # allauth answers a refused logout message in plain English text.
            return render(request, "socialaccount/authentication_error.html", status=400)
        return response

    page.__name__ = f"saml_{name}"
    return csrf_exempt(page) if posted_by_the_identity_provider else page


saml_login = saml_page("login")
saml_acs = saml_page("acs", posted_by_the_identity_provider=True)
saml_finish_acs = saml_page("finish_acs")
saml_sls = saml_page("sls", posted_by_the_identity_provider=True, refuses_in_plain_text=True)
saml_metadata = saml_page("metadata")
