"""Every word in the reader's language (issue 27 item 4).

The Chinese pages a buyer walks for the standard job (task list, the four wizard steps, check,
results, a cloud and a hosted option, comparison, own figures, questionnaires, verify) and the
Chinese brief carry no Latin-script word outside the allowed tokens: product and model names
(the catalog's own, as their makers write them), units, standard and document numbers, and
citations (`<cite>`: a document is cited as it is written). No evaluated expression (``==``,
``<=``) and no rule id outside the brief's technical annex. The English pages carry no Chinese
outside names and citations.
"""

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from advisor.assessments.answers import assessment_document
from advisor.brief.generation import meta
from advisor.brief.render import render_html
from advisor.brief.services import issue_brief
from advisor.domain.questionnaire.specs import FACTS
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user
from vendors.models import Accelerator, DataCenter, HostingVendor, ModelPreset, Offer, ServerModel

pytestmark = pytest.mark.django_db

# Words that are the same in both languages: units, formats, standards bodies, technologies
# and product words a Chinese buyer reads in Latin script.
ALLOWED = {
    # units and formats
    "GiB", "GB", "TB", "MB", "MiB", "KiB", "kW", "kWh", "W", "ms", "Gb", "Gbps", "GB/s", "TFLOP",
    "GFLOP", "BTU", "kg", "m", "mm", "h", "U", "PDF", "XLSX", "ZIP", "JSON", "URL", "SHA",
    "CSV", "HTML", "CNY", "USD", "kV", "TDP", "MTTR",
    # technologies and standards
    "GPU", "GPUs", "NPU", "CPU", "PUE", "LoRA", "QLoRA", "DoRA", "AdamW", "SGD", "Adam", "PEFT",
    "FSDP", "DDP", "ZeRO", "DeepSpeed", "NVLink", "NVSwitch", "HCCS", "PCIe", "SXM", "RoCE",
    "InfiniBand", "NVMe", "BGP", "IDC", "ICP", "ISO", "IEC", "GB/T", "ASHRAE", "TC", "UPS", "IT",
    "IP", "AI", "HBM", "HBM2e", "HBM3", "HBM3e", "GDDR6", "CUDA", "CANN", "ROCm", "MLU",
    "PyTorch", "Megatron-LM", "Hugging", "Face", "token", "tokens", "fp", "bf", "fp32", "bf16",
    "fp16", "fp8", "int8", "int4", "NF4", "MoE", "MLP", "QoS", "ITU-T", "Y", "OEM", "SLA",
    "nvidia-smi", "npu-smi", "cnmon", "amd-smi", "rocm-smi", "HCCL", "NCCL", "RCCL", "ECCN",
    "BIS", "EAR", "CFR", "FR", "MLPS", "DEMO", "OFF", "VEND", "MKT", "DER", "LOW", "PRESS",
    "B", "A", "T", "TP", "PP", "EP", "DP", "x", "vs", "API", "HGX", "DGX", "OEMs", "BTU/h",
    "MB/s", "Gb/s", "TB/s", "TFLOP/s", "TFLOPS", "kg/m", "FP32", "FP16", "BF16", "FP8",
    "ECC", "DCGM", "Xid", "NIC", "NICs", "RDMA", "xGMI", "TCO", "ISO/IEC", "CNNIC", "YD/T",
    "config.json", "brief.json", "torch.compile", "Uptime", "Institute", "Tier", "III", "IV",
    # tools a delivery test names
    "fio", "gpu-burn", "nccl-tests", "all_reduce_perf",
    # machine-learning words Chinese engineers write in Latin script
    "Transformer", "dropout", "logits", "epoch", "padding", "alpha", "rank", "batch",
    # training frameworks and optimisers (product names)
    "Adafactor", "FlashAttention", "LLaMA-Factory", "LitGPT", "Megatron-SWIFT", "MindSpeed",
    "NeMo", "TRL", "Transformers", "ms-swift", "torchtune", "Unsloth", "Axolotl",
    # quantisation formats and kernels (product names), PyTorch's names of its AdamW
    # implementations (as its documentation and the optimizer's arguments write them)
    "GPTQ", "AWQ", "bitsandbytes", "torchao", "Liger", "fused", "foreach", "Fused", "Foreach",
    # accelerators named in help texts
    "T4", "V100", "A100", "H100", "H20", "H200", "H800", "A800", "L40S", "B200",
}  # fmt: skip
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_\-+/.']*[A-Za-z0-9_]|[A-Za-z]")
RULE_ID = re.compile(r"\b(?:SITE|VENDOR|HW|CLOUD|NET|OPS)-[A-Z0-9-]+\b")
EXPRESSION = re.compile(r"[=<>!]=")
HAN = re.compile(r"[\u4e00-\u9fff]")
# Chinese names of Chinese documents an English page gives beside its English words (the name
# a buyer finds on the certificate).
OFFICIAL_TERMS = ("增值电信业务经营许可证", "等保三级", "等保测评", "《数据中心设计规范》")


