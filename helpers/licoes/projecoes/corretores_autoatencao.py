"""Notebook ``projecoes_qkv``: o corretor do exercício 2 — a autoatenção de uma frase inteira, das
projeções às saídas, que devolve o par ``(saídas, pesos)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ... import attention
from ...attention import scaled_dot_product_attention, softmax
from ...corretor import Caso, Erro, Exercicio, Regra, conferir, corretor_de, tem_laco, usa_nomes
from ...estabilidade import erros_de_estabilidade, normalizou_pelo_array_inteiro
from ...formato import decimal
from ...respostas import SaidaOuPar
from .comum import _ARRAY, _MATRIZES, _Rotulada

__all__ = ["AUTOATENCAO", "check_autoatencao"]

# --- a autoatenção de uma frase (exercício 2) -------------------------------------------------------


def _qkv(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> tuple[np.ndarray, ...]:
    return X @ W_q, X @ W_k, X @ W_v


def _saida_com(pesos_de: Callable[..., np.ndarray], mistura: str = "V") -> Callable[..., np.ndarray]:
    """A saída de uma autoatenção errada: ``pesos_de(Q, K, V, X, r)`` (``r = √d_k``) dá os pesos, e eles
    ponderam ``V``, ``K`` ou ``X``."""
    def resposta(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> np.ndarray:
        Q, K, V = _qkv(X, W_q, W_k, W_v)
        pesos = pesos_de(Q, K, V, X, math.sqrt(K.shape[-1]))
        return pesos @ {"V": V, "K": K, "X": X}[mistura]

    return resposta


def _so_se_roda(resposta: Callable[..., Any]) -> Callable[..., Any]:
    """``resposta``, ou ``None`` quando as formas do caso não deixam a conta errada rodar (o erro não se aplica)."""
    def talvez(**entradas: Any) -> Any:
        try:
            return resposta(**entradas)
        except ValueError:
            return None

    return talvez


def _w_vezes_x(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> np.ndarray:
    Q, K, V = W_q @ X, W_k @ X, W_v @ X
    return softmax(Q @ K.T / math.sqrt(K.shape[-1])) @ V


def _autoatencao_com(trocar: Callable[[np.ndarray], np.ndarray], X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray,
                     W_v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(saídas, pesos)`` com ``trocar`` no lugar da softmax estável (para os erros de estabilidade)."""
    Q, K, V = _qkv(X, W_q, W_k, W_v)
    pesos = trocar(Q @ K.T / math.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def _autoatencao_certa(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> tuple[np.ndarray, ...]:
    Q, K, V = _qkv(*(np.asarray(a, dtype=float) for a in (X, W_q, W_k, W_v)))
    return scaled_dot_product_attention(Q, K, V)


def _caso_autoatencao(descricao: str, X: np.ndarray, Ws: Sequence[np.ndarray]) -> Caso:
    return Caso(descricao, {"X": X, **dict(zip(_MATRIZES, Ws))})


def _casos_estabilidade_autoatencao() -> list[Caso]:
    """O padrão de estabilidade da coleção (veja :mod:`helpers.estabilidade`) dentro da autoatenção: uma linha
    de escores muito negativos, linhas de escores separadas por milhares, uma linha muito espalhada e float32.

    Nos três primeiros, ``X`` tem as colunas (1, c, deslocamento, inclinação): ``K = (1, c)`` e
    ``Q = (deslocamento, inclinação)`` (com zeros, no primeiro, para d_k = 4), então a linha ``i`` dos escores é
    ``deslocamento_i + inclinação_i · c`` (antes de dividir por √d_k).
    """
    W_q = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    W_k = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    W_v = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    # muito negativos, com d_k = 4 (√4 = 2, divisão exata também em float32): K = (1, c, 0, 0), Q = (deslocamento,
    # inclinação, 0, 0), e a linha 0 dá (−2000 − 2c) / 2 = −1000, −1001, −1002 (o máximo é negativo)
    Wq4, Wk4 = np.zeros((4, 4)), np.zeros((4, 4))
    Wq4[2, 0] = Wq4[3, 1] = Wk4[0, 0] = Wk4[1, 1] = 1.0
    negativos = np.array([[1.0, 0.0, -2000.0, -2.0], [1.0, 1.0, 0.0, 1.0], [1.0, 2.0, 1.0, -1.0]])
    milhares = np.array([[1.0, 1.0, 0.0, 1.0], [1.0, 2.0, 3000.0, 2.0], [1.0, -1.0, 0.0, -1.0]])
    espalhada = np.array([[1.0, 1.0, 0.0, 800.0], [1.0, 0.0, 0.0, 1.0], [1.0, -1.0, 0.0, 2.0]])
    # float32 com d_k = 4 (√4 = 2, divisão exata): escores 200 + i·j, e e^100 já passa do maior float32
    X32 = np.array([[10.0, 0.0, 1.0, 0.0], [10.0, 1.0, 0.0, 1.0], [10.0, 2.0, 1.0, 1.0]], dtype=np.float32)
    Wq32 = np.zeros((4, 4), dtype=np.float32)
    Wq32[0, 0], Wq32[1, 1] = 2.0, 1.0
    Wv32 = np.array([[0.0, 0.0, 0.0, 0.1], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]],
                    dtype=np.float32)
    return [
        _caso_autoatencao("com uma query cujos escores são todos muito negativos (−1000, −1001, −1002)",
                          negativos, (Wq4, Wk4, W_v)),
        _caso_autoatencao("com uma query cujos escores estão milhares acima dos das outras (linhas de Q Kᵀ "
                          "separadas por milhares)", milhares, (W_q, W_k, W_v)),
        _caso_autoatencao("com uma linha de escores muito espalhados (de −800 a 800, antes de dividir por √d_k)",
                          espalhada, (W_q, W_k, W_v)),
        _caso_autoatencao("com tudo em float32 e escores perto de 200 (X (3, 4), as três W (4, 4))",
                          X32, (Wq32, np.eye(4, dtype=np.float32), Wv32)),
    ]


def _casos_autoatencao() -> list[Caso]:
    rng = np.random.default_rng(60)
    X1 = rng.integers(-2, 3, size=(5, 4)).astype(float)
    Ws1 = tuple(rng.integers(-2, 3, size=(4, 3)).astype(float) * 0.5 for _ in range(3))
    X2 = rng.normal(size=(6, 4))
    Ws2 = (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)))
    # d_k = 2: quem escreve √3 (o d_k = 3 da seção 2, de fora da função) erra aqui, com nome
    X3 = rng.normal(size=(4, 4))
    Ws3 = (rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 3)))
    # quadrado: n = d_model = d_k = d_v = 4, onde W @ X e Q @ K (sem o .T) rodam e se reconhecem pelo valor
    X4 = rng.integers(-2, 3, size=(4, 4)).astype(float)
    Ws4 = tuple(rng.integers(-2, 3, size=(4, 4)).astype(float) * 0.5 for _ in range(3))
    return [
        _caso_autoatencao("com X (5, 4) e as três W (4, 3)", X1, Ws1),
        _caso_autoatencao("com X (6, 4), W_q e W_k (4, 3) e W_v (4, 2)", X2, Ws2),
        _caso_autoatencao("com X (4, 4), W_q e W_k (4, 2) e W_v (4, 3): d_k = 2", X3, Ws3),
        _caso_autoatencao("com escores enormes (o primeiro X multiplicado por 30)", 30.0 * X1, Ws1),
        _caso_autoatencao("com X (4, 4) e as três W (4, 4): n = d_model = d_k", X4, Ws4),
        *_casos_estabilidade_autoatencao(),
    ]


