"""Notebook ``mascaras_e_atencao_cruzada``: a previsão do exercício 5 (prever, depois conferir) — a forma
dos pesos da atenção cruzada de um lote de frases de origem preenchidas.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...corretor import Erro, Formato, Previsao, RespostaInvalida, conferir_previsao, corretor_de

__all__ = ["PREVISAO_FORMA", "check_previsao_forma"]

# --- prever, depois conferir: a forma dos pesos (exercício 5) ------------------------------------------


@dataclass(frozen=True)
class _Forma(Formato):
    """Uma forma de array: aceita tupla ou lista de inteiros e textos como ``"(2, 3, 6)"``, ``"2x3x6"``,
    ``"2 × 3 × 6"`` ou ``"[2, 3, 6]"``."""

    def normalizar(self, y: Any) -> tuple[int, ...]:
        if isinstance(y, str):
            numeros = re.findall(r"\d+", y)
            if not numeros or re.search(r"[^\d\s,()\[\]xX×*]", y):
                raise RespostaInvalida(f"a resposta é uma forma, como (2, 3, 4) ou \"2x3x4\"; veio {y!r}")
            return tuple(int(n) for n in numeros)
        if isinstance(y, (tuple, list)) and y and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool)
                                                       for n in y):
            return tuple(int(n) for n in y)
        raise RespostaInvalida(f"a resposta é uma forma, uma tupla de inteiros como (2, 3, 4); veio {type(y).__name__}")

    def igual(self, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
        return tuple(a) == tuple(b)

    def mostrar(self, x: tuple[int, ...]) -> str:
        return str(tuple(x))


PREVISAO_FORMA = Previsao(
    nome="a forma dos pesos da atenção cruzada",
    certo=(2, 3, 6),
    revelar="Uma linha por query e uma coluna por key, em cada frase do lote: 2 frases, 3 queries (os tokens já "
            "escritos da tradução) e 6 keys (todas as posições da origem, inclusive as 2 de <pad> da segunda frase, "
            "que a máscara de preenchimento (2, 1, 6) zera sem mudar a forma). Não há máscara causal: a origem está inteira "
            "disponível.",
    formato=_Forma(),
    erros=[
        Erro("queries e keys trocadas",
             "(2, 6, 3) teria uma linha por posição da origem: as queries viriam da origem. Na atenção cruzada do "
             "decoder, quem pergunta são os 3 tokens da tradução (as linhas); a origem responde (as colunas).",
             resposta=lambda: (2, 6, 3)),
        Erro("quadrada como na autoatenção",
             "(2, 6, 6) é a forma da **autoatenção** da origem (o encoder). Na atenção cruzada a matriz não é "
             "quadrada: n_q × n_kv = 3 × 6.",
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
             "Os pesos têm uma linha por query: (2, 3, 6).",
             resposta=lambda: (2, 1, 6)),
        Erro("só as posições de verdade",
             "O preenchimento não encolhe a matriz: a segunda frase tem só 4 tokens de verdade, mas o lote é um retângulo "
             "com 6 posições. As 2 colunas de <pad> continuam lá, com peso 0.",
             resposta=lambda: (2, 3, 4)),
    ],
)


@corretor_de(PREVISAO_FORMA)
def check_previsao_forma(previsao: Any) -> bool:
    """Confere a previsão da forma dos pesos da atenção cruzada de um lote de 2 frases de origem preenchidas
    até 6 posições, com 3 tokens já escritos na tradução: ``(2, 3, 6)``. Aceita tupla, lista ou texto
    (``"2x3x6"``) e diz o equívoco de cada forma errada típica."""
    return conferir_previsao(PREVISAO_FORMA, previsao)
