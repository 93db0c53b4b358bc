import pytest

from advisor.domain.i18n import N_, Code, Message, SharedMessages


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


def test_shared_messages_replace_equal_ones_by_the_first():
    shared = SharedMessages()
    first = [Message("{n} GPUs", {"n": 8}), Message("plain"), Message("{s}", {"s": Code("a", "b")})]
    again = [Message("plain"), Message("{n} GPUs", {"n": 8}), Message("{s}", {"s": Code("a", "b")})]
    shared.share(first, again)
    assert again[0] is first[1] and again[1] is first[0] and again[2] is first[2]


@pytest.mark.parametrize(
    "other",
    [
        Message("{n} GPUs", {"n": 8.0}),  # written "8.0", not "8"
        Message("{n} GPUs", {"n": True}),
        Message("{n} GPUs", {"n": "8"}),
        Message("{n} GPUs", {"n": 8, "m": 1}),
        Message("{n} GPU", {"n": 8}),
    ],
)
def test_a_message_that_reads_otherwise_is_not_shared(other):
    shared = SharedMessages()
    kept = [Message("{n} GPUs", {"n": 8})]
    later = [other]
    shared.share(kept, later)
    assert later[0] is other


def test_a_message_with_a_nested_message_is_left_as_it_is():
    shared = SharedMessages()
    nested = [Message("{why}", {"why": Message("plain")})]
    again = [Message("{why}", {"why": Message("plain")})]
    original = again[0]
    shared.share(nested, again)
    assert again[0] is original
