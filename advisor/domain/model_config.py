"""Read a Hugging Face ``config.json`` into a model's shape, safely: the one parser.

The wizard (a buyer's upload) and the catalog admin (a model preset) both read configs here
and word its problems their own way. The file is untrusted: its size is capped before parsing,
it must be one UTF-8 JSON object, and every figure used must be a whole number inside the
scenario's limits (:data:`advisor.domain.scenario.LIMITS`). Nothing is executed and nothing is
fetched. Parameter counts are computed from the shape, following the usual decoder layouts:
Llama/Qwen/Mistral with grouped-query attention and a gated MLP (Qwen's q/k/v biases, Qwen3's
q/k norms), Mixtral/Qwen-MoE/DeepSeek-MoE experts (shared experts, leading dense layers) and
DeepSeek's latent attention; ChatGLM, Baichuan, GPT-2 and Falcon key names.

Problems are :class:`ConfigProblem` with a translatable :class:`Message` (values, not text).
"""

from __future__ import annotations

import json
import math
import sys

from advisor.domain.i18n import N_, Message
from advisor.domain.scenario import LIMITS, QUANT_BITS, architecture_problem

MAX_BYTES = 256 * 1024  # a real config.json is a few KiB

# scenario field -> config keys tried in order (model families name them differently).
KEYS = {
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "heads": ("num_attention_heads", "n_head"),
    "kv_heads": ("num_key_value_heads", "num_kv_heads", "multi_query_group_num", "n_query_groups"),
    "intermediate": ("intermediate_size", "ffn_hidden_size", "n_inner"),
    "vocab": ("padded_vocab_size", "vocab_size"),
    "experts": ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"),
    "experts_per_token": (
        "num_experts_per_tok",
        "moe_topk",
        "moe_top_k",
        "top_k",
        "num_selected_experts",
    ),
    "context_length": (
        "max_position_embeddings",
        "seq_length",
        "n_positions",
        "max_seq_len",
        "model_max_length",
        "max_sequence_length",
    ),
}
REQUIRED = ("layers", "hidden", "heads", "intermediate", "vocab")
FAMILIES = (
    ("qwen", "qwen"),
    ("deepseek", "deepseek"),
    ("chatglm", "glm"),
    ("glm", "glm"),
    ("baichuan", "baichuan"),
    ("internlm", "internlm"),
    ("mixtral", "mistral"),
    ("mistral", "mistral"),
    ("llama", "llama"),
    ("gemma", "gemma"),
    ("phi", "phi"),
    ("falcon", "falcon"),
)
UNGATED = ("falcon", "gpt2", "bloom", "gpt_neox", "phi-2", "phi ")
NESTED = ("text_config", "llm_config", "language_config")


class ConfigProblem(ValueError):
    """A config.json that cannot be used; ``message`` says why (translatable)."""

    def __init__(self, message: Message):
        super().__init__(message.render())
        self.message = message


