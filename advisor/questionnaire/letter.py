"""The questionnaire as a formal PDF letter (WeasyPrint), in the active language."""

from __future__ import annotations

from datetime import date

from django.template.loader import render_to_string

from advisor.domain.questionnaire.questions import Question
from advisor.presentation.pdf import write_pdf_checked
from advisor.questionnaire.xlsx import allowed_text


def rows(questions: list[Question]) -> list[dict]:
    return [
        {
            "number": index,
            "question": question,
            "allowed": allowed_text(question.fact),
        }
        for index, question in enumerate(questions, start=1)
    ]


def render_pdf(questions: list[Question], *, title: str, vendor: str, today: date) -> bytes:
    html = render_to_string(
        "questionnaire/letter.html",
        {"rows": rows(questions), "title": title, "vendor": vendor, "today": today},
    )
    return write_pdf_checked(html)
