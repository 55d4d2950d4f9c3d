"""Notebook ``projecoes_qkv``: o que os dois corretores de código (:mod:`.corretores_projecoes` e
:mod:`.corretores_autoatencao`) usam — o formato que mostra várias matrizes, cada uma com o seu nome, o
formato de um array e os nomes das três matrizes de pesos nas entradas dos casos.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...respostas import Array, Sequencia

__all__: list[str] = []  # só auxiliares privados do pacote


@dataclass(frozen=True)
class _Rotulada(Sequencia):
    """Várias matrizes juntas, mostradas cada uma com o seu nome (``Q =``, ``K =`` …) e com a forma de
    cada uma na mensagem de forma errada."""

    rotulos: tuple[str, ...] = ()

    def mostrar(self, x: tuple) -> str:
        return "\n".join(f"{r} =\n{f.mostrar(p)}" for r, f, p in zip(self.rotulos, self.partes, x))

    def forma(self, x: tuple) -> tuple:
        return tuple(np.shape(p) for p in x)


_MATRIZES = ("W_q", "W_k", "W_v")

_ARRAY = Array()
