"""``python -m benchmarks`` (da raiz do repositório): mede e imprime uma tabela; o progresso vai para o stderr.

    python -m benchmarks                    # medições 1 a 4 (uns minutos); --navegador inclui a 5 (~20 min)
    python -m benchmarks --so 5 --raiz DIR  # só a 5, com os notebooks e os helpers de outra cópia do repositório
    python -m benchmarks --readme           # 1 a 5, gravadas em docs/desempenho.md
    python -m benchmarks --rapido           # tamanhos pequenos: confere que tudo roda (os números não valem)
    python -m benchmarks --turma [--rapido] [--readme]   # N estudantes ao mesmo tempo (docs/turma.md)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import RAIZ, Linha, aviso, carga, gravar_na_pagina, linha_maquina, relatorio, resumo_metas, tabela_markdown

NOMES = {"1": "latência dos sliders", "2": "execução dos notebooks", "3": "vazão da atenção",
         "4": "atenção por blocos", "5": "latência no navegador (JupyterLab + Chromium)"}


def medir(secoes: set[str], rapido: bool = False, raiz: Path = RAIZ) -> list[Linha]:
    """Roda as medições pedidas (``"1"`` a ``"5"``), em ordem, e devolve as linhas."""
    from . import blocos, latencia, navegador, notebooks, vazao

    primeiro = [p for p in sorted((raiz / "notebooks").glob("[0-9][0-9]_*.ipynb")) if navegador.paineis_do_notebook(p)][:1]
    medicoes = {
        "1": lambda: latencia.medir_latencia(n_movimentos=4 if rapido else 30),
        "2": lambda: notebooks.medir_notebooks(primeiro if rapido else None, rodadas=1 if rapido else 2),
        "3": lambda: vazao.medir_vazao(ns=(128, 256), rodadas=2) if rapido else vazao.medir_vazao(),
        "4": lambda: blocos.medir_blocos(ns=(512, 1024), n_meta_memoria=1024) if rapido else blocos.medir_blocos(),
        "5": lambda: navegador.medir_navegador(primeiro if rapido else None, n_teclas=2 if rapido else 10, raiz=raiz),
    }
    linhas: list[Linha] = []
    for secao in sorted(secoes):
        aviso(f"{secao} · {NOMES[secao]} …")
        linhas += medicoes[secao]()
    return linhas


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readme", action="store_true", help="grava em docs/desempenho.md (ou docs/turma.md)")
    parser.add_argument("--rapido", action="store_true", help="tamanhos pequenos, só para conferir que tudo roda")
    parser.add_argument("--navegador", action="store_true", help="inclui a medição 5, no navegador")
    parser.add_argument("--so", default=None, help="quais medições, separadas por vírgula (padrão: 1,2,3,4)")
    parser.add_argument("--raiz", type=Path, default=RAIZ, help="outra cópia do repositório (só a medição 5)")
    parser.add_argument("--turma", action="store_true", help="N estudantes ao mesmo tempo (kernels de verdade)")
    args = parser.parse_args(argv)
    secoes = {s.strip() for s in (args.so or "1,2,3,4").split(",") if s.strip()} | ({"5"} if args.navegador else set())
    if not secoes <= set(NOMES):
        parser.error(f"--so aceita {', '.join(NOMES)}; recebi {args.so!r}")
    if args.readme and (args.rapido or args.so is not None or args.raiz.resolve() != RAIZ):
        parser.error("--readme só grava uma medição completa deste repositório (sem --rapido, --so nem --raiz)")
    if args.turma:
        from . import turma

        print(turma.executar(rapido=args.rapido, readme=args.readme), end="")
        return 0
    carga_inicio, inicio = carga(), time.perf_counter()
    linhas = medir(secoes | ({"5"} if args.readme else set()), rapido=args.rapido, raiz=args.raiz.resolve())
    texto = relatorio("desempenho", maquina=linha_maquina(), carga_inicio=carga_inicio, carga_fim=carga(),
                      minutos=f"{(time.perf_counter() - inicio) / 60:.1f}", tabela=tabela_markdown(linhas),
                      metas=resumo_metas(linhas))
    print(texto)
    if args.readme:
        gravar_na_pagina(texto, RAIZ / "docs" / "desempenho.md", "desempenho")
        aviso("docs/desempenho.md: medição atualizada")
    return 0


if __name__ == "__main__":
    sys.exit(main())
