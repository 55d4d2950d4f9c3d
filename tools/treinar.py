"""Treina o modelo de concordância do notebook 09_atencao_aprendida e grava em ``data/``.

Uso (da raiz do repositório)::

    python -m tools.treinar            # treina com RECEITA_COMPLETA, mede e grava data/modelo_concordancia.{npz,json}
    python -m tools.treinar --checar   # treina de novo e só confere contra o que está em data/ (sai com 1 se diferente)

O treino é determinístico a partir da semente da receita (o BLAS roda com uma thread): na mesma
máquina, os parâmetros saem idênticos bit a bit. O JSON guarda a receita, as medidas (em
``N_AVALIACAO`` frases novas, geradas com ``SEMENTE_AVALIACAO``, diferente da semente das frases
de treino) e as impressões digitais SHA-256 dos parâmetros finais e dos primeiros
``PASSOS_VERIFICACAO`` passos, com as perdas desses passos (os testes refazem esse começo). O tempo
de treino é impresso, mas não gravado: assim os arquivos só mudam quando o modelo muda.
"""

from __future__ import annotations

import argparse
import sys
import time

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
from helpers.licoes.aprendida.arquivo import ambiente

SEMENTE_AVALIACAO = 2024
N_AVALIACAO = 1000
PASSOS_VERIFICACAO = 50


def medir(receita=RECEITA_COMPLETA) -> tuple[object, dict, float]:
    """Treina, mede e devolve ``(modelo, metadados, segundos de treino)``."""
    if SEMENTE_AVALIACAO == receita.semente_frases:
        raise ValueError("a semente de avaliação precisa ser diferente da semente das frases de treino.")
    inicio = time.perf_counter()
    treino = treinar(receita)
    segundos = time.perf_counter() - inicio
    modelo = treino.modelo
    comeco = treinar(receita, passos=PASSOS_VERIFICACAO)  # os primeiros passos do mesmo treino
    novas = gerar_frases(N_AVALIACAO, semente=SEMENTE_AVALIACAO)
    analise = analisar_cabecas(modelo, novas)
    base = treinar_sem_atencao(receita)
    meta = {
        "passos": int(len(treino.perdas)),
        "perda_final": float(np.mean(treino.perdas[-50:])),
        "avaliacao": {
            "semente_frases": SEMENTE_AVALIACAO,
            "n_frases": N_AVALIACAO,
            "acuracia": acuracia(modelo, novas),
            "acuracia_sem_treino": acuracia(iniciar_modelo(receita), novas),
            "acuracia_sem_atencao": acuracia(base.modelo, novas),
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.treinar", description=__doc__.splitlines()[0])
    parser.add_argument("--checar", action="store_true", help="só confere contra data/, sem gravar")
    args = parser.parse_args(argv)

    modelo, meta, segundos = medir()
    av = meta["avaliacao"]
    print(f"treino: {meta['passos']} passos em {segundos:.1f} s; perda final {meta['perda_final']:.2e}")
    print(f"acurácia em {av['n_frases']} frases novas: {av['acuracia']:.1%} (sem treino {av['acuracia_sem_treino']:.1%}, "
          f"sem atenção {av['acuracia_sem_atencao']:.1%})")
    for cabeca, m in meta["cabecas"].items():
        print(f"  cabeça {cabeca}: sujeito {m['sujeito']:.3f}, atrator {m['atrator']:.3f}  {'; '.join(m['nomes'])}")
    if args.checar:
        guardado = ler_metadados()
        if guardado.get("ambiente") != meta["ambiente"]:
            print(f"aviso: o modelo de data/ foi treinado em outro ambiente ({guardado.get('ambiente')}); "
                  "bits diferentes são esperados.")
        igual = guardado.get("sha256_parametros") == impressao_digital(modelo.parametros)
        print("igual ao de data/ (bit a bit)" if igual else "DIFERENTE do de data/")
        return 0 if igual else 1
    npz, js = salvar_modelo(modelo, meta)
    print(f"gravados {npz} ({npz.stat().st_size / 1024:.0f} KiB) e {js}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
