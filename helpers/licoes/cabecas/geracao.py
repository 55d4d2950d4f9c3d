"""Notebook ``multi_head``: o corretor de **um passo** da geração com o KV cache de keys/values agrupadas (GQA).

O estudante escreve só o passo: ``passo(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads)`` recebe o
vetor do token novo e o cache (duas listas, um item ``(n_kv_heads·d_head,)`` por token já visto), acrescenta a
key e o value do token novo ao cache e devolve a saída dele, ``(n_heads·d_head,)``. Quem faz a geração é o
corretor (:func:`dirigir_passo`): enche o cache com as keys/values de um *prompt* que o estudante nunca vê (o
*prefill*), chama o passo token a token, confere o cache depois de cada passo e compara as saídas com a atenção
causal com keys/values agrupadas feita de uma vez. Assim o método errado nem se escreve: sem a sequência
inteira, não dá para recalcular as keys de todos os tokens a cada passo nem olhar o futuro, e sem ler o cache
não dá para ver os tokens do *prompt*.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...attention import kv_head_of_query, multi_head_attention
from ...corretor import Caso, Erro, Exercicio, Veredito, corretor_de, corrigir
from ...estabilidade import erros_de_estabilidade, nao_finita
from ...respostas import Array, RespostaInvalida

__all__ = ["GERAR_GQA", "Geracao", "check_gerar_gqa", "corrigir_gerar_gqa", "dirigir_passo"]


# --- a geração que o corretor conduz -------------------------------------------------------------------


@dataclass(frozen=True)
class ProblemaNoCache:
    """O que estava errado no cache depois do ``passo`` (0 = o primeiro token novo): ``tipo`` é uma das chaves de
    :data:`_PROBLEMAS`; ``lista`` é ``"cache_k"`` ou ``"cache_v"``."""

    tipo: str
    passo: int
    lista: str


@dataclass
class Geracao:
    """O que a geração conduzida pelo corretor colheu: a saída crua de cada passo e, se houver, o primeiro
    problema no cache (aí a geração para nesse passo)."""

    saidas: list[Any]
    problema: ProblemaNoCache | None = None


def _item(e: Any) -> np.ndarray | None:
    """Um item do cache como vetor (a forma ``(1, n)`` ou ``(n_kv_heads, d_head)`` vale: conta o conteúdo)."""
    try:
        a = np.asarray(e, dtype=float).ravel()
    except (TypeError, ValueError):
        return None
    return a


def _mesmo_item(e: Any, alvo: np.ndarray | None) -> bool:
    a = _item(e)
    if a is None or alvo is None or a.shape != alvo.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(a, alvo, rtol=1e-4, atol=1e-6 + 1e-5 * float(np.max(np.abs(alvo), initial=0.0))))


def _mesmos(itens: list[Any], alvos: list[np.ndarray]) -> bool:
    return len(itens) == len(alvos) and all(_mesmo_item(e, a) for e, a in zip(itens, alvos))


def _problema_da_lista(antes: list[np.ndarray], depois: list[Any], novo: np.ndarray, outro: np.ndarray,
                       expandido: np.ndarray | None) -> str | None:
    """O tipo do problema de uma lista do cache depois de um passo (``None``: ela ganhou o item ``novo``)."""
    n = len(antes)
    if len(depois) == n + 1 and _mesmos(depois[:n], antes):
        if _mesmo_item(depois[-1], novo):
            return None
        if _mesmo_item(depois[-1], outro):
            return "trocados"
        if expandido is not None and _mesmo_item(depois[-1], expandido):
            return "expandido"
        return "outro item"
    if _mesmos(depois, antes):
        return "não cresceu"
    if len(depois) > n + 1 and _mesmos(depois[:n], antes):
        return "cresceu demais"
    if depois and len(depois) <= n and _mesmo_item(depois[-1], novo):
        return "sobrescreveu"
    return "outro item"


def dirigir_passo(passo: Any) -> Any:
    """A geração que o corretor conduz em volta do passo do estudante: ``gerar(prompt, X, W_q, W_k, W_v, n_heads,
    n_kv_heads)`` enche o cache com as keys/values do ``prompt`` (o *prefill*, que o passo nunca vê), chama
    ``passo(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads)`` para cada linha de ``X``, confere o
    cache depois de cada passo e devolve uma :class:`Geracao` (ou ``None``, se um passo devolveu ``None``).

    Uma coisa que não é função volta como veio (o corretor explica que é a função que se passa)."""
    if not callable(passo):
        return passo

    def gerar(prompt: np.ndarray, X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, n_heads: int,
              n_kv_heads: int) -> Geracao | None:
        d_head = W_q.shape[1] // n_heads
        cabeca_de = kv_head_of_query(n_heads, n_kv_heads)
        cache_k = [np.array(linha) for linha in prompt @ W_k]  # o prefill: feito pelo corretor
        cache_v = [np.array(linha) for linha in prompt @ W_v]
        K_novos, V_novos = np.asarray(X @ W_k, dtype=float), np.asarray(X @ W_v, dtype=float)
        saidas: list[Any] = []
        for t in range(X.shape[0]):
            antes_k = [_item(e) for e in cache_k]
            antes_v = [_item(e) for e in cache_v]
            y = passo(X[t].copy(), cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads)
            if y is None:
                return None
            saidas.append(y)
            k, v = K_novos[t], V_novos[t]
            expandido = (None if n_kv_heads == n_heads
                         else k.reshape(n_kv_heads, d_head)[cabeca_de].ravel())
            for lista, antes, cache, novo, outro in (("cache_k", antes_k, cache_k, k, v),
                                                     ("cache_v", antes_v, cache_v, v, k)):
                exp = None if expandido is None else (
                    expandido if lista == "cache_k" else v.reshape(n_kv_heads, d_head)[cabeca_de].ravel())
                tipo = _problema_da_lista(antes, list(cache), novo, outro, exp)
                if tipo is not None:
                    return Geracao(saidas, ProblemaNoCache(tipo, t, lista))
        return Geracao(saidas)

    gerar.__name__ = getattr(passo, "__name__", "sua função")
    gerar.__qualname__ = gerar.__name__
    return gerar


# --- a resposta: as saídas dos passos, lado a lado ------------------------------------------------------


def _saidas(g: Geracao) -> list[np.ndarray]:
    saidas = []
    for y in g.saidas:
        a = Array().normalizar(y)
        if a.ndim == 2 and a.shape[0] == 1:
            a = a[0]  # (1, n_heads·d_head): o mesmo vetor, com um eixo de lote
        saidas.append(a)
    return saidas


@dataclass(frozen=True)
class _SaidasDosPassos(Array):
    """As saídas de todos os passos, uma linha por token novo; a resposta crua é uma :class:`Geracao` (ou, nos
    erros clássicos, o array que o erro daria). Uma geração com problema no cache não é igual a nada."""

    def normalizar(self, y: Any) -> Any:
        if not isinstance(y, Geracao):
            return super().normalizar(y)
        if y.problema is not None:
            return y
        if any(isinstance(s, tuple) and len(s) == 3 and isinstance(s[1], list) for s in y.saidas):
            raise RespostaInvalida("o passo devolveu (saída, cache_k, cache_v); ele deve devolver só a saída do token "
                                   "novo, um vetor de n_heads·d_head números. O cache não se devolve: ele cresce no "
                                   "lugar, com cache_k.append(...) e cache_v.append(...)")
        saidas = _saidas(y)
        formas = [s.shape for s in saidas]
        if len(set(formas)) > 1:
            raise RespostaInvalida(f"a saída de cada passo deve ter a mesma forma, (n_heads·d_head,), mas a sua mudou "
                                   f"de um passo para o outro ({', '.join(map(str, formas))}): ela cresce com o cache "
                                   "— são os pesos, um por token do cache? A saída de uma cabeça é a média dos "
                                   "values com esses pesos, d_head números")
        return np.stack(saidas) if saidas else np.zeros((0,))

    def igual(self, a: Any, b: Any) -> bool:
        if isinstance(a, Geracao) or isinstance(b, Geracao):
            return False
        return super().igual(a, b)

    def mostrar(self, x: Any) -> str:
        if isinstance(x, Geracao):
            p = x.problema
            return f"um problema em {p.lista} depois do passo {p.passo}" if p else "uma geração"
        return super().mostrar(x)

    def forma(self, x: Any) -> Any:
        return None if isinstance(x, Geracao) else super().forma(x)


# --- a geração de referência, com um defeito escolhido (para construir os erros clássicos) ------------------


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _gerar_gqa(prompt: np.ndarray, X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, n_heads: int,
               n_kv_heads: int, *, softmax_de: Callable[[np.ndarray], np.ndarray] = _softmax,
               grupo_de: Callable[[int, int, int], int] | None = None, escala: str = "d_head", ver_a_si: bool = True,
               so_o_novo: bool = False) -> np.ndarray | None:
    """As saídas ``(n, n_heads·d_head)`` dos passos dos tokens de ``X``, com o cache começando nas keys/values do
    ``prompt``, calculadas na dtype das entradas. ``grupo_de(h, n_heads, n_kv_heads)`` é a cabeça de key/value da
    query ``h`` (``None`` se alguma sair do intervalo: o erro não se aplica). Um passo sem nenhuma key para olhar
    dá NaN."""
    p, n = prompt.shape[0], X.shape[0]
    d_head = W_q.shape[1] // n_heads
    if grupo_de is None:
        cab = kv_head_of_query(n_heads, n_kv_heads)
    else:
        cab = [grupo_de(h, n_heads, n_kv_heads) for h in range(n_heads)]
        if any(not 0 <= g < n_kv_heads for g in cab):
            return None
    todos = np.concatenate([prompt, X])
    Q, K, V = X @ W_q, todos @ W_k, todos @ W_v
    fator = {"d_head": 1 / math.sqrt(d_head), "largura": 1 / math.sqrt(W_q.shape[1]), "nenhuma": 1.0}[escala]
    saidas = np.full((n, n_heads * d_head), np.nan, dtype=np.result_type(Q, float))
    for t in range(n):
        fim = p + t + 1 if ver_a_si else p + t
        ini = p + t if so_o_novo else 0
        if fim <= ini:
            continue
        q = Q[t].reshape(n_heads, d_head)
        k = K[ini:fim].reshape(fim - ini, n_kv_heads, d_head)[:, cab]   # (passos, n_heads, d_head)
        v = V[ini:fim].reshape(fim - ini, n_kv_heads, d_head)[:, cab]
        pesos = softmax_de(np.einsum("hd,jhd->hj", q, k) * fator)      # (n_heads, passos): as cabeças juntas
        saidas[t] = np.einsum("hj,jhd->hd", pesos, v).reshape(-1)
    return saidas


def _em_float(**e: Any) -> dict[str, Any]:
    return {k: np.asarray(v, dtype=float) if isinstance(v, np.ndarray) else v for k, v in e.items()}


def _gerar_com(**defeito: Any) -> Callable[..., np.ndarray | None]:
    def errada(**e: Any) -> np.ndarray | None:
        return _gerar_gqa(**_em_float(**e), **defeito)
    return errada


def _instavel(trocar: Callable[[np.ndarray], np.ndarray], **e: Any) -> np.ndarray | None:
    # na dtype das entradas: o float32 estoura em e^89, não em e^710
    return _gerar_gqa(**e, softmax_de=trocar)


def _gerar_certo(prompt: np.ndarray, X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, n_heads: int,
                 n_kv_heads: int) -> np.ndarray:
    """A atenção causal com keys/values agrupadas, de uma vez, sobre o prompt e os tokens novos: as linhas dos novos."""
    todos = np.concatenate([prompt, X]).astype(float)
    W_q, W_k, W_v = (np.asarray(w, dtype=float) for w in (W_q, W_k, W_v))
    saida, _ = multi_head_attention(todos, todos, W_q, W_k, W_v, np.eye(W_q.shape[1]), n_heads,
                                    n_kv_heads=n_kv_heads, causal=True)
    return saida[prompt.shape[0]:]


# --- os casos --------------------------------------------------------------------------------------------


def _caso_aleatorio(rng: np.random.Generator, descricao: str, p: int, n: int, d_model: int, n_h: int, n_kv: int,
                    d_head: int, ganho: float = 1.0, tipo: type = float) -> Caso:
    todos = (ganho * rng.normal(size=(p + n, d_model))).astype(tipo)
    W_q = rng.normal(size=(d_model, n_h * d_head)).astype(tipo)
    W_k = rng.normal(size=(d_model, n_kv * d_head)).astype(tipo)
    W_v = rng.normal(size=(d_model, n_kv * d_head)).astype(tipo)
    return Caso(descricao, {"prompt": todos[:p], "X": todos[p:], "W_q": W_q, "W_k": W_k, "W_v": W_v, "n_heads": n_h,
                            "n_kv_heads": n_kv})


def _caso_dos_escores_extremos() -> Caso:
    """Tokens *one-hot* (x_t @ W é a linha t de W), para escolher os escores à mão: 3 tokens de prompt e 2 novos,
    MQA com 2 cabeças de query e d_head = 2. As keys são (1, j). No primeiro passo, a cabeça 0 dá os escores
    −1000, −1001, −1002, −1003 e a cabeça 1, 3000, 3001, 3002, 3003 (as duas linhas separadas por milhares); no
    segundo, a cabeça 0 dá 0, 500, 1000, 1500, 2000 (uma linha muito espalhada)."""
    r2 = math.sqrt(2)
    todos = np.eye(5)
    W_k = np.array([[1.0, j] for j in range(5)])
    W_v = np.array([[j, (-1.0) ** j] for j in range(5)])
    W_q = np.zeros((5, 4))
    W_q[3] = [-1000 * r2, -r2, 3000 * r2, r2]
    W_q[4] = [0.0, 500 * r2, 0.0, 0.3 * r2]
    return Caso("com escores extremos: no primeiro passo uma cabeça com escores −1000, −1001, −1002, −1003 e a "
                "outra com 3000, 3001, 3002, 3003; no segundo, uma cabeça com escores de 0 a 2000",
                {"prompt": todos[:3], "X": todos[3:], "W_q": W_q, "W_k": W_k, "W_v": W_v, "n_heads": 2,
                 "n_kv_heads": 1})


def _casos_gerar_gqa() -> list[Caso]:
    rng = np.random.default_rng(8)
    return [
        _caso_aleatorio(rng, "com o cache vazio no começo e 5 tokens novos, 4 cabeças de query e 2 de key/value "
                             "(d_head = 2)", 0, 5, 8, 4, 2, 2),
        _caso_aleatorio(rng, "com 2 tokens de prompt já no cache e 4 tokens novos, 6 cabeças de query e 3 de "
                             "key/value (grupos de 2)", 2, 4, 6, 6, 3, 2),
        _caso_aleatorio(rng, "com 3 tokens de prompt já no cache e 3 tokens novos, em MQA: 4 cabeças de query e 1 "
                             "de key/value", 3, 3, 8, 4, 1, 2),
        _caso_aleatorio(rng, "com 1 token de prompt já no cache e 3 tokens novos, em MHA: 2 cabeças de query e 2 "
                             "de key/value", 1, 3, 4, 2, 2, 2),
        _caso_dos_escores_extremos(),
        _caso_aleatorio(rng, "com as entradas em float32 e escores na casa das centenas (2 tokens de prompt, 3 "
                             "novos)", 2, 3, 8, 4, 2, 2, ganho=12.0, tipo=np.float32),
    ]


# --- os erros clássicos -------------------------------------------------------------------------------------


def _problema(tipo: str) -> Callable[[Any, Any, Caso], bool]:
    def quando(y: Any, _certo: Any, _caso: Caso) -> bool:
        return isinstance(y, Geracao) and y.problema is not None and y.problema.tipo == tipo
    return quando


def _sem_ver_a_si(y: Any, certo: Any, caso: Caso) -> bool:
    """As saídas batem com a atenção que só vê os tokens **anteriores** (o cache antes do token novo entrar), nos
    passos em que havia algum token para ver."""
    arr = _SaidasDosPassos().normalizar(y)
    if not isinstance(arr, np.ndarray) or arr.shape != np.shape(certo):
        return False
    errada = _gerar_gqa(**_em_float(**caso.entradas), ver_a_si=False)
    vistos = ~np.isnan(errada).any(axis=1)
    return bool(vistos.any()) and bool(np.allclose(arr[vistos], errada[vistos], rtol=1e-4, atol=1e-4))


def _cabecas_separadas(y: Any, certo: Any, _caso: Caso) -> bool:
    """Cada passo devolveu as cabeças separadas, (n_heads, d_head), com os números certos."""
    arr = _SaidasDosPassos().normalizar(y)
    certo = np.asarray(certo)
    return (isinstance(arr, np.ndarray) and arr.ndim == 3 and arr.shape[0] == certo.shape[0]
            and arr[0].size == certo.shape[1] and not nao_finita(arr)
            and bool(np.allclose(arr.reshape(certo.shape), certo, rtol=1e-4, atol=1e-4)))


#: o erro de quem põe o token novo no cache depois da atenção (o nome que o guia do instrutor usa)
NAO_SE_VE = "o token não se vê (cache atualizado depois)"

_O_QUE_O_CACHE_GUARDA = ("Depois de cada passo, cache_k deve ter ganhado **um** item, a key do token novo (x_t @ W_k, "
                         "n_kv_heads·d_head números), e cache_v, o value dele (x_t @ W_v); os itens que já estavam lá "
                         "não mudam.")

#: os casos são os da geração (prompt, X, pesos), e a função corrigida é a que o corretor conduz em volta do passo:
#: corrija um passo com :func:`corrigir_gerar_gqa` (= ``corrigir(GERAR_GQA, dirigir_passo(passo))``)
GERAR_GQA = Exercicio(
    nome="gerar com o KV cache (GQA)",
    casos=_casos_gerar_gqa,
    certo=_gerar_certo,
    formato=_SaidasDosPassos(tol=1e-4),  # a conta em float32 (o caso em float32) erra na quinta casa
    mostrar_valores=False,
    acerto="Correto! O corretor gerou token a token com o seu passo — cada passo só com o token novo e o cache, que "
           "já vinha com as keys/values de um prompt que a sua função nunca viu — e conferiu o cache depois de cada "
           "passo: ele ganhou uma key e um value de n_kv_heads·d_head números por token (não n_heads·d_head), e as "
           "saídas são as da atenção causal com keys/values agrupadas feita de uma vez.",
    erros=[
        Erro("o cache não cresceu",
             "Depois do passo, cache_k (ou cache_v) continua com os mesmos itens de antes: a key e o value do token "
             "novo não entraram na lista que o corretor passou. Ou faltou acrescentá-los, ou a sua função criou uma "
             "lista (ou um array) novo — cache_k = cache_k + [...], np.vstack(...) — que some quando ela termina. "
             "Acrescente à própria lista que você recebeu, com cache_k.append(...) e cache_v.append(...): é essa "
             "lista que o próximo passo recebe.",
             quando=_problema("não cresceu")),
        Erro("o cache cresceu mais de um token por passo",
             "Depois do passo, o cache ganhou mais de um item: cada token novo acrescenta **uma** key e **um** value "
             "(cada um com as n_kv_heads cabeças juntas). O append ficou dentro do laço das cabeças? Ele vem uma vez "
             "só, antes do laço.",
             quando=_problema("cresceu demais")),
        Erro("só o último token no cache",
             "Depois do passo, o cache ficou só com o token novo (ou perdeu os tokens de antes): você trocou o "
             "conteúdo da lista (cache_k[:] = [...], cache_k[-1] = ..., cache_k.clear()) em vez de acrescentar. O "
             "cache **cresce**: os itens que já estavam lá — inclusive os do prompt — ficam, e o token novo entra no "
             "fim, com cache_k.append(...).",
             quando=_problema("sobrescreveu")),
        Erro("key e value trocados no cache",
             "O item novo de cache_k é o value do token (x_t @ W_v), e o de cache_v é a key: as duas listas foram "
             "trocadas. A key (x_t @ W_k) vai para cache_k; o value (x_t @ W_v), para cache_v.",
             quando=_problema("trocados")),
        Erro("o cache guardou uma key por query (o cache da MHA)",
             "O item novo do cache tem n_heads·d_head números: a key (ou o value) já repetida para cada cabeça de "
             "query do grupo. Assim o cache ocupa o mesmo que o da MHA, e a economia da GQA some. Guarde só as "
             "n_kv_heads cabeças de key/value (x_t @ W_k, n_kv_heads·d_head números) e faça o agrupamento na hora "
             "de ler: a query h lê a cabeça de key/value do seu grupo.",
             quando=_problema("expandido")),
        Erro("o cache guardou outra coisa",
             "O item novo do cache não é o que se esperava. " + _O_QUE_O_CACHE_GUARDA + " Confira o que a sua função "
             "acrescenta: a projeção certa (W_k para a key, W_v para o value, não W_q nem o próprio x_t), sem "
             "dividir por √d_head nem mudar o vetor depois de guardá-lo.",
             quando=_problema("outro item")),
        Erro(NAO_SE_VE,
             "A query do token novo olhou só para os tokens **anteriores**: você pôs a key e o value dele no cache "
             "depois de calcular a atenção. (Com o cache vazio, no primeiro token, não sobra nada para olhar.) "
             "Guarde primeiro a key e o value do token novo e só então faça a query dele olhar para o cache — que "
             "já o inclui, como a diagonal da máscara causal.",
             quando=_sem_ver_a_si),
        Erro("só o token novo (não leu o cache)",
             "Cada cabeça olhou só para a key do próprio token novo: a saída saiu igual ao value dele. A query do "
             "token novo olha para **todo** o cache — os tokens do prompt, os gerados antes e ele mesmo: monte K e V "
             "com todos os itens de cache_k e cache_v.",
             resposta=_gerar_com(so_o_novo=True)),
        Erro("grupos intercalados (h % n_kv_heads)",
             "A query h leu a cabeça de key/value h % n_kv_heads: os grupos ficaram intercalados. A convenção são "
             "grupos de queries **consecutivas**: a query h usa a cabeça de key/value h // (n_heads // n_kv_heads).",
             resposta=_gerar_com(grupo_de=lambda h, n_h, n_kv: h % n_kv)),
        Erro("dividiu por n_kv_heads",
             "A query h leu a cabeça de key/value h // n_kv_heads: o divisor é o **tamanho do grupo**, "
             "grupo = n_heads // n_kv_heads (quantas queries dividem cada key/value), e a query h usa a h // grupo.",
             resposta=_gerar_com(grupo_de=lambda h, n_h, n_kv: h // n_kv)),
        Erro("as cabeças não foram juntadas",
             "Os números estão certos, mas cada passo devolveu as cabeças separadas, (n_heads, d_head). A saída do "
             "token é um vetor só, com as cabeças lado a lado (a 0 primeiro): np.concatenate das saídas das cabeças.",
             quando=_cabecas_separadas),
        Erro("sem escala",
             "Faltou dividir os escores por √d_head antes da softmax.",
             resposta=_gerar_com(escala="nenhuma")),
        Erro("escala com a largura toda",
             "A escala de cada cabeça é 1/√d_head, não 1/√(n_heads·d_head): os escores de uma cabeça são produtos "
             "escalares de vetores com d_head coordenadas.",
             resposta=_gerar_com(escala="largura")),
        *erros_de_estabilidade(_instavel),
    ],
    dica_de_forma="Cada passo devolve a saída do token novo: um vetor de n_heads·d_head números, as cabeças lado a "
                  "lado (a 0 primeiro).",
)


def corrigir_gerar_gqa(fn: Any) -> Veredito:
    """Corrige o passo ``fn`` em :data:`GERAR_GQA`: o corretor conduz a geração (:func:`dirigir_passo`)."""
    return corrigir(GERAR_GQA, dirigir_passo(fn))


@corretor_de(GERAR_GQA)
def check_gerar_gqa(fn: Callable[..., Any]) -> bool:
    """Confere o passo ``fn(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads)`` da geração com um KV cache
    de keys/values agrupadas: o corretor enche o cache com um *prompt* (que o passo não vê), chama o passo para
    cada token novo, confere que o cache ganhou a key e o value desse token (``n_kv_heads·d_head`` números cada)
    e compara as saídas, ``(n_heads·d_head,)`` por passo, com a atenção causal de uma vez
    (:func:`helpers.attention.multi_head_attention` com ``causal=True``, ``n_kv_heads`` e ``W_o`` identidade).
    """
    veredito = corrigir_gerar_gqa(fn)
    print(veredito.mensagem)
    return veredito.ok
