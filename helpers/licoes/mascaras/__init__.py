"""Lição "Máscaras e atenção cruzada" (notebook ``mascaras_e_atencao_cruzada``): mapas de pesos com máscaras (figuras e painel) e os corretores das máscaras causal e de padding, da atenção com máscara, da atenção cruzada num lote com padding e da previsão da forma dos pesos.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige. É um pacote porque a lição passou do tamanho de um módulo; o notebook usa só este nome
(``from helpers.licoes import mascaras as licao``):

- :mod:`.figuras` — o mapa de pesos com as células mascaradas e a figura do painel;
- :mod:`.paineis` — o painel das máscaras (causal e de preenchimento, ao vivo);
- :mod:`.corretores_mascaras` — os exercícios 1 e 2: montar a máscara causal e a de preenchimento;
- :mod:`.corretores_atencao` — os exercícios 3 e 4: a atenção com máscara e a atenção cruzada num lote;
- :mod:`.previsoes` — o exercício 5: prever a forma dos pesos da atenção cruzada.
"""

from .corretores_atencao import ATENCAO_CRUZADA, ATENCAO_MASCARA, check_atencao_com_mascara, check_atencao_cruzada
from .corretores_mascaras import MASCARA_CAUSAL, MASCARA_PADDING, check_mascara_causal, check_mascara_padding
from .figuras import COR_MASCARADA, FiguraMascaras, MapaDePesos, figura_pesos
from .paineis import FRASE_MASCARAS, PAD, painel_mascaras
from .previsoes import PREVISAO_FORMA, check_previsao_forma

__all__ = [
    "COR_MASCARADA", "FiguraMascaras", "MapaDePesos", "figura_pesos",
    "FRASE_MASCARAS", "PAD", "painel_mascaras",
    "MASCARA_CAUSAL", "MASCARA_PADDING", "check_mascara_causal", "check_mascara_padding",
    "ATENCAO_CRUZADA", "ATENCAO_MASCARA", "check_atencao_com_mascara", "check_atencao_cruzada",
    "PREVISAO_FORMA", "check_previsao_forma",
]
