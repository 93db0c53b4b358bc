"""Read a Hugging Face ``config.json`` into model-preset fields, without network access.

:func:`preset_from_config` takes the raw bytes of an uploaded file and returns the fields of a
:class:`vendors.models.ModelPreset` (``params_b`` and ``active_params_b`` counted from the shape),
or raises :class:`ConfigError` with a message a catalog admin can act on. The parser never
executes anything from the file: it is JSON, read with a size limit, and only known numeric
keys are used. Parameter counts follow the usual decoder layouts (Llama/Qwen/Mistral with
grouped-query attention and a gated MLP, Mixtral/Qwen-MoE/DeepSeek-MoE experts, DeepSeek's
latent attention, ChatGLM and Baichuan key names); they are estimates an admin can correct.
"""

from __future__ import annotations

import json
import sys

from vendors import constants


class ConfigError(ValueError):
    """The uploaded file is not a usable config.json; the message says why."""


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
MAX_DIMENSION = 1_000_000
MAX_VOCAB = 10_000_000


def _reject_constant(name):
    raise ConfigError(f"The file contains {name}, which is not a number config.json may hold.")


def load_config(raw: bytes) -> dict:
    """Parse ``raw`` as a JSON object, refusing oversized, non-UTF-8 or malformed files."""
    if len(raw) > constants.MODEL_CONFIG_UPLOAD_MAX_BYTES:
        raise ConfigError(
            f"The file is {len(raw):,} bytes; a config.json is at most "
            f"{constants.MODEL_CONFIG_UPLOAD_MAX_BYTES:,} bytes."
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError("The file is not UTF-8 text, so it is not a config.json.") from exc
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"The file is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from exc
    except RecursionError as exc:
        raise ConfigError("The file nests too deeply to be a config.json.") from exc
    except ValueError as exc:  # an integer of more digits than Python converts (4,300)
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(
            "The file is not valid JSON: a number in it has more than "
            f"{sys.get_int_max_str_digits():,} digits."
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError("A config.json holds one JSON object ({...}); this file does not.")
    # Multimodal configs keep the language model under text_config / llm_config.
    for nested in ("text_config", "llm_config", "language_config"):
        if isinstance(data.get(nested), dict) and "hidden_size" not in data:
            merged = {**data[nested]}
            merged.setdefault("architectures", data.get("architectures"))
            merged.setdefault("model_type", data.get("model_type"))
            data = merged
            break
    return data


def _int(cfg: dict, *names: str, required: bool = False, maximum: int = MAX_DIMENSION):
    for name in names:
        if name in cfg and cfg[name] is not None:
            value = cfg[name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"'{name}' must be a whole number, not {value!r}.")
            if not 0 < value <= maximum:
                raise ConfigError(f"'{name}' = {value} is outside 1..{maximum:,}.")
            return value
    if required:
        raise ConfigError(
            f"config.json lacks '{names[0]}'"
            + (f" (or {', '.join(repr(n) for n in names[1:])})" if len(names) > 1 else "")
            + "; is this a decoder language model's config?"
        )
    return None


def _bool(cfg: dict, name: str, default: bool | None) -> bool | None:
    value = cfg.get(name, default)
    if value is None or isinstance(value, bool):
        return value
    raise ConfigError(f"'{name}' must be true or false, not {value!r}.")


def model_type(cfg: dict) -> str:
    kind = cfg.get("model_type") or ""
    archs = cfg.get("architectures") or []
    if not isinstance(kind, str):
        raise ConfigError("'model_type' must be text.")
    if not isinstance(archs, list):
        raise ConfigError("'architectures' must be a list of names.")
    return " ".join([kind, *[a for a in archs if isinstance(a, str)]]).lower()


def family_of(cfg: dict) -> str:
    kind = model_type(cfg)
    for needle, family in FAMILIES:
        if needle in kind:
            return family
    return "other"


def count_params(cfg: dict) -> tuple[float, float]:
    """(total, active) parameter counts estimated from the configuration."""
    kind = model_type(cfg)
    hidden = _int(cfg, "hidden_size", "n_embd", "d_model", required=True)
    layers = _int(cfg, "num_hidden_layers", "num_layers", "n_layer", required=True)
    heads = _int(cfg, "num_attention_heads", "n_head", required=True)
    kv_heads = _int(cfg, "num_key_value_heads", "multi_query_group_num", "n_query_groups") or heads
    vocab = _int(cfg, "padded_vocab_size", "vocab_size", required=True, maximum=MAX_VOCAB)
    head_dim = _int(cfg, "head_dim", "kv_channels") or hidden // heads
    tied = _bool(cfg, "tie_word_embeddings", False)
    qkv_bias = bool(
        _bool(cfg, "attention_bias", False)
        or _bool(cfg, "add_qkv_bias", False)
        or any(t in kind for t in ("qwen2", "qwen ", "qwen2_moe"))
    )

    # Attention, per layer.
    kv_lora = _int(cfg, "kv_lora_rank")
    if kv_lora:  # DeepSeek multi-head latent attention
        q_lora = _int(cfg, "q_lora_rank")
        nope = _int(cfg, "qk_nope_head_dim", required=True)
        rope = _int(cfg, "qk_rope_head_dim", required=True)
        v_dim = _int(cfg, "v_head_dim", required=True)
        q = (
            (hidden * q_lora + q_lora + q_lora * heads * (nope + rope))
            if q_lora
            else (hidden * heads * (nope + rope))
        )
        attention = q + hidden * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v_dim)
        attention += heads * v_dim * hidden
    else:
        q_out, kv_out = heads * head_dim, kv_heads * head_dim
        attention = hidden * q_out + 2 * hidden * kv_out + q_out * hidden
        if qkv_bias:
            attention += q_out + 2 * kv_out
        if "qwen3" in kind:
            attention += 2 * head_dim  # q/k norms
    norms = 2 * hidden

    # MLP, per layer.
    intermediate = _int(cfg, "intermediate_size", "ffn_hidden_size", "n_inner")
    if intermediate is None:
        intermediate = 4 * hidden
    experts = _int(cfg, "num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")
    top_k = _int(cfg, "num_experts_per_tok", "moe_top_k", "num_selected_experts")
    gated = not any(t in kind for t in ("falcon", "gpt2", "bloom", "gpt_neox", "phi-2", "phi "))
    per_matrix = 3 if gated else 2
    dense_mlp = per_matrix * hidden * intermediate
    total_layers_params = 0.0
    unused_per_layer = 0.0
    moe_layers = 0
    if experts and experts > 1:
        if not top_k:
            raise ConfigError("A mixture-of-experts config must give 'num_experts_per_tok'.")
        expert_size = _int(cfg, "moe_intermediate_size") or intermediate
        expert = per_matrix * hidden * expert_size
        shared = 0
        shared_size = _int(cfg, "shared_expert_intermediate_size")
        if shared_size:
            shared = per_matrix * hidden * shared_size + hidden  # plus its gate
        n_shared = _int(cfg, "n_shared_experts", "num_shared_experts")
        if n_shared:
            shared += n_shared * expert
        moe_mlp = experts * expert + hidden * experts + shared
        first_dense = _int(cfg, "first_k_dense_replace") or 0
        moe_layers = max(0, layers - first_dense)
        total_layers_params = moe_layers * moe_mlp + first_dense * dense_mlp
        unused_per_layer = (experts - top_k) * expert
    else:
        experts, top_k = None, None
        total_layers_params = layers * dense_mlp

    embeddings = vocab * hidden * (1 if tied else 2)
    total = layers * (attention + norms) + total_layers_params + embeddings + hidden
    active = total - moe_layers * unused_per_layer
    return float(total), float(active)


def preset_from_config(raw: bytes, *, name: str = "") -> dict:
    """Model-preset field values read from the bytes of a config.json."""
    cfg = load_config(raw)
    total, active = count_params(cfg)
    hidden = _int(cfg, "hidden_size", "n_embd", "d_model", required=True)
    heads = _int(cfg, "num_attention_heads", "n_head", required=True)
    head_dim = _int(cfg, "head_dim", "kv_channels")
    experts = _int(cfg, "num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")
    is_moe = bool(experts and experts > 1)
    archs = cfg.get("architectures") or []
    label = name or cfg.get("_name_or_path") or (archs[0] if archs else "") or "Uploaded model"
    return {
        "name": str(label)[: constants.NAME_MAX_LENGTH],
        "family": family_of(cfg),
        "params_b": round(total / 1e9, 6),
        "active_params_b": round(active / 1e9, 6) if is_moe else None,
        "layers": _int(cfg, "num_hidden_layers", "num_layers", "n_layer", required=True),
        "hidden": hidden,
        "heads": heads,
        "kv_heads": _int(cfg, "num_key_value_heads", "multi_query_group_num", "n_query_groups")
        or heads,
        "head_dim": head_dim if head_dim and head_dim * heads != hidden else None,
        "intermediate": (_int(cfg, "moe_intermediate_size") if is_moe else None)
        or _int(cfg, "intermediate_size", "ffn_hidden_size", "n_inner")
        or 4 * hidden,
        "vocab": _int(cfg, "padded_vocab_size", "vocab_size", required=True, maximum=MAX_VOCAB),
        "tied_embeddings": _bool(cfg, "tie_word_embeddings", False),
        "experts": experts if is_moe else None,
        "experts_per_token": _int(cfg, "num_experts_per_tok", "moe_top_k", "num_selected_experts")
        if is_moe
        else None,
        "context_length": _int(
            cfg,
            "max_position_embeddings",
            "seq_length",
            "model_max_length",
            "max_sequence_length",
            maximum=100_000_000,
        ),
    }


def slug_for(name: str) -> str:
    """A catalog key for an uploaded model's name."""
    out = []
    for ch in name.lower():
        out.append(ch if ch.isalnum() and ch.isascii() else "-")
    slug = "-".join(part for part in "".join(out).split("-") if part)
    return slug[: constants.KEY_MAX_LENGTH] or "model"


__all__ = ["ConfigError", "count_params", "load_config", "preset_from_config", "slug_for"]
