"""Notebook ``multi_head``: a caixa da previsão (prever, depois conferir) — o KV cache da MHA com o dobro de cabeças.
"""

from __future__ import annotations

from ...attention import kv_cache_bytes
from ...corretor import Erro, Previsao, corretor_de
from ...previsao import CaixaDePrevisao, caixa
from ...respostas import NumeroAproximado

__all__ = ["PREVISAO_CACHE_CABECAS", "prever_cache_cabecas"]


PREVISAO_CACHE_CABECAS = Previsao(
    nome="o cache com o dobro de cabeças",
    certo=lambda: kv_cache_bytes(4096, 32, 64, 64, 2) / kv_cache_bytes(4096, 32, 32, 128, 2),
    revelar="Na MHA o cache guarda, por token e por camada, n_heads · d_head = d_model números de key e outros "
            "tantos de value. Com d_model = 4096 fixo, 64 cabeças têm d_head = 64: o dobro de cabeças, cada uma "
            "com a metade do tamanho — o cache não muda (2 GiB nos dois casos, com 4096 tokens). O que encolhe o "
            "cache é ter menos cabeças de key/value que de query (GQA, MQA), menos contexto ou menos bytes por número.",
    formato=NumeroAproximado(2),
    erros=[
        Erro("mais cabeças, mais cache",
             "Você contou o dobro de cabeças, mas esqueceu que, com d_model fixo, cada cabeça fica com a metade "
             "das colunas (d_head = d_model / n_heads).",
             resposta=lambda: 2),
        Erro("só o d_head encolheu",
             "Você viu o d_head cair à metade, mas esqueceu que agora há o dobro de cabeças de key/value para "
             "guardar.",
             resposta=lambda: 0.5),
        Erro("ao quadrado",
             "As cabeças não multiplicam a memória duas vezes: o cache cresce com n_kv_heads · d_head, e esse "
             "produto é d_model na MHA.",
             resposta=lambda: 4),
    ],
    exemplo="3",
    # a resposta é 1, que aparece em mil lugares: as pistas são as frases que diriam que o cache fica como estava
    pistas=("cache não muda", "memória não muda", "MHA não muda", "não muda com o número de cabeças",
            "não depende do número de cabeças", "seja qual for a divisão em cabeças", "fica igual", "continua igual",
            "fica em 2 GiB", "continua em 2 GiB", "nos dois casos", "nos três casos", "(×1)", "(× 1)", "o fator é 1",
            "multiplica por 1:", "MHA com 64 cabeças"),
)


@corretor_de(PREVISAO_CACHE_CABECAS)
def prever_cache_cabecas() -> CaixaDePrevisao:
    """A caixa da previsão: na MHA com ``d_model = 4096`` fixo, passar de 32 para 64 cabeças multiplica o KV
    cache por quanto? (A resposta: por 1 — ``n_heads · d_head = d_model`` não muda.) Aceita vírgula decimal e o
    arredondamento em duas casas; reconhece cada erro de :data:`PREVISAO_CACHE_CABECAS`."""
    return caixa(PREVISAO_CACHE_CABECAS)
