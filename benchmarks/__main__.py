"""``python -m benchmarks``: mede tudo, num processo só, e imprime uma tabela.

Uso (da raiz do repositório)::

    python -m benchmarks              # mede e imprime a tabela (uns minutos)
    python -m benchmarks --navegador  # idem, mais a latência no navegador (JupyterLab + Chromium; ~10 min)
    python -m benchmarks --readme     # tudo (com o navegador), e grava a tabela na seção "Desempenho" do README
    python -m benchmarks --rapido     # tamanhos pequenos: confere que tudo roda (os números não valem)
    python -m benchmarks --so 1,3     # só algumas medições (1 sliders, 2 notebooks, 3 vazão, 4 blocos,
                                      # 5 navegador)
    python -m benchmarks --turma      # N estudantes ao mesmo tempo (N = 1, 5, 10, 20, 40; uns 20 minutos)
    python -m benchmarks --turma --rapido   # N = 1 e 2, para conferir que roda
    python -m benchmarks --turma --readme   # idem a --turma, e grava o trecho da turma no README

Sem Chromium (ou sem o pacote playwright), a medição 5 vira uma linha dizendo o que falta.

O progresso vai para o stderr; a tabela, para o stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import date
from pathlib import Path

from . import Linha, linha_maquina, notas, resumo_metas, tabela_markdown

RAIZ = Path(__file__).resolve().parent.parent
#: a página que ``--readme`` reescreve (entre os marcadores): docs/desempenho.md, ligada no README
README = RAIZ / "docs" / "desempenho.md"
INICIO, FIM = "<!-- desempenho:inicio -->", "<!-- desempenho:fim -->"
COMANDO = "python -m benchmarks"


def _aviso(texto: str) -> None:
    print(texto, file=sys.stderr, flush=True)


def _carga() -> str:
    try:
        um, cinco, _ = os.getloadavg()
    except (AttributeError, OSError):
        return ""
    return f"carga média {um:.1f} (1 min) / {cinco:.1f} (5 min)"


def medir(secoes: set[str], rapido: bool = False) -> list[Linha]:
    """Roda as medições pedidas (``"1"`` a ``"5"``) e devolve as linhas, na ordem."""
    import numpy as np

    linhas: list[Linha] = []
    if "1" in secoes:
        from . import latencia

        _aviso("1 · latência dos sliders …")
        linhas += latencia.medir_latencia(n_movimentos=4 if rapido else 30)
    if "2" in secoes:
        from . import notebooks

        _aviso("2 · execução dos notebooks …")
        arquivos = sorted(notebooks.PASTA.glob("*.ipynb"))[:1] if rapido else None
        linhas += notebooks.medir_notebooks(arquivos, rodadas_base=1 if rapido else 2, rodadas=1 if rapido else 2)
    if "3" in secoes:
        from . import vazao

        _aviso("3 · vazão da atenção …")
        if rapido:
            linhas += vazao.medir_vazao(ns=(128, 256), tipos=(np.float32,), n_ingenua=64, rodadas=2)
        else:
            linhas += vazao.medir_vazao()
    if "4" in secoes:
        from . import blocos

        _aviso("4 · atenção por blocos …")
        linhas += blocos.medir_blocos(ns=(512, 1024), n_meta_memoria=1024) if rapido else blocos.medir_blocos()
    if "5" in secoes:
        from . import navegador

        _aviso("5 · latência no navegador (JupyterLab + Chromium) …")
        if rapido:
            com_painel = [p for p in sorted(navegador.RAIZ.glob("notebooks/[0-9][0-9]_*.ipynb"))
                          if navegador.paineis_do_notebook(p)][:1]
            linhas += navegador.medir_navegador(com_painel, n_teclas=2)
        else:
            linhas += navegador.medir_navegador()
    return linhas


def relatorio(linhas: list[Linha], maquina: str, carga_inicio: str, duracao_s: float) -> str:
    """O texto que o comando imprime (e que vai para o README)."""
    partes = [maquina]
    if carga_inicio:  # uma linha em branco no meio: dois parágrafos também no Markdown do README
        partes += ["", f"{carga_inicio} no início · {_carga()} no fim · medição completa em {duracao_s / 60:.1f} min"]
    partes += ["", tabela_markdown(linhas), "", resumo_metas(linhas), ""]
    partes += [f"- {n}" for n in notas(linhas)]
    return "\n".join(partes)


def secao_readme(texto: str, hoje: date | None = None) -> str:
    """O conteúdo entre os marcadores do README."""
    hoje = hoje or date.today()
    return (
        f"Medido em {hoje.isoformat()} com `{COMANDO} --readme`, que reescreve esta seção (só medir: "
        f"`{COMANDO}`, uns minutos, ou `{COMANDO} --navegador`, uns quinze, com a medição no navegador, que usa o "
        "Chromium do sistema; da raiz do repositório, com o ambiente de `requirements-dev.txt`). "
        "As máquinas são barulhentas, então o que vale são as razões medidas na mesma execução: contra o teto "
        "do numpy, contra um notebook-base, contra a atenção exata e, no navegador, contra um painel-referência "
        "(um slider e uma figura do mesmo tamanho). O benchmark relata; não reprova nada.\n\n"
        f"{texto}"
    )


def gravar_readme(conteudo: str, caminho: Path = README, inicio: str = INICIO, fim: str = FIM) -> None:
    """Troca só o que está entre ``<!-- desempenho:inicio -->`` e ``<!-- desempenho:fim -->`` (ou ``inicio``/``fim``)."""
    texto = caminho.read_text(encoding="utf-8")
    if texto.count(inicio) != 1 or texto.count(fim) != 1:
        raise SystemExit(f"{caminho.name} precisa ter os marcadores {inicio} e {fim}, uma vez cada")
    antes, resto = texto.split(inicio, 1)
    _, depois = resto.split(fim, 1)
    caminho.write_text(f"{antes}{inicio}\n{conteudo.strip()}\n{fim}{depois}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMANDO, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readme", action="store_true", help="grava a tabela em docs/desempenho.md")
    parser.add_argument("--rapido", action="store_true", help="tamanhos pequenos, só para conferir que tudo roda")
    parser.add_argument("--navegador", action="store_true",
                        help="inclui a medição 5: latência no navegador (JupyterLab + Chromium do sistema)")
    parser.add_argument("--so", default=None, help="quais medições, separadas por vírgula (padrão: 1,2,3,4; "
                                                  "5 é a do navegador)")
    parser.add_argument("--turma", action="store_true",
                        help="N estudantes ao mesmo tempo (kernels de verdade); com --readme, grava o trecho da turma")
    args = parser.parse_args(argv)
    if args.turma:
        from . import turma

        if args.readme and args.rapido:
            parser.error("--turma --readme só grava uma medição completa (sem --rapido)")
        print(turma.executar(rapido=args.rapido, readme=args.readme, aviso=_aviso), end="")
        return 0
    secoes = {s.strip() for s in (args.so or "1,2,3,4").split(",") if s.strip()}
    if not secoes <= {"1", "2", "3", "4", "5"}:
        parser.error(f"--so aceita 1, 2, 3, 4 e 5; recebi {args.so!r}")
    if args.readme and (args.rapido or args.so is not None):
        parser.error("--readme só grava uma medição completa (sem --rapido nem --so)")
    if args.navegador or args.readme:
        secoes.add("5")

    maquina, carga = linha_maquina(), _carga()
    inicio = time.perf_counter()
    linhas = medir(secoes, rapido=args.rapido)
    texto = relatorio(linhas, maquina, carga, time.perf_counter() - inicio)
    print(texto)
    if args.readme:
        gravar_readme(secao_readme(texto))
        _aviso(f"docs/desempenho.md: medição atualizada ({README})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
