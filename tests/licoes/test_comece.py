"""A checagem do ambiente diz o que fazer quando algo falta ou é antigo."""

import numpy as np
import pytest

from helpers.corretor import corrigir, corrigir_previsao
from helpers.licoes import comece
from helpers.licoes.comece import REQUISITOS, _versao, check_produto_escalar, verificar_ambiente
from tests._corretor import confere_erro_nomeado


def _tudo(v="99.0"):
    return {r.pacote: v for r in REQUISITOS}


def test_real_environment_is_ok(capsys):
    assert verificar_ambiente() is True
    assert "Tudo certo" in capsys.readouterr().out


def test_missing_package(capsys):
    versoes = _tudo()
    versoes["ipywidgets"] = None
    assert verificar_ambiente((3, 11), versoes) is False
    out = capsys.readouterr().out
    assert "❌ ipywidgets não encontrado" in out and "pip install -r requirements.txt" in out


def test_old_package_and_old_python(capsys):
    versoes = _tudo()
    versoes["numpy"] = "1.26.4"
    assert verificar_ambiente((3, 9), versoes) is False
    out = capsys.readouterr().out
    assert "numpy 1.26.4 é antigo demais (precisa de 2.0" in out
    assert "Python 3.9" in out and "3.10" in out


def test_version_parsing():
    assert _versao("2.4.6") == (2, 4, 6)
    assert _versao("4.5.post3") == (4, 5)
    assert _versao("8.1.0rc1") == (8, 1, 0)
    assert _versao("0.11.0") >= (0, 11)


# === corretor (vindo de test_checks.py) ===

# --- produto escalar (notebook 00) --------------------------------------------------------------


def pe_ok(q, k):
    return sum(a * b for a, b in zip(q, k))


CASOS_PE = [
    (lambda q, k: q * k, "esqueceu de **somar**"),
    (lambda q, k: q + k, "somou os vetores"),
    (lambda q, k: q.sum() * k.sum(), "multiplicou as somas"),
    (lambda q, k: q[0] * k[0], "Só a primeira coordenada"),
    (lambda q, k: np.outer(q, k), "um único número"),
]


def test_check_produto_escalar(capsys):
    assert check_produto_escalar(pe_ok) is True
    assert "Correto" in capsys.readouterr().out


@pytest.mark.parametrize("fn", [
    np.dot, np.inner,
    lambda q, k: q @ k,
    lambda q, k: float(np.dot(q, k)),
    lambda q, k: q.dot(k),
    lambda q, k: np.einsum("i,i->", q, k),
    lambda q, k: np.inner(q, k),
    lambda q, k: np.linalg.multi_dot([q, k]),
])
def test_the_statement_rule_no_at_no_dot_is_enforced(fn):
    """O enunciado diz "sem @ nem np.dot": com as respostas certas, o atalho é recusado pela regra, com nome."""
    v = corrigir(comece.PRODUTO_ESCALAR, fn)
    assert not v.ok and v.erro == "usou @ ou np.dot", v.mensagem
    assert "à mão" in v.mensagem and "Correto" not in v.mensagem


@pytest.mark.parametrize(("fn", "explicacao"), CASOS_PE)
def test_check_produto_escalar_names_mistake(fn, explicacao, capsys):
    assert check_produto_escalar(fn) is False
    assert explicacao in capsys.readouterr().out


def test_check_produto_escalar_stub(capsys):
    def produto_escalar(q, k):
        raise NotImplementedError

    assert check_produto_escalar(produto_escalar) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


# --- todo erro nomeado do produto escalar, e formas certas diferentes ---------------------------------


def pe_laco(q, k, inicio=0, fim=0):
    total = 0.0
    for i in range(inicio, len(q) - fim):
        total += q[i] * k[i]
    return total


def pe_sobrescreve(q, k):
    total = 0.0
    for i in range(len(q)):
        total = q[i] * k[i]
    return total


def pe_return_no_laco(q, k):
    total = 0.0
    for i in range(len(q)):
        total += q[i] * k[i]
        return total


EXEMPLOS_PE = {
    "produto sem a soma": (lambda q, k: q * k, "esqueceu de **somar**"),
    "somou os vetores": lambda q, k: np.sum(q + k),
    "multiplicou as somas": (lambda q, k: sum(a * b for a in q for b in k), "laço dentro de outro"),
    "produto dos comprimentos": lambda q, k: np.linalg.norm(q) * np.linalg.norm(k),
    "média no lugar da soma": lambda q, k: np.mean(q * k),
    "só a primeira coordenada": (pe_return_no_laco, "`return` dentro do laço"),
    "faltou a última coordenada": lambda q, k: pe_laco(q, k, fim=1),
    "pulou a primeira coordenada": lambda q, k: pe_laco(q, k, inicio=1),
    "só a última coordenada": (pe_sobrescreve, "total += q[i] * k[i]"),
}


