"""Notebook 01: o painel do gargalo recorrente e o corretor de um passo de RNN."""

import numpy as np
import pytest

from helpers import recurrent as r
from helpers.licoes import gargalo as licao
from helpers.licoes.gargalo import check_passo_rnn

# --- painel_gargalo --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def painel():
    return licao.painel_gargalo()


def test_default_state_is_the_measured_grid(painel):
    grade = r.memory_grid()
    e = painel.estado
    assert (e["comprimento"], e["tamanho_estado"]) == (8, 32)
    i, j = grade.index(8, 32)
    assert e["acc_rnn"] == grade.tanh[i, j]
    assert e["acc_porta"] == grade.gated[i, j]
    assert e["acc_atencao"] == 1.0
    assert e["acaso"] == 0.125
    assert f"{e['acc_rnn']:.3f}" in painel.texto.value and "0.125" in painel.texto.value


def test_numbers_are_really_computed_by_the_model(painel):
    """Compara com uma medida independente do cache: a RNN rodada aqui, em float64, com fit_ridge."""
    estado = painel.definir(comprimento=6, tamanho_estado=32)
    rnn = r.make_tanh_rnn(32, 8, seed=0)
    seqs = r.random_tokens(2000, 40, 8, seed=1)
    treino, teste = seqs[:1500, :6], seqs[1500:, :6]
    W = r.fit_ridge(rnn.run(r.one_hot(treino, 8))[:, -1], r.one_hot(treino[:, 0], 8))
    manual = np.mean(r.predict_ridge(rnn.run(r.one_hot(teste, 8))[:, -1], W).argmax(1) == teste[:, 0])
    assert abs(estado["acc_rnn"] - manual) <= 2 / 500
    assert 0.2 < estado["acc_rnn"] < 0.5  # T = 6 com n = 32: no meio da queda


def test_sliders_change_numbers_text_and_png(painel):
    painel.definir(comprimento=8, tamanho_estado=32)
    png_antes, texto_antes = painel.imagem.value, painel.texto.value
    painel.controles["comprimento"].value = 2
    assert painel.estado["acc_rnn"] == 1.0 and painel.estado["rnn_acima_do_acaso"]
    assert painel.texto.value != texto_antes and "1.000 — acima do acaso" in painel.texto.value
    assert painel.imagem.value != png_antes

    painel.controles["comprimento"].value = 40
    painel.controles["tamanho_estado"].value = 4
    e = painel.estado
    assert not e["rnn_acima_do_acaso"] and abs(e["acc_rnn"] - 0.125) < e["margem"]
    assert "no nível do acaso" in painel.texto.value
    assert e["acc_atencao"] == 1.0 and "guarda os 40 vetores" in painel.texto.value


def test_bigger_state_in_the_dashboard(painel):
    pequeno = painel.definir(comprimento=6, tamanho_estado=8)["acc_rnn"]
    grande = painel.definir(comprimento=6, tamanho_estado=128)["acc_rnn"]
    assert grande > 0.9 > 0.3 > pequeno


def test_every_control_value_works(painel):
    c = painel.controles["comprimento"]
    for T in (c.min, c.max):
        c.value = T
        assert painel.estado["comprimento"] == T
    for n in painel.controles["tamanho_estado"].options:
        painel.controles["tamanho_estado"].value = n
        assert painel.estado["tamanho_estado"] == n
        assert painel.estado["acc_atencao"] == 1.0


def test_static_figure_and_bad_default():
    p = licao.painel_gargalo(comprimento=3, tamanho_estado=16)
    assert p.figura_estatica().data == p.imagem.value
    assert p.imagem.value[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="tamanho_estado precisa ser um de"):
        licao.painel_gargalo(tamanho_estado=33)


# --- check_passo_rnn -------------------------------------------------------------------------------


def passo_ok(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + W_x @ x + b)


def passo_sem_tanh(h, x, W_h, W_x, b):
    return W_h @ h + W_x @ x + b


