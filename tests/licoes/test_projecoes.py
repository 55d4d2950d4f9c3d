"""Notebook 06: o painel das projeções, o exemplo "banco", os corretores de ``projetar`` e de
``autoatencao``, a caixa da previsão da simetria e as soluções.

Os números do painel são comparados com uma conta independente, feita aqui com numpy puro e uma
softmax escrita à parte (sem ``helpers.attention``).
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from helpers import attention, plots
from helpers.corretor import corrigir, corrigir_previsao
from helpers.licoes import projecoes as licao
from helpers.licoes.projecoes import corretores_autoatencao as auto
from helpers.licoes.projecoes import corretores_projecoes as proj
from helpers.previsao import ler_digitado
from tests._corretor import confere_erro_nomeado
from tests._notebooks import solucoes_do_notebook

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "06_projecoes_qkv.ipynb"
FRASES = (licao.FRASE_DINHEIRO, licao.FRASE_PRACA)


def _softmax_linhas(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _cos(a, b):
    return float(a @ b) / (math.sqrt(float(a @ a)) * math.sqrt(float(b @ b)))


def referencia_banco(forca_query=2.0, financas_key=1.0, lugar_key=1.0):
    """Pesos e saída de "banco" nas duas frases, com as matrizes escritas de novo aqui."""
    W_q = np.zeros((4, 2))
    W_q[0, 0] = W_q[1, 0] = 0.5
    W_q[2, 0] = forca_query
    W_k = np.zeros((4, 2))
    W_k[0, 0], W_k[1, 0], W_k[2, 0], W_k[3, 1] = financas_key, lugar_key, -1.0, 1.0
    W_v = np.zeros((4, 3))
    W_v[0, 0] = W_v[1, 1] = W_v[3, 2] = 1.0
    resultado = []
    for frase in FRASES:
        X = np.array([licao.EMBEDDINGS_BANCO[t] for t in frase])
        Q, K, V = X @ W_q, X @ W_k, X @ W_v
        pesos = _softmax_linhas(Q @ K.T / math.sqrt(2))
        i = frase.index("banco")
        saida = pesos[i] @ V
        resultado.append({"pesos": pesos, "saida": saida, "cos_financas": _cos(saida, np.array([1.0, 0, 0])),
                          "cos_lugar": _cos(saida, np.array([0, 1.0, 0]))})
    return resultado


# --- o exemplo "banco": a afirmação central do notebook ---------------------------------------------


def test_banco_vai_para_financas_na_frase_1_e_para_assento_na_frase_2():
    r1, r2 = referencia_banco()
    # sozinho, o value de "banco" é (0.5, 0.5, 0): 45° dos dois sentidos
    assert _cos(np.array([0.5, 0.5, 0.0]), np.array([1.0, 0, 0])) == pytest.approx(1 / math.sqrt(2))
    assert r1["cos_financas"] == pytest.approx(0.9814, abs=1e-4) and r1["cos_lugar"] < 0.1
    assert r2["cos_lugar"] == pytest.approx(0.9814, abs=1e-4) and r2["cos_financas"] < 0.1
    np.testing.assert_allclose(r1["pesos"][4], [0.398, 0.068, 0.398, 0.068, 0.068], atol=1e-3)
    np.testing.assert_allclose(r2["pesos"][2], [0.398, 0.068, 0.068, 0.068, 0.398], atol=1e-3)
    np.testing.assert_allclose(r1["saida"], [0.790, 0.074, 0.136], atol=1e-3)


def test_com_identidade_banco_olha_para_si_e_os_escores_sao_simetricos():
    X = np.array([licao.EMBEDDINGS_BANCO[t] for t in licao.FRASE_DINHEIRO])
    z = X @ X.T / 2
    np.testing.assert_array_equal(z, z.T)
    pesos = _softmax_linhas(z)
    assert int(np.argmax(pesos[4])) == 4 and pesos[4, 4] == pytest.approx(0.317, abs=1e-3)
    saida = pesos[4] @ X
    assert _cos(saida, np.array([1.0, 0, 0, 0])) == pytest.approx(0.744, abs=1e-3)
    # a exceção: a sombra de "salário" sobre "depositei" é mais comprida que "depositei" (x·y > x·x)
    x, y = X[0], X[2]
    assert x @ y > x @ x
    assert pesos[0, 2] > pesos[0, 0]


# --- o painel -------------------------------------------------------------------------------------


def _confere(p):
    v = p.valores()
    r1, r2 = referencia_banco(v["forca_query"], v["financas_key"], v["lugar_key"])
    e = p.estado
    for n, r in ((1, r1), (2, r2)):
        np.testing.assert_allclose(e[f"pesos_{n}"], r["pesos"], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(e[f"saida_{n}"], r["saida"], rtol=1e-12, atol=1e-14)
        assert e[f"cos_financas_{n}"] == pytest.approx(r["cos_financas"], rel=1e-12)
        assert e[f"cos_lugar_{n}"] == pytest.approx(r["cos_lugar"], rel=1e-12)
        assert f"{r['cos_financas']:.3f} · {r['cos_lugar']:.3f}" in p.texto.value
        assert np.allclose(e[f"pesos_{n}"].sum(axis=1), 1.0)
    return r1, r2


def test_padrao_e_o_exemplo_da_secao_3():
    p = licao.painel_projecoes()
    r1, r2 = _confere(p)
    np.testing.assert_allclose(p.estado["q_banco"], [2.5, 0.0])
    texto = p.texto.value
    for trecho in ("0.981 · 0.092", "0.092 · 0.981", "salário 0.398", "praça 0.398", "(0.790, 0.074, 0.136)", "(2.50, 0.00)"):
        assert trecho in texto, trecho


@pytest.mark.parametrize(
    ("valores", "esperado"),
    [
        (dict(forca_query=0.0), {"cos_financas_1": 0.836, "cos_lugar_2": 0.836}),
        (dict(forca_query=4.0), {"cos_financas_1": 0.997, "cos_lugar_2": 0.997}),
        (dict(financas_key=0.0), {"cos_financas_1": 0.748, "cos_lugar_2": 0.980}),
        (dict(lugar_key=-1.0), {"cos_financas_1": 0.978, "cos_lugar_2": 0.231}),
    ],
)
def test_sliders_mudam_os_numeros_como_a_conta_independente(valores, esperado):
    p = licao.painel_projecoes()
    png_antes, texto_antes = p.imagem.value, p.texto.value
    p.definir(**valores)
    _confere(p)
    for chave, valor in esperado.items():
        assert p.estado[chave] == pytest.approx(valor, abs=1e-3), chave
    assert p.imagem.value != png_antes
    assert p.texto.value != texto_antes


def test_forca_zero_divide_os_pesos_e_lugar_negativo_faz_banco_olhar_a_gramatica():
    p = licao.painel_projecoes()
    p.controles["forca_query"].value = 0.0
    np.testing.assert_allclose(p.estado["q_banco"], [0.5, 0.0])
    np.testing.assert_allclose(p.estado["pesos_1"][4], [0.244, 0.171, 0.244, 0.171, 0.171], atol=1e-3)
    p.definir(forca_query=2.0, lugar_key=-1.0)
    np.testing.assert_allclose(p.estado["pesos_2"][2], [0.094, 0.387, 0.066, 0.387, 0.066], atol=1e-3)


@pytest.mark.parametrize("nome", ["forca_query", "financas_key", "lugar_key"])
def test_um_passo_de_cada_slider_muda_figura_e_numeros(nome):
    p = licao.painel_projecoes()
    c = p.controles[nome]
    assert c.min < c.value < c.max
    png_antes, texto_antes = p.imagem.value, p.texto.value
    c.value = c.value + c.step
    _confere(p)
    assert p.imagem.value != png_antes and p.texto.value != texto_antes


def test_todo_controle_aceita_min_e_max_sem_nan():
    p = licao.painel_projecoes()
    for controle in p.controles.values():
        for valor in (controle.min, controle.max):
            controle.value = valor
            for n in (1, 2):
                assert np.all(np.isfinite(p.estado[f"pesos_{n}"])) and np.all(np.isfinite(p.estado[f"saida_{n}"]))
            _confere(p)


def test_as_matrizes_sao_compartilhadas_e_q_de_banco_nao_depende_da_frase():
    p = licao.painel_projecoes()
    e = p.estado
    assert not np.array_equal(e["Q_1"], e["Q_2"])
    np.testing.assert_array_equal(e["Q_1"][4], e["Q_2"][2])
    X1 = np.array([licao.EMBEDDINGS_BANCO[t] for t in licao.FRASE_DINHEIRO])
    np.testing.assert_allclose(e["Q_1"], X1 @ e["W_q"])
    np.testing.assert_allclose(e["K_1"], X1 @ e["W_k"])
    np.testing.assert_allclose(e["V_1"], X1 @ e["W_v"])


def test_o_notebook_usa_os_mesmos_dados_do_painel():
    """Os embeddings e as matrizes escritos na seção 3 do notebook são os do painel (seção 5)."""
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    fontes = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    ns: dict = {"np": np, "attention": attention}
    for fonte in fontes:
        if fonte.startswith("embeddings = {") or fonte.startswith("W_q_banco = "):
            exec(fonte, ns)
    assert {k: tuple(v) for k, v in ns["embeddings"].items()} == licao.EMBEDDINGS_BANCO
    assert tuple(ns["frase_1"]) == licao.FRASE_DINHEIRO and tuple(ns["frase_2"]) == licao.FRASE_PRACA
    for do_notebook, do_painel in zip((ns["W_q_banco"], ns["W_k_banco"], ns["W_v_banco"]), licao.matrizes_banco()):
        np.testing.assert_array_equal(do_notebook, do_painel)


def test_desenhar_pesos_recusa_rotulos_que_nao_batem():
    fig, axes = plots.nova_figura(4, 4)
    with pytest.raises(ValueError, match="rótulos"):
        licao.desenhar_pesos(axes[0, 0], np.full((3, 3), 1 / 3), ["a", "b"])
    licao.desenhar_pesos(axes[0, 0], np.full((2, 3), 1 / 3), ["a", "b"], ["x", "y", "z"])
    assert len(axes[0, 0].texts) == 6


# --- o corretor de projetar ---------------------------------------------------------------------


def _certo(X, W_q, W_k, W_v):
    return X @ W_q, X @ W_k, X @ W_v


def _com_matrizes(*indices):
    """Um projetar que calcula cada papel com a matriz ``indices[papel]`` (0 = W_q, 1 = W_k, 2 = W_v)."""
    def fn(X, W_q, W_k, W_v):
        Ws = (W_q, W_k, W_v)
        return tuple(X @ Ws[j] for j in indices)
    return fn


ERRADAS = {
    "W @ X": (lambda X, a, b, c: (a @ X, b @ X, c @ X), ["W @ X", "erro de forma", "(4, 3) @ (5, 4)", "matmul",
                                                         "Aqui X tem forma (5, 4)"]),
    "X @ W.T": (lambda X, a, b, c: (X @ a.T, X @ b.T, X @ c.T), ["transpôs as matrizes de pesos", "nem roda"]),
    "(X @ W).T": (lambda X, a, b, c: ((X @ a).T, (X @ b).T, (X @ c).T), ["devolveu a transposta"]),
    "X * W": (lambda X, a, b, c: (X * a, X * b, X * c), ["elemento a elemento", "broadcast"]),
    "mesma W": (lambda X, a, b, c: (X @ a, X @ a, X @ a), ["mesma matriz (W_q) para as três"]),
    "K e V trocados": (lambda X, a, b, c: (X @ a, X @ c, X @ b), ["K e V estão trocados"]),
    "Q e K trocados": (lambda X, a, b, c: (X @ b, X @ a, X @ c), ["Q e K estão trocados"]),
    "V com W_k": (lambda X, a, b, c: (X @ a, X @ b, X @ b), ["K e V foram calculados com a mesma matriz, W_k"]),
    "ordem circular": (lambda X, a, b, c: (X @ c, X @ a, X @ b), ["na ordem errada"]),
    "só Q": (lambda X, a, b, c: X @ a, ["o trio (Q, K, V)", "veio ndarray"]),
    "par": (lambda X, a, b, c: (X @ a, X @ b), ["o trio (Q, K, V)", "tamanho 2"]),
}


def test_corretor_aceita_a_resposta_certa(capsys):
    assert licao.check_projecoes(_certo) is True
    assert "✅ Correto!" in capsys.readouterr().out


@pytest.mark.parametrize("nome", list(ERRADAS))
def test_corretor_reconhece_cada_erro(nome, capsys):
    fn, trechos = ERRADAS[nome]
    assert licao.check_projecoes(fn) is False
    saida = capsys.readouterr().out
    assert saida.startswith("❌"), saida
    for trecho in trechos:
        assert trecho in saida, (trecho, saida)
    assert "seção" not in saida


#: uma resposta errada para cada erro nomeado de PROJECOES
NOMEADOS_PROJECOES = {
    "W @ X": lambda X, a, b, c: (a @ X, b @ X, c @ X),
    "X @ W.T": lambda X, a, b, c: (X @ a.T, X @ b.T, X @ c.T),
    "(X @ W).T": lambda X, a, b, c: ((X @ a).T, (X @ b).T, (X @ c).T),
    "X * W": lambda X, a, b, c: (X * a, X * b, X * c),
    "X.T @ W": lambda X, a, b, c: (X.T @ a, X.T @ b, X.T @ c),
    "W_q nas três projeções": _com_matrizes(0, 0, 0),
    "W_k nas três projeções": _com_matrizes(1, 1, 1),
    "W_v nas três projeções": _com_matrizes(2, 2, 2),
    "Q com W_k": _com_matrizes(1, 1, 2),
    "Q com W_v": _com_matrizes(2, 1, 2),
    "K com W_q": _com_matrizes(0, 0, 2),
    "K com W_v": _com_matrizes(0, 2, 2),
    "V com W_q": _com_matrizes(0, 1, 0),
    "V com W_k": _com_matrizes(0, 1, 1),
    "K e V trocados": _com_matrizes(0, 2, 1),
    "Q e K trocados": _com_matrizes(1, 0, 2),
    "Q e V trocados": _com_matrizes(2, 1, 0),
    "trio em ordem circular": _com_matrizes(2, 0, 1),
    "matrizes misturadas entre os papéis": _com_matrizes(1, 0, 0),
    "Q sem projetar (X no lugar de Q)": (lambda X, a, b, c: (X, X @ b, X @ c), "Q = X @ W_q"),
    "K sem projetar (X no lugar de K)": (lambda X, a, b, c: (X @ a, X.copy(), X @ c), "K = X @ W_k"),
    "V sem projetar (X no lugar de V)": (lambda X, a, b, c: [X @ a, X @ b, X], "V = X @ W_v"),
}



@pytest.mark.parametrize("nome", list(NOMEADOS_PROJECOES))
def test_corretor_nomeia_cada_erro_das_projecoes(nome):
    confere_erro_nomeado(licao.PROJECOES, NOMEADOS_PROJECOES, nome)


def test_outra_ordem_circular_e_um_erro_so_em_um_papel_tambem_sao_nomeados():
    assert corrigir(licao.PROJECOES, _com_matrizes(1, 2, 0)).erro == "trio em ordem circular"
    # só Q transposta: o erro tem nome mesmo que K e V estejam certos
    v = corrigir(licao.PROJECOES, lambda X, a, b, c: (X @ a.T, X @ b, X @ c))
    assert v.erro == "X @ W.T", v.mensagem
    v = corrigir(licao.PROJECOES, lambda X, a, b, c: (X @ a, (X @ b).T, X @ c))
    assert v.erro == "(X @ W).T", v.mensagem


def _projetar_laco(X, W_q, W_k, W_v):
    """Um token (uma linha) de cada vez, cada coordenada uma soma de produtos."""
    saidas = []
    for W in (W_q, W_k, W_v):
        M = [[sum(float(X[i, j]) * float(W[j, c]) for j in range(X.shape[1])) for c in range(W.shape[1])]
             for i in range(X.shape[0])]
        saidas.append(M)
    return saidas


CERTAS_PROJECOES = {
    "lista de arrays": lambda X, a, b, c: [X @ a, X @ b, X @ c],
    "listas aninhadas, com laços": _projetar_laco,
    "einsum": lambda X, a, b, c: tuple(np.einsum("nd,dk->nk", X, W) for W in (a, b, c)),
    "float32": lambda X, a, b, c: tuple((X @ W).astype(np.float32) for W in (a, b, c)),
    "np.matmul e .dot": lambda X, a, b, c: (np.matmul(X, a), X.dot(b), np.dot(X, c)),
}


@pytest.mark.parametrize("nome", list(CERTAS_PROJECOES))
def test_projecoes_certas_escritas_de_outro_jeito_passam(nome):
    veredito = corrigir(licao.PROJECOES, CERTAS_PROJECOES[nome])
    assert veredito.ok, veredito.mensagem


def test_corretor_erro_generico_mostra_o_esperado(capsys):
    assert licao.check_projecoes(lambda X, a, b, c: (X @ a + 1, X @ b, X @ c)) is False
    saida = capsys.readouterr().out
    assert "esperava\nQ =\n" in saida and "\nveio\nQ =\n" in saida
    assert corrigir(licao.PROJECOES, lambda X, a, b, c: (X @ a + 1, X @ b, X @ c)).erro == "valor"


def test_corretor_forma_errada_diz_a_forma_de_cada_matriz():
    v = corrigir(licao.PROJECOES, lambda X, a, b, c: (X @ a, X @ b, (X @ c)[:, :1]))
    assert v.erro == "forma"
    assert "deveria ter forma ((4, 4), (4, 4), (4, 4)), mas veio ((4, 4), (4, 4), (4, 1))" in v.mensagem
    assert "uma linha por token" in v.mensagem


def test_corretor_esqueleto_recebe_aviso(capsys):
    def projetar(X, W_q, W_k, W_v):
        raise NotImplementedError("complete aqui")

    assert licao.check_projecoes(projetar) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


def test_no_caso_quadrado_as_variantes_sao_todas_distintas():
    """Se duas variantes coincidissem no caso quadrado, o corretor poderia dar o nome errado."""
    caso = proj._casos_projecoes()[0]
    X, Ws = caso.entradas["X"], [caso.entradas[m] for m in ("W_q", "W_k", "W_v")]
    assert X.shape == (4, 4) and all(W.shape == (4, 4) for W in Ws)
    valores = [v for _, _, v in proj._candidatos_projecao(X, Ws)]
    assert len(valores) == 18
    for i in range(len(valores)):
        for j in range(i + 1, len(valores)):
            assert not np.allclose(valores[i], valores[j]), (i, j)


def test_no_caso_retangular_as_formas_erradas_nao_rodam():
    """W @ X, X @ W.T e X * W viram erro de forma no caso retangular (é o que a mensagem promete)."""
    caso = proj._casos_projecoes()[1]
    X, W_q = caso.entradas["X"], caso.entradas["W_q"]
    assert X.shape == (5, 4) and W_q.shape == (4, 3) and caso.entradas["W_v"].shape == (4, 2)
    for conta in (lambda: W_q @ X, lambda: X @ W_q.T, lambda: X * W_q):
        with pytest.raises(ValueError):
            conta()


# --- o corretor de autoatencao (exercício 2) -------------------------------------------------------


def _sm(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _autoatencao_certa(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = _sm(Q @ K.T / np.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def _com(pesos_de, mistura=lambda Q, K, V, X: V):
    """Uma autoatenção errada: ``pesos_de(Q, K, V, X)`` dá os pesos, ``mistura`` o que eles ponderam."""
    def fn(X, W_q, W_k, W_v):
        Q, K, V = X @ W_q, X @ W_k, X @ W_v
        pesos = pesos_de(Q, K, V, X)
        return pesos @ mistura(Q, K, V, X), pesos
    return fn


def _com_softmax(sm, raiz=np.sqrt):
    """A autoatenção certa, com ``sm`` no lugar da softmax estável.

    Com ``raiz=np.sqrt`` a divisão por um escalar float64 do numpy leva os escores de float32 a float64;
    com ``raiz=math.sqrt`` (ou ``d ** 0.5``) eles continuam float32.
    """
    return _com(lambda Q, K, V, X: sm(Q @ K.T / raiz(K.shape[-1])))


def _w_vezes_x(X, W_q, W_k, W_v):
    Q, K, V = W_q @ X, W_k @ X, W_v @ X
    pesos = _sm(Q @ K.T / np.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def _sm_ingenua(z):
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _sm_menos_minimo(z):
    e = np.exp(z - z.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sm_maximo_global(z):
    e = np.exp(z - z.max())
    return e / e.sum(axis=-1, keepdims=True)


def _sm_maximo_se_positivo(z):
    e = np.exp(z - np.maximum(z.max(axis=-1, keepdims=True), 0.0))
    return e / e.sum(axis=-1, keepdims=True)


def _sm_soma_total(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum()


def _sm_menos_media(z):
    e = np.exp(z - z.mean(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


_ingenua = _com_softmax(_sm_ingenua)


def _sm_sem_keepdims(no_maximo=True, na_soma=True):
    """A softmax à mão com o ``keepdims=True`` esquecido: em (n, n), o numpy estende (n,) como uma linha."""
    def sm(z):
        e = np.exp(z - (z.max(axis=-1) if no_maximo else z.max(axis=-1, keepdims=True)))
        return e / (e.sum(axis=-1) if na_soma else e.sum(axis=-1, keepdims=True))
    return sm

ERRADAS_AUTOATENCAO = {
    "√d_model": (_com(lambda Q, K, V, X: _sm(Q @ K.T / np.sqrt(X.shape[1]))), ["√d_model = √4", "K.shape[-1]"]),
    "sem escala": (_com(lambda Q, K, V, X: _sm(Q @ K.T)), ["esqueceu de escalar"]),
    "por d_k": (_com(lambda Q, K, V, X: _sm(Q @ K.T / K.shape[1])), ["dividiu por d_k = 3"]),
    "vezes √d_k": (_com(lambda Q, K, V, X: _sm(Q @ K.T * np.sqrt(K.shape[1]))), ["multiplicou por √d_k"]),
    "eixo errado": (_com(lambda Q, K, V, X: _sm(Q @ K.T / np.sqrt(K.shape[1]), axis=0)), ["eixo errado", "axis=-1"]),
    "sem softmax": (_com(lambda Q, K, V, X: Q @ K.T / np.sqrt(K.shape[1])), ["Faltou a softmax"]),
    "sem keepdims na soma": (_com_softmax(_sm_sem_keepdims(no_maximo=False)),
                             ["linhas dos seus pesos não somam 1", "keepdims=True na soma", "(n, 1)"]),
    "sem keepdims em nenhum": (_com_softmax(_sm_sem_keepdims()), ["não somam 1", "keepdims=True na soma"]),
    "sem keepdims no máximo": (_com_softmax(_sm_sem_keepdims(na_soma=False)),
                               ["soma 1, mas as proporções", "keepdims=True no máximo", "(n, 1)"]),
    "soma das keys": (_com(lambda Q, K, V, X: _sm(Q @ K.T / np.sqrt(K.shape[1])), lambda Q, K, V, X: K),
                      ["somou as **keys**"]),
    "X no lugar de V": (_com(lambda Q, K, V, X: _sm(Q @ K.T / np.sqrt(K.shape[1])), lambda Q, K, V, X: X),
                        ["misturou os embeddings X"]),
    "sem projeções": (_com(lambda Q, K, V, X: _sm(X @ X.T / 2), lambda Q, K, V, X: X), ["sem as projeções"]),
    "K e V trocados": (_com(lambda Q, K, V, X: _sm(Q @ V.T / np.sqrt(3)), lambda Q, K, V, X: K),
                       ["K e V estão trocados", "nem roda"]),
    "Q e K trocados": (_com(lambda Q, K, V, X: _sm(K @ Q.T / np.sqrt(K.shape[1]))), ["Q e K estão trocados"]),
    "K com W_q": (_com(lambda Q, K, V, X: _sm(Q @ Q.T / np.sqrt(K.shape[1]))), ["K foi calculado com W_q"]),
    "W @ X": (_w_vezes_x, ["**W @ X**", "nem roda", "X @ W (não W @ X)"]),
    "sem K.T": (_com(lambda Q, K, V, X: _sm(Q @ K / np.sqrt(K.shape[-1]))), ["sem transpor K", "nem roda", "o .T de K"]),
    "instável": (_ingenua, ["escores enormes", "NaN ou inf", "Subtraia o máximo"]),
    "só a saída": (lambda *a: _autoatencao_certa(*a)[0], ["devolver o **par**"]),
    "ordem trocada": (lambda *a: _autoatencao_certa(*a)[::-1], ["ordem trocada"]),
    "pesos transpostos": (lambda *a: (_autoatencao_certa(*a)[0], _autoatencao_certa(*a)[1].T),
                          ["pesos vieram transpostos"]),
    "trio": (lambda X, a, b, c: (X @ a, X @ b, X @ c), ["o par (saídas, pesos)", "tamanho 3"]),
}


def test_corretor_autoatencao_aceita_a_resposta_certa(capsys):
    assert licao.check_autoatencao(_autoatencao_certa) is True
    assert "✅ Correto!" in capsys.readouterr().out


@pytest.mark.parametrize("nome", list(ERRADAS_AUTOATENCAO))
def test_corretor_autoatencao_reconhece_cada_erro(nome, capsys):
    fn, trechos = ERRADAS_AUTOATENCAO[nome]
    assert licao.check_autoatencao(fn) is False
    saida = capsys.readouterr().out
    assert saida.startswith("❌"), saida
    for trecho in trechos:
        assert trecho in saida, (trecho, saida)
    assert "seção" not in saida


#: uma resposta errada para cada erro nomeado de AUTOATENCAO
NOMEADOS_AUTOATENCAO = {
    "subtraiu o máximo só quando positivo (instável)": _com_softmax(_sm_maximo_se_positivo),
    "sem subtrair o máximo (instável)": _ingenua,
    "subtraiu o mínimo (instável)": _com_softmax(_sm_menos_minimo),
    "um máximo só para o lote inteiro (instável)": _com_softmax(_sm_maximo_global),
    "NaN ou inf na resposta": _com_softmax(_sm_menos_media),
    "escala por √d_model": ERRADAS_AUTOATENCAO["√d_model"][0],
    "d_k de fora da função": lambda X, a, b, c: (lambda Q, K, V: (lambda w: (w @ V, w))(
        attention.softmax(Q @ K.T / np.sqrt(3))))(X @ a, X @ b, X @ c),
    "√n no lugar de √d_k": _com(lambda Q, K, V, X: _sm(Q @ K.T / np.sqrt(K.shape[0]))),
    "sem escala": ERRADAS_AUTOATENCAO["sem escala"][0],
    "÷d_k em vez de ÷√d_k": ERRADAS_AUTOATENCAO["por d_k"][0],
    "×√d_k em vez de ÷√d_k": ERRADAS_AUTOATENCAO["vezes √d_k"][0],
    "softmax no eixo errado": ERRADAS_AUTOATENCAO["eixo errado"][0],
    "faltou keepdims=True na soma": ERRADAS_AUTOATENCAO["sem keepdims na soma"][0],
    "faltou keepdims=True no máximo": ERRADAS_AUTOATENCAO["sem keepdims no máximo"][0],
    "dividiu pela soma da matriz inteira": _com_softmax(_sm_soma_total),
    "sem softmax": ERRADAS_AUTOATENCAO["sem softmax"][0],
    "soma das keys": ERRADAS_AUTOATENCAO["soma das keys"][0],
    "X no lugar de V": ERRADAS_AUTOATENCAO["X no lugar de V"][0],
    "sem as projeções": ERRADAS_AUTOATENCAO["sem projeções"][0],
    "K e V trocados": ERRADAS_AUTOATENCAO["K e V trocados"][0],
    "Q e K trocados": ERRADAS_AUTOATENCAO["Q e K trocados"][0],
    "K calculado com W_q": ERRADAS_AUTOATENCAO["K com W_q"][0],
    "W @ X": _w_vezes_x,
    "Q @ K sem transpor": ERRADAS_AUTOATENCAO["sem K.T"][0],
    "só a saída": ERRADAS_AUTOATENCAO["só a saída"][0],
    "par na ordem trocada": ERRADAS_AUTOATENCAO["ordem trocada"][0],
    "pesos transpostos": ERRADAS_AUTOATENCAO["pesos transpostos"][0],
    "escores no lugar dos pesos": lambda X, a, b, c: (_autoatencao_certa(X, a, b, c)[0],
                                                      (X @ a) @ (X @ b).T / np.sqrt(b.shape[1])),
    "pesos diferentes dos usados": lambda X, a, b, c: (_autoatencao_certa(X, a, b, c)[0],
                                                       _autoatencao_certa(X, a, b, c)[1].round(2)),
}



@pytest.mark.parametrize("nome", list(NOMEADOS_AUTOATENCAO))
def test_corretor_nomeia_cada_erro_da_autoatencao(nome):
    confere_erro_nomeado(licao.AUTOATENCAO, NOMEADOS_AUTOATENCAO, nome)


@pytest.mark.parametrize(
    ("sm", "caso"),
    [(_sm_ingenua, "com escores enormes"), (_sm_menos_minimo, "com escores enormes"),
     (_sm_maximo_global, "com escores enormes"), (_sm_maximo_se_positivo, "muito negativos")],
)
def test_softmax_instavel_na_autoatencao_ensina_a_subtrair_o_maximo_de_cada_linha(sm, caso):
    veredito = corrigir(licao.AUTOATENCAO, _com_softmax(sm))
    assert "Subtraia o máximo de **cada linha**" in veredito.mensagem and caso in veredito.mensagem


@pytest.mark.parametrize(
    ("sm", "raiz", "indice"),
    [(_sm_maximo_se_positivo, np.sqrt, -4), (_sm_ingenua, np.sqrt, -3), (_sm_maximo_global, np.sqrt, -3),
     (_sm_menos_minimo, np.sqrt, -2), (_sm_ingenua, math.sqrt, -1)],
)
def test_os_casos_de_estabilidade_pegam_cada_softmax_instavel(sm, raiz, indice):
    """Cada caso do padrão de estabilidade derruba a softmax instável que ele visa (NaN), e a estável passa."""
    caso = auto._casos_autoatencao()[indice]
    with np.errstate(all="ignore"):
        saidas, pesos = _com_softmax(sm, raiz)(**caso.entradas)
        certas, certos = _autoatencao_certa(**caso.entradas)
    assert not np.isfinite(pesos).all()
    assert np.isfinite(certos).all() and np.isfinite(certas).all()
    ref_saidas, ref_pesos = attention.scaled_dot_product_attention(
        *(caso.entradas["X"].astype(float) @ caso.entradas[m].astype(float) for m in ("W_q", "W_k", "W_v")))
    np.testing.assert_allclose(certos, ref_pesos, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(certas, ref_saidas, rtol=1e-6, atol=1e-6)


def test_o_caso_float32_e_mesmo_float32_e_so_a_softmax_sem_maximo_estoura():
    caso = auto._casos_autoatencao()[-1]
    assert all(v.dtype == np.float32 for v in caso.entradas.values())
    with np.errstate(all="ignore"):
        assert np.isfinite(_com_softmax(_sm_menos_minimo, math.sqrt)(**caso.entradas)[1]).all()
        assert np.isfinite(_com_softmax(_sm_maximo_global, math.sqrt)(**caso.entradas)[1]).all()
        # em float64 a mesma conta não estoura: é o float32 que a derruba
        em_float64 = {k: v.astype(float) for k, v in caso.entradas.items()}
        assert np.isfinite(_com_softmax(_sm_ingenua, math.sqrt)(**em_float64)[1]).all()


def test_softmax_sem_maximo_que_fica_em_float32_e_nomeada():
    """Quem divide por math.sqrt (ou d ** 0.5) fica em float32: o caso float32 também mostra o erro."""
    fn = _com_softmax(_sm_ingenua, math.sqrt)
    assert corrigir(licao.AUTOATENCAO, fn).erro == "sem subtrair o máximo (instável)"
    certa_em_float32 = _com_softmax(_sm, math.sqrt)
    assert corrigir(licao.AUTOATENCAO, certa_em_float32).ok


def _autoatencao_laco(X, W_q, W_k, W_v):
    """Linha por linha, com math.exp e listas."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d_k = K.shape[1]
    saidas, pesos = [], []
    for q in Q:
        escores = [float(q @ k) / math.sqrt(d_k) for k in K]
        m = max(escores)
        e = [math.exp(s - m) for s in escores]
        w = [x / sum(e) for x in e]
        pesos.append(w)
        saidas.append([sum(w[j] * float(V[j, c]) for j in range(len(w))) for c in range(V.shape[1])])
    return saidas, pesos


