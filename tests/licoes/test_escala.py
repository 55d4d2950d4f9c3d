"""Notebook 03: o painel da escala √d, a norma do jacobiano da softmax e o corretor
``check_escores_escalados``."""

import math

import numpy as np
import pytest

from helpers.licoes import escala as licao
from helpers.licoes.escala import check_escores_escalados


def _softmax(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


def _norma_jacobiano(p):
    return float(np.linalg.norm(np.diag(p) - np.outer(p, p)))


# --- norma do jacobiano --------------------------------------------------------------------------


def test_norma_jacobiano_matches_matrix_and_closed_forms():
    rng = np.random.default_rng(0)
    P = np.array([_softmax(x) for x in rng.normal(size=(5, 7)) * 3])
    np.testing.assert_allclose(licao._norma_do_jacobiano(P), [_norma_jacobiano(p) for p in P])
    # pesos uniformes sobre n: ‖J‖² = (n − 1)/n²  → 16 keys: √15 / 16 ≈ 0.242
    assert licao._norma_do_jacobiano(np.full(16, 1 / 16)) == pytest.approx(math.sqrt(15) / 16)
    assert licao._norma_do_jacobiano(np.eye(4)[1]) == 0.0
    # quase one-hot: ainda positivo e minúsculo (a forma matricial não perde a precisão)
    assert 0 < licao._norma_do_jacobiano(_softmax(np.array([30.0, 0.0, 0.0]))) < 1e-11


# --- painel ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def painel():
    return licao.painel_escala()


def _confere_estado(estado, d, escalar):
    q, K = estado["q"], estado["K"]
    assert q.shape == (d,) and K.shape == (16, d)
    brutos = np.array([float(np.dot(k, q)) for k in K])
    esperado = brutos / math.sqrt(d) if escalar else brutos
    np.testing.assert_allclose(estado["escores"], esperado, rtol=1e-9, atol=1e-9)
    p = _softmax(esperado)
    np.testing.assert_allclose(estado["pesos"], p, rtol=1e-9, atol=1e-15)
    assert estado["peso_max"] == pytest.approx(p.max())
    assert estado["norma_grad"] == pytest.approx(_norma_jacobiano(p), rel=1e-6, abs=1e-15)
    assert estado["d"] == d and estado["escalar"] is escalar


def test_default_state(painel):
    estado = painel.definir(d=256, escalar=False)
    _confere_estado(estado, 256, False)
    assert painel.controles["d"].options == tuple(licao.DIMS_ESCALA)
    texto = painel.texto.value
    assert f"{estado['peso_max']:.3f}" in texto and f"{estado['norma_grad']:.2e}" in texto
    assert "q·k (sem escala)" in texto and "√d = 16.00" in texto


@pytest.mark.parametrize("d", licao.DIMS_ESCALA)
@pytest.mark.parametrize("escalar", [False, True])
def test_every_state_matches_independent_computation(painel, d, escalar):
    antes = painel.imagem.value
    painel.controles["d"].value = d
    painel.controles["escalar"].value = escalar
    _confere_estado(painel.estado, d, escalar)
    assert np.all(np.isfinite(painel.estado["pesos"]))
    assert painel.imagem.value != antes or (d == 2 and not escalar)


def test_scaling_divides_scores_by_sqrt_d(painel):
    sem = dict(painel.definir(d=64, escalar=False))
    png_sem = painel.imagem.value
    com = dict(painel.definir(d=64, escalar=True))
    np.testing.assert_allclose(sem["escores"] / com["escores"], 8.0)
    assert sem["desvio_pares"] / com["desvio_pares"] == pytest.approx(8.0)
    assert painel.imagem.value != png_sem
    assert "q·k / √64" in painel.texto.value


def test_score_spread_grows_like_sqrt_d_and_scaling_keeps_it_near_one(painel):
    for d in licao.DIMS_ESCALA:
        bruto = painel.definir(d=d, escalar=False)["desvio_pares"]
        escalado = painel.definir(d=d, escalar=True)["desvio_pares"]
        assert bruto == pytest.approx(math.sqrt(d), rel=0.2), d
        assert escalado == pytest.approx(1.0, rel=0.2), d


def test_saturation_and_vanishing_gradient_without_scaling(painel):
    sem = dict(painel.definir(d=1024, escalar=False))
    com = dict(painel.definir(d=1024, escalar=True))
    assert sem["peso_max"] > 0.999 and sem["norma_grad"] < 1e-4  # one-hot: quase nada de gradiente
    assert com["peso_max"] < 0.5 and com["norma_grad"] > 0.2
    pequeno = painel.definir(d=2, escalar=False)
    assert pequeno["peso_max"] < 0.5 and pequeno["norma_grad"] > 0.2  # em d = 2 ainda não satura


def test_other_seeds_and_sizes_work():
    p = licao.painel_escala(d=8, escalar=True, n_keys=4, n_queries=10, semente=1)
    assert p.estado["pesos"].shape == (4,) and p.estado["K"].shape == (4, 8)
    _ = p.definir(d=1024)
    assert p.estado["escores"].shape == (4,)


# --- corretor check_escores_escalados ---------------------------------------------------------------


def escalados_ok(q, K):
    return K @ q / np.sqrt(K.shape[1])


def escalados_pow(q, K):
    return q @ K.T / len(q) ** 0.5


def escalados_sem_escala(q, K):
    return K @ q


def escalados_por_d(q, K):
    return K @ q / len(q)


def escalados_multiplica(q, K):
    return K @ q * np.sqrt(len(q))


def escalados_precedencia(q, K):
    d = len(q)
    return K @ q / d ** 1 / 2  # o Python lê ((K @ q) / d) / 2


def escalados_precedencia_escala(q, K):
    escala = len(q) ** 1 / 2  # = d / 2, não √d
    return K @ q / escala


def escalados_numero_de_keys(q, K):
    return K @ q / np.sqrt(K.shape[0])


def escalados_softmax(q, K):
    return _softmax(K @ q / np.sqrt(len(q)))


def escalados_sem_soma(q, K):
    return q * K / np.sqrt(len(q))


def escalados_cosseno(q, K):
    return K @ q / (np.linalg.norm(q) * np.linalg.norm(K, axis=1)) / np.sqrt(len(q))


def escalados_q_at_K(q, K):
    return q @ K / np.sqrt(len(q))


def escalados_esqueleto(q, K):
    raise NotImplementedError("complete aqui")


@pytest.mark.parametrize("fn", [escalados_ok, escalados_pow])
def test_check_escores_escalados_accepts(fn, capsys):
    assert check_escores_escalados(fn) is True
    out = capsys.readouterr().out
    assert "Correto" in out and "(0.707, 0, 0.354)" in out


CASOS = [
    (escalados_sem_escala, "Faltou a escala"),
    (escalados_por_d, "dividiu por d = 16 em vez de √d = √16 ≈ 4"),
    (escalados_multiplica, "multiplicou por √d em vez de dividir"),
    (escalados_precedencia, "dividiu por 2d = 32. Cuidado com a precedência"),
    (escalados_precedencia_escala, "dividiu por d/2 = 8. Cuidado com a precedência: d ** 1/2 é (d ** 1) / 2"),
    (escalados_numero_de_keys, "raiz do **número de keys** (n = 3)"),
    (escalados_softmax, "já aplicou a softmax"),
    (escalados_sem_soma, "esqueceu de **somar**"),
    (escalados_cosseno, "calculou o **cosseno**"),
    (escalados_q_at_K, "uma key por linha"),
    (escalados_esqueleto, "ainda não foi implementada"),
]


@pytest.mark.parametrize(("fn", "explicacao"), CASOS, ids=[c[0].__name__ for c in CASOS])
def test_check_escores_escalados_names_the_mistake(fn, explicacao, capsys):
    assert check_escores_escalados(fn) is False
    out = capsys.readouterr().out
    assert explicacao in out, out
    assert "Correto" not in out


def test_check_escores_escalados_dot_mistake_with_right_scale_is_called_out(capsys):
    assert check_escores_escalados(escalados_cosseno) is False
    assert "A divisão por √d está lá" in capsys.readouterr().out
