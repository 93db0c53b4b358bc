"""What a person sees when a company sign-in does not complete (cancelled, refused, failed)."""

from django.shortcuts import render


def problem(request, *args, **kwargs):
    return render(request, "sso/problem.html", status=400)
