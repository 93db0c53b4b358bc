"""A checked scenario sized on a catalog accelerator and server: what ``manage.py size`` prints
and ``POST /api/size`` answers."""

from __future__ import annotations

from advisor.assessments.documents import InputError
from advisor.catalog import sizing as selectors
from advisor.domain.document import control_character
from advisor.domain.scenario import LIMITS
from advisor.domain.sizing.estimate import SizingResult, size


def size_scenario(
    scenario, *, accelerator_key=None, gpus=None, server_key=None, allow_offload=False
) -> SizingResult:
    """What ``size`` prints, for a checked scenario (the command and ``POST /api/size``);
    :class:`InputError` names an unknown accelerator or server, or a GPU count out of range."""
    for field_name, text in (("accelerator", accelerator_key), ("server", server_key)):
        if text and (character := control_character(text)):
            raise InputError(field_name, f"must not contain control characters (found {character})")
    accelerator = _accelerator(scenario, accelerator_key)
    if accelerator is None and server_key:
        raise InputError("server", "needs an accelerator (hardware.accelerator or --accelerator)")
    server = _server(accelerator.key, server_key) if accelerator else None
    if gpus is not None and not LIMITS["hardware.count"][0] <= gpus <= LIMITS["hardware.count"][1]:
        raise InputError("gpus", "must be between 1 and 4,096")
    return size(scenario, accelerator, gpus=gpus, server=server, allow_offload=allow_offload)


def _accelerator(scenario, key_option):
    key = key_option or scenario.hardware.accelerator
    field_name = "accelerator" if key_option else "hardware.accelerator"
    if not key:
        return None  # memory per GPU only (docs/sizing.md)
    spec = selectors.accelerator_spec(key)
    if spec is None:
        known = ", ".join(sorted(selectors.accelerator_specs()))
        raise InputError(field_name, f"unknown accelerator {key!r} (catalog: {known})")
    return spec


def _server(accelerator_key, key_option):
    if key_option:
        spec = selectors.server_spec(key_option)
        if spec is None:
            raise InputError("server", f"unknown server model {key_option!r}")
        if spec.accelerator_key != accelerator_key:
            raise InputError(
                "server", f"{key_option!r} holds {spec.accelerator_key}, not {accelerator_key}"
            )
        return spec
    candidates = selectors.servers_for_accelerator(accelerator_key)
    return candidates[0] if candidates else None
