"""The password hasher: Argon2id with OWASP's parameters (docs/decisions/0040-argon2-owasp.md)."""

from django.contrib.auth.hashers import Argon2PasswordHasher


class OwaspArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2id at OWASP's recommended minimum: 19 MiB, two passes, one lane.

    Django's defaults (100 MiB, two passes, eight lanes) cost ~260 ms of CPU per check; these
    ~27 ms. Same algorithm name ("argon2"): a hash made with other parameters (Django's
    defaults, before this) still verifies, since Argon2 stores its parameters in the hash, and
    Django stores it again with these at the user's next sign-in (``must_update``).
    """

    time_cost = 2
    memory_cost = 19456  # KiB
    parallelism = 1
