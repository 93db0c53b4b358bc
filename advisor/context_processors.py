from advisor.roles import can_prepare, is_approver, manages_webhooks


def roles(request):
    """Role flags for navigation (views check permissions themselves)."""
    user = getattr(request, "user", None)
    return {
        "is_approver": bool(user is not None and is_approver(user)),
        "can_prepare": bool(user is not None and can_prepare(user)),
        "manages_webhooks": bool(user is not None and manages_webhooks(user)),
    }
