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
from helpers.corretor import corrigir, corrigir_previsao
from helpers.licoes import soma_ponderada as licao
from helpers.licoes.soma_ponderada import check_attention  # noqa: F811
from tests._corretor import confere_erro_nomeado

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


def test_esqueleto_recebe_aviso_amigavel(capsys):
    def atencao_uma_query(q, K, V):
        raise NotImplementedError("complete aqui")

    assert licao.check_attention(atencao_uma_query) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


# === o corretor da atenção ====================================================================


def _sm(s, axis=-1):
    z = s - np.max(s, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def _sm_com(ref):
    def sm(s):
        e = np.exp(s - ref(s))
        return e / e.sum(axis=-1, keepdims=True)

    return sm


def atencao_ok(q, K, V):
    w = _sm(q @ K.T / np.sqrt(K.shape[-1]))
    return w @ V


def atencao_tupla(q, K, V):
    w = _sm(q @ K.T / np.sqrt(K.shape[-1]))
    return w @ V, w


def atencao_lista(q, K, V):
    saida, pesos = atencao_tupla(q, K, V)
    return [saida.tolist(), pesos.tolist()]


def atencao_einsum_float32(q, K, V):
    q, K, V = (np.asarray(a, dtype=np.float32) for a in (q, K, V))
    s = np.einsum("...d,kd->...k", q, K) / np.float32(np.sqrt(K.shape[-1]))
    return np.einsum("...k,kv->...v", _sm(s), V)


def atencao_laco(q, K, V):
    Q = np.atleast_2d(q)
    saidas = []
    for linha in Q:
        escores = [float(linha @ k) / math.sqrt(len(linha)) for k in K]
        m = max(escores)
        e = [math.exp(x - m) for x in escores]
        saidas.append(sum(w / sum(e) * v for w, v in zip(e, V)))
    return np.array(saidas) if np.ndim(q) == 2 else saidas[0]


def _com_softmax(sm):
    return lambda q, K, V: sm(q @ K.T / np.sqrt(K.shape[-1])) @ V


def _atencao_sem_keepdims(q, K, V):
    s = q @ K.T / np.sqrt(K.shape[-1])
    e = np.exp(s - s.max(axis=-1))
    return (e / e.sum(axis=-1)) @ V


def _atencao_par_trocado(q, K, V):
    saida, pesos = atencao_tupla(q, K, V)
    return pesos, saida


ERRADAS_ATENCAO = {
    "subtraiu o máximo só quando positivo (instável)": (
        _com_softmax(_sm_com(lambda s: np.maximum(s.max(axis=-1, keepdims=True), 0.0))), "muito negativos"),
    "outro divisor no lugar de √d": (lambda q, K, V: _sm(q @ K.T / np.sqrt(2)) @ V, "√2 do exemplo"),
    "pesos sem dividir pela soma": lambda q, K, V: np.exp(
        (lambda s: s - s.max(axis=-1, keepdims=True))(q @ K.T / np.sqrt(K.shape[-1]))) @ V,
    "sem keepdims": (_atencao_sem_keepdims, "keepdims=True"),
    "par na ordem trocada": _atencao_par_trocado,
    "devolveu os pesos, não a saída": lambda q, K, V: _sm(q @ K.T / np.sqrt(K.shape[-1])),
    "parcelas sem a soma": lambda q, K, V: _sm(q @ K.T / np.sqrt(K.shape[-1]))[..., None] * V,
    "sem subtrair o máximo (instável)": _com_softmax(_sm_com(lambda s: 0.0)),
    "subtraiu o mínimo (instável)": _com_softmax(_sm_com(lambda s: s.min(axis=-1, keepdims=True))),
    "um máximo só para o lote inteiro (instável)": _com_softmax(_sm_com(lambda s: s.max())),
    "sem escala": lambda q, K, V: _sm(q @ K.T) @ V,
    "÷d em vez de ÷√d": (lambda q, K, V: _sm(q @ K.T / K.shape[-1]) @ V, "dividiu por d = 2 em vez de √d = √2 ≈ 1,41"),
    "×√d em vez de ÷√d": lambda q, K, V: _sm(q @ K.T * np.sqrt(K.shape[-1])) @ V,
    "soma das keys": lambda q, K, V: _sm(q @ K.T / np.sqrt(K.shape[-1])) @ K,
    "sem softmax": lambda q, K, V: (q @ K.T / np.sqrt(K.shape[-1])) @ V,
    "softmax no eixo errado": (lambda q, K, V: _sm(q @ K.T / np.sqrt(K.shape[-1]), axis=0) @ V, "eixo errado"),
    "q @ K sem transpor": lambda q, K, V: _sm(q @ K / np.sqrt(K.shape[-1])) @ V,
    "pesos * V (elemento a elemento, sem a soma)": (lambda q, K, V: _sm(q @ K.T / np.sqrt(K.shape[-1])) * V,
                                                    "um por key"),
    "saída transposta": (lambda q, K, V: np.transpose(_sm(q @ K.T / np.sqrt(K.shape[-1])) @ V), "transposta"),
    "saída transposta e softmax no eixo errado": (
        lambda q, K, V: V.T @ _sm(q @ K.T / np.sqrt(K.shape[-1]), axis=0).T, "Dois erros"),
    "devolveu três coisas": (lambda q, K, V: (*atencao_tupla(q, K, V), q @ K.T), "trio"),
    "axis=1 num vetor": (lambda q, K, V: _sm(q @ K.T / np.sqrt(K.shape[-1]), axis=1) @ V, "axis=-1"),
}


@pytest.mark.parametrize("nome", list(ERRADAS_ATENCAO))
def test_cada_erro_da_atencao_tem_nome(nome):
    confere_erro_nomeado(licao.ATENCAO, ERRADAS_ATENCAO, nome)


@pytest.mark.parametrize("fn", [atencao_ok, atencao_tupla, atencao_lista, atencao_einsum_float32, atencao_laco],
                         ids=["ok", "tupla", "lista", "einsum_float32", "laco"])
def test_atencao_certa_escrita_de_outro_jeito_passa(fn, capsys):
    assert check_attention(fn, varias_queries=True) is True, capsys.readouterr().out
    assert check_attention(fn) is True


def test_a_atencao_pronta_e_recusada_com_nome():
    """O exercício é escrever a atenção: a da biblioteca dá as respostas certas, e é recusada com nome."""
    pronta = lambda q, K, V: scaled_dot_product_attention(q, K, V)  # noqa: E731
    for ex in (licao.ATENCAO, licao.exercicio_atencao(False)):
        v = corrigir(ex, pronta)
        assert v.erro == "usou a atenção pronta" and "scaled_dot_product_attention" in v.mensagem, v.mensagem


def test_um_laco_que_devolve_uma_lista_de_linhas_passa():
    """Duas queries num laço, devolvidas como lista de duas linhas: é a saída (n_q, d_v), não um par."""

    def atencao_lista_de_linhas(q, K, V):
        if np.ndim(q) == 1:
            return atencao_ok(q, K, V)
        return [atencao_ok(linha, K, V) for linha in q]

    assert corrigir(licao.ATENCAO, atencao_lista_de_linhas).ok


def test_check_attention_names_shape_mistakes_and_skeleton(capsys):
    def ordem_trocada(q, K, V):
        return V @ _sm(q @ K.T / np.sqrt(K.shape[-1]))

    def esqueleto(q, K, V):
        raise NotImplementedError("complete aqui")

    assert check_attention(ordem_trocada) is False
    assert "ordem dos fatores" in capsys.readouterr().out
    assert check_attention(esqueleto) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


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


def test_um_maximo_para_todas_as_queries_so_falha_com_varias():
    """O exercício de uma query não tem como pegar o máximo global (só há uma linha); o de várias pega."""
    global_max = ERRADAS_ATENCAO["um máximo só para o lote inteiro (instável)"]
    assert corrigir(licao.exercicio_atencao(False), global_max).ok is True
    assert corrigir(licao.ATENCAO, global_max).erro == "um máximo só para o lote inteiro (instável)"


# --- a previsão do exercício 3 ----------------------------------------------------------------------

ERRADAS_V3 = {"a saída não muda": 3.85, "jogou fora a parcela de v₃": "2,25", "só a parcela de v₃": -1.6,
              "trocou o sinal da saída inteira": -3.85, "respondeu a primeira coordenada": 6.15}


def test_previsao_v3_tem_um_exemplo_por_erro():
    assert sorted(ERRADAS_V3) == sorted(licao.PREVISAO_V3.nomes_dos_erros())


@pytest.mark.parametrize("nome", list(ERRADAS_V3))
def test_previsao_v3_nomeia_cada_equivoco(nome):
    v = corrigir_previsao(licao.PREVISAO_V3, ERRADAS_V3[nome])
    assert not v.ok and v.erro == nome and v.mensagem.startswith("❌")
    assert "A resposta: 0,65" in v.mensagem


@pytest.mark.parametrize("previsao", [0.65, "0,65", " 0.6467 ", np.float64(0.649), 0.65000001])
def test_previsao_v3_certa_de_varios_jeitos(previsao):
    assert corrigir_previsao(licao.PREVISAO_V3, previsao).ok


def test_previsao_v3_bate_com_a_conta_e_nao_revela_sem_previsao_legivel():
    # a resposta é a conta com os pesos arredondados do Exemplo 1 e também arredonda a conta exata
    _, saida = referencia(Q, K, [[10, 0], [0, 10], [5, -5]])
    assert round(float(saida[1]), 2) == licao.PREVISAO_V3.certo()
    assert corrigir_previsao(licao.PREVISAO_V3, 0.7).erro == "valor"
    for ilegivel in (None, "meio", "0,6,5"):
        v = corrigir_previsao(licao.PREVISAO_V3, ilegivel)
        assert v.erro in ("pendente", "tipo") and "0,65" not in v.mensagem, v.mensagem


def test_caixa_da_previsao_v3_le_o_que_o_estudante_digita():
    caixa = licao.prever_v3()
    assert caixa.conferir("sessenta") is False and not caixa.conferida  # ilegível: pede outra
    assert caixa.conferir("3,85") is False and caixa.conferida  # a primeira previsão legível é a que vale
    assert caixa.veredito.erro == "a saída não muda" and "A resposta: 0,65" in caixa.mensagem.value
    assert caixa.conferir("0,65") is False  # travada
    assert licao.prever_v3().conferir(" 0,65 ") is True
    assert licao.prever_v3().conferir("-1,6") is False
    exemplo = licao.prever_v3()
    assert exemplo.conferir(licao.PREVISAO_V3.exemplo) is False and exemplo.conferida  # legível, e não é a resposta


def test_pistas_da_previsao_v3_cobrem_a_resposta_arredondada_e_a_exata():
    _, saida = referencia(Q, K, [[10, 0], [0, 10], [5, -5]])
    pistas = licao.PREVISAO_V3.pistas_da_resposta()
    for texto in (f"{saida[1]:.2f}", f"{saida[1]:.3f}", f"{saida[1]:.4f}"):
        assert texto in pistas and texto.replace(".", ",") in pistas
