"""Closed sets used by the catalog (one ``TextChoices`` per set).

The hardware sets mirror the tuples in ``advisor/domain/hardware.py`` (a unit test keeps
them equal), so fixtures and the pure domain share one vocabulary.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _


class InterconnectKind(models.TextChoices):
    NVLINK = "nvlink", _("NVLink (switched or direct)")
    NVLINK_BRIDGE = "nvlink-bridge", _("NVLink bridge (pairs of cards)")
    PCIE = "pcie", _("PCIe only")
    HCCS = "hccs", _("HCCS (Huawei)")
    XGMI = "xgmi", _("Infinity Fabric / xGMI (AMD)")
    OTHER = "other", _("Other")


class SoftwareStack(models.TextChoices):
    CUDA = "cuda", _("CUDA (NVIDIA)")
    ROCM = "rocm", _("ROCm (AMD)")
    CANN = "cann", _("CANN (Huawei Ascend)")
    OTHER = "other", _("Other")


class ServerTopology(models.TextChoices):
    NVSWITCH = "nvswitch", _("NVSwitch all-to-all")
    NVLINK_PAIRS = "nvlink-pairs", _("NVLink-bridged pairs")
    PCIE_SWITCH = "pcie-switch", _("PCIe switch")
    HCCS_MESH = "hccs-mesh", _("HCCS full mesh")
    XGMI_MESH = "xgmi-mesh", _("xGMI full mesh")


class NicKind(models.TextChoices):
    INFINIBAND = "infiniband", _("InfiniBand")
    ROCE = "roce", _("RoCE (RDMA over Ethernet)")
    ETHERNET = "ethernet", _("Ethernet (no RDMA)")


class ServerCooling(models.TextChoices):
    AIR = "air", _("Air")
    LIQUID = "liquid", _("Liquid")


class FormFactor(models.TextChoices):
    SXM = "sxm", _("SXM module (HGX baseboard)")
    OAM = "oam", _("OAM module (OCP baseboard)")
    PCIE = "pcie", _("PCIe card")
    NPU_MODULE = "npu-module", _("NPU module on vendor board")
    SUPERCHIP = "superchip", _("Superchip / rack-scale board")
    OTHER = "other", _("Other")


class ChinaAvailability(models.TextChoices):
    """What the admin last recorded about buying the part in mainland China.

    The product reports this; it does not decide export law.
    """

    AVAILABLE = "available", _("Available (no US licence requirement found)")
    LICENCE_REQUIRED = "licence-required", _("US export licence required")
    DOMESTIC = "domestic", _("Domestic product (not a US export item)")
    UNKNOWN = "unknown", _("Not determined, verify")


class CertificateKind(models.TextChoices):
    ISO_27001 = "iso-27001", _("ISO/IEC 27001 (information security)")
    ISO_9001 = "iso-9001", _("ISO 9001 (quality)")
    MLPS = "mlps", _("MLPS 2.0 (classified protection) assessment")
    OTHER = "other", _("Other")


class Iso27001Edition(models.TextChoices):
    E2013 = "2013", "ISO/IEC 27001:2013"
    E2022 = "2022", "ISO/IEC 27001:2022"


class MlpsLevel(models.IntegerChoices):
    LEVEL_1 = 1, _("Level 1")
    LEVEL_2 = 2, _("Level 2")
    LEVEL_3 = 3, _("Level 3")
    LEVEL_4 = 4, _("Level 4")
    LEVEL_5 = 5, _("Level 5")


class ClaimStatus(models.TextChoices):
    """How far a hosting vendor's record has been checked."""

    VENDOR_CLAIM = "vendor-claim", _("As claimed by the vendor, verify")
    VERIFIED = "verified", _("Verified against documents")


class PolicyZoneKind(models.TextChoices):
    PROVINCE = "province", _("Province or municipality")
    CITY = "city", _("City")
    HUB = "hub", _("National computing hub cluster")


