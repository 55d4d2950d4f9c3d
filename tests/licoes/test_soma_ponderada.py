"""Notebook 05: os painéis da soma ponderada, a figura do caminho da saída e as soluções publicadas.

Os números dos painéis são comparados com uma conta independente, feita aqui só com numpy
(sem ``helpers.attention``), e com os números do exemplo resolvido do texto-base.
"""

import math
from pathlib import Path

import numpy as np
import pytest

from helpers import plots
from helpers.attention import scaled_dot_product_attention  # noqa: F811
from helpers.licoes import soma_ponderada as licao
from helpers.licoes.soma_ponderada import check_attention  # noqa: F811
from tests._notebooks import solucoes_do_notebook

Q = np.array([1.0, 0.0])
K = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
V = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "05_soma_ponderada.ipynb"


def referencia(q, k, v):
    """softmax(k q / √d) e a soma ponderada dos values, escritas à parte."""
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    escalados = [sum(qi * ki for qi, ki in zip(q, linha, strict=True)) / math.sqrt(len(q)) for linha in k]
    e = [math.exp(s) for s in escalados]
    pesos = np.array([x / sum(e) for x in e])
    saida = sum(w * linha for w, linha in zip(pesos, v, strict=True))
    return pesos, saida


# --- painel de q e das keys ------------------------------------------------------------------------


def test_padrao_e_o_exemplo_resolvido():
    p = licao.painel_soma_ponderada()
    e = p.estado
    np.testing.assert_allclose(e["escores"], [1.0, 0.0, 0.5])
    np.testing.assert_allclose(e["escalados"], [0.7071, 0.0, 0.3536], atol=1e-4)
    np.testing.assert_allclose(e["pesos"], [0.4555, 0.2246, 0.3199], atol=1e-4)
    np.testing.assert_allclose(e["saida"], [6.1546, 3.8454], atol=1e-4)
    np.testing.assert_allclose(e["contribuicoes"], e["pesos"][:, None] * V)
    np.testing.assert_allclose(e["contribuicoes"].sum(axis=0), e["saida"])
    pesos, saida = referencia(Q, K, V)
    np.testing.assert_allclose(e["pesos"], pesos, rtol=1e-12)
    np.testing.assert_allclose(e["saida"], saida, rtol=1e-12)
    texto = p.texto.value
    for trecho in ("(6.15, 3.85)", "0.4555", "0.2246", "0.3199", "0.707", "2.028", "1.414"):
        assert trecho in texto, trecho


def test_mover_q_muda_pesos_saida_texto_e_png():
    p = licao.painel_soma_ponderada()
    png_antes, texto_antes = p.imagem.value, p.texto.value
    p.controles["q_x"].value = 0.0
    p.controles["q_y"].value = 1.0
    e = p.estado
    # q = (0, 1): k₁ e k₂ trocam de papel e a saída vira o espelho de (6.15, 3.85)
    np.testing.assert_allclose(e["pesos"], [0.2246, 0.4555, 0.3199], atol=1e-4)
    np.testing.assert_allclose(e["saida"], [3.8454, 6.1546], atol=1e-4)
    np.testing.assert_allclose(e["q"], [0.0, 1.0])
    assert "(3.85, 6.15)" in p.texto.value and p.texto.value != texto_antes
    assert p.imagem.value != png_antes


def test_q_nulo_da_media_simples():
    p = licao.painel_soma_ponderada()
    p.definir(q_x=0.0, q_y=0.0)
    np.testing.assert_allclose(p.estado["pesos"], [1 / 3] * 3)
    np.testing.assert_allclose(p.estado["saida"], [5.0, 5.0])


