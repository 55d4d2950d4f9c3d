"""Notebook atencao_aprendida: os corretores (cada erro com nome; as respostas certas escritas de vários
jeitos passam), as previsões, os painéis (todo controle muda a figura ou o estado; frase digitada; o
treino ao vivo) e as medidas novas da análise.

O modelo, o gerador de frases e o treino têm os seus testes em ``test_aprendida_modelo.py``.
"""

from __future__ import annotations

from dataclasses import replace

import ipywidgets as W
import numpy as np
import pytest

from helpers import attention
from helpers.corretor import corrigir, corrigir_previsao
from helpers.formato import decimal
from helpers.licoes import aprendida as licao
from helpers.licoes.aprendida import corretores as cor
from helpers.licoes.aprendida import frases as fr
from helpers.licoes.aprendida import previsoes as prev
from tests._aprendida import diferencas_finitas_a_mao as _fd_a_mao
from tests._corretor import confere_erro_nomeado

# ---------------------------------------------------------------------------------------------
# Exercício 1: o gradiente da atenção
# ---------------------------------------------------------------------------------------------


def _softmax_estavel(s):
    m = np.max(s, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(s - m)
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _estudante(*, softmax=_softmax_estavel, escala=lambda d: 1 / np.sqrt(d), escala_q=True, escala_k=True,
               soma=lambda dP, P: (dP * P).sum(axis=-1, keepdims=True), menos=True, usar_p_no_dS=True,
               dv=lambda P, dO: P.T @ dO, transpor_ds=False, mascara=True):
    """Um gradiente escrito como um estudante escreveria, com um erro ligado por argumento."""

    def grad(q, k, v, grad_out, mask=None):
        s = escala(q.shape[-1])
        S = s * q @ k.T
        if mask is not None and mascara:
            S = np.where(mask, S, -np.inf)
        P = softmax(S)
        dV = dv(P, grad_out)
        dP = grad_out @ v.T
        termo = soma(dP, P)
        dS = P * (dP - termo) if menos else P * (dP + termo)
        if not usar_p_no_dS:
            dS = dP - termo
        A = dS.T if transpor_ds else dS
        dQ = (s if escala_q else 1) * A @ k
        dK = (s if escala_k else 1) * A.T @ q
        return dQ, dK, dV

    return grad


def _sem_maximo(S):
    e = np.exp(S)
    return e / e.sum(axis=-1, keepdims=True)


def _menos_minimo(S):
    e = np.exp(S - S.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _maximo_do_lote(S):
    e = np.exp(S - np.max(S))
    return e / e.sum(axis=-1, keepdims=True)


def _menos_max_sem_protecao(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))  # linha toda -inf: -inf - (-inf) = NaN
    return e / e.sum(axis=-1, keepdims=True)


def _maximo_so_se_positivo(S):
    m = np.maximum(S.max(axis=-1, keepdims=True), 0.0)  # "só precisa quando o máximo é grande"
    e = np.exp(S - m)
    return e / e.sum(axis=-1, keepdims=True)


def _escores_sem_escala(q, k, v, grad_out, mask=None):
    s = 1 / np.sqrt(q.shape[-1])
    S = q @ k.T  # a escala esquecida na ida (e lembrada na volta)
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = _softmax_estavel(S)
    dP = grad_out @ v.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    return s * dS @ k, s * dS.T @ q, P.T @ grad_out


def _mascara_com(preencher):
    """A máscara aplicada do jeito errado: ``preencher(S, P, mask) -> (S, P)``."""
    def grad(q, k, v, grad_out, mask=None):
        s = 1 / np.sqrt(q.shape[-1])
        S = s * q @ k.T
        P = _softmax_estavel(np.where(mask, S, 0.0) if mask is not None and preencher == "zero" else S)
        if mask is not None and preencher == "depois":
            P = P * mask
        dP = grad_out @ v.T
        dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
        return s * dS @ k, s * dS.T @ q, P.T @ grad_out
    return grad


def _na_ordem_dos_nomes(q, k, v, grad_out, mask=None):
    dQ, dK, dV = _estudante()(q, k, v, grad_out, mask)
    return dK, dQ, dV


EXEMPLOS_GRADIENTE = {
    "ordem trocada na resposta": (_na_ordem_dos_nomes, "return dQ, dK, dV"),
    "NaN na linha toda mascarada": (_estudante(softmax=_menos_max_sem_protecao), "linha inteira da máscara"),
    "subtraiu o máximo só quando positivo (instável)": (_estudante(softmax=_maximo_so_se_positivo), "[−1000, −1001"),
    "sem subtrair o máximo (instável)": _estudante(softmax=_sem_maximo),
    "subtraiu o mínimo (instável)": _estudante(softmax=_menos_minimo),
    "um máximo só para o lote inteiro (instável)": _estudante(softmax=_maximo_do_lote),
    "ignorou a máscara": (_estudante(mascara=False), "-inf"),
    "escores mascarados = 0": (_mascara_com("zero"), "e^0 = 1"),
    "máscara depois da softmax": (_mascara_com("depois"), "**depois** da softmax"),
    "sem a escala no dQ e no dK": (_estudante(escala_q=False, escala_k=False), "dQ = s · dS @ k"),
    "dQ sem a escala": _estudante(escala_q=False),
    "dK sem a escala": _estudante(escala_k=False),
    "escores sem a escala": (_escores_sem_escala, "conta de ida"),
    "escala 1/d em vez de 1/√d": _estudante(escala=lambda d: 1 / d),
    "sem o termo da soma (rowsum)": (_estudante(soma=lambda dP, P: 0.0), "jacobiano da softmax"),
    "soma no eixo errado": _estudante(soma=lambda dP, P: (dP * P).sum(axis=0, keepdims=True)),
    "sem o P dentro da soma": _estudante(soma=lambda dP, P: dP.sum(axis=-1, keepdims=True)),
    "sem o P ⊙ de fora": _estudante(usar_p_no_dS=False),
    "sinal trocado no termo da soma": _estudante(menos=False),
    "P no lugar de Pᵀ": (_estudante(dv=lambda P, dO: P @ dO), "Pᵀ @ grad_out"),
    "dS transposto": _estudante(transpor_ds=True),
}


@pytest.mark.parametrize("nome", list(EXEMPLOS_GRADIENTE))
def test_gradiente_cada_erro_tem_nome(nome):
    confere_erro_nomeado(licao.GRADIENTE_ATENCAO, EXEMPLOS_GRADIENTE, nome)


def _com_laco(q, k, v, grad_out, mask=None):
    """Uma query de cada vez, com o jacobiano da softmax explícito (diag(p) − p pᵀ)."""
    s = 1 / np.sqrt(q.shape[1])
    dQ, dK, dV = np.zeros(q.shape), np.zeros(k.shape), np.zeros(v.shape)
    for i in range(q.shape[0]):
        escores = s * (k @ q[i])
        if mask is not None:
            escores = np.where(mask[i], escores, -np.inf)
        if np.all(np.isneginf(escores)):
            continue
        p = np.exp(escores - escores.max())
        p /= p.sum()
        dV += np.outer(p, grad_out[i])
        dp = v @ grad_out[i]
        ds = (np.diag(p) - np.outer(p, p)) @ dp
        dQ[i] = s * ds @ k
        dK += s * np.outer(ds, q[i])
    return dQ.tolist(), dK.tolist(), dV.tolist()  # listas também valem


def _com_einsum_e_menos_1e9(q, k, v, grad_out, mask=None):
    q, k, v, go = (np.asarray(a, dtype=float) for a in (q, k, v, grad_out))
    S = np.einsum("id,jd->ij", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -1e9)  # máscara "aditiva": numa linha toda mascarada, pesos iguais
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    dP = np.einsum("id,jd->ij", go, v)
    dS = P * (dP - np.einsum("ij,ij->i", dP, P)[:, None])
    return (np.einsum("ij,jd->id", dS, k) / np.sqrt(q.shape[-1]), np.einsum("ij,id->jd", dS, q) / np.sqrt(q.shape[-1]),
            np.einsum("ij,id->jd", P, go))


def _somando_menos_1e9(q, k, v, grad_out, mask=None):
    s = 1 / np.sqrt(q.shape[-1])
    S = s * q @ k.T
    if mask is not None:
        S = S + np.where(mask, 0.0, -1e9)  # somada: numa linha toda mascarada, a softmax dos escores originais
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    P /= P.sum(axis=-1, keepdims=True)
    dS = P * (grad_out @ v.T - ((grad_out @ v.T) * P).sum(axis=-1, keepdims=True))
    return s * dS @ k, s * dS.T @ q, P.T @ grad_out


def _em_float32(q, k, v, grad_out, mask=None):
    """Tudo em float32, com attention.softmax (permitida pelo enunciado) e a máscara -inf."""
    q, k, v, go = (np.asarray(a, dtype=np.float32) for a in (q, k, v, grad_out))
    s = np.float32(1 / np.sqrt(q.shape[-1]))
    S = s * q @ k.T
    if mask is not None:
        S = np.where(mask, S, np.float32(-np.inf))
    P = attention.softmax(S)
    dP = go @ v.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    return s * dS @ k, s * dS.T @ q, P.T @ go


def _com_jacobiano_do_nucleo(q, k, v, grad_out, mask=None):
    """Linha a linha, com attention.softmax_jacobian (o jacobiano do notebook da softmax): vale."""
    s = 1 / np.sqrt(q.shape[-1])
    S = s * q @ k.T if mask is None else np.where(mask, s * q @ k.T, -np.inf)
    P = attention.softmax(S)
    dP = grad_out @ v.T
    dS = np.stack([attention.softmax_jacobian(p) @ dp for p, dp in zip(P, dP)])
    return s * dS @ k, s * dS.T @ q, P.T @ grad_out


@pytest.mark.parametrize("certo", [
    _estudante(),
    _com_laco,
    _com_einsum_e_menos_1e9,
    _somando_menos_1e9,
    _em_float32,
    _com_jacobiano_do_nucleo,
], ids=["vetorizado", "laço com o jacobiano", "einsum e -1e9", "somando -1e9", "float32", "softmax_jacobian"])
def test_gradiente_respostas_certas_passam(certo):
    veredito = corrigir(licao.GRADIENTE_ATENCAO, certo)
    assert veredito.ok, veredito.mensagem


def test_gradiente_a_resposta_pronta_nao_passa():
    """O enunciado proíbe attention.attention_backward (e as diferenças finitas, que são o juiz): os números
    batem, e a regra reprova, dizendo por quê."""
    pronta = corrigir(licao.GRADIENTE_ATENCAO,
                      lambda q, k, v, grad_out, mask=None: attention.attention_backward(q, k, v, grad_out, mask))
    assert not pronta.ok and pronta.erro == "usou attention_backward" and "à mão" in pronta.mensagem

    def por_diferencas(q, k, v, grad_out, mask=None):
        q, k, v = (np.array(a, dtype=float) for a in (q, k, v))

        def perda():
            return float(np.sum(attention.scaled_dot_product_attention(q, k, v, mask)[0] * grad_out))

        return tuple(licao.diferencas_finitas(perda, x, 1e-7) for x in (q, k, v))

    v = corrigir(licao.GRADIENTE_ATENCAO, por_diferencas)
    assert not v.ok and v.erro == "usou diferenças finitas", v.mensagem


@pytest.mark.parametrize("h", [1e-5, 1e-6])
def test_gradiente_diferencas_finitas_a_mao_nao_passam(h):
    v = corrigir(licao.GRADIENTE_ATENCAO, _fd_a_mao(h))
    assert not v.ok and v.erro == "diferenças finitas à mão", v.mensagem
    assert "regra da cadeia" in v.mensagem


def test_gradiente_a_mao_em_float32_nao_vira_diferencas_finitas():
    """Uma volta certa que faz as contas em float32 erra ~1e-7, mas não é diferença finita: passa."""
    def em_float32(q, k, v, grad_out, mask=None):
        q, k, v, go = (np.asarray(a, dtype=np.float32) for a in (q, k, v, grad_out))
        s = np.float32(1 / np.sqrt(q.shape[-1]))
        S = s * q @ k.T
        if mask is not None:
            S = np.where(mask, S, -np.inf)
        P = attention.softmax(S).astype(np.float32)
        dP = go @ v.T
        dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
        return s * dS @ k, s * dS.T @ q, P.T @ go

    assert not cor._diferencas_finitas_a_mao(em_float32)
    assert cor._diferencas_finitas_a_mao(_fd_a_mao(1e-5))


def test_gradiente_a_resposta_certa_vem_das_diferencas_finitas_e_bate_com_o_nucleo():
    for caso in cor._casos_gradiente():
        e = caso.entradas
        numerico = cor._gradiente_numerico(**e)
        for a, b in zip(numerico, attention.attention_backward(e["q"], e["k"], e["v"], e["grad_out"], e.get("mask"))):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=caso.descricao)


