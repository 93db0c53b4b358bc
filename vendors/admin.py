"""Django admin for the catalog."""
