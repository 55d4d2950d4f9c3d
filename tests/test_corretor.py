"""A base dos corretores: o laço, os formatos, os erros clássicos e as respostas que não podem derrubar nada."""

import numpy as np
import pytest

from helpers.corretor import (
    Array,
    Caso,
    Erro,
    Exercicio,
    Mascara,
    Numero,
    SaidaOuPar,
    Sequencia,
    conferir,
    corrigir,
)


def _dobro_ex(**kw):
    return Exercicio(
        nome="dobro",
        casos=lambda: [Caso("com x = [1, 2]", {"x": np.array([1.0, 2.0])}),
                       Caso("com x = [[1, 2], [3, 4]]", {"x": np.array([[1.0, 2.0], [3.0, 4.0]])})],
        certo=lambda x: 2 * x,
        acerto="Correto! 2x.",
        erros=[Erro("somou em vez de dobrar", "Você somou 2 em vez de multiplicar.", resposta=lambda x: x + 2),
               Erro("transpôs", "Você transpôs.", resposta=lambda x: (2 * x).T if x.ndim == 2 else None)],
        **kw,
    )


def test_right_answers_in_any_form_pass():
    ex = _dobro_ex()
    for fn in (lambda x: 2 * x, lambda x: (2 * x).tolist(), lambda x: x + x, lambda x: np.einsum("...,->...", x, 2.0),
               lambda x: (2 * x).astype(np.float32)):
        assert corrigir(ex, fn).ok


def test_named_mistake_explains_and_reports_where():
    v = corrigir(_dobro_ex(), lambda x: x + 2)
    assert not v.ok and v.erro == "somou em vez de dobrar"
    assert "Você somou 2" in v.mensagem and "Isso apareceu com x = [1, 2]" in v.mensagem
    assert "esperava [2., 4.], veio [3., 4.]" in v.mensagem


def test_mistake_that_only_shows_in_a_later_case_is_found():
    v = corrigir(_dobro_ex(), lambda x: (2 * x).T)
    assert v.erro == "transpôs" and "[[1, 2], [3, 4]]" in v.mensagem


@pytest.mark.parametrize(
    ("fn", "erro", "trecho"),
    [
        (lambda x: None, "pendente", "faltou o `return`"),
        (lambda x: (_ for _ in ()).throw(NotImplementedError("complete")), "pendente", "ainda não foi implementada"),
        (lambda x: 1 / 0, "excecao", "ZeroDivisionError"),
        (lambda x: "[2, 4]", "tipo", "veio str"),
        (lambda x: (v for v in x), "tipo", "veio generator"),
        (lambda x: [[1, 2], [3]], "tipo", "tamanhos"),
        (lambda x: np.full(x.shape, np.nan), "valor", "NaN ou inf"),
        (lambda x: np.zeros(3), "forma", "deveria ter forma (2,), mas veio (3,)"),
        (lambda x: x * 3, "valor", "esperava [2., 4.], veio [3., 6.]"),
        (lambda x: np.ones((2, 3)) @ np.ones((2, 3)), "forma", "erro de forma"),
    ],
)
def test_nothing_the_student_returns_crashes_the_grader(fn, erro, trecho):
    v = corrigir(_dobro_ex(), fn)
    assert not v.ok and v.erro == erro, v
    assert trecho in v.mensagem, v.mensagem


def test_not_a_function():
    v = corrigir(_dobro_ex(), np.array([2.0, 4.0]))
    assert not v.ok and "Passe a **função**" in v.mensagem


def test_infinite_loop_gets_a_time_limit_verdict():
    def eterna(x):
        while True:
            pass

    v = corrigir(_dobro_ex(tempo_limite=0.3), eterna)
    assert not v.ok and v.erro == "tempo" and "passou de 0.3 s" in v.mensagem


def test_time_limit_also_works_outside_the_main_thread():
    import threading

    def eterna(x):
        while True:
            pass

    resultado = {}
    t = threading.Thread(target=lambda: resultado.setdefault("v", corrigir(_dobro_ex(tempo_limite=0.3), eterna)))
    t.start()
    t.join(5)
    assert resultado["v"].erro == "tempo"


def test_student_cannot_spoil_the_cases():
    def estraga(x):
        x[...] = 0  # muda a entrada no lugar
        return np.zeros_like(x)

    ex = _dobro_ex()
    corrigir(ex, estraga)
    assert corrigir(ex, lambda x: 2 * x).ok


