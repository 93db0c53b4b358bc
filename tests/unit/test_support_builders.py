"""The test-data builders give each test a document of its own: changing it never changes the
standard job another test reads."""

from tests.support.scenarios import PROCUREMENT, QWEN_7B_LORA, QWEN_32B_LORA, answers, scenario


def test_scenario_replaces_sections_and_shares_nothing():
    document = scenario(QWEN_32B_LORA, site={"data_centers": ["example-guian"]}, epochs=1)
    assert document["site"] == {"data_centers": ["example-guian"]}
    assert document["epochs"] == 1 and document["model"] == QWEN_32B_LORA["model"]
    document["model"]["layers"] = 1
    document["lora"]["rank"] = 1
    assert QWEN_32B_LORA["model"]["layers"] == 64 and QWEN_7B_LORA["lora"]["rank"] == 16
    assert scenario() == QWEN_7B_LORA and scenario() is not QWEN_7B_LORA


def test_answers_merge_a_step_and_share_nothing():
    stored = answers(procurement={"modes": ["cloud"]})
    assert stored["procurement"]["modes"] == ["cloud"]
    assert stored["procurement"]["years"] == PROCUREMENT["years"]
    stored["procurement"]["qualifications"].append("iso-27001")
    assert PROCUREMENT["qualifications"] == [] and PROCUREMENT["modes"] == ["buy", "rent", "cloud"]