def passo_sem_vies(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + W_x @ x)


def passo_vies_fora(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + W_x @ x) + b


def passo_trocado(h, x, W_h, W_x, b):
    return np.tanh(W_x @ h + W_h @ x + b)


def passo_vetor_linha(h, x, W_h, W_x, b):
    return np.tanh(h @ W_h + x @ W_x + b)


def passo_transposta(h, x, W_h, W_x, b):
    return np.tanh(W_h.T @ h + W_x @ x + b)


def passo_sigmoide(h, x, W_h, W_x, b):
    return 1 / (1 + np.exp(-(W_h @ h + W_x @ x + b)))


def passo_relu(h, x, W_h, W_x, b):
    return np.maximum(0, W_h @ h + W_x @ x + b)


def passo_tanh_parcial(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h) + W_x @ x + b


def passo_sem_estado(h, x, W_h, W_x, b):
    return np.tanh(W_x @ x + b)


def passo_sem_entrada(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + b)


def passo_residual(h, x, W_h, W_x, b):
    return h + np.tanh(W_h @ h + W_x @ x + b)


def passo_estrela(h, x, W_h, W_x, b):
    return np.tanh(W_h * h + W_x @ x + b)


def passo_esqueleto(h, x, W_h, W_x, b):
    raise NotImplementedError("complete aqui")


def passo_none(h, x, W_h, W_x, b):
    pass


CASOS = [
    (passo_sem_tanh, "Faltou o tanh"),
    (passo_sem_vies, "Faltou o viés b"),
    (passo_vies_fora, "O viés b ficou fora do tanh"),
    (passo_trocado, "Você trocou as matrizes"),
    (passo_vetor_linha, "convenção de vetor-linha"),
    (passo_transposta, "W_h entrou transposta"),
    (passo_sigmoide, "sigmoide"),
    (passo_relu, "ReLU"),
    (passo_tanh_parcial, "O tanh ficou só em W_h h"),
    (passo_sem_estado, "Faltou o estado anterior"),
    (passo_sem_entrada, "Faltou a entrada"),
    (passo_residual, "somou o estado antigo"),
    (passo_estrela, "* (elemento a elemento)"),
    (passo_esqueleto, "ainda não foi implementada"),
    (passo_none, "ainda não foi implementada"),
]


def test_check_passo_rnn_accepts_reference(capsys):
    assert check_passo_rnn(passo_ok) is True
    out = capsys.readouterr().out
    assert "Correto" in out and "[-0.4219,  0.8483]" in out
    assert check_passo_rnn(r.rnn_step) is True


@pytest.mark.parametrize(("fn", "explicacao"), CASOS, ids=[f.__name__ for f, _ in CASOS])
def test_check_passo_rnn_names_the_mistake(fn, explicacao, capsys):
    assert check_passo_rnn(fn) is False
    out = capsys.readouterr().out
    assert explicacao in out, out
    assert "Correto" not in out


def test_swapped_matrices_explain_the_shapes(capsys):
    check_passo_rnn(passo_trocado)
    out = capsys.readouterr().out
    assert "W_h (n, n)" in out and "W_x (n, d)" in out and "nem roda" in out


def test_check_passo_rnn_reports_other_exceptions(capsys):
    def passo_com_bug(h, x, W_h, W_x, b):
        return np.tanh(W_h @ h + W_x @ x + b) + undefined_name  # noqa: F821

    assert check_passo_rnn(passo_com_bug) is False
    out = capsys.readouterr().out
    assert "NameError" in out and "undefined_name" in out


def test_check_passo_rnn_unknown_mistake_shows_expected(capsys):
    def passo_dobrado(h, x, W_h, W_x, b):
        return np.tanh(2 * (W_h @ h) + W_x @ x + b)

    assert check_passo_rnn(passo_dobrado) is False
    out = capsys.readouterr().out
    assert "esperava [-0.4219,  0.8483]" in out
