"""The options table's rows written by advisor/results/rows.py are byte for byte what the
template loop they replace wrote (docs/decisions/0068), for rows of every kind and in both
languages. The loop is kept here as the reference for the row; the pieces it shares with other
pages (the option's title, capacity, cost figures and cost confidence) have one source,
advisor/presentation/fragments.py (decision 0085), which the loop takes through its tags and
which is tested here by what it writes."""

import dataclasses

import pytest
from django.db import transaction
from django.template import Context, Template
from django.urls import NoReverseMatch, reverse
from django.utils import translation
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.text import slugify

from advisor.assessments.answers import scenario_document
from advisor.demo_scenarios import answers
from advisor.domain.economics.confidence import Confidence
from advisor.domain.i18n import Message
from advisor.domain.recommend.options import Capacity
from advisor.presentation.fragments import capacity, cost_confidence, cost_figures, esc
from advisor.recommendation.run import run_recommendation
from advisor.results import presenters
from advisor.results.rows import OptionLinks, table_rows
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_7B_LORA_COMPARED, QWEN_32B_LORA
from vendors.models import Accelerator, ModelPreset

pytestmark = pytest.mark.django_db

ASSESSMENT_PK = 7
# The words translated once per table and the loop, as templates/results/results_body.html
# had them before the rows were written in Python.
REFERENCE = Template(
    "{% load i18n domain_text money humanize numbers labels fragments %}"
    + '{% translate "Compare" as w_compare %}{% translate "Rank" as w_rank %}{% translate "Choice" as w_choice %}{% translate "Where" as w_where %}{% translate "Memory per GPU" as w_memory %}{% translate "Time to train" as w_time %}{% translate "Cash out" as w_cash %}{% translate "Compliance" as w_compliance %}{% translate "does not qualify" as w_not_qualifying %}{% translate "unpriced: cannot be compared" as w_unpriced %}{% translate "cloud: no data center of yours" as w_cloud %}{% translate "not estimated" as w_not_estimated %}{% translate "Does not qualify" as w_reasons %}'
    + (
        "{% for row in rows %}{% with o=row.option %}\n"
        '    <tr class="{% if not o.qualifies %}not-qualifying{% endif %}" id="row-{{ forloop.counter }}" data-mode="{{ o.mode|default:"unpriced" }}">\n'
        '      <td data-label="{{ w_compare }}"><input type="checkbox" name="option" value="{{ o.key }}" id="cmp-{{ forloop.counter }}"><label for="cmp-{{ forloop.counter }}" class="visually-hidden">{% blocktranslate with name=o.hardware.server|local_name place=o.place|local_name|default:_("your room") %}Compare {{ name }} at {{ place }}{% endblocktranslate %}</label></td>\n'
        '      <td data-label="{{ w_rank }}">{% if row.rank %}{{ row.rank }}{% elif o.unpriced %}<span class="hint">{{ w_unpriced }}</span>{% else %}<span class="hint">{{ w_not_qualifying }}</span>{% endif %}</td>\n'
        '      <td data-label="{{ w_choice }}"><a href="{% url \'results:option\' assessment.pk o.key %}">{% option_title o %}</a><br><span class="hint">{% if o.mode %}{{ o.mode|mode_label }} · {% endif %}{% capacity o.obtained o.hardware.server %}</span>\n'
        '        {% if row.choice.equivalents %}<details class="equivalents"><summary>{% blocktranslate count n=row.choice.equivalents %}{{ n }} equivalent option{% plural %}{{ n }} equivalent options{% endblocktranslate %}</summary><ul>{% for e in row.choice.options|slice:"1:" %}<li><a href="{% url \'results:option\' assessment.pk e.key %}">{{ e.hardware.server|local_name }} · {{ e.place|local_name }}</a></li>{% endfor %}</ul></details>{% endif %}</td>\n'
        '      <td data-label="{{ w_where }}">{% if o.is_cloud %}{{ o.place|local_name }}<br><span class="hint">{{ w_cloud }}</span>{% else %}{{ o.site.data_center|local_name }}<br><span class="hint">{{ o.site.vendor|local_name|default:_("operator not in the catalog") }}</span>{% endif %}{% if row.choice and row.choice.places|length > 1 %}<br><span class="hint">{% blocktranslate count n=row.choice.places|length %}the same at {{ n }} site{% plural %}the same at {{ n }} sites{% endblocktranslate %}</span>{% endif %}</td>\n'
        '      <td data-label="{{ w_memory }}">\n'
        '        <svg class="memory-bar{% if not o.sizing.fits %} over{% endif %}" viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label="{% blocktranslate with need=o.sizing.memory.total|num:1 have=o.sizing.capacity_gib|num:1 %}{{ need }} GiB of {{ have }} GiB{% endblocktranslate %}"><rect class="track" x="0" y="0" width="100" height="8"/><rect class="fill" x="0" y="0" width="{{ row.memory_bar_pct }}" height="8"/></svg>\n'
        '        <span class="hint">{{ o.sizing.memory.total|num:1 }} / {{ o.sizing.capacity_gib|gib }}</span>\n'
        "      </td>\n"
        '      <td data-label="{{ w_time }}" class="num time-cell">{% if o.time_to_train_hours is not None %}{{ o.time_to_train_hours|hours }}{% else %}{{ w_not_estimated }}{% endif %}</td>\n'
        '      <td data-label="{{ w_cash }}" class="num cost-cell">{% cost_figures o %}{% if o.cost %}<br>{% cost_confidence o.confidence %}{% endif %}</td>\n'
        '      <td data-label="{{ w_compliance }}"><span class="tag verdict-{{ o.compliance.verdict }}">{{ o.compliance.verdict|verdict_label }}</span>\n'
        '        <br><span class="hint">{% blocktranslate with p=o.compliance.counts.pass w=o.compliance.counts.warn f=o.compliance.counts.fail u=o.compliance.counts.unknown %}{{ p }} pass · {{ w }} warn · {{ f }} fail · {{ u }} unknown{% endblocktranslate %}</span>{% if o.compliance.unknown_blockers %}<br><span class="hint">{% blocktranslate count n=o.compliance.unknown_blockers|length %}{{ n }} veto check awaits the vendor{% plural %}{{ n }} veto checks await the vendor{% endblocktranslate %}</span>{% endif %}</td>\n'
        "    </tr>\n"
        '    {% if o.reasons %}<tr class="reasons-row"><td></td><td colspan="7"><strong>{{ w_reasons }}:</strong> {% for r in o.reasons %}{{ r|tr }}{% if not forloop.last %}; {% endif %}{% endfor %}</td></tr>{% endif %}\n'
        "  {% endwith %}{% endfor %}"
    )
)
# Names that need escaping, in both languages, where a catalog record's name is shown.
AWKWARD = "A&B <\"x\"> 'y'"


