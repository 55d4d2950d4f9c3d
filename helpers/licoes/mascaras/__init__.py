"""Lição "Máscaras e atenção cruzada" (notebook ``mascaras_e_atencao_cruzada``): mapas de pesos com máscaras (figuras e painel) e os corretores das máscaras causal e de padding, da atenção com máscara, da atenção cruzada num lote com padding, e a caixa da previsão da forma dos pesos.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige. É um pacote porque a lição passou do tamanho de um módulo; o notebook usa só este nome
(``from helpers.licoes import mascaras as licao``):

- :mod:`.figuras` — o mapa de pesos com as células mascaradas e a figura do painel;
- :mod:`.paineis` — o painel das máscaras (causal e de preenchimento, ao vivo);
- :mod:`.corretores_mascaras` — montar a máscara causal (exercício 1) e a de preenchimento (o exercício
  opcional da seção 4);
- :mod:`.corretores_atencao` — a atenção com máscara (exercício 2) e a atenção cruzada num lote (o exercício
  opcional da seção 7);
- :mod:`.previsoes` — a caixa da previsão da seção 7: a forma dos pesos da atenção cruzada.
"""

from .corretores_atencao import ATENCAO_CRUZADA, ATENCAO_MASCARA, check_atencao_com_mascara, check_atencao_cruzada
from .corretores_mascaras import MASCARA_CAUSAL, MASCARA_PADDING, check_mascara_causal, check_mascara_padding
from .figuras import COR_MASCARADA, FiguraMascaras, MapaDePesos, figura_pesos
from .paineis import FRASE_MASCARAS, PAD, painel_mascaras
from .previsoes import PREVISAO_FORMA, prever_forma

__all__ = [
    "COR_MASCARADA", "FiguraMascaras", "MapaDePesos", "figura_pesos",
    "FRASE_MASCARAS", "PAD", "painel_mascaras",
    "MASCARA_CAUSAL", "MASCARA_PADDING", "check_mascara_causal", "check_mascara_padding",
    "ATENCAO_CRUZADA", "ATENCAO_MASCARA", "check_atencao_com_mascara", "check_atencao_cruzada",
    "PREVISAO_FORMA", "prever_forma",
]
