from advisor.domain.i18n import N_, Message


def test_marker_returns_text_unchanged():
    assert N_("Memory per GPU") == "Memory per GPU"


def test_message_translates_template_before_filling_figures():
    message = Message("needs {need} GiB", {"need": 94})
    assert message.render() == "needs 94 GiB"
    table = {"needs {need} GiB": "需要 {need} GiB"}
    assert message.render(lambda s: table.get(s, s)) == "需要 94 GiB"
