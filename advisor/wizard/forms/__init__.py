"""One form per step. Forms validate and explain; they never write (services do).

Every form takes ``context``: the answers already given on the other steps, for the rules that
span steps (QLoRA with fp32, a sequence longer than the model's context). Numbers use text
inputs with ``inputmode`` (GOV.UK advice: number inputs mangle large values and scroll).
One module per step; this package names what the wizard's steps and tests use.
"""

from advisor.wizard.forms.fields import StepForm
from advisor.wizard.forms.model import ModelStepForm
from advisor.wizard.forms.procurement import QUALIFICATION_CHOICES, ProcurementStepForm
from advisor.wizard.forms.site import SiteStepForm
from advisor.wizard.forms.title import TitleForm
from advisor.wizard.forms.training import TrainingStepForm

__all__ = [
    "QUALIFICATION_CHOICES",
    "ModelStepForm",
    "ProcurementStepForm",
    "SiteStepForm",
    "StepForm",
    "TitleForm",
    "TrainingStepForm",
]
