"""Lição "Comece aqui" (notebook ``comece_aqui``): a checagem do ambiente, o painel do primeiro contato (só a query se mexe), a primeira caixa de previsão (q·k com q a 165°) e o primeiro exercício, o produto escalar.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from .. import plots
from ..corretor import (
    Caso,
    Erro,
    Exercicio,
    Previsao,
    Regra,
    bate_com_alguma,
    conferir,
    corretor_de,
    usa_nomes,
    usa_operador_matricial,
)
from ..formato import vetor
from ..paineis import Painel, polar, sliders_polares, tabela
from ..previsao import CaixaDePrevisao, caixa
from ..respostas import Array, Numero, NumeroAproximado

__all__ = ["verificar_ambiente", "painel_produto_escalar", "prever_q_165", "check_produto_escalar"]

# ---------------------------------------------------------------------------------------------
# Checagem do ambiente: as versões encontradas e o que fazer quando algo falta ou é antigo
# ---------------------------------------------------------------------------------------------

INSTALAR = "pip install -r requirements.txt"


@dataclass(frozen=True)
class Requisito:
    pacote: str  # nome de distribuição (pip)
    minima: tuple[int, ...]
    para_que: str
    opcional: bool = False  #: só para quem contribui: a falta dele não impede ninguém de estudar


REQUISITOS = [
    Requisito("numpy", (2, 0), "as contas de atenção"),
    Requisito("matplotlib", (3, 11), "as figuras"),
    Requisito("ipywidgets", (8, 1), "os sliders"),
    Requisito("ipykernel", (6, 29), "o kernel do Jupyter"),
    Requisito("jupyterlab", (4, 2), "a interface (JupyterLab 4)"),
    Requisito("nbval", (0, 11), "a validação automática dos notebooks (só para quem contribui)", opcional=True),
]


def _versao(texto: str) -> tuple[int, ...]:
    partes = []
    for pedaco in texto.split("."):
        inicio = ""
        for ch in pedaco:
            if not ch.isdigit():
                break
            inicio += ch
        if not inicio:
            break
        partes.append(int(inicio))
        if inicio != pedaco:
            break
    return tuple(partes)


def _instalada(pacote: str) -> str | None:
    try:
        return metadata.version(pacote)
    except metadata.PackageNotFoundError:
        return None


def verificar_ambiente(
    python: tuple[int, int] | None = None, versoes: dict[str, str | None] | None = None
) -> bool:
    """Imprime uma linha por requisito (✅/⚠️/❌) e o que fazer; devolve ``True`` se tudo está ok.

    ``python`` e ``versoes`` existem para os testes simularem outros ambientes; por padrão lê o
    ambiente de verdade.
    """
    py = python or sys.version_info[:2]
    encontradas = versoes if versoes is not None else {r.pacote: _instalada(r.pacote) for r in REQUISITOS}
    tudo_ok = True
    linhas = []
    if py >= (3, 10):
        linhas.append(f"✅ Python {py[0]}.{py[1]}")
    else:
        tudo_ok = False
        linhas.append(f"❌ Python {py[0]}.{py[1]}: a coleção precisa de Python 3.10 ou mais novo. "
                      "Instale um Python recente (python.org ou o gerenciador do seu sistema) e crie o ambiente de novo.")
    for req in REQUISITOS:
        minima = ".".join(map(str, req.minima))
        versao = encontradas.get(req.pacote)
        if versao is None and req.opcional:
            linhas.append(f"⚪ {req.pacote} não encontrado: é {req.para_que}; para estudar, não faz falta")
        elif versao is None:
            tudo_ok = False
            linhas.append(f"❌ {req.pacote} não encontrado ({req.para_que}). Rode no terminal: {INSTALAR}")
        elif _versao(versao) < req.minima:
            tudo_ok = tudo_ok and req.opcional
            linhas.append(f"⚠️ {req.pacote} {versao} é antigo demais (precisa de {minima} ou mais novo, "
                          f"para {req.para_que}). Atualize com: {INSTALAR} --upgrade")
        else:
            linhas.append(f"✅ {req.pacote} {versao}")
    print("\n".join(linhas))
    if tudo_ok:
        print("Tudo certo: pode seguir a trilha!")
    else:
        print("Algo precisa de atenção (veja acima). Depois de instalar, reinicie o kernel "
              "(menu Kernel › Reiniciar o kernel…, em inglês Restart Kernel…) e rode esta célula de novo.")
    return tudo_ok


# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------

#: as funções do numpy que já fazem o produto escalar inteiro (passadas direto ao corretor, sem um def)
_ATALHOS = (np.dot, np.inner, np.vdot, np.matmul, operator.matmul)


def _usa_atalho(fn: Callable[..., Any]) -> bool:
    """``fn`` é, ou usa, um atalho do produto escalar (``@``, ``np.dot``, ``q.dot(k)``, ``np.inner``, ``np.einsum``…)?"""
    return (any(fn is f for f in _ATALHOS) or usa_operador_matricial(fn)
            or usa_nomes(fn, {"multi_dot", "dot", "inner", "vdot", "matmul", "einsum", "tensordot"}))


PRODUTO_ESCALAR = Exercicio(
    nome="produto escalar",
    casos=lambda: [
        Caso(f"com q = {q} e k = {k}", {"q": np.array(q, dtype=float), "k": np.array(k, dtype=float)})
        for q, k in (([1.0, 0.0], [0.5, 0.5]), ([2.0, -1.0, 3.0], [1.0, 4.0, -2.0]),
                     ([1.0, 2.0, 0.0, -1.0], [3.0, -1.0, 2.0, 2.0]), ([3.0, 4.0], [-4.0, 3.0]))
    ],
    certo=lambda q, k: float(np.sum(q * k)),
    formato=Numero(),
    tempo_limite=3.0,  # vetores de até 4 números: 3 s só se esgotam num laço que não termina
    acerto="Correto, e à mão, sem @ nem np.dot! q·k = Σ qᵢkᵢ. Repare no último caso: q = (3, 4) e k = (-4, 3) são "
           "perpendiculares e o produto deu 0.",
    erros=[
        Erro("produto sem a soma",
             lambda q, k: f"Você multiplicou coordenada a coordenada ({vetor(q * k)}), mas esqueceu de **somar** os "
                          "produtos: q·k = q₁k₁ + q₂k₂ + … é um único número.",
             resposta=lambda q, k: q * k, formato=Array()),
        Erro("somou os vetores",
             "Você somou os vetores (q + k), e talvez depois as coordenadas dessa soma. O produto escalar **multiplica** "
             "as coordenadas correspondentes e soma os produtos: q₁k₁ + q₂k₂ + …",
             quando=bate_com_alguma(Array(), lambda q, k: q + k, lambda q, k: np.sum(q + k))),
        Erro("multiplicou as somas",
             "Você multiplicou as somas, (Σq)(Σk) — é o que dá um laço dentro de outro, que multiplica **todo** qᵢ por "
             "**todo** kⱼ. O produto escalar só multiplica as coordenadas da mesma posição, qᵢ com kᵢ: um laço só.",
             resposta=lambda q, k: float(q.sum() * k.sum())),
        Erro("produto dos comprimentos",
             "Você calculou |q| |k|, o produto dos comprimentos. Falta o cos θ: |q| |k| é o q·k só quando as setas "
             "apontam para o mesmo lado. Multiplique as coordenadas correspondentes e some: Σ qᵢkᵢ.",
             resposta=lambda q, k: float(np.linalg.norm(q) * np.linalg.norm(k))),
        Erro("média no lugar da soma",
             "Você tirou a **média** dos produtos (dividiu pelo número de coordenadas). O produto escalar é a **soma** "
             "deles, sem dividir.",
             resposta=lambda q, k: float(np.mean(q * k))),
        Erro("só a primeira coordenada",
             "Só a primeira coordenada entrou: q₁k₁. Um `return` dentro do laço? Ele sai da função já na primeira "
             "volta. Some os produtos de **todas** as coordenadas e devolva o total depois do laço.",
             resposta=lambda q, k: float(q[0] * k[0])),
        Erro("faltou a última coordenada",
             "Faltou a última coordenada: o laço parou uma posição antes (range(len(q) - 1)?). range(len(q)) já vai "
             "de 0 até a última posição, len(q) - 1.",
             resposta=lambda q, k: float(np.sum(q[:-1] * k[:-1]))),
        Erro("pulou a primeira coordenada",
             "Faltou a primeira coordenada: o laço começou em 1 (range(1, len(q))?). Em Python as posições começam em "
             "0: q[0] é a primeira.",
             resposta=lambda q, k: float(np.sum(q[1:] * k[1:]))),
        Erro("só a última coordenada",
             "Só a última coordenada sobrou: o total foi **substituído** a cada volta (total = q[i] * k[i]) em vez de "
             "**acumulado** (total += q[i] * k[i]).",
             resposta=lambda q, k: float(q[-1] * k[-1])),
    ],
    regras=[
        Regra("usou @ ou np.dot",
              "o exercício é fazer a conta **à mão**, sem `@`, `np.dot` (nem `q.dot(k)`, `np.inner`, `np.einsum`), "
              "que já fazem tudo. Multiplique as coordenadas correspondentes e some os produtos: com um laço, ou com "
              "`q * k` e uma soma.",
              _usa_atalho),
    ],
)


@corretor_de(PRODUTO_ESCALAR)
def check_produto_escalar(fn: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Confere ``fn(q, k)`` = o produto escalar ``Σ qᵢ kᵢ`` de dois vetores 1-D da mesma forma ``(d,)``: um
    número, feito à mão (sem ``@`` nem ``np.dot``).
    """
    return conferir(PRODUTO_ESCALAR, fn)


