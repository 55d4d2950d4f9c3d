"""helpers.recurrent: a RNN à mão, formas, erros em português e a tendência medida do gargalo."""

import math

import numpy as np
import pytest

from helpers import recurrent as r

# o exemplo pequeno do notebook 01 (n = 2, d = 3)
H = np.array([0.5, -1.0])
X = np.array([0.0, 1.0, 0.0])
W_H = np.array([[0.5, -0.2], [0.3, 0.8]])
W_X = np.array([[1.0, -1.0, 0.5], [0.0, 2.0, -0.5]])
B = np.array([0.1, -0.1])


@pytest.fixture(scope="module")
def grade():
    return r.memory_grid()


# --- um passo --------------------------------------------------------------------------------------


def test_rnn_step_by_hand():
    # W_h h = (0.25 + 0.2, 0.15 - 0.8) = (0.45, -0.65); W_x x = coluna 1 = (-1, 2); + b = (-0.45, 1.25)
    esperado = np.array([math.tanh(-0.45), math.tanh(1.25)])
    assert np.allclose(r.rnn_step(H, X, W_H, W_X, B), esperado)
    assert np.allclose(esperado, [-0.4219, 0.8483], atol=1e-4)


def test_rnn_step_batch_shapes():
    hs = np.stack([H, -H, np.zeros(2)])
    xs = np.stack([X, X, np.array([1.0, 0.0, 0.0])])
    out = r.rnn_step(hs, xs, W_H, W_X, B)
    assert out.shape == (3, 2)
    assert np.allclose(out[0], r.rnn_step(H, X, W_H, W_X, B))
    assert np.allclose(out[2], np.tanh(W_X[:, 0] + B))  # h = 0: só a entrada e o viés


