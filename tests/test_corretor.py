"""A base dos corretores: o laço, os formatos, os erros clássicos e as respostas que não podem derrubar nada."""

import math
import re
import time

import numpy as np
import pytest

from helpers.corretor import Caso, Erro, Exercicio, conferir, corrigir
from helpers.respostas import Array, Mascara, Numero, NumeroAproximado, SaidaOuPar, Sequencia


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

    parar = threading.Event()

    def eterna(x):
        # fora da thread principal o corretor devolve o veredito, mas o código do estudante continua rodando ao
        # fundo (um limite dito na nota do corretor): o teste o desliga no fim, senão ele disputa o GIL com o
        # resto da suíte e deixa tudo o que vem depois duas vezes mais lento
        while not parar.is_set():
            pass

    resultado = {}
    t = threading.Thread(target=lambda: resultado.setdefault("v", corrigir(_dobro_ex(tempo_limite=0.3), eterna)))
    try:
        t.start()
        t.join(5)
        assert resultado["v"].erro == "tempo"
    finally:
        parar.set()


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
    assert s.forma(s.normalizar([6.15, 3.85])) == (2,)
    assert s.forma(s.normalizar((np.array([6.15, 3.85]), np.array([0.4, 0.2, 0.4])))) == (2,)
    # uma lista de duas linhas (duas queries montadas num laço) é lida pela forma da resposta certa, não como par
    certo = np.array([[6.15, 3.85], [3.85, 6.15]])
    linhas = [np.array([6.15, 3.85]), np.array([3.85, 6.15])]
    assert s.igual(s.normalizar(linhas), s.normalizar(certo))
    assert s.igual(s.normalizar((certo, np.eye(2))), s.normalizar(certo))  # e o par (saída, pesos) continua valendo
    assert not s.igual(s.normalizar([linhas[0], linhas[0]]), s.normalizar(certo))


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
    from helpers.corretor import Previsao, corrigir_previsao
    from helpers.respostas import Texto

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


# --- o limite de tempo: nenhum código de estudante o segura ---------------------------------------

def _ex_rapido() -> "Exercicio":
    return Exercicio(nome="limite", casos=lambda: [Caso("com x = 1", {"x": 1.0})], certo=lambda x: x,
                     acerto="ok", formato=Numero(), tempo_limite=0.3)


def _engole_tudo(x):
    while True:
        try:
            time.sleep(0.01)
        except:  # noqa: E722 - é o que um estudante escreveria
            continue


def _engole_excecoes(x):
    while True:
        try:
            time.sleep(0.01)
        except Exception:
            continue


def _engole_aninhado(x):
    while True:
        try:
            time.sleep(0.01)
        except BaseException:
            try:
                time.sleep(0.01)
            except BaseException:
                pass


@pytest.mark.parametrize("fn", [_engole_tudo, _engole_excecoes, _engole_aninhado])
def test_no_student_except_can_hold_the_time_limit(fn):
    inicio = time.monotonic()
    v = corrigir(_ex_rapido(), fn)
    assert v.erro == "tempo" and not v.ok, v.mensagem
    assert time.monotonic() - inicio < 5
    # e o corretor volta ao normal depois: nada de rastreamento ligado nem alarme pendente
    import sys
    assert sys.gettrace() is None
    assert corrigir(_ex_rapido(), lambda x: x).ok


# --- o método: regras conferidas na própria função, e entradas que não se mudam --------------------

def _soma_com_laco(q, k):
    total, i = 0.0, 0
    while i < len(q):
        total += q[i] * k[i]
        i += 1
    return total


def test_method_detectors_read_the_function_not_its_answer():
    import numpy as np

    from helpers.corretor import tem_laco, usa_nomes, usa_operador_matricial

    assert usa_operador_matricial(lambda q, k: q @ k) and usa_operador_matricial(lambda q, k: np.dot(q, k))
    assert usa_operador_matricial(lambda q, k: np.einsum("i,i->", q, k))
    assert not usa_operador_matricial(lambda q, k: np.sum(q * k)) and not usa_operador_matricial(_soma_com_laco)
    assert tem_laco(_soma_com_laco) and tem_laco(lambda q, k: sum(a * b for a, b in zip(q, k)))
    assert tem_laco(lambda z: np.vectorize(abs)(z)) and not tem_laco(lambda q, k: np.sum(q * k))
    assert usa_nomes(lambda z: __import__("helpers").attention.softmax(z), {"softmax"})

    def aninhada(z):
        def por_dentro(w):
            return w @ w
        return por_dentro(z)
    assert usa_operador_matricial(aninhada)


def _ex_com_regra():
    from helpers.corretor import Regra, usa_operador_matricial
    return Exercicio(nome="produto", casos=lambda: [Caso("com q = (1, 2)", {"q": np.array([1.0, 2.0]),
                                                                              "k": np.array([3.0, 4.0])})],
                     certo=lambda q, k: float(q @ k), acerto="ok", formato=Numero(),
                     regras=[Regra("usou @", "faça sem @.", usa_operador_matricial)])


