"""Source maps are the one kind of file added to whitenoise's list of files collectstatic does
not compress (config/settings/application.py writes the list out; this compares it with the
installed whitenoise's). tests/integration/test_serving.py checks what collectstatic makes."""

from django.conf import settings
from whitenoise.compress import Compressor


def test_only_source_maps_are_added_to_whitenoises_list_of_files_not_compressed():
    skipped = settings.WHITENOISE_SKIP_COMPRESS_EXTENSIONS
    assert sorted(skipped) == sorted((*Compressor.SKIP_COMPRESS_EXTENSIONS, "map"))