@pytest.mark.parametrize(
    ("args", "trecho"),
    [
        ((H, X, np.ones((2, 3)), W_X, B), "W_h precisa ser quadrada"),
        ((H, X, W_H, np.ones((3, 3)), B), "W_x precisa ter forma (n, d) = (2, d)"),
        ((H, X, W_H, W_X, np.ones(3)), "b precisa ter forma (n,) = (2,)"),
        ((np.ones(3), X, W_H, W_X, B), "h precisa ter forma (..., n) com n = 2"),
        ((H, np.ones(2), W_H, W_X, B), "x precisa ter forma (..., d) com d = 3"),
        ((np.array([np.nan, 0.0]), X, W_H, W_X, B), "h contém NaN"),
        ((H, X, W_H, W_X, [0.1, "a"]), "b precisa ser um array numérico"),
    ],
)
def test_rnn_step_rejects_bad_input(args, trecho):
    with pytest.raises(ValueError, match=trecho.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        r.rnn_step(*args)


# --- os modelos ------------------------------------------------------------------------------------


def test_tanh_rnn_run_matches_step_loop_and_keeps_size():
    rnn = r.make_tanh_rnn(4, 8, seed=0)
    tokens = np.array([3, 1, 4, 1, 5, 2, 6])
    estados = rnn.run(r.one_hot(tokens, 8))
    assert estados.shape == (7, 4)
    h = np.zeros(4)
    for t, tok in enumerate(tokens):
        h = r.rnn_step(h, r.one_hot(tok, 8), rnn.W_h, rnn.W_x, rnn.b)
        assert np.allclose(estados[t], h)
    # o primeiro estado parte de h_0 = 0
    assert np.allclose(estados[0], np.tanh(rnn.W_x[:, 3] + rnn.b))
    longa = rnn.run(r.one_hot(r.random_tokens(2, 1000, 8, seed=3), 8))
    assert longa.shape == (2, 1000, 4)
    assert np.all(np.abs(longa) < 1) and np.all(np.isfinite(longa))


def test_make_tanh_rnn_spectral_radius_and_seed():
    rnn = r.make_tanh_rnn(16, 8, spectral_radius=0.7, seed=5)
    assert math.isclose(float(np.max(np.abs(np.linalg.eigvals(rnn.W_h)))), 0.7, rel_tol=1e-9)
    assert (rnn.n, rnn.d) == (16, 8) and rnn.W_x.shape == (16, 8) and rnn.b.shape == (16,)
    assert np.array_equal(r.make_tanh_rnn(16, 8, spectral_radius=0.7, seed=5).W_h, rnn.W_h)
    assert not np.array_equal(r.make_tanh_rnn(16, 8, spectral_radius=0.7, seed=6).W_h, rnn.W_h)


@pytest.mark.parametrize(
    ("kwargs", "trecho"),
    [
        (dict(n=0, d=8), "n precisa ser um inteiro positivo"),
        (dict(n=4, d=8, spectral_radius=-1), "spectral_radius precisa ser um número finito e positivo"),
        (dict(n=4, d=8, input_scale=float("nan")), "input_scale precisa ser um número finito e positivo"),
        (dict(n=4.5, d=8), "n precisa ser um inteiro"),
    ],
)
def test_make_tanh_rnn_rejects_bad_input(kwargs, trecho):
    with pytest.raises(ValueError, match=trecho):
        r.make_tanh_rnn(**kwargs)


def test_run_rejects_bad_sequences():
    rnn = r.make_tanh_rnn(4, 8)
    with pytest.raises(ValueError, match="xs precisa ter forma"):
        rnn.run(np.zeros((5, 3)))
    with pytest.raises(ValueError, match="sequência está vazia"):
        rnn.run(np.zeros((0, 8)))
    with pytest.raises(ValueError, match="contém inf"):
        rnn.run(np.full((2, 8), np.inf))


def test_gated_step_by_hand():
    g = r.make_gated_rnn(3, 4, seed=2)
    h = np.array([0.2, -0.5, 0.9])
    x = np.array([0.0, 0.0, 1.0, 0.0])
    z = 1 / (1 + np.exp(-(g.U_z @ h + g.W_z @ x + g.b_z)))
    cand = np.tanh(g.W_h @ h + g.W_x @ x + g.b)
    assert np.allclose(g.gate(h, x), z)
    assert np.allclose(g.step(h, x), (1 - z) * h + z * cand)
    assert g.run(r.one_hot([1, 2, 3], 4)).shape == (3, 3)


def test_gated_closed_gate_keeps_state():
    # viés da porta muito negativo → z ≈ 0 → o estado praticamente não muda
    g = r.make_gated_rnn(3, 4, gate_bias=(-40.0, -40.0), seed=1)
    h = np.array([0.3, -0.7, 0.1])
    assert np.allclose(g.step(h, np.eye(4)[0]), h, atol=1e-12)


def test_make_gated_rnn_shares_candidate_weights_and_validates():
    g = r.make_gated_rnn(8, 8, seed=4)
    t = r.make_tanh_rnn(8, 8, seed=4)
    assert np.array_equal(g.W_h, t.W_h) and np.array_equal(g.W_x, t.W_x)
    assert np.all((g.b_z >= -3) & (g.b_z <= 0))
    with pytest.raises(ValueError, match="gate_bias precisa ser"):
        r.make_gated_rnn(4, 4, gate_bias=(0.0, -1.0))


# --- dados e leitura -------------------------------------------------------------------------------


def test_random_tokens_and_one_hot():
    toks = r.random_tokens(50, 7, 8, seed=0)
    assert toks.shape == (50, 7) and toks.min() >= 0 and toks.max() <= 7
    assert np.array_equal(toks, r.random_tokens(50, 7, 8, seed=0))
    oh = r.one_hot(toks, 8)
    assert oh.shape == (50, 7, 8) and np.all(oh.sum(-1) == 1)
    assert np.all(np.argmax(oh, -1) == toks)
    with pytest.raises(ValueError, match="entre 0 e vocab-1 = 7"):
        r.one_hot([0, 8], 8)
    with pytest.raises(ValueError, match="tokens precisam ser inteiros"):
        r.one_hot([0.0, 1.0], 8)
    with pytest.raises(ValueError, match="vocab precisa ser um inteiro >= 2"):
        r.random_tokens(3, 3, 1)


def test_fit_ridge_recovers_a_linear_map():
    rng = np.random.default_rng(0)
    F = rng.normal(size=(200, 5))
    A = rng.normal(size=(5, 3))
    c = np.array([1.0, -2.0, 0.5])
    W = r.fit_ridge(F, F @ A + c, lam=1e-9)
    assert W.shape == (6, 3)
    assert np.allclose(W[:-1], A, atol=1e-5) and np.allclose(W[-1], c, atol=1e-5)
    assert np.allclose(r.predict_ridge(F, W), F @ A + c, atol=1e-5)
    # colunas repetidas: com lam > 0 o sistema continua resolvível e sem NaN
    W2 = r.fit_ridge(np.concatenate([F, F], axis=1), F @ A, lam=1e-3)
    assert np.all(np.isfinite(W2))


def test_fit_ridge_rejects_bad_input():
    with pytest.raises(ValueError, match="o mesmo N > 0"):
        r.fit_ridge(np.zeros((4, 2)), np.zeros((5, 1)))
    with pytest.raises(ValueError, match="lam precisa ser"):
        r.fit_ridge(np.zeros((4, 2)), np.zeros((4, 1)), lam=0)
    with pytest.raises(ValueError, match="features contém NaN"):
        r.fit_ridge(np.full((4, 2), np.nan), np.zeros((4, 1)))
    with pytest.raises(ValueError, match="não combinam"):
        r.predict_ridge(np.zeros((4, 2)), np.zeros((2, 1)))


# --- a medida --------------------------------------------------------------------------------------


def test_recall_curve_matches_the_notebook_pipeline():
    """recall_curve (float32, tudo de uma vez) = rodar a RNN + fit_ridge à mão (float64), como na seção 3."""
    rnn = r.make_tanh_rnn(16, 8, seed=0)
    acc = r.recall_curve(rnn, 12, n_train=600, n_test=300, seed=1)
    seqs = r.random_tokens(900, 12, 8, seed=1)
    treino, teste = seqs[:600], seqs[600:]
    for T in (1, 3, 6, 12):
        h_tr = rnn.run(r.one_hot(treino[:, :T], 8))[:, -1]
        h_te = rnn.run(r.one_hot(teste[:, :T], 8))[:, -1]
        W = r.fit_ridge(h_tr, r.one_hot(treino[:, 0], 8))
        manual = np.mean(r.predict_ridge(h_te, W).argmax(1) == teste[:, 0])
        assert abs(acc[T - 1] - manual) <= 2 / 300, (T, acc[T - 1], manual)


def test_memory_falls_to_chance_with_length(grade):
    acaso, margem = grade.chance, grade.chance_margin
    assert acaso == 1 / 8
    for i, n in enumerate(grade.sizes):
        # curto: o primeiro token é lido quase sempre
        assert grade.tanh[i, 0] >= 0.95, n
        # longo (T = 30 … 40): a média está dentro da margem do acaso
        assert abs(grade.tanh[i, 29:].mean() - acaso) < margem, (n, grade.tanh[i, 29:].mean())
    i32 = grade.index(1, 32)[0]
    assert grade.tanh[i32, 2] > 0.95 and grade.tanh[i32, 9] < acaso + margem


def test_bigger_state_and_gate_only_delay(grade):
    def alcance(curva):
        return int(grade.lengths[curva >= 0.5].max())

    alcances = [alcance(c) for c in grade.tanh]
    assert alcances == sorted(alcances) and alcances[-1] > alcances[0]
    assert alcances[-1] < 12  # n = 128 ainda perde o 1º token bem antes de T = 40
    i128 = grade.index(1, 128)[0]
    assert alcance(grade.gated[i128]) > alcances[-1]  # a porta estica a memória…
    assert grade.gated[i128, -1] < 0.25  # …mas em T = 40 já está perto do acaso
    assert grade.gated[i128, -1] < grade.gated[i128, 19] < grade.gated[i128, 9]


def test_attention_is_exact_at_every_length(grade):
    assert np.all(grade.attention == 1.0)
    toks = r.random_tokens(20, 1000, 8, seed=9)
    previsto, pesos = r.attention_recall(toks, 8)
    assert np.array_equal(previsto, toks[:, 0])
    assert math.isclose(pesos[0], math.exp(10) / (math.exp(10) + 999), rel_tol=1e-9)
    assert pesos.shape == (1000,) and math.isclose(pesos.sum(), 1.0)


def test_attention_recall_other_positions_and_errors():
    toks = np.array([5, 2, 7, 2, 0, 3])
    for pos in range(6):
        previsto, pesos = r.attention_recall(toks, 8, position=pos)
        assert previsto == toks[pos] and np.argmax(pesos) == pos
    with pytest.raises(ValueError, match="position=6 não existe"):
        r.attention_recall(toks, 8, position=6)
    with pytest.raises(ValueError, match="sharpness precisa ser"):
        r.attention_recall(toks, 8, sharpness=0)
    with pytest.raises(ValueError, match="entre 0 e vocab-1"):
        r.attention_recall(toks, 4)


def test_attention_curve_uses_the_same_test_sequences():
    acc = r.attention_recall_curve(5, 8, n_train=10, n_test=30, seed=2)
    assert acc.shape == (5,) and np.all(acc == 1.0)
    # com nitidez baixa e sequência longa, a atenção também erra: a medida não está viciada
    toks = r.random_tokens(300, 40, 8, seed=2)
    previsto, _ = r.attention_recall(toks, 8, sharpness=0.5)
    assert np.mean(previsto == toks[:, 0]) < 0.9


def test_memory_grid_is_cached_readonly_and_indexed(grade):
    assert r.memory_grid() is grade
    assert grade.tanh.shape == grade.gated.shape == (6, 40) and grade.attention.shape == (40,)
    with pytest.raises(ValueError):
        grade.tanh[0, 0] = 0.5
    assert grade.index(8, 32) == (3, 7)
    with pytest.raises(ValueError, match="não está na grade"):
        grade.index(8, 33)
    with pytest.raises(ValueError, match="fora da grade"):
        grade.index(41, 32)
    assert math.isclose(grade.chance_margin, 3 * math.sqrt(0.125 * 0.875 / 500))


# --- o gradiente que chega ao primeiro token ----------------------------------------------------------


def _h_final(model, xs):
    return model.run(xs)[-1]


@pytest.mark.parametrize("fabrica", [r.make_tanh_rnn, r.make_gated_rnn])
def test_gradient_to_first_token_matches_finite_differences(fabrica):
    model = fabrica(6, 3, seed=4)
    xs = np.random.default_rng(0).normal(size=(5, 3))
    eps = 1e-6
    for t in (1, 3, 5):
        J = np.column_stack([
            (_h_final(model, xs[:t] + eps * np.outer(np.eye(5)[0][:t], e))
             - _h_final(model, xs[:t] - eps * np.outer(np.eye(5)[0][:t], e))) / (2 * eps)
            for e in np.eye(3)
        ])
        assert r.gradient_to_first_token(model, xs)[t - 1] == pytest.approx(np.linalg.norm(J), rel=1e-5)


def test_gate_lets_the_gradient_travel_further():
    xs = r.one_hot(r.random_tokens(1, 40, 8, seed=2)[0], 8)
    tanh = r.gradient_to_first_token(r.make_tanh_rnn(128, 8, seed=0), xs)
    porta = r.gradient_to_first_token(r.make_gated_rnn(128, 8, seed=0), xs)
    assert tanh[39] < 1e-4 < 0.05 < porta[39]
    with pytest.raises(ValueError, match="uma sequência só"):
        r.gradient_to_first_token(r.make_tanh_rnn(4, 8), np.zeros((2, 3, 8)))


# --- a capacidade ------------------------------------------------------------------------------------


def test_random_signs():
    xs = r.random_signs(300, 5, 4, seed=1)
    assert xs.shape == (300, 5, 4) and set(np.unique(xs)) == {-1.0, 1.0}
    assert abs(xs.mean()) < 0.05 and np.array_equal(xs, r.random_signs(300, 5, 4, seed=1))


def test_shift_register_keeps_the_last_tokens_exactly():
    reg = r.make_shift_register(6, 2)
    xs = np.arange(1, 9, dtype=float).reshape(4, 2)  # tokens (1,2), (3,4), (5,6), (7,8)
    estados = reg.run(xs)
    assert estados.shape == (4, 6)
    np.testing.assert_array_equal(estados[0], [1, 2, 0, 0, 0, 0])
    np.testing.assert_array_equal(estados[3], [7, 8, 5, 6, 3, 4])  # o token (1, 2) caiu do fim
    with pytest.raises(ValueError, match="múltiplo de d"):
        r.make_shift_register(7, 2)


def test_reconstruction_never_beats_the_ceiling_and_the_ideal_reaches_it():
    xs = r.random_signs(2500, 24, 4, seed=5)
    ideal = r.reconstruction_curve(r.make_shift_register(32, 4), xs, n_train=2000)
    np.testing.assert_allclose(ideal.fraction[:8], 1.0, atol=1e-3)
    np.testing.assert_allclose(ideal.capacity[8:], 32, atol=1.5)  # 8 tokens de 4 números, menos o ruído
    for modelo in (r.make_tanh_rnn(32, 4, seed=0), r.make_gated_rnn(32, 4, seed=0),
                   r.make_tanh_rnn(32, 4, spectral_radius=0.999, input_scale=0.05, seed=0)):
        c = r.reconstruction_curve(modelo, xs, n_train=2000)
        assert np.all(c.capacity <= 32 + 1.0), c.capacity.max()
        assert np.all(c.fraction <= c.ceiling + 0.02)
        assert c.fraction[-1] < 0.5 * c.fraction[0]
    assert ideal.ceiling[7] == 1.0 and ideal.ceiling[15] == pytest.approx(0.5)


def test_reconstruction_rejects_bad_input():
    xs = r.random_signs(10, 3, 2)
    with pytest.raises(ValueError, match="n_train = 10 não deixa"):
        r.reconstruction_curve(r.make_shift_register(4, 2), xs, n_train=10)
    with pytest.raises(ValueError, match=r"forma \(N, L, d\)"):
        r.reconstruction_curve(r.make_shift_register(4, 2), xs[0], n_train=1)


def test_attention_reconstructs_every_position():
    xs = r.random_signs(300, 30, 4, seed=2)
    frac = r.attention_reconstruction_curve(xs, n_train=100)
    assert frac.shape == (30,) and frac.min() > 0.9999
    borrada = r.attention_reconstruction_curve(xs, n_train=100, sharpness=1.0)
    assert borrada[0] > 0.999 and borrada[-1] < 0.2  # sem nitidez, a atenção mistura as posições
