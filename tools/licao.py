"""Uma lição nova com um comando: notebook, módulo da lição, arquivo de testes, seção do guia e mapa.

Uso (da raiz do repositório)::

    python -m tools.licao nova 11_atencao_esparsa --titulo "Atenção esparsa" \\
        --resumo "padrões fixos de esparsidade e o que eles custam" --modulo esparsa

Cria, seguindo as convenções da coleção:

- ``notebooks/11_atencao_esparsa.ipynb``: título, navegação, **Objetivos**, duas seções numeradas, **Resumo**
  e **Exercícios** (um esqueleto, a célula de correção, duas dicas em escada e a solução dobrada);
- ``helpers/licoes/esparsa.py``: o módulo da lição, com um exercício de exemplo declarado no corretor;
- ``tests/licoes/test_esparsa.py``: testes do corretor de exemplo (o certo passa, o erro clássico tem nome);
- uma seção no ``docs/guia_do_instrutor.md`` e a etapa na trilha, ``tools/trilha.json`` (o mapa do
  README e do notebook 00 e a navegação de todos os notebooks são regenerados).

Se o número já existe, a lição entra **nessa posição** e os notebooks seguintes andam uma casa (arquivos
renomeados, trilha e guia renumerados); as referências em prosa ("notebook 09") não são trocadas
sozinhas — o comando lista onde elas estão. Depois, escreva o conteúdo e rode
``python -m tools.notebooks executar notebooks/11_atencao_esparsa.ipynb``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import uuid
from dataclasses import replace
from pathlib import Path

from tools import notebooks as tn

SLUG = re.compile(r"^(\d\d)_[a-z0-9_]+$")
MODULO = re.compile(r"^[a-z][a-z0-9_]*$")


def _md(fonte: str, **meta: object) -> dict:
    return {"cell_type": "markdown", "id": uuid.uuid4().hex[:8], "metadata": dict(meta), "source": fonte.splitlines(True)}


def _code(fonte: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": uuid.uuid4().hex[:8], "metadata": {}, "outputs": [],
            "source": fonte.splitlines(True)}


def esqueleto_do_notebook(numero: str, titulo: str, modulo: str) -> dict:
    """O notebook inicial da lição, com todas as seções que a coleção exige."""
    cells = [
        _md(f"# {numero} · {titulo}\n\nUma frase que diz ao estudante o que ele vai ver e por que isso importa."),
        _md("## Objetivos\n\nAo final deste notebook você vai saber:\n\n- a primeira ideia;\n- a segunda ideia."),
        _code(f"import matplotlib.pyplot as plt\nimport numpy as np\n\nfrom helpers import attention, plots\n"
              f"from helpers.licoes import {modulo} as licao\n\nnp.set_printoptions(precision=4, suppress=True)"),
        _md("## 1. A primeira ideia\n\nExplique com um exemplo pequeno, cujos números o estudante confere à mão."),
        _code("x = np.array([1.0, 2.0, 3.0])\nx"),
        _md("## 2. A segunda ideia\n\nToda afirmação vem com uma conta ou uma figura."),
        _code("fig, ax = plt.subplots(figsize=(5, 3))\nax.plot(x, 2 * x, \"o-\")\nplt.show()"),
        _md("## Resumo (para levar)\n\n- Uma linha por ideia."),
        _md("## Exercícios\n\n### Exercício 1 — dobre um vetor\n\nComplete `dobro(x)`, que devolve cada número de "
            "`x` multiplicado por 2."),
        _code("def dobro(x):\n    \"\"\"Cada número de x multiplicado por 2.\"\"\"\n    raise NotImplementedError(\"complete aqui\")"),
        _code("ok = licao.check_dobro(dobro)"),
        _md("<details><summary>💡 Dica 1 (a ideia)</summary>\n\nO numpy multiplica um array inteiro por um número "
            "de uma vez.\n\n</details>\n\n<details><summary>💡 Dica 2 (mais perto)</summary>\n\nNão precisa de laço: "
            "uma conta só, com `*`.\n\n</details>\n\n<details><summary>✅ Solução</summary>\n\n```python\n"
            "def dobro(x):\n    \"\"\"Cada número de x multiplicado por 2.\"\"\"\n    return 2 * x\n```\n\n</details>"),
    ]
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                         "name": "python3"},
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def modulo_da_licao(arquivo: str, titulo: str) -> str:
    return f'''"""Lição "{titulo}" (notebook ``{arquivo[3:-6]}``): os painéis, as figuras e os corretores dele.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..corretor import Caso, Erro, Exercicio, conferir, corretor_de