def parse_config(raw: bytes) -> dict:
    """The JSON object in ``raw`` (a multimodal config: its language model's part)."""
    if len(raw) > MAX_BYTES:
        raise ConfigProblem(
            Message(
                N_("The file is {size} KiB; a config.json is at most {max} KiB."),
                {"size": math.ceil(len(raw) / 1024), "max": MAX_BYTES // 1024},
            )
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigProblem(
            Message(N_("The file is not UTF-8 text, so it is not a config.json."))
        ) from None
    # Our own words, whole: never the parser's text, never cut (a 5,000-digit number made
    # Python's message, cut mid-word, the page's error).
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise ConfigProblem(
            Message(
                N_("The file is not valid JSON (line {line}, column {column})."),
                {"line": error.lineno, "column": error.colno},
            )
        ) from None
    except _NotANumber as error:
        raise ConfigProblem(
            Message(N_("The file is not valid JSON: {name} is not a number."), {"name": error.name})
        ) from None
    except RecursionError:
        raise ConfigProblem(
            Message(N_("The file is not valid JSON: it is nested too deeply."))
        ) from None
    except ValueError:  # an integer of more digits than Python converts (4,300)
        raise ConfigProblem(
            Message(
                N_("The file is not valid JSON: a number in it has more than {digits} digits."),
                {"digits": sys.get_int_max_str_digits()},
            )
        ) from None
    if not isinstance(data, dict):
        raise ConfigProblem(
            Message(N_("The file must hold one JSON object, like a model's config.json."))
        )
    for nested in NESTED:
        if isinstance(data.get(nested), dict) and "hidden_size" not in data:
            merged = dict(data[nested])
            for key in ("_name_or_path", "architectures", "model_type"):
                merged.setdefault(key, data.get(key))
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


def _whole(key: str, value, limits: tuple[float, float]) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigProblem(Message(N_("“{key}” must be a whole number."), {"key": key}))
    low, high = limits
    if not low <= value <= high:
        raise ConfigProblem(
            Message(
                N_("“{key}” is {value}; it must be between {low} and {high}."),
                {"key": key, "value": _as_typed(value), "low": int(low), "high": int(high)},
            )
        )
    return value


def _as_typed(value: int) -> str:
    """The number as the file gives it (no grouping); a very long one cut, never mid-sentence."""
    text = str(value)
    return text if len(text) <= 24 else text[:20] + "…"


def _limits(name: str) -> tuple[float, float]:
    if name == "context_length":
        return (1, 100 * LIMITS["seq_len"][1])
    return LIMITS.get(f"model.{name}", (1, LIMITS["model.hidden"][1]))


def _optional(data: dict, *keys: str) -> int | None:
    """A whole number under one of ``keys``, bounded like a model dimension; None if absent."""
    key, value = _first(data, keys)
    return None if key is None else _whole(key, value, (1, LIMITS["model.hidden"][1]))


def _flag(data: dict, key: str) -> bool:
    value = data.get(key, False)
    return value if isinstance(value, bool) else False


def kind_of(data: dict) -> str:
    """``model_type`` and the architecture names, lower case (what the layouts key on)."""
    kind = data.get("model_type") if isinstance(data.get("model_type"), str) else ""
    archs = data.get("architectures") if isinstance(data.get("architectures"), list) else []
    return " ".join([kind, *[a for a in archs if isinstance(a, str)]]).lower()


def family_of(data: dict) -> str:
    kind = kind_of(data)
    return next((family for needle, family in FAMILIES if needle in kind), "other")


def shape(data: dict) -> dict:
    """The scenario's model fields (plus ``context_length``) a parsed config describes.

    Raises :class:`ConfigProblem` naming the config key when a figure is missing, not a whole
    number, outside the scenario's limits, or inconsistent with the others (the same check as
    the custom-model form and the scenario loader: ``architecture_problem``).
    """
    out: dict = {}
    used: dict[str, str] = {}
    for name, keys in KEYS.items():
        key, value = _first(data, keys)
        if name == "intermediate" and _moe(data):
            key, value = _first(data, ("moe_intermediate_size", *keys))
        used[name] = f"“{key or keys[0]}”"
        if key is None:
            if name in REQUIRED:
                raise ConfigProblem(
                    Message(
                        N_("The config has no “{key}”; it is needed to size the model."),
                        {"key": keys[0]},
                    )
                )
            out[name] = None
            continue
        out[name] = _whole(key, value, _limits(name))
    if out["experts"] is None or out["experts"] <= 1:
        out["experts"] = out["experts_per_token"] = None
    if out["kv_heads"] is None:
        out["kv_heads"] = out["heads"]
    problem = architecture_problem(out, used)
    if problem is not None:
        name, message = problem
        raise ConfigProblem(
            Message(
                N_("In this config, {key} {problem}."),
                {"key": used[name], "problem": message},
            )
        )
    out["tied_embeddings"] = _flag(data, "tie_word_embeddings")
    return out


def _moe(data: dict) -> bool:
    _, experts = _first(data, KEYS["experts"])
    return isinstance(experts, int) and not isinstance(experts, bool) and experts > 1


def read(raw: bytes) -> dict:
    """Everything a config gives: the shape (:func:`shape`), ``head_dim`` when it differs from
    hidden ÷ heads, the sliding window and the layers using it (:func:`attention_window`),
    ``params_b`` and (mixture of experts) ``active_params_b``, ``family`` and
    the ``name`` the file gives (untrusted text: the caller cleans it)."""
    data = parse_config(raw)
    out = shape(data)
    head_dim = _optional(data, "head_dim", "kv_channels")
    total, active = count_params(data, out, head_dim)
    out["params_b"] = round(total / 1e9, 6)
    out["active_params_b"] = round(active / 1e9, 6) if out["experts"] else None
    low, high = LIMITS["model.params_b"]
    if not low <= out["params_b"] <= high:
        raise ConfigProblem(
            Message(
                N_("The shape gives {params} billion parameters, outside {low} to {high}."),
                {"params": out["params_b"], "low": low, "high": int(high)},
            )
        )
    out["head_dim"] = head_dim if head_dim and head_dim * out["heads"] != out["hidden"] else None
    out["family"] = family_of(data)
    out["sliding_window"], out["sliding_window_layers"] = attention_window(data, out["layers"])
    out["quant_format"], out["quant_bits"] = quantisation(data)
    name = data.get("_name_or_path") or data.get("model_type") or ""
    if not name and isinstance(data.get("architectures"), list) and data["architectures"]:
        name = data["architectures"][0]
    out["name"] = name if isinstance(name, str) else ""
    return out


def attention_window(data: dict, layers: int) -> tuple[int | None, int | None]:
    """(sliding_window, sliding_window_layers) where the config states a window, else
    (None, None); the layers are None when every layer uses it (Mistral 7B v0.1).

    Transformers' configs say it three ways: ``layer_types``, one "sliding_attention" or
    "full_attention" per layer (gpt-oss, Gemma 3, recent Qwen and Gemma 2 configs); Gemma 2's
    older configs, whose code windows the even-numbered layers (``Gemma2DecoderLayer``:
    ``is_sliding = not bool(layer_idx % 2)``); and Qwen2's ``use_sliding_window``, false in
    every released Qwen2/2.5/3 config, which turns the stated window off."""
    key, window = _first(data, ("sliding_window",))
    if key is None or isinstance(window, bool) or data.get("use_sliding_window") is False:
        return None, None
    window = _whole(key, window, LIMITS["model.sliding_window"])
    types = data.get("layer_types")
    if isinstance(types, list) and len(types) == layers:
        windowed = sum(kind == "sliding_attention" for kind in types)
    elif "gemma2" in kind_of(data):
        windowed = (layers + 1) // 2
    else:
        windowed = layers
    if windowed == 0:
        return None, None
    return window, (None if windowed == layers else windowed)


def quantisation(data: dict) -> tuple[str | None, int | None]:
    """(quant_format, quant_bits) where the config states how its weights are quantised, else
    (None, None). Transformers writes ``quantization_config`` into a quantised checkpoint's
    config.json: ``quant_method`` "gptq" or "awq" with ``bits``; "bitsandbytes" with
    ``load_in_4bit`` and ``bnb_4bit_quant_type`` "nf4" (NF4; "nf4-double-quant" when
    ``bnb_4bit_use_double_quant`` is true), or ``load_in_8bit`` (LLM.int8, the
    scenario's default 8-bit format). Anything else (fp4, other methods, odd values) states
    nothing the scenario can say, so nothing is filled in."""
    config = data.get("quantization_config")
    if not isinstance(config, dict):
        return None, None
    method = config.get("quant_method")
    bits = config.get("bits")
    bits = bits if isinstance(bits, int) and not isinstance(bits, bool) else None
    if method in ("gptq", "awq") and bits in QUANT_BITS and not (method == "awq" and bits != 4):
        return method, bits
    if method == "bitsandbytes":
        if config.get("load_in_4bit") is True and config.get("bnb_4bit_quant_type") == "nf4":
            double = config.get("bnb_4bit_use_double_quant") is True
            return ("nf4-double-quant" if double else "nf4"), 4
        if config.get("load_in_8bit") is True:
            return None, 8
    return None, None


def _attention(data: dict, m: dict, head_dim: int | None) -> float:
    """Attention parameters of one layer (grouped-query, or DeepSeek's latent attention)."""
    hidden, heads, kv_heads = m["hidden"], m["heads"], m["kv_heads"]
    kind = kind_of(data)
    kv_lora = _optional(data, "kv_lora_rank")
    if kv_lora:
        q_lora = _optional(data, "q_lora_rank")
        nope = _optional(data, "qk_nope_head_dim") or 0
        rope = _optional(data, "qk_rope_head_dim") or 0
        v_dim = _optional(data, "v_head_dim") or 0
        q = (
            hidden * q_lora + q_lora + q_lora * heads * (nope + rope)
            if q_lora
            else hidden * heads * (nope + rope)
        )
        kv = hidden * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v_dim)
        return q + kv + heads * v_dim * hidden
    head_dim = head_dim or hidden // heads
    q_out, kv_out = heads * head_dim, kv_heads * head_dim
    attention = hidden * q_out + 2 * hidden * kv_out + q_out * hidden
    biased = _flag(data, "attention_bias") or _flag(data, "add_qkv_bias")
    if biased or any(t in kind for t in ("qwen2", "qwen ", "qwen2_moe")):
        attention += q_out + 2 * kv_out
    if "qwen3" in kind:
        attention += 2 * head_dim  # q/k norms
    return attention


def count_params(data: dict, m: dict, head_dim: int | None = None) -> tuple[float, float]:
    """(total, active) parameters of the decoder ``data`` describes, shape ``m``."""
    hidden, layers = m["hidden"], m["layers"]
    per_matrix = 2 if any(t in kind_of(data) for t in UNGATED) else 3
    attention = _attention(data, m, head_dim) + 2 * hidden  # plus the two norms
    dense_width = _optional(data, *KEYS["intermediate"]) or m["intermediate"]
    dense_mlp = per_matrix * hidden * dense_width
    mlp_total, unused, moe_layers = layers * dense_mlp, 0.0, 0
    if m["experts"]:
        expert = per_matrix * hidden * m["intermediate"]
        shared_width = _optional(data, "shared_expert_intermediate_size")
        shared = per_matrix * hidden * shared_width + hidden if shared_width else 0
        shared += (_optional(data, "n_shared_experts", "num_shared_experts") or 0) * expert
        first_dense = min(layers, _optional(data, "first_k_dense_replace") or 0)
        moe_layers = layers - first_dense
        moe_mlp = m["experts"] * expert + hidden * m["experts"] + shared
        mlp_total = moe_layers * moe_mlp + first_dense * dense_mlp
        unused = (m["experts"] - m["experts_per_token"]) * expert
    embeddings = m["vocab"] * hidden * (1 if m["tied_embeddings"] else 2)
    total = layers * attention + mlp_total + embeddings + hidden
    return float(total), float(total - moe_layers * unused)
