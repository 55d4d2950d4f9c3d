"""Notebook 02: o painel de ranking de keys, a figura de ranking, os corretores ``check_escores`` e
``check_escores_cosseno`` e a previsão de qual key vence."""

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from helpers import plots
from helpers.corretor import corrigir, corrigir_previsao
from helpers.licoes import produto_escalar as licao
from helpers.licoes.produto_escalar import check_escores
from tests._corretor import confere_erro_nomeado

# --- painel de ranking -------------------------------------------------------------------------


def _q(angulo_graus, comprimento):
    a = math.radians(angulo_graus)
    return comprimento * np.array([math.cos(a), math.sin(a)])


def test_ranking_default_state_matches_independent_computation():
    painel = licao.painel_ranking_keys()
    K = licao.KEYS_RANKING
    q = _q(30, 1.5)
    esperado = np.array([sum(qi * ki for qi, ki in zip(q, k)) for k in K])  # laço, sem K @ q
    np.testing.assert_allclose(painel.estado["q"], q)
    np.testing.assert_allclose(painel.estado["escores"], esperado)
    # ranking à mão: k₂ (2.839) > k₁ (1.504) > k₄ (-0.161) > k₃ (-1.328) > k₅ (-1.679)
    assert list(painel.estado["ordem"]) == [1, 0, 3, 2, 4]
    assert painel.estado["vencedora"] == "k₂"
    np.testing.assert_allclose(painel.estado["cos"], esperado / (1.5 * np.linalg.norm(K, axis=1)))
    texto = painel.texto.value
    assert "1º lugar: k₂" in texto and "q·k₂ = +2.84" in texto and "5º lugar: k₅" in texto


@pytest.mark.parametrize(("angulo", "vencedora"), [(5, "k₁"), (70, "k₂"), (150, "k₃"), (-65, "k₄"), (-117, "k₅")])
def test_rotating_q_changes_the_winner(angulo, vencedora):
    painel = licao.painel_ranking_keys()
    antes = painel.imagem.value
    painel.controles["angulo_q"].value = angulo
    K = licao.KEYS_RANKING
    escores = K @ _q(angulo, 1.5)
    assert painel.estado["vencedora"] == vencedora
    assert int(np.argmax(escores)) == int(painel.estado["ordem"][0])
    np.testing.assert_allclose(painel.estado["escores"], escores)
    assert f"1º lugar: {vencedora}" in painel.texto.value
    assert painel.imagem.value != antes


def test_length_of_q_scales_scores_but_keeps_the_order():
    painel = licao.painel_ranking_keys()
    base = painel.definir(angulo_q=120, comprimento_q=1.0)
    dobro = painel.definir(angulo_q=120, comprimento_q=2.0)
    np.testing.assert_allclose(dobro["escores"], 2 * base["escores"])
    assert list(dobro["ordem"]) == list(base["ordem"])
    np.testing.assert_allclose(dobro["cos"], base["cos"])  # o cosseno ignora o comprimento
    # a 120°, k₂ vence pelo produto escalar, mas k₃ tem cosseno maior (o exemplo do notebook)
    assert dobro["vencedora"] == "k₂"
    assert dobro["cos"][2] > dobro["cos"][1]


def test_zero_length_query_gives_zero_scores_without_nan_in_text():
    painel = licao.painel_ranking_keys()
    estado = painel.definir(comprimento_q=0.0)
    np.testing.assert_array_equal(estado["escores"], np.zeros(len(licao.KEYS_RANKING)))
    assert "indefinido" in painel.texto.value and "nan" not in painel.texto.value.lower()


def test_every_control_accepts_its_extremes():
    painel = licao.painel_ranking_keys()
    for nome, controle in painel.controles.items():
        for valor in (controle.min, controle.max):
            controle.value = valor
            assert np.all(np.isfinite(painel.estado["escores"])), (nome, valor)
    assert painel.ultimo_tempo_ms > 0


def test_custom_keys_and_validation():
    K = np.array([[1.0, 0.0], [0.0, 2.0]])
    painel = licao.painel_ranking_keys(angulo_q=90, comprimento_q=1.0, keys=K)
    np.testing.assert_allclose(painel.estado["escores"], [0.0, 2.0], atol=1e-12)
    assert painel.estado["vencedora"] == "k₂"
    fig, axes = plots.nova_figura(8, 4, ncols=2)
    with pytest.raises(ValueError, match="forma"):
        licao.FiguraRankingKeys(axes[0, 0], axes[0, 1], np.ones((3, 3)))