DOBRO = Exercicio(
    nome="dobro",
    casos=lambda: [Caso("com x = [1, 2, 3]", {{"x": np.array([1.0, 2.0, 3.0])}}),
                   Caso("com uma matriz (2, 2)", {{"x": np.array([[1.0, -2.0], [0.5, 4.0]])}})],
    certo=lambda x: 2 * x,
    acerto="Correto! 2·x, de uma vez, sem laço.",
    erros=[Erro("somou 2", "Você somou 2 a cada número; dobrar é multiplicar por 2.", resposta=lambda x: x + 2)],
)


@corretor_de(DOBRO)
def check_dobro(fn: Callable[[np.ndarray], Any]) -> bool:
    """Confere ``fn(x)`` = ``2·x`` (mesma forma de ``x``); os casos e os erros vêm de DOBRO, no fim deste texto."""
    return conferir(DOBRO, fn)
'''


def testes_da_licao(modulo: str, arquivo: str) -> str:
    return f'''"""Notebook {arquivo}: o corretor de exemplo aceita o certo e dá nome ao erro clássico."""

import numpy as np

from helpers.corretor import corrigir
from helpers.licoes.{modulo} import DOBRO


def test_right_answers_pass():
    assert corrigir(DOBRO, lambda x: 2 * x).ok
    assert corrigir(DOBRO, lambda x: (x + x).tolist()).ok


def test_classic_mistake_is_named():
    assert corrigir(DOBRO, lambda x: x + 2).erro == "somou 2"
    assert not corrigir(DOBRO, lambda x: np.zeros(3)).ok