def reference(rows) -> str:
    return REFERENCE.render(Context({"rows": rows, "assessment": {"pk": ASSESSMENT_PK}}))


def awkward(record):
    return dataclasses.replace(record, name=AWKWARD, name_zh=AWKWARD + " 中")


def variants(option) -> list:
    """``option`` and copies of it that take the row's other branches."""
    hardware, site = option.hardware, option.site
    obtained = option.obtained
    idle = Capacity(obtained.how, obtained.instances, obtained.gpus_per_instance, gpus_used=1)
    reason = Message("Needs {n} more GiB of memory per GPU", {"n": 3})
    return [
        option,
        dataclasses.replace(option, capacity=idle),  # GPUs idle, paid for
        dataclasses.replace(option, reasons=(reason, *option.reasons)),  # does not qualify
        dataclasses.replace(option, economics=None),  # not priced
        dataclasses.replace(option, mode=None),  # no mode
        dataclasses.replace(option, economics=None, cost_cny=None, reasons=()),  # unpriced
        dataclasses.replace(option, sizing=dataclasses.replace(option.sizing, time=None)),
        dataclasses.replace(
            option,
            hardware=dataclasses.replace(hardware, server=awkward(hardware.server)),
            site=dataclasses.replace(
                site, data_center=awkward(site.data_center), vendor=awkward(site.vendor)
            ),
        ),
        dataclasses.replace(
            option,
            site=dataclasses.replace(
                site,
                data_center=dataclasses.replace(site.data_center, name="", name_zh=None),
                vendor=None,
            ),
        ),  # no place name ("your room"), no operator
    ]


@pytest.fixture(scope="module")
def runs(django_db_setup, django_db_blocker):
    """Three runs made once for the module, on a catalog loaded in a transaction rolled back
    when they are made, so the worker's database is left as every other test expects it."""
    with django_db_blocker.unblock(), transaction.atomic():
        load_catalog()
        jobs = [QWEN_7B_LORA_COMPARED, QWEN_32B_LORA, scenario_document(answers())]
        made = [run_recommendation(job) for job in jobs]  # one job, one job, a programme
        transaction.set_rollback(True)
    return made


def test_the_module_runs_leave_no_catalog_behind(runs, db):
    assert not ModelPreset.objects.exists() and not Accelerator.objects.exists()


def every_kind_of_row(run) -> list:
    """The run's rows as the page shows them (folded, all choices, with equivalents and sites),
    unfolded (no choice), and each option's variants (rank kept, no choice)."""
    recommendation = run.recommendation
    unfolded = presenters.rows_for(recommendation, presenters.ALL_OPTIONS)
    folded, _ = presenters.folded(unfolded, show_all=True)
    varied = [presenters.Row(copy, row.rank) for row in unfolded for copy in variants(row.option)]
    return folded + unfolded + varied


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_rows_are_written_as_the_template_wrote_them(runs, language):
    with translation.override(language):
        for run in runs:
            rows = every_kind_of_row(run)
            assert table_rows(rows, ASSESSMENT_PK) == reference(rows)


