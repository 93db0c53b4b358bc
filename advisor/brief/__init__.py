"""The procurement brief: rendering (WeasyPrint), signing and verification (pyHanko)."""