class Visible(HTMLParser):
    """The text a reader sees, without scripts, styles, citations and code, and without what
    the page marks as not to be translated (a user name) or as in another language (the
    language switcher's "English")."""

    SKIP = {"script", "style", "cite", "code", "title"}
    VOID = {"br", "img", "input", "meta", "link", "hr", "wbr", "source", "col", "area"}

    def __init__(self, language: str):
        super().__init__()
        self.language = language
        self.parts, self.stack = [], []

    def _skipped(self, tag, attrs) -> bool:
        attrs = dict(attrs)
        other = attrs.get("lang") and not attrs["lang"].lower().startswith(self.language[:2])
        return tag in self.SKIP or attrs.get("translate") == "no" or bool(other)

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append((tag, self._skipped(tag, attrs)))

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, _skipped = self.stack.pop()
            if open_tag == tag:
                break

    @property
    def depth(self) -> bool:
        return any(skipped for _tag, skipped in self.stack)

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def visible(html: str, language: str = "zh-hans") -> str:
    parser = Visible(language)
    parser.feed(html)
    text = " ".join(" ".join(parser.parts).split())
    return re.sub(r"https?://\S+", " ", text)  # addresses are addresses


def catalog_names() -> set[str]:
    """Every token of the names the catalog gives products, makers, sites and providers."""
    words = set()
    rows = [
        *Accelerator.objects.values_list("name", "name_zh", "maker", "architecture"),
        *ServerModel.objects.values_list("name", "name_zh", "maker"),
        *ModelPreset.objects.values_list("name", "family"),
        *Offer.objects.values_list("provider", "region"),
        *HostingVendor.objects.values_list("name"),
        *DataCenter.objects.values_list("name"),
    ]
    for row in rows:
        for value in row:
            words.update(WORD.findall(value or ""))
    return words


# The codes a vendor types as a questionnaire answer (each explained in the reader's language).
ANSWER_CODES = {code for fact in FACTS for code in fact.choices}


def latin_words(text: str, allowed: set[str]) -> set[str]:
    """Latin-script words not allowed; snake_case identifiers (q_proj, an environment variable)
    are code, a standard's number (B11, Y.1541, GB/T 22239) is a number."""
    return {
        w
        for w in WORD.findall(text)
        if w not in allowed
        and "_" not in w
        and not re.fullmatch(r"[A-Za-z]", w)
        and not re.fullmatch(r"FT-\d{4}-\d+", w)  # a brief's number
        and not re.fullmatch(r"[A-Z]{1,3}[0-9][0-9.\-]*", w)
    }


@pytest.fixture
def walk(client):
    load_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(buyer)
    assessment = finished_assessment(buyer)
    options = assessment_results(assessment).recommendation.options
    cloud = next(o for o in options if o.is_cloud)
    hosted = next(o for o in options if not o.is_cloud and o.economics is not None)
    pk = assessment.pk
    urls = [
        reverse("wizard:task_list", args=[pk]),
        *(
            reverse("wizard:step", args=[pk, s])
            for s in ("model", "training", "site", "procurement")
        ),
        reverse("wizard:check", args=[pk]),
        reverse("results:list", args=[pk]),
        reverse("results:list", args=[pk]) + "?ranking=all",
        reverse("results:option", args=[pk, cloud.key]),
        reverse("results:option", args=[pk, hosted.key]),
        reverse("results:compare", args=[pk]) + f"?option={cloud.key}&option={hosted.key}",
        reverse("results:figures", args=[pk]),
        reverse("questionnaire:bulk", args=[pk]),
        reverse("brief:verify"),
    ]
    return buyer, assessment, hosted, urls


def test_the_chinese_pages_are_chinese(client, walk):
    _buyer, _assessment, _hosted, urls = walk
    allowed = ALLOWED | catalog_names()
    found = {}
    for url in urls:
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
        assert response.status_code == 200, url
        text = visible(response.content.decode())
        words = latin_words(text, allowed)
        if words:
            found[url] = sorted(words)
        assert not EXPRESSION.search(text), (url, EXPRESSION.search(text))
        assert not RULE_ID.search(text), (url, RULE_ID.search(text).group())
    assert found == {}, "\n".join(f"{url}: {' '.join(words)}" for url, words in found.items())


def test_the_english_pages_carry_no_chinese_outside_names(client, walk):
    _buyer, _assessment, _hosted, urls = walk
    names = "".join(
        value or ""
        for row in (
            *Accelerator.objects.values_list("name_zh", "maker_zh"),
            *ServerModel.objects.values_list("name_zh", "maker_zh"),
            *DataCenter.objects.values_list("name_zh", "city_zh"),
            *HostingVendor.objects.values_list("name_zh"),
            *Offer.objects.values_list("provider", "provider_zh", "region_zh"),
        )
        for value in row
    )
    for url in urls:
        text = visible(client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode(), "en")
        for term in OFFICIAL_TERMS:
            text = text.replace(term, "")
        stray = {ch for ch in HAN.findall(text) if ch not in names}
        assert not stray, (url, "".join(sorted(stray)))


def test_the_chinese_brief_is_chinese(
    walk, django_capture_on_commit_callbacks, brief_ready, one_page_briefs
):  # its HTML is read, not its PDF
    buyer, assessment, hosted, _urls = walk
    with django_capture_on_commit_callbacks(execute=True):
        brief = issue_brief(
            user=buyer,
            document=assessment_document(assessment),
            assessment=assessment,
            option_key=hosted.key,
            language="zh-hans",
        )
    brief.refresh_from_db()
    html = render_html(brief.snapshot, meta(brief, approved=False))
    annex = html.find('id="annex"')
    memo_and_body = visible(html[:annex] if annex > 0 else html)
    words = latin_words(memo_and_body, ALLOWED | ANSWER_CODES | catalog_names())
    assert not words, " ".join(sorted(words))
    assert not EXPRESSION.search(memo_and_body)
    assert not RULE_ID.search(memo_and_body), RULE_ID.search(memo_and_body).group()