def test_the_rows_compared_take_every_branch(runs):
    """The comparison above covers each kind of row (else it would prove less than it says)."""
    with translation.override("en"):
        html = "".join(table_rows(every_kind_of_row(run), ASSESSMENT_PK) for run in runs)
    for mark in (
        'data-mode="cloud"',
        'data-mode="buy"',
        'data-mode="rent"',
        'data-mode="unpriced"',
        "not-qualifying",
        "unpriced: cannot be compared",
        "reasons-row",
        "GPU idle, paid for",
        "GPUs idle, paid for",
        "-GPU instance",
        "net of resale",
        " a run",
        "for this job",
        "not priced",
        "equivalent option",
        "the same at",
        "veto check",
        "your room",
        "operator not in the catalog",
        "A&amp;B &lt;&quot;x&quot;&gt; &#x27;y&#x27;",
        "memory-bar over",
        "not estimated",
        "cost-confidence confidence-",
    ):
        assert mark in html, mark


def confidence(headline: str, flag_label: str) -> Confidence:
    return Confidence(
        figure="tariff_cny_per_kwh",
        level="zone",
        flag="",
        basis="",
        weakness=1,
        headline=headline,
        figure_label="province tariff",
        flag_label=flag_label,
    )


@pytest.mark.parametrize(
    "language, headline, flag_label, words",
    [
        ("en", "your figures", "", "your figures"),  # the buyer's own figure: the headline alone
        ("en", "sourced", "", "sourced: province tariff"),  # no flag: headline and figure
        ("en", "indicative", "press report", "indicative: province tariff, press report"),
        (
            "en",
            "indicative",
            AWKWARD,
            "indicative: province tariff, A&amp;B &lt;&quot;x&quot;&gt; &#x27;y&#x27;",
        ),
        ("zh-hans", "your figures", "", "贵方数据"),
        ("zh-hans", "indicative", "press report", "参考值：省级电价，新闻报道"),
    ],
)
def test_cost_confidence_says_how_sure_a_cost_is(language, headline, flag_label, words):
    """The branches of the cost confidence, with the record and with its stored form (a brief's
    snapshot holds it as JSON)."""
    record = confidence(headline, flag_label)
    expected = f'<span class="cost-confidence confidence-{slugify(headline)}">{words}</span>\n'
    with translation.override(language):
        assert cost_confidence(record) == expected
        assert cost_confidence(dataclasses.asdict(record)) == expected
        assert cost_confidence(None) == "\n"


def test_a_capacity_says_what_is_obtained_and_what_idles(runs):
    options = [o for run in runs for o in run.recommendation.options]
    bought = next(o for o in options if o.obtained.how != "cloud" and not o.obtained.idle_gpus)
    cloud = next(o for o in options if o.obtained.how == "cloud")
    server = bought.hardware.server
    c = bought.obtained
    with translation.override("en"):
        text = capacity(c, server)
        assert text.startswith(f"{c.instances} × {esc(server.name)}")
        assert "idle" not in text
        idle = dataclasses.replace(c, gpus_used=c.gpus - 1)
        assert capacity(idle, server).endswith(" · 1 GPU idle, paid for")
        k = cloud.obtained
        instances = "instance" if k.instances == 1 else "instances"
        assert capacity(k, cloud.hardware.server).startswith(
            f"{k.instances} × {k.gpus_per_instance}-GPU {instances}"
        )
        awkward_server = awkward(server)
        assert "A&amp;B &lt;&quot;x&quot;&gt;" in capacity(c, awkward_server)


def test_cost_figures_say_cash_out_and_net_of_resale(runs):
    options = [o for run in runs for o in run.recommendation.options]
    resold = next(o for o in options if o.cost and o.cost.resale)
    with translation.override("en"):
        figures = cost_figures(resold)
        assert figures.startswith('<span class="cost-cash">¥')
        assert " net of resale</span>" in figures and figures.endswith("</span>\n")
        assert cost_figures(dataclasses.replace(resold, economics=None)) == "not priced\n"
    with translation.override("zh-hans"):
        assert cost_figures(dataclasses.replace(resold, economics=None)) == (
            translation.gettext("not priced") + "\n"
        )


@pytest.mark.parametrize(
    "key",
    [
        "gy-h800-8",
        "srv-h20@cloud:aliyun-gn8",
        "a b",
        "中文服务器",
        "%41%",
        "a?b#c",
        "&<>\"'",
        "~!$&'()*+,;=:@",
        "tab\tand\nnewline",
    ],
)
def test_an_option_link_is_what_reverse_writes(key):
    assert OptionLinks(ASSESSMENT_PK)(key) == esc(
        reverse("results:option", args=[ASSESSMENT_PK, key])
    )


@pytest.mark.parametrize("key", ["", "a/b"])
def test_a_key_reverse_refuses_is_refused(key):
    with pytest.raises(NoReverseMatch):
        OptionLinks(ASSESSMENT_PK)(key)


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_number_is_written_as_localize_writes_it(settings, grouped, language):
    settings.USE_THOUSAND_SEPARATOR = grouped
    with translation.override(language):
        for value in (0, 7, -3, 1234567, 12.5, True):
            assert esc(value) == conditional_escape(localize(value)), value
    if grouped:
        with translation.override("en"):
            assert esc(1234567) == "1,234,567"