def test_key_labels_sit_past_the_arrowhead_and_off_the_dashed_line():
    fig, axes = plots.nova_figura(9, 4.2, ncols=2)
    K = licao.KEYS_RANKING
    figura = licao.FiguraRankingKeys(axes[0, 0], axes[0, 1], K, escore_max=4.0)
    for angulo in (30, 120, -65):
        q = _q(angulo, 1.5)
        escores, _ = figura.atualizar(q)
        u = q / np.linalg.norm(q)
        for (_, rotulo), k, escore in zip(figura.setas_k, K, escores):
            pos = np.array(rotulo.get_position())
            assert np.linalg.norm(pos - k) >= 0.3  # não em cima da ponta da seta (k₁ ficava)
            # do mesmo lado da reta q·k = 0 que a key, e afastado dela (k₄ a 30° ficava em cima da reta)
            assert np.sign(pos @ u) == np.sign(escore)
            assert abs(pos @ u) >= 0.2
    # o rótulo de k₄ (quase perpendicular a q a 30°) saiu de cima da reta tracejada
    figura.atualizar(_q(30, 1.5))
    assert abs(np.array(figura.setas_k[3][1].get_position()) @ _q(30, 1.0)) > 0.2


def test_static_ranking_figure():
    fig = licao.figura_ranking_keys([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    assert isinstance(fig, Figure)
    assert plots.png(fig)[:8] == b"\x89PNG\r\n\x1a\n"
    assert licao.nomes_keys(3) == ["k₁", "k₂", "k₃"]
    assert licao.nomes_keys(12)[-1] == "k₁₂"


def test_dot_product_dashboard_still_shows_both_formulas():
    """O painel do notebook 00 (usado também no 02) continua igual."""
    painel = licao.painel_produto_escalar()
    estado = painel.definir(angulo_q=0, comprimento_q=2.0, angulo_k=60, comprimento_k=1.5)
    assert estado["produto"] == pytest.approx(2.0 * 1.5 * 0.5)
    assert estado["cos"] == pytest.approx(0.5)
    assert "mover_k" in licao.painel_produto_escalar.__code__.co_varnames


def test_dot_product_dashboard_puts_negative_factors_in_parentheses():
    """A tabela escreve ``1.73·(-1.00)``, não ``1.73·-1.00``, e nunca ``-0.00``/``-0.000`` (cos 90° ≈ 6e-17)."""
    painel = licao.painel_produto_escalar()
    html = painel.definir(angulo_q=-30, comprimento_q=2.0, angulo_k=180, comprimento_k=1.5)["html"]
    assert "1.73·(-1.50) + (-1.00)·0.00 = -2.598" in html
    assert "2.00 · 1.50 · (-0.866) = -2.598" in html
    for angulo_k in (-90, 90):
        html = painel.definir(angulo_q=0, comprimento_q=2.0, angulo_k=angulo_k, comprimento_k=1.5)["html"]
        assert "-0.00" not in html and "= 0.000" in html


# --- corretor check_escores ---------------------------------------------------------------------


def escores_ok(q, K):
    return K @ q


def escores_transposta(q, K):
    return q @ K.T


def escores_soma(q, K):
    return np.sum(q * K, axis=-1)


def escores_laco(q, K):
    return [float(sum(qi * ki for qi, ki in zip(q, k))) for k in K]  # lista também vale


def escores_sem_soma(q, K):
    return q * K


def escores_eixo_errado(q, K):
    return np.sum(q * K, axis=0)


def escores_soma_tudo(q, K):
    return np.sum(q * K)


def escores_cosseno(q, K):
    return K @ q / (np.linalg.norm(q) * np.linalg.norm(K, axis=1))


def escores_keys_normalizadas(q, K):
    return (K / np.linalg.norm(K, axis=1, keepdims=True)) @ q


def escores_query_normalizada(q, K):
    return K @ (q / np.linalg.norm(q))


def escores_absoluto(q, K):
    return np.abs(K @ q)


def escores_ordenados(q, K):
    return np.sort(K @ q)[::-1]


def escores_q_at_K(q, K):
    return q @ K


def escores_q_at_K_se_couber(q, K):
    return q @ K if K.shape[0] == q.shape[0] else K @ q


def escores_esqueleto(q, K):
    raise NotImplementedError("complete aqui")


def escores_none(q, K):
    pass


@pytest.mark.parametrize("fn", [escores_ok, escores_transposta, escores_soma, escores_laco])
def test_check_escores_accepts_correct_versions(fn, capsys):
    assert check_escores(fn) is True
    out = capsys.readouterr().out
    assert "Correto" in out and "k₁ em 1º lugar" in out


CASOS = [
    (escores_sem_soma, "esqueceu de **somar**"),
    (escores_eixo_errado, "somou no eixo errado"),
    (escores_soma_tudo, "somou tudo num número só"),
    (escores_cosseno, "calculou o **cosseno**"),
    (escores_keys_normalizadas, "normalizou as keys"),
    (escores_query_normalizada, "normalizou a query"),
    (escores_absoluto, "valor absoluto"),
    (escores_ordenados, "já ordenados"),
    (escores_q_at_K, "uma key por linha"),
    (escores_q_at_K_se_couber, "Com K quadrada isso roda"),
    (escores_esqueleto, "ainda não foi implementada"),
    (escores_none, "ainda não foi implementada"),
]


@pytest.mark.parametrize(("fn", "explicacao"), CASOS, ids=[c[0].__name__ for c in CASOS])
def test_check_escores_names_the_mistake(fn, explicacao, capsys):
    assert check_escores(fn) is False
    out = capsys.readouterr().out
    assert explicacao in out, out
    assert "Correto" not in out


def test_check_escores_shape_error_is_explained(capsys):
    assert check_escores(escores_q_at_K) is False
    out = capsys.readouterr().out
    assert "ValueError" in out and "q tem forma (3,) e K tem forma (4, 3)" in out and "K @ q" in out


def test_check_escores_reports_other_exceptions(capsys):
    def escores_com_bug(q, K):
        return K @ q + nome_inexistente  # noqa: F821

    assert check_escores(escores_com_bug) is False
    out = capsys.readouterr().out
    assert "NameError" in out and "nome_inexistente" in out


def test_check_escores_unknown_wrong_answer_shows_expected_values(capsys):
    assert check_escores(lambda q, K: K @ q + 1.0) is False
    out = capsys.readouterr().out
    assert "esperava [ 2., -1.,  7.,  0.], veio [3., 0., 8., 1.]" in out


def escores_acumulados(q, K):
    saida, total = [], 0.0
    for k in K:
        for j in range(len(q)):
            total += q[j] * k[j]
        saida.append(total)
    return saida


def escores_return_no_laco(q, K):
    saida = []
    for k in K:
        saida.append(float(q @ k))
        return saida


EXEMPLOS_ESCORES = {
    "produto sem a soma": escores_sem_soma,
    "soma no eixo errado": escores_eixo_errado,
    "tudo somado num número só": escores_soma_tudo,
    "cosseno no lugar do produto escalar": escores_cosseno,
    "keys normalizadas": escores_keys_normalizadas,
    "query normalizada": escores_query_normalizada,
    "valor absoluto": escores_absoluto,
    "escores já ordenados": escores_ordenados,
    "escores ordenados do menor ao maior": lambda q, K: np.sort(K @ q),
    "q @ K sem transpor": (escores_q_at_K, "nem roda"),
    "faltou a última key": lambda q, K: [float(q @ K[i]) for i in range(len(K) - 1)],
    "pulou a primeira key": lambda q, K: [float(q @ K[i]) for i in range(1, len(K))],
    "faltou a última coordenada": lambda q, K: [sum(q[j] * k[j] for j in range(len(q) - 1)) for k in K],
    "não zerou a soma a cada key": (escores_acumulados, "Zere o total"),
    "só o primeiro escore": (escores_return_no_laco, "`return` dentro do laço"),
    "só o maior escore": lambda q, K: np.argmax(K @ q),
    "devolveu o ranking": lambda q, K: np.argsort(-(K @ q)),
    "ordem invertida": lambda q, K: (K @ q)[::-1],
    "dividiu por √d (a escala do notebook 03)": (lambda q, K: K @ q / np.sqrt(len(q)), "produto escalar **puro**"),
}


@pytest.mark.parametrize("nome", list(EXEMPLOS_ESCORES))
def test_escores_names_every_mistake(nome):
    confere_erro_nomeado(licao.ESCORES, EXEMPLOS_ESCORES, nome)


# --- check_escores_cosseno ----------------------------------------------------------------------------


def cos_ok(q, K, tau):
    return K @ q / (np.linalg.norm(K, axis=1) * np.linalg.norm(q)) / tau


def cos_normaliza_antes(q, K, tau):
    return (K / np.linalg.norm(K, axis=1, keepdims=True)) @ (q / np.linalg.norm(q)) / tau


def cos_laco_lista(q, K, tau):
    saida = []
    for k in K:
        saida.append(float(np.dot(q, k)) / (math.sqrt(float(np.dot(q, q))) * math.sqrt(float(np.dot(k, k)))) / tau)
    return saida


def cos_einsum_float32(q, K, tau):
    q, K = q.astype(np.float32), K.astype(np.float32)
    return np.einsum("nd,d->n", K, q) / (np.linalg.norm(K, axis=-1) * np.linalg.norm(q)) / np.float32(tau)


def cos_com_eps(q, K, tau):
    return K @ q / np.maximum(np.linalg.norm(K, axis=1) * np.linalg.norm(q), 1e-12) / tau


@pytest.mark.parametrize("fn", [cos_ok, cos_normaliza_antes, cos_laco_lista, cos_einsum_float32, cos_com_eps])
def test_escores_cosseno_accepts_right_answers_written_differently(fn, capsys):
    assert licao.check_escores_cosseno(fn) is True
    assert "empatam" in capsys.readouterr().out


def _normas_colunas(q, K, tau):
    return K @ q / (np.linalg.norm(K, axis=0) * np.linalg.norm(q)) / tau


EXEMPLOS_COSSENO = {
    "sem normalizar": lambda q, K, tau: K @ q / tau,
    "só as keys normalizadas": lambda q, K, tau: K @ q / np.linalg.norm(K, axis=1) / tau,
    "só a query normalizada": lambda q, K, tau: K @ q / np.linalg.norm(q) / tau,
    "norma da matriz inteira": lambda q, K, tau: K @ q / (np.linalg.norm(K) * np.linalg.norm(q)) / tau,
    "normas das colunas": (_normas_colunas, "nem roda"),
    "normas ao quadrado": lambda q, K, tau: K @ q / ((K**2).sum(1) * (q @ q)) / tau,
    "multiplicou por τ": lambda q, K, tau: cos_ok(q, K, 1.0) * tau,
    "sem a temperatura": lambda q, K, tau: cos_ok(q, K, 1.0),
    "devolveu o ângulo": lambda q, K, tau: np.arccos(cos_ok(q, K, 1.0)) / tau,
    "q @ K sem transpor": lambda q, K, tau: q @ K / (np.linalg.norm(K, axis=1) * np.linalg.norm(q)) / tau,
    "produto sem a soma": lambda q, K, tau: (K / np.linalg.norm(K, axis=1, keepdims=True)) * (q / np.linalg.norm(q)) / tau,
    "soma no eixo errado": lambda q, K, tau: np.sum(q * K, axis=0) / (np.linalg.norm(K, axis=1) * np.linalg.norm(q)) / tau,
    "normalizou sem keepdims": (lambda q, K, tau: (K / np.linalg.norm(K, axis=1)) @ q / np.linalg.norm(q) / tau,
                                "keepdims=True"),
    "distância do cosseno": lambda q, K, tau: (1 - cos_ok(q, K, 1.0)) / tau,
    "faltou a última key": lambda q, K, tau: cos_laco_lista(q, K[:-1], tau),
    "pulou a primeira key": lambda q, K, tau: cos_laco_lista(q, K[1:], tau),
    "faltou a última coordenada": lambda q, K, tau: K[:, :-1] @ q[:-1] / (np.linalg.norm(K, axis=1) * np.linalg.norm(q)) / tau,
    "ordem invertida": lambda q, K, tau: cos_ok(q, K, tau)[::-1],
    "escores ordenados": lambda q, K, tau: sorted(cos_ok(q, K, tau), reverse=True),
    "√d no lugar das normas": (lambda q, K, tau: np.dot(K, q) / math.sqrt(K.shape[1]) / tau, "comprimentos"),
}


def test_escores_cosseno_shape_text_tells_matmul_from_broadcast():
    """O texto de forma não fala só de @ quando o numpy reclamou de broadcast (uma divisão sem keepdims)."""
    from helpers.corretor import corrigir

    v = corrigir(licao.ESCORES_COSSENO, lambda q, K, tau: (K / np.linalg.norm(K, axis=1)) @ q / np.linalg.norm(q) / tau)
    assert "could not be broadcast" in v.mensagem and "Se reclamou de broadcast" in v.mensagem, v.mensagem


@pytest.mark.parametrize("nome", list(EXEMPLOS_COSSENO))
def test_escores_cosseno_names_every_mistake(nome):
    confere_erro_nomeado(licao.ESCORES_COSSENO, EXEMPLOS_COSSENO, nome)


def test_escores_cosseno_stub_and_unknown_mistake():
    def esqueleto(q, K, tau):
        raise NotImplementedError

    assert corrigir(licao.ESCORES_COSSENO, esqueleto).erro == "pendente"
    v = corrigir(licao.ESCORES_COSSENO, lambda q, K, tau: cos_ok(q, K, tau) + 1)
    assert not v.ok and v.erro == "valor"


def test_cosine_cases_include_a_tie_of_a_long_and_a_short_key():
    caso = licao.ESCORES_COSSENO.casos()[-1].entradas
    escores = cos_ok(**caso)
    assert escores[0] == pytest.approx(escores[1])
    assert (caso["K"] @ caso["q"])[0] == pytest.approx(10 * (caso["K"] @ caso["q"])[1])


# --- a previsão: qual key vence (a caixa) -------------------------------------------------------------


@pytest.mark.parametrize(("previsao", "erro"), [("k1", "a mais alinhada"), ("k_1", "a mais alinhada"),
                                               ("$k_4$", "a quase perpendicular"), ("k₄", "a quase perpendicular"),
                                               ("K3", "uma do outro lado da reta"), ("5", "a mais oposta"),
                                               (5, "a mais oposta")])
def test_previsao_vencedora_names_the_misconception(previsao, erro):
    v = corrigir_previsao(licao.PREVISAO_VENCEDORA, previsao)
    assert not v.ok and v.erro == erro, v.mensagem
    assert "A resposta: k₂" in v.mensagem and "2,839" in v.mensagem, v.mensagem


@pytest.mark.parametrize("previsao", [None, "k7", "k0", "q", "2,0", 2.0, "a segunda"])
def test_previsao_vencedora_typo_or_empty_does_not_reveal(previsao):
    # vazia ou ilegível (uma key que não existe, um número quebrado): pede outra e não mostra a resposta
    v = corrigir_previsao(licao.PREVISAO_VENCEDORA, previsao)
    assert not v.ok and v.erro in ("pendente", "tipo"), v.mensagem
    assert "k₂" not in v.mensagem and "2,839" not in v.mensagem, v.mensagem


@pytest.mark.parametrize("previsao", ["k2", "k₂", " K2 ", "k 2", "2", "'k2'", '"k₂"', 2,
                                      "k_2", "$k_2$", "k_{2}", "K_2", "key 2"])
def test_previsao_vencedora_accepts_k2_written_any_way(previsao):
    assert corrigir_previsao(licao.PREVISAO_VENCEDORA, previsao).ok


def test_prediction_box_reads_what_the_student_types_and_reveals_once():
    caixa = licao.prever_vencedora()
    assert caixa.conferir("k9") is False and not caixa.conferida  # erro de digitação: a caixa não trava
    assert "k₂" not in caixa.mensagem.value
    assert caixa.conferir("k1") is False and caixa.conferida
    assert "A resposta: k₂" in caixa.mensagem.value
    assert caixa.conferir("k2") is False  # a primeira previsão legível é a que vale
    assert licao.prever_vencedora().conferir("2") is True
    # o exemplo da caixa é legível e não é a resposta
    exemplo = licao.prever_vencedora()
    assert exemplo.conferir(licao.PREVISAO_VENCEDORA.exemplo) is False and exemplo.conferida


def test_previsao_vencedora_matches_the_dashboard_and_its_clues():
    assert licao.painel_ranking_keys().estado["vencedora"] == "k₂"
    escores = licao.KEYS_RANKING @ _q(30, 1.5)
    pistas = licao.PREVISAO_VENCEDORA.pistas_da_resposta()
    assert f"{escores.max():.3f}" in pistas and f"{escores.max():.2f}".replace(".", ",") in pistas
    assert "vence k₂" in pistas and "vence $k_2$" in pistas
