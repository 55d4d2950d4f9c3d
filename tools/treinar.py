"""Treina o modelo de concordância do notebook 09_atencao_aprendida e grava em ``data/``.

Uso (da raiz do repositório)::

    python -m tools.treinar            # treina com RECEITA_COMPLETA (semente 0) e mais 4 sementes, mede e grava
                                       # data/modelo_concordancia.{npz,json} e data/sementes_concordancia.json
    python -m tools.treinar --checar   # treina de novo e só confere contra o que está em data/ (sai com 1 se diferente)

O treino é determinístico a partir da semente da receita (o BLAS roda com uma thread): na mesma
máquina, os parâmetros saem idênticos bit a bit. O JSON do modelo guarda a receita, as medidas (em
``N_AVALIACAO`` frases de avaliação, geradas com ``SEMENTE_AVALIACAO`` e do lado "avaliacao" da divisão
de :func:`~helpers.licoes.aprendida.frases.conjunto_da_frase`: nenhuma está no treino) e as impressões
digitais SHA-256 dos parâmetros finais e dos primeiros ``PASSOS_VERIFICACAO`` passos, com as perdas desses
passos (os testes refazem esse começo). A tabela das sementes guarda, para cada uma de ``SEMENTES``, a linha
de :func:`~helpers.licoes.aprendida.analise.medir_semente` e a impressão digital dos parâmetros. O tempo de
treino é impresso, mas não gravado: assim os arquivos só mudam quando o modelo muda.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

import numpy as np

from helpers.licoes.aprendida import (
    RECEITA_COMPLETA,
    acuracia,
    analisar_cabecas,
    gerar_frases,
    impressao_digital,
    iniciar_modelo,
    ler_metadados,
    nomear_cabecas,
    salvar_modelo,
    treinar,
    treinar_sem_atencao,
)
from helpers.licoes.aprendida.analise import (
    acuracia_bigramas,
    acuracia_por_atrator,
    acuracia_regra_do_artigo,
    medir_semente,
)
from helpers.licoes.aprendida.arquivo import ambiente, ler_sementes, salvar_sementes
from helpers.licoes.aprendida.frases import N_AVALIACAO, SEMENTE_AVALIACAO, frases_de_avaliacao

PASSOS_VERIFICACAO = 50
#: as sementes da tabela (a 0 é a do modelo de data/)
SEMENTES = (0, 1, 2, 3, 4)
#: quantas frases de treino a linha de base de bigramas usa
N_BIGRAMAS = 4000

__all__ = ["N_AVALIACAO", "PASSOS_VERIFICACAO", "SEMENTES", "SEMENTE_AVALIACAO", "linha_da_semente", "main", "medir"]


def medir(receita=RECEITA_COMPLETA) -> tuple[object, dict, float]:
    """Treina, mede e devolve ``(modelo, metadados, segundos de treino)``."""
    if SEMENTE_AVALIACAO == receita.semente_frases:
        raise ValueError("a semente de avaliação precisa ser diferente da semente das frases de treino.")
    inicio = time.perf_counter()
    treino = treinar(receita)
    segundos = time.perf_counter() - inicio
    modelo = treino.modelo
    comeco = treinar(receita, passos=PASSOS_VERIFICACAO)  # os primeiros passos do mesmo treino
    novas = frases_de_avaliacao()
    analise = analisar_cabecas(modelo, novas)
    base = treinar_sem_atencao(receita)
    treino_bigramas = gerar_frases(N_BIGRAMAS, semente=receita.semente_frases, conjunto="treino")
    meta = {
        "passos": int(len(treino.perdas)),
        "perda_final": float(np.mean(treino.perdas[-50:])),
        "avaliacao": {
            "semente_frases": SEMENTE_AVALIACAO,
            "n_frases": N_AVALIACAO,
            "conjunto": "avaliacao",
            "acuracia": acuracia(modelo, novas),
            "acuracia_sem_treino": acuracia(iniciar_modelo(receita), novas),
            "acuracia_sem_atencao": acuracia(base.modelo, novas),
            "por_atrator": acuracia_por_atrator(modelo, novas),
            "regra_do_artigo": acuracia_regra_do_artigo(novas),
            "bigramas": acuracia_bigramas(treino_bigramas, novas),
        },
        "cabecas": {
            f"{c}·{h}": {
                **{nome: round(float(valor[c, h]), 4) for nome, valor in analise.medidas.items()},
                "nomes": nomes,
            }
            for (c, h), nomes in nomear_cabecas(analise).items()
        },
        "cabecas_atencao_uniforme": {nome: round(float(valor[0, 0]), 4) for nome, valor in analise.uniforme.items()},
        "verificacao": {
            "passos": PASSOS_VERIFICACAO,
            "perdas": [float(x) for x in comeco.perdas],
            "sha256": impressao_digital(comeco.modelo.parametros),
        },
        "ambiente": ambiente(),
    }
    return modelo, meta, segundos


def linha_da_semente(semente: int, modelo=None) -> dict:
    """Treina a receita completa com ``semente`` (ou usa ``modelo``, já treinado com ela) e devolve a linha
    da tabela: ``{"semente", "sha256", **medir_semente(...)}``."""
    if modelo is None:
        modelo = treinar(replace(RECEITA_COMPLETA, semente=semente)).modelo
    return {"semente": semente, **medir_semente(modelo, frases_de_avaliacao()),
            "sha256": impressao_digital(modelo.parametros)}


def _imprimir_linha(ln: dict) -> None:
    print(f"  semente {ln['semente']}: acurácia {ln['acuracia']:.1%}; mais olha o sujeito: {ln['cabeca']} "
          f"({ln['sujeito']:.2f} sujeito, {ln['atrator']:.2f} atrator); zerada {ln['acuracia_sem_ela']:.1%}; "
          f"remendada {ln['segue_com_remendo']:.1%} seguem; mais necessária {ln['mais_necessaria']} "
          f"({ln['acuracia_sem_a_mais_necessaria']:.1%} sem ela)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.treinar", description=__doc__.splitlines()[0])
    parser.add_argument("--checar", action="store_true", help="só confere contra data/, sem gravar")
    args = parser.parse_args(argv)

    modelo, meta, segundos = medir()
    av = meta["avaliacao"]
    print(f"treino: {meta['passos']} passos em {segundos:.1f} s; perda final {meta['perda_final']:.2e}")
    print(f"acurácia em {av['n_frases']} frases novas: {av['acuracia']:.1%} (sem treino {av['acuracia_sem_treino']:.1%}, "
          f"sem atenção {av['acuracia_sem_atencao']:.1%}; regra do artigo {av['regra_do_artigo']:.1%}, "
          f"bigramas {av['bigramas']:.1%})")
    for cabeca, m in meta["cabecas"].items():
        print(f"  cabeça {cabeca}: sujeito {m['sujeito']:.3f}, atrator {m['atrator']:.3f}  {'; '.join(m['nomes'])}")
    linhas = []
    for semente in SEMENTES:
        inicio = time.perf_counter()
        linha = linha_da_semente(semente, modelo if semente == RECEITA_COMPLETA.semente else None)
        linhas.append(linha)
        _imprimir_linha(linha)
        print(f"    ({time.perf_counter() - inicio:.1f} s)")
    tabela = {"receita": {k: v for k, v in RECEITA_COMPLETA.como_dict().items() if k != "semente"},
              "avaliacao": {"semente_frases": SEMENTE_AVALIACAO, "n_frases": N_AVALIACAO, "conjunto": "avaliacao"},
              "linhas": linhas, "ambiente": ambiente()}
    if args.checar:
        guardado = ler_metadados()
        if guardado.get("ambiente") != meta["ambiente"]:
            print(f"aviso: o modelo de data/ foi treinado em outro ambiente ({guardado.get('ambiente')}); "
                  "bits diferentes são esperados.")
        igual = guardado.get("sha256_parametros") == impressao_digital(modelo.parametros)
        igual_tabela = ler_sementes().get("linhas") == linhas
        print("modelo igual ao de data/ (bit a bit)" if igual else "modelo DIFERENTE do de data/")
        print("tabela das sementes igual à de data/" if igual_tabela else "tabela das sementes DIFERENTE da de data/")
        return 0 if igual and igual_tabela else 1
    npz, js = salvar_modelo(modelo, meta)
    sementes = salvar_sementes(tabela)
    print(f"gravados {npz} ({npz.stat().st_size / 1024:.0f} KiB), {js} e {sementes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
