"""Os corretores aceitam a referência e rejeitam cada erro típico com a explicação certa."""

import numpy as np
import pytest

from helpers.attention import scaled_dot_product_attention, softmax
from helpers.checks import check_attention, check_produto_escalar, check_softmax

# --- softmax: a certa e as erradas --------------------------------------------------------------


def softmax_ok(x):
    z = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_sem_max(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_eixo_errado(x):
    z = x - np.max(x, axis=0, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=0, keepdims=True)


def softmax_soma_tudo(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


def softmax_sem_dividir(x):
    return np.exp(x - np.max(x, axis=-1, keepdims=True))


def softmax_sem_exp(x):
    return x / x.sum(axis=-1, keepdims=True)


def softmax_esqueleto(x):
    raise NotImplementedError


def softmax_none(x):
    pass


def softmax_forma_errada(x):
    return softmax_ok(x).ravel()[:1]


def softmax_explode(x):
    return np.log(x) / 0  # outro erro qualquer: vira mensagem, não traceback


CASOS_SOFTMAX = [
    (softmax_sem_max, "Subtraia o máximo"),
    (softmax_eixo_errado, "eixo errado"),
    (softmax_soma_tudo, "matriz inteira"),
    (softmax_sem_dividir, "esqueceu de dividir pela soma"),
    (softmax_sem_exp, "sem exponenciar"),
    (softmax_esqueleto, "ainda não foi implementada"),
    (softmax_none, "ainda não foi implementada"),
    (softmax_forma_errada, "mesma forma"),
]


def test_check_softmax_accepts_reference_and_helper(capsys):
    assert check_softmax(softmax_ok) is True
    assert "Correto" in capsys.readouterr().out
    assert check_softmax(softmax) is True


@pytest.mark.parametrize(("fn", "explicacao"), CASOS_SOFTMAX, ids=[f.__name__ for f, _ in CASOS_SOFTMAX])
def test_check_softmax_names_the_mistake(fn, explicacao, capsys):
    assert check_softmax(fn) is False
    out = capsys.readouterr().out
    assert explicacao in out, out
    assert "Correto" not in out


def test_check_softmax_reports_student_exception(capsys):
    def softmax_com_bug(x):
        return np.exp(x) / undefined_name  # noqa: F821

    assert check_softmax(softmax_com_bug) is False
    out = capsys.readouterr().out
    assert "NameError" in out and "undefined_name" in out


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


# --- produto escalar (notebook 00) --------------------------------------------------------------


def pe_ok(q, k):
    return sum(a * b for a, b in zip(q, k))


CASOS_PE = [
    (lambda q, k: q * k, "esqueceu de **somar**"),
    (lambda q, k: q + k, "somou os vetores"),
    (lambda q, k: q.sum() * k.sum(), "multiplicou as somas"),
    (lambda q, k: q[0] * k[0], "só a primeira coordenada"),
    (lambda q, k: np.outer(q, k), "um único número"),
]


def test_check_produto_escalar(capsys):
    assert check_produto_escalar(pe_ok) is True
    assert check_produto_escalar(np.dot) is True
    assert "Correto" in capsys.readouterr().out


@pytest.mark.parametrize(("fn", "explicacao"), CASOS_PE)
def test_check_produto_escalar_names_mistake(fn, explicacao, capsys):
    assert check_produto_escalar(fn) is False
    assert explicacao in capsys.readouterr().out


def test_check_produto_escalar_stub(capsys):
    def produto_escalar(q, k):
        raise NotImplementedError

    assert check_produto_escalar(produto_escalar) is False
    assert "ainda não foi implementada" in capsys.readouterr().out
