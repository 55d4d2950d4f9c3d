"""O link do nbgitpuller que o instrutor distribui à turma.

Quem clica no link entra no JupyterHub, recebe a **sua própria cópia** do repositório na pasta
pessoal (``~/mecanismo-de-atencao``) e cai no notebook pedido. Clicar de novo mais tarde traz as
novidades do repositório sem apagar o que o estudante mudou.

Uso (da raiz do repositório)::

    python turma/link.py https://SEU-HUB https://github.com/USUARIO/REPOSITORIO
    python turma/link.py https://SEU-HUB https://github.com/USUARIO/REPOSITORIO --notebook 05_soma_ponderada

O teste do hub (``tests/hub``) usa esta mesma função para montar o link que os estudantes seguem.
"""

from __future__ import annotations

import argparse
import sys
from urllib.parse import urlencode

#: a pasta, na pasta pessoal de cada estudante, onde fica a cópia do repositório
PASTA = "mecanismo-de-atencao"
#: o notebook em que o link abre, se nenhum outro for pedido
NOTEBOOK = "00_comece_aqui"


def link(hub: str, repositorio: str, ramo: str = "main", notebook: str = NOTEBOOK, pasta: str = PASTA) -> str:
    """O endereço que sincroniza ``repositorio`` (ramo ``ramo``) e abre ``notebook`` no JupyterLab.

    ``hub``: o endereço do JupyterHub (``https://SEU-HUB``); ``notebook``: o nome do arquivo em
    ``notebooks/``, com ou sem ``.ipynb``.
    """
    if not hub.startswith(("http://", "https://")):
        raise ValueError(f"o endereço do hub precisa começar com http:// ou https://; recebi {hub!r}")
    if not repositorio.strip():
        raise ValueError("falta o endereço do repositório (por exemplo, https://github.com/USUARIO/REPOSITORIO)")
    nome = notebook if notebook.endswith(".ipynb") else f"{notebook}.ipynb"
    parametros = {
        "repo": repositorio,
        "branch": ramo,
        "targetpath": pasta,
        "urlpath": f"lab/tree/{pasta}/notebooks/{nome}",
    }
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{urlencode(parametros)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python turma/link.py", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("hub", help="o endereço do JupyterHub, por exemplo https://hub.minha-escola.br")
    parser.add_argument("repositorio", help="o endereço git da coleção, por exemplo https://github.com/USUARIO/REPOSITORIO")
    parser.add_argument("--ramo", default="main", help="o ramo (branch) do repositório (padrão: main)")
    parser.add_argument("--notebook", default=NOTEBOOK, help=f"o notebook que abre (padrão: {NOTEBOOK})")
    args = parser.parse_args(argv)
    try:
        print(link(args.hub, args.repositorio, ramo=args.ramo, notebook=args.notebook))
    except ValueError as erro:
        parser.error(str(erro))
    return 0


if __name__ == "__main__":
    sys.exit(main())
