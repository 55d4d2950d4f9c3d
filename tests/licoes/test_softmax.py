"""Notebook 04: o painel da softmax segue a matemática e o corretor do jacobiano reconhece cada erro."""

import math

import numpy as np
import pytest

from helpers.attention import softmax  # noqa: F811
from helpers.corretor import corrigir_previsao
from helpers.licoes import softmax as licao
from helpers.licoes.softmax import (
    check_jacobiano_softmax,
    check_softmax,  # noqa: F811
)
from helpers.previsao import ler_digitado
from tests._corretor import confere_erro_nomeado

# --- referência independente (não usa helpers.attention) --------------------------------------


def _softmax_ref(z, t=1.0):
    z = np.asarray(z, dtype=float) / t
    e = np.exp(z - z.max())
    return e / e.sum()


def _jacobiano_ref(s):
    n = len(s)
    return np.array([[s[i] * ((1.0 if i == j else 0.0) - s[j]) for j in range(n)] for i in range(n)])


# --- painel_softmax ------------------------------------------------------------------------------


@pytest.fixture
def painel():
    return licao.painel_softmax()


def test_estado_inicial_e_o_exemplo_resolvido(painel):
    e = painel.estado
    np.testing.assert_allclose(e["escores"], [0.707, 0.0, 0.354])
    np.testing.assert_allclose(e["pesos"], [0.455, 0.225, 0.320], atol=5e-4)
    assert e["soma"] == pytest.approx(1.0)
    assert e["temperatura"] == 1.0
    assert "0.455, 0.225, 0.320" in painel.texto.value
    assert "soma dos pesos" in painel.texto.value


def test_controles_existem_e_aceitam_extremos(painel):
    assert list(painel.controles) == ["z1", "z2", "z3", "temperatura"]
    for nome, c in painel.controles.items():
        for valor in (c.min, c.max):
            estado = painel.definir(**{nome: valor})
            assert np.all(np.isfinite(estado["pesos"]))
            assert estado["soma"] == pytest.approx(1.0)


def test_slider_de_escore_muda_pesos_como_a_formula(painel):
    png_antes = painel.imagem.value
    painel.controles["z2"].value = 3.0  # move um slider de verdade (observe), sem definir()
    e = painel.estado
    esperado = _softmax_ref([0.707, 3.0, 0.354])
    np.testing.assert_allclose(e["pesos"], esperado, rtol=1e-12)
    assert int(np.argmax(e["pesos"])) == 1
    assert painel.imagem.value != png_antes
    assert f"{esperado[1]:.3f}" in painel.texto.value


def test_temperatura_alta_tende_ao_uniforme(painel):
    e1 = painel.definir(temperatura=1.0)
    e5 = painel.definir(temperatura=5.0)
    np.testing.assert_allclose(e5["pesos"], _softmax_ref([0.707, 0.0, 0.354], 5.0), rtol=1e-12)
    # mais perto de 1/3 e com mais entropia que em T = 1
    assert np.abs(e5["pesos"] - 1 / 3).max() < np.abs(e1["pesos"] - 1 / 3).max()
    assert np.abs(e5["pesos"] - 1 / 3).max() < 0.03
    assert e5["entropia"] > e1["entropia"]
    assert e5["entropia"] == pytest.approx(math.log(3), abs=2e-3)
    assert e5["entropia_max"] == pytest.approx(math.log(3))


def test_temperatura_baixa_tende_ao_argmax_e_satura(painel):
    e = painel.definir(z1=2.0, z2=0.0, z3=1.0, temperatura=0.1)
    s = _softmax_ref([2.0, 0.0, 1.0], 0.1)
    np.testing.assert_allclose(e["pesos"], s, rtol=1e-12)
    assert e["peso_max"] > 0.9999
    assert e["entropia"] < 1e-3
    # saturação: o jacobiano some
    assert e["jacobiano_max"] < 1e-3
    assert e["jacobiano_max"] == pytest.approx(np.abs(_jacobiano_ref(s)).max())


