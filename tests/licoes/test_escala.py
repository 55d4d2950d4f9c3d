"""Notebook 03: o painel da escala √d, os experimentos da saturação e da sensibilidade dos pesos à query, as
suas figuras, a caixa da previsão da variância e os corretores ``check_escores_escalados`` e
``check_pesos_de_atencao``."""

import math

import numpy as np
import pytest

from helpers import attention
from helpers.corretor import corrigir, corrigir_previsao
from helpers.licoes import escala as licao
from helpers.licoes.escala import check_escores_escalados
from helpers.previsao import ler_digitado
from tests._corretor import confere_erro_nomeado


def _softmax(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


def _norma_jacobiano(p):
    return float(np.linalg.norm(np.diag(p) - np.outer(p, p)))


# --- o gradiente que chega à query ------------------------------------------------------------------


def _gradiente_por_diferencas(q, K, divisor, h=1e-6):
    """‖∂s/∂q‖ por diferenças finitas, empurrando cada coordenada de q (como no notebook)."""
    colunas = []
    for e in np.eye(len(q)):
        colunas.append((_softmax(K @ (q + h * e) / divisor) - _softmax(K @ (q - h * e) / divisor)) / (2 * h))
    return float(np.linalg.norm(np.column_stack(colunas)))


@pytest.mark.parametrize("divisor", [1.0, 2.0, 8.0])
def test_sensibilidade_da_query_matches_finite_differences(divisor):
    rng = np.random.default_rng(0)
    q, K = rng.normal(size=8), rng.normal(size=(5, 8))
    pesos = _softmax(K @ q / divisor)
    assert licao.sensibilidade_da_query(pesos, K, divisor) == pytest.approx(_gradiente_por_diferencas(q, K, divisor), rel=1e-6)
    lote = licao.sensibilidade_da_query(np.stack([pesos, pesos]), np.stack([K, K]), divisor)
    assert lote.shape == (2,) and lote[1] == pytest.approx(lote[0])


def test_sensibilidade_da_query_vanishes_when_the_softmax_saturates():
    K = np.eye(3)
    assert licao.sensibilidade_da_query(_softmax(np.array([30.0, 0.0, 0.0])), K, 1.0) < 1e-11
    assert licao.sensibilidade_da_query(np.full(3, 1 / 3), K, 1.0) == pytest.approx(math.sqrt(2) / 3)  # ‖I/3 − 1/9‖


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
    assert estado["peso_max_mediano"] == pytest.approx(_mediana_do_maior_peso(d, escalar))
    assert estado["d"] == d and estado["escalar"] is escalar


def _mediana_do_maior_peso(d, escalar, n_queries=125, n_keys=16, semente=5):
    """A mediana do maior peso das queries do painel, refeita do zero (o mesmo sorteio)."""
    rng = np.random.default_rng(semente)
    Q = rng.standard_normal((n_queries, 1, 1024))
    KK = rng.standard_normal((n_queries, n_keys, 1024))
    z = np.einsum("mjd,mjd->mj", KK[:, :, :d], np.broadcast_to(Q[:, :, :d], KK[:, :, :d].shape))
    if escalar:
        z = z / math.sqrt(d)
    return float(np.median([_softmax(linha).max() for linha in z]))


def test_default_state(painel):
    estado = painel.definir(d=256, escalar=False)
    _confere_estado(estado, 256, False)
    assert painel.controles["d"].options == tuple(licao.DIMS_ESCALA)
    texto = painel.texto.value
    assert f"{estado['peso_max']:.3f}" in texto and f"{estado['peso_max_mediano']:.3f}" in texto
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


def test_saturation_without_scaling(painel):
    sem = dict(painel.definir(d=1024, escalar=False))
    com = dict(painel.definir(d=1024, escalar=True))
    assert sem["peso_max"] > 0.999 and sem["peso_max_mediano"] > 0.99  # uma key só: a softmax saturou
    assert com["peso_max"] < 0.5 and com["peso_max_mediano"] < 0.5
    pequeno = painel.definir(d=2, escalar=False)
    assert pequeno["peso_max"] < 0.5 and pequeno["peso_max_mediano"] < 0.5  # em d = 2 ainda não satura
    assert "mediana das 125 queries" in painel.texto.value


def test_the_circle_sits_at_the_fixed_query_largest_weight(painel):
    estado = painel.definir(d=16, escalar=False)
    ponto = next(linha for linha in painel.fig.axes[2].lines if linha.get_markerfacecolor() == "none")
    (x,), (y,) = ponto.get_data()
    assert x == pytest.approx(math.log2(16)) and y == pytest.approx(estado["peso_max"])


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


EXEMPLOS_ESCALADOS = {
    "sem escala": escalados_sem_escala,
    "÷d em vez de ÷√d": escalados_por_d,
    "×√d em vez de ÷√d": escalados_multiplica,
    "÷(d/2): a precedência de d ** 1/2": escalados_precedencia_escala,
    "÷2d: a precedência de / d ** 1/2": escalados_precedencia,
    "raiz do número de keys": escalados_numero_de_keys,
    "softmax já aplicada": escalados_softmax,
    "produto sem a soma (com a escala)": escalados_sem_soma,
    "soma no eixo errado (com a escala)": lambda q, K: np.sum(q * K, axis=0) / np.sqrt(len(q)),
    "tudo somado num número só (com a escala)": lambda q, K: np.sum(q * K) / np.sqrt(len(q)),
    "cosseno no lugar do produto escalar (com a escala)": escalados_cosseno,
    "keys normalizadas (com a escala)": lambda q, K: K @ q / np.linalg.norm(K, axis=1) / np.sqrt(len(q)),
    "query normalizada (com a escala)": lambda q, K: K @ q / np.linalg.norm(q) / np.sqrt(len(q)),
    "valor absoluto (com a escala)": lambda q, K: np.abs(K @ q) / np.sqrt(len(q)),
    "escores já ordenados (com a escala)": lambda q, K: np.sort(K @ q)[::-1] / np.sqrt(len(q)),
    "escores ordenados do menor ao maior (com a escala)": lambda q, K: np.sort(K @ q) / np.sqrt(len(q)),
    "q @ K sem transpor (com a escala)": (escalados_q_at_K, "nem roda"),
    "faltou a última key (com a escala)": lambda q, K: np.array([k @ q for k in K[:-1]]) / np.sqrt(len(q)),
    "pulou a primeira key (com a escala)": lambda q, K: np.array([K[i] @ q for i in range(1, len(K))]) / np.sqrt(len(q)),
    "faltou a última coordenada (com a escala)": lambda q, K: np.array(
        [sum(k[i] * q[i] for i in range(len(q) - 1)) for k in K]) / np.sqrt(len(q)),
    "não zerou a soma a cada key (com a escala)": lambda q, K: np.cumsum(K @ q) / np.sqrt(len(q)),
    "ordem invertida (com a escala)": lambda q, K: (K @ q)[::-1] / np.sqrt(len(q)),
    "outro divisor no lugar de √d": (lambda q, K: K @ q / np.sqrt(2), "√2 do exemplo"),
    "contas em float16": (lambda q, K: K.astype(np.float16) @ q.astype(np.float16) / np.float16(np.sqrt(len(q))),
                          "dtype float16"),
}


@pytest.mark.parametrize("nome", list(EXEMPLOS_ESCALADOS))
def test_escores_escalados_names_every_mistake(nome):
    confere_erro_nomeado(licao.ESCORES_ESCALADOS, EXEMPLOS_ESCALADOS, nome)


# --- a previsão da variância -------------------------------------------------------------------------


@pytest.mark.parametrize(("previsao", "erro"), [(8, "o desvio-padrão"), (1, "a variância de um termo"), (0, "a média"),
                                               (4096, "d ao quadrado"), ("128", "somou as variâncias de q e de k"),
                                               ("0,5", "a chance de q·k ser positivo"), (0.5, "a chance de q·k ser positivo"),
                                               ("1,5", "valor"), ("0,4", "valor"), (32, "valor"), (None, "pendente")])
def test_previsao_variancia_names_the_misconception(previsao, erro):
    v = corrigir_previsao(licao.PREVISAO_VARIANCIA, previsao)
    assert not v.ok and v.erro == erro, v.mensagem
    # a resposta só aparece depois de uma previsão (sem previsão, quem lê não a vê antes de prever)
    assert ("A resposta: 64" in v.mensagem) == (previsao is not None), v.mensagem


@pytest.mark.parametrize("previsao", [64, 64.0, "64", "64,2", 63.6, 58, 60, 63, 65, "65,5", 70])
def test_previsao_variancia_accepts_64_and_a_guess_near_it(previsao):
    """Uma previsão é intuição, não conta: perto de d (de 58 a 70) vale, e o veredito traz o 64 exato."""
    v = corrigir_previsao(licao.PREVISAO_VARIANCIA, previsao)
    assert v.ok and "A resposta: 64." in v.mensagem, v.mensagem


@pytest.mark.parametrize("previsao", [57, 71, 50, 80])
def test_previsao_variancia_far_from_d_is_wrong(previsao):
    assert corrigir_previsao(licao.PREVISAO_VARIANCIA, previsao).erro == "valor"


@pytest.mark.parametrize(("digitado", "ok", "erro"), [
    ("64", True, None), ("64,0", True, None), (" 64 ", True, None), ("63", True, None), ("65", True, None),
    ("60", True, None), ("7", False, "valor"), ("9", False, "valor"), ("127", False, "valor"),
    ("8", False, "o desvio-padrão"), ("1", False, "a variância de um termo"), ("0", False, "a média"),
    ("4 096", False, "d ao quadrado"), ("4096", False, "d ao quadrado"), ("128", False, "somou as variâncias de q e de k"),
    ("100", False, "valor"),
])
def test_caixa_da_variancia_as_a_student_types(digitado, ok, erro):
    c = licao.prever_variancia()
    assert c.conferir(digitado) is ok and c.conferida
    assert c.veredito.erro == erro and "65,5" in c.mensagem.value  # a revelação traz a medida
    assert c.entrada.disabled


def test_caixa_da_variancia_ignores_a_typo_and_an_empty_box():
    c = licao.prever_variancia()
    assert c.conferir("sessenta e quatro") is False and not c.conferida
    assert c.conferir("") is False and not c.conferida
    assert "65,5" not in c.mensagem.value and "A resposta" not in c.mensagem.value
    assert c.conferir("64") is True


def test_previsao_variancia_example_is_legible_and_the_clues_name_the_answer():
    exemplo = ler_digitado(licao.PREVISAO_VARIANCIA.exemplo)
    assert corrigir_previsao(licao.PREVISAO_VARIANCIA, exemplo).erro == "valor"
    pistas = licao.PREVISAO_VARIANCIA.pistas_da_resposta()
    assert "65,5" in pistas and "65.5" in pistas and "64" not in pistas  # "64" sozinho é o d, não a resposta


def test_previsao_variancia_is_what_is_measured():
    rng = np.random.default_rng(0)
    z = np.sum(rng.standard_normal((20000, 64)) * rng.standard_normal((20000, 64)), axis=1)
    assert z.var() == pytest.approx(licao.PREVISAO_VARIANCIA.certo, rel=0.05)


# --- a peça de verdade: pesos de atenção de um lote --------------------------------------------------


def pesos_ok(Q, K):
    return attention.softmax(Q @ K.T / np.sqrt(K.shape[1]), axis=-1)


def pesos_a_mao(Q, K):
    z = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def pesos_laco_lista(Q, K):
    linhas = []
    for q in Q:
        z = [float(np.dot(q, k)) / math.sqrt(len(q)) for k in K]
        m = max(z)
        e = [math.exp(x - m) for x in z]
        linhas.append([x / sum(e) for x in e])
    return linhas


def pesos_einsum_float32(Q, K):
    z = np.einsum("md,nd->mn", Q, K) / np.float32(np.sqrt(K.shape[-1]))
    return attention.softmax(z.astype(np.float32), axis=-1)


def pesos_via_escores_escalados(Q, K):
    return np.stack([attention.softmax(escalados_ok(q, K)) for q in Q])


@pytest.mark.parametrize("fn", [pesos_ok, pesos_a_mao, pesos_laco_lista, pesos_einsum_float32,
                                pesos_via_escores_escalados])
def test_pesos_de_atencao_accepts_right_answers_written_differently(fn, capsys):
    assert licao.check_pesos_de_atencao(fn) is True
    assert "(0.4555, 0.2246, 0.3199)" in capsys.readouterr().out


def _instavel(tirar):
    def pesos(Q, K):
        z = Q @ K.T / np.sqrt(K.shape[1])
        e = np.exp(z - tirar(z))
        return e / e.sum(axis=-1, keepdims=True)
    return pesos


def _pesos_sem_keepdims(Q, K):
    z = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(z - z.max(axis=-1))
    return e / e.sum(axis=-1)


EXEMPLOS_PESOS = {
    "subtraiu o máximo só quando positivo (instável)": (_instavel(lambda z: np.maximum(z.max(axis=-1, keepdims=True),
                                                                                      0.0)), "muito negativos"),
    "sem keepdims": (_pesos_sem_keepdims, "keepdims=True"),
    "outro divisor no lugar de √d": lambda Q, K: attention.softmax(Q @ K.T / np.sqrt(K.size), axis=-1),
    "sem subtrair o máximo (instável)": (_instavel(lambda z: 0.0), "NaN ou inf"),
    "subtraiu o mínimo (instável)": _instavel(lambda z: z.min(axis=-1, keepdims=True)),
    "um máximo só para o lote inteiro (instável)": _instavel(lambda z: z.max()),
    "sem escala": lambda Q, K: attention.softmax(Q @ K.T, axis=-1),
    "÷d em vez de ÷√d": lambda Q, K: attention.softmax(Q @ K.T / K.shape[1], axis=-1),
    "raiz do número de keys": lambda Q, K: attention.softmax(Q @ K.T / np.sqrt(K.shape[0]), axis=-1),
    "sem a softmax": lambda Q, K: Q @ K.T / np.sqrt(K.shape[1]),
    "softmax no eixo errado": lambda Q, K: attention.softmax(Q @ K.T / np.sqrt(K.shape[1]), axis=0),
    "normalizou pela matriz inteira": lambda Q, K: (lambda z: np.exp(z - z.max()) / np.exp(z - z.max()).sum())(
        Q @ K.T / np.sqrt(K.shape[1])),
    "queries e keys trocadas": lambda Q, K: attention.softmax(K @ Q.T / np.sqrt(K.shape[1]), axis=-1),
    "pesos transpostos": lambda Q, K: pesos_ok(Q, K).T,
    "contas em float16": (lambda Q, K: pesos_ok(Q, K).astype(np.float16), "dtype float16"),
}


@pytest.mark.parametrize("nome", list(EXEMPLOS_PESOS))
def test_pesos_de_atencao_names_every_mistake(nome):
    confere_erro_nomeado(licao.PESOS_ATENCAO, EXEMPLOS_PESOS, nome)


def test_pesos_dividing_by_the_whole_sum_is_named_whatever_maximum_was_subtracted():
    """O máximo de cada linha, certo, e depois e / e.sum() sem axis: as proporções de cada linha estão certas e
    tudo soma 1 — é "normalizou pela matriz inteira", não outro erro."""

    def pesos(Q, K):
        z = Q @ K.T / np.sqrt(K.shape[1])
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum()

    v = corrigir(licao.PESOS_ATENCAO, pesos)
    assert v.erro == "normalizou pela matriz inteira", v.mensagem


def test_pesos_de_atencao_stub_and_wrong_type():
    def esqueleto(Q, K):
        raise NotImplementedError

    assert corrigir(licao.PESOS_ATENCAO, esqueleto).erro == "pendente"
    assert corrigir(licao.PESOS_ATENCAO, lambda Q, K: "pesos").erro == "tipo"


def test_saturation_and_sensitivity_figures_draw_every_divisor():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dims = [2, 4, 8]
    fig, axes = plt.subplots(1, 2)
    licao.desenhar_saturacao(axes[0], dims, np.full((3, 3), 0.5), n_keys=16)
    licao.desenhar_sensibilidade(axes[1], dims, np.full((3, 3), 0.1))
    assert [t.get_text() for t in axes[0].get_legend().get_texts()] == ["sem escala", "÷ √d", "÷ d", "uniforme (1/16)"]
    assert [t.get_text() for t in axes[1].get_legend().get_texts()] == ["sem escala", "÷ √d", "÷ d"]
    assert axes[1].get_yscale() == "log" and axes[0].get_xscale() == "log"
    plt.close(fig)


def test_os_experimentos_medem_o_que_a_formula_diz():
    """O maior peso é o da softmax dos escores; a sensibilidade, por diferenças finitas, bate com a fórmula do
    jacobiano; os dois experimentos usam as mesmas queries e keys; e os três regimes aparecem."""
    dims = [2, 16, 1024]
    maior_peso = licao.experimento_saturacao(dims, n_queries=30, semente=9)
    sensibilidade = licao.experimento_sensibilidade(dims, n_queries=30, semente=9)
    assert maior_peso.shape == sensibilidade.shape == (3, 3)
    rng = np.random.default_rng(9)
    Q = rng.standard_normal((30, 1, 1024))
    KK = rng.standard_normal((30, 16, 1024))
    for i, d in enumerate(dims):
        for j, divisor in enumerate((1.0, math.sqrt(d), float(d))):
            z = np.sum(Q[:, :, :d] * KK[:, :, :d], axis=-1) / divisor
            pesos = np.exp(z - z.max(axis=-1, keepdims=True))
            pesos /= pesos.sum(axis=-1, keepdims=True)
            formula = np.median(licao.sensibilidade_da_query(pesos, KK[:, :, :d], divisor))
            assert sensibilidade[i, j] == pytest.approx(formula, rel=1e-4, abs=1e-12), (d, j)
            assert maior_peso[i, j] == pytest.approx(np.median(pesos.max(axis=-1)))
    assert maior_peso[-1, 0] > 0.95 and sensibilidade[-1, 0] < sensibilidade[-1, 1]  # sem escala, satura
    assert 0.1 < maior_peso[-1, 1] < 0.4 and maior_peso[-1, 2] < 0.1  # ÷√d no meio; ÷d quase uniforme


def test_o_experimento_do_notebook_da_os_numeros_da_prosa():
    """Os números que o notebook 03 cita (seção 4 e o aprofundamento da sensibilidade)."""
    dims = 2 ** np.arange(1, 11)
    maior_peso = licao.experimento_saturacao(dims)
    assert f"{maior_peso[5, 0]:.3f}" == "0.928" and f"{maior_peso[7, 0]:.3f}" == "0.996"
    assert f"{maior_peso[-1, 0]:.3f}" == "1.000" and f"{maior_peso[-1, 2]:.3f}" == "0.066"
    sensibilidade = licao.experimento_sensibilidade(dims)
    assert f"{sensibilidade[-1, 0]:.3g}" == "0.000911" and f"{sensibilidade[4, 0]:.3g}" == "1.12"


def test_o_empurrao_mede_o_que_a_conta_direta_mede_e_da_os_numeros_do_notebook():
    """O teste de subir o segundo maior escore, nas queries e keys de ``experimento_saturacao``: bate com a conta
    feita query a query, e dá os números que o notebook 03 cita (mediana ~10⁻⁵ sem escala, 0,34 com ela)."""
    rng = np.random.default_rng(4)
    Q = rng.standard_normal((200, 1, 1024))
    KK = rng.standard_normal((200, 16, 1024))
    mudancas = licao.experimento_empurrao(d=1024)
    assert mudancas.shape == (200, 2)
    for m in range(3):
        z = KK[m] @ Q[m, 0]
        for j, divisor in enumerate((1.0, 32.0)):
            antes = _softmax(z / divisor)
            empurrado = z / divisor
            empurrado[np.argsort(empurrado)[-2]] += 1.0
            assert mudancas[m, j] == pytest.approx(np.abs(_softmax(empurrado) - antes).sum(), rel=1e-6, abs=1e-15)
    assert f"{np.median(mudancas[:, 0]):.2g}" == "4.8e-05" and f"{np.median(mudancas[:, 1]):.2f}" == "0.34"
    assert f"{np.mean(mudancas[:, 0] > 0.1):.0%}" == "16%" and np.all(mudancas[:, 1] > 0.1)


def test_densidade_integra_a_um_e_mostra_o_pico_verdadeiro():
    """A densidade estimada não depende da largura das barras: o pico de uma normal estreita sai perto de
    1 / (σ √(2π)), e a área é 1."""
    eixo = np.linspace(-4.5, 4.5, 4501)
    for sigma in (1 / 32, 0.5, 1.0):
        amostras = np.random.default_rng(0).standard_normal(4000) * sigma
        dens = licao.densidade(amostras, eixo)
        assert dens.shape == eixo.shape
        assert dens.sum() * (eixo[1] - eixo[0]) == pytest.approx(1.0, abs=1e-3)
        assert dens.max() == pytest.approx(1 / (sigma * math.sqrt(2 * math.pi)), rel=0.08)
