"""Notebook ``mascaras_e_atencao_cruzada``: a caixa da previsão (prever, depois conferir) da seção 7 — a forma
dos pesos da atenção cruzada de um lote de frases de origem preenchidas.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...corretor import Erro, Previsao, corretor_de
from ...previsao import CaixaDePrevisao, caixa
from ...respostas import Formato, RespostaInvalida

__all__ = ["PREVISAO_FORMA", "prever_forma"]

# --- prever, depois conferir: a forma dos pesos (seção 7) ---------------------------------------------

#: o que pode separar os números de uma forma digitada: espaços, vírgulas, ponto e vírgula, parênteses,
#: colchetes e os sinais de "por" (x, ×, *, ·)
_SEPARADORES = r"\s,;()\[\]xX×*·"


@dataclass(frozen=True)
class _Forma(Formato):
    """Uma forma de array: aceita tupla ou lista de inteiros e o texto que um estudante digita numa caixa —
    ``"(2, 3, 6)"``, ``"2, 3, 6"``, ``"2x3x6"``, ``"2 × 3 × 6"``, ``"2 x 3 x 6"``, ``"[2, 3, 6]"``."""

    def normalizar(self, y: Any) -> tuple[int, ...]:
        if isinstance(y, str):
            numeros = re.findall(r"\d+", y)
            if len(numeros) < 2 or re.search(rf"[^\d{_SEPARADORES}]", y):
                raise RespostaInvalida(f"escreva a forma com um número por eixo, como (1, 2, 3) ou 1×2×3; veio {y!r}")
            return tuple(int(n) for n in numeros)
        if isinstance(y, (tuple, list)) and y and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool)
                                                       for n in y):
            return tuple(int(n) for n in y)
        if isinstance(y, (int, float, np.number)) and not isinstance(y, bool):  # um número só, digitado na caixa
            raise RespostaInvalida(f"escreva a forma com um número por eixo, como (1, 2, 3) ou 1×2×3; veio {y!r}")
        raise RespostaInvalida(f"a resposta é uma forma, uma tupla de inteiros como (1, 2, 3); veio {type(y).__name__}")

    def igual(self, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
        return tuple(a) == tuple(b)

    def mostrar(self, x: tuple[int, ...]) -> str:
        return str(tuple(x))


PREVISAO_FORMA = Previsao(
    nome="a forma dos pesos da atenção cruzada",
    certo=(2, 3, 6),
    revelar="Uma linha por query e uma coluna por key, em cada frase do lote: 2 frases, 3 queries (os tokens já "
            "escritos da tradução) e 6 keys (todas as posições da origem, inclusive as 2 de <pad> da segunda frase, "
            "que a máscara de preenchimento (2, 1, 6) zera sem mudar a forma). Em geral, (b, n_q, n_kv): a matriz de "
            "cada frase é n_q × n_kv, não quadrada — na frase do exemplo, sem lote, 3 × 4: uma linha por token do "
            "inglês, uma coluna por token do português. Não há máscara causal: a origem está inteira disponível.",
    formato=_Forma(),
    erros=[
        Erro("queries e keys trocadas",
             "(2, 6, 3) teria uma linha por posição da origem: as queries viriam da origem. Na atenção cruzada do "
             "decoder, quem pergunta são os 3 tokens da tradução (as linhas); a origem responde (as colunas).",
             resposta=lambda: (2, 6, 3)),
        Erro("quadrada como na autoatenção",
             "(2, 6, 6) é a forma da **autoatenção** da origem (o encoder). Na atenção cruzada a matriz não é "
             "quadrada: 3 queries × 6 keys.",
             resposta=lambda: (2, 6, 6)),
        Erro("keys do próprio decoder",
             "(2, 3, 3) é a autoatenção do decoder (a tradução olhando para si mesma, com a máscara causal). Na "
             "atenção cruzada as keys são as 6 posições da origem.",
             resposta=lambda: (2, 3, 3)),
        Erro("esqueceu o lote",
             "(3, 6) são os pesos de **uma** frase. O lote tem 2: a forma começa com o b = 2.",
             resposta=lambda: (3, 6)),
        Erro("forma da máscara, não dos pesos",
             "(2, 1, 6) é a forma da **máscara** de preenchimento da origem, que se estende às 3 queries por broadcasting. "
             "Os pesos têm uma linha por query.",
             resposta=lambda: (2, 1, 6)),
        Erro("só as posições de verdade",
             "O preenchimento não encolhe a matriz: a segunda frase tem só 4 tokens de verdade, mas o lote é um retângulo "
             "com 6 posições. As 2 colunas de <pad> continuam lá, com peso 0.",
             resposta=lambda: (2, 3, 4)),
        Erro("com um eixo de cabeças",
             "Quase: (2, 1, 3, 6) é a mesma conta com um eixo de cabeças, (b, h, n_q, n_kv), como no PyTorch — com "
             "h = 1. As funções deste notebook não têm esse eixo (as cabeças são o assunto do notebook 08): sem ele, "
             "tire o 1.",
             resposta=lambda: (2, 1, 3, 6)),
    ],
    # a resposta escrita como um estudante ou o notebook a escreveriam, e a regra geral que a entrega
    pistas=("(2, 3, 6)", "(2,3,6)", "2 × 3 × 6", "2×3×6", "2x3x6", "2 x 3 x 6", "(b, n_q, n_kv)", "n_q × n_kv"),
    exemplo="(1, 2, 3)",
)


@corretor_de(PREVISAO_FORMA)
def prever_forma() -> CaixaDePrevisao:
    """A caixa da previsão da forma dos pesos da atenção cruzada de um lote de 2 frases de origem preenchidas
    até 6 posições, com 3 tokens já escritos na tradução (a resposta: ``(2, 3, 6)``). Lê o que se digita numa
    caixa — ``(2, 3, 6)``, ``2, 3, 6``, ``2×3×6``, ``2 x 3 x 6`` — e diz o equívoco de cada forma errada típica."""
    return caixa(PREVISAO_FORMA)