def test_somar_constante_nao_muda_os_pesos(painel):
    antes = painel.definir(z1=0.5, z2=-1.0, z3=1.5)["pesos"].copy()
    depois = painel.definir(z1=3.5, z2=2.0, z3=4.5)["pesos"]
    np.testing.assert_allclose(depois, antes, rtol=1e-12)


def test_jacobiano_do_estado(painel):
    e = painel.definir(z1=1.0, z2=-2.0, z3=0.0, temperatura=2.0)
    s = _softmax_ref([1.0, -2.0, 0.0], 2.0)
    np.testing.assert_allclose(e["jacobiano"], _jacobiano_ref(s), atol=1e-14)
    # a imagem do mapa de calor recebeu exatamente essa matriz
    figura_imagem = painel.fig.axes[1].images[0]
    np.testing.assert_allclose(np.asarray(figura_imagem.get_array()), _jacobiano_ref(s), atol=1e-14)
    assert e["jacobiano_max"] <= 0.25
    # escores iguais: uniforme, jacobiano no seu máximo 1/3·(1 − 1/3) = 2/9 na diagonal
    e = painel.definir(z1=1.0, z2=1.0, z3=1.0)
    np.testing.assert_allclose(e["pesos"], [1 / 3] * 3)
    assert e["jacobiano_max"] == pytest.approx(2 / 9)
    assert e["entropia"] == pytest.approx(math.log(3))


def test_o_jacobiano_do_painel_diz_em_relacao_a_que(painel):
    """O mapa e a tabela mostram ∂s/∂(z/T), a derivada na entrada da softmax; em relação ao escore z do slider
    ela é J / T, que com T pequeno pode passar de 0,25 (a tabela diz as duas)."""
    e = painel.definir(z1=0.707, z2=0.0, z3=0.354, temperatura=0.1)
    ax_j = painel.fig.axes[1]
    assert [t.get_text() for t in ax_j.get_xticklabels()] == ["z₁/T", "z₂/T", "z₃/T"]
    assert "∂(z" in ax_j.get_title()
    assert e["jacobiano_max"] == pytest.approx(0.028, abs=1e-3)
    assert f"{e['jacobiano_max'] / 0.1:.3f}" == "0.284" and "÷ T: 0.284" in painel.texto.value


def test_texto_acompanha_o_estado(painel):
    e = painel.definir(z1=-5.0, z2=5.0, z3=0.0, temperatura=0.5)
    assert f"{e['peso_max']:.3f}" in painel.texto.value
    assert f"{e['entropia']:.3f}" in painel.texto.value
    assert "-5.00, 5.00, 0.00" in painel.texto.value


def test_variantes_do_painel():
    p = licao.painel_softmax(escores=(1.0, 2.0, 3.0, 4.0), temperatura=2.0, mostrar_jacobiano=False)
    assert list(p.controles) == ["z1", "z2", "z3", "z4", "temperatura"]
    np.testing.assert_allclose(p.estado["pesos"], _softmax_ref([1, 2, 3, 4], 2.0))
    assert len(p.fig.axes) == 1
    assert "jacobiano" not in p.texto.value and "∂" not in p.texto.value  # sem o mapa, nada de jacobiano na tabela
    with pytest.raises(ValueError, match="de 2 a 6 escores"):
        licao.painel_softmax(escores=(1.0,))



# --- corretor do jacobiano -----------------------------------------------------------------------


def jac_ok(z):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max())
    s = e / e.sum()
    return np.diag(s) - np.outer(s, s)


def _s(z):
    return _softmax_ref(z)


def jac_so_diagonal_vetor(z):
    s = _s(z)
    return s * (1 - s)


def jac_sem_outer(z):
    return np.diag(_s(z))


def jac_sem_delta(z):
    s = _s(z)
    return -np.outer(s, s)


def jac_sinal_trocado(z):
    s = _s(z)
    return np.outer(s, s) - np.diag(s)


def jac_sem_fator_si(z):
    s = _s(z)
    return np.eye(len(s)) - s[None, :]


def jac_si_no_lugar_de_sj(z):
    s = _s(z)
    return s[:, None] * (np.eye(len(s)) - s[:, None])


def jac_usa_z(z):
    z = np.asarray(z, dtype=float)
    return np.diag(z) - np.outer(z, z)