# ---------------------------------------------------------------------------------------------
# Prever, depois conferir
# ---------------------------------------------------------------------------------------------

PREVISAO_PERPENDICULAR = Previsao(
    nome="q·k com q a 165°",
    certo=0.0,
    formato=NumeroAproximado(casas=2),
    revelar="Com q a 165° e k a 75°, há 90° entre as setas: elas são perpendiculares, cos 90° = 0, e q·k = |q| |k| · 0 = 0, "
            "sejam quais forem os comprimentos. Gire q até 165° no painel e confira.",
    erros=[
        Erro("girar não muda q·k", "2,121 é o valor do estado inicial, com 45° entre as setas. Girar q muda o ângulo "
                                   "entre elas, e q·k acompanha o cosseno desse ângulo.", resposta=lambda: 2.121),
        Erro("só os comprimentos", "3 é |q| |k| = 2 · 1,5: o produto dos comprimentos, que seria o q·k com as setas na "
                                   "mesma direção (cos 0° = 1). A 90°, o cosseno é 0.", resposta=lambda: 3.0),
        Erro("perpendicular confundido com oposto", "−3 seria o q·k com as setas em sentidos opostos (180°, cos = −1). "
                                                    "Perpendicular é 90°, e cos 90° = 0.", resposta=lambda: -3.0),
        Erro("165° como o ângulo entre as setas",
             "−2,898 é |q| |k| cos 165°: você usou 165° como o ângulo **entre** as setas. 165° é o ângulo de q com o "
             "eixo horizontal; k está a 75°, então entre elas há 165° − 75°.", resposta=lambda: 3 * math.cos(math.radians(165))),
        Erro("cosseno em radianos",
             "−1,344 é 3 · cos(90) com o 90 lido em **radianos** (np.cos e math.cos esperam radianos, e 90 radianos "
             "não são 90°). Em graus, cos 90° = 0: converta com np.radians(90) antes do cosseno.",
             resposta=lambda: 3 * math.cos(90)),
    ],
    exemplo="1,5",
    # o valor que a revelação imprime, e a frase que diria o ângulo entre as setas
    pistas=("q·k = 0.000", "q·k = -0.000", "0,000", "ficam perpendiculares a 165°", "90° entre as setas"),
)


