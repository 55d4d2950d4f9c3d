"""Notebook 07: o painel das máscaras, o mapa de pesos, os corretores das máscaras e as soluções publicadas.

Os números do painel são comparados com uma conta independente, feita aqui com laços e ``math.exp``
(sem ``helpers.attention``): a máscara é montada célula a célula a partir da regra ("j <= i" e
"j < comprimento") e a softmax ignora as células proibidas.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from helpers import attention, plots
from helpers.corretor import corrigir
from helpers.licoes import mascaras as licao
from tests._corretor import confere_erro_nomeado
from tests._notebooks import solucoes_do_notebook

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "07_mascaras_e_atencao_cruzada.ipynb"
N = len(licao.FRASE_MASCARAS)


def referencia(L, causal, padding, semente=0):
    """Tokens, máscara, pesos e saídas do painel, calculados à parte (laços, math.exp)."""
    dados = licao._dados_mascaras(licao.FRASE_MASCARAS, 4, 3, semente)  # só os vetores de entrada
    ids = list(range(L)) + [N] * (N - L)
    Q, K, V = dados["Q"][ids], dados["K"][ids], dados["V"][ids]
    pode = np.array([[(not causal or j <= i) and (not padding or j < L) for j in range(N)] for i in range(N)])
    pesos = np.zeros((N, N))
    for i in range(N):
        escores = {j: sum(Q[i, c] * K[j, c] for c in range(4)) / 2.0 for j in range(N) if pode[i, j]}
        total = sum(math.exp(s) for s in escores.values())
        for j, s in escores.items():
            pesos[i, j] = math.exp(s) / total
    return [dados["vocab"][t] for t in ids], pode, pesos, pesos @ V


# --- o painel --------------------------------------------------------------------------------------


def test_padrao_bate_com_a_conta_independente():
    p = licao.painel_mascaras()
    e = p.estado
    assert (e["causal"], e["padding"], e["comprimento"], e["query"]) == (True, True, 4, 2)
    tokens, pode, pesos, saidas = referencia(4, True, True)
    assert e["tokens"] == tokens == ["a", "menina", "leu", "o", "<pad>", "<pad>"]
    np.testing.assert_array_equal(e["permitido"], pode)
    np.testing.assert_allclose(e["pesos"], pesos, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(e["saida"], saidas[2], rtol=1e-12)
    np.testing.assert_allclose(e["somas"], 1.0)
    assert e["peso_no_pad"] == 0.0 and e["peso_no_futuro"] == 0.0
    # células proibidas: peso exatamente 0
    assert np.all(e["pesos"][~pode] == 0.0)
    texto = p.texto.value
    assert f"{pesos[2, 1]:.2f}" in texto and "leu" in texto and "causal + padding" in texto
    # o <pad> aparece escapado (senão o navegador o engole como uma tag HTML)
    assert "&lt;pad&gt;" in texto and "<pad>" not in texto


@pytest.mark.parametrize("L", [1, 3, 6])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("padding", [False, True])
def test_controles_batem_com_a_conta_independente(L, causal, padding):
    p = licao.painel_mascaras()
    p.definir(comprimento=L, causal=causal, padding=padding, query=N - 1)
    tokens, pode, pesos, saidas = referencia(L, causal, padding)
    e = p.estado
    assert e["tokens"] == tokens
    np.testing.assert_array_equal(e["permitido"], pode)
    np.testing.assert_allclose(e["pesos"], pesos, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(e["saida"], saidas[N - 1], rtol=1e-12, atol=1e-12)
    _, _, _, livres = referencia(L, False, False)
    np.testing.assert_allclose(e["saida_sem_mascara"], livres[N - 1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(e["peso_no_pad"], pesos[N - 1, L:].sum(), atol=1e-15)
    assert not np.isnan(e["pesos"]).any()


def test_cada_controle_muda_numeros_texto_e_png():
    p = licao.painel_mascaras()
    passos = {"causal": False, "padding": False, "comprimento": 5, "query": 3}
    for nome, valor in passos.items():
        p.definir(causal=True, padding=True, comprimento=4, query=2)
        png, texto, pesos = p.imagem.value, p.texto.value, p.estado["pesos"].copy()
        p.controles[nome].value = valor
        assert p.imagem.value != png, nome
        assert p.texto.value != texto, nome
        if nome != "query":
            assert not np.array_equal(p.estado["pesos"], pesos), nome


def test_desligar_o_padding_da_peso_ao_pad():
    p = licao.painel_mascaras(causal=False, padding=True, query=0)
    assert p.estado["peso_no_pad"] == 0.0
    p.controles["padding"].value = False
    _, _, pesos, _ = referencia(4, False, False)
    assert p.estado["peso_no_pad"] == pytest.approx(pesos[0, 4:].sum(), rel=1e-12)
    assert p.estado["peso_no_pad"] > 0.5  # o que o notebook conta: 0.603
    assert "0.603" in p.texto.value


def test_causal_nao_vaza_e_query_zero_ve_so_a_si():
    p = licao.painel_mascaras(causal=True, padding=False, query=0)
    np.testing.assert_allclose(p.estado["pesos_query"], [1, 0, 0, 0, 0, 0])
    for q in range(N):
        p.controles["query"].value = q
        assert p.estado["peso_no_futuro"] == 0.0
        assert np.all(np.triu(p.estado["pesos"], k=1) == 0.0)


def test_comprimento_troca_pad_por_palavra():
    p = licao.painel_mascaras()
    p.controles["comprimento"].value = 5
    assert p.estado["tokens"][4] == "livro" and p.estado["tokens"][5] == "<pad>"
    assert p.estado["permitido"][4, 4] and not p.estado["permitido"][4, 5]


def test_extremos_dos_sliders_sem_nan():
    p = licao.painel_mascaras()
    for nome in ("comprimento", "query"):
        c = p.controles[nome]
        for valor in (c.min, c.max):
            c.value = valor
            assert np.isfinite(p.estado["pesos"]).all() and np.isfinite(p.estado["saida"]).all()
            np.testing.assert_allclose(p.estado["somas"], 1.0)



def test_painel_recusa_frase_curta():
    with pytest.raises(ValueError, match="pelo menos 2"):
        licao.painel_mascaras(palavras=("só",))


# --- o mapa de pesos -------------------------------------------------------------------------------


def test_mapa_marca_celulas_proibidas_e_somas():
    fig, axes = plots.nova_figura(5, 4)
    mapa = licao.MapaDePesos(axes[0, 0], 3, 3)
    pesos = np.array([[1.0, 0, 0], [0.25, 0.75, 0], [0.2, 0.3, 0.5]])
    mapa.atualizar(pesos, attention.causal_mask(3), ["x", "y", "z"], ["x", "y", "z"])
    textos = [[t.get_text() for t in linha] for linha in mapa.textos]
    assert textos == [["1.00", "×", "×"], ["0.25", "0.75", "×"], ["0.20", "0.30", "0.50"]]
    assert [t.get_text() for t in mapa.textos_soma] == ["1.00", "1.00", "1.00"]
    dados = mapa.imagem.get_array()
    assert np.ma.is_masked(dados) and dados.mask.sum() == 3
    assert [t.get_text() for t in axes[0, 0].get_yticklabels()] == ["x", "y", "z"]
    with pytest.raises(ValueError, match="forma"):
        mapa.atualizar(np.ones((2, 3)))


def test_figura_pesos_nao_quadrada():
    fig = licao.figura_pesos(np.full((2, 4), 0.25), ["I", "like"], ["eu", "gosto", "de", "café"], titulo="t")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["eu", "gosto", "de", "café"]
    assert ax.get_title() == "t"
    assert len(plots.png(fig)) > 1000
    import matplotlib.pyplot as plt

    plt.close(fig)


# --- corretor da máscara causal ---------------------------------------------------------------------


def _rodar(corretor, fn, capsys):
    ok = corretor(fn)
    return ok, capsys.readouterr().out


def _causal_laco(n):
    """Célula a célula, em listas de bool."""
    return [[j <= i for j in range(n)] for i in range(n)]


def _causal_preenchida(n):
    m = np.zeros((n, n), dtype=bool)
    for i in range(n):
        m[i, : i + 1] = True
    return m


CERTAS_CAUSAL = {
    "np.tri": lambda n: np.tri(n, dtype=bool),
    "j <= i": lambda n: np.arange(n)[None, :] <= np.arange(n)[:, None],
    "np.tril de uns booleanos": lambda n: np.tril(np.ones((n, n), dtype=bool)),
    "listas de bool, com laços": _causal_laco,
    "tupla de tuplas": lambda n: tuple(tuple(bool(j <= i) for j in range(n)) for i in range(n)),
    "preenchida linha a linha": _causal_preenchida,
    "não do triângulo de cima": lambda n: ~np.triu(np.ones((n, n), dtype=bool), k=1),
    "attention.causal_mask": attention.causal_mask,
}


@pytest.mark.parametrize("nome", list(CERTAS_CAUSAL))
def test_mascara_causal_certa(nome, capsys):
    ok, texto = _rodar(licao.check_mascara_causal, CERTAS_CAUSAL[nome], capsys)
    assert ok and "Correto" in texto, texto


@pytest.mark.parametrize("fn, trecho", [
    (lambda n: np.triu(np.ones((n, n), dtype=bool)), "triângulo de **cima**"),
    (lambda n: np.triu(np.ones((n, n), dtype=bool), k=1), "Máscara invertida"),
    (lambda n: ~np.tri(n, dtype=bool), "Máscara invertida"),
    (lambda n: np.tri(n, k=-1, dtype=bool), "diagonal ficou de fora"),
    (lambda n: np.tri(n, k=1, dtype=bool), "Um passo a mais"),
    (lambda n: np.eye(n, dtype=bool), "Só a diagonal"),
    (lambda n: np.ones((n, n), dtype=bool), "Tudo True"),
    (lambda n: np.tri(n), "precisa ser **booleana**"),
    (lambda n: np.tri(n, dtype=int), "veio com **números**"),
    (lambda n: np.tri(n + 1, dtype=bool), "deveria ter forma (4, 4), mas veio (5, 5)"),
    (lambda n: np.tri(n, dtype=bool)[None], "deveria ter forma (4, 4)"),
    (lambda n: np.tri(n, dtype=bool).ravel(), "arrumados em outra forma"),
    (lambda n: np.where(np.tri(n, dtype=bool), 0.0, -np.inf), "aditiva"),
    (lambda n: np.fliplr(np.tri(n, dtype=bool)), "espelhado"),
])
def test_mascara_causal_erros_reconhecidos(fn, trecho, capsys):
    ok, texto = _rodar(licao.check_mascara_causal, fn, capsys)
    assert not ok
    assert trecho in texto, texto
    assert "seção" not in texto


#: uma resposta errada para cada erro nomeado de MASCARA_CAUSAL
NOMEADOS_CAUSAL = {
    "números no lugar de booleanos": lambda n: np.tril(np.ones((n, n))),
    "máscara aditiva (0/−inf)": lambda n: np.where(np.arange(n)[None, :] <= np.arange(n)[:, None], 0.0, -np.inf),
    "tudo True (máscara ignorada)": lambda n: np.full((n, n), True),
    "triângulo de cima": lambda n: np.arange(n)[None, :] >= np.arange(n)[:, None],
    "convenção invertida (True = proibido)": lambda n: np.arange(n)[None, :] > np.arange(n)[:, None],
    "diagonal excluída": lambda n: np.arange(n)[None, :] < np.arange(n)[:, None],
    "um passo a mais (vê o seguinte)": lambda n: np.arange(n)[None, :] <= np.arange(n)[:, None] + 1,
    "só a diagonal": lambda n: np.eye(n, dtype=bool),
    "tudo False": lambda n: np.zeros((n, n), dtype=bool),
    "triângulo espelhado": lambda n: np.fliplr(np.tri(n, dtype=bool)),
    "forma errada com os valores certos": lambda n: np.tri(n, dtype=bool).reshape(1, n * n),
}



@pytest.mark.parametrize("nome", list(NOMEADOS_CAUSAL))
def test_mascara_causal_nomeia_cada_erro(nome):
    confere_erro_nomeado(licao.MASCARA_CAUSAL, NOMEADOS_CAUSAL, nome)


def test_mascara_causal_numeros_com_padrao_errado_recebem_o_nome_do_padrao():
    """O aviso de dtype só vem quando o padrão está certo; antes, o erro do padrão."""
    assert corrigir(licao.MASCARA_CAUSAL, lambda n: np.triu(np.ones((n, n)))).erro == "triângulo de cima"
    assert corrigir(licao.MASCARA_CAUSAL, lambda n: np.tri(n, k=-1, dtype=int)).erro == "diagonal excluída"


def test_mascara_causal_mostra_o_esperado_e_o_que_veio():
    v = corrigir(licao.MASCARA_CAUSAL, lambda n: np.tri(n, k=-1, dtype=bool))
    assert "esperava\n[[1 0 0 0]\n [1 1 0 0]\n [1 1 1 0]\n [1 1 1 1]]\nveio\n[[0 0 0 0]" in v.mensagem


def test_mascara_causal_as_variantes_sao_distintas_e_erradas():
    variantes = [e for e in licao.MASCARA_CAUSAL.erros if e.resposta is not None]
    for n in (4, 6):
        valores = [np.tri(n, dtype=bool)] + [e.resposta(n=n) for e in variantes]
        for i in range(len(valores)):
            for j in range(i + 1, len(valores)):
                assert not np.array_equal(valores[i], valores[j]), (n, i, j)


def test_mascara_causal_esqueleto_e_excecao(capsys):
    def mascara_causal(n):
        raise NotImplementedError("complete aqui")

    ok, texto = _rodar(licao.check_mascara_causal, mascara_causal, capsys)
    assert not ok and "ainda não foi implementada" in texto

    def quebrada(n):
        return np.tri(n, dtype=bool) @ np.ones(n + 1)

    ok, texto = _rodar(licao.check_mascara_causal, quebrada, capsys)
    assert not ok and "levantou ValueError" in texto


# --- corretor da máscara de padding -----------------------------------------------------------------


def _pad(lengths, n):
    return np.arange(n)[None, :] < np.asarray(lengths)[:, None]


def _padding_laco(lengths, n):
    """Frase a frase, posição a posição, em listas de bool."""
    return [[[j < int(L) for j in range(n)]] for L in lengths]


def _padding_preenchida(lengths, n):
    m = np.zeros((len(lengths), 1, n), dtype=bool)
    for b, L in enumerate(lengths):
        m[b, 0, :L] = True
    return m


CERTAS_PADDING = {
    "comparação com [:, None, :]": lambda lengths, n: _pad(lengths, n)[:, None, :],
    "np.expand_dims": lambda lengths, n: np.expand_dims(_pad(lengths, n), 1),
    "listas de bool, com laços": _padding_laco,
    "preenchida frase a frase": _padding_preenchida,
    "reshape": lambda lengths, n: _pad(lengths, n).reshape(len(lengths), 1, n),
    "attention.padding_mask": attention.padding_mask,
}


@pytest.mark.parametrize("nome", list(CERTAS_PADDING))
def test_mascara_padding_certa(nome, capsys):
    ok, texto = _rodar(licao.check_mascara_padding, CERTAS_PADDING[nome], capsys)
    assert ok and "Correto" in texto, texto


@pytest.mark.parametrize("fn, trecho", [
    (lambda L, n: (np.arange(n)[None, :] <= L[:, None])[:, None, :], "j <= lengths"),
    (lambda L, n: (np.arange(n)[None, :] < L[:, None] - 1)[:, None, :], "último token de verdade"),
    (lambda L, n: ~_pad(L, n)[:, None, :], "Máscara invertida"),
    (lambda L, n: (np.arange(n)[None, :] >= n - L[:, None])[:, None, :], "padding à **esquerda**"),
    (lambda L, n: (np.arange(n)[None, :] < n - L[:, None])[:, None, :], "número de <pad>"),
    (lambda L, n: _pad(L, n), "eixo do meio"),
    (lambda L, n: _pad(L, n)[:, :, None], "(b, n, 1)"),
    (lambda L, n: np.broadcast_to(_pad(L, n)[:, None, :], (len(L), n, n)), "repete a mesma linha"),
    (lambda L, n: (np.arange(n) < L)[:, None, :], "could not be broadcast"),
    (lambda L, n: (np.arange(n) < L)[:, None, :], "np.arange(n) tem forma (5,) e lengths tem forma (3,)"),
    (lambda L, n: _pad(L, n)[:, None, :].astype(int), "veio com **números**"),
    (lambda L, n: np.where(_pad(L, n)[:, None, :], 0.0, -np.inf), "aditiva"),
    (lambda L, n: _pad(L, n).T[:, None, :], "deveria ter forma (3, 1, 5), mas veio (5, 1, 3)"),
    (lambda L, n: _pad(L, n).T[:, None, :], "tem forma (b, 1, n)"),
])
def test_mascara_padding_erros_reconhecidos(fn, trecho, capsys):
    ok, texto = _rodar(licao.check_mascara_padding, fn, capsys)
    assert not ok
    assert trecho in texto, texto
    assert "seção" not in texto


#: uma resposta errada para cada erro nomeado de MASCARA_PADDING
NOMEADOS_PADDING = {
    "números no lugar de booleanos": lambda L, n: _pad(L, n)[:, None, :].astype(float),
    "máscara aditiva (0/−inf)": lambda L, n: np.where(_pad(L, n), 0.0, -np.inf)[:, None, :],
    "sem o eixo do meio: (b, n)": lambda L, n: _pad(L, n),
    "máscara nas queries: (b, n, 1)": lambda L, n: _pad(L, n)[:, :, None],
    "matriz cheia (b, n, n)": lambda L, n: np.repeat(_pad(L, n)[:, None, :], n, axis=1),
    "erro de um: j <= lengths": lambda L, n: (np.arange(n)[None, :] <= L[:, None])[:, None, :],
    "erro de um: j < lengths − 1": lambda L, n: (np.arange(n)[None, :] < L[:, None] - 1)[:, None, :],
    "convenção invertida (True no padding)": lambda L, n: (np.arange(n)[None, :] >= L[:, None])[:, None, :],
    "padding à esquerda": lambda L, n: (np.arange(n)[None, :] >= n - L[:, None])[:, None, :],
    "n − lengths no lugar de lengths": lambda L, n: (np.arange(n)[None, :] < n - L[:, None])[:, None, :],
    "tudo True (máscara ignorada)": lambda L, n: np.ones((len(L), 1, n), dtype=bool),
}



@pytest.mark.parametrize("nome", list(NOMEADOS_PADDING))
def test_mascara_padding_nomeia_cada_erro(nome):
    confere_erro_nomeado(licao.MASCARA_PADDING, NOMEADOS_PADDING, nome)


def test_mascara_padding_comparacao_sem_alinhar_os_eixos_e_erro_de_forma_explicado():
    v = corrigir(licao.MASCARA_PADDING, lambda L, n: (np.arange(n) < L)[:, None, :])
    assert v.erro == "forma" and "np.arange(n)[None, :] < lengths[:, None]" in v.mensagem


def test_mascara_padding_as_variantes_sao_distintas_e_erradas():
    variantes = [e for e in licao.MASCARA_PADDING.erros if e.resposta is not None]
    for caso in licao._casos_padding():
        certo = _pad(**caso.entradas)[:, None, :]
        valores = [certo] + [np.asarray(e.resposta(**caso.entradas)) for e in variantes]
        for i in range(len(valores)):
            for j in range(i + 1, len(valores)):
                assert valores[i].shape != valores[j].shape or not np.array_equal(valores[i], valores[j]), (i, j)


def test_mascara_padding_esqueleto(capsys):
    def mascara_padding(lengths, n):
        raise NotImplementedError("complete aqui")

    ok, texto = _rodar(licao.check_mascara_padding, mascara_padding, capsys)
    assert not ok and "ainda não foi implementada" in texto


# --- as soluções publicadas no notebook ---------------------------------------------------------------


def _solucoes():
    return solucoes_do_notebook(NOTEBOOK)




def test_atencao_com_mascara_erros_classicos(capsys):
    """O exercício 1 usa o corretor existente: ele precisa apontar os dois erros de máscara."""

    def base(q, K, V, mask, depois=False, invertida=False):
        z = q @ K.T / np.sqrt(K.shape[-1])
        if mask is not None and not depois:
            z = np.where(~mask if invertida else mask, z, -np.inf)
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
        if mask is not None and depois:
            w = w * mask
        return w @ V

    def depois(q, K, V, mask=None):
        return base(q, K, V, mask, depois=True)

    def invertida(q, K, V, mask=None):
        return base(q, K, V, mask, invertida=True)

    assert licao.check_attention(depois) is False
    assert "Máscara aplicada depois da softmax" in capsys.readouterr().out
    assert licao.check_attention(invertida) is False
    assert "Máscara invertida" in capsys.readouterr().out


def test_numeros_citados_no_notebook():
    """Os números que a prosa do notebook cita saem das contas (mesmas sementes e vetores)."""
    celulas = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    prosa = "\n".join("".join(c["source"]) for c in celulas if c["cell_type"] == "markdown")
    saidas = "\n".join("".join(o.get("text", "")) for c in celulas if c["cell_type"] == "code" for o in c["outputs"])
    for trecho in ("98.6%", "0.665", "0.245", "0.603", "0.656", "4.5e-6"):
        assert trecho in prosa, trecho
    for trecho in ("0.986", "0.665", "0.245", "no <pad>: 0.603", "no futuro: 0.656", "4.5e-06",
                   "diferença por posição: [0.    0.    0.    0.    0.951]", "float16(-1e9)  = -inf"):
        assert trecho in saidas, trecho