def jac_instavel(z):
    e = np.exp(z)
    s = e / e.sum()
    return np.diag(s) - np.outer(s, s)


def jac_forma_errada(z):
    return jac_ok(z).ravel()


def jac_esqueleto(z):
    raise NotImplementedError("complete aqui")


def jac_qualquer(z):
    return jac_ok(z) + 0.01


CASOS_JACOBIANO = [
    (jac_so_diagonal_vetor, "só a diagonal"),
    (jac_sem_outer, "Faltou o termo −sᵢsⱼ"),
    (jac_sem_delta, "Faltou o δᵢⱼ"),
    (jac_sinal_trocado, "Sinal trocado"),
    (jac_sem_fator_si, "Faltou multiplicar por sᵢ"),
    (jac_si_no_lugar_de_sj, "usou sᵢ onde deveria estar sⱼ"),
    (jac_usa_z, "escores z no lugar dos pesos s"),
    (jac_instavel, "NaN ou inf"),
    (jac_forma_errada, "deveria ter forma (3, 3), mas veio (9,)"),
    (jac_qualquer, "esperava"),
]


def test_jacobiano_correto_aceito(capsys):
    assert check_jacobiano_softmax(jac_ok) is True
    assert "Correto" in capsys.readouterr().out


@pytest.mark.parametrize(("fn", "trecho"), CASOS_JACOBIANO, ids=[f.__name__ for f, _ in CASOS_JACOBIANO])
def test_jacobiano_erros_reconhecidos(fn, trecho, capsys):
    with np.errstate(all="ignore"):
        assert check_jacobiano_softmax(fn) is False
    saida = capsys.readouterr().out
    assert "❌" in saida
    assert trecho in saida


def test_jacobiano_esqueleto(capsys):
    assert check_jacobiano_softmax(jac_esqueleto) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


def test_variantes_erradas_sao_distinguiveis():
    """Cada variante errada precisa dar um número diferente da certa no primeiro caso, senão o
    corretor não teria como reconhecê-la."""
    z = np.array([0.707, 0.0, 0.354])
    certo = jac_ok(z)
    for fn, _ in CASOS_JACOBIANO:
        if fn in (jac_instavel,):  # só falha com escores grandes
            continue
        y = np.asarray(fn(z))
        assert y.shape != certo.shape or not np.allclose(y, certo), fn.__name__


# --- o exercício 1 do notebook usa o corretor existente --------------------------------------------


def test_solucao_do_exercicio_1_aceita(capsys):
    def minha_softmax(x, temperatura=1.0):
        z = x / temperatura
        z = z - np.max(z, axis=-1, keepdims=True)
        e = np.exp(z)
        return e / np.sum(e, axis=-1, keepdims=True)

    assert check_softmax(minha_softmax) is True
    assert "Correto" in capsys.readouterr().out


def test_a_versao_sem_temperatura_do_texto_nao_basta(capsys):
    """A softmax estável que o notebook mostra pronta (sem temperatura) não resolve o exercício."""

    def minha_softmax(x):
        z = x - np.max(x, axis=-1, keepdims=True)
        e = np.exp(z)
        return e / np.sum(e, axis=-1, keepdims=True)

    assert check_softmax(minha_softmax) is False
    assert "temperatura" in capsys.readouterr().out


# === corretor (vindo de test_checks.py) ===

# --- softmax: a certa e as erradas --------------------------------------------------------------


def softmax_ok(x, temperatura=1.0):
    z = x / temperatura
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_sem_max(x, temperatura=1.0):
    e = np.exp(x / temperatura)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_eixo_errado(x, temperatura=1.0):
    z = x / temperatura
    z = z - np.max(z, axis=0, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=0, keepdims=True)


def softmax_soma_tudo(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - np.max(z))
    return e / e.sum()


def softmax_sem_dividir(x, temperatura=1.0):
    z = x / temperatura
    return np.exp(z - np.max(z, axis=-1, keepdims=True))


def softmax_sem_exp(x, temperatura=1.0):
    return x / x.sum(axis=-1, keepdims=True)


def softmax_esqueleto(x, temperatura=1.0):
    raise NotImplementedError


