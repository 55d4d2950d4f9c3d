"""Configuração comum do pytest: a camada lenta (``slow``) e a rápida.

São ``slow``: o nbval (cada notebook reexecutado num kernel novo), os testes de navegador, a
reexecução com ``jupyter nbconvert`` e o ensaio rápido dos benchmarks. ``pytest -m "not slow"`` roda
só a camada rápida (unitários, corretores, painéis, estrutura dos notebooks): cerca de um minuto.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.suffix == ".ipynb" or item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.slow)