def test_a_bug_in_the_grader_becomes_a_verdict_not_a_traceback():
    ex = Exercicio(nome="quebrado", casos=lambda: [Caso("sempre", {"x": 1})], certo=lambda x: 1 / 0, acerto="")
    v = corrigir(ex, lambda x: x)
    assert not v.ok and v.erro == "corretor" and "problema do corretor" in v.mensagem


def test_conferir_prints_and_returns(capsys):
    assert conferir(_dobro_ex(), lambda x: 2 * x) is True
    assert "✅ Correto! 2x." in capsys.readouterr().out


def test_formats_accept_equivalent_forms():
    assert Numero().normalizar(np.float32(2.5)) == 2.5 and Numero().normalizar(np.array(3)) == 3.0
    with pytest.raises(Exception, match="booleano"):
        Numero().normalizar(True)
    par = Sequencia((Array(), Numero()), "(vetor, número)")
    assert par.igual(par.normalizar([[1, 2], 3]), par.normalizar((np.array([1.0, 2.0]), 3.0)))
    with pytest.raises(Exception, match="tamanho 3"):
        par.normalizar((1, 2, 3))
    assert Mascara().normalizar([[1, 0], [1, 1]]).dtype == bool
    with pytest.raises(Exception, match="booleana"):
        Mascara().normalizar([[0.5, 1.0]])
    # a saída da atenção pode vir sozinha ou no par (saída, pesos); um vetor de 2 números é a saída
    s = SaidaOuPar()
    assert s.normalizar([6.15, 3.85]).shape == (2,)
    assert s.normalizar((np.array([6.15, 3.85]), np.array([0.4, 0.2, 0.4]))).shape == (2,)


def test_mistake_checked_even_when_values_are_right():
    ex = Exercicio(
        nome="máscara", casos=lambda: [Caso("com n = 2", {"n": 2})], certo=lambda n: np.tri(n, dtype=bool),
        formato=Mascara(), acerto="ok",
        erros=[Erro("números no lugar de booleanos", "Use bool.", sempre=True,
                    quando=lambda y, certo, caso: np.asarray(y).dtype != bool)],
    )
    assert corrigir(ex, lambda n: np.tri(n, dtype=bool)).ok
    v = corrigir(ex, lambda n: np.tri(n))
    assert v.erro == "números no lugar de booleanos"


def test_prediction_reveals_and_names_the_misconception():
    from helpers.corretor import NumeroAproximado, Previsao, Texto, corrigir_previsao

    prev = Previsao("peso de k₁", certo=0.4555, revelar="A softmax de (0.707, 0, 0.354).", formato=NumeroAproximado(2),
                    erros=[Erro("média simples", "Você pensou na média simples, 1/3.", resposta=lambda: 1 / 3)])
    for certo in (0.46, "0,46", 0.455, np.float32(0.456)):
        assert corrigir_previsao(prev, certo).ok, certo
    v = corrigir_previsao(prev, 0.33)
    assert not v.ok and v.erro == "média simples" and "A resposta: 0,456" in v.mensagem
    assert corrigir_previsao(prev, None).erro == "pendente" and "A resposta" not in corrigir_previsao(prev, None).mensagem
    assert corrigir_previsao(prev, "muito").erro == "tipo"
    assert corrigir_previsao(Previsao("vencedora", "k₂", "k₂ é a mais alinhada.", Texto()), " K2 ").ok


def test_approximate_number_uses_the_precision_asked():
    from helpers.corretor import NumeroAproximado
    from helpers.respostas import bate_na_precisao, casas_escritas

    f = NumeroAproximado(casas=2)
    certo = f.normalizar(0.66524)
    for boa in (0.67, "0,67", "0.665", 0.665, np.float32(0.67), 2 / 3 - 0.0014, 0.6649):
        assert f.igual(f.normalizar(boa), certo), boa
    for ruim in (0.7, "0,6", 0.655):
        assert not f.igual(f.normalizar(ruim), certo), ruim
    # a regra do quiz: quem escreve mais casas responde por elas
    assert casas_escritas("0,665") == 3 and casas_escritas(np.float32(0.67)) == 2 and casas_escritas(16) == 0
    assert bate_na_precisao(0.67, 0.66524, 2, 2) and not bate_na_precisao(3.25, 3.0, 0, 2)