def softmax_none(x, temperatura=1.0):
    pass


def softmax_forma_errada(x, temperatura=1.0):
    return softmax_ok(x, temperatura).ravel()[:1]


def softmax_maximo_de_x(x, temperatura=1.0):
    e = np.exp(x / temperatura - np.max(x, axis=-1, keepdims=True))  # o máximo de x, não o de x / T
    return e / e.sum(axis=-1, keepdims=True)


def softmax_ignora_temperatura(x, temperatura=1.0):
    return softmax_ok(x)


def softmax_temperatura_depois_do_exp(x, temperatura=1.0):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True)) / temperatura  # a divisão pela soma cancela o 1/T
    return e / e.sum(axis=-1, keepdims=True)


def softmax_multiplica_temperatura(x, temperatura=1.0):
    return softmax_ok(x * temperatura)


CASOS_SOFTMAX = [
    (softmax_sem_max, "Subtraia o máximo"),
    (softmax_eixo_errado, "eixo errado"),
    (softmax_soma_tudo, "array inteiro"),
    (softmax_sem_dividir, "esqueceu de dividir pela soma"),
    (softmax_sem_exp, "sem exponenciar"),
    (softmax_esqueleto, "ainda não foi implementada"),
    (softmax_none, "ainda não foi implementada"),
    (softmax_forma_errada, "mesma forma"),
    (softmax_maximo_de_x, "subtraiu o máximo de x, não o de x / T"),
    (softmax_ignora_temperatura, "A temperatura não teve efeito"),
    (softmax_temperatura_depois_do_exp, "A temperatura não teve efeito"),
    (softmax_multiplica_temperatura, "Ela **divide**"),
]


def test_check_softmax_accepts_reference_and_refuses_the_ready_one_by_name(capsys):
    assert check_softmax(softmax_ok) is True
    assert "Correto" in capsys.readouterr().out
    # o enunciado diz "sem attention.softmax": com as respostas certas, a pronta é recusada com nome
    from helpers.corretor import corrigir

    for pronta in (lambda x, temperatura=1.0: softmax(x, temperature=temperatura), softmax_da_biblioteca):
        v = corrigir(licao.SOFTMAX, pronta)
        assert v.erro == "usou a softmax pronta" and "só com numpy" in v.mensagem, v.mensagem


@pytest.mark.parametrize(("fn", "explicacao"), CASOS_SOFTMAX, ids=[f.__name__ for f, _ in CASOS_SOFTMAX])
def test_check_softmax_names_the_mistake(fn, explicacao, capsys):
    assert check_softmax(fn) is False
    out = capsys.readouterr().out
    assert explicacao in out, out
    assert "Correto" not in out


def softmax_maximo_por_linha_soma_tudo(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - z.max(axis=-1, keepdims=True))  # o máximo certo, de cada linha...
    return e / e.sum()                             # ...mas a soma do array inteiro


def test_dividing_by_the_whole_sum_is_named_whatever_maximum_was_subtracted():
    from helpers.corretor import corrigir

    v = corrigir(licao.SOFTMAX, softmax_maximo_por_linha_soma_tudo)
    assert v.erro == "normalizou pela matriz inteira", v.mensagem
    assert "e.sum(axis=-1, keepdims=True)" in v.mensagem


def test_a_missing_keepdims_is_explained_with_the_shapes(capsys):
    def minha_softmax(x, temperatura=1.0):
        z = x / temperatura
        e = np.exp(z - np.max(z, axis=-1))  # sem keepdims: (2, 3) − (2,) não alinha
        return e / np.sum(e, axis=-1)

    assert check_softmax(minha_softmax) is False
    out = capsys.readouterr().out
    assert "keepdims=True" in out and "(2, 1)" in out and "@" not in out, out
    # e o erro tem nome: numa matriz quadrada a conta roda calada e erra
    from helpers.corretor import corrigir

    assert corrigir(licao.SOFTMAX, minha_softmax).erro == "sem keepdims"


