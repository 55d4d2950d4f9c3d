"""A previsão do notebook ``revisao`` (prever, depois conferir): o peso da key esticada (seção 2, antes do
painel; a conta aparece no equívoco 1, "por trás da atenção há uma medida de semelhança especial")."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...attention import softmax
from ...corretor import Erro, Previsao, corretor_de
from ...previsao import CaixaDePrevisao, caixa
from ...respostas import NumeroAproximado


def _pesos(escala: bool = True, esticada: bool = True) -> np.ndarray:
    """Os pesos de ``q = (1, 0)`` contra as keys do Exemplo 1, com ``k₃`` esticada para ``(1, 1)`` (ou não)."""
    K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0] if esticada else [0.5, 0.5]])
    z = K @ np.array([1.0, 0.0])
    return softmax(z / math.sqrt(2) if escala else z)


def _peso_k3(escala: bool = True, esticada: bool = True) -> float:
    return float(_pesos(escala, esticada)[2])


class _Peso(NumeroAproximado):
    """Um peso dito de cabeça: como :class:`NumeroAproximado`, e também em porcentagem (``"40%"`` = 0,40)."""

    def normalizar(self, y: Any) -> float:
        if isinstance(y, str) and y.strip().endswith("%"):
            return super().normalizar(y.strip()[:-1]) / 100
        return super().normalizar(y)


PREVISAO_K3 = Previsao(
    nome="o peso da key esticada",
    certo=lambda: _peso_k3(),
    revelar="O escore de k₃ dobra (de 0,5 para 1, antes da escala) e passa a empatar com o de k₁: os dois pesos "
            "ficam em 0,401, e k₂ cai para 0,198. Esticar k₃ não muda o ângulo com q, e um peso que dependesse só do "
            "ângulo não mudaria: o produto escalar leva o comprimento em conta — não é o cosseno disfarçado.",
    formato=_Peso(casas=2),
    erros=[
        Erro("o cosseno no lugar do produto escalar",
             "Você manteve o peso de antes (0,32): esticar uma key sem mudar a direção dela não muda o cosseno, mas "
             "muda o produto escalar — o escore dobra.",
             resposta=lambda: _peso_k3(esticada=False)),
        Erro("o peso dobra com o escore",
             "O escore de k₃ dobra, mas o peso não: a softmax exponencia os escores e divide pela soma, e a soma "
             "também cresce quando um escore cresce.",
             resposta=lambda: 2 * _peso_k3(esticada=False)),
        Erro("o peso antigo de k₁",
             "k₃ passa a ter o mesmo escore que k₁, mas não herda o peso antigo de k₁ (0,46): com um escore maior na "
             "soma, o denominador da softmax cresce e todos os pesos se redistribuem.",
             resposta=lambda: float(_pesos(esticada=False)[0])),
        Erro("sem a escala √d",
             "Você fez a softmax dos escores sem dividir por √2: a atenção divide por √d antes da softmax.",
             resposta=lambda: _peso_k3(escala=False)),
        Erro("o empate leva metade",
             "k₃ empata com k₁, mas k₂ continua na conta: o peso não é 1/2, os três dividem o total.",
             resposta=lambda: 0.5),
    ],
    exemplo="0,1",
    # a resposta, os outros pesos da mesma linha e o empate dito com palavras entregariam a previsão
    pistas=("0,401", "0.401", "0,198", "0.198", "empata com k₁", "empatou com", "empata com o de k₁",
            "empate com k₁"),
)


@corretor_de(PREVISAO_K3)
def prever_k3_esticada() -> CaixaDePrevisao:
    """A caixa da previsão do peso de ``k₃`` esticada para ``(1, 1)``, com ``q = (1, 0)`` e as outras keys do
    Exemplo 1 (a resposta: ``softmax((1, 0, 1)/√2)[2] ≈ 0.401``, empatada com ``k₁``). Aceita vírgula decimal,
    o arredondamento em duas casas e porcentagem; reconhece cada erro de :data:`PREVISAO_K3`."""
    return caixa(PREVISAO_K3)
