"""Shared helpers for the wizard's integration tests (no tests here): catalog rows, answers."""

from vendors import models as catalog


def make_catalog():
    """A small catalog: two presets, two accelerator families, a policy zone, two sites."""
    catalog.ModelPreset.objects.create(
        key="qwen2-5-7b",
        name="Qwen2.5-7B",
        family="qwen",
        params_b=7.615617,
        layers=28,
        hidden=3584,
        heads=28,
        kv_heads=4,
        intermediate=18944,
        vocab=152064,
        tied_embeddings=False,
        context_length=32768,
    )
    catalog.ModelPreset.objects.create(
        key="llama-3-1-8b",
        name="Llama 3.1 8B",
        family="llama",
        params_b=8.030261,
        layers=32,
        hidden=4096,
        heads=32,
        kv_heads=8,
        intermediate=14336,
        vocab=128256,
        tied_embeddings=False,
        context_length=8192,
    )
    for key, maker, name, arch, memory, availability in (
        ("h100-sxm-80gb", "NVIDIA", "H100 SXM5 80GB", "Hopper", 80, "licence-required"),
        ("ascend-910b-64gb", "Huawei", "Ascend 910B 64GB", "Da Vinci", 64, "domestic"),
    ):
        catalog.Accelerator.objects.create(
            key=key,
            maker=maker,
            name=name,
            architecture=arch,
            memory_gb=memory,
            form_factor="sxm",
            interconnect_kind="nvlink",
            software_stack="cuda",
            china_availability=availability,
        )
    zone = catalog.PolicyZone.objects.create(
        key="guizhou",
        name="Guizhou",
        name_zh="贵州",
        kind="province",
        province="Guizhou",
        pue_limit=1.2,
        pue_limit_source="Guizhou data center PUE policy (test row)",
    )
    for key, name in (("gy-a", "Guiyang A"), ("gy-b", "Guiyang B")):
        catalog.DataCenter.objects.create(
            key=key, name=name, city="Guiyang", province="Guizhou", policy_zone=zone
        )


MODEL = {"source": "preset", "preset": "qwen2-5-7b", "method": "lora", "version": ""}
TRAINING = {
    "seq_len": "4096",
    "micro_batch": "1",
    "dataset_mode": "samples",
    "samples": "20000",
    "avg_tokens": "1500",
    "epochs": "3",
    "precision": "amp-bf16",
    "optimizer": "adamw",
    "gradient_checkpointing": "yes",
    "flash_attention": "yes",
}
SITE = {"mode": "catalog", "data_center": "gy-a"}
PROCUREMENT = {
    "modes": ["buy", "rent", "cloud"],
    "usage": "programme",
    "runs_per_year": "12",
    "years": "3",
    "rent_min_months": "1",
}
VALID = {"model": MODEL, "training": TRAINING, "site": SITE, "procurement": PROCUREMENT}