@pytest.mark.parametrize(
    "valores",
    [
        dict(q_x=2.0, q_y=0.0),
        dict(k3_x=-1.5, k3_y=1.0, q_x=-0.5, q_y=1.5),
        dict(k1_x=1.0, k1_y=0.0, k2_x=1.0, k2_y=0.0),  # duas keys iguais: pesos iguais
        dict(q_x=2.0, q_y=2.0, k1_x=2.0, k1_y=2.0, k2_x=-2.0, k2_y=-2.0, k3_x=2.0, k3_y=-2.0),
    ],
)
def test_sliders_batem_com_a_conta_independente(valores):
    p = licao.painel_soma_ponderada()
    png_antes = p.imagem.value
    p.definir(**valores)
    v = p.valores()
    q = [v["q_x"], v["q_y"]]
    k = [[v[f"k{i}_x"], v[f"k{i}_y"]] for i in (1, 2, 3)]
    pesos, saida = referencia(q, k, V)
    np.testing.assert_allclose(p.estado["pesos"], pesos, rtol=1e-12)
    np.testing.assert_allclose(p.estado["saida"], saida, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(p.estado["escores"], np.asarray(k) @ np.asarray(q))
    assert f"({saida[0]:.2f}, {saida[1]:.2f})" in p.texto.value
    assert p.imagem.value != png_antes


def test_duas_keys_iguais_recebem_o_mesmo_peso():
    p = licao.painel_soma_ponderada()
    p.definir(k2_x=1.0, k2_y=0.0)
    w = p.estado["pesos"]
    assert w[0] == pytest.approx(w[1]) and w[0] > w[2]


# --- painel dos values ------------------------------------------------------------------------------


def test_mover_um_value_muda_a_saida_e_nao_os_pesos():
    p = licao.painel_soma_ponderada_values()
    pesos0, saida0, png0 = p.estado["pesos"].copy(), p.estado["saida"].copy(), p.imagem.value
    np.testing.assert_allclose(saida0, [6.1546, 3.8454], atol=1e-4)
    p.controles["v1_x"].value = 0.0  # v₁ = (0, 0): a posição de maior peso não contribui nada
    np.testing.assert_array_equal(p.estado["pesos"], pesos0)
    np.testing.assert_allclose(p.estado["contribuicoes"][0], [0.0, 0.0])
    np.testing.assert_allclose(p.estado["saida"], saida0 - pesos0[0] * np.array([10.0, 0.0]))
    np.testing.assert_allclose(p.estado["saida"], [1.5993, 3.8454], atol=1e-4)
    assert p.imagem.value != png0
    assert "(1.60, 3.85)" in p.texto.value


def test_exercicio_3_v3_espelhado():
    p = licao.painel_soma_ponderada_values()
    p.definir(v3_y=-5.0)
    _, saida = referencia(Q, K, [[10, 0], [0, 10], [5, -5]])
    np.testing.assert_allclose(p.estado["saida"], saida, rtol=1e-12)
    np.testing.assert_allclose(p.estado["saida"], [6.1546, 0.6467], atol=1e-4)


@pytest.mark.parametrize("fabrica", [licao.painel_soma_ponderada, licao.painel_soma_ponderada_values])
def test_todo_controle_aceita_min_e_max_sem_nan(fabrica):
    p = fabrica()
    for controle in p.controles.values():
        for valor in (controle.min, controle.max):
            controle.value = valor
            e = p.estado
            assert np.all(np.isfinite(e["pesos"])) and np.all(np.isfinite(e["saida"]))
            assert e["pesos"].sum() == pytest.approx(1.0)
            pesos, saida = referencia(e["q"], e["K"], e["V"])
            np.testing.assert_allclose(e["saida"], saida, rtol=1e-10, atol=1e-10)


def test_formas_erradas_sao_recusadas_em_portugues():
    with pytest.raises(ValueError, match="o painel usa q"):
        licao.painel_soma_ponderada(keys=[[1.0, 0.0], [0.0, 1.0]])


# --- figura estática: a saída nunca sai do triângulo dos values ------------------------------------


def test_caminho_da_saida_fica_dentro_do_triangulo():
    k = [[1, 0], [0, 1], [-0.7, -0.7]]
    v = np.array([[10.0, 0.0], [0.0, 10.0], [-4.0, -6.0]])
    fig = licao.figura_caminho_da_saida(k, v, comprimentos=(1, 3, 8), limites=(-8, 13))
    curvas = [linha for linha in fig.axes[0].lines if str(linha.get_label()).startswith("saídas")]
    assert len(curvas) == 3
    a, b, c = v
    matriz = np.column_stack([b - a, c - a])
    for curva in curvas:
        pontos = np.column_stack(curva.get_data())
        beta_gama = np.linalg.solve(matriz, (pontos - a).T)
        alfa = 1 - beta_gama.sum(axis=0)
        assert np.all(beta_gama >= -1e-9) and np.all(alfa >= -1e-9)  # coordenadas baricêntricas ≥ 0
    assert len(plots.png(fig)) > 1000


# --- as soluções publicadas no notebook passam no corretor -----------------------------------------


def _solucoes():
    return solucoes_do_notebook(NOTEBOOK)




def test_esqueleto_recebe_aviso_amigavel(capsys):
    def atencao_uma_query(q, K, V):
        raise NotImplementedError("complete aqui")

    assert licao.check_attention(atencao_uma_query) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


# === corretor (vindo de test_checks.py) ===

# --- atenção: a certa e as erradas --------------------------------------------------------------


def _sm(s, axis=-1):
    z = s - np.max(s, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def atencao_ok(q, K, V):
    w = _sm(q @ K.T / np.sqrt(K.shape[-1]))
    return w @ V


def atencao_tupla(q, K, V):
    w = _sm(q @ K.T / np.sqrt(K.shape[-1]))
    return w @ V, w


def atencao_sem_escala(q, K, V):
    return _sm(q @ K.T) @ V


def atencao_divide_por_d(q, K, V):
    return _sm(q @ K.T / K.shape[-1]) @ V


def atencao_sem_transpor(q, K, V):
    return _sm(q @ K / np.sqrt(K.shape[-1])) @ V


def atencao_ordem_trocada(q, K, V):
    w = _sm(q @ K.T / np.sqrt(K.shape[-1]))
    return V @ w


def atencao_soma_keys(q, K, V):
    return _sm(q @ K.T / np.sqrt(K.shape[-1])) @ K


def atencao_sem_softmax(q, K, V):
    return (q @ K.T / np.sqrt(K.shape[-1])) @ V


def atencao_esqueleto(q, K, V):
    raise NotImplementedError("complete aqui")


def atencao_eixo_errado(q, K, V):
    return _sm(q @ K.T / np.sqrt(K.shape[-1]), axis=0) @ V


def atencao_mascara_ok(q, K, V, mask=None):
    s = q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    return _sm(s) @ V


def atencao_mascara_depois(q, K, V, mask=None):
    w = _sm(q @ K.T / np.sqrt(K.shape[-1]))
    if mask is not None:
        w = w * mask
    return w @ V


def atencao_mascara_invertida(q, K, V, mask=None):
    s = q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    return _sm(s) @ V


def test_check_attention_accepts_reference(capsys):
    assert check_attention(atencao_ok) is True
    assert check_attention(atencao_tupla) is True
    assert check_attention(atencao_ok, varias_queries=True) is True
    assert check_attention(atencao_mascara_ok) is True
    out = capsys.readouterr().out
    assert out.count("Correto") == 4 and "A máscara está certa" in out


def test_check_attention_accepts_helper():
    assert check_attention(lambda q, K, V: scaled_dot_product_attention(q, K, V), varias_queries=True)


CASOS_ATENCAO = [
    (atencao_sem_escala, {}, "esqueceu de escalar"),
    (atencao_divide_por_d, {}, "dividiu por d = 2 em vez de √d = √2 ≈ 1.41"),
    (atencao_sem_transpor, {}, "transpôs K"),
    (atencao_ordem_trocada, {}, "ordem dos fatores"),
    (atencao_soma_keys, {}, "keys"),
    (atencao_sem_softmax, {}, "Faltou a softmax"),
    (atencao_esqueleto, {}, "ainda não foi implementada"),
    (atencao_eixo_errado, {"varias_queries": True}, "Softmax calculada no eixo errado"),
    (atencao_mascara_depois, {}, "Máscara aplicada depois da softmax"),
    (atencao_mascara_invertida, {}, "Máscara invertida"),
]


@pytest.mark.parametrize(("fn", "kwargs", "explicacao"), CASOS_ATENCAO, ids=[c[0].__name__ for c in CASOS_ATENCAO])
def test_check_attention_names_the_mistake(fn, kwargs, explicacao, capsys):
    assert check_attention(fn, **kwargs) is False
    out = capsys.readouterr().out
    assert explicacao in out, out
    assert "Correto" not in out


def test_single_query_exercise_does_not_demand_matrices(capsys):
    # uma solução correta só para uma query passa no exercício de uma query...
    def uma_query(q, K, V):
        s = K @ q / np.sqrt(len(q))
        e = np.exp(s - s.max())
        return (e / e.sum()) @ V

    assert check_attention(uma_query) is True
    # ...mas não quando o exercício pede várias queries
    assert check_attention(uma_query, varias_queries=True) is False
    assert "levantou ValueError" in capsys.readouterr().out