def _usa_da_biblioteca(fn: Callable[..., Any], nomes: set[str]) -> bool:
    """``fn`` chama uma destas funções de :mod:`helpers.attention` — ou é uma delas (``minha = attention.causal_mask``)?"""
    return usa_nomes(fn, nomes) or (getattr(fn, "__module__", None) == attention.__name__
                                    and getattr(fn, "__name__", None) in nomes)


_PAR = _Rotulada((_ARRAY, _ARRAY), "o par (saídas, pesos)", ("saídas", "pesos"))

_SAIDA = SaidaOuPar()


def _so_a_saida(y: Any, certo: tuple, _caso: Caso) -> bool:
    if isinstance(y, (tuple, list)) and len(y) == 2:
        return False
    return _ARRAY.igual(_ARRAY.normalizar(y), certo[0])


def _saida_certa(y: Any, certo: tuple) -> bool:
    return isinstance(y, (tuple, list)) and len(y) == 2 and _ARRAY.igual(_ARRAY.normalizar(y[0]), certo[0])


def _escores_no_lugar_dos_pesos(y: Any, certo: tuple, caso: Caso) -> bool:
    if not _saida_certa(y, certo):
        return False
    Q, K, _ = _qkv(*(np.asarray(caso.entradas[k], dtype=float) for k in ("X", *_MATRIZES)))
    pesos = _ARRAY.normalizar(y[1])
    return any(_ARRAY.igual(pesos, z) for z in (Q @ K.T / math.sqrt(K.shape[-1]), Q @ K.T))