@corretor_de(PREVISAO_PERPENDICULAR)
def prever_q_165() -> CaixaDePrevisao:
    """A caixa da previsão de ``q·k`` com ``q`` a 165° e ``k`` a 75°, comprimentos 2 e 1,5 (a resposta: ``0``, as
    setas ficam perpendiculares)."""
    return caixa(PREVISAO_PERPENDICULAR)


# ---------------------------------------------------------------------------------------------
# O painel do primeiro contato
# ---------------------------------------------------------------------------------------------


def _sem_menos_zero(x: float, casas: int) -> str:
    texto = f"{x:.{casas}f}"
    return texto[1:] if texto.startswith("-") and float(texto) == 0 else texto


def painel_produto_escalar(angulo_q: float = 30.0, comprimento_q: float = 2.0, angulo_k: float = 75.0,
                           comprimento_k: float = 1.5, *, mover_k: bool = False) -> Painel:
    """O primeiro contato: as setas ``q`` e ``k`` no plano e ``q·k`` ao vivo.

    Sliders: ângulo (graus) e comprimento de ``q`` (e de ``k``, com ``mover_k=True``). O título da figura
    e a tabela embaixo dela trazem ``q·k = q₁k₁ + q₂k₂`` com três casas (2,121 no início, como na
    prosa). Estado: ``q``, ``k`` (arrays ``(2,)``) e ``produto``.
    """
    fig, axes = plots.nova_figura(4.6, 4.6)
    fig.subplots_adjust(left=0.12, right=0.96, bottom=0.1, top=0.9)
    ax = axes[0, 0]
    ax.set_xlim(-3, 3)
    ax.set_ylim(-3, 3)
    ax.set_aspect("equal")
    ax.axhline(0, color=plots.CORES["neutro"], lw=0.8)
    ax.axvline(0, color=plots.CORES["neutro"], lw=0.8)
    seta_q, rotulo_q = plots.seta(ax, plots.CORES["q"], "q")
    seta_k, rotulo_k = plots.seta(ax, plots.CORES["k"], "k")
    titulo = ax.set_title("")
    controles = sliders_polares(angulo_q, comprimento_q, angulo_k, comprimento_k, mover_k)

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        q = polar(v["angulo_q"], v["comprimento_q"])
        k = polar(v.get("angulo_k", angulo_k), v.get("comprimento_k", comprimento_k))
        for seta, rotulo, vetor_ in ((seta_q, rotulo_q, q), (seta_k, rotulo_k, k)):
            seta.xy = (float(vetor_[0]), float(vetor_[1]))
            rotulo.set_position((float(vetor_[0]) * 1.08, float(vetor_[1]) * 1.08))
        produto = float(q @ k)
        titulo.set_text(f"q·k = {_sem_menos_zero(produto, 3)}")
        html = tabela([
            ("q", f"({_sem_menos_zero(q[0], 2)}, {_sem_menos_zero(q[1], 2)})"),
            ("k", f"({_sem_menos_zero(k[0], 2)}, {_sem_menos_zero(k[1], 2)})"),
            ("q·k = q₁k₁ + q₂k₂", _sem_menos_zero(produto, 3)),
        ])
        return {"q": q, "k": k, "produto": produto, "html": html}

    return Painel(fig, controles, calcular, titulo="Produto escalar: quanto q e k apontam para o mesmo lado",
                  animados=[seta_q, rotulo_q, seta_k, rotulo_k, titulo])

