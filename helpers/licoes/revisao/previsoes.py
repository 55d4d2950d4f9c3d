"""A previsão do notebook ``revisao`` (prever, depois conferir): o peso da key esticada, no equívoco 1
("por trás da atenção há uma medida de semelhança especial")."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...attention import softmax
from ...corretor import Erro, NumeroAproximado, Previsao, conferir_previsao, corretor_de


def _peso_k3(escala: bool = True, esticada: bool = True) -> float:
    K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0] if esticada else [0.5, 0.5]])
    z = K @ np.array([1.0, 0.0])
    return float(softmax(z / math.sqrt(2) if escala else z)[2])


class _NumeroNaProsa(NumeroAproximado):
    """:class:`NumeroAproximado` que se mostra com vírgula decimal (a resposta aparece numa frase em português)."""

    def mostrar(self, x: float) -> str:
        return super().mostrar(x).replace(".", ",")


PREVISAO_K3 = Previsao(
    nome="o peso da key esticada",
    certo=lambda: _peso_k3(),
    revelar="O escore de k₃ dobra (de 0,5 para 1, antes da escala), e passa a empatar com o de k₁: os dois pesos "
            "ficam em 0,401, e k₂ em 0,198. O produto escalar leva o comprimento em conta; o cosseno, não.",
    formato=_NumeroNaProsa(2),
    erros=[
        Erro("o cosseno no lugar do produto escalar",
             "Você manteve o peso de antes (0,32): esticar uma key sem mudar a direção dela não muda o cosseno, mas "
             "muda o produto escalar — o escore dobra.",
             resposta=lambda: _peso_k3(esticada=False)),
        Erro("sem a escala √d",
             "Você fez a softmax dos escores sem dividir por √2: a atenção divide por √d antes da softmax.",
             resposta=lambda: _peso_k3(escala=False)),
        Erro("o empate leva metade",
             "k₃ empata com k₁, mas k₂ continua na conta: o peso não é 1/2, os três dividem o total.",
             resposta=lambda: 0.5),
    ],
)


@corretor_de(PREVISAO_K3)
def check_previsao_k3_esticada(previsao: Any) -> bool:
    """Mostra e confere a previsão: com ``q = (1, 0)`` e as keys do Exemplo 1, esticar ``k₃`` para ``(1, 1)``
    dá a ``k₃`` o peso ``softmax((1, 0, 1)/√2)[2] ≈ 0.401``. Aceita vírgula decimal e o arredondamento em duas
    casas; reconhece cada erro de :data:`PREVISAO_K3`."""
    return conferir_previsao(PREVISAO_K3, previsao)
