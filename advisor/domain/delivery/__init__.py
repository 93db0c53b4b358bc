"""What the brief tells the buyer to check on delivery and to watch in operation.

Acceptance checklist (source items A1–A4), operating risks (O1–O3) and contract terms to
ask for (S6), each with the figures of the chosen option filled in.
"""
