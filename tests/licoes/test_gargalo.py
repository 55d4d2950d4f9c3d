"""Notebook 01: o painel do gargalo recorrente, as figuras da capacidade e da história e os corretores
(passo da RNN, RNN lendo uma sequência) e a caixa da previsão da capacidade."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from helpers import recurrent as r  # noqa: E402
from helpers.corretor import corrigir, corrigir_previsao  # noqa: E402
from helpers.licoes import gargalo as licao  # noqa: E402
from helpers.licoes.gargalo import check_passo_rnn  # noqa: E402
from helpers.previsao import ler_digitado  # noqa: E402
from tests._corretor import confere_erro_nomeado  # noqa: E402

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


EXEMPLOS_PASSO = {
    "sem o tanh": passo_sem_tanh,
    "sigmoide no lugar do tanh": passo_sigmoide,
    "ReLU no lugar do tanh": passo_relu,
    "sem o viés": passo_sem_vies,
    "viés fora do tanh": passo_vies_fora,
    "tanh só em W_h h": passo_tanh_parcial,
    "sem o estado anterior": passo_sem_estado,
    "sem a entrada": passo_sem_entrada,
    "W_h transposta": passo_transposta,
    "somou o estado antigo": passo_residual,
    "* no lugar de @": passo_estrela,
    "matrizes trocadas": (passo_trocado, "nem roda"),
    "convenção de vetor-linha": passo_vetor_linha,
    "tanh em cada parcela": lambda h, x, W_h, W_x, b: np.tanh(W_h @ h) + np.tanh(W_x @ x) + b,
    "x tratado como índice": (lambda h, x, W_h, W_x, b: np.tanh(W_h @ h + W_x[:, np.argmax(x)] + b), "W_x @ x"),
}


@pytest.mark.parametrize("nome", list(EXEMPLOS_PASSO))
def test_passo_rnn_names_every_mistake(nome):
    confere_erro_nomeado(licao.PASSO_RNN, EXEMPLOS_PASSO, nome)


# --- check_ler_sequencia -------------------------------------------------------------------------


def ler_laco(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for x in xs:
        h = np.tanh(W_h @ h + W_x @ x + b)
        estados.append(h)
    return np.array(estados)


def ler_prealocado_float32(xs, W_h, W_x, b):
    T, n = len(xs), W_h.shape[0]
    estados = np.zeros((T, n), dtype=np.float32)
    h = np.zeros(n)
    for t in range(T):
        h = r.rnn_step(h, xs[t], W_h, W_x, b)
        estados[t] = h
    return estados


def ler_lista_de_listas(xs, W_h, W_x, b):
    h = [0.0] * W_h.shape[0]
    saida = []
    for x in xs:
        h = list(np.tanh(W_h @ np.array(h) + W_x @ x + b))
        saida.append(h)
    return saida


def ler_vetor_linha(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for x in xs:
        h = np.tanh(h @ W_h.T + x @ W_x.T + b)  # a mesma conta, com vetores-linha
        estados.append(h.copy())
    return np.stack(estados)


def ler_com_o_modelo(xs, W_h, W_x, b):
    return r.TanhRNN(np.asarray(W_h), np.asarray(W_x), np.asarray(b)).run(xs)


def _estados_ref(xs, W_h, W_x, b, passo=None):
    return licao._estados(xs, W_h, W_x, b, passo=passo)


def ler_so_final(xs, W_h, W_x, b):
    return ler_laco(xs, W_h, W_x, b)[-1]


def ler_com_h0(xs, W_h, W_x, b):
    return np.vstack([np.zeros(W_h.shape[0]), ler_laco(xs, W_h, W_x, b)])


def ler_atrasado(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for x in xs:
        estados.append(h)
        h = np.tanh(W_h @ h + W_x @ x + b)
    return np.array(estados)


def ler_sem_carregar(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for x in xs:
        h_novo = np.tanh(W_h @ h + W_x @ x + b)  # esqueceu h = h_novo
        estados.append(h_novo)
    return np.array(estados)


def ler_mesmo_array(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for x in xs:
        h[:] = np.tanh(W_h @ h + W_x @ x + b)
        estados.append(h)
    return estados


def ler_de_tras(xs, W_h, W_x, b):
    return ler_laco(xs[::-1], W_h, W_x, b)


def ler_invertido(xs, W_h, W_x, b):
    return ler_laco(xs, W_h, W_x, b)[::-1]


def ler_sem_tanh(xs, W_h, W_x, b):
    return _estados_ref(xs, W_h, W_x, b, passo=lambda h, x: W_h @ h + W_x @ x + b)


def ler_transposta(xs, W_h, W_x, b):
    return _estados_ref(xs, W_h, W_x, b, passo=lambda h, x: np.tanh(h @ W_h + W_x @ x + b))


EXEMPLOS_LER = {
    "só o estado final": ler_so_final,
    "incluiu o estado inicial": ler_com_h0,
    "guardou o estado antes de ler o token": ler_atrasado,
    "o estado não passa adiante": ler_sem_carregar,
    "o mesmo array guardado T vezes": (ler_mesmo_array, "referência"),
    "leu de trás para frente": ler_de_tras,
    "estados na ordem inversa": ler_invertido,
    "passo sem o tanh": ler_sem_tanh,
    "passo com W_h transposta": ler_transposta,
    "passo errado dentro do laço": (lambda xs, W_h, W_x, b: _estados_ref(
        xs, W_h, W_x, b, passo=lambda h, x: np.tanh(W_h @ h + W_x @ x)), "check_passo_rnn"),
    "faltou o último token": lambda xs, W_h, W_x, b: ler_laco(xs[:-1], W_h, W_x, b),
    "pulou o primeiro token": lambda xs, W_h, W_x, b: ler_laco(xs[1:], W_h, W_x, b),
    "estados transpostos": lambda xs, W_h, W_x, b: np.column_stack(list(ler_laco(xs, W_h, W_x, b))),
}


@pytest.mark.parametrize("nome", list(EXEMPLOS_LER))
def test_ler_sequencia_names_every_mistake(nome):
    confere_erro_nomeado(licao.LER_SEQUENCIA, EXEMPLOS_LER, nome)


@pytest.mark.parametrize("fn", [ler_laco, ler_prealocado_float32, ler_lista_de_listas, ler_vetor_linha])
def test_ler_sequencia_accepts_right_answers_written_differently(fn, capsys):
    assert licao.check_ler_sequencia(fn) is True
    assert "Correto" in capsys.readouterr().out


def test_ler_sequencia_the_loop_is_the_students():
    """O exercício é o laço: a RNN pronta (TanhRNN(…).run) dá os números certos, mas é recusada, com nome; um passo
    pronto dentro do laço do estudante (recurrent.rnn_step) vale, como o passo_rnn dele."""
    v = corrigir(licao.LER_SEQUENCIA, ler_com_o_modelo)
    assert not v.ok and v.erro == "usou a RNN pronta" and "o laço" in v.mensagem, v.mensagem
    assert corrigir(licao.LER_SEQUENCIA, ler_prealocado_float32).ok  # usa recurrent.rnn_step


def test_ler_sequencia_stub_and_unknown_mistake():
    def esqueleto(xs, W_h, W_x, b):
        raise NotImplementedError

    assert corrigir(licao.LER_SEQUENCIA, esqueleto).erro == "pendente"

    def dobrado(xs, W_h, W_x, b):
        return 2 * ler_laco(xs, W_h, W_x, b)

    v = corrigir(licao.LER_SEQUENCIA, dobrado)
    assert not v.ok and v.erro == "valor" and "esperava" in v.mensagem


def test_ler_sequencia_cases_use_the_notebook_network():
    casos = licao.LER_SEQUENCIA.casos()
    rnn = r.make_tanh_rnn(4, 8, seed=0)
    assert any(np.array_equal(c.entradas["W_h"], rnn.W_h) for c in casos)
    assert any(len(c.entradas["xs"]) == 1 for c in casos)
    assert any(c.entradas["W_h"].shape[0] == c.entradas["xs"].shape[1] for c in casos)  # n = d


# --- a previsão da capacidade (a caixa) ----------------------------------------------------------------


@pytest.mark.parametrize(("previsao", "erro"), [(32, "um token por número"), (64, "multiplicou n por d"),
                                               (2, "o tamanho de um token"), (15, "um a menos"), ("17", "um a mais"),
                                               (30, "valor"), ("muitos", "tipo"), (None, "pendente")])
def test_previsao_capacidade_names_the_misconception(previsao, erro):
    v = corrigir_previsao(licao.PREVISAO_CAPACIDADE, previsao)
    assert not v.ok and v.erro == erro, v.mensagem
    # sem previsão ou com uma ilegível, não revela: um erro de digitação não custa a previsão
    assert ("A resposta: 16" in v.mensagem) == (erro not in ("pendente", "tipo")), v.mensagem


@pytest.mark.parametrize("previsao", [16, 16.0, "16", " 16,0 ", np.int64(16)])
def test_previsao_capacidade_accepts_sixteen(previsao):
    assert corrigir_previsao(licao.PREVISAO_CAPACIDADE, previsao).ok


@pytest.mark.parametrize("previsao", [16.5, "16,5", "15,6", 16.4, (16, 5)])
def test_previsao_capacidade_a_number_of_tokens_is_whole(previsao):
    """16,5 não é 16 arredondado: T conta tokens inteiros. A caixa pede um inteiro, sem revelar a resposta."""
    v = corrigir_previsao(licao.PREVISAO_CAPACIDADE, previsao)
    assert not v.ok and v.erro == "tipo", v.mensagem
    assert "A resposta" not in v.mensagem and "16 tokens" not in v.mensagem
    caixa = licao.prever_capacidade()
    assert caixa.conferir("16,5") is False and not caixa.conferida
    assert caixa.conferir("16") is True


@pytest.mark.parametrize(("digitado", "erro"), [("32", "um token por número"), ("64", "multiplicou n por d"),
                                               ("2", "o tamanho de um token"), ("15", "um a menos"),
                                               ("17", "um a mais"), ("10", "valor")])
def test_prediction_box_names_each_mistake_as_typed(digitado, erro):
    caixa = licao.prever_capacidade()
    assert caixa.conferir(digitado) is False and caixa.conferida
    assert caixa.veredito.erro == erro
    assert "A resposta: 16" in caixa.mensagem.value


def test_prediction_box_reads_brazilian_numbers_and_reveals_once():
    caixa = licao.prever_capacidade()
    assert caixa.conferir("dezesseis") is False and not caixa.conferida  # ilegível: pede outra, não revela
    assert "16" not in caixa.mensagem.value
    assert caixa.conferir("") is False and not caixa.conferida
    assert caixa.conferir("16,0") is True and caixa.conferida
    assert "A resposta: 16" in caixa.mensagem.value
    assert caixa.conferir("32") is True  # a primeira previsão legível é a que vale
    assert caixa.entrada.disabled and caixa.botao.disabled


def test_prediction_example_is_legible_and_not_the_answer():
    exemplo = licao.PREVISAO_CAPACIDADE.exemplo
    assert exemplo == "10"
    v = corrigir_previsao(licao.PREVISAO_CAPACIDADE, ler_digitado(exemplo))
    assert not v.ok and v.erro == "valor"


def test_prediction_clues_are_what_would_give_it_away():
    pistas = licao.PREVISAO_CAPACIDADE.pistas_da_resposta()
    assert "T = 16" in pistas and "32 / 2" in pistas and "16 tokens" in pistas
    assert "16" not in pistas  # sozinho, o número aparece na página por outros motivos (n = 16 no painel)
    assert all(p in licao.PREVISAO_CAPACIDADE.revelar or p in ("T=16", "T ≤ 16", "até 16", "cabem 16", "32/2",
                                                               "n / d = 16", "(T = 16)") for p in pistas)


@pytest.mark.parametrize("digitado", ["7", "13", "20", "1 000"])
def test_an_unnamed_guess_still_learns_what_the_question_was(digitado):
    """Um palpite que nenhum erro nomeia (o alcance da seção 3, o que as redes sorteadas guardam, "muitos") recebe
    a revelação, que diz que a pergunta é a melhor rede possível e por que nenhuma passa do teto."""
    v = corrigir_previsao(licao.PREVISAO_CAPACIDADE, ler_digitado(digitado))
    assert v.erro == "valor"
    assert "melhor rede possível, não sobre as redes sorteadas" in v.mensagem
    assert "por mais que a rede misture os tokens" in v.mensagem


def test_previsao_capacidade_is_what_the_ideal_memory_measures():
    """O 16 da previsão é o que se mede: a memória ideal com n = 32 e d = 2 reconstrói tudo até T = 16, não além."""
    xs = r.random_signs(1500, 20, 2, seed=3)
    c = r.reconstruction_curve(r.make_shift_register(32, 2), xs, n_train=1000)
    assert c.fraction[15] > 0.999 and c.fraction[16] < 0.96
    assert c.lengths[c.fraction >= 0.99].max() == licao.PREVISAO_CAPACIDADE.certo == 32 // 2


# --- as figuras -------------------------------------------------------------------------------------


def test_capacity_and_history_figures_draw():
    xs = r.random_signs(600, 12, 4, seed=1)
    curvas = {"ideal": r.reconstruction_curve(r.make_shift_register(16, 4), xs, n_train=400),
              "tanh": r.reconstruction_curve(r.make_tanh_rnn(16, 4, seed=0), xs, n_train=400)}
    fig, ax = plt.subplots()
    licao.desenhar_capacidade(ax, curvas, r.attention_reconstruction_curve(xs, n_train=400))
    rotulos = [t.get_text() for t in ax.get_legend().get_texts()]
    assert rotulos[:2] == ["atenção (guarda os T tokens)", "teto: min(1, n / (T·d))"] and "ideal" in rotulos
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), np.minimum(1, 16 / (4 * np.arange(1, 13))))
    plt.close(fig)
    fig, axes = plt.subplots(1, 2)
    licao.desenhar_historia(axes)
    textos = " ".join(t.get_text() for ax in axes for t in ax.texts + [ax.title])
    assert "Sutskever" in textos and "Bahdanau" in textos and "ilustrativo" in textos
    plt.close(fig)
