"""Notebook ``custo_quadratico``: a previsão (prever, depois conferir) — o tamanho do estado da atenção
linear causal.
"""

from __future__ import annotations

from typing import Any

from ...corretor import Erro, NumeroAproximado, Previsao, conferir_previsao, corretor_de

__all__ = ["PREVISAO_ESTADO_LINEAR", "check_previsao_estado_linear"]


PREVISAO_ESTADO_LINEAR = Previsao(
    nome="o estado da atenção linear",
    certo=lambda: 64 * 64 + 64,
    revelar="O estado é S = Σ φ(k_j) v_jᵀ, uma matriz 64 × 64, mais o normalizador z = Σ φ(k_j), com 64 números: "
            "4160 números depois de 10 tokens ou de 100 mil. Ele não cresce — por isso a geração não precisa de "
            "KV cache — e, pelo mesmo motivo, tudo o que a sequência disse precisa caber nesses 4160 números.",
    formato=NumeroAproximado(0),
    erros=[
        Erro("pensou no KV cache",
             "Esse é o tamanho de um KV cache (uma key e um value de 64 números por token): é o que a atenção com "
             "softmax guarda. A linear soma tudo num estado que não cresce.",
             resposta=lambda: 2 * 100_000 * 64),
        Erro("um vetor por token",
             "Você guardou um vetor por token. O estado da atenção linear é uma **soma**: cada token novo é somado "
             "nos mesmos números.",
             resposta=lambda: 100_000 * 64),
        Erro("esqueceu o normalizador",
             "Quase: a matriz S = Σ φ(k_j) v_jᵀ tem 64 × 64 = 4096 números, mas a saída também divide por "
             "φ(q)·z, e z = Σ φ(k_j) são mais 64 números.",
             resposta=lambda: 64 * 64),
        Erro("um vetor só",
             "Esse é o tamanho do estado de uma RNN comum (o notebook 01). O estado da atenção linear é uma "
             "**matriz** d × d (mais o normalizador): φ(k) v ᵀ é um produto externo.",
             resposta=lambda: 64),
    ],
)


@corretor_de(PREVISAO_ESTADO_LINEAR)
def check_previsao_estado_linear(previsao: Any) -> bool:
    """Mostra e confere a previsão: quantos números o estado da atenção linear causal guarda com ``d = 64``
    depois de 100 mil tokens (``64·64 + 64 = 4160``, seja qual for o número de tokens). Reconhece cada erro
    de :data:`PREVISAO_ESTADO_LINEAR`."""
    return conferir_previsao(PREVISAO_ESTADO_LINEAR, previsao)
