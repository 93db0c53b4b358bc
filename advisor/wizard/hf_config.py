"""Read a Hugging Face ``config.json`` into the scenario's model fields, safely.

The file is untrusted: its size is capped before parsing, it must be one JSON object, and
every figure must be a whole number inside the scenario's limits. The total parameter count is
not in a config, so it is computed from the shape (embeddings, attention, MLP or experts).
"""

from __future__ import annotations

import json
import math
import sys

from django.utils.translation import gettext as _

from advisor.domain.scenario import LIMITS, architecture_problem
from advisor.templatetags.domain_text import render_text
from advisor.text import clean_text

MAX_BYTES = 256 * 1024  # a real config.json is a few KiB

# scenario field -> config keys tried in order (model families name them differently).
KEYS = {
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "heads": ("num_attention_heads", "n_head"),
    "kv_heads": ("num_key_value_heads", "num_kv_heads", "multi_query_group_num"),
    "intermediate": ("moe_intermediate_size", "intermediate_size", "ffn_hidden_size", "n_inner"),
    "vocab": ("vocab_size", "padded_vocab_size"),
    "experts": ("num_local_experts", "num_experts", "n_routed_experts"),
    "experts_per_token": ("num_experts_per_tok", "moe_topk", "top_k"),
    "context_length": ("max_position_embeddings", "seq_length", "n_positions", "max_seq_len"),
}
REQUIRED = ("layers", "hidden", "heads", "intermediate", "vocab")
# The key a missing figure is asked for by: the usual Hugging Face name (``KEYS`` lists the
# MoE name first for ``intermediate``, but a dense config names it ``intermediate_size``).
ASKED_AS = {name: keys[0] for name, keys in KEYS.items()} | {"intermediate": "intermediate_size"}


class ConfigError(ValueError):
    """A config.json that cannot be used; the message says why, for the user."""


def read_upload(upload) -> dict:
    """Parse an uploaded file object; return the model fields (see :func:`model_fields`)."""
    if upload.size is not None and upload.size > MAX_BYTES:
        raise ConfigError(
            _("The file is %(size)s KiB; a config.json must be at most %(max)s KiB.")
            % {"size": math.ceil(upload.size / 1024), "max": MAX_BYTES // 1024}
        )
    raw = upload.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise ConfigError(
            _("The file is larger than %(max)s KiB; a config.json is a few KiB.")
            % {"max": MAX_BYTES // 1024}
        )
    return model_fields(parse(raw))


def parse(raw: bytes) -> dict:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(
            _("The file is not UTF-8 text; upload the model's config.json.")
        ) from None
    # Our own words, whole: never the parser's text, never cut (a 5,000-digit number made
    # Python's message, cut at 120 characters mid-word, the page's error).
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise ConfigError(
            _("The file is not valid JSON (line %(line)s, column %(column)s).")
            % {"line": error.lineno, "column": error.colno}
        ) from None
    except _NotANumber as error:
        raise ConfigError(
            _("The file is not valid JSON: %(name)s is not a number.") % {"name": error.name}
        ) from None
    except RecursionError:
        raise ConfigError(_("The file is not valid JSON: it is nested too deeply.")) from None
    except ValueError:  # an integer of more digits than Python converts (4,300)
        raise ConfigError(
            _("The file is not valid JSON: a number in it has more than %(digits)s digits.")
            % {"digits": f"{sys.get_int_max_str_digits():,}"}
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(_("The file must hold one JSON object, like a model's config.json."))
    # Multimodal configs keep the language model under text_config / llm_config.
    for nested in ("text_config", "llm_config", "language_config"):
        if isinstance(data.get(nested), dict) and "hidden_size" not in data:
            merged = dict(data[nested])
            merged.setdefault("_name_or_path", data.get("_name_or_path"))
            return merged
    return data


class _NotANumber(ValueError):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def _reject_constant(name):
    raise _NotANumber(name)


def _first(data: dict, keys: tuple[str, ...]):
    for key in keys:
        if data.get(key) is not None:
            return key, data[key]
    return None, None


def _whole(name: str, key: str, value, limits: tuple[float, float]) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(_("“%(key)s” must be a whole number.") % {"key": key})
    low, high = limits
    if not low <= value <= high:
        raise ConfigError(
            _("“%(key)s” is %(value)s; it must be between %(low)s and %(high)s.")
            % {"key": key, "value": value, "low": int(low), "high": int(high)}
        )
    return value


def model_fields(data: dict) -> dict:
    """The scenario model fields (plus ``context_length``) a config describes."""
    out: dict = {}
    used: dict[str, str] = {}
    for name, keys in KEYS.items():
        key, value = _first(data, keys)
        used[name] = f"“{key or ASKED_AS[name]}”"
        if key is None:
            if name in REQUIRED:
                raise ConfigError(
                    _("The config has no “%(key)s”; it is needed to size the model.")
                    % {"key": ASKED_AS[name]}
                )
            out[name] = None
            continue
        limits = LIMITS.get(f"model.{name}", (1, LIMITS["seq_len"][1]))
        if name == "context_length":
            limits = (1, 100 * LIMITS["seq_len"][1])
        out[name] = _whole(name, key, value, limits)
    if out["experts"] is None or out["experts"] <= 1:
        out["experts"] = out["experts_per_token"] = None
    if out["kv_heads"] is None:
        out["kv_heads"] = out["heads"]
    problem = architecture_problem(out, used)  # the same check as the form and the loader
    if problem is not None:
        name, message = problem
        raise ConfigError(
            _("In this config, %(key)s %(problem)s.")
            % {"key": used[name], "problem": render_text(message)}
        )
    tied = data.get("tie_word_embeddings", False)
    out["tied_embeddings"] = tied if isinstance(tied, bool) else False
    head_dim = data.get("head_dim")
    if not isinstance(head_dim, int) or isinstance(head_dim, bool) or head_dim <= 0:
        head_dim = None
    else:  # bounded like the hidden size: a huge one would overflow the parameter count
        head_dim = _whole("head_dim", "head_dim", head_dim, (1, LIMITS["model.hidden"][1]))
    out["params_b"] = round(estimate_params(out, head_dim) / 1e9, 6)
    low, high = LIMITS["model.params_b"]
    if not low <= out["params_b"] <= high:
        raise ConfigError(
            _("The shape gives %(params)s billion parameters, outside %(low)s to %(high)s.")
            % {"params": out["params_b"], "low": low, "high": int(high)}
        )
    name = data.get("_name_or_path") or data.get("model_type") or ""
    out["name"] = clean_text(name)[:100] if isinstance(name, str) else ""
    return out


def estimate_params(m: dict, head_dim: int | None = None) -> float:
    """Parameters of a decoder-only transformer with a gated (SwiGLU) MLP, from its shape."""
    hidden, heads, kv_heads = m["hidden"], m["heads"], m["kv_heads"] or m["heads"]
    head_dim = head_dim or hidden / heads
    attention = hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2
    experts = m["experts"] or 1
    mlp = experts * 3 * hidden * m["intermediate"]
    norms = 2 * hidden
    embeddings = m["vocab"] * hidden * (1 if m["tied_embeddings"] else 2)
    return m["layers"] * (attention + mlp + norms) + embeddings + hidden