def _tem_nao_finito(y: Any, _certo: tuple, _caso: Caso) -> bool:
    partes = y if isinstance(y, (tuple, list)) else (y,)
    return any(not np.all(np.isfinite(_ARRAY.normalizar(p))) for p in partes)


def _pesos_sem_keepdims(no_maximo: bool) -> Callable[[Any, tuple, Caso], bool]:
    """O ``quando`` do ``keepdims=True`` esquecido: os pesos devolvidos são os de uma softmax feita à mão
    com a redução (o máximo, se ``no_maximo``; senão, a soma) sem ``keepdims`` — que não dá erro nenhum,
    porque a matriz de escores é quadrada: o numpy estende ``(n,)`` como uma **linha**, e a coluna ``j``
    recebe o máximo (ou a soma) da linha ``j``. Não se aplica a respostas com NaN ou inf (a do NaN é outra)."""
    def quando(y: Any, _certo: tuple, caso: Caso) -> bool:
        if not (isinstance(y, (tuple, list)) and len(y) == 2):
            raise ValueError("não é um par")
        pesos = _ARRAY.normalizar(y[1])
        if not np.all(np.isfinite(pesos)):
            raise ValueError("não finita")
        Q, K, _ = _qkv(*(np.asarray(caso.entradas[k], dtype=float) for k in ("X", *_MATRIZES)))
        z = Q @ K.T / math.sqrt(K.shape[-1])
        with np.errstate(all="ignore"):
            if no_maximo:
                e = np.exp(z - z.max(axis=-1))
                variantes = [e / e.sum(axis=-1, keepdims=True)]
            else:
                variantes = [e / e.sum(axis=-1) for e in (np.exp(z - z.max(axis=-1, keepdims=True)),
                                                            np.exp(z - z.max(axis=-1)), np.exp(z))]
        return any(v.shape == pesos.shape and np.all(np.isfinite(v)) and _ARRAY.igual(pesos, v) for v in variantes)

    return quando


