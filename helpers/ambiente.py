"""Checagem do ambiente: as versões encontradas e o que fazer quando algo falta ou é antigo."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import metadata

INSTALAR = "pip install -r requirements.txt"


@dataclass(frozen=True)
class Requisito:
    pacote: str  # nome de distribuição (pip)
    minima: tuple[int, ...]
    para_que: str


REQUISITOS = [
    Requisito("numpy", (2, 0), "as contas de atenção"),
    Requisito("matplotlib", (3, 8), "as figuras"),
    Requisito("ipywidgets", (8, 1), "os sliders"),
    Requisito("ipykernel", (6, 29), "o kernel do Jupyter"),
    Requisito("jupyterlab", (4, 2), "a interface (JupyterLab 4)"),
    Requisito("nbval", (0, 11), "a validação automática dos notebooks (só para quem contribui)"),
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
        if versao is None:
            tudo_ok = False
            linhas.append(f"❌ {req.pacote} não encontrado ({req.para_que}). Rode no terminal: {INSTALAR}")
        elif _versao(versao) < req.minima:
            tudo_ok = False
            linhas.append(f"⚠️ {req.pacote} {versao} é antigo demais (precisa de {minima} ou mais novo, "
                          f"para {req.para_que}). Atualize com: {INSTALAR} --upgrade")
        else:
            linhas.append(f"✅ {req.pacote} {versao}")
    print("\n".join(linhas))
    if tudo_ok:
        print("Tudo certo: pode seguir a trilha!")
    else:
        print("Algo precisa de atenção (veja acima). Depois de instalar, reinicie o kernel "
              "(menu Kernel › Restart Kernel) e rode esta célula de novo.")
    return tudo_ok
