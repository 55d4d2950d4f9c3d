"""Lint: ``ruff check`` limpo no código da coleção (a configuração está em pyproject.toml).

Roda sobre ``helpers/``, ``tests/``, ``benchmarks/``, ``tools/``, ``turma/`` e os notebooks (``*.ipynb`` entra
pelo ``extend-include``). Para ver e corrigir: ``python -m ruff check helpers tests benchmarks tools
notebooks`` (muitos achados se corrigem com ``--fix``).
"""

import subprocess
import sys
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent
PASTAS = ["helpers", "tests", "benchmarks", "tools", "turma", "notebooks"]


def test_ruff_sem_achados():
    pytest.importorskip("ruff", reason="ruff não instalado: pip install -r requirements-dev.txt")
    pastas = [p for p in PASTAS if (RAIZ / p).exists()]
    resultado = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *pastas],
        cwd=RAIZ, capture_output=True, text=True, timeout=300,
    )
    assert resultado.returncode == 0, (
        f"ruff encontrou problemas (rode `python -m ruff check {' '.join(pastas)}`):\n"
        f"{resultado.stdout}{resultado.stderr}"
    )
