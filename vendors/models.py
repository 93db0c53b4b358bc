"""Catalog models: accelerators, servers, hosting vendors, data centers, policy zones, offers, model presets."""