'''


def secao_do_guia(numero: str, titulo: str) -> str:
    return (f"## {numero} · {titulo}\n\n**Tempo:** — minutos.\n\n**Demonstração ao vivo.** O que mostrar no painel, "
            "e a previsão a pedir antes de mexer.\n\n**Perguntas para discussão.**\n\n1. Uma pergunta.\n2. Outra.\n\n"
            "**Equívoco a vigiar.** O equívoco mais comum desta ideia.\n\n---\n\n")


def _git_mv(raiz: Path, de: Path, para: Path) -> None:
    em_git = subprocess.run(["git", "ls-files", "--error-unmatch", str(de)], cwd=raiz, capture_output=True).returncode == 0
    if em_git:
        subprocess.run(["git", "mv", str(de), str(para)], cwd=raiz, check=True)
    else:
        de.rename(para)


def nova(raiz: Path, slug: str, titulo: str, resumo: str, modulo: str) -> list[str]:
    """Cria a lição ``slug`` (``NN_nome``) em ``raiz``; devolve avisos para quem rodou o comando."""
    if not SLUG.match(slug):
        raise SystemExit(f"o nome precisa ser NN_nome_em_minusculas (como 11_atencao_esparsa); recebi {slug!r}")
    if not MODULO.match(modulo):
        raise SystemExit(f"o módulo precisa ser um nome Python em minúsculas (como esparsa); recebi {modulo!r}")
    if "|" in titulo + resumo:
        raise SystemExit("título e resumo não podem ter '|' (partiria a tabela do mapa)")
    pasta, licoes, testes = raiz / "notebooks", raiz / "helpers" / "licoes", raiz / "tests" / "licoes"
    guia, arquivo_da_trilha = raiz / "docs" / "guia_do_instrutor.md", raiz / "tools" / "trilha.json"
    if (licoes / f"{modulo}.py").exists():
        raise SystemExit(f"já existe helpers/licoes/{modulo}.py")
    if (licoes / modulo).is_dir():
        raise SystemExit(f"já existe helpers/licoes/{modulo}/ (uma lição em pacote)")
    existentes = sorted(p.name for p in pasta.glob("*.ipynb"))
    numero = int(slug[:2])
    if numero > len(existentes):
        raise SystemExit(f"o próximo número livre é {len(existentes):02d}; recebi {numero:02d}")
    trilha = tn.ler_trilha(arquivo_da_trilha)
    texto_guia = guia.read_text(encoding="utf-8")
    avisos = []
    # os notebooks de `numero` em diante andam uma casa (do último para o primeiro)
    for nome in reversed(existentes[numero:]):
        novo = f"{int(nome[:2]) + 1:02d}{nome[2:]}"
        _git_mv(raiz, pasta / nome, pasta / novo)
        trilha = [replace(e, arquivo=novo) if e.arquivo == nome else e for e in trilha]
        texto_guia = texto_guia.replace(f"\n## {nome[:2]} · ", f"\n## {novo[:2]} · ")
        avisos.append(f"{nome} virou {novo}: confira as referências a 'notebook {nome[:2]}' na prosa")
    arquivo = f"{slug}.ipynb"
    trilha.insert(numero, tn.Etapa(arquivo, titulo, resumo, modulo))
    if numero < len(existentes):
        seguinte = f"{numero + 1:02d}{existentes[numero][2:]}"
        texto_guia = texto_guia.replace(f"\n## {seguinte[:2]} · ", "\n" + secao_do_guia(slug[:2], titulo) + f"## {seguinte[:2]} · ", 1)
    else:
        texto_guia = texto_guia.rstrip() + "\n\n---\n\n" + secao_do_guia(slug[:2], titulo).rstrip("-\n") + "\n"
    tn.gravar_trilha(trilha, arquivo_da_trilha)
    guia.write_text(texto_guia, encoding="utf-8")
    (pasta / arquivo).write_text(json.dumps(esqueleto_do_notebook(slug[:2], titulo, modulo), ensure_ascii=False,
                                            indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (licoes / f"{modulo}.py").write_text(modulo_da_licao(arquivo, titulo), encoding="utf-8")
    testes.mkdir(parents=True, exist_ok=True)
    (testes / f"test_{modulo}.py").write_text(testes_da_licao(modulo, arquivo), encoding="utf-8")
    return avisos


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="comando", required=True)
    n = sub.add_parser("nova", help="cria uma lição nova (notebook, módulo, testes, guia, mapa)")
    n.add_argument("slug", help="NN_nome, por exemplo 11_atencao_esparsa")
    n.add_argument("--titulo", required=True)
    n.add_argument("--resumo", required=True, help="o que o estudante leva (uma linha do mapa)")
    n.add_argument("--modulo", required=True, help="o nome do módulo em helpers/licoes/, pelo tema")
    args = parser.parse_args(argv)
    avisos = nova(tn.RAIZ, args.slug, args.titulo, args.resumo, args.modulo)
    import importlib

    importlib.reload(tn)  # a trilha mudou no disco
    tn.atualizar_tudo()
    print(f"criados: notebooks/{args.slug}.ipynb, helpers/licoes/{args.modulo}.py, tests/licoes/test_{args.modulo}.py;"
          " guia, trilha, mapa e navegação atualizados")
    for aviso in avisos:
        print("atenção:", aviso)
    print(f"agora escreva a lição e rode: python -m tools.notebooks executar notebooks/{args.slug}.ipynb")
    return 0


if __name__ == "__main__":
    sys.exit(main())
