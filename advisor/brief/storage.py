"""Stored briefs as scripts/backup and scripts/restore see them, through the storage API only.

The default storage is either a directory (``FileSystemStorage``: the scripts archive it with
tar) or an S3-compatible object store (docs/decisions/0014-object-storage.md), which the scripts
do not copy: its versioning and replication are the briefs' backup. These helpers tell the two
apart, describe where the briefs are, upload a local media archive into an object store, and
list the records whose PDF is missing, whichever storage holds them.
"""

from __future__ import annotations

from pathlib import Path

from django.core.files import File
from django.core.files.storage import FileSystemStorage, Storage, storages

from advisor.brief.models import Brief

BRIEFS_DIR = "briefs"  # Brief.pdf upload_to is "briefs/%Y/"


def default_storage() -> Storage:
    return storages["default"]


def local_root(storage: Storage | None = None) -> str:
    """The directory of a file-system storage; "" for any other kind (an object store)."""
    storage = storage or default_storage()
    return str(storage.location) if isinstance(storage, FileSystemStorage) else ""


def describe(storage: Storage | None = None) -> str:
    """Where the stored briefs are, in words an operator can act on."""
    storage = storage or default_storage()
    if isinstance(storage, FileSystemStorage):
        return str(storage.location)
    bucket = getattr(storage, "bucket_name", None)
    if bucket is None:
        return type(storage).__name__
    prefix = getattr(storage, "location", "")
    endpoint = getattr(storage, "endpoint_url", None) or "AWS S3"
    return f"s3://{bucket}/{prefix + '/' if prefix else ''} at {endpoint}"


def stored_names(storage: Storage | None = None, top: str = BRIEFS_DIR) -> list[str]:
    """Every file under ``top``, as names the storage accepts (recursive, sorted)."""
    storage = storage or default_storage()
    if isinstance(storage, FileSystemStorage) and not storage.exists(top):
        return []
    directories, files = storage.listdir(top)
    names = [f"{top}/{name}" for name in files]
    for directory in directories:
        names += stored_names(storage, f"{top}/{directory}")
    return sorted(names)


def upload_tree(directory: Path, storage: Storage | None = None) -> list[str]:
    """Save every file under ``directory`` into ``storage`` under its relative name.

    For restoring a media archive (taken from a file-system storage) into an object store.
    Refuses to rename: a name already taken means the target was not empty.
    """
    storage = storage or default_storage()
    saved = []
    for path in sorted(p for p in Path(directory).rglob("*") if p.is_file()):
        name = path.relative_to(directory).as_posix()
        with path.open("rb") as handle:
            stored = storage.save(name, File(handle, name=path.name))
        if stored != name:
            raise FileExistsError(f"{name} already stored (saved as {stored}); target not empty")
        saved.append(stored)
    return saved


def missing_files(storage: Storage | None = None) -> list[str]:
    """Names of stored briefs that records point at but the storage does not hold."""
    storage = storage or default_storage()
    names = Brief.objects.exclude(pdf="").order_by("pk").values_list("pdf", flat=True)
    return [name for name in names if not storage.exists(name)]
