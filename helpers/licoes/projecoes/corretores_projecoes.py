"""Notebook ``projecoes_qkv``: o corretor do exercício 1 — as três projeções ``Q = X @ W_q``,
``K = X @ W_k``, ``V = X @ W_v``, com os erros clássicos de conta (``W @ X``, ``X @ W.T``…) e de papel
(a mesma matriz em dois papéis, papéis trocados).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...corretor import Caso, Erro, Exercicio, conferir, corretor_de
from .comum import _ARRAY, _MATRIZES, _Rotulada

__all__ = ["PROJECOES", "check_projecoes"]

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------


_PAPEIS = ("Q", "K", "V")

_TRIO = _Rotulada((_ARRAY, _ARRAY, _ARRAY), "o trio (Q, K, V), nessa ordem", _PAPEIS)

_CADA_PAPEL = "Cada papel tem a sua matriz: Q = X @ W_q, K = X @ W_k, V = X @ W_v."


def _iguais(a: Any, b: Any) -> bool:
    return _ARRAY.igual(_ARRAY.normalizar(a), _ARRAY.normalizar(b))


def _casos_projecoes() -> list[Caso]:
    """Um caso quadrado (quase todo erro roda e se reconhece pelo valor) e um retangular (vários erros
    viram erro de forma)."""
    X = np.array([[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 1.0, 0.0], [2.0, -1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 3.0]])
    quadrado = (
        np.array([[1.0, 2.0, 0.0, 0.0], [0.0, 1.0, -1.0, 0.0], [3.0, 0.0, 1.0, 1.0], [0.0, 0.0, 2.0, -1.0]]),
        np.array([[0.0, 1.0, 1.0, 0.0], [2.0, 0.0, 0.0, 1.0], [0.0, -1.0, 1.0, 2.0], [1.0, 0.0, 0.0, 1.0]]),
        np.array([[2.0, 0.0, -1.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.0, 3.0, 0.0, 1.0], [0.0, 1.0, 2.0, 0.0]]),
    )
    rng = np.random.default_rng(6)
    X2 = rng.integers(-2, 3, size=(5, 4)).astype(float)
    retangular = (rng.integers(-2, 3, size=(4, 3)).astype(float), rng.integers(-2, 3, size=(4, 3)).astype(float),
                  rng.integers(-2, 3, size=(4, 2)).astype(float))
    return [
        Caso("com X (4, 4) e as três W (4, 4)", {"X": X, **dict(zip(_MATRIZES, quadrado))}),
        Caso("com X (5, 4), W_q e W_k (4, 3) e W_v (4, 2)", {"X": X2, **dict(zip(_MATRIZES, retangular))}),
    ]


#: as contas erradas clássicas de uma projeção, no lugar de X @ W
_FORMAS_ERRADAS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "W @ X": lambda X, W: W @ X,
    "X @ W.T": lambda X, W: X @ W.T,
    "(X @ W).T": lambda X, W: (X @ W).T,
    "X * W": lambda X, W: X * W,
    "X.T @ W": lambda X, W: X.T @ W,
}


def _candidatos_projecao(X: np.ndarray, Ws: Sequence[np.ndarray]) -> list[tuple[str, int, np.ndarray]]:
    """Tudo o que um componente da resposta pode ter sido: ``(forma do erro, índice da W, valor)``.

    ``forma`` é ``"certo"`` (``X @ W``) ou uma chave de :data:`_FORMAS_ERRADAS`; as que não rodam com
    essas formas ficam de fora.
    """
    saida = []
    for j, Wm in enumerate(Ws):
        saida.append(("certo", j, X @ Wm))
        for forma, conta in _FORMAS_ERRADAS.items():
            try:
                saida.append((forma, j, conta(X, Wm)))
            except ValueError:
                pass
    return saida


def _cada_componente(forma: str) -> Callable[[Any, Any, Caso], bool]:
    """Condição: cada uma de Q, K, V está certa ou foi feita com a conta errada ``forma`` (com a sua
    própria W), e pelo menos uma está errada (o erro vale mesmo se só uma das três o tiver)."""
    conta = _FORMAS_ERRADAS[forma]

    def quando(y: Any, certo: tuple, caso: Caso) -> bool:
        X = caso.entradas["X"]
        erradas = 0
        for r, c, m in zip(_TRIO.normalizar(y), certo, _MATRIZES):
            if _ARRAY.igual(r, c):
                continue
            if not _iguais(r, conta(X, caso.entradas[m])):
                return False
            erradas += 1
        return erradas > 0

    return quando


def _com_matrizes(indices: tuple[int, int, int]) -> Callable[..., tuple[np.ndarray, ...]]:
    """A resposta de quem calculou Q, K, V com as matrizes ``indices`` (0 = W_q, 1 = W_k, 2 = W_v)."""
    def resposta(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> tuple[np.ndarray, ...]:
        Ws = (W_q, W_k, W_v)
        return tuple(X @ Ws[j] for j in indices)

    return resposta


def _matrizes_usadas(y: Any, caso: Caso) -> tuple[int, ...] | None:
    """Com que matriz cada componente foi calculado (``X @ W_j``), ou ``None`` se algum não é nenhum."""
    X = caso.entradas["X"]
    usadas = []
    for r in _TRIO.normalizar(y):
        j = next((j for j, m in enumerate(_MATRIZES) if _ARRAY.igual(r, _ARRAY.normalizar(X @ caso.entradas[m]))), None)
        if j is None:
            return None
        usadas.append(j)
    return tuple(usadas)


def _erros_de_papel() -> list[Erro]:
    """A mesma W em três papéis, em dois papéis, e papéis trocados de lugar."""
    erros = [
        Erro(f"{m} nas três projeções",
             f"Você usou a mesma matriz ({m}) para as três projeções: Q, K e V saíram iguais. {_CADA_PAPEL} (Com um "
             "vetor só nos três papéis, cada token tende a olhar para si mesmo, os escores ficam simétricos e o que "
             "um token entrega fica amarrado a como ele é encontrado.)",
             resposta=_com_matrizes((j, j, j)))
        for j, m in enumerate(_MATRIZES)
    ]
    for p, papel in enumerate(_PAPEIS):
        for j, m in enumerate(_MATRIZES):
            if j == p:
                continue
            indices = tuple(j if k == p else k for k in range(3))
            juntos = " e ".join(_PAPEIS[k] for k in range(3) if indices[k] == j)
            erros.append(Erro(
                f"{papel} com {m}",
                f"{juntos} foram calculados com a mesma matriz, {m}. {_CADA_PAPEL} Aqui {papel} deveria usar "
                f"{_MATRIZES[p]} (olhe se não sobrou um copiar-e-colar).",
                resposta=_com_matrizes(indices)))
    erros += [
        Erro("K e V trocados",
             "K e V estão trocados: você devolveu (Q, V, K). A ordem é (Q, K, V): K = X @ W_k (para ser comparada com "
             "as queries) e V = X @ W_v (o conteúdo que sai). Trocados, os pesos passariam a ser calculados com os "
             "values.",
             resposta=_com_matrizes((0, 2, 1))),
        Erro("Q e K trocados",
             "Q e K estão trocados: você devolveu (K, Q, V). A ordem é (Q, K, V): Q = X @ W_q e K = X @ W_k.",
             resposta=_com_matrizes((1, 0, 2))),
        Erro("Q e V trocados",
             "Q e V estão trocados: você devolveu (V, K, Q). A ordem é (Q, K, V): Q = X @ W_q e V = X @ W_v.",
             resposta=_com_matrizes((2, 1, 0))),
        Erro("trio em ordem circular",
             "Os três resultados estão certos, mas na ordem errada: devolva (Q, K, V), com Q = X @ W_q, K = X @ W_k "
             "e V = X @ W_v.",
             quando=lambda y, _certo, caso: _matrizes_usadas(y, caso) in {(1, 2, 0), (2, 0, 1)}),
        Erro("matrizes misturadas entre os papéis",
             f"Cada resultado é X @ uma das três matrizes, mas não a do seu papel. {_CADA_PAPEL}",
             quando=lambda y, _certo, caso: _matrizes_usadas(y, caso) not in {None, (0, 1, 2)}),
    ]
    return erros


def _explica_forma_projecoes(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> str:
    n, d_model = X.shape
    formas = ", ".join(f"{m} {W.shape}" for m, W in zip(_MATRIZES, (W_q, W_k, W_v)))
    return (f"Aqui X tem forma {X.shape} (um token por linha, d_model = {d_model}) e {formas}. A conta que fecha "
            f"é X @ W: ({n}, {d_model}) @ ({d_model}, d) = ({n}, d). Trocar a ordem (W @ X) ou transpor W (X @ W.T) "
            "não fecha quando as formas não são quadradas.")


PROJECOES = Exercicio(
    nome="projeções Q, K, V",
    casos=_casos_projecoes,
    certo=lambda X, W_q, W_k, W_v: (X @ W_q, X @ W_k, X @ W_v),
    formato=_TRIO,
    acerto="Correto! Q = X @ W_q, K = X @ W_k e V = X @ W_v: uma linha por token, e cada papel com a sua matriz. Com "
           "X (5, 4), W_q (4, 3) e W_v (4, 2), Q sai (5, 3) e V sai (5, 2).",
    erros=[
        Erro("W @ X",
             "Você calculou **W @ X** em vez de **X @ W**. Cada token é uma **linha** de X, de forma (n, d_model), e W "
             "tem forma (d_model, d): a conta que fecha é X @ W = (n, d_model) @ (d_model, d) = (n, d), uma linha por "
             "token. W @ X só roda por acaso quando as formas são quadradas; com X (5, 4) e W_q (4, 3) dá erro de "
             "forma, porque (4, 3) @ (5, 4) tenta casar 3 colunas com 5 linhas.",
             quando=_cada_componente("W @ X")),
        Erro("X @ W.T",
             "Você transpôs as matrizes de pesos (X @ W.T). Aqui W já vem com forma (d_model, d): uma linha por "
             "coordenada do embedding, uma coluna por coordenada da projeção. Use X @ W direto. Com W_q de forma "
             "(4, 3), X @ W_q.T nem roda: (5, 4) @ (3, 4) não fecha.",
             quando=_cada_componente("X @ W.T")),
        Erro("(X @ W).T",
             "Você devolveu a transposta: (X @ W).T tem forma (d, n), um token por **coluna**. A convenção é um token "
             "por **linha**: Q[i] é a query do token i, forma (n, d). Tire o .T (ou não escreva W.T @ X.T).",
             quando=_cada_componente("(X @ W).T")),
        Erro("X * W",
             "Você usou * (produto elemento a elemento) em vez de @ (produto de matrizes). Cada coordenada da query é "
             "uma **soma** de produtos: Q[i, c] = Σⱼ X[i, j]·W_q[j, c]. Isso é X @ W_q.",
             quando=_cada_componente("X * W")),
        Erro("X.T @ W",
             "Você transpôs **X** (X.T @ W): as linhas de X.T são as coordenadas do embedding, não os tokens, e a conta "
             "só roda quando n = d_model. Cada token já é uma linha de X, (n, d_model), e X @ W (sem transpor nada) dá "
             "uma linha por token.",
             quando=_cada_componente("X.T @ W")),
        *_erros_de_papel(),
        *[Erro(f"{papel} sem projetar (X no lugar de {papel})",
               f"{papel} saiu igual a X: você devolveu os embeddings sem projetá-los. Cada um dos três papéis tem a sua "
               f"projeção — aqui, {papel} = X @ {m} —, e é ela que dá a {papel} a forma (n, d) do papel e o conteúdo "
               f"que ele precisa (sem ela, {papel} ficaria preso ao que o embedding já é).",
               resposta=lambda X, W_q, W_k, W_v, p=p: tuple(X if k == p else X @ W for k, W in enumerate((W_q, W_k, W_v))))
          for p, (papel, m) in enumerate(zip(_PAPEIS, _MATRIZES))],
    ],
    explica_forma=_explica_forma_projecoes,
    dica_de_forma="Cada uma tem uma linha por token: Q e K (n, d_k), V (n, d_v).",
    mostrar_valores=False,
)


@corretor_de(PROJECOES)
def check_projecoes(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v)`` = ``(X @ W_q, X @ W_k, X @ W_v)``.

    ``X`` tem forma ``(n, d_model)`` (um token por linha) e cada ``W`` tem forma ``(d_model, d)``; a resposta é o
    trio ``(Q, K, V)``, cada um ``(n, d)`` (o ``d`` da sua ``W``).
    """
    return conferir(PROJECOES, fn)