def _autoatencao_einsum(X, W_q, W_k, W_v):
    Q, K, V = np.einsum("nd,dk->nk", X, W_q), np.einsum("nd,dk->nk", X, W_k), np.einsum("nd,dk->nk", X, W_v)
    z = np.einsum("ik,jk->ij", Q, K) / np.sqrt(K.shape[-1])
    pesos = _sm(z)
    return np.einsum("ij,jv->iv", pesos, V), pesos


def _autoatencao_float32(X, W_q, W_k, W_v):
    saidas, pesos = _autoatencao_certa(X, W_q, W_k, W_v)
    return saidas.astype(np.float32), pesos.astype(np.float32)


CERTAS_AUTOATENCAO = {
    "lista [saídas, pesos]": lambda *a: list(_autoatencao_certa(*a)),
    "einsum": _autoatencao_einsum,
    "resultado em float32": _autoatencao_float32,
}


@pytest.mark.parametrize("nome", list(CERTAS_AUTOATENCAO))
def test_autoatencao_certa_escrita_de_outro_jeito_passa(nome):
    veredito = corrigir(licao.AUTOATENCAO, CERTAS_AUTOATENCAO[nome])
    assert veredito.ok, veredito.mensagem


def _autoatencao_projecoes_num_laco(X, W_q, W_k, W_v):
    Q, K, V = [X @ W for W in (W_q, W_k, W_v)]
    pesos = _sm(Q @ K.T / np.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def _autoatencao_biblioteca(X, W_q, W_k, W_v):
    return attention.scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)


