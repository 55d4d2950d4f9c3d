"""O padrão de estabilidade é um só: todo corretor que calcula uma softmax derruba cada softmax instável."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

from helpers import estabilidade
from helpers.corretor import Exercicio
from tools import notebooks as tn

NOMES_INSTAVEIS = {e.nome for e in estabilidade.erros_de_estabilidade(lambda trocar, **e: None)}


def _exercicios_com_softmax() -> list[tuple[str, Exercicio]]:
    achados = {}
    for etapa in tn.TRILHA:
        modulo = tn.modulo_da_licao(etapa)
        for nome in dir(modulo):
            f = getattr(modulo, nome)
            ex = getattr(f, "exercicio", None)
            if isinstance(ex, Exercicio) and NOMES_INSTAVEIS & set(ex.nomes_dos_erros()):
                achados[ex.nome] = (f"{etapa.licao}.{nome}", ex)
    return sorted(achados.values(), key=lambda t: t[0])


EXERCICIOS = _exercicios_com_softmax()


def test_every_softmax_grader_uses_the_whole_standard():
    assert len(EXERCICIOS) >= 8, [n for n, _ in EXERCICIOS]
    for nome, ex in EXERCICIOS:
        assert NOMES_INSTAVEIS <= set(ex.nomes_dos_erros()), f"{nome}: falta parte do padrão de estabilidade"


@pytest.mark.parametrize(("nome", "ex"), EXERCICIOS, ids=[n for n, _ in EXERCICIOS])
def test_each_unstable_softmax_fails_some_case(nome, ex):
    """Para cada jeito instável, algum caso do corretor o derruba (dá NaN, inf ou outro número que o certo)."""
    for erro in (e for e in ex.erros if e.nome in NOMES_INSTAVEIS):
        derrubada = False
        for caso in ex.casos():
            certo = ex.formato.normalizar(ex.certo(**copy.deepcopy(caso.entradas)))
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                try:
                    errada = erro.resposta(**copy.deepcopy(caso.entradas))
                except Exception:  # noqa: BLE001 - a versão instável quebrou: derrubada
                    derrubada = True
                    break
            if errada is None:
                continue
            formato = erro.formato or ex.formato
            if not formato.igual(formato.normalizar(errada), certo):
                derrubada = True
                break
        assert derrubada, f"{nome}: nenhum caso derruba «{erro.nome}»"