@pytest.mark.parametrize("nome", list(EXEMPLOS_PE))
def test_produto_escalar_names_every_mistake(nome):
    confere_erro_nomeado(comece.PRODUTO_ESCALAR, EXEMPLOS_PE, nome)


@pytest.mark.parametrize("fn", [
    lambda q, k: float(np.sum(q * k)),
    lambda q, k: np.float32(sum(float(a) * float(b) for a, b in zip(q, k))),
    lambda q, k: np.array(np.multiply(q, k).sum()),
    lambda q, k: (q * k).sum(),
    pe_laco,
])
def test_produto_escalar_accepts_right_answers_written_differently(fn):
    assert corrigir(comece.PRODUTO_ESCALAR, fn).ok


def test_a_diagnosis_is_true_on_every_case_where_it_applies():
    """O laço que para uma coordenada antes coincide com "só a primeira" em 2-D: o caso de 4 coordenadas separa os dois."""
    assert any(len(c.entradas["q"]) >= 4 for c in comece.PRODUTO_ESCALAR.casos())
    assert corrigir(comece.PRODUTO_ESCALAR, lambda q, k: q[0] * k[0]).erro == "só a primeira coordenada"
    assert corrigir(comece.PRODUTO_ESCALAR, lambda q, k: pe_laco(q, k, fim=1)).erro == "faltou a última coordenada"


# --- a previsão: q·k com q a 165° -------------------------------------------------------------------


@pytest.mark.parametrize(("previsao", "erro"), [(2.121, "girar não muda q·k"), ("2,12", "girar não muda q·k"),
                                               (3, "só os comprimentos"), (-3, "perpendicular confundido com oposto"),
                                               ("-2,9", "165° como o ângulo entre as setas"),
                                               (-1.34, "cosseno em radianos"), ((0, 0), "tipo"),
                                               (1.5, "valor"), ("zero", "tipo"), (None, "pendente")])
def test_previsao_perpendicular_names_the_misconception(previsao, erro):
    v = corrigir_previsao(comece.PREVISAO_PERPENDICULAR, previsao)
    assert not v.ok and v.erro == erro, v.mensagem
    # sem previsão ou com uma ilegível, não revela: um erro de digitação não custa a previsão
    assert ("A resposta: 0" in v.mensagem) == (erro not in ("pendente", "tipo")), v.mensagem


def test_prediction_box_reads_brazilian_numbers_and_reveals_once():
    caixa = comece.prever_q_165()
    assert caixa.conferir("zero") is False and not caixa.conferida
    assert caixa.conferir("0,00") is True and caixa.conferida
    assert "A resposta: 0" in caixa.mensagem.value
    assert comece.prever_q_165().conferir(comece.PREVISAO_PERPENDICULAR.exemplo) is False


@pytest.mark.parametrize("previsao", [0, 0.0, "0", "0,00", -0.001, np.float64(0.004)])
def test_previsao_perpendicular_accepts_zero(previsao):
    assert corrigir_previsao(comece.PREVISAO_PERPENDICULAR, previsao).ok


def test_previsao_perpendicular_is_what_the_panel_shows():
    painel = comece.painel_produto_escalar(mover_k=False)
    assert abs(painel.definir(angulo_q=165)["produto"]) < 1e-12
    assert painel.definir(angulo_q=30)["produto"] == pytest.approx(2.121, abs=5e-4)


def test_o_painel_e_da_propria_licao():
    """Uma lição não importa outra: o painel do primeiro contato é do ``comece``, e só a query se mexe."""
    import inspect

    assert comece.painel_produto_escalar.__module__ == comece.__name__
    assert "produto_escalar import" not in inspect.getsource(comece)
    painel = comece.painel_produto_escalar()
    assert set(painel.controles) == {"angulo_q", "comprimento_q"}
    assert "2.121" in painel.texto.value
    antes = painel.imagem.value
    painel.definir(angulo_q=90)
    assert painel.imagem.value != antes and painel.blits == 1


def test_a_missing_contributor_tool_does_not_block_a_student(capsys):
    versoes = {r.pacote: ".".join(map(str, r.minima)) for r in comece.REQUISITOS}
    versoes["nbval"] = None
    assert comece.verificar_ambiente(python=(3, 11), versoes=versoes) is True
    saida = capsys.readouterr().out
    assert "nbval não encontrado" in saida and "não faz falta" in saida and "Tudo certo" in saida
    versoes["numpy"] = None
    assert comece.verificar_ambiente(python=(3, 11), versoes=versoes) is False