def test_a_rule_is_checked_only_when_the_answers_are_right():
    assert corrigir(_ex_com_regra(), lambda q, k: q @ k).erro == "usou @"
    assert corrigir(_ex_com_regra(), lambda q, k: float(np.sum(q * k))).ok
    assert corrigir(_ex_com_regra(), lambda q, k: q @ q).erro == "valor"  # errada: o diagnóstico é o da resposta


def test_an_input_changed_in_place_is_said_even_if_the_answer_is_right():
    def muda(q, k):
        q[:] = q * k
        return float(np.sum(q))
    v = corrigir(_ex_com_regra(), muda)
    assert not v.ok and v.erro == "mudou a entrada" and "`q`" in v.mensagem, v.mensagem


def test_a_classic_mistake_that_crashes_can_be_named_by_its_exception():
    ex = Exercicio(nome="tanh", casos=lambda: [Caso("com x = (1, 2)", {"x": np.array([1.0, 2.0])})],
                   certo=lambda x: float(np.tanh(x).sum()), acerto="ok", formato=Numero(),
                   erros=[Erro("math.tanh num vetor", "math.tanh só aceita um número; use np.tanh.",
                               levanta=lambda exc, caso: isinstance(exc, TypeError) and "converted" in str(exc))])
    import math
    v = corrigir(ex, lambda x: math.tanh(x).sum())
    assert v.erro == "math.tanh num vetor" and "np.tanh" in v.mensagem and "TypeError" in v.mensagem, v.mensagem
    assert corrigir(ex, lambda x: 1 / 0).erro == "excecao"  # outra exceção continua genérica


# --- o leitor de números: uma regra só, linha a linha --------------------------------------------------------

LEITURAS = [
    # (o que o estudante digita, (valor, casas, unidade) esperado)
    ("0,576", (0.576, 3, "")),
    ("0.576", (0.576, 3, "")),
    ("4 160", (4160.0, 0, "")),
    ("131 072", (131072.0, 0, "")),
    ("12.800.000", (12800000.0, 0, "")),
    ("1.024,5", (1024.5, 1, "")),
    ("58%", (0.58, 2, "")),
    ("58 %", (0.58, 2, "")),
    ("100%", (1.0, 2, "")),
    ("57,6%", (0.576, 3, "")),
    ("∞", (math.inf, 0, "")),
    ("infinito", (math.inf, 0, "")),
    ("inf", (math.inf, 0, "")),
    ("−∞", (-math.inf, 0, "")),
    ("16 tokens", (16.0, 0, "tokens")),
    ("128 MiB", (128.0, 0, "MiB")),
    ("−0,5", (-0.5, 1, "")),
    ("- 3", (-3.0, 0, "")),
]


@pytest.mark.parametrize(("texto", "esperado"), LEITURAS, ids=[t for t, _ in LEITURAS])
def test_the_number_reader(texto, esperado):
    from helpers.respostas import ler_numero
    lido = ler_numero(texto)
    assert (lido.valor, lido.casas, lido.unidade) == esperado


@pytest.mark.parametrize(("texto", "pergunta"), [("4.160", "4160 (ponto de milhar) ou 4,16"),
                                                 ("−1.500", "-1500 (ponto de milhar) ou -1,5")])
def test_an_ambiguous_point_gets_a_question_not_a_guess(texto, pergunta):
    from helpers.respostas import RespostaInvalida, ler_numero
    with pytest.raises(RespostaInvalida, match=re.escape(pergunta)):
        ler_numero(texto)


def test_not_a_number():
    from helpers.respostas import ler_numero
    assert ler_numero("k2") is None and ler_numero("muito") is None and ler_numero("1.2.3") is None


def test_a_unit_is_checked_where_asked_and_named_otherwise():
    from helpers.respostas import RespostaInvalida
    f = NumeroAproximado(casas=0, unidade="MiB")
    assert f.normalizar("128 MiB") == 128 and f.normalizar("128") == 128
    with pytest.raises(RespostaInvalida, match="veio em KiB"):
        f.normalizar("131 072 KiB")
    with pytest.raises(RespostaInvalida, match="veio em Mib"):  # b minúsculo: bits, não bytes
        f.normalizar("128 Mib")
    with pytest.raises(RespostaInvalida, match="sem unidade"):
        NumeroAproximado(casas=0).normalizar("16 tokens")
    assert NumeroAproximado(casas=0, unidade="tokens").normalizar("16 token") == 16
    # infinito é um número que se compara: igual a ele mesmo, diferente de qualquer finito
    g = NumeroAproximado(casas=2)
    assert g.igual(g.normalizar("∞"), math.inf) and not g.igual(g.normalizar("∞"), 1e300)
    assert g.mostrar(-math.inf) == "−∞" and NumeroAproximado(3).casas == 3


# --- as comparações do corretor são dele --------------------------------------------------------------------

