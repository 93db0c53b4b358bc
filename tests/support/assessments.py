"""A finished assessment, as the wizard stores it, for results and brief tests."""

from advisor.wizard import services, steps

TRAINING = {
    "seq_len": 4096,
    "micro_batch": 1,
    "dataset_mode": "tokens",
    "total_tokens": 100_000_000,
    "epochs": 3,
    "precision": "amp-bf16",
    "optimizer": "adamw",
    "gradient_checkpointing": "yes",
    "flash_attention": "yes",
}
PROCUREMENT = {
    "mode": "any",
    "budget_cny": None,
    "qualifications": [],
    "preferred_families": [],
    "excluded_families": [],
    "domestic_only": False,
    "years": 3,
    "hours_per_year": 2000,
}
SITE = {"mode": "compare", "compare": ["example-guian", "example-shanghai-qingpu"]}


def finished_assessment(owner, *, site=None, title="Qwen2.5 7B LoRA"):
    draft = services.create_assessment(owner, title)
    values = {
        "model": {"source": "preset", "preset": "qwen2-5-7b", "method": "lora"},
        "training": TRAINING,
        "site": site or SITE,
        "procurement": PROCUREMENT,
    }
    for slug, value in values.items():
        draft = services.save_step(draft, slug, value, draft.version)
    assert steps.all_complete(draft.answers)
    return draft