def _explica_forma_autoatencao(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> str:
    n, d_model = X.shape
    d_k, d_v = W_k.shape[1], W_v.shape[1]
    return (f"Siga as formas: X ({n}, {d_model}) @ W_q ({d_model}, {d_k}) = Q ({n}, {d_k}), e o mesmo para K; "
            f"V = X @ W_v é ({n}, {d_v}). Os escores são Q @ K.T: ({n}, {d_k}) @ ({d_k}, {n}) = ({n}, {n}); a saída é "
            f"pesos @ V: ({n}, {n}) @ ({n}, {d_v}) = ({n}, {d_v}). Confira a ordem X @ W (não W @ X), o .T de K e se "
            "K e V não foram trocados.")


def _d_k(W_k: np.ndarray, **_: Any) -> int:
    return int(W_k.shape[1])


AUTOATENCAO = Exercicio(
    nome="autoatenção de uma frase",
    casos=_casos_autoatencao,
    certo=_autoatencao_certa,
    formato=_PAR,
    acerto="Correto! Projeções Q = X @ W_q, K = X @ W_k, V = X @ W_v, escores Q Kᵀ / √d_k (o tamanho das keys, não "
           "d_model), softmax estável em cada linha (escores muito negativos, a milhares de distância ou em float32 "
           "não viram NaN) e saídas pesos @ V — tudo na forma matricial, sem laço: é a autoatenção de uma frase "
           "inteira.",
    erros=[
        *erros_de_estabilidade(lambda trocar, X, W_q, W_k, W_v: _autoatencao_com(trocar, X, W_q, W_k, W_v)),
        Erro("NaN ou inf na resposta",
             "A resposta tem NaN ou inf: em geral é a exponencial dos escores que estourou o tipo de ponto flutuante "
             "(e^710 já passa do maior float64; em float32, e^89). Subtraia o máximo de **cada linha** antes de "
             "exponenciar: escores - escores.max(axis=-1, keepdims=True).",
             quando=_tem_nao_finito),
        Erro("escala por √d_model",
             lambda X, W_k, **_: f"Você dividiu os escores por √d_model = √{X.shape[1]} ≈ {decimal(math.sqrt(X.shape[1]), 2)}, "
                                 "o tamanho dos embeddings. A escala usa o tamanho das queries e keys **depois** da "
                                 f"projeção: √d_k = √{_d_k(W_k)} ≈ {decimal(math.sqrt(_d_k(W_k)), 2)}. Pegue d_k de "
                                 "K.shape[-1] (ou W_k.shape[1]), não de X.shape[1].",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / math.sqrt(X.shape[-1]))), formato=_SAIDA),
        Erro("d_k de fora da função",
             lambda W_k, **_: f"Você dividiu por √3 mesmo com d_k = {_d_k(W_k)}: o d_k veio de fora da função (o "
                              "`d_k = 3` do notebook?) ou foi escrito à mão. Pegue o tamanho das keys de dentro: "
                              "d_k = K.shape[-1].",
             resposta=lambda X, W_q, W_k, W_v: None if _d_k(W_k) == 3 else
             _saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / math.sqrt(3)))(X, W_q, W_k, W_v),
             formato=_SAIDA),
        Erro("√n no lugar de √d_k",
             lambda X, W_k, **_: f"Você dividiu por √n = √{X.shape[0]}, a raiz do número de tokens (K.shape[0], o "
                                 "número de linhas de K). A escala usa o tamanho de cada query e key: "
                                 f"√d_k = √{_d_k(W_k)}, K.shape[-1] — o número de colunas.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / math.sqrt(K.shape[0]))), formato=_SAIDA),
        Erro("sem escala",
             "Você esqueceu de escalar: os escores Q Kᵀ devem ser divididos por √d_k antes da softmax.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T)), formato=_SAIDA),
        Erro("÷d_k em vez de ÷√d_k",
             lambda W_k, **_: f"Você dividiu por d_k = {_d_k(W_k)} em vez de √d_k ≈ {decimal(math.sqrt(_d_k(W_k)), 2)}: a "
                              "escala é 1/√d_k.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / K.shape[-1])), formato=_SAIDA),
        Erro("×√d_k em vez de ÷√d_k", "Você multiplicou por √d_k em vez de dividir.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T * r)), formato=_SAIDA),
        Erro("softmax no eixo errado",
             "Softmax calculada no eixo errado: os pesos de cada **query** (cada linha de Q Kᵀ) devem somar 1, então a "
             "softmax age sobre o último eixo (axis=-1, as keys), não sobre as queries (as colunas).",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / r, axis=0)), formato=_SAIDA),
        Erro("faltou keepdims=True na soma",
             "As linhas dos seus pesos não somam 1: faltou keepdims=True na soma? Sem ele, e.sum(axis=-1) tem "
             "forma (n,), e o numpy a estende como uma **linha**: a coluna j é dividida pela soma da linha j — sem "
             "erro nenhum, porque a matriz de escores é quadrada. Com e.sum(axis=-1, keepdims=True), a soma fica "
             "(n, 1) e cada linha é dividida pela sua própria soma. (O mesmo vale para o máximo.)",
             quando=_pesos_sem_keepdims(no_maximo=False)),
        Erro("faltou keepdims=True no máximo",
             "Cada linha dos seus pesos soma 1, mas as proporções estão erradas: faltou keepdims=True no máximo? "
             "Sem ele, escores.max(axis=-1) tem forma (n,), e o numpy a estende como uma **linha**: da coluna j sai o "
             "máximo da linha j — sem erro nenhum, porque a matriz é quadrada —, e cada linha perde números "
             "diferentes em cada posição. Use escores.max(axis=-1, keepdims=True), de forma (n, 1).",
             quando=_pesos_sem_keepdims(no_maximo=True)),
        Erro("dividiu pela soma da matriz inteira",
             "Cada linha dos seus pesos tem as proporções certas, mas quem soma 1 é a **matriz inteira**, não cada "
             "linha: e / e.sum() (sem axis) divide tudo pelo mesmo total. Cada query divide pela sua própria soma: "
             "e.sum(axis=-1, keepdims=True).",
             quando=lambda y, certo, caso: isinstance(y, (tuple, list)) and len(y) == 2
             and normalizou_pelo_array_inteiro(_ARRAY.normalizar(y[1]), certo[1], caso)),
        Erro("sem softmax",
             "Faltou a softmax: os escores escalados precisam virar pesos positivos que somam 1 em cada linha.",
             resposta=_saida_com(lambda Q, K, V, X, r: Q @ K.T / r), formato=_SAIDA),
        Erro("soma das keys",
             "Você somou as **keys** ponderadas; a saída é a soma ponderada dos **values**: pesos @ V, com V = X @ W_v.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / r), mistura="K"), formato=_SAIDA),
        Erro("X no lugar de V",
             "Você misturou os embeddings X em vez dos values: a saída é pesos @ V, com V = X @ W_v (por isso ela tem "
             "d_v colunas, não d_model).",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / r), mistura="X"), formato=_SAIDA),
        Erro("sem as projeções",
             "Você usou os embeddings X direto nos três papéis, sem as projeções. Primeiro Q = X @ W_q, K = X @ W_k e "
             "V = X @ W_v; depois a atenção com Q, K e V. (Sem as projeções, cada token tende a olhar para si mesmo, "
             "os escores ficam simétricos e o que um token entrega fica amarrado a como ele é encontrado.)",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(X @ X.T / math.sqrt(X.shape[-1])), mistura="X"),
             formato=_SAIDA),
        Erro("K e V trocados",
             "K e V estão trocados: os escores foram calculados com X @ W_v e a mistura com X @ W_k. K = X @ W_k entra "
             "nos escores (Q Kᵀ); V = X @ W_v é o conteúdo que sai.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ V.T / r), mistura="K"), formato=_SAIDA),
        Erro("Q e K trocados",
             "Q e K estão trocados: você calculou K Qᵀ, e os escores ficaram transpostos (a linha i virou a coluna i). "
             "A linha i deve ser a query do token i contra todas as keys: Q Kᵀ, com Q = X @ W_q e K = X @ W_k.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(K @ Q.T / r)), formato=_SAIDA),
        Erro("K calculado com W_q",
             "K foi calculado com W_q: os escores saíram Q Qᵀ (e simétricos). Cada papel tem a sua matriz: "
             "K = X @ W_k.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ Q.T / r)), formato=_SAIDA),
        Erro("W @ X",
             "Você calculou as projeções com **W @ X** em vez de **X @ W**. Cada token é uma **linha** de X, de forma "
             "(n, d_model), e W tem forma (d_model, d): a conta que fecha é X @ W = (n, d) — uma linha por token. "
             "W @ X só roda quando as formas são quadradas.",
             resposta=_so_se_roda(_w_vezes_x), formato=_SAIDA),
        Erro("Q @ K sem transpor",
             "Você calculou os escores com Q @ K, sem transpor K. O escore [i, j] é o produto escalar da query i com a "
             "key j: Q @ K.T, (n, d_k) @ (d_k, n) = (n, n). Sem o .T, a conta só roda quando n = d_k — e mistura "
             "coordenadas com tokens.",
             resposta=_so_se_roda(_saida_com(lambda Q, K, V, X, r: softmax(Q @ K / r))), formato=_SAIDA),
        Erro("só a saída",
             "As saídas estão certas, mas a função deve devolver o **par** (saídas, pesos): return pesos @ V, pesos.",
             quando=_so_a_saida),
        Erro("par na ordem trocada",
             "Os números estão certos, mas o par veio na ordem trocada: devolva (saídas, pesos), nessa ordem.",
             resposta=lambda **e: _autoatencao_certa(**e)[::-1]),
        Erro("pesos transpostos",
             "As saídas estão certas, mas os pesos vieram transpostos: a linha i deve ser a da query i (cada **linha** "
             "soma 1).",
             resposta=lambda **e: (lambda s, p: (s, p.T))(*_autoatencao_certa(**e))),
        Erro("escores no lugar dos pesos",
             "As saídas estão certas, mas você devolveu os **escores** no lugar dos pesos. Devolva a matriz depois da "
             "softmax, a que multiplica V (cada linha soma 1).",
             quando=_escores_no_lugar_dos_pesos),
        Erro("pesos diferentes dos usados",
             "As saídas estão certas, mas os pesos não: devolva a matriz (n, n) que multiplicou V, "
             "softmax(Q Kᵀ / √d_k) em cada linha.",
             quando=lambda y, certo, _caso: _saida_certa(y, certo)),
    ],
    regras=[
        Regra("usou a atenção pronta",
              "escrever a atenção você mesmo, sem attention.scaled_dot_product_attention (nem "
              "attention.multi_head_attention), que já faz tudo. Escreva as projeções, os escores Q @ K.T / √d_k, a "
              "softmax de cada linha (attention.softmax serve) e pesos @ V.",
              lambda fn: _usa_da_biblioteca(fn, {"scaled_dot_product_attention", "multi_head_attention"})),
        Regra("usou um laço",
              "a forma **matricial**, sem laço (nem for, nem while, nem compreensão de lista, nem map). Um Q @ K.T "
              "calcula os escores de todas as queries contra todas as keys de uma vez, a softmax com axis=-1 age em "
              "cada linha, e pesos @ V mistura os values de todas as queries; as três projeções também se escrevem "
              "uma a uma (Q = X @ W_q, …).",
              tem_laco),
    ],
    explica_forma=_explica_forma_autoatencao,
    dica_de_forma="As saídas têm uma linha por token e d_v colunas (pesos @ V, com V = X @ W_v); os pesos são (n, n).",
    mostrar_valores=False,
)


@corretor_de(AUTOATENCAO)
def check_autoatencao(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v)`` = ``(saídas, pesos)``: a autoatenção inteira de uma frase.

    ``X`` ``(n, d_model)``, ``W_q`` e ``W_k`` ``(d_model, d_k)``, ``W_v`` ``(d_model, d_v)``. ``Q, K, V = X @ W_q,
    X @ W_k, X @ W_v``; ``pesos = softmax(Q Kᵀ / √d_k)`` em cada linha, ``(n, n)``; ``saídas = pesos @ V``,
    ``(n, d_v)``.
    """
    return conferir(AUTOATENCAO, fn)
