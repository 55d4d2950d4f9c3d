"""Lição "Projeções Q, K, V" (notebook ``projecoes_qkv``): o exemplo do "banco" (figura e painel) e os corretores das projeções e da autoatenção e a caixa da previsão do notebook.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige. É um pacote porque a lição passou do tamanho de um módulo; o notebook usa só este nome
(``from helpers.licoes import projecoes as licao``):

- :mod:`.banco` — o exemplo "banco": os embeddings, as duas frases e as matrizes escolhidas à mão;
- :mod:`.figuras` — o mapa de calor dos pesos e a figura do exemplo "banco";
- :mod:`.paineis` — o painel: as mesmas ``W_q``, ``W_k``, ``W_v`` nas duas frases;
- :mod:`.corretores_projecoes` — o exercício 1: as três projeções;
- :mod:`.corretores_autoatencao` — o exercício 2: a autoatenção de uma frase;
- :mod:`.comum` — o que esses dois corretores compartilham (o formato rotulado, os nomes das ``W``);
- :mod:`.previsoes` — a caixa da previsão: o escore de volta sem projeções.
"""

from .banco import DIMENSOES_BANCO, EMBEDDINGS_BANCO, FRASE_DINHEIRO, FRASE_PRACA, matrizes_banco
from .corretores_autoatencao import AUTOATENCAO, check_autoatencao
from .corretores_projecoes import PROJECOES, check_projecoes
from .figuras import FiguraBanco, desenhar_pesos, eixos_banco, figura_banco
from .paineis import painel_projecoes
from .previsoes import PREVISAO_SIMETRIA, prever_simetria

__all__ = [
    "DIMENSOES_BANCO", "EMBEDDINGS_BANCO", "FRASE_DINHEIRO", "FRASE_PRACA", "matrizes_banco",
    "FiguraBanco", "desenhar_pesos", "eixos_banco", "figura_banco",
    "painel_projecoes",
    "PROJECOES", "check_projecoes",
    "AUTOATENCAO", "check_autoatencao",
    "PREVISAO_SIMETRIA", "prever_simetria",
]