@pytest.mark.parametrize(("fn", "regra", "trecho"), [
    (_autoatencao_laco, "usou um laço", "forma **matricial**, sem laço"),
    # até um laço pelas três matrizes: o enunciado diz "sem laço nenhum", e a mensagem mostra como escrevê-las
    (_autoatencao_projecoes_num_laco, "usou um laço", "uma a uma"),
    (_autoatencao_biblioteca, "usou a atenção pronta", "sem attention.scaled_dot_product_attention"),
])
def test_autoatencao_certa_pelo_caminho_que_o_enunciado_proibe_e_recusada(fn, regra, trecho):
    """As contas certas por um caminho que o enunciado proíbe (um laço pelas queries; a atenção pronta): os números
    batem, e a regra diz qual caminho o enunciado pede."""
    veredito = corrigir(licao.AUTOATENCAO, fn)
    assert not veredito.ok and veredito.erro == regra, veredito.mensagem
    assert "As respostas estão certas" in veredito.mensagem and trecho in veredito.mensagem


def test_corretor_autoatencao_erro_generico_mostra_o_esperado(capsys):
    assert licao.check_autoatencao(lambda *a: (_autoatencao_certa(*a)[0] + 0.5, _autoatencao_certa(*a)[1])) is False
    saida = capsys.readouterr().out
    assert "esperava\nsaídas =\n" in saida and "\nveio\nsaídas =\n" in saida and "pesos =" in saida


