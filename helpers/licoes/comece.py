"""Lição "Comece aqui" (notebook ``comece_aqui``): a checagem do ambiente, o painel do primeiro contato (só a query se mexe), a primeira caixa de previsão (q·k com q a 165°) e o primeiro exercício, o produto escalar.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from ..corretor import (
    Array,
    Caso,
    Erro,
    Exercicio,
    Numero,
    NumeroAproximado,
    Previsao,
    conferir,
    corretor_de,
)
from ..formato import vetor
from ..previsao import CaixaDePrevisao, caixa
from .produto_escalar import painel_produto_escalar

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
    Requisito("matplotlib", (3, 8), "as figuras"),
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

PRODUTO_ESCALAR = Exercicio(
    nome="produto escalar",
    casos=lambda: [
        Caso(f"com q = {q} e k = {k}", {"q": np.array(q, dtype=float), "k": np.array(k, dtype=float)})
        for q, k in (([1.0, 0.0], [0.5, 0.5]), ([2.0, -1.0, 3.0], [1.0, 4.0, -2.0]), ([3.0, 4.0], [-4.0, 3.0]))
    ],
    certo=lambda q, k: float(q @ k),
    formato=Numero(),
    acerto="Correto! q·k = Σ qᵢkᵢ. Repare no último caso: q = (3, 4) e k = (-4, 3) são perpendiculares e o "
           "produto deu 0.",
    erros=[
        Erro("produto sem a soma",
             lambda q, k: f"Você multiplicou coordenada a coordenada ({vetor(q * k)}), mas esqueceu de **somar** os "
                          "produtos: q·k = q₁k₁ + q₂k₂ + … é um único número.",
             resposta=lambda q, k: q * k, formato=Array()),
        Erro("somou os vetores",
             "Você somou os vetores (q + k). O produto escalar multiplica as coordenadas correspondentes e soma os "
             "produtos.",
             resposta=lambda q, k: q + k, formato=Array()),
        Erro("multiplicou as somas",
             "Você multiplicou as somas (Σq)(Σk). O certo é somar os produtos de cada par de coordenadas: Σ qᵢkᵢ.",
             resposta=lambda q, k: float(q.sum() * k.sum())),
        Erro("só a primeira coordenada",
             "Você usou só a primeira coordenada. Some os produtos de **todas** as coordenadas (um laço ou "
             "np.sum(q * k)).",
             resposta=lambda q, k: float(q[0] * k[0])),
    ],
)


@corretor_de(PRODUTO_ESCALAR)
def check_produto_escalar(fn: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Confere ``fn(q, k)`` = produto escalar ``Σ qᵢ kᵢ`` de dois vetores 1-D (um número).

    Reconhece: produto elemento a elemento sem a soma, soma dos vetores em vez dos produtos,
    produto das somas, e o uso de só uma coordenada.
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
