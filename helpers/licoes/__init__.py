"""As lições: um módulo por notebook, com os painéis, as figuras e os corretores que só ele usa."""