def test_corretor_autoatencao_esqueleto_recebe_aviso(capsys):
    def autoatencao(X, W_q, W_k, W_v):
        raise NotImplementedError("complete aqui")

    assert licao.check_autoatencao(autoatencao) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


def test_no_primeiro_caso_as_variantes_da_autoatencao_sao_todas_distintas():
    """d_model = 4 ≠ d_k = 3, e nenhuma variante errada coincide com a certa nem com outra."""
    caso = auto._casos_autoatencao()[0]
    X, Ws = caso.entradas["X"], [caso.entradas[m] for m in ("W_q", "W_k", "W_v")]
    assert X.shape == (5, 4) and all(W.shape == (4, 3) for W in Ws)
    variantes = [e for e in licao.AUTOATENCAO.erros if e.resposta is not None and e.formato is not None]
    assert len(variantes) == 16
    # "d_k de fora da função" (√3 escrito à mão) só se distingue da certa onde d_k ≠ 3, e W @ X e Q @ K (sem .T) só
    # rodam no caso quadrado: aqui os três não se aplicam
    valores = [_autoatencao_certa(X, *Ws)[0]] + [v for e in variantes if (v := e.resposta(**caso.entradas)) is not None]
    assert len(valores) == 14
    for i in range(len(valores)):
        for j in range(i + 1, len(valores)):
            assert valores[i].shape != valores[j].shape or not np.allclose(valores[i], valores[j], atol=1e-4), (i, j)


