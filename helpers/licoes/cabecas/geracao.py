"""Notebook ``multi_head``: o corretor da geração passo a passo com o KV cache de keys/values agrupadas
(GQA), que deve reproduzir a atenção causal de uma vez.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ...attention import multi_head_attention
from ...corretor import ERRO, Array, Caso, Erro, Exercicio, Veredito, corretor_de, corrigir

__all__ = ["GERAR_GQA", "check_gerar_gqa", "corrigir_gerar_gqa"]


def _gerar_gqa(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, n_heads: int, n_kv_heads: int, *,
               softmax_de: Callable[[np.ndarray], np.ndarray] | None = None, grupo_de: str = "h // grupo",
               causal: bool = True, escala: str = "d_head", ver_a_si: bool = True, so_o_ultimo: bool = False
               ) -> np.ndarray | None:
    """A geração passo a passo com um cache de keys/values agrupadas, com um "defeito" escolhido (para
    construir os erros clássicos). Devolve ``(n, n_heads·d_head)``: as saídas das cabeças, juntas."""
    X = np.asarray(X)
    n = X.shape[0]
    d_head = W_q.shape[1] // n_heads
    grupo = n_heads // n_kv_heads
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    fator = {"d_head": 1 / math.sqrt(d_head), "d_model": 1 / math.sqrt(W_q.shape[1]), "nenhuma": 1.0}[escala]
    if softmax_de is None:
        def softmax_de(z: np.ndarray) -> np.ndarray:
            e = np.exp(z - z.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
    saidas = np.zeros((n, n_heads * d_head), dtype=np.result_type(Q, float))
    for t in range(n):
        fim = t + 1 if ver_a_si else t
        if not causal:
            fim = n
        if fim == 0:
            saidas[t] = np.nan
            continue
        ini = t if so_o_ultimo else 0
        cab = [h // grupo if grupo_de == "h // grupo" else h % n_kv_heads for h in range(n_heads)]
        q = Q[t].reshape(n_heads, d_head)                                     # (n_heads, d_head)
        k = K[ini:fim].reshape(fim - ini, n_kv_heads, d_head)[:, cab]         # (passos, n_heads, d_head)
        v = V[ini:fim].reshape(fim - ini, n_kv_heads, d_head)[:, cab]
        pesos = softmax_de(np.einsum("hd,jhd->hj", q, k) * fator)           # (n_heads, passos): todas as cabeças
        saidas[t] = np.einsum("hj,jhd->hd", pesos, v).reshape(-1)
    return saidas


def _casos_gerar_gqa() -> list[Caso]:
    rng = np.random.default_rng(8)
    casos = []
    for n, d_model, n_h, n_kv, d_head, ganho, tipo, descricao in (
        (5, 8, 4, 2, 2, 1.0, float, "com 5 tokens, 4 cabeças de query e 2 de key/value (d_head = 2)"),
        (6, 6, 6, 3, 2, 1.0, float, "com 6 tokens, 6 cabeças de query e 3 de key/value (grupos de 2)"),
        (4, 8, 4, 1, 2, 1.0, float, "com 4 tokens e MQA: 4 cabeças de query e 1 de key/value"),
        (4, 4, 2, 2, 2, 1.0, float, "com 4 tokens e MHA: 2 cabeças de query e 2 de key/value"),
        (5, 8, 4, 2, 2, 40.0, float, "com escores na casa dos milhares (embeddings 40 vezes maiores)"),
        (5, 8, 4, 2, 2, 12.0, np.float32, "com a entrada em float32 e escores na casa das centenas"),
    ):
        X = (ganho * rng.normal(size=(n, d_model))).astype(tipo)
        W_q = rng.normal(size=(d_model, n_h * d_head)).astype(tipo)
        W_k = rng.normal(size=(d_model, n_kv * d_head)).astype(tipo)
        W_v = rng.normal(size=(d_model, n_kv * d_head)).astype(tipo)
        casos.append(Caso(descricao, {"X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v, "n_heads": n_h,
                                      "n_kv_heads": n_kv}))
    return casos


def _gerar_certo(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, n_heads: int,
                 n_kv_heads: int) -> np.ndarray:
    largura = W_q.shape[1]
    X, W_q, W_k, W_v = (np.asarray(a, dtype=float) for a in (X, W_q, W_k, W_v))
    saida, _ = multi_head_attention(X, X, W_q, W_k, W_v, np.eye(largura), n_heads, n_kv_heads=n_kv_heads,
                                    causal=True)
    return saida


def _sem_ver_a_si(y: Any, certo: np.ndarray, caso: Caso) -> bool:
    """As linhas 1… batem com a atenção que só vê os tokens **anteriores** (a linha 0 não tem o que ver)."""
    arr = np.asarray(y, dtype=float)
    errada = _gerar_gqa(**{k: np.asarray(v, dtype=float) if isinstance(v, np.ndarray) else v
                           for k, v in caso.entradas.items()}, ver_a_si=False)
    return arr.shape == certo.shape and bool(np.allclose(arr[1:], errada[1:], rtol=1e-5, atol=1e-6))


def _gerar_com(**opcoes: Any) -> Callable[..., np.ndarray | None]:
    def errada(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, n_heads: int,
               n_kv_heads: int) -> np.ndarray | None:
        return _gerar_gqa(*(np.asarray(a, dtype=float) for a in (X, W_q, W_k, W_v)), n_heads, n_kv_heads, **opcoes)
    return errada


def _instavel_gqa(trocar: Callable[[np.ndarray], np.ndarray], X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray,
                  W_v: np.ndarray, n_heads: int, n_kv_heads: int) -> np.ndarray | None:
    # na dtype de entrada (o float32 estoura em e^89, não em e^710)
    return _gerar_gqa(X, W_q, W_k, W_v, n_heads, n_kv_heads, softmax_de=trocar)


def _erros_estabilidade_gqa() -> list[Erro]:
    from ..softmax import erros_de_estabilidade

    return erros_de_estabilidade(_instavel_gqa)


#: o erro de quem põe o token novo no cache depois da atenção (o nome que o guia do instrutor usa)
NAO_SE_VE = "o token não se vê (cache atualizado depois)"

GERAR_GQA = Exercicio(
    nome="gerar com o KV cache (GQA)",
    casos=_casos_gerar_gqa,
    certo=_gerar_certo,
    formato=Array(tol=1e-4),  # a conta em float32 (o caso em float32) erra na quinta casa
    acerto="Correto! Passo a passo, só com o token novo e o cache, você reproduziu a atenção causal inteira com "
           "keys/values agrupadas — e o cache guardou só n_kv_heads cabeças de key/value por token, não n_heads.",
    erros=[
        Erro("grupos intercalados (h % n_kv_heads)",
             "A query h leu a cabeça de key/value h % n_kv_heads: os grupos ficaram intercalados. A convenção são "
             "grupos de queries **consecutivas**: a query h usa a cabeça de key/value h // (n_heads // n_kv_heads).",
             resposta=_gerar_com(grupo_de="h % n_kv_heads")),
        Erro("olhou o futuro (sem a máscara causal)",
             "No passo t a query olhou para as keys de **todos** os tokens, inclusive os que ainda não foram gerados. "
             "Na geração, o cache do passo t só tem os tokens 0 … t: a query do token t olha para eles e para "
             "nenhum outro.",
             resposta=_gerar_com(causal=False)),
        Erro(NAO_SE_VE,
             "A query do token t olhou só para os tokens **anteriores**: você pôs a key e o value do token t no "
             "cache depois de calcular a atenção. Guarde primeiro a key e o value do token novo e só então faça a "
             "query dele olhar para o cache (que já o inclui).",
             quando=_sem_ver_a_si),
        Erro("só o último token no cache",
             "Cada saída ficou igual ao value do próprio token: o cache guardou só a key/value do passo atual "
             "(sobrescrito a cada passo?). O cache **cresce**: acrescente a key e o value do token novo aos que já "
             "estavam lá.",
             resposta=_gerar_com(so_o_ultimo=True)),
        Erro("sem escala",
             "Faltou dividir os escores por √d_head antes da softmax.",
             resposta=_gerar_com(escala="nenhuma")),
        Erro("escala com a largura toda",
             "A escala de cada cabeça é 1/√d_head, não 1/√(n_heads·d_head): os escores de uma cabeça são produtos "
             "escalares de vetores com d_head coordenadas.",
             resposta=_gerar_com(escala="d_model")),
        *_erros_estabilidade_gqa(),
    ],
    dica_de_forma="A saída tem uma linha por token, com as cabeças lado a lado: forma (n, n_heads·d_head) — junte as "
                  "saídas das cabeças de cada passo com np.concatenate (a cabeça 0 primeiro).",
)


def _quebrou_com_cache_vazio(fn: Callable[..., Any]) -> tuple[Caso, BaseException] | None:
    """O caso e a exceção, se ``fn`` quebra num caso com o cache ainda vazio: na hora do erro, uma variável
    local de ``fn`` com "cache" no nome tem tamanho 0 (a query do token 0 não tinha nada para olhar — o
    token novo entra no cache depois da atenção, ou nunca entra)."""
    codigo = getattr(fn, "__code__", None)
    if codigo is None:
        return None
    for caso in GERAR_GQA.casos():
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                fn(*copy.deepcopy(list(caso.entradas.values())))
        except Exception as exc:  # noqa: BLE001 - é a exceção do estudante que queremos ler
            tb = exc.__traceback__
            while tb is not None:
                if tb.tb_frame.f_code is codigo:
                    for nome, valor in tb.tb_frame.f_locals.items():
                        if "cache" in nome.lower() and not isinstance(valor, str):
                            try:
                                if len(valor) == 0:
                                    return caso, exc
                            except TypeError:
                                continue
                tb = tb.tb_next
            return None
    return None


def corrigir_gerar_gqa(fn: Any) -> Veredito:
    """Como :func:`helpers.corretor.corrigir` com :data:`GERAR_GQA`, mais um diagnóstico: se a função quebra com o
    cache ainda vazio (o jeito mais comum de pôr a key e o value do token no cache **depois** da atenção), o
    veredito é o erro "o token não se vê", em vez da exceção crua."""
    veredito = corrigir(GERAR_GQA, fn)
    if veredito.erro not in ("excecao", "forma") or not callable(fn):
        return veredito
    try:
        achado = _quebrou_com_cache_vazio(fn)
    except BaseException:  # noqa: BLE001 - o diagnóstico extra nunca vira traceback
        return veredito
    if achado is None:
        return veredito
    caso, exc = achado
    return Veredito(False, f"{ERRO} No passo 0, a sua função quebrou com o cache ainda vazio ({type(exc).__name__}: "
                           f"{exc}): a query do token 0 não tinha nenhuma key para olhar. O token também precisa se "
                           "ver: no passo t, guarde primeiro a key e o value do token t no cache e só então faça a "
                           f"query dele olhar para o cache (que já o inclui).\n(Isso apareceu {caso.descricao}.)",
                    NAO_SE_VE)


@corretor_de(GERAR_GQA)
def check_gerar_gqa(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v, n_heads, n_kv_heads)``: a geração passo a passo com um KV cache de
    keys/values agrupadas. Devolve ``(n, n_heads·d_head)`` (as saídas das cabeças lado a lado, sem ``W_o``),
    que deve ser igual à atenção causal de uma vez (:func:`helpers.attention.multi_head_attention` com
    ``causal=True``, ``n_kv_heads`` e ``W_o`` identidade).

    Casos: GQA 4/2 e 6/3, MQA e MHA, mais o padrão de estabilidade (escores na casa dos milhares e
    entrada em float32). Reconhece cada erro de :data:`GERAR_GQA` — inclusive "o token não se vê" quando ele
    faz a função quebrar no passo 0, com o cache vazio (:func:`corrigir_gerar_gqa`).
    """
    veredito = corrigir_gerar_gqa(fn)
    print(veredito.mensagem)
    return veredito.ok