def test_gradiente_pendente_e_forma_errada():
    def esqueleto(q, k, v, grad_out, mask=None):
        raise NotImplementedError

    assert corrigir(licao.GRADIENTE_ATENCAO, esqueleto).erro == "pendente"
    v = corrigir(licao.GRADIENTE_ATENCAO, lambda q, k, v, grad_out, mask=None: (q, k))
    assert not v.ok and "(grad_q, grad_k, grad_v)" in v.mensagem


def test_diferencas_finitas():
    x = np.array([1.0, -2.0, 0.5])
    g = licao.diferencas_finitas(lambda: float(np.sum(x**3)), x)
    np.testing.assert_allclose(g, 3 * x**2, rtol=1e-8)
    np.testing.assert_array_equal(x, [1.0, -2.0, 0.5])  # x volta ao que era


# ---------------------------------------------------------------------------------------------
# Exercício 2: um passo de Adam
# ---------------------------------------------------------------------------------------------


def _adam_estudante(*, sinal=-1.0, com_taxa=True, taxa_no_g=False, acumular=True, um_menos=True, correcao=True,
                    quadrado=True, raiz=True, trocar_betas=False, t_extra=0, devolver_novos=True, congelar=False,
                    devolver_hat=False):
    def passo_adam(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
        if congelar:
            return theta, m, v
        b1, b2 = (beta2, beta1) if trocar_betas else (beta1, beta2)
        gg = taxa * g if taxa_no_g else g
        base_m, base_v = (b1 * m, b2 * v) if acumular else (0.0, 0.0)
        m_novo = base_m + ((1 - b1) if um_menos else 1.0) * gg
        v_novo = base_v + ((1 - b2) if um_menos else 1.0) * (gg * gg if quadrado else gg)
        tt = t + t_extra
        m_hat = m_novo / (1 - b1**tt) if correcao else m_novo
        v_hat = v_novo / (1 - b2**tt) if correcao else v_novo
        direcao = m_hat / ((np.sqrt(v_hat) if raiz else v_hat) + eps)
        theta_novo = theta + sinal * (taxa if com_taxa and not taxa_no_g else 1.0) * direcao
        if devolver_hat:
            return theta_novo, m_hat, v_hat
        return (theta_novo, m_novo, v_novo) if devolver_novos else (theta_novo, m, v)

    return passo_adam


EXEMPLOS_ADAM = {
    "sinal trocado (subida do gradiente)": (_adam_estudante(sinal=1.0), "a favor"),
    "sem a taxa de aprendizado": _adam_estudante(com_taxa=False),
    "taxa dentro dos momentos": _adam_estudante(taxa_no_g=True),
    "sem acumular m e v": (_adam_estudante(acumular=False), "não acumulam"),
    "sem o (1 − β) dos momentos": _adam_estudante(um_menos=False),
    "sem a correção de viés": _adam_estudante(correcao=False),
    "g no lugar de g² em v": _adam_estudante(quadrado=False),
    "sem a raiz de v̂": _adam_estudante(raiz=False),
    "β₁ e β₂ trocados": _adam_estudante(trocar_betas=True),
    "um passo adiantado (t + 1)": _adam_estudante(t_extra=1),
    "devolveu m̂ e v̂ no lugar de m e v": (_adam_estudante(devolver_hat=True), "corrigidos"),
    "devolveu m e v antigos": _adam_estudante(devolver_novos=False),
    "a perda não desceu": (_adam_estudante(congelar=True), "não desceu"),
}


@pytest.mark.parametrize("nome", list(EXEMPLOS_ADAM))
def test_adam_cada_erro_tem_nome(nome):
    # o corretor do notebook chama a função do estudante por um adaptador (o último caso é um treino curto)
    exemplos = {n: (cor._adaptador(e[0]), e[1]) if isinstance(e, tuple) else cor._adaptador(e)
                for n, e in EXEMPLOS_ADAM.items()}
    confere_erro_nomeado(licao.ADAM, exemplos, nome)


def _adam_no_lugar(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m *= beta1
    m += (1 - beta1) * g
    v *= beta2
    v += (1 - beta2) * g**2
    theta -= taxa * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
    return [theta, m, v]  # lista também vale


def _adam_eps_na_raiz(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * np.square(g)
    return theta - taxa * (m / (1 - beta1**t)) / np.sqrt(v / (1 - beta2**t) + eps), m, v


def _adam_da_rede(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    """O Adam da própria rede (helpers.licoes.aprendida.rede.Adam), um parâmetro por vez."""
    adam = licao.Adam({"x": np.array(theta, dtype=float)}, beta1, beta2, eps)
    adam.m["x"][...] = m
    adam.v["x"][...] = v
    adam.t = t - 1
    adam.passo({"x": g}, taxa)
    return adam.parametros["x"], adam.m["x"], adam.v["x"]


@pytest.mark.parametrize("certo", [_adam_estudante(), _adam_no_lugar, _adam_eps_na_raiz, _adam_da_rede],
                         ids=["direto", "no lugar, devolvendo lista", "eps dentro da raiz", "o Adam da rede"])
def test_adam_respostas_certas_passam(certo):
    assert licao.check_passo_adam(certo) is True


def test_adam_treino_curto_desce_e_acerto_cita_as_perdas(capsys):
    perdas = cor._perdas_de_referencia()
    assert perdas[-1] < 0.7 * perdas[0]
    licao.check_passo_adam(_adam_estudante())
    saida = capsys.readouterr().out
    assert decimal(perdas[0], 3) in saida and f"{perdas[0]:.3f}" not in saida  # vírgula decimal


def test_adam_pendente_e_resposta_sem_estado():
    def esqueleto(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
        raise NotImplementedError

    assert corrigir(licao.ADAM, cor._adaptador(esqueleto)).erro == "pendente"
    so_theta = corrigir(licao.ADAM, cor._adaptador(lambda theta, g, m, v, t, taxa: theta - taxa * g))
    assert not so_theta.ok and "(theta, m, v)" in so_theta.mensagem


# ---------------------------------------------------------------------------------------------
# As previsões
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("previsao", [1, "1", "camada 1", "1·1", (1, 1), 1.0])
def test_previsao_camada_aceita_a_camada_de_varios_jeitos(previsao):
    assert corrigir_previsao(prev.PREVISAO_CAMADA, previsao).ok


def test_previsao_camada_erro_nomeado_pendente_e_invalida():
    assert corrigir_previsao(prev.PREVISAO_CAMADA, 0).erro == "a primeira camada"
    assert corrigir_previsao(prev.PREVISAO_CAMADA, "0·1").erro == "a primeira camada"
    assert corrigir_previsao(prev.PREVISAO_CAMADA, None).erro == "pendente"
    assert corrigir_previsao(prev.PREVISAO_CAMADA, "a de cima").erro == "tipo"


def test_caixa_da_camada_como_o_estudante_responde():
    # digitado na caixa, à brasileira: o certo, o erro nomeado, um erro de digitação (não trava a caixa)
    certa = licao.prever_camada()
    assert certa.conferir("1") is True and certa.conferida
    assert "a camada 1" in certa.mensagem.value and "1·1: 0,92 no sujeito" in certa.mensagem.value
    assert "Nas 5 sementes da tabela de data/, ela ficou na camada 1 em 5" in certa.mensagem.value
    errada = licao.prever_camada()
    assert errada.conferir("camada 0") is False and errada.veredito.erro == "a primeira camada"
    digitou_mal = licao.prever_camada()
    assert digitou_mal.conferir("a de cima") is False and not digitou_mal.conferida
    assert "a camada 1" not in digitou_mal.mensagem.value  # um erro de digitação não custa a previsão
    assert digitou_mal.conferir("1·1") is True


def test_caixa_da_camada_usa_a_analise_dada():
    analise = prev._medidas_do_modelo()["analise"]
    falsa = replace(analise, medidas={**analise.medidas, "sujeito": analise.medidas["sujeito"][::-1]})
    assert licao.prever_camada(falsa).conferir("0") is True
    assert licao.prever_camada(analise).conferir("1") is True


def test_previsao_camada_exemplo_legivel_e_pistas_que_a_resposta_mostra():
    assert prev.PREVISAO_CAMADA.exemplo == "0"  # legível, e não sugere a resposta
    caixa = licao.prever_camada()
    caixa.conferir(prev.PREVISAO_CAMADA.exemplo)
    # depois da conferência, a página mostra alguma pista (o teste do navegador espera por ela)
    assert any(p in caixa.mensagem.value for p in prev.PREVISAO_CAMADA.pistas_da_resposta())
    # o texto estático (o que o guia do instrutor cita) diz a mesma cabeça que a medida
    analise = prev._medidas_do_modelo()["analise"]
    suj = analise.medidas["sujeito"]
    c, h = np.unravel_index(int(np.argmax(suj)), suj.shape)
    assert f"é a {c}·{h}: ela põe {decimal(suj[c, h])}" in prev.PREVISAO_CAMADA.revelar


@pytest.mark.parametrize("previsao", ["c", "C", "(c)", " letra c "])
def test_previsao_desligar_aceita_a_letra(previsao):
    assert corrigir_previsao(prev.PREVISAO_DESLIGAR, previsao).ok


@pytest.mark.parametrize(("previsao", "nome"), [("a", "peso alto = indispensável"), ("b", "cai um pouco"),
                                                (None, "pendente"), ("d", "tipo"), (3, "tipo")])
def test_previsao_desligar_erros(previsao, nome):
    assert corrigir_previsao(prev.PREVISAO_DESLIGAR, previsao).erro == nome


def test_caixa_de_desligar_como_o_estudante_responde():
    certa = licao.prever_desligar()
    assert certa.conferir("c") is True
    assert "Sem a 1·0, o acerto fica em 100,0%" in certa.mensagem.value and "em 93,9%" in certa.mensagem.value
    for letra, nome in (("a", "peso alto = indispensável"), ("(b)", "cai um pouco")):
        caixa = licao.prever_desligar()
        assert caixa.conferir(letra) is False and caixa.veredito.erro == nome
    digitou_mal = licao.prever_desligar()
    assert digitou_mal.conferir("cc") is False and not digitou_mal.conferida
    exemplo = licao.prever_desligar()
    exemplo.conferir(prev.PREVISAO_DESLIGAR.exemplo)
    assert exemplo.conferida  # o exemplo da caixa é uma previsão legível
    assert any(p in exemplo.mensagem.value for p in prev.PREVISAO_DESLIGAR.pistas_da_resposta())


def test_previsao_desligar_a_resposta_e_a_medida():
    med = prev._desligada()
    assert med["acuracia"] == 1.0 and med["sem"] >= 0.95
    suj = prev._medidas_do_modelo()["analise"].medidas["sujeito"]
    assert prev.CABECA_DESLIGADA == (1, int(np.argmin(suj[1])))  # a outra cabeça da última camada
    assert prev.PREVISAO_DESLIGAR.certo() == "c"
    # o veredito escreve a acurácia medida sem a cabeça logo depois de uma das pistas
    assert f"Sem a 1·0, o acerto fica em {licao.porcento(med['sem'])}" in prev._texto_desligar()
    assert "Sem a 1·0, o acerto fica em" in prev.PREVISAO_DESLIGAR.pistas_da_resposta()


def test_previsao_desligar_o_texto_revelado_diz_os_numeros_medidos():
    med = prev._medidas_do_modelo()
    modelo, frases = med["modelo"], med["frases"]
    sem = licao.acuracia_sem_cada_cabeca(modelo, frases)
    total = licao.acuracia(modelo, frases)
    suj = med["analise"].medidas["sujeito"]
    conc = np.unravel_index(int(np.argmax(suj)), suj.shape)
    sem_as_duas = licao.acuracia(licao.desligar_cabeca(licao.desligar_cabeca(modelo, *conc), *prev.CABECA_DESLIGADA),
                                 frases)
    texto = prev._texto_desligar()
    for numero in (licao.porcento(sem[prev.CABECA_DESLIGADA]), f"contra {licao.porcento(total)}",
                   f"acerto fica em {licao.porcento(sem[conc])}", f"juntas, em {licao.porcento(sem_as_duas)}"):
        assert numero in texto, numero
    # quem conferir esta previsão antes da outra não descobre aqui a camada da cabeça da concordância
    assert not [p for p in prev.PREVISAO_CAMADA.pistas_da_resposta() if p in texto]
    assert "camada" not in texto


def test_previsao_camada_o_porque_nao_diz_que_as_palavras_sao_iguais():
    # o «os» do sujeito e o do atrator diferem pela posição: o texto diz que só ela os separa
    assert "só a posição os separa" in prev._POR_QUE and "são iguais" not in prev._POR_QUE


# ---------------------------------------------------------------------------------------------
# A análise: desligar cabeças, dicas do BertViz, papéis das palavras
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def modelo():
    return licao.carregar_modelo()


@pytest.fixture(scope="module")
def novas():
    return licao.frases_de_avaliacao()[:300]


def test_desligar_cabeca_zera_so_a_fatia_dela(modelo):
    antes = {k: a.copy() for k, a in modelo.parametros.items()}
    sem = licao.desligar_cabeca(modelo, 1, 1)
    d_head = modelo.receita.d_model // modelo.n_cabecas
    assert not sem.parametros["w_o1"][d_head:].any() and np.array_equal(sem.parametros["w_o1"][:d_head],
                                                                        modelo.parametros["w_o1"][:d_head])
    assert all(np.array_equal(antes[k], modelo.parametros[k]) for k in antes)  # o original não muda
    frase = "o bolo para as meninas ___"
    np.testing.assert_array_equal(sem.atencao(frase), modelo.atencao(frase))  # os pesos continuam os mesmos
    with pytest.raises(ValueError, match="camadas 0..1"):
        licao.desligar_cabeca(modelo, 2, 0)


def test_acuracia_sem_cada_cabeca(modelo, novas):
    sem = licao.acuracia_sem_cada_cabeca(modelo, novas)
    assert sem.shape == (2, 2)
    # sem a cabeça da concordância o modelo cai (é a mais necessária); sem a outra da última camada, nada muda
    assert sem[1, 1] == sem.min() and sem[1, 1] < 0.95 and sem[1, 0] > 0.99


def test_sem_intervencao_a_passada_manual_e_a_do_modelo(modelo, novas):
    from helpers.licoes.aprendida.analise import _logits_intervindo

    logits, saidas, alvo = _logits_intervindo(modelo, novas)
    np.testing.assert_allclose(logits, modelo.logits_lote(novas), rtol=1e-10, atol=1e-12)
    assert len(saidas) == 2 and saidas[1].shape[:2] == (len(novas), 2)
    assert list(alvo) == [f.posicao_alvo for f in novas]


def test_cabeca_na_media_e_zerada(modelo, novas):
    from helpers.licoes.aprendida.analise import _logits_intervindo

    # com o vetor zero no lugar da saída da cabeça, a intervenção é a de desligar_cabeca
    zero, _, _ = _logits_intervindo(modelo, novas, cabeca=(1, 1, np.zeros(16)))
    np.testing.assert_allclose(zero, licao.desligar_cabeca(modelo, 1, 1).logits_lote(novas), rtol=1e-10, atol=1e-12)
    # a média perde menos que o zero na cabeça da concordância, e ainda perde
    media = licao.acuracia_com_media(modelo, novas, 1, 1)
    assert licao.acuracia(licao.desligar_cabeca(modelo, 1, 1), novas) < media < 0.99
    assert licao.acuracia_com_media(modelo, novas, 1, 0) > 0.99
    with pytest.raises(ValueError, match="cabeças 0..1"):
        licao.acuracia_com_media(modelo, novas, 1, 2)
    with pytest.raises(ValueError, match="pelo menos uma frase"):
        licao.acuracia_com_media(modelo, [], 1, 1)


def test_revezamento_teste_causal(modelo):
    novas = licao.frases_de_avaliacao()
    pesos = modelo.atencao_lote(novas)
    fora = [f for b, f in enumerate(novas) if pesos[b, 1, 1, f.posicao_alvo].argmax() not in f.posicoes_sujeito]
    controle = [f for f in novas if f.tokens[0] in ("hoje", "agora") and f not in fora]
    assert fora and {f.tokens[0] for f in fora} <= {"hoje", "agora"} and controle
    # sem a atualização da camada 0 na 1ª palavra, as frases do revezamento caem muito; as de controle, não
    assert licao.acuracia_sem_atualizar(modelo, fora, camada=0, posicao=0) < 0.7
    assert licao.acuracia_sem_atualizar(modelo, controle, camada=0, posicao=0) > 0.95
    # a intervenção é só essa: numa posição que nada tem a ver, nada muda
    from helpers.licoes.aprendida.analise import _logits_intervindo

    base, _, _ = _logits_intervindo(modelo, controle)
    mexida, _, _ = _logits_intervindo(modelo, controle, sem_atualizar=(0, 0))
    assert not np.allclose(base, mexida)
    with pytest.raises(ValueError, match="posições"):
        licao.acuracia_sem_atualizar(modelo, fora, camada=0, posicao=99)


def test_porcento_com_virgula():
    assert licao.porcento(0.682) == "68,2%" and licao.porcento(1.0) == "100,0%" and licao.porcento(0.5, 0) == "50%"


def test_dicas_bertviz_uniforme_da_a_referencia(modelo, novas):
    uniforme = licao.ModeloConcordancia({**modelo.parametros, "w_q0": np.zeros((32, 32)), "w_k0": np.zeros((32, 32)),
                                         "w_q1": np.zeros((32, 32)), "w_k1": np.zeros((32, 32))}, modelo.receita)
    d = licao.medir_dicas_bertviz(uniforme, novas)
    for nome, valor in d.medidas.items():
        np.testing.assert_allclose(valor, d.uniforme[nome], rtol=1e-9, err_msg=nome)
    d_modelo = licao.medir_dicas_bertviz(modelo, novas)
    assert set(d_modelo.medidas) == set(licao.DICAS)
    assert d_modelo.medidas["entropia_lacuna"][1, 1] < 0.2 < d_modelo.medidas["entropia_lacuna"][0].min()


def test_papeis_deduzidos_batem_com_o_gerador():
    for f in licao.gerar_frases(2000, semente=8):
        assert licao.papeis_da_frase(f.tokens) == licao.papeis_da_frase(f.tokens, f), str(f)
    assert licao.papeis_da_frase("a menina o bolo ___".split())["sujeito"] == []  # dois candidatos: nada


# ---------------------------------------------------------------------------------------------
# A frase digitada
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("texto", "trecho"), [
    ("o carro para as meninas ___", "«carro» (posição 1) não está no vocabulário"),
    ("o bolo para as menias ___", "Parecidas que ele conhece: «meninas»"),
    ("o bolo para as meninas", "precisa terminar com a lacuna ___"),
    ("o bolo para as meninas __", "três sublinhados"),
    ("", "Digite uma frase"),
    ("o ___ bolo ___", "mais de uma vez"),
    (" ".join(["hoje"] * fr.N_MAX + ["___"]), f"até {fr.N_MAX}"),
])
def test_ler_frase_explica_o_que_mudar(texto, trecho):
    with pytest.raises(ValueError, match=trecho.replace("(", r"\(").replace(")", r"\)")):
        licao.ler_frase(texto)


def test_ler_frase_normaliza():
    assert licao.ler_frase("Por sorte, O bolo para as meninas ___") == "por sorte , o bolo para as meninas ___".split()


# ---------------------------------------------------------------------------------------------
# Os painéis
# ---------------------------------------------------------------------------------------------


def _outro(controle):
    if hasattr(controle, "options"):
        valores = [o[1] if isinstance(o, tuple) else o for o in controle.options]
        return next(v for v in valores if v != controle.value)
    if isinstance(controle, W.Text):
        return "as cartas sem o menino ___" if controle.value != "as cartas sem o menino ___" else "o bolo ___"
    return controle.max if controle.value != controle.max else controle.min


@pytest.fixture
def vista(modelo):
    return licao.painel_vista_cabecas(modelo)


def test_vista_cada_controle_muda_a_figura(vista):
    for nome, controle in vista.controles.items():
        antes_png, antes_html = vista.imagem.value, vista.texto.value
        controle.value = _outro(controle)
        assert vista.imagem.value != antes_png or vista.texto.value != antes_html, nome
        assert vista.imagem.value != antes_png, f"{nome}: a figura não mudou"


def test_vista_exemplos_contados_a_partir_de_0_e_pesos_junto_das_keys(vista):
    rotulos = [r for r, _ in vista.controles["frase"].options]
    assert rotulos[:len(licao.EXEMPLOS)] == [f"exemplo {i}" for i in range(len(licao.EXEMPLOS))]
    assert dict(vista.controles["frase"].options)["exemplo 2"] == licao.EXEMPLOS[2]
    # o peso de cada key fica colado na coluna das keys (à esquerda dela), não na borda da figura
    visiveis = [t for t in vista.vista.pesos if t.get_visible() and t.get_text()]
    assert visiveis and all(t.get_position()[0] < vista.vista.X_DIR for t in visiveis)


def test_vista_trocar_de_frase_muda_palavras_e_mapas_sem_redesenhar_tudo(vista):
    completos = vista.completos
    frase = licao.EXEMPLOS[3]
    vista.controles["frase"].value = frase
    tokens = frase.split()
    n, e = len(tokens), vista.estado
    assert e["tokens"] == tokens and vista.completos == completos, "a frase nova redesenhou a figura inteira"
    assert [t.get_text() for t in vista.vista.esquerda[:n]] == tokens
    assert not any(t.get_text() for t in vista.vista.esquerda[n:])
    # cada miniatura mostra os pesos da sua cabeça, no quadrado [0, 1] × [0, 1], com a lacuna contornada
    for (c, h), imagem in vista.miniaturas.imagens.items():
        np.testing.assert_array_equal(imagem.get_array(), e["pesos"][c, h])
        contorno = vista.miniaturas.contornos[(c, h)]
        assert contorno.get_visible()
        assert contorno.get_y() == pytest.approx((n - 1) / n) and contorno.get_height() == pytest.approx(1 / n)


def test_vista_estado_inicial_e_linhas_que_somam_1(vista):
    e = vista.estado
    assert e["tokens"] == licao.EXEMPLOS[2].split() and (e["camada"], e["cabeca"]) == (1, 1)
    assert e["palavra"] == len(e["tokens"]) - 1  # a lacuna
    assert e["pesos"].shape == (2, 2, len(e["tokens"]), len(e["tokens"]))
    np.testing.assert_allclose(e["pesos"].sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(e["linha"], e["pesos"][1, 1, -1])
    assert e["erro"] is None and e["previsao"] in licao.ALVOS


def test_vista_o_texto_nao_nomeia_a_cabeca(vista):
    # o texto do painel fica visível na página antes da previsão da camada (o teste de navegador move cada
    # controle um passo): ele não diz «1·1» (nem outro «c·h») em nenhuma cabeça escolhida
    for c in range(2):
        for h in range(2):
            vista.definir(camada=c, cabeca=h)
            assert "·" not in vista.texto.value.replace(" · ", ""), (c, h, vista.texto.value)
            assert not [p for p in prev.PREVISAO_CAMADA.pistas_da_resposta() if p in vista.texto.value], (c, h)


def test_paineis_escrevem_numeros_com_virgula(vista):
    import re

    texto = re.sub(r"<[^>]+>", " ", vista.texto.value)  # o texto, sem o estilo do HTML
    assert not re.search(r"\d\.\d", texto), texto
    assert "probabilidade 1,000" in vista.texto.value or re.search(r"probabilidade 0,\d{3}", vista.texto.value)
    textos = [t.get_text() for t in vista.vista.pesos if t.get_text()]
    assert textos and all("," in t and "." not in t for t in textos)


def test_vista_palavra_desconhecida_vira_mensagem(vista):
    antes = vista.estado["tokens"]
    estado = vista.digitar("o carro para as meninas ___")
    assert estado["tokens"] == antes  # a figura continua na última frase válida
    assert "«carro»" in estado["erro"] and "⚠️" in vista.texto.value and "carro" in vista.texto.value
    estado = vista.digitar("as caixas com o menino ___")
    assert estado["erro"] is None and estado["tokens"] == "as caixas com o menino ___".split()
    assert vista.controles["frase"].value == licao.paineis.DIGITADA
    assert estado["previsao"] == "estão prontas" and estado["palavra"] == 5  # a lacuna continua escolhida
    assert estado["peso_sujeito"] > 0.5


def test_vista_trocar_de_frase_ajusta_as_palavras(vista):
    vista.controles["palavra"].value = -1
    vista.controles["frase"].value = licao.EXEMPLOS[1]
    assert vista.estado["palavra"] == -1 and vista.estado["linha"] is None
    vista.controles["palavra"].value = 10  # a lacuna desta frase
    vista.controles["frase"].value = licao.EXEMPLOS[0]
    assert vista.estado["palavra"] == 5 and vista.estado["tokens"][5] == "___"
    assert [o[1] for o in vista.controles["palavra"].options] == list(range(-1, 6))
    vista.controles["palavra"].value = 2  # uma palavra do meio continua escolhida, e o seletor mostra a mesma
    vista.controles["frase"].value = licao.EXEMPLOS[3]
    assert vista.estado["palavra"] == vista.controles["palavra"].value == 2
    assert vista.controles["palavra"].label == f"2 · {licao.EXEMPLOS[3].split()[2]}"


def test_vista_definir(vista):
    e = vista.definir(texto="segundo a vizinha , as cartas sem o livro já ___", camada=0, palavra=-1)
    assert e["tokens"][0] == "segundo" and e["camada"] == 0 and e["linha"] is None
    assert e["papeis"] == {"sujeito": [4, 5], "atrator": [7, 8], "distrator": [1, 2]}
    with pytest.raises(ValueError, match="não tem o controle"):
        vista.definir(cor=1)


def test_vista_modo_apresentacao_tem_letras_maiores(modelo):
    from helpers import plots

    try:
        plots.modo_apresentacao()
        grande = licao.painel_vista_cabecas(modelo)
    finally:
        plots.modo_padrao()
    normal = licao.painel_vista_cabecas(modelo)
    assert grande.vista.esquerda[0].get_fontsize() > normal.vista.esquerda[0].get_fontsize()
    assert grande.fig.get_figheight() > normal.fig.get_figheight()


RECEITA_TESTE = replace(licao.RECEITA_AO_VIVO, n_frases=400, passos=100)


@pytest.fixture
def treino(modelo):
    return licao.painel_treino(receita=RECEITA_TESTE, n_frases_medida=60)


def test_treino_cada_controle_muda_o_que_se_ve(treino):
    for nome, controle in treino.controles.items():
        antes_png, antes_html = treino.imagem.value, treino.texto.value
        controle.value = _outro(controle)
        assert treino.texto.value != antes_html, nome
        if nome == "semente":  # vale para o próximo treino: só o texto muda, e o PNG não é refeito
            assert treino.imagem.value is antes_png
        else:  # o fim do próximo treino (a linha pontilhada) anda
            assert treino.imagem.value != antes_png, nome
    assert treino.estado["receita"].semente == 9 and treino.estado["receita"].passos == 1000


def test_treino_o_eixo_cresce_com_os_passos_e_nao_encolhe(treino):
    assert treino.ax_perda.get_xlim() == (0, pytest.approx(1.02 * 100))  # os 100 passos da receita de teste
    treino.controles["passos"].value = 200  # mais do que o eixo mostra: ele vai até o máximo do slider
    completos = treino.completos
    assert treino.ax_perda.get_xlim()[1] == pytest.approx(1.02 * 1000)
    for passos in (800, 1000, 300):  # daí em diante, só a linha do fim anda, por cima do fundo guardado
        treino.controles["passos"].value = passos
        assert list(treino._fim.get_xdata()) == [passos, passos]
    assert treino.ax_perda.get_xlim()[1] == pytest.approx(1.02 * 1000) and treino.completos == completos


def test_treino_o_botao_treina_com_progresso_e_curva(treino):
    treino.controles["semente"].value = 1
    treino.controles["passos"].value = 100
    progresso, imagens = [], []
    treino.progresso.observe(lambda m: progresso.append(m.new), names="value")
    treino.imagem.observe(lambda m: imagens.append(m.new), names="value")
    antes = treino.imagem.value
    treino.INTERVALO_S = 0.0  # redesenha a cada passo, para o teste ver a curva crescer
    treino.botao.click()
    assert progresso[-1] == treino.progresso.max == 100 and progresso == sorted(progresso)
    assert len(imagens) > 3 and imagens[-1] != antes  # a curva foi redesenhada durante o treino
    curva = next(linha for linha in treino.ax_perda.lines if linha.get_gid() == "atual")
    assert len(curva.get_xdata()) == 100
    e = treino.estado
    assert e["treinos"] == ["semente 1, 100 passos"] and 0 <= e["acuracia"] <= 1 and len(e["perdas"]) == 100
    assert e["analise"].medidas["sujeito"].shape == (2, 2)
    assert not treino.botao.disabled and treino.botao.description == "treinar"
    assert "pronto" in treino.rotulo.value
    # números à brasileira: a acurácia e os pesos da tabela, o tempo do treino
    import re

    texto = re.sub(r"<[^>]+>", " ", treino.texto.value)  # o texto, sem o estilo do HTML
    assert re.search(r"\d,\d%", texto) and not re.search(r"\d\.\d", texto), texto
    assert re.search(r"em \d+,\d s", treino.rotulo.value), treino.rotulo.value
    # as barras das cabeças aparecem ao lado da curva, numa imagem própria, depois do primeiro treino
    assert treino.imagem_cabecas in treino.children[-2].children and treino.imagem_cabecas.value


def test_treino_com_a_curva_do_treino_curto_do_notebook(treino):
    curto = licao.treinar(replace(licao.RECEITA_RAPIDA, passos=20))
    painel = licao.painel_treino(curto, receita=RECEITA_TESTE, n_frases_medida=40)
    assert "treino curto" in painel.rotulo.value
    curva = next(linha for linha in painel.ax_perda.lines if linha.get_gid() == "atual")
    np.testing.assert_array_equal(curva.get_ydata(), curto.perdas)
    assert painel.estado["treinos"] == [] and painel.estado["acuracia"] is None  # as cabeças vêm depois do botão
    assert painel.imagem_cabecas not in painel.children[-2].children
    assert painel.imagem.value != treino.imagem.value


def test_treino_erro_vira_mensagem_no_painel(treino, monkeypatch):
    def quebra(*_a, **_k):
        raise ValueError("a perda virou nan no passo 3")

    monkeypatch.setattr(licao.paineis, "treinar", quebra)
    treino.botao.click()
    assert "⚠️" in treino.rotulo.value and "nan" in treino.rotulo.value and not treino.botao.disabled


def test_paineis_achados_pela_trilha():
    from tools.notebooks import paineis

    achados = paineis()
    assert achados["painel_vista_cabecas"] is licao.painel_vista_cabecas
    assert achados["painel_treino"] is licao.painel_treino


def test_medidas_vetorizadas_batem_com_a_conta_frase_a_frase(modelo):
    """As médias de analisar_cabecas (de uma vez para o lote) são as da conta frase a frase, com a frase
    sem enchimento."""
    frases = licao.gerar_frases(40, semente=9)
    analise = licao.analisar_cabecas(modelo, frases)
    soma = {nome: [] for nome in licao.MEDIDAS}
    for f in frases:
        w = modelo.atencao(f.tokens)  # (L, H, n, n), só a frase
        n, i = len(f.tokens), f.posicao_alvo
        soma["sujeito"].append(w[:, :, i, f.posicoes_sujeito].sum(-1))
        soma["atrator"].append(w[:, :, i, f.posicoes_atrator].sum(-1))
        soma["lacuna"].append(w[:, :, i, i])
        soma["anterior"].append(np.mean([w[:, :, j, j - 1] for j in range(1, n)], axis=0))
        soma["primeira"].append(w[:, :, :, 0].mean(-1))
        soma["propria"].append(np.mean([w[:, :, j, j] for j in range(n)], axis=0))
        if f.posicoes_distrator:
            soma["distrator"].append(w[:, :, i, f.posicoes_distrator].sum(-1))
        virgulas = [j for j, t in enumerate(f.tokens) if t == ","]
        if virgulas:
            soma["virgula"].append(w[:, :, :, virgulas].sum(-1).mean(-1))
    for nome, valores in soma.items():
        np.testing.assert_allclose(analise.medidas[nome], np.mean(valores, axis=0), atol=1e-12, err_msg=nome)
    assert analise.uniforme["sujeito"].shape == (2, 2)
    np.testing.assert_allclose(analise.uniforme["sujeito"], np.mean([2 / len(f.tokens) for f in frases]))


def test_treino_modo_apresentacao_tem_figuras_maiores():
    from helpers import plots

    try:
        plots.modo_apresentacao()
        grande = licao.painel_treino(receita=RECEITA_TESTE, n_frases_medida=20)
    finally:
        plots.modo_padrao()
    normal = licao.painel_treino(receita=RECEITA_TESTE, n_frases_medida=20)
    for fig in ("fig", "fig_cabecas"):
        assert getattr(grande, fig).get_figheight() > 1.3 * getattr(normal, fig).get_figheight(), fig
    assert grande.ax_perda.yaxis.label.get_fontsize() > normal.ax_perda.yaxis.label.get_fontsize()


# ---------------------------------------------------------------------------------------------
# O remendo de ativação: o corretor e a previsão
# ---------------------------------------------------------------------------------------------


def _remendo_certo_do_estudante(limpa, contrafactual, cabeca, lacunas):
    saida = limpa.copy()
    for b, j in enumerate(lacunas):  # um laço também vale
        saida[b, cabeca, j] = contrafactual[b, cabeca, j]
    return saida


def _fracao_certa_do_estudante(previstas, classes_limpas, classes_contrafactuais):
    return sum(p == c for p, c in zip(previstas, classes_contrafactuais)) / len(previstas)


_REMENDOS_ERRADOS = {
    "copiou tudo": lambda limpa, contrafactual, cabeca, lacunas: contrafactual.copy(),
    "sem remendo": lambda limpa, contrafactual, cabeca, lacunas: limpa.copy(),
    "todas as posições": cor._remendo_errado("todas as posições"),
    "todas as cabeças": cor._remendo_errado("todas as cabeças"),
    "cabeça errada": lambda limpa, contrafactual, cabeca, lacunas: _remendo_certo_do_estudante(
        limpa, contrafactual, (cabeca + 1) % limpa.shape[1], lacunas),
    "última posição": cor._remendo_errado("última posição"),
    "lacunas cruzadas": cor._remendo_errado("lacunas cruzadas"),
}

_FRACOES_ERRADAS = {
    "mediu a acurácia": lambda p, lim, con: np.mean(np.asarray(p) == np.asarray(lim)),
    "contou toda mudança": lambda p, lim, con: np.mean(np.asarray(p) != np.asarray(lim)),
    "as que não seguem": lambda p, lim, con: np.mean(np.asarray(p) != np.asarray(con)),
    "contagem em vez de fração": lambda p, lim, con: int(np.sum(np.asarray(p) == np.asarray(con))),
}


@pytest.mark.parametrize("nome", sorted(_REMENDOS_ERRADOS))
def test_remendo_cada_erro_tem_nome(nome):
    confere_erro_nomeado(cor.REMENDO, _REMENDOS_ERRADOS, nome)


@pytest.mark.parametrize("nome", sorted(_FRACOES_ERRADAS))
def test_fracao_cada_erro_tem_nome(nome):
    confere_erro_nomeado(cor.FRACAO_QUE_SEGUE, _FRACOES_ERRADAS, nome)


#: pedaços do código da solução que nenhuma mensagem de erro do corretor do remendo pode conter
_CODIGO_DA_SOLUCAO = ("np.arange", "lacunas[b]", "[linhas", "[frases", "contrafactual[", "saida[",
                      "== classes_contrafactuais", "== np.asarray(classes_contrafactuais)", "troque para ==")


def _mensagens_de_falha_do_remendo() -> list[str]:
    textos = [cor.REMENDO.dica_de_forma, cor.REMENDO.dica_de_valor, cor.FRACAO_QUE_SEGUE.dica_de_valor]
    for ex in (cor.REMENDO, cor.FRACAO_QUE_SEGUE):
        for caso in ex.casos():
            textos += [e.texto(caso) for e in ex.erros]
    for errados, ex in ((_REMENDOS_ERRADOS, cor.REMENDO), (_FRACOES_ERRADAS, cor.FRACAO_QUE_SEGUE)):
        for fn in errados.values():
            veredito = corrigir(ex, fn)
            assert not veredito.ok
            textos.append(veredito.mensagem)
    # uma resposta sem sentido (zeros) também cai na dica de valor
    textos.append(corrigir(cor.REMENDO, lambda limpa, contrafactual, cabeca, lacunas: np.zeros_like(limpa)).mensagem)
    return textos


def test_nenhuma_falha_do_remendo_entrega_o_codigo_da_solucao():
    textos = _mensagens_de_falha_do_remendo()
    assert len(textos) > 20
    for texto in textos:
        for pedaco in _CODIGO_DA_SOLUCAO:
            assert pedaco.lower() not in texto.lower(), (pedaco, texto)


def test_remendo_certo_de_dois_jeitos_passa_e_roda_no_modelo(capsys):
    assert cor.check_remendo(_remendo_certo_do_estudante, _fracao_certa_do_estudante)
    assert cor.check_remendo(licao.remendo_na_lacuna, lambda p, lim, con: licao.fracao_que_segue(p, con))
    saida = capsys.readouterr().out
    assert saida.count("✅ No modelo de data/") == 2
    # o número (a resposta da previsão) não aparece na correção
    assert "%" not in saida


def test_remendo_pendente_e_erro_de_um_so():
    def pendente(*a):
        raise NotImplementedError

    assert not cor.check_remendo(pendente, _fracao_certa_do_estudante)
    assert not cor.check_remendo(_remendo_certo_do_estudante, _FRACOES_ERRADAS["mediu a acurácia"])
    assert corrigir(cor.REMENDO, _remendo_certo_do_estudante).ok
    assert not corrigir(cor.REMENDO, pendente).ok


def test_remendo_que_so_funciona_nos_casos_pequenos_e_pego_no_modelo(capsys):
    def so_com_tres_frases(limpa, contrafactual, cabeca, lacunas):
        if len(lacunas) > 4:
            return limpa.copy()
        return _remendo_certo_do_estudante(limpa, contrafactual, cabeca, lacunas)

    assert not cor.check_remendo(so_com_tres_frases, _fracao_certa_do_estudante)
    assert "no modelo, o seu remendo" in capsys.readouterr().out


def test_previsao_remendo_a_resposta_e_a_medida():
    r = prev._remendos()
    med = prev._medidas_do_modelo()
    modelo, frases = med["modelo"], med["frases"]
    c, h = r["conc"]
    assert r["cada"][c, h] == licao.efeito_do_remendo(modelo, frases, c, h)
    letra = "a" if r["cada"][c, h] < 0.5 else ("b" if r["cada"][c, h] < 0.95 else "c")
    assert prev.PREVISAO_REMENDO.certo() == letra == "b"  # o modelo de data/: a maior parte, mas não toda
    texto = prev._texto_remendo()
    assert f"{licao.porcento(r['cada'][c, h])} das previsões seguem" in texto
    assert any(p in texto for p in prev.PREVISAO_REMENDO.pistas_da_resposta())
    caixa = licao.prever_remendo()
    assert caixa.conferir("c") is False and caixa.veredito.erro == "ela decide sozinha"
    caixa = licao.prever_remendo()
    assert caixa.conferir("b") is True and licao.porcento(r["cada"][c, h]) in caixa.mensagem.value


def test_textos_revelados_guardados_sao_os_medidos():
    """O texto fixo de cada previsão (o que o guia cita) é o que a caixa mostra, medido no modelo de data/."""
    assert prev.PREVISAO_DESLIGAR.revelar == prev._texto_desligar()
    assert prev.PREVISAO_REMENDO.revelar == prev._texto_remendo()