# --- as soluções publicadas -----------------------------------------------------------------------


def _solucoes():
    return solucoes_do_notebook(NOTEBOOK)




def test_solucao_da_autoatencao_repete_a_atencao_na_frase_da_secao_3():
    """A frase da solução ("dá os mesmos números que atencao_na_frase") vale para o exemplo "banco"."""
    ns: dict = {"np": np, "attention": attention}
    exec(_solucoes()[1], ns)
    for frase in FRASES:
        X = np.array([licao.EMBEDDINGS_BANCO[t] for t in frase])
        saidas, pesos = ns["autoatencao"](X, *licao.matrizes_banco())
        Q, K, V = (X @ W for W in licao.matrizes_banco())
        ref_saidas, ref_pesos = attention.scaled_dot_product_attention(Q, K, V)
        np.testing.assert_allclose(saidas, ref_saidas)
        np.testing.assert_allclose(pesos, ref_pesos)


# --- a previsão da simetria (Q = K = X): a caixa ------------------------------------------------------

ERRADAS_SIMETRIA = {"assimetria sem projeções": 0, "escore com as projeções": "1,768", "peso no lugar do escore": 0.192,
                    "sem dividir por √d": "0,5"}


def test_previsao_simetria_bate_com_a_conta_independente():
    X = np.array([licao.EMBEDDINGS_BANCO[t] for t in licao.FRASE_DINHEIRO])
    b, s = licao.FRASE_DINHEIRO.index("banco"), licao.FRASE_DINHEIRO.index("salário")
    ida = sum(X[b, c] * X[s, c] for c in range(4)) / 2.0
    volta = sum(X[s, c] * X[b, c] for c in range(4)) / 2.0
    assert ida == volta == 0.25 == licao.PREVISAO_SIMETRIA.certo()
    assert sum(X[s, c] * X[b, c] for c in range(4)) == 0.5  # o erro "sem dividir por √d"