def test_own_comparisons_match_numpy_and_ignore_patches(monkeypatch):
    from helpers.respostas import iguais, perto
    a = np.array([1.0, np.nan, np.inf, -2.0])
    for b, esperado in ((a.copy(), True), (a + 1e-7, True), (a + 1e-3, False), (np.array([1.0, 0.0, np.inf, -2.0]),
                                                                              False)):
        assert perto(a, b) is esperado is bool(np.allclose(a, b, rtol=1e-6, atol=1e-6, equal_nan=True))
    assert not perto(a, a[:3]) and not perto(np.array([np.inf]), np.array([-np.inf]))
    monkeypatch.setattr(np, "allclose", lambda *x, **k: True)
    monkeypatch.setattr(np, "array_equal", lambda *x, **k: True)
    assert not perto([1.0, 2.0], [1.0, 3.0]) and not iguais([1, 2], [1, 3]) and iguais([1, 2], np.array([1, 2]))
    assert not Numero().igual(1.0, 1.1) and Numero().igual(math.inf, math.inf) and not Numero().igual(math.nan, 0.0)


# --- a resposta é lida dentro do limite, e vira dados simples -----------------------------------------------

def test_the_answer_becomes_plain_data():
    from helpers.respostas import LeituraFalhou, em_dados

    class MinhaLista(list):
        def __iter__(self):
            raise AssertionError("o corretor não deveria chamar o __iter__ do estudante")

    class ComArray:
        def __array__(self, dtype=None, copy=None):
            return np.arange(3.0)

    class Quebra:
        def __array__(self, dtype=None, copy=None):
            raise KeyError("ops")

    y = em_dados((MinhaLista([1.0, np.float32(2.0)]), ComArray(), {"a": [1, 2]}))
    assert type(y) is tuple and type(y[0]) is list and y[0] == [1.0, 2.0] and type(y[0][1]) is np.float32
    assert type(y[1]) is np.ndarray and y[1].tolist() == [0.0, 1.0, 2.0] and y[2] == {"a": [1, 2]}
    assert repr(em_dados(object())) == "<um objeto object>"
    with pytest.raises(LeituraFalhou, match="KeyError"):
        em_dados(Quebra())


# --- as regras seguem as funções do estudante ---------------------------------------------------------------

_apelido_de_dot = np.dot


def _usa_apelido(q, k):
    return _apelido_de_dot(q, k)


def _fatorial(n):
    return 1 if n <= 1 else n * _fatorial(n - 1)


def _par(n):
    return True if n == 0 else _impar(n - 1)


def _impar(n):
    return False if n == 0 else _par(n - 1)


def test_rules_follow_aliases_defaults_helpers_and_recursion():
    from helpers import attention
    from helpers.corretor import tem_laco, usa_nomes, usa_operador_matricial

    assert usa_operador_matricial(_usa_apelido) and usa_operador_matricial(lambda q, k, f=np.matmul: f(q, k))
    assert usa_operador_matricial(lambda q, k: q.__matmul__(k))
    assert usa_nomes(lambda x, s=attention.softmax: s(x), {"softmax"})
    assert not usa_nomes(lambda x, s=np.exp: s(x), {"softmax"})
    assert tem_laco(_fatorial) and tem_laco(_par) and not tem_laco(lambda z: np.diag(z) - np.outer(z, z))
    assert tem_laco(lambda n: _fatorial(n))  # a recursão mora numa função que ela chama


def test_the_framework_reads_code_objects_and_closure_cells():
    from helpers.corretor import celula_preenchida, codigos_de

    def externa(xs):
        dobro = lambda x: 2 * x  # uma função aninhada: também é lida
        return [dobro(x) for x in xs]

    nomes = {c.co_name for c in codigos_de(externa)}
    assert {"externa", "<lambda>"} <= nomes and len(codigos_de(externa)) >= 2
    assert codigos_de(len) == [] and codigos_de(3) == []  # uma função em C, um objeto qualquer

    def fabrica():
        def dentro():
            return valor
        antes = celula_preenchida(dentro.__closure__[0])
        valor = 1
        return antes, celula_preenchida(dentro.__closure__[0])

    assert fabrica() == (False, True)


@pytest.mark.parametrize(("escrita", "bytes_", "familia"), [
    ("bytes", 1, "binaria"), ("B", 1, "binaria"), ("KiB", 1024, "binaria"), ("kib", 1024, "binaria"),
    ("MiB", 2**20, "binaria"), ("GiB", 2**30, "binaria"),
    ("KB", 1000, "decimal"), ("kB", 1000, "decimal"), ("MB", 10**6, "decimal"), ("GB", 10**9, "decimal"),
    ("kb", 125, "bits"), ("Kb", 125, "bits"), ("Mb", 125_000, "bits"), ("gb", 125_000_000, "bits"),
])
def test_the_number_reader_knows_what_each_memory_unit_is_worth(escrita, bytes_, familia):
    from helpers.respostas import ler_numero, unidade_de_memoria

    unidade = unidade_de_memoria(ler_numero(f"128 {escrita}").unidade)
    assert (unidade.bytes, unidade.familia) == (bytes_, familia)


@pytest.mark.parametrize("escrita", ["", "tokens", "TiB", "KiBs", "b2", "metros"])
def test_other_units_are_not_memory(escrita):
    from helpers.respostas import unidade_de_memoria

    assert unidade_de_memoria(escrita) is None
