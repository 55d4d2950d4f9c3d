"""Notebook ``atencao_aprendida``: a conta de uma cabeça, aberta — por que os pesos caem onde caem.

No espírito da *neuron view* do BertViz: para uma frase, uma camada, uma cabeça e uma palavra que olha
(padrão: a lacuna), a *query* ``q`` dessa palavra, a *key* ``kⱼ`` de cada palavra, os escores
``q · kⱼ / √d_head`` e os pesos, a softmax dos escores. São os mesmos números da atenção do modelo
(:meth:`~.rede.ModeloConcordancia.atencao`), refeitos a partir da entrada de cada camada
(:meth:`~.rede.ModeloConcordancia.entradas`, ``xₗ``) e dos parâmetros::

    q = xₗ[i] · W_qˡ[:, h·d_head : (h+1)·d_head]      (d_head,)
    kⱼ = xₗ[j] · W_kˡ[:, h·d_head : (h+1)·d_head]     (n, d_head)

A coluna ``h·d_head : (h+1)·d_head`` é a fatia da cabeça ``h`` (a de :func:`helpers.attention.split_heads`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...attention import softmax
from ...formato import decimal
from .figuras import COR_PAPEL, papeis_da_frase
from .frases import LACUNA
from .rede import ModeloConcordancia, _tokens_da_frase

__all__ = ["ContaQK", "conta_qk", "tabela_qk"]


@dataclass(frozen=True)
class ContaQK:
    """A conta de uma linha de uma cabeça: a palavra ``posicao`` (a query) olhando para cada palavra (as keys).

    tokens : as ``n`` palavras da frase; ``camada``, ``cabeca``, ``posicao`` : de quem é a conta.
    q : ``(d_head,)`` a query da palavra ``posicao``; k : ``(n, d_head)`` a key de cada palavra.
    escores : ``(n,)`` ``q · kⱼ / √d_head``; pesos : ``(n,)`` a softmax dos escores (somam 1).
    """

    tokens: tuple[str, ...]
    camada: int
    cabeca: int
    posicao: int
    q: NDArray[np.float64]
    k: NDArray[np.float64]
    escores: NDArray[np.float64]
    pesos: NDArray[np.float64]

    @property
    def d_head(self) -> int:
        """A dimensão de cada query e key desta cabeça."""
        return int(self.q.shape[0])

    @property
    def maior(self) -> int:
        """A posição da key com o maior peso (a linha mais grossa da vista)."""
        return int(np.argmax(self.pesos))


def _indice(valor: int, nome: str, limite: int, o_que: str) -> int:
    if isinstance(valor, bool) or not isinstance(valor, (int, np.integer)) or not 0 <= valor < limite:
        raise ValueError(f"{nome} precisa ser um inteiro de 0 a {limite - 1} ({o_que}); recebi {valor!r}.")
    return int(valor)


def conta_qk(modelo: ModeloConcordancia, tokens: Sequence[str] | str, camada: int, cabeca: int,
             posicao: int | None = None, entradas: NDArray[np.float64] | None = None) -> ContaQK:
    """A query da palavra ``posicao`` (padrão: a lacuna, a última), a key de cada palavra, os escores
    ``q · kⱼ / √d_head`` e os pesos (a softmax deles) na cabeça ``cabeca`` da camada ``camada``.

    ``entradas``: ``modelo.entradas(tokens)``, ``(n_camadas, n, d_model)``, já calculadas (o painel as guarda).
    Os pesos são a linha ``modelo.atencao(tokens)[camada, cabeca, posicao]``.
    """
    toks = _tokens_da_frase(tokens)
    n, d_model = len(toks), modelo.receita.d_model
    camada = _indice(camada, "camada", modelo.n_camadas, f"o modelo tem {modelo.n_camadas} camadas")
    cabeca = _indice(cabeca, "cabeca", modelo.n_cabecas, f"cada camada tem {modelo.n_cabecas} cabeças")
    posicao = n - 1 if posicao is None else _indice(posicao, "posicao", n, f"a frase tem {n} palavras")
    if entradas is None:
        entradas = modelo.entradas(toks)
    elif np.shape(entradas) != (modelo.n_camadas, n, d_model):
        raise ValueError(f"entradas precisa ter a forma (n_camadas, n, d_model) = ({modelo.n_camadas}, {n}, {d_model}), "
                         f"a de modelo.entradas(tokens) para esta frase; tem {np.shape(entradas)}.")
    x = entradas[camada]  # (n, d_model): xₗ
    d_head = modelo.receita.d_model // modelo.n_cabecas
    fatia = slice(cabeca * d_head, (cabeca + 1) * d_head)
    q = x[posicao] @ modelo.parametros[f"w_q{camada}"][:, fatia]  # (d_head,)
    k = x @ modelo.parametros[f"w_k{camada}"][:, fatia]  # (n, d_head)
    escores = k @ q / math.sqrt(d_head)  # (n,)
    pesos = softmax(escores)
    if not (np.isfinite(escores).all() and np.isfinite(pesos).all()):
        raise ValueError("os escores ou os pesos não são números finitos: os parâmetros do modelo têm inf ou NaN.")
    return ContaQK(tuple(toks), camada, cabeca, posicao, q, k, escores, pesos)


def _numero(x: float, casas: int) -> str:
    texto = decimal(x, casas)
    return texto[1:] if texto.startswith("-") and float(texto.replace(",", ".")) == 0 else texto  # sem "-0,000"


def tabela_qk(conta: ContaQK) -> str:
    """A conta como uma tabela HTML: uma linha por key (posição, palavra, ``q · kⱼ / √d``, peso e uma barra do
    peso), a linha do maior peso marcada e, embaixo, a soma dos pesos. Números com vírgula, que se podem
    copiar; cada célula de número leva o valor inteiro num atributo ``data-valor`` (para os testes)."""
    toks, i = conta.tokens, conta.posicao
    papeis = papeis_da_frase(toks)
    maior = conta.maior
    celula = "style='padding:0 0.5em;text-align:right'"
    linhas = []
    for j, palavra in enumerate(toks):
        papel = next((nome for nome, pos in papeis.items() if j in pos), "lacuna" if palavra == LACUNA else "outra")
        cor = COR_PAPEL[papel] if papel != "outra" else "inherit"
        e_maior = j == maior
        barra = (f"<span style='display:inline-block;height:0.8em;width:{6 * conta.pesos[j]:.3f}em;"
                 f"background:{COR_PAPEL['sujeito']};opacity:0.7'></span>")
        fundo = " style='background:rgba(230,159,0,0.25);font-weight:bold'" if e_maior else ""
        linhas.append(
            f"<tr class='qk-linha' data-posicao='{j}' data-maior='{int(e_maior)}'{fundo}>"
            f"<td {celula}>{j}</td><td style='color:{cor};padding:0 0.5em'>{html.escape(palavra)}</td>"
            f"<td {celula} class='qk-escore' data-valor='{float(conta.escores[j])!r}'>{_numero(conta.escores[j], 2)}</td>"
            f"<td {celula} class='qk-peso' data-valor='{float(conta.pesos[j])!r}'>{_numero(conta.pesos[j], 3)}</td>"
            f"<td>{barra}{' ◀ maior peso' if e_maior else ''}</td></tr>"
        )
    raiz = math.sqrt(conta.d_head)
    raiz_txt = decimal(raiz, 0) if raiz.is_integer() else decimal(raiz, 2)
    titulo = (f"<b>Por que os pesos caem onde caem</b>: a query de «{html.escape(toks[i])}» (posição {i}) contra a "
              f"key de cada palavra, na cabeça escolhida (d_head = {conta.d_head}, √d_head = {raiz_txt})")
    cabecalho = (f"<tr><th {celula}>j</th><th style='padding:0 0.5em;text-align:left'>key</th>"
                 f"<th {celula}>q · kⱼ / √d</th><th {celula}>peso (softmax)</th><th></th></tr>")
    soma = (f"<tr><td></td><td style='padding:0 0.5em'><i>soma</i></td><td></td>"
            f"<td {celula}><i>{_numero(float(conta.pesos.sum()), 3)}</i></td><td></td></tr>")
    return (f"<div class='conta-qk' data-camada='{conta.camada}' data-cabeca='{conta.cabeca}' data-posicao='{i}'>"
            f"<div style='max-width:32em'>{titulo}</div><table style='font-size:1.05em'>{cabecalho}{''.join(linhas)}"
            f"{soma}</table></div>")