def test_previsao_simetria_tem_um_exemplo_por_erro():
    assert sorted(ERRADAS_SIMETRIA) == sorted(licao.PREVISAO_SIMETRIA.nomes_dos_erros())


@pytest.mark.parametrize("nome", list(ERRADAS_SIMETRIA))
def test_previsao_simetria_nomeia_cada_equivoco(nome):
    v = corrigir_previsao(licao.PREVISAO_SIMETRIA, ERRADAS_SIMETRIA[nome])
    assert not v.ok and v.erro == nome and v.mensagem.startswith("❌"), v.mensagem
    assert "A resposta: 0,25" in v.mensagem


@pytest.mark.parametrize("previsao", [0.25, "0,25", "0,250", 0.2504, np.float32(0.25), 1 / 4])
def test_previsao_simetria_certa_de_varios_jeitos(previsao):
    assert corrigir_previsao(licao.PREVISAO_SIMETRIA, previsao).ok


@pytest.mark.parametrize(("digitado", "ok", "erro"), [
    ("0,25", True, None), ("0.25", True, None), (" 0,250 ", True, None),
    ("0", False, "assimetria sem projeções"), ("1,768", False, "escore com as projeções"),
    ("0,192", False, "peso no lugar do escore"), ("0,5", False, "sem dividir por √d"), ("1", False, "valor"),
])
def test_caixa_da_simetria_as_a_student_types(digitado, ok, erro):
    c = licao.prever_simetria()
    assert c.conferir(digitado) is ok and c.conferida and c.entrada.disabled
    assert c.veredito.erro == erro
    # a revelação explica com o escore de volta escrito (uma das pistas que a página não pode mostrar antes)
    assert "salário → banco vale os mesmos 0,250" in c.mensagem.value


