"""O padrão de estabilidade é um só: todo corretor que calcula uma softmax derruba cada softmax instável."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

from helpers import estabilidade
from helpers.attention import softmax
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


# --- o padrão da linha toda mascarada (as peças que os corretores com máscara usam) ------------------


def test_linhas_sem_key_permitida():
    m = np.array([[False, False, False], [True, False, True]])
    np.testing.assert_array_equal(estabilidade.linhas_sem_key_permitida(m, (2, 4), 3), [[True] * 4, [False] * 4])
    # máscara de padding (b, 1, n) num lote (b, n_q, d_v): uma frase sem nenhum token de verdade
    pad = np.array([[[True, True, False]], [[False, False, False]]])
    livres = estabilidade.linhas_sem_key_permitida(pad, (2, 3, 2), 3)
    assert livres.shape == (2, 3, 2) and not livres[0].any() and livres[1].all()
    assert not estabilidade.linhas_sem_key_permitida(None, (2, 2), 3).any()
    assert estabilidade.linhas_sem_key_permitida(np.zeros(3, dtype=bool), (4,), 3).all()


def test_formato_com_linhas_livres_aceita_qualquer_finito_so_nas_livres():
    f = estabilidade.SaidaComLinhasLivres()
    certo = estabilidade.ComLinhasLivres(np.array([[0.0, 0.0], [1.0, 2.0]]), np.array([[True, True], [False, False]]))
    assert f.igual(f.normalizar(np.array([[5.0, -3.0], [1.0, 2.0]])), certo)       # média dos values, por exemplo
    assert f.igual(f.normalizar((np.array([[0.0, 0.0], [1.0, 2.0]]), np.eye(2))), certo)  # o par (saída, pesos)
    assert not f.igual(f.normalizar(np.array([[np.nan, 0.0], [1.0, 2.0]])), certo)  # NaN na linha livre, não
    assert not f.igual(f.normalizar(np.array([[0.0, 0.0], [1.0, 2.5]])), certo)     # o resto continua exato
    assert not f.igual(f.normalizar(np.zeros((3, 2))), certo)
    assert "*" in f.mostrar(certo) and "qualquer número finito" in f.mostrar(certo)
    assert f.forma(certo) == (2, 2)


def test_erro_nan_na_linha_mascarada_so_reconhece_nan_so_nas_linhas_livres():
    erro = estabilidade.erro_nan_na_linha_mascarada()
    certo = estabilidade.ComLinhasLivres(np.array([[0.0, 0.0], [1.0, 2.0]]), np.array([[True, True], [False, False]]))
    caso = estabilidade.caso_linha_toda_mascarada()
    assert erro.quando(np.array([[np.nan, np.nan], [1.0, 2.0]]), certo, caso)
    assert not erro.quando(np.array([[np.nan, np.nan], [np.nan, 2.0]]), certo, caso)  # NaN fora da linha livre
    assert not erro.quando(np.array([[np.nan, np.nan], [1.0, 3.0]]), certo, caso)     # e o resto errado
    assert not erro.quando(np.array([[0.0, 0.0], [1.0, 2.0]]), certo, caso)           # sem NaN nenhum
    assert not erro.quando(np.array([[np.nan, 0.0], [1.0, 2.0]]), np.zeros((2, 2)), caso)


def test_com_linhas_livres_marca_so_onde_a_resposta_errada_e_finita():
    livres = np.array([[True, True], [False, False]])
    errada = estabilidade.com_linhas_livres(lambda **e: np.array([[np.nan, 1.0], [3.0, 4.0]]), lambda **e: livres)
    y = errada()
    np.testing.assert_array_equal(y.livres, [[False, True], [False, False]])
    assert estabilidade.com_linhas_livres(lambda **e: None, lambda **e: livres)() is None


def test_caso_linha_toda_mascarada_separa_os_tres_jeitos_instaveis():
    """No caso da linha vazia, as três softmax instáveis dão NaN **fora** dela: não se confundem com o NaN
    só na linha vazia (o erro com nome próprio)."""
    caso = estabilidade.caso_linha_toda_mascarada()
    x, mask = caso.entradas["x"], caso.entradas["mask"]
    z = np.where(mask, x, -np.inf)
    with np.errstate(all="ignore"):
        for ref in (lambda s: 0.0, lambda s: s.min(axis=-1, keepdims=True), lambda s: s.max()):
            e = np.exp(z - ref(z))
            w = e / e.sum(axis=-1, keepdims=True)
            assert np.isnan(w[1:]).any()
        estavel = softmax(z)
    assert np.isfinite(estavel).all() and not estavel[0].any()
