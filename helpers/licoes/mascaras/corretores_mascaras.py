"""Notebook ``mascaras_e_atencao_cruzada``: os corretores dos exercícios 1 e 2 (o aquecimento) — montar a
máscara causal ``(n, n)`` e a máscara de preenchimento ``(b, 1, n)``, booleanas (``True`` = pode olhar).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import attention
from ...corretor import Caso, Erro, Exercicio, Regra, conferir, corretor_de, usa_nomes
from ...respostas import Mascara

__all__ = ["MASCARA_CAUSAL", "MASCARA_PADDING", "check_mascara_causal", "check_mascara_padding"]

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------

_MASCARA = Mascara()


def _usa_da_biblioteca(fn: Callable[..., Any], nomes: set[str]) -> bool:
    """``fn`` chama uma destas funções de :mod:`helpers.attention` — ou é uma delas (``minha = attention.causal_mask``)?"""
    return usa_nomes(fn, nomes) or (getattr(fn, "__module__", None) == attention.__name__
                                    and getattr(fn, "__name__", None) in nomes)


class _MascaraDoLote(Mascara):
    """A máscara de padding: mostrada com a forma e, quando é ``(b, 1, n)``, uma linha por frase."""

    def mostrar(self, x: np.ndarray) -> str:
        a = np.asarray(x).astype(int)
        if a.ndim == 3 and a.shape[1] == 1:
            return f"forma {a.shape}; mask[:, 0, :] =\n{a[:, 0, :]}"
        return f"forma {a.shape}:\n{a}"


def _numeros_com_o_padrao_certo(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    """``y`` tem o padrão certo de True/False, mas em números (0/1), não booleanos."""
    return np.asarray(y).dtype != np.bool_ and _MASCARA.igual(_MASCARA.normalizar(y), certo)


def _aditiva(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    """``y`` é a versão aditiva da máscara certa (0 onde pode olhar, -inf ou muito negativo onde não)?"""
    arr = np.asarray(y, dtype=float)
    return arr.shape == certo.shape and bool(np.all(arr[certo] == 0)) and bool(np.all(arr[~certo] < -1e3))


def _outra_forma_mesmos_valores(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    """Os valores certos, na ordem certa, mas noutra forma (achatada, com um eixo a mais…)."""
    m = _MASCARA.normalizar(y)
    return m.shape != certo.shape and m.size == certo.size and bool(np.array_equal(m.ravel(), certo.ravel()))


def _explica_dtype(exemplo: str) -> str:
    return ("O padrão de True/False está certo, mas a máscara veio com **números** (0 e 1, dtype int ou float), e ela "
            f"precisa ser **booleana**, dtype bool ({exemplo}). Com números, ~mask não inverte a máscara (em "
            "inteiros, ~1 vale -2 e ~0 vale -1, e os dois contam como True), np.where(mask, …) trata qualquer número "
            "diferente de 0 como True, e attention.scaled_dot_product_attention recusa máscaras que não sejam bool.")


def _erro_aditiva(uso: str) -> Erro:
    return Erro("máscara aditiva (0/−inf)",
                "Você devolveu a máscara **aditiva** (0 onde pode olhar, -inf onde não): ela serve para somar aos "
                f"escores, mas aqui queremos a máscara booleana ({uso}), a que se passa como mask=.",
                quando=_aditiva)


MASCARA_CAUSAL = Exercicio(
    nome="máscara causal",
    casos=lambda: [Caso(f"com n = {n}", {"n": n}) for n in (4, 6)],
    certo=lambda n: np.tri(n, dtype=bool),
    formato=_MASCARA,
    acerto="Correto! Máscara causal (n, n) booleana: a linha i libera as colunas 0, …, i (o passado e o próprio "
           "token) e bloqueia o futuro.",
    erros=[
        Erro("números no lugar de booleanos", _explica_dtype("np.tri(n, dtype=bool) ou .astype(bool)"),
             quando=_numeros_com_o_padrao_certo, sempre=True),
        _erro_aditiva("True = pode olhar"),
        Erro("tudo True (máscara ignorada)",
             "Tudo True: isso não bloqueia nada (é a atenção sem máscara). Só o passado e o próprio token podem ficar "
             "liberados: a query i vê as keys j ≤ i.",
             resposta=lambda n: np.ones((n, n), dtype=bool)),
        Erro("triângulo de cima",
             "Você pegou o triângulo de **cima** (j ≥ i): assim cada token olha para si e para o **futuro**, "
             "exatamente o que a máscara deveria impedir. A query i pode ver as keys j ≤ i: o triângulo de baixo "
             "(np.tril ou np.tri).",
             resposta=lambda n: np.triu(np.ones((n, n), dtype=bool))),
        Erro("convenção invertida (True = proibido)",
             "Máscara invertida: você marcou com True as posições **proibidas** (o futuro, j > i). Algumas bibliotecas "
             "usam essa convenção, mas aqui (como no scaled_dot_product_attention do PyTorch) True quer dizer **pode "
             "olhar**. Inverta com ~mask ou use np.tri(n, dtype=bool).",
             resposta=lambda n: np.triu(np.ones((n, n), dtype=bool), k=1)),
        Erro("diagonal excluída",
             "A diagonal ficou de fora: cada token também pode olhar para **si mesmo** (j = i). Sem a diagonal, o "
             "primeiro token não teria nada para ver. Use np.tri(n, dtype=bool) (k=0, o padrão), não k=-1, ou j <= i "
             "em vez de j < i.",
             resposta=lambda n: np.tri(n, k=-1, dtype=bool)),
        Erro("um passo a mais (vê o seguinte)",
             "Um passo a mais: com k=1 (ou j <= i + 1) cada token vê também o token **seguinte** — justamente o que "
             "ele deveria prever. Use k=0 (o padrão de np.tri), ou j <= i.",
             resposta=lambda n: np.tri(n, k=1, dtype=bool)),
        Erro("só a diagonal",
             "Só a diagonal: cada token veria apenas a si mesmo. Ele pode olhar para si **e para todo o passado** "
             "(j ≤ i).",
             resposta=lambda n: np.eye(n, dtype=bool)),
        Erro("tudo False",
             "Tudo False: nenhuma query poderia olhar para nada. True marca o que **pode** ser visto: o passado e o "
             "próprio token (j ≤ i).",
             resposta=lambda n: np.zeros((n, n), dtype=bool)),
        Erro("triângulo espelhado",
             "O triângulo ficou espelhado (virado da esquerda para a direita). Na linha i, as colunas liberadas são "
             "0, 1, …, i.",
             resposta=lambda n: np.fliplr(np.tri(n, dtype=bool))),
        Erro("forma errada com os valores certos",
             lambda n: f"Os valores estão certos, só que arrumados em outra forma: a máscara deveria ter forma ({n}, "
                       f"{n}), uma matriz com uma linha por query e uma coluna por key — sem eixos a mais e sem "
                       "achatar.",
             quando=_outra_forma_mesmos_valores),
    ],
    regras=[
        Regra("usou attention.causal_mask",
              "montar a máscara você mesmo, sem attention.causal_mask, que já a devolve pronta: compare o índice da "
              "query (a linha) com o da key (a coluna), ou use o numpy (np.tri, np.tril).",
              lambda fn: _usa_da_biblioteca(fn, {"causal_mask"})),
    ],
    dica_de_forma="A máscara causal é uma matriz (n, n): uma linha por query e uma coluna por key, n de cada.",
)


@corretor_de(MASCARA_CAUSAL)
def check_mascara_causal(fn: Callable[[int], Any]) -> bool:
    """Confere ``fn(n)`` = a máscara causal ``(n, n)`` booleana: ``True`` onde a query ``i`` pode olhar
    para a key ``j``, isto é, ``j <= i`` (o triângulo de baixo, com a diagonal).
    """
    return conferir(MASCARA_CAUSAL, fn)


def _padding_com(regra: Callable[[np.ndarray, np.ndarray, int], np.ndarray]) -> Callable[..., np.ndarray]:
    """A máscara ``(b, 1, n)`` de quem usou ``regra(j, L, n)`` (``j`` ``(1, n)``, ``L`` ``(b, 1)``) no lugar
    de ``j < L``."""
    def resposta(lengths: np.ndarray, n: int) -> np.ndarray:
        return regra(np.arange(n)[None, :], np.asarray(lengths)[:, None], n)[:, None, :]

    return resposta


def _padding_certa(lengths: np.ndarray, n: int) -> np.ndarray:
    return (np.arange(n)[None, :] < np.asarray(lengths)[:, None])[:, None, :]


def _explica_forma_padding(lengths: np.ndarray, n: int) -> str:
    return (f"np.arange(n) tem forma ({n},) e lengths tem forma ({len(lengths)},): comparar os dois direto não faz uma "
            "tabela (o broadcasting só casa eixos de mesmo tamanho ou de tamanho 1). Ponha cada um num eixo: "
            "np.arange(n)[None, :] < lengths[:, None] dá (b, n); depois acrescente o eixo do meio com [:, None, :].")


def _casos_padding() -> list[Caso]:
    return [Caso(f"com lengths = {lengths} e n = {n}", {"lengths": np.array(lengths), "n": n})
            for lengths, n in (([3, 5, 1], 5), ([2, 4], 6))]


MASCARA_PADDING = Exercicio(
    nome="máscara de preenchimento",
    casos=_casos_padding,
    certo=_padding_certa,
    formato=_MascaraDoLote(),
    acerto="Correto! mask[b, 0, j] = j < lengths[b]: forma (b, 1, n), booleana, True nos tokens de verdade. O eixo do "
           "meio faz a mesma máscara valer para todas as queries.",
    erros=[
        Erro("números no lugar de booleanos", _explica_dtype("a comparação j < lengths já dá bool"),
             quando=_numeros_com_o_padrao_certo, sempre=True),
        _erro_aditiva("True = token de verdade"),
        Erro("sem o eixo do meio: (b, n)",
             "Os valores estão certos, mas faltou o **eixo do meio**: a forma deveria ser (b, 1, n), e veio (b, n). Os "
             "escores têm forma (b, n_q, n) e o numpy alinha as formas pela direita: uma máscara (b, n) seria lida "
             "como (n_q, n). Se b ≠ n_q, isso dá erro de forma; se por acaso b = n_q, é pior: roda sem erro, usando a "
             "frase i para a **query** i. Acrescente o eixo com mask[:, None, :].",
             resposta=lambda lengths, n: _padding_certa(lengths, n)[:, 0, :]),
        Erro("máscara nas queries: (b, n, 1)",
             "Forma (b, n, 1): assim a máscara vale para as **linhas** (as queries), não para as colunas (as keys). O "
             "que precisa sumir são as colunas do <pad>, para que ninguém olhe para ele: use a forma (b, 1, n).",
             resposta=lambda lengths, n: _padding_certa(lengths, n)[:, 0, :, None]),
        Erro("matriz cheia (b, n, n)",
             "A matriz (b, n, n) que você montou funciona, mas repete a mesma linha n vezes. Devolva a forma (b, 1, n): "
             "o broadcasting estende o eixo do meio para todas as queries de graça.",
             resposta=lambda lengths, n: np.broadcast_to(_padding_certa(lengths, n), (len(lengths), n, n))),
        Erro("erro de um: j <= lengths",
             "Erro de um: com j <= lengths, a posição lengths[b] também fica liberada — e ela já é o primeiro <pad> "
             "(as posições começam em 0: uma frase de 3 tokens ocupa 0, 1 e 2). Use j < lengths.",
             resposta=_padding_com(lambda j, L, n: j <= L)),
        Erro("erro de um: j < lengths − 1",
             "Erro de um: com j < lengths - 1 o **último token de verdade** ficou bloqueado. Uma frase de 3 tokens "
             "ocupa as posições 0, 1 e 2: libere j < lengths.",
             resposta=_padding_com(lambda j, L, n: j < L - 1)),
        Erro("convenção invertida (True no preenchimento)",
             "Máscara invertida: você marcou com True o **preenchimento**. Aqui True quer dizer **pode olhar** (token de "
             "verdade): mask[b, 0, j] = j < lengths[b].",
             resposta=_padding_com(lambda j, L, n: j >= L)),
        Erro("preenchimento à esquerda",
             "Você liberou as **últimas** lengths[b] posições: isso é o preenchimento à **esquerda** (o <pad> no "
             "começo). Aqui os tokens de verdade vêm primeiro e o <pad> no fim: eles ocupam as posições 0, …, "
             "lengths[b] − 1, então mask[b, 0, j] = j < lengths[b].",
             resposta=_padding_com(lambda j, L, n: j >= n - L)),
        Erro("n − lengths no lugar de lengths",
             "Você liberou as primeiras n − lengths[b] posições: esse é o número de <pad> da frase, não o de tokens de "
             "verdade. Libere as primeiras lengths[b]: j < lengths[b].",
             resposta=_padding_com(lambda j, L, n: j < n - L)),
        Erro("tudo True (máscara ignorada)",
             "Tudo True: isso não bloqueia nada, e as queries continuam olhando para o <pad>. Só os tokens de verdade "
             "(j < lengths[b]) podem ficar liberados.",
             resposta=lambda lengths, n: np.ones((len(lengths), 1, n), dtype=bool)),
    ],
    regras=[
        Regra("usou attention.padding_mask",
              "montar a máscara você mesmo, sem attention.padding_mask, que já a devolve pronta: compare as posições "
              "0, …, n − 1 com o comprimento de cada frase, cada um no seu eixo, e acrescente o eixo do meio.",
              lambda fn: _usa_da_biblioteca(fn, {"padding_mask"})),
    ],
    explica_forma=_explica_forma_padding,
    dica_de_forma="A máscara de preenchimento tem forma (b, 1, n): uma linha por frase, o eixo do meio de tamanho 1 (ele se "
                  "estende a todas as queries) e uma coluna por posição.",
)


@corretor_de(MASCARA_PADDING)
def check_mascara_padding(fn: Callable[[np.ndarray, int], Any]) -> bool:
    """Confere ``fn(lengths, n)`` = a máscara de padding ``(b, 1, n)`` booleana de um lote de ``b`` frases
    preenchidas até ``n`` posições (``lengths`` ``(b,)``: os tokens de verdade de cada uma), com
    ``mask[b, 0, j] = j < lengths[b]`` (``True`` = token de verdade, pode olhar).
    """
    return conferir(MASCARA_PADDING, fn)