def test_caixa_da_simetria_ignores_a_typo_and_an_empty_box():
    c = licao.prever_simetria()
    assert c.conferir("um quarto") is False and not c.conferida
    assert c.conferir("") is False and not c.conferida
    assert "A resposta" not in c.mensagem.value
    assert c.conferir("0,25") is True


def test_caixa_da_simetria_reveals_only_after_a_prediction(capsys):
    c = licao.prever_simetria()
    with c.revelar():
        print("salário → banco: 0.250")
    (revelacao,) = c._revelacoes
    assert revelacao.lugar.outputs == () and "0.250" not in capsys.readouterr().out
    c.conferir("0")
    assert "0.250" in revelacao.lugar.outputs[0]["text"]


def test_previsao_simetria_example_is_legible_and_the_clues_name_the_answer():
    assert corrigir_previsao(licao.PREVISAO_SIMETRIA, ler_digitado(licao.PREVISAO_SIMETRIA.exemplo)).erro == "valor"
    pistas = licao.PREVISAO_SIMETRIA.pistas_da_resposta()
    # o enunciado dá o escore de ida (0,250), igual à resposta: "0,25" sozinho não pode ser pista
    assert "0,25" not in pistas and "0.25" not in pistas
    assert "salário → banco: 0.250" in pistas and all("salário → banco" in p or "simétrica" in p for p in pistas)