class SourceFlag(models.TextChoices):
    """Reliability flag of a sourced figure (see research/china-costs-policy.md)."""

    OFFICIAL = "OFF", _("Official document")
    OFFICIAL_TRANSCRIBED = "OFF-T", _("Official, third-party transcription")
    PRESS = "PRESS", _("Press report")
    MARKET = "MKT", _("Market report (not a quote)")
    VENDOR = "VEND", _("Vendor or local-government claim")
    FILING = "FILE", _("Listed company's filing (results release, reply to the exchange)")
    DERIVED = "DER", _("Derived by arithmetic")
    LOW = "LOW", _("Low confidence")


class SourceKind(models.TextChoices):
    """What kind of publication a source line is, strongest first (docs/decisions/0042).

    Mirrors ``advisor/domain/sources.py`` (a unit test keeps them equal); a source line starts
    with its kind in square brackets, e.g. ``[vendor] NVIDIA A100 … https://…``.
    """

    OFFICIAL = "official", _("Official document or price list")
    VENDOR = "vendor", _("Vendor or operator publication")
    DEALER = "dealer", _("Dealer quote or listing")
    PRESS = "press", _("Press report")
    AGGREGATOR = "aggregator", _("Aggregator, repost or dataset")
    BLOG = "blog", _("Blog or forum post")


class TariffClass(models.TextChoices):
    """The tariff class of a price table (the class a data center's supply is billed in)."""

    TWO_PART_1_10KV = "two-part-1-10kv", _("1–10(20) kV, two-part")
    SINGLE_PART_1_10KV = "single-part-1-10kv", _("1–10(20) kV, single-part")
    LARGE_INDUSTRY_10KV = "large-industry-10kv", _("Large industry, 10 kV, two-part")
    SINGLE_PART_BELOW_1KV = "single-part-lt-1kv", _("Below 1 kV, single-part")
    FLAT_FIGURE = "flat-figure", _("A single reported figure (no table)")


class Gb50174Class(models.TextChoices):
    A = "A", _("Class A (fault tolerant)")
    B = "B", _("Class B (redundant)")
    C = "C", _("Class C (basic)")


class UptimeTier(models.TextChoices):
    TIER_1 = "tier-1", _("Tier I")
    TIER_2 = "tier-2", _("Tier II")
    TIER_3 = "tier-3", _("Tier III")
    TIER_4 = "tier-4", _("Tier IV")


class SiteCooling(models.TextChoices):
    AIR = "air", _("Air (room / row)")
    REAR_DOOR = "rear-door", _("Rear-door heat exchanger")
    DIRECT_LIQUID = "direct-liquid", _("Direct-to-chip liquid")
    IMMERSION = "immersion", _("Immersion")


class PowerPricing(models.TextChoices):
    FIXED = "fixed", _("Fixed price per kWh")
    PASS_THROUGH = "pass-through", _("Passed through at the grid tariff")
    INCLUDED = "included", _("Included in the rack fee")


class OfferKind(models.TextChoices):
    BUY = "buy", _("Buy")
    RENT = "rent", _("Rent (monthly)")
    CLOUD = "cloud", _("Cloud (hourly)")


class Currency(models.TextChoices):
    CNY = "CNY", _("Chinese yuan (CNY)")
    USD = "USD", _("US dollar (USD)")


class ModelFamily(models.TextChoices):
    QWEN = "qwen", "Qwen"
    DEEPSEEK = "deepseek", "DeepSeek"
    GLM = "glm", "GLM"
    BAICHUAN = "baichuan", "Baichuan"
    INTERNLM = "internlm", "InternLM"
    LLAMA = "llama", "Llama"
    MISTRAL = "mistral", "Mistral / Mixtral"
    GEMMA = "gemma", "Gemma"
    PHI = "phi", "Phi"
    FALCON = "falcon", "Falcon"
    OTHER = "other", _("Other")


# Value-added telecom service categories (电信业务分类目录 2015); B11 = IDC, B14 = ISP.
TELECOM_CATEGORIES = {
    "B11": _("B11 Internet data center (IDC)"),
    "B12": _("B12 Content delivery network (CDN)"),
    "B13": _("B13 Domestic IP-VPN"),
    "B14": _("B14 Internet access (ISP)"),
    "B21": _("B21 Online data and transaction processing"),
    "B22": "B22",
    "B23": "B23",
    "B24": "B24",
    "B25": _("B25 Information services (ICP licence)"),
    "B26": "B26",
}
