"""Notebook ``atencao_aprendida``: a conta de uma cabeça, aberta — por que os pesos caem onde caem.

No espírito da *neuron view* do BertViz: para uma frase, uma camada, uma cabeça e uma palavra que olha
(padrão: a lacuna), a *query* ``q`` dessa palavra, a *key* ``kⱼ`` de cada palavra, os escores
``q · kⱼ / √d_head`` e os pesos, a softmax dos escores. São os mesmos números da atenção do modelo
(:meth:`~.rede.ModeloConcordancia.atencao`), refeitos a partir dos parâmetros dele::

    x₀ = E[tokens] + P[posições]                     (n, d_model)
    xₗ₊₁ = xₗ + MHA(xₗ)   (ou só MHA(xₗ) sem residual)
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

from ...attention import multi_head_attention, softmax
from ...formato import decimal
from .figuras import COR_PAPEL, papeis_da_frase
from .frases import LACUNA, N_MAX, codificar
from .rede import ModeloConcordancia

__all__ = ["ContaQK", "conta_qk", "entradas_das_camadas", "tabela_qk"]


def _validar_tokens(tokens: Sequence[str] | str) -> list[str]:
    toks = tokens.split() if isinstance(tokens, str) else list(tokens)
    if not toks:
        raise ValueError(f"a frase está vazia: escreva palavras do vocabulário terminando na lacuna {LACUNA}.")
    codificar(toks)  # uma palavra fora do vocabulário vira ValueError em português
    if toks[-1] != LACUNA:
        raise ValueError(f"a frase precisa terminar com a lacuna {LACUNA}, como as que o modelo viu no treino; a "
                         f"última palavra é «{toks[-1]}».")
    if len(toks) > N_MAX:
        raise ValueError(f"o modelo aceita frases de até {N_MAX} palavras (a lacuna incluída); esta tem {len(toks)}.")
    return toks


def entradas_das_camadas(modelo: ModeloConcordancia, tokens: Sequence[str] | str) -> list[NDArray[np.float64]]:
    """A entrada ``xₗ`` ``(n, d_model)`` de cada camada ``l`` para uma frase de ``n`` palavras (a da camada 0 é
    ``E[tokens] + P[:n]``; a da seguinte soma a saída da atenção, se o modelo tiver residual)."""
    toks = _validar_tokens(tokens)
    p = modelo.parametros
    x = p["embedding"][codificar(toks)] + p["posicao"][: len(toks)]  # (n, d_model)
    entradas = []
    for camada in range(modelo.n_camadas):
        entradas.append(x)
        a, _ = multi_head_attention(x, x, p[f"w_q{camada}"], p[f"w_k{camada}"], p[f"w_v{camada}"],
                                    p[f"w_o{camada}"], modelo.n_cabecas)  # (n, d_model)
        x = x + a if modelo.receita.residual else a
    return entradas


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
             posicao: int | None = None, entradas: Sequence[NDArray[np.float64]] | None = None) -> ContaQK:
    """A query da palavra ``posicao`` (padrão: a lacuna, a última), a key de cada palavra, os escores
    ``q · kⱼ / √d_head`` e os pesos (a softmax deles) na cabeça ``cabeca`` da camada ``camada``.

    ``entradas``: as de :func:`entradas_das_camadas` já calculadas para a mesma frase (o painel as guarda).
    Os pesos são a linha ``modelo.atencao(tokens)[camada, cabeca, posicao]``.
    """
    toks = _validar_tokens(tokens)
    n = len(toks)
    camada = _indice(camada, "camada", modelo.n_camadas, f"o modelo tem {modelo.n_camadas} camadas")
    cabeca = _indice(cabeca, "cabeca", modelo.n_cabecas, f"cada camada tem {modelo.n_cabecas} cabeças")
    posicao = n - 1 if posicao is None else _indice(posicao, "posicao", n, f"a frase tem {n} palavras")
    if entradas is None:
        entradas = entradas_das_camadas(modelo, toks)
    elif len(entradas) != modelo.n_camadas or np.shape(entradas[camada]) != (n, modelo.receita.d_model):
        raise ValueError(f"entradas precisa ter {modelo.n_camadas} matrizes (n, d_model) = ({n}, "
                         f"{modelo.receita.d_model}), as de entradas_das_camadas para esta frase.")
    x = entradas[camada]  # (n, d_model)
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
