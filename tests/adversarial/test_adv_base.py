"""A base dos corretores contra quem tenta enganá-la, pelos corretores de verdade das lições: nada trava nem derruba
o corretor, uma regra do enunciado não se contorna por outro caminho até a mesma função, trocar as comparações do
numpy não aprova uma resposta errada, e o leitor de números lê o que o estudante digita (ou pergunta)."""

from __future__ import annotations

import math
import operator
import signal
import time

import numpy as np
import pytest

from helpers import attention
from helpers.corretor import Previsao, corrigir, corrigir_previsao
from helpers.licoes import cabecas as cabecas_licao
from helpers.licoes import comece, custo, gargalo, projecoes, softmax
from helpers.respostas import NumeroAproximado
from tests.adversarial._base import Submissao, confere, ids

PE = comece.PRODUTO_ESCALAR  # "sem @ nem np.dot"
SM = softmax.SOFTMAX  # "sem a softmax pronta"
JAC = softmax.JACOBIANO  # "sem laços"


def pe_certo(q, k):
    total = 0.0
    for a, b in zip(q, k):
        total += a * b
    return total


def sm_certa(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def jac_certo(z):
    s = sm_certa(np.asarray(z, dtype=float))
    return np.diag(s) - np.outer(s, s)


# --- 1. nada trava nem derruba o corretor ------------------------------------------------------------------


def pe_desliga_o_alarme(q, k):
    signal.setitimer(signal.ITIMER_REAL, 0)
    while True:
        pass


def pe_alarm_zero(q, k):
    signal.alarm(0)
    while True:
        pass


def pe_ignora_o_sinal_e_engole_tudo(q, k):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        try:
            time.sleep(0.01)
        except BaseException:  # noqa: BLE001 - é o que quem quer travar o corretor escreveria
            continue


def pe_tratador_proprio(q, k):
    signal.signal(signal.SIGALRM, lambda *_: None)
    while True:
        try:
            pass
        except BaseException:  # noqa: BLE001
            continue


class ArrayQueNaoTermina:
    def __array__(self, dtype=None, copy=None):
        while True:
            pass


class ArrayQueQuebra:
    def __array__(self, dtype=None, copy=None):
        return 1 / 0


class NumeroQueQuebra:
    def __float__(self):
        raise ValueError("meu número não sabe virar float")


def pe_devolve_array_que_nao_termina(q, k):
    return ArrayQueNaoTermina()


def pe_devolve_array_que_quebra(q, k):
    return ArrayQueQuebra()


def pe_devolve_numero_que_quebra(q, k):
    return NumeroQueQuebra()


def pe_recursivo_sem_fim(q, k):
    return pe_recursivo_sem_fim(q, k)


TRAVAS = [
    Submissao(PE, pe_desliga_o_alarme, "tempo", "desliga o alarme com setitimer(0) e entra num laço sem fim"),
    Submissao(PE, pe_alarm_zero, "tempo", "desliga o alarme com signal.alarm(0) e entra num laço sem fim"),
    Submissao(PE, pe_ignora_o_sinal_e_engole_tudo, "tempo", "ignora o SIGALRM e engole tudo com except BaseException"),
    Submissao(PE, pe_tratador_proprio, "tempo", "troca o tratador do SIGALRM por um que não faz nada"),
    Submissao(PE, pe_devolve_array_que_nao_termina, "tempo", "devolve um objeto cujo __array__ não termina"),
    Submissao(PE, pe_devolve_array_que_quebra, "tipo", "devolve um objeto cujo __array__ levanta ZeroDivisionError"),
    Submissao(PE, pe_devolve_numero_que_quebra, "tipo", "devolve um objeto cujo __float__ levanta ValueError"),
    Submissao(PE, pe_recursivo_sem_fim, "recursão", "chama a si mesma sem parar"),
]


@pytest.mark.parametrize("s", TRAVAS, ids=ids(TRAVAS))
def test_nothing_hangs_or_crashes_the_grader(s):
    """O que isto garante: na thread principal, a função do estudante (e a leitura da resposta dela) é interrompida
    no máximo ``FOLGA_DO_VIGIA`` + uns décimos de segundo depois do limite, mesmo que ela desligue o alarme
    (``setitimer``, ``alarm``), ignore o SIGALRM ou troque o tratador, e mesmo que engula toda exceção; o veredito
    diz que o erro é dela; e, depois, o alarme, o tratador e o rastreamento voltaram ao que eram e o próximo
    corretor funciona."""
    tratador, rastreio = signal.getsignal(signal.SIGALRM), __import__("sys").gettrace()
    inicio = time.monotonic()
    v = confere(s)
    assert time.monotonic() - inicio < PE.tempo_limite + 3
    assert "problema do corretor" not in v.mensagem
    assert signal.getsignal(signal.SIGALRM) is tratador and __import__("sys").gettrace() is rastreio
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert corrigir(PE, pe_certo).ok  # o kernel continua usável


def test_the_student_error_in_reading_is_named_as_theirs():
    v = corrigir(PE, pe_devolve_array_que_quebra)
    assert "ZeroDivisionError" in v.mensagem and "objeto ArrayQueQuebra" in v.mensagem, v.mensagem
    v = corrigir(PE, pe_devolve_numero_que_quebra)
    assert "meu número não sabe virar float" in v.mensagem, v.mensagem
    assert "RecursionError" in corrigir(PE, pe_recursivo_sem_fim).mensagem


# --- 2. uma regra não se contorna --------------------------------------------------------------------------

produto_pronto = np.dot  # "numa célula anterior"
s_pronta = attention.softmax
from helpers.attention import softmax as softmax_importada  # noqa: E402 - também numa célula anterior


def pe_dunder(q, k):
    return float(q.__matmul__(k))


def pe_operator(q, k):
    return float(operator.matmul(q, k))


def pe_getattr(q, k):
    return float(getattr(np, "d" + "ot")(q, k))


def pe_apelido(q, k):
    return float(produto_pronto(q, k))


def pe_padrao(q, k, _d=np.dot):
    return float(_d(q, k))


def _meu_produto(a, b):
    return a @ b


def pe_ajudante(q, k):
    return float(_meu_produto(q, k))


def pe_closure(q, k):
    mult = np.matmul

    def por_dentro():
        return mult(q, k)

    return float(por_dentro())


def sm_apelido(x, temperatura=1.0):
    return s_pronta(x / temperatura)


def sm_importada(x, temperatura=1.0):
    return softmax_importada(x / temperatura)


def sm_padrao(x, temperatura=1.0, _s=attention.softmax):
    return _s(x / temperatura)


def sm_getattr(x, temperatura=1.0):
    return getattr(attention, "soft" + "max")(x / temperatura)


def _minha_normalizacao(z):
    return attention.softmax(z)


def sm_ajudante(x, temperatura=1.0):
    return _minha_normalizacao(x / temperatura)


def _s_recursiva(s, i=0):
    if i == len(s):
        return np.zeros((0, len(s)))
    linha = -s[i] * s
    linha[i] += s[i]
    return np.vstack([linha[None, :], _s_recursiva(s, i + 1)])


def jac_recursao(z):
    return _s_recursiva(sm_certa(np.asarray(z, dtype=float)))


def _linhas_com_laco(s):
    return np.array([[s[i] * ((i == j) - s[j]) for j in range(len(s))] for i in range(len(s))])


def jac_ajudante_com_laco(z):
    return _linhas_com_laco(sm_certa(np.asarray(z, dtype=float)))


def pe_vetorizado(q, k):
    return float(np.sum(q * k))


REGRAS = [
    Submissao(PE, pe_dunder, "usou @ ou np.dot", "q.__matmul__(k)"),
    Submissao(PE, pe_operator, "usou @ ou np.dot", "operator.matmul(q, k)"),
    Submissao(PE, pe_getattr, "usou @ ou np.dot", "getattr(np, 'd' + 'ot')(q, k)"),
    Submissao(PE, pe_apelido, "usou @ ou np.dot", "produto = np.dot numa célula anterior"),
    Submissao(PE, pe_padrao, "usou @ ou np.dot", "np.dot num valor padrão"),
    Submissao(PE, pe_ajudante, "usou @ ou np.dot", "uma função dela com @"),
    Submissao(PE, pe_closure, "usou @ ou np.dot", "np.matmul num closure"),
    Submissao(PE, pe_certo, "ok", "produto escalar com um laço"),
    Submissao(PE, pe_vetorizado, "ok", "produto escalar com np.sum(q * k)"),
    Submissao(SM, sm_apelido, "usou a softmax pronta", "s = attention.softmax numa célula anterior"),
    Submissao(SM, sm_importada, "usou a softmax pronta", "from helpers.attention import softmax as outro_nome"),
    Submissao(SM, sm_padrao, "usou a softmax pronta", "attention.softmax num valor padrão"),
    Submissao(SM, sm_getattr, "usou a softmax pronta", "getattr(attention, 'soft' + 'max')"),
    Submissao(SM, sm_ajudante, "usou a softmax pronta", "uma função dela que chama attention.softmax"),
    Submissao(SM, sm_certa, "ok", "a softmax escrita à mão"),
    Submissao(JAC, jac_recursao, "com laços", "jacobiano: recursão no lugar do laço"),
    Submissao(JAC, jac_ajudante_com_laco, "com laços", "jacobiano: o laço numa função dela"),
    Submissao(JAC, jac_certo, "ok", "jacobiano: diag(s) − s sᵀ"),
]


@pytest.mark.parametrize("s", REGRAS, ids=ids(REGRAS))
def test_a_rule_cannot_be_bypassed(s):
    confere(s)


# --- 3. trocar as comparações do numpy não aprova nada ----------------------------------------------------


def sm_zeros(x, temperatura=1.0):
    return np.zeros_like(x)


def sm_troca_as_comparacoes(x, temperatura=1.0):
    np.allclose = lambda *a, **k: True
    np.isclose = lambda *a, **k: np.ones(np.shape(a[0]), dtype=bool)
    np.array_equal = lambda *a, **k: True
    return np.zeros_like(x)


def pe_troca_isclose(q, k):
    math.isclose = lambda *a, **k: True
    return 123.0


@pytest.mark.parametrize(("ex", "fn"), [(SM, sm_zeros), (SM, sm_troca_as_comparacoes), (PE, pe_troca_isclose)])
def test_patched_comparisons_do_not_pass_a_wrong_answer(monkeypatch, ex, fn):
    for modulo, nome in ((np, "allclose"), (np, "isclose"), (np, "array_equal"), (math, "isclose")):
        monkeypatch.setattr(modulo, nome, getattr(modulo, nome))  # devolvidas no fim do teste
    monkeypatch.setattr(np, "allclose", lambda *a, **k: True)  # "numa célula anterior"
    monkeypatch.setattr(np, "array_equal", lambda *a, **k: True)
    v = corrigir(ex, fn)
    assert not v.ok and v.erro != "corretor", v.mensagem
    assert corrigir(SM, sm_certa).ok and corrigir(PE, pe_certo).ok


# --- 4. o leitor de números, pelas previsões de verdade ---------------------------------------------------

DOBRO = softmax.PREVISAO_DOBRO  # 0,576
ESTADO = custo.PREVISAO_ESTADO_LINEAR  # 4160
SIMETRIA = projecoes.PREVISAO_SIMETRIA  # 0,25
CACHE = cabecas_licao.PREVISAO_CACHE_CABECAS  # 1 (a mesma fração)
CAPACIDADE = gargalo.PREVISAO_CAPACIDADE  # 16 tokens
INFINITA = Previsao("o escore mascarado", certo=math.inf, revelar="A máscara põe −∞ antes da softmax? Aqui, +∞.",
                    formato=NumeroAproximado(casas=2))
MEMORIA = Previsao("a memória do cache", certo=128, revelar="128 MiB.", formato=NumeroAproximado(casas=0, unidade="MiB"))
TOKENS = Previsao(CAPACIDADE.nome, CAPACIDADE.certo, CAPACIDADE.revelar,
                  formato=NumeroAproximado(casas=0, unidade="tokens"))

#: (previsão, o que o estudante digita ou escreve, veredito esperado, um trecho da mensagem)
LEITURAS = [
    (DOBRO, "0,576", "ok", "Você previu certo"),
    (DOBRO, "0.576", "ok", "Você previu certo"),
    (DOBRO, "57,6%", "ok", "Você previu certo"),
    (DOBRO, "58 %", "ok", "Você previu certo"),
    (DOBRO, (0, 576), "tipo", "vira a tupla (0, 576)"),
    (DOBRO, "0,91", "dobrou o peso", "Não era 0,91"),
    (DOBRO, "∞", "valor", "Não era ∞"),
    (ESTADO, "4 160", "ok", "Você previu certo"),
    (ESTADO, "4160", "ok", "Você previu certo"),
    (ESTADO, "4.160", "ok", "Você previu certo"),  # uma contagem é inteira: a lição lê o ponto como milhar
    (DOBRO, "4.160", "tipo", "4160 (ponto de milhar) ou 4,16 (ponto decimal)"),
    (ESTADO, "12.800.000", "pensou no KV cache", "Não era"),
    (SIMETRIA, "25%", "ok", "Você previu certo"),
    (SIMETRIA, "0,25", "ok", "Você previu certo"),
    (SIMETRIA, "−0,25", "valor", "Não era"),
    (CACHE, "100%", "ok", "Você previu certo"),
    (CACHE, "200%", "mais cabeças, mais cache", "Não era"),
    (INFINITA, "∞", "ok", "Você previu certo"),
    (INFINITA, "infinito", "ok", "Você previu certo"),
    (INFINITA, "inf", "ok", "Você previu certo"),
    (INFINITA, "−∞", "valor", "Não era −∞"),
    (MEMORIA, "128 MiB", "ok", "Você previu certo"),
    (MEMORIA, "128", "ok", "Você previu certo"),
    (MEMORIA, "131 072 KiB", "tipo", "veio em KiB"),
    (MEMORIA, "128 MB", "tipo", "veio em MB"),
    (TOKENS, "16 tokens", "ok", "Você previu certo"),
    (TOKENS, "16", "ok", "Você previu certo"),
    (TOKENS, "16 MiB", "tipo", "pede o número em tokens"),
    (CAPACIDADE, "16", "ok", "Você previu certo"),
    (CAPACIDADE, "16 bytes", "tipo", "pede o número em tokens"),
]


@pytest.mark.parametrize(("prev", "digitado", "esperado", "trecho"), LEITURAS,
                         ids=[f"{p.nome}: {d!r}" for p, d, _, _ in LEITURAS])
def test_the_number_reader_reads_what_students_type(prev, digitado, esperado, trecho):
    v = corrigir_previsao(prev, digitado)
    assert v.ok == (esperado == "ok"), v.mensagem
    if esperado != "ok":
        assert v.erro == esperado, v.mensagem
    assert trecho in v.mensagem, v.mensagem
    if esperado == "tipo":  # uma leitura que não deu: a resposta continua escondida, dá para tentar de novo
        assert "A resposta:" not in v.mensagem, v.mensagem


#: as submissões desta base que entram na conta da suíte inteira (test_resumo); as travas ficam fora (cada uma
#: espera o limite de tempo)
SUBMISSOES = REGRAS
