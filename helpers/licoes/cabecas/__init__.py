"""Lição "Várias cabeças" (notebook ``multi_head``): mapas por cabeça, o painel de GQA e do KV cache e os corretores de divisão em cabeças, grupos e memória.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige. É um pacote para que nenhum módulo fique grande demais; o notebook usa só este nome
(``from helpers.licoes import cabecas as licao``):

- :mod:`.figuras` — os mapas de pesos por cabeça, as barras do KV cache e a figura do painel;
- :mod:`.paineis` — o painel das cabeças (MHA, GQA, MQA e a memória do KV cache);
- :mod:`.corretores` — dividir em cabeças, que key/value cada query usa e a memória do KV cache;
- :mod:`.geracao` — um passo da geração com o KV cache de keys/values agrupadas (GQA); o corretor conduz a geração;
- :mod:`.previsoes` — a caixa da previsão (prever, depois conferir): o cache com o dobro de cabeças.
"""

from .corretores import (
    CABECA_KV,
    DIVIDIR_CABECAS,
    MEMORIA_KV,
    check_cabeca_kv,
    check_dividir_cabecas,
    check_memoria_kv,
)
from .figuras import CORES_GRUPOS, FiguraCabecas, desenhar_mapa_cabeca, figura_kv_cache, figura_mapas_cabecas
from .geracao import GERAR_GQA, check_gerar_gqa, corrigir_gerar_gqa, dirigir_passo
from .paineis import CONTEXTOS_CABECAS, PRECISOES_CABECAS, divisores, painel_cabecas
from .previsoes import PREVISAO_CACHE_CABECAS, prever_cache_cabecas

__all__ = [
    "CORES_GRUPOS", "FiguraCabecas", "desenhar_mapa_cabeca", "figura_kv_cache", "figura_mapas_cabecas",
    "CONTEXTOS_CABECAS", "PRECISOES_CABECAS", "divisores", "painel_cabecas",
    "CABECA_KV", "DIVIDIR_CABECAS", "MEMORIA_KV", "check_cabeca_kv", "check_dividir_cabecas", "check_memoria_kv",
    "GERAR_GQA", "check_gerar_gqa", "corrigir_gerar_gqa", "dirigir_passo",
    "PREVISAO_CACHE_CABECAS", "prever_cache_cabecas",
]