def test_o_notebook_da_o_escore_de_ida_e_guarda_o_de_volta():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    fontes = ["".join(c["source"]) for c in nb["cells"]]
    enunciado = next(f for f in fontes if "licao.prever_simetria()" in f)
    i = fontes.index(enunciado)
    assert "0{,}250" in fontes[i - 1]  # o escore de ida, dado no enunciado
    assert "with sua_previsao.revelar():" in fontes[i + 1]


def test_autoatencao_names_a_d_k_taken_from_outside_the_function():
    """Quem copia a linha da seção 2 (``/ np.sqrt(d_k)``, com o ``d_k = 3`` do notebook) passa nos casos de d_k = 3 e
    erra no de d_k = 2: o corretor diz de onde veio o 3, e não aponta para a estabilidade."""
    d_k = 3

    def autoatencao(X, W_q, W_k, W_v):
        Q, K, V = X @ W_q, X @ W_k, X @ W_v
        z = Q @ K.T / np.sqrt(d_k)
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        pesos = e / e.sum(axis=-1, keepdims=True)
        return pesos @ V, pesos

    v = corrigir(licao.AUTOATENCAO, autoatencao)
    assert not v.ok and v.erro == "d_k de fora da função", v.mensagem
    assert "K.shape[-1]" in v.mensagem


def test_a_segunda_dica_de_projetar_nao_traz_o_codigo_da_solucao():
    """A Dica 2 pergunta pelas formas; o produto pronto (X @ W_q, ou as formas que já dizem a ordem) fica na solução."""
    textos = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]]
    dicas = next(t for t in textos if "Dica 2" in t and "def projetar" in t)
    dica_2 = dicas[dicas.index("Dica 2"):dicas.index("✅ Solução")]
    for trecho in ("X @ W", "@ (d_model", "(n, d_model) @"):
        assert trecho not in dica_2, trecho
