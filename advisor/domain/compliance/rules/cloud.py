"""Checks for GPU-hours bought from a cloud: where the data is processed.

A cloud option has no data center of its own to inspect, so the site rules do not apply;
the provider's certificates (VENDOR-ISO27001, VENDOR-MLPS3) and the accelerator's
export-control status (HW-AVAILABILITY) are checked with the same rules as elsewhere, and
this module adds data residency.
"""

from __future__ import annotations

from advisor.domain.compliance import citations as cite
from advisor.domain.compliance.base import Area, Evidence, Rule, Severity, Status, outcome
from advisor.domain.compliance.facts import ComplianceInput
from advisor.domain.compliance.parameters import Parameters
from advisor.domain.i18n import N_


def data_residency(facts: ComplianceInput, params: Parameters):
    cloud = facts.cloud
    where = cloud.mainland_china if cloud else None
    region = (cloud.region if cloud else None) or ""
    provider = (cloud.provider if cloud else None) or ""
    names = {  # as a Chinese reader reads them, where the catalog has them
        "provider_zh": (cloud.provider_zh if cloud else None) or None,
        "region_zh": (cloud.region_zh if cloud else None) or None,
    }
    evidence = (Evidence(N_("The cloud region is in mainland China"), where, True, "", "=="),)
    if where is None:
        return outcome(
            Status.UNKNOWN,
            N_(
                "The catalog does not record where {provider}'s GPUs run; ask the provider "
                "in writing for the region and confirm it is in mainland China."
            ),
            evidence,
            provider=provider,
            provider_zh=names["provider_zh"],
        )
    if where:
        return outcome(
            Status.PASS,
            N_("{provider} runs the instances in mainland China ({region})."),
            evidence,
            provider=provider,
            region=region,
            **names,
        )
    return outcome(
        Status.FAIL,
        N_(
            "{provider}'s region {region} is outside mainland China: training data sent "
            "there is a cross-border transfer (a security assessment, a certification or a "
            "standard contract under Article 38 of 《中华人民共和国个人信息保护法》, the Personal "
            "Information Protection Law) and the data may fall under foreign law."
        ),
        evidence,
        provider=provider,
        region=region,
    )


RULES = (
    Rule(
        "CLOUD-RESIDENCY",
        Area.VENDOR,
        N_("Data residency in mainland China"),
        N_(
            "Training data processed in a cloud region outside mainland China leaves the "
            "country: personal information needs a cross-border transfer basis and important "
            "data a security assessment."
        ),
        cite.DATA_RESIDENCY,
        Severity.BLOCKER,
        data_residency,
        reads=("cloud",),
    ),
)
