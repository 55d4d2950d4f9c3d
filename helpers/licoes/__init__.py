"""As lições: um módulo por notebook."""