def test_the_grader_leaks_no_warning_into_the_students_output():
    import warnings

    def zeros(x, temperatura=1.0):  # linhas que somam 0: a conta dos erros não pode avisar nada
        return np.zeros_like(np.asarray(x, dtype=float))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (zeros, softmax_maximo_por_linha_soma_tudo, softmax_sem_dividir, softmax_maximo_de_x,
                   softmax_maximo_global):
            assert check_softmax(fn) is False


def test_check_softmax_reports_student_exception(capsys):
    def softmax_com_bug(x, temperatura=1.0):
        return np.exp(x) / undefined_name  # noqa: F821

    assert check_softmax(softmax_com_bug) is False
    out = capsys.readouterr().out
    assert "NameError" in out and "undefined_name" in out


# --- o padrão de estabilidade: os erros que passavam antes -----------------------------------------


def softmax_menos_minimo(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - np.min(z, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_maximo_global(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - np.max(z))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_float32_sem_maximo(x, temperatura=1.0):
    e = np.exp(x / temperatura)  # em float32, e^100 já é inf
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize(
    ("fn", "nome"),
    [(softmax_menos_minimo, "subtraiu o mínimo (instável)"), (softmax_maximo_global, "um máximo só para o lote inteiro (instável)"),
     (softmax_float32_sem_maximo, "sem subtrair o máximo (instável)")],
)
def test_stability_standard_names_each_unstable_softmax(fn, nome):
    from helpers.corretor import corrigir
    from helpers.licoes.softmax import SOFTMAX

    veredito = corrigir(SOFTMAX, fn)
    assert veredito.ok is False and veredito.erro == nome, veredito.mensagem
    assert "Subtraia o máximo de **cada linha**" in veredito.mensagem


def softmax_lista(x, temperatura=1.0):
    return softmax_ok(x, temperatura).tolist()


def softmax_laco(x, temperatura=1.0):
    x = np.asarray(x, dtype=float)
    linhas = x.reshape(-1, x.shape[-1])
    saida = []
    for linha in linhas:
        z = [v / temperatura for v in linha]
        m = max(z)
        e = [math.exp(v - m) for v in z]
        saida.append([v / sum(e) for v in e])
    return np.array(saida).reshape(x.shape)


def softmax_einsum_float32(x, temperatura=1.0):
    z = x - x.max(axis=-1, keepdims=True)  # subtrair antes de dividir por T > 0 também é estável
    e = np.exp(z / temperatura).astype(np.float32)
    return e / np.einsum("...i->...", e)[..., None]


def softmax_potencia(x, temperatura=1.0):
    e = np.exp(x - x.max(axis=-1, keepdims=True)) ** (1 / temperatura)  # e^(z/T) = (e^z)^(1/T)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_da_biblioteca(x, temperatura=1.0):
    return softmax(x, temperature=temperatura)


@pytest.mark.parametrize("fn", [softmax_lista, softmax_laco, softmax_einsum_float32, softmax_potencia])
def test_right_softmax_written_differently_is_accepted(fn, capsys):
    assert check_softmax(fn) is True, capsys.readouterr().out


# --- cada erro nomeado, com o exemplo que o provoca -------------------------------------------------


def softmax_maximo_so_se_positivo(x, temperatura=1.0):
    z = x / temperatura
    m = np.max(z, axis=-1, keepdims=True)
    e = np.exp(z - np.where(m > 0, m, 0.0))  # "só preciso subtrair quando é grande"
    return e / e.sum(axis=-1, keepdims=True)


def softmax_sem_keepdims(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - np.max(z, axis=-1))  # numa (3, 3) roda calado, alinhando o máximo com as colunas
    return e / e.sum(axis=-1)


def softmax_axis_1(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - np.max(z, axis=1, keepdims=True))  # a softmax de matriz, reusada em vetores e em 3 eixos
    return e / e.sum(axis=1, keepdims=True)


ERRADAS_SOFTMAX = {
    "o máximo de x, não de x / T (instável)": softmax_maximo_de_x,
    "subtraiu o máximo só quando positivo (instável)": (softmax_maximo_so_se_positivo, "[−1000, −1001, −1002]"),
    "sem keepdims": (softmax_sem_keepdims, "(2, 1)"),
    "axis=1 em vez de axis=-1": (softmax_axis_1, "axis 1 is out of bounds"),
    "ignorou a temperatura": softmax_ignora_temperatura,
    "multiplicou pela temperatura": softmax_multiplica_temperatura,
    "sem subtrair o máximo (instável)": softmax_sem_max,
    "subtraiu o mínimo (instável)": softmax_menos_minimo,
    "um máximo só para o lote inteiro (instável)": softmax_maximo_global,
    "eixo errado": softmax_eixo_errado,
    "normalizou pela matriz inteira": softmax_maximo_por_linha_soma_tudo,
    "sem exponenciar": softmax_sem_exp,
    "esqueceu de dividir pela soma": softmax_sem_dividir,
    "pesos que não somam 1": lambda x, temperatura=1.0: softmax_ok(x, temperatura) ** 2,
}


@pytest.mark.parametrize("nome", list(ERRADAS_SOFTMAX))
def test_softmax_nomeia_cada_erro(nome):
    confere_erro_nomeado(licao.SOFTMAX, ERRADAS_SOFTMAX, nome)


ERRADAS_JACOBIANO = {
    "só a diagonal, como vetor": jac_so_diagonal_vetor,
    "sem o termo −sᵢsⱼ": jac_sem_outer,
    "sem o δᵢⱼ": jac_sem_delta,
    "sinal trocado": jac_sinal_trocado,
    "sem o fator sᵢ": jac_sem_fator_si,
    "sᵢ no lugar de sⱼ": jac_si_no_lugar_de_sj,
    "sⱼ no lugar de sᵢ": lambda z: _s(z) * (np.eye(len(z)) - _s(z)),
    "escores z no lugar dos pesos s": jac_usa_z,
    "softmax instável por dentro": jac_instavel,
    "somou s sᵀ em vez de subtrair": (lambda z: np.diag(_s(z)) + _s(z)[:, None] * _s(z)[None, :], "diag(s) + s sᵀ"),
    "só s sᵀ": (lambda z: _s(z)[:, None] @ _s(z)[None, :], "faltou o diag(s)"),
    "s·s (um número) no lugar de s sᵀ": (lambda z: np.diag(_s(z)) - _s(z) @ _s(z).T, "np.outer(s, s)"),
    "só a diagonal, como matriz": (lambda z: np.eye(len(z)) * (_s(z) - _s(z) ** 2), "ficou 0"),
    "identidade no lugar de diag(s)": (lambda z: np.identity(len(z)) - np.outer(_s(z), _s(z)), "np.eye"),
}


@pytest.mark.parametrize("nome", list(ERRADAS_JACOBIANO))
def test_jacobiano_nomeia_cada_erro(nome):
    confere_erro_nomeado(licao.JACOBIANO, ERRADAS_JACOBIANO, nome)


def test_jacobiano_com_lacos_e_recusado_com_nome_mesmo_certo():
    """O enunciado diz "sem laços": o corretor confere na função, não só nas respostas."""
    from helpers.corretor import corrigir

    def com_lacos(z):
        s = softmax(z)
        return np.array([[s[i] * ((i == j) - s[j]) for j in range(len(s))] for i in range(len(s))])

    v = corrigir(licao.JACOBIANO, com_lacos)
    assert v.erro == "com laços" and "sem laços" in v.mensagem, v.mensagem
    assert corrigir(licao.JACOBIANO, jac_ok).ok


@pytest.mark.parametrize(("fn", "trecho"), [
    (jac_instavel, "e^1000 estoura"),
    (lambda z: jac_ok(z) if z.max() > 0 else jac_instavel(z), "muito negativos"),
])
def test_jacobiano_instavel_diz_onde_estourou(fn, trecho):
    from helpers.corretor import corrigir

    v = corrigir(licao.JACOBIANO, fn)
    assert v.erro == "softmax instável por dentro" and trecho in v.mensagem, v.mensagem


# --- a previsão de softmax(2·z) ---------------------------------------------------------------------

ERRADAS_DOBRO = {"dobrou o peso": 0.91, "multiplicar como somar": "0,455", "ficou mais espalhado": 0.39,
                 "foi direto ao argmax": 1}


def test_previsao_dobro_tem_um_exemplo_por_erro_e_bate_com_a_conta():
    assert sorted(ERRADAS_DOBRO) == sorted(licao.PREVISAO_DOBRO.nomes_dos_erros())
    assert licao.PREVISAO_DOBRO.certo() == pytest.approx(_softmax_ref([1.414, 0.0, 0.708])[0], abs=5e-4)


@pytest.mark.parametrize("nome", list(ERRADAS_DOBRO))
def test_previsao_dobro_nomeia_cada_equivoco(nome):
    v = corrigir_previsao(licao.PREVISAO_DOBRO, ERRADAS_DOBRO[nome])
    assert not v.ok and v.erro == nome and v.mensagem.startswith("❌"), v.mensagem
    assert "A resposta: 0,576" in v.mensagem


@pytest.mark.parametrize("previsao", [0.576, "0,58", 0.5758, np.float32(0.58), "0.57600", "0,57", "0,6", 0.55, 0.53,
                                      "0,62"])
def test_previsao_dobro_certa_de_varios_jeitos(previsao):
    """Uma previsão de cabeça: de 0,53 a 0,62 ("sobe sem dobrar") vale, e o veredito traz o 0,576 exato."""
    v = corrigir_previsao(licao.PREVISAO_DOBRO, previsao)
    assert v.ok and "A resposta: 0,576." in v.mensagem, v.mensagem


@pytest.mark.parametrize("previsao", [0.52, 0.63, 0.5, 0.8])
def test_previsao_dobro_longe_demais_nao_vale(previsao):
    assert corrigir_previsao(licao.PREVISAO_DOBRO, previsao).erro == "valor"


def test_numero_de_cabeca_aceita_a_folga_e_nunca_menos_que_o_arredondamento():
    f = licao.NumeroDeCabeca(casas=2, folga=0.05)
    assert f.igual(0.62, 0.576) and f.igual(0.53, 0.576) and not f.igual(0.63, 0.576)
    assert licao.NumeroDeCabeca(casas=2).igual(0.58, 0.576)  # sem folga: o arredondamento em duas casas
    assert f.mostrar(0.576) == "0,576"


def test_previsao_dobro_pendente_e_texto_invalido():
    v = corrigir_previsao(licao.PREVISAO_DOBRO, None)
    assert v.erro == "pendente" and "⏳" in v.mensagem and "0,576" not in v.mensagem  # sem previsão, nada revelado
    assert corrigir_previsao(licao.PREVISAO_DOBRO, "mais").erro == "tipo"
    assert corrigir_previsao(licao.PREVISAO_DOBRO, 0.7).erro == "valor"


@pytest.mark.parametrize(("digitado", "ok", "erro"), [
    ("0,576", True, None), ("0,58", True, None), ("0.576", True, None), (" 0,5758 ", True, None),
    ("0,6", True, None), ("0,55", True, None), ("0,46", False, "multiplicar como somar"), ("0,5", False, "valor"),
    ("0,91", False, "dobrou o peso"), ("0,455", False, "multiplicar como somar"),
    ("0,39", False, "ficou mais espalhado"), ("1", False, "foi direto ao argmax"), ("0,7", False, "valor"),
])
def test_caixa_do_dobro_as_a_student_types(digitado, ok, erro):
    c = licao.prever_dobro()
    assert c.conferir(digitado) is ok and c.conferida and c.veredito.erro == erro
    assert "0,576" in c.mensagem.value and c.entrada.disabled  # a revelação vem com o veredito


def test_caixa_do_dobro_ignores_a_typo_and_an_empty_box():
    c = licao.prever_dobro()
    for digitado in ("", "mais ou menos", "0,5,7"):
        assert c.conferir(digitado) is False and not c.conferida
        assert "0,576" not in c.mensagem.value and "0.576" not in c.mensagem.value
    assert c.conferir("0,58") is True


def test_previsao_dobro_example_is_legible_and_clues_cover_the_answer():
    assert corrigir_previsao(licao.PREVISAO_DOBRO, ler_digitado(licao.PREVISAO_DOBRO.exemplo)).erro == "valor"
    assert {"0,576", "0.576"} <= set(licao.PREVISAO_DOBRO.pistas_da_resposta())
