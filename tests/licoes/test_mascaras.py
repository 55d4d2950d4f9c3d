"""Notebook 07: o painel das máscaras, o mapa de pesos, os corretores das máscaras, a caixa da previsão da forma e as soluções publicadas.

Os números do painel são comparados com uma conta independente, feita aqui com laços e ``math.exp``
(sem ``helpers.attention``): a máscara é montada célula a célula a partir da regra ("j <= i" e
"j < comprimento") e a softmax ignora as células proibidas.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from matplotlib.text import Text

from helpers import attention, plots
from helpers.corretor import corrigir, corrigir_previsao
from helpers.licoes import mascaras as licao
from helpers.licoes.mascaras import corretores_mascaras as cor
from helpers.licoes.mascaras import paineis as pai
from helpers.previsao import ler_digitado
from tests._corretor import confere_erro_nomeado

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "07_mascaras_e_atencao_cruzada.ipynb"
N = len(licao.FRASE_MASCARAS)


def referencia(L, causal, padding, semente=0):
    """Tokens, máscara, pesos e saídas do painel, calculados à parte (laços, math.exp)."""
    dados = pai._dados_mascaras(licao.FRASE_MASCARAS, 4, 3, semente)  # só os vetores de entrada
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


def test_comprimento_troca_pad_por_palavra_nos_eixos_sem_redesenhar_tudo():
    p = licao.painel_mascaras()
    completos = p.completos
    p.controles["comprimento"].value = 5
    assert p.estado["tokens"][4] == "livro" and p.estado["tokens"][5] == "<pad>"
    assert p.estado["permitido"][4, 4] and not p.estado["permitido"][4, 5]
    # os tokens dos eixos são textos lentos (os de baixo, inclinados), não marcas do eixo
    textos = [a for a in p.lentos if isinstance(a, Text) and a.get_text() and a is not p.fig.axes[0].title]
    embaixo = [t.get_text() for t in textos if t.get_rotation() == 40]
    ao_lado = [t.get_text() for t in textos if t.get_rotation() == 0]
    assert embaixo == ao_lado == p.estado["tokens"]
    assert p.completos == completos, "trocar o comprimento redesenhou a figura inteira"


def _celulas(html: str) -> list[list[str]]:
    """As células de dados da última tabela do HTML, linha a linha (sem o cabeçalho e o nome de cada linha)."""
    import re

    tabela = html.rsplit("<table>", 1)[1]
    return [re.findall(r"<td[^>]*>([^<]*)</td>", linha) for linha in tabela.split("</tr>")[1:-1]]


@pytest.mark.parametrize("causal, padding, L", [(True, True, 4), (False, True, 2), (True, False, 6), (False, False, 3)])
def test_tabela_dos_pesos_mostra_cada_peso_e_risca_so_as_proibidas(causal, padding, L):
    p = licao.painel_mascaras()
    p.definir(causal=causal, padding=padding, comprimento=L)
    _, pode, pesos, _ = referencia(L, causal, padding)
    celulas = _celulas(p.texto.value)
    assert len(celulas) == N and all(len(linha) == N + 1 for linha in celulas)
    for i in range(N):
        for j in range(N):
            assert celulas[i][j] == ("×" if not pode[i, j] else f"{pesos[i, j]:.3f}"), (i, j)
        assert celulas[i][N] == "1.000"  # a soma da linha: com ou sem máscara, 1
    # a linha da query em destaque (a 2, o padrão) vem marcada, e só ela
    linhas = p.texto.value.rsplit("<table>", 1)[1].split("</tr>")[1:-1]
    assert [i for i, linha in enumerate(linhas) if "background" in linha] == [2]


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
    assert textos == [["1.00", "", ""], ["0.25", "0.75", ""], ["0.20", "0.30", "0.50"]]
    # as mascaradas levam um × (um marcador em cada célula, (coluna, linha)), e só elas
    assert sorted(map(tuple, mapa.xis.get_offsets().tolist())) == [(1.0, 0.0), (2.0, 0.0), (2.0, 1.0)]
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
}


@pytest.mark.parametrize("nome", list(CERTAS_CAUSAL))
def test_mascara_causal_certa(nome, capsys):
    ok, texto = _rodar(licao.check_mascara_causal, CERTAS_CAUSAL[nome], capsys)
    assert ok and "Correto" in texto, texto


@pytest.mark.parametrize("fn", [attention.causal_mask, lambda n: attention.causal_mask(n)], ids=["a própria", "chamada"])
def test_mascara_causal_pronta_e_recusada_pela_regra(fn):
    v = corrigir(licao.MASCARA_CAUSAL, fn)
    assert not v.ok and v.erro == "usou attention.causal_mask", v.mensagem
    assert "As respostas estão certas" in v.mensagem and "np.tri" in v.mensagem


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
}


@pytest.mark.parametrize("nome", list(CERTAS_PADDING))
def test_mascara_padding_certa(nome, capsys):
    ok, texto = _rodar(licao.check_mascara_padding, CERTAS_PADDING[nome], capsys)
    assert ok and "Correto" in texto, texto


@pytest.mark.parametrize("fn", [attention.padding_mask, lambda L, n: attention.padding_mask(L, n)],
                         ids=["a própria", "chamada"])
def test_mascara_padding_pronta_e_recusada_pela_regra(fn):
    v = corrigir(licao.MASCARA_PADDING, fn)
    assert not v.ok and v.erro == "usou attention.padding_mask", v.mensagem


@pytest.mark.parametrize("fn, trecho", [
    (lambda L, n: (np.arange(n)[None, :] <= L[:, None])[:, None, :], "j <= lengths"),
    (lambda L, n: (np.arange(n)[None, :] < L[:, None] - 1)[:, None, :], "último token de verdade"),
    (lambda L, n: ~_pad(L, n)[:, None, :], "Máscara invertida"),
    (lambda L, n: (np.arange(n)[None, :] >= n - L[:, None])[:, None, :], "preenchimento à **esquerda**"),
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
    "convenção invertida (True no preenchimento)": lambda L, n: (np.arange(n)[None, :] >= L[:, None])[:, None, :],
    "preenchimento à esquerda": lambda L, n: (np.arange(n)[None, :] >= n - L[:, None])[:, None, :],
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
    for caso in cor._casos_padding():
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


# --- a atenção com máscara (exercício 2) --------------------------------------------------------------


def _sm_seguro(z, axis=-1):
    """Softmax estável que devolve zeros numa linha toda -inf (para isolar cada erro nos exemplos)."""
    m = np.max(z, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(z - m)
    s = e.sum(axis=axis, keepdims=True)
    return e / np.where(s > 0, s, 1.0)


def _sm_menos(ref):
    def sm(z):
        e = np.exp(z - ref(z))
        return e / e.sum(axis=-1, keepdims=True)

    return sm


def mascarada(q, K, V, mask=None, *, sm=_sm_seguro, preenche=-np.inf, escala=None, eixo=-1, mistura=None,
              depois=False, inverter=False):
    z = q @ K.T / (np.sqrt(K.shape[-1]) if escala is None else escala)
    if mask is not None and not depois:
        z = np.where(~mask if inverter else mask, z, preenche)
    w = sm(z) if eixo == -1 else _sm_seguro(z, axis=eixo)
    if mask is not None and depois:
        w = w * mask
    return w @ (V if mistura is None else mistura(q, K, V))


def atencao_mascara_nan(q, K, V, mask=None):
    z = q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        z = np.where(mask, z, -np.inf)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def atencao_mask_none_proibe_tudo(q, K, V, mask=None):
    z = np.where(mask, q @ K.T / np.sqrt(K.shape[-1]), -np.inf)   # esqueceu o "if mask is not None"
    return _sm_seguro(z) @ V


def atencao_mascara_multiplicada(q, K, V, mask=None):
    z = q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        z = z + (~np.asarray(mask, dtype=bool)) * -np.inf     # 0 · (−inf) = NaN onde pode olhar
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def _sm_protegida(ref):
    def sm(z):
        e = np.exp(z - ref(z))
        s = e.sum(axis=-1, keepdims=True)
        return e / np.where(s > 0, s, 1.0)

    return sm


def _mascarada_depois_renormalizada(q, K, V, mask=None):
    w = _sm_seguro(q @ K.T / np.sqrt(K.shape[-1]))
    if mask is not None:
        w = w * mask
        s = w.sum(axis=-1, keepdims=True)
        w = w / np.where(s > 0, s, 1.0)
    return w @ V, w


def _atencao_if_mask(q, K, V, mask=None):
    escores = q @ K.T / np.sqrt(K.shape[-1])
    if mask:                                   # o if de uma lista, num array
        escores = np.where(mask, escores, -np.inf)
    return attention.softmax(escores) @ V


def _atencao_mask_any(q, K, V, mask=None):
    escores = q @ K.T / np.sqrt(K.shape[-1])
    if mask.any():                             # e quando mask é None?
        escores = np.where(mask, escores, -np.inf)
    return attention.softmax(escores) @ V


ERRADAS_ATENCAO_MASCARA = {
    "máscara aditiva por multiplicação (0·inf = NaN)": (atencao_mascara_multiplicada, "0 · (−inf) não dá 0"),
    "subtraiu o máximo só quando positivo (instável)":
        lambda q, K, V, mask=None: mascarada(q, K, V, mask, sm=_sm_menos(lambda z: np.maximum(
            z.max(axis=-1, keepdims=True), 0.0))),
    "sem subtrair o máximo (instável)": lambda q, K, V, mask=None: mascarada(q, K, V, mask, sm=_sm_menos(lambda z: 0.0)),
    "subtraiu o mínimo (instável)":
        lambda q, K, V, mask=None: mascarada(q, K, V, mask, sm=_sm_menos(lambda z: z.min(axis=-1, keepdims=True))),
    "um máximo só para o lote inteiro (instável)":
        lambda q, K, V, mask=None: mascarada(q, K, V, mask, sm=_sm_menos(lambda z: z.max())),
    "NaN na linha toda mascarada": (atencao_mascara_nan, "sem nenhuma key permitida"),
    "devolveu só os pesos": (lambda q, K, V, mask=None: mascarada(q, K, V, mask, mistura=lambda q, K, V: np.eye(
        K.shape[0])), "faltou o último passo"),
    "mask=None vira tudo proibido": (atencao_mask_none_proibe_tudo, "np.where(None"),
    "if mask: num array": (_atencao_if_mask, "if mask is not None"),
    "mask=None não tratado": (_atencao_mask_any, "None não tem .any()"),
    "máscara ignorada": lambda q, K, V, mask=None: mascarada(q, K, V, None),
    "escores mascarados = 0": (lambda q, K, V, mask=None: mascarada(q, K, V, mask, preenche=0.0), "e^0 = 1"),
    "−10 no lugar de −inf": (lambda q, K, V, mask=None: mascarada(q, K, V, mask, preenche=-10.0), "−10"),
    "máscara depois da softmax": lambda q, K, V, mask=None: mascarada(q, K, V, mask, depois=True),
    "máscara depois da softmax, renormalizada": (_mascarada_depois_renormalizada, "passa os permitidos por centenas"),
    "máscara invertida": lambda q, K, V, mask=None: mascarada(q, K, V, mask, inverter=True),
    "sem escala": lambda q, K, V, mask=None: mascarada(q, K, V, mask, escala=1.0),
    "÷d em vez de ÷√d": lambda q, K, V, mask=None: mascarada(q, K, V, mask, escala=K.shape[-1]),
    "soma das keys": lambda q, K, V, mask=None: mascarada(q, K, V, mask, mistura=lambda q, K, V: K),
    "softmax no eixo errado": lambda q, K, V, mask=None: mascarada(q, K, V, mask, eixo=0),
}


@pytest.mark.parametrize("nome", list(ERRADAS_ATENCAO_MASCARA))
def test_atencao_com_mascara_nomeia_cada_erro(nome):
    confere_erro_nomeado(licao.ATENCAO_MASCARA, ERRADAS_ATENCAO_MASCARA, nome)


def _mascarada_com_menos_1e9(q, K, V, mask=None):
    z = q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        z = np.where(mask, z, -1e9)                  # aditiva finita: a linha vazia vira a média dos values
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def _mascarada_nan_to_num(q, K, V, mask=None):
    with np.errstate(invalid="ignore"):
        return np.nan_to_num(atencao_mascara_nan(q, K, V, mask))


def _mascarada_einsum_float32_lista(q, K, V, mask=None):
    q, K, V = (np.asarray(a, dtype=np.float32) for a in (q, K, V))
    z = np.einsum("...d,kd->...k", q, K) / np.float32(np.sqrt(K.shape[-1]))
    if mask is not None:
        z = np.where(mask, z, np.float32(-np.inf))
    w = _sm_seguro(z)
    return [np.einsum("...k,kv->...v", w, V).tolist(), w.tolist()]


def _mascarada_laco(q, K, V, mask=None):
    Q = np.atleast_2d(q)
    M = np.ones((Q.shape[0], K.shape[0]), dtype=bool) if mask is None else np.broadcast_to(mask, (Q.shape[0], K.shape[0]))
    saidas = []
    for i, linha in enumerate(Q):
        permitidos = [j for j in range(K.shape[0]) if M[i, j]]
        if not permitidos:
            saidas.append(np.zeros(V.shape[1]))
            continue
        escores = {j: float(linha @ K[j]) / math.sqrt(K.shape[1]) for j in permitidos}
        m = max(escores.values())
        e = {j: math.exp(x - m) for j, x in escores.items()}
        total = sum(e.values())
        saidas.append(sum(e[j] / total * V[j] for j in permitidos))
    return np.array(saidas) if np.ndim(q) == 2 else saidas[0]


CERTAS_ATENCAO_MASCARA = {
    "solução": lambda q, K, V, mask=None: mascarada(q, K, V, mask),
    "-1e9 aditiva": _mascarada_com_menos_1e9,
    "nan_to_num no fim": _mascarada_nan_to_num,
    "einsum, float32, listas": _mascarada_einsum_float32_lista,
    "laço": _mascarada_laco,
}


@pytest.mark.parametrize("nome", list(CERTAS_ATENCAO_MASCARA))
def test_atencao_com_mascara_certa_de_varios_jeitos(nome, capsys):
    assert licao.check_atencao_com_mascara(CERTAS_ATENCAO_MASCARA[nome]) is True, capsys.readouterr().out


def test_atencao_com_mascara_pronta_e_recusada_pela_regra():
    v = corrigir(licao.ATENCAO_MASCARA, lambda q, K, V, mask=None: attention.scaled_dot_product_attention(q, K, V, mask))
    assert not v.ok and v.erro == "usou a atenção pronta", v.mensagem


@pytest.mark.parametrize("nome", ["subtraiu o máximo só quando positivo (instável)", "sem subtrair o máximo (instável)",
                                  "subtraiu o mínimo (instável)", "um máximo só para o lote inteiro (instável)"])
def test_softmax_instavel_com_a_divisao_protegida_tem_o_mesmo_nome(nome):
    """Quem protege a divisão (a dica da linha toda proibida) tem pesos 0 onde a versão sem proteção dá 0/0: o erro
    de estabilidade é o mesmo, com o mesmo nome."""
    refs = {"subtraiu o máximo só quando positivo (instável)": lambda z: np.maximum(z.max(axis=-1, keepdims=True), 0),
            "sem subtrair o máximo (instável)": lambda z: 0.0,
            "subtraiu o mínimo (instável)": lambda z: z.min(axis=-1, keepdims=True),
            "um máximo só para o lote inteiro (instável)": lambda z: z.max()}
    fn = lambda q, K, V, mask=None: mascarada(q, K, V, mask, sm=_sm_protegida(refs[nome]))  # noqa: E731
    v = corrigir(licao.ATENCAO_MASCARA, fn)
    assert not v.ok and v.erro == nome, v.mensagem


def test_o_nan_so_na_linha_vazia_nao_vira_softmax_instavel():
    """Quem subtrai o máximo de cada linha e só esquece a linha toda proibida tem o NaN com o nome dele — não o de
    quem só subtrai o máximo positivo, que dá o mesmo NaN nessa linha (e erra também a linha de escores muito
    negativos)."""
    assert corrigir(licao.ATENCAO_MASCARA, atencao_mascara_nan).erro == "NaN na linha toda mascarada"
    casos = [c.descricao for c in licao.ATENCAO_MASCARA.casos()]
    assert any("muito negativos (−1000, −1001, −1002" in d for d in casos)
    assert any("sem nenhuma key permitida" in d for d in casos)


def test_atencao_com_mascara_menos_10_parece_certo_com_quatro_casas_mas_e_pego():
    """No caso causal comum o −10 fica a menos de 0,0005 do certo; o corretor o pega mesmo assim, e o caso
    mostrado na mensagem é o dos escores abaixo de −10, onde a diferença é gritante."""
    casos = {c.descricao: c for c in licao.ATENCAO_MASCARA.casos()}
    causal = next(c for d, c in casos.items() if "máscara causal (q (4, 4)" in d)
    certo = licao.ATENCAO_MASCARA.certo(**causal.entradas).valor
    menos_10 = ERRADAS_ATENCAO_MASCARA["−10 no lugar de −inf"][0](**causal.entradas)
    assert 1e-6 < np.abs(certo - menos_10).max() < 5e-4   # invisível com três casas, visível para o corretor
    veredito = corrigir(licao.ATENCAO_MASCARA, ERRADAS_ATENCAO_MASCARA["−10 no lugar de −inf"][0])
    assert "abaixo de −10" in veredito.mensagem


@pytest.mark.parametrize("exercicio", ["ATENCAO_MASCARA", "ATENCAO_CRUZADA"])
@pytest.mark.parametrize("resposta, erros", [(None, "pendente"), ("oi", "tipo"), (np.zeros(3), ("forma", "tipo")),
                                             ({"a": 1}, "tipo"), ([[1, 2], [3], [4, 5, 6]], "tipo"),
                                             ((np.zeros(3), [[1, 2], [3]]), "forma")],
                         ids=["None", "texto", "forma", "dict", "lista torta", "par com lista torta"])
def test_respostas_estranhas_viram_veredito_sem_traceback(exercicio, resposta, erros):
    """(Com dois vereditos: o da atenção com máscara e o da cruzada, que pede o par (saídas, pesos): um array só não é
    o par; um par cuja segunda parte é uma lista torta se lê pela saída, e a saída tem a forma errada.)"""
    erro = erros if isinstance(erros, str) else erros[exercicio == "ATENCAO_CRUZADA"]
    v = corrigir(getattr(licao, exercicio), lambda *a, **k: resposta)
    assert not v.ok and v.erro == erro, v.mensagem


def test_atencao_com_mascara_esqueleto_e_forma(capsys):
    def esqueleto(q, K, V, mask=None):
        raise NotImplementedError

    def sem_transpor(q, K, V, mask=None):
        return _sm_seguro(q @ K / 2) @ V.T

    assert licao.check_atencao_com_mascara(esqueleto) is False
    assert "ainda não foi implementada" in capsys.readouterr().out
    assert licao.check_atencao_com_mascara(sem_transpor) is False
    assert "np.where(mask, escores, -np.inf)" in capsys.readouterr().out


# --- a atenção cruzada num lote (o exercício opcional da seção 7) -----------------------------------


def cruzada(X_dec, X_enc, comprimentos, W_q, W_k, W_v, *, sm=_sm_seguro, fonte="enc", regra="<", preenche=-np.inf,
            d=None, eixo=-1, mistura="V", trocar_kv=False, q_da_origem=False):
    origem = X_enc if fonte == "enc" else X_dec
    Q = (X_enc if q_da_origem else X_dec) @ W_q
    if q_da_origem:
        origem = X_dec
    K, V = origem @ W_k, origem @ W_v
    if trocar_kv:
        K, V = V, K
    z = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1] if d is None else d)
    n = origem.shape[1]
    j = np.arange(n)[None, None, :]
    L = np.asarray(comprimentos)[:, None, None]
    pode = {"<": j < L, "<=": j <= L, "nenhuma": np.ones_like(j, dtype=bool),
            "causal": (j < L) & np.tri(Q.shape[1], n, dtype=bool)}[regra]
    z = np.where(pode, z, preenche)
    w = sm(z) if eixo == -1 else _sm_seguro(z, axis=eixo)
    return w @ {"V": V, "K": K, "X": origem}[mistura], w


def cruzada_nan(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    def sm(z):
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    return cruzada(X_dec, X_enc, comprimentos, W_q, W_k, W_v, sm=sm)


def _cruz(**como):
    return lambda X_dec, X_enc, comprimentos, W_q, W_k, W_v: cruzada(X_dec, X_enc, comprimentos, W_q, W_k, W_v, **como)


def _certa_e(mexer_nos_pesos):
    def fn(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
        saidas, pesos = cruzada(X_dec, X_enc, comprimentos, W_q, W_k, W_v)
        return mexer_nos_pesos(saidas, pesos, X_dec @ W_q, X_enc @ W_k)
    return fn


def cruzada_multiplicada(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    z = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    pode = np.arange(X_enc.shape[1])[None, None, :] < np.asarray(comprimentos)[:, None, None]
    z = z + (~pode) * -np.inf
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ V, w


def cruzada_depois(renormalizar):
    def fn(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
        Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
        w = _sm_seguro(Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]))
        w = w * (np.arange(X_enc.shape[1])[None, None, :] < np.asarray(comprimentos)[:, None, None])
        if renormalizar:
            s = w.sum(axis=-1, keepdims=True)
            w = w / np.where(s > 0, s, 1.0)
        return w @ V, w
    return fn


def cruzada_cortando_o_pad(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    saidas, pesos = [], []
    for b in range(X_dec.shape[0]):
        L = int(comprimentos[b])
        Q, K, V = X_dec[b] @ W_q, X_enc[b, :L] @ W_k, X_enc[b, :L] @ W_v
        w = _sm_seguro(Q @ K.T / np.sqrt(K.shape[-1])) if L else np.zeros((Q.shape[0], 0))
        saidas.append(w @ V if L else np.zeros((Q.shape[0], W_v.shape[1])))
        pesos.append(w)
    return np.stack(saidas), pesos


ERRADAS_CRUZADA = {
    "máscara aditiva por multiplicação (0·inf = NaN)": cruzada_multiplicada,
    "subtraiu o máximo só quando positivo (instável)":
        _cruz(sm=_sm_menos(lambda z: np.maximum(z.max(axis=-1, keepdims=True), 0.0))),
    "sem subtrair o máximo (instável)": _cruz(sm=_sm_menos(lambda z: 0.0)),
    "subtraiu o mínimo (instável)": _cruz(sm=_sm_menos(lambda z: z.min(axis=-1, keepdims=True))),
    "um máximo só para o lote inteiro (instável)": _cruz(sm=_sm_menos(lambda z: z.max())),
    "NaN na linha toda mascarada": (cruzada_nan, "frase de origem vazia"),
    "queries da origem": (_cruz(q_da_origem=True, regra="nenhuma"), "Q = X_dec @ W_q"),
    "autoatenção do decoder": _cruz(fonte="dec", regra="nenhuma"),
    "sem a máscara de preenchimento": _cruz(regra="nenhuma"),
    "máscara depois da softmax": cruzada_depois(False),
    "máscara depois da softmax, renormalizada": cruzada_depois(True),
    "preenchimento com escore 0": _cruz(preenche=0.0),
    "erro de um: j <= comprimentos": _cruz(regra="<="),
    "máscara causal na atenção cruzada": _cruz(regra="causal"),
    "escala por √d_model": _cruz(d=4),
    "sem escala": _cruz(d=1),
    "softmax no eixo errado": _cruz(eixo=-2),
    "soma das keys": _cruz(mistura="K"),
    "X_enc no lugar de V": _cruz(mistura="X"),
    "K e V trocados": _cruz(trocar_kv=True),
    "só a saída": (_certa_e(lambda s, p, Q, K: s), "devolver o **par**"),
    "par na ordem trocada": _certa_e(lambda s, p, Q, K: (p, s)),
    "pesos transpostos": _certa_e(lambda s, p, Q, K: (s, np.swapaxes(p, -1, -2))),
    "escores no lugar dos pesos": _certa_e(lambda s, p, Q, K: (s, Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]))),
    "pesos só das posições de verdade": cruzada_cortando_o_pad,
    "pesos diferentes dos usados": _certa_e(lambda s, p, Q, K: (s, p.round(2))),
}


@pytest.mark.parametrize("nome", list(ERRADAS_CRUZADA))
def test_atencao_cruzada_nomeia_cada_erro(nome):
    confere_erro_nomeado(licao.ATENCAO_CRUZADA, ERRADAS_CRUZADA, nome)


def _cruzada_biblioteca(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    mask = attention.padding_mask(np.asarray(comprimentos), X_enc.shape[1])
    return attention.scaled_dot_product_attention(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, mask)


def _cruzada_laco_por_frase(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    """Frase a frase, só com os tokens de verdade, e os pesos completados com zeros no <pad>: duas listas."""
    saidas, pesos = [], []
    for b in range(X_dec.shape[0]):
        L = int(comprimentos[b])
        w = np.zeros((X_dec.shape[1], X_enc.shape[1]))
        if L == 0:
            saidas.append(np.full((X_dec.shape[1], W_v.shape[1]), 7.0))   # qualquer número finito
            pesos.append(w)
            continue
        Q, K, V = X_dec[b] @ W_q, X_enc[b, :L] @ W_k, X_enc[b, :L] @ W_v     # só os tokens de verdade
        w[:, :L] = _sm_seguro(Q @ K.T / np.sqrt(K.shape[-1]))
        saidas.append(w[:, :L] @ V)
        pesos.append(w)
    return saidas, pesos


def _cruzada_lista_de_pares(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    """Um par (saída, pesos) por frase, numa lista: o que sai de um laço que chama a atenção de uma frase."""
    return [tuple(np.asarray(p)[0] for p in cruzada(X_dec[b:b + 1], X_enc[b:b + 1], comprimentos[b:b + 1], W_q, W_k,
                                                    W_v)) for b in range(X_dec.shape[0])]


def _cruzada_einsum_menos_1e9(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q = np.einsum("bqm,mk->bqk", X_dec, W_q)
    K = np.einsum("bnm,mk->bnk", X_enc, W_k)
    V = np.einsum("bnm,mv->bnv", X_enc, W_v)
    z = np.einsum("bqk,bnk->bqn", Q, K) / np.sqrt(K.shape[-1])
    pode = np.arange(X_enc.shape[1])[None, None, :] < np.asarray(comprimentos)[:, None, None]
    z = z + np.where(pode, 0.0, -1e9)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return np.einsum("bqn,bnv->bqv", w, V), w


CERTAS_CRUZADA = {
    "solução": _cruz(),
    "laço por frase, só os tokens de verdade, duas listas": _cruzada_laco_por_frase,
    "laço por frase, uma lista de pares": _cruzada_lista_de_pares,
    "einsum e −1e9 aditiva": _cruzada_einsum_menos_1e9,
    "lista [saídas, pesos] em float32": lambda *a: [r.astype(np.float32) for r in _cruz()(*a)],
}


@pytest.mark.parametrize("nome", list(CERTAS_CRUZADA))
def test_atencao_cruzada_certa_de_varios_jeitos(nome, capsys):
    assert licao.check_atencao_cruzada(CERTAS_CRUZADA[nome]) is True, capsys.readouterr().out


@pytest.mark.parametrize(("fn", "regra"), [
    (_cruzada_biblioteca, "usou attention.padding_mask"),
    (lambda X_dec, X_enc, c, W_q, W_k, W_v: attention.scaled_dot_product_attention(
        X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, np.arange(X_enc.shape[1])[None, None, :] < c[:, None, None]),
     "usou a atenção pronta"),
], ids=["padding_mask", "scaled_dot_product_attention"])
def test_atencao_cruzada_com_as_funcoes_prontas_e_recusada_pela_regra(fn, regra):
    v = corrigir(licao.ATENCAO_CRUZADA, fn)
    assert not v.ok and v.erro in {regra, "usou a atenção pronta"}, v.mensagem
    assert v.erro == regra or regra == "usou attention.padding_mask"


def test_atencao_cruzada_compara_os_pesos():
    """O enunciado pede (saídas, pesos): os pesos são comparados (antes, os escores ou os pesos transpostos
    passavam)."""
    for nome in ("escores no lugar dos pesos", "pesos transpostos", "pesos diferentes dos usados"):
        assert corrigir(licao.ATENCAO_CRUZADA, ERRADAS_CRUZADA[nome]).erro == nome


def test_atencao_cruzada_k_T_em_lote_e_erro_de_forma_explicado(capsys):
    def com_K_T(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
        Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
        return _sm_seguro(Q @ K.T / np.sqrt(3)) @ V

    assert licao.check_atencao_cruzada(com_K_T) is False
    out = capsys.readouterr().out
    assert "K.transpose(0, 2, 1)" in out and "três" in out


def test_atencao_cruzada_esqueleto(capsys):
    def esqueleto(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
        raise NotImplementedError

    assert licao.check_atencao_cruzada(esqueleto) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


def test_casos_da_cruzada_tem_sequencias_de_tamanhos_diferentes_e_uma_origem_vazia():
    casos = licao.ATENCAO_CRUZADA.casos()
    assert all(c.entradas["X_dec"].shape[1] != c.entradas["X_enc"].shape[1] for c in casos)
    assert any((c.entradas["comprimentos"] == 0).any() for c in casos)
    assert any(c.entradas["X_dec"].dtype == np.float32 for c in casos)


# --- a previsão da forma (seção 7): a caixa ------------------------------------------------------------

ERRADAS_FORMA = {"queries e keys trocadas": (2, 6, 3), "quadrada como na autoatenção": "2x6x6",
                 "keys do próprio decoder": [2, 3, 3], "esqueceu o lote": "(3, 6)",
                 "forma da máscara, não dos pesos": (2, 1, 6), "só as posições de verdade": "2 × 3 × 4",
                 "com um eixo de cabeças": "(2, 1, 3, 6)"}


def test_previsao_forma_tem_um_exemplo_por_erro():
    assert sorted(ERRADAS_FORMA) == sorted(licao.PREVISAO_FORMA.nomes_dos_erros())


@pytest.mark.parametrize("nome", list(ERRADAS_FORMA))
def test_previsao_forma_nomeia_cada_equivoco(nome):
    v = corrigir_previsao(licao.PREVISAO_FORMA, ERRADAS_FORMA[nome])
    assert not v.ok and v.erro == nome and v.mensagem.startswith("❌"), v.mensagem
    assert "A resposta: (2, 3, 6)" in v.mensagem


@pytest.mark.parametrize("previsao", [(2, 3, 6), [2, 3, 6], "(2, 3, 6)", "2x3x6", " 2 × 3 × 6 ", "[2,3,6]",
                                      (np.int64(2), np.int64(3), np.int64(6))])
def test_previsao_forma_certa_de_varios_jeitos(previsao):
    assert corrigir_previsao(licao.PREVISAO_FORMA, previsao).ok


def test_previsao_forma_bate_com_a_conta_e_recusa_o_que_nao_e_forma():
    rng = np.random.default_rng(0)
    _, pesos = _cruzada_biblioteca(rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 6, 4)), np.array([6, 4]),
                                   np.eye(4), np.eye(4), np.eye(4))
    assert pesos.shape == licao.PREVISAO_FORMA.certo
    for invalida in ("três por seis", 2.5, (2, 3.0, 6), True, 6, "(6)"):
        assert corrigir_previsao(licao.PREVISAO_FORMA, invalida).erro == "tipo"
    assert corrigir_previsao(licao.PREVISAO_FORMA, (2, 3, 5)).erro == "valor"
    assert corrigir_previsao(licao.PREVISAO_FORMA, None).erro == "pendente"


@pytest.mark.parametrize("digitado", ["(2, 3, 6)", "2, 3, 6", "2,3,6", "2×3×6", "2 × 3 × 6", "2 x 3 x 6", "2x3x6",
                                      "2 X 3 X 6", "[2, 3, 6]", "2 3 6", "2·3·6", "(2; 3; 6)"])
def test_caixa_da_forma_reads_what_a_student_types(digitado):
    c = licao.prever_forma()
    assert c.conferir(digitado) is True and c.conferida and c.entrada.disabled
    assert "A resposta: (2, 3, 6)" in c.mensagem.value


@pytest.mark.parametrize(("digitado", "erro"), [
    ("(2, 6, 3)", "queries e keys trocadas"), ("2x6x6", "quadrada como na autoatenção"),
    ("2, 3, 3", "keys do próprio decoder"), ("3 × 6", "esqueceu o lote"), ("(2, 1, 6)", "forma da máscara, não dos pesos"),
    ("2 x 3 x 4", "só as posições de verdade"), ("2, 1, 3, 6", "com um eixo de cabeças"), ("(1, 2, 3)", "valor"),
    ("2,3", "valor"),  # lido como a forma (2, 3), não como o número 2,3
])
def test_caixa_da_forma_names_each_mistake_as_typed(digitado, erro):
    c = licao.prever_forma()
    assert c.conferir(digitado) is False and c.conferida
    assert c.veredito.erro == erro and "A resposta: (2, 3, 6)" in c.mensagem.value


@pytest.mark.parametrize("digitado", ["6", "seis", "(6)", "2 por 3 por 6", "2.5"])
def test_caixa_da_forma_asks_again_after_a_typo_without_revealing(digitado):
    c = licao.prever_forma()
    assert c.conferir(digitado) is False and not c.conferida and not c.entrada.disabled
    assert "(2, 3, 6)" not in c.mensagem.value and "forma" in c.mensagem.value
    assert c.conferir("(2, 3, 6)") is True


def test_previsao_forma_example_is_legible_and_the_clues_name_the_answer():
    assert corrigir_previsao(licao.PREVISAO_FORMA, ler_digitado(licao.PREVISAO_FORMA.exemplo)).erro == "valor"
    pistas = licao.PREVISAO_FORMA.pistas_da_resposta()
    assert {"(2, 3, 6)", "2×3×6", "2 x 3 x 6", "(b, n_q, n_kv)"} <= set(pistas)
    assert licao.PREVISAO_FORMA.exemplo not in pistas


def test_o_notebook_pede_a_forma_antes_de_mostrar_a_atencao_cruzada():
    """A caixa vem antes da conta da atenção cruzada; tudo o que mostra a forma fica nos blocos de revelação, e o
    enunciado do exercício da atenção cruzada não diz a forma dos pesos."""
    fontes = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]]
    caixa = next(i for i, f in enumerate(fontes) if "licao.prever_forma()" in f)
    assert not any("X_en" in f and "attention(" in f for f in fontes[:caixa])
    contas = [f for f in fontes[caixa:] if "w_x.shape" in f or "licao.figura_pesos(w_x" in f]
    assert contas and all("with sua_previsao.revelar():" in f for f in contas)
    enunciado = next(f for f in fontes if f.startswith("def atencao_cruzada("))
    assert "n_q, n_kv)" not in enunciado and "n_kv))" not in enunciado


def test_numeros_citados_no_notebook():
    """Os números que a prosa do notebook cita saem das contas (mesmas sementes e vetores)."""
    celulas = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    prosa = "\n".join("".join(c["source"]) for c in celulas if c["cell_type"] == "markdown")
    saidas = "\n".join("".join(o.get("text", "")) for c in celulas if c["cell_type"] == "code" for o in c["outputs"])
    for trecho in ("98,6%", "0,665", "0,603", "0,656", "0,335", "0,213", "0,876", "0,291", "0,709"):
        assert trecho in prosa, trecho
    for trecho in ("0.986", "[0.665 0.893 1.000]", "[0.3348 0.1065 0.0000]", "[0.2130 0.0420 0.0000]",
                   "no <pad>: 0.603", "no futuro: 0.656", "[[0.118 0.006 0.876]]",
                   "diferença por posição: [0.    0.    0.    0.    0.951]", "[[0.291 0.11  0.339"):
        assert trecho in saidas, trecho


def test_a_segunda_dica_da_mascara_causal_nao_traz_o_codigo_da_solucao():
    """A escada de dicas: a Dica 2 aproxima (comparar índices, conferir com n = 3), sem a linha pronta (np.tri…)."""
    textos = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]]
    dicas = next(t for t in textos if "Dica 2" in t and "def mascara_causal" in t)
    dica_2 = dicas[dicas.index("Dica 2"):dicas.index("✅ Solução")]
    for trecho in ("np.tri", "np.tril", "j <= i", "i >= j", "np.arange(n)[:, None]", "np.arange(n)[None, :]"):
        assert trecho not in dica_2, trecho
