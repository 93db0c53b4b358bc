from advisor.domain.i18n import N_, Message


def test_marker_returns_text_unchanged():
    assert N_("Memory per GPU") == "Memory per GPU"


def test_message_translates_template_before_filling_figures():
    message = Message("needs {need} GiB", {"need": 94})
    assert message.render() == "needs 94 GiB"
    table = {"needs {need} GiB": "需要 {need} GiB"}
    assert message.render(lambda s: table.get(s, s)) == "需要 94 GiB"


def test_nested_messages_are_translated_and_localised_with_their_parent():
    table = {"{a} and {b}": "{a}和{b}", "air cooling": "风冷", "{name}": "{name}"}
    inner = Message("{name}", {"name": "Guizhou", "name_zh": "贵州"})
    message = Message("{a} and {b}", {"a": Message("air cooling"), "b": inner})
    assert message.render() == "air cooling and Guizhou"
    assert message.render(lambda s: table.get(s, s)) == "风冷和Guizhou"
    assert message.render(lambda s: table.get(s, s), "zh-hans") == "风冷和贵州"
