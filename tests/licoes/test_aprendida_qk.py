"""Notebook atencao_aprendida: a conta q · k de uma cabeça (helpers/licoes/aprendida/qk.py) e a tabela dela na
vista das cabeças.

A conta é conferida contra duas outras implementações: a atenção do próprio modelo
(``modelo.atencao``, que passa por ``multi_head_attention`` com as cabeças separadas por ``split_heads``) e a
conta escrita aqui à mão, produto escalar a produto escalar; a entrada de cada camada (``modelo.entradas``), contra
a conta de ida refeita aqui, camada a camada. Além do modelo de ``data/``, modelos sorteados
com outras formas (quatro cabeças, três camadas, sem residual) impedem que uma fatia de cabeça errada passe
por acaso.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pytest

from helpers import attention
from helpers.licoes import aprendida as licao
from helpers.licoes.aprendida import frases as fr
from helpers.licoes.aprendida import qk

FRASES = [*licao.EXEMPLOS, "as cartas sem o menino daqui ___", "o bolo ___"]


@pytest.fixture(scope="module")
def modelo():
    return licao.carregar_modelo()


def _modelos_sorteados():
    base = licao.RECEITA_COMPLETA
    return [
        licao.iniciar_modelo(replace(base, semente=3)),
        licao.iniciar_modelo(replace(base, semente=7, n_cabecas=4, n_camadas=3)),
        licao.iniciar_modelo(replace(base, semente=11, n_cabecas=4, residual=False)),
    ]


def _frases_geradas(n=6):
    return [f.tokens for f in licao.gerar_frases(n, semente=31)]


def _todos_os_modelos(modelo):
    return [("data/", modelo)] + [(f"sorteado {i}", m) for i, m in enumerate(_modelos_sorteados())]


def test_pesos_sao_a_atencao_do_modelo_em_toda_camada_cabeca_e_linha(modelo):
    conferidas = 0
    for nome, m in _todos_os_modelos(modelo):
        for tokens in [f.split() for f in FRASES] + _frases_geradas():
            atencao = m.atencao(tokens)  # (L, H, n, n)
            entradas = m.entradas(tokens)
            for c in range(m.n_camadas):
                for h in range(m.n_cabecas):
                    for i in range(len(tokens)):
                        conta = qk.conta_qk(m, tokens, c, h, i, entradas)
                        np.testing.assert_allclose(conta.pesos, atencao[c, h, i], rtol=0, atol=1e-12,
                                                   err_msg=f"{nome}: {' '.join(tokens)} [{c}, {h}, {i}]")
                        conferidas += 1
    assert conferidas > 1000


def test_sem_entradas_prontas_da_o_mesmo_e_a_padrao_e_a_lacuna(modelo):
    tokens = licao.EXEMPLOS[1].split()
    conta = qk.conta_qk(modelo, tokens, 1, 0)
    assert conta.posicao == len(tokens) - 1 and conta.tokens[conta.posicao] == fr.LACUNA
    pronta = qk.conta_qk(modelo, tokens, 1, 0, len(tokens) - 1, modelo.entradas(tokens))
    np.testing.assert_array_equal(conta.pesos, pronta.pesos)
    np.testing.assert_allclose(conta.pesos, modelo.atencao(tokens)[1, 0, -1], rtol=0, atol=1e-12)
    assert qk.conta_qk(modelo, " ".join(tokens), 1, 0).tokens == tuple(tokens)  # texto com espaços vale


@pytest.mark.parametrize("c, h, i", [(0, 0, None), (0, 1, 2), (1, 0, 0), (1, 1, None)])
def test_escores_e_pesos_refeitos_a_mao(modelo, c, h, i):
    tokens = licao.EXEMPLOS[3].split()
    conta = qk.conta_qk(modelo, tokens, c, h, i)
    d = conta.d_head
    assert d == modelo.receita.d_model // modelo.n_cabecas and conta.q.shape == (d,)
    assert conta.k.shape == (len(tokens), d)
    for j in range(len(tokens)):
        produto = sum(conta.q[t] * conta.k[j, t] for t in range(d))
        assert conta.escores[j] == pytest.approx(produto / math.sqrt(d), rel=1e-12, abs=1e-12)
    e = [math.exp(s - max(conta.escores)) for s in conta.escores]
    np.testing.assert_allclose(conta.pesos, [x / sum(e) for x in e], rtol=0, atol=1e-14)
    assert conta.maior == int(np.argmax(modelo.atencao(tokens)[c, h, conta.posicao]))


def test_q_e_k_da_primeira_camada_sao_as_projecoes_dos_embeddings(modelo):
    tokens = licao.EXEMPLOS[4].split()
    p = modelo.parametros
    x0 = np.array([p["embedding"][fr.VOCABULARIO.index(t)] + p["posicao"][n] for n, t in enumerate(tokens)])
    np.testing.assert_allclose(modelo.entradas(tokens)[0], x0, rtol=0, atol=1e-14)
    d = modelo.receita.d_model // modelo.n_cabecas
    for h in range(modelo.n_cabecas):
        conta = qk.conta_qk(modelo, tokens, 0, h, 3)
        np.testing.assert_allclose(conta.q, x0[3] @ p["w_q0"][:, h * d:(h + 1) * d], rtol=0, atol=1e-13)
        np.testing.assert_allclose(conta.k, x0 @ p["w_k0"][:, h * d:(h + 1) * d], rtol=0, atol=1e-13)
    # na camada 1 a entrada já passou pela atenção da camada 0: as keys não são mais as projeções de x0
    k1 = qk.conta_qk(modelo, tokens, 1, 0).k
    assert not np.allclose(k1, x0 @ p["w_k1"][:, :d])


def test_entradas_das_camadas_refeitas_camada_a_camada(modelo):
    """``modelo.entradas`` contra a conta de ida escrita aqui, uma frase sem lote, camada a camada (com e sem residual)."""
    for nome, m in _todos_os_modelos(modelo):
        p = m.parametros
        for tokens in [f.split() for f in FRASES[:3]]:
            x = np.array([p["embedding"][fr.VOCABULARIO.index(t)] + p["posicao"][n] for n, t in enumerate(tokens)])
            esperadas = []
            for c in range(m.n_camadas):
                esperadas.append(x)
                a, _ = attention.multi_head_attention(x, x, p[f"w_q{c}"], p[f"w_k{c}"], p[f"w_v{c}"], p[f"w_o{c}"],
                                                      m.n_cabecas)
                x = x + a if m.receita.residual else a
            entradas = m.entradas(tokens)
            assert entradas.shape == (m.n_camadas, len(tokens), m.receita.d_model), nome
            np.testing.assert_allclose(entradas, np.stack(esperadas), rtol=0, atol=1e-12, err_msg=nome)


@pytest.mark.parametrize("argumentos, trecho", [
    ({"camada": 2}, "camada precisa ser um inteiro de 0 a 1"),
    ({"camada": -1}, "camada precisa ser um inteiro de 0 a 1"),
    ({"cabeca": 2}, "cabeca precisa ser um inteiro de 0 a 1"),
    ({"cabeca": True}, "cabeca precisa ser um inteiro"),
    ({"camada": 1.0}, "camada precisa ser um inteiro"),
    ({"posicao": 6}, "a frase tem 6 palavras"),
    ({"tokens": "o carro para as meninas ___"}, "carro"),
    ({"tokens": "o bolo para as meninas"}, "terminar com a lacuna"),
    ({"tokens": ""}, "a frase está vazia"),
    ({"tokens": " ".join(["o"] * fr.N_MAX + ["___"])}, f"até {fr.N_MAX} palavras"),
])
def test_entradas_invalidas_viram_mensagem_em_portugues(modelo, argumentos, trecho):
    kw = {"tokens": licao.EXEMPLOS[0], "camada": 1, "cabeca": 1} | argumentos
    with pytest.raises(ValueError, match=re.escape(trecho)):
        qk.conta_qk(modelo, kw.pop("tokens"), kw.pop("camada"), kw.pop("cabeca"), **kw)


def test_entradas_de_outra_frase_sao_recusadas(modelo):
    outras = modelo.entradas(licao.EXEMPLOS[1])
    with pytest.raises(ValueError, match=re.escape("entradas precisa ter a forma (n_camadas, n, d_model) = (2, 6, 32)")):
        qk.conta_qk(modelo, licao.EXEMPLOS[0], 0, 0, None, outras)


# ---------------------------------------------------------------------------------------------
# A tabela HTML
# ---------------------------------------------------------------------------------------------


def _linhas(html_texto):
    """(posição, palavra, escore mostrado, peso mostrado, peso inteiro, marcada) de cada linha da tabela."""
    padrao = re.compile(
        r"<tr class='qk-linha' data-posicao='(\d+)' data-maior='([01])'[^>]*><td[^>]*>\d+</td><td[^>]*>(.*?)</td>"
        r".*?data-valor='([^']+)'>([^<]*)</td>.*?data-valor='([^']+)'>([^<]*)</td>")
    return [(int(j), re.sub(r"<[^>]+>", "", palavra), float(escore), mostrado_e, float(peso), mostrado_p, marcada == "1")
            for j, marcada, palavra, escore, mostrado_e, peso, mostrado_p in padrao.findall(html_texto)]


def test_tabela_mostra_a_conta_com_virgula_e_marca_so_o_maior(modelo):
    for c, h in [(0, 0), (1, 1), (1, 0)]:
        conta = qk.conta_qk(modelo, licao.EXEMPLOS[2], c, h)
        tabela = qk.tabela_qk(conta)
        linhas = _linhas(tabela)
        assert [ln[0] for ln in linhas] == list(range(len(conta.tokens)))
        assert [ln[1] for ln in linhas] == list(conta.tokens)
        np.testing.assert_array_equal([ln[2] for ln in linhas], conta.escores)
        np.testing.assert_array_equal([ln[4] for ln in linhas], conta.pesos)
        assert sum(ln[4] for ln in linhas) == pytest.approx(1.0, abs=1e-12)
        # o que se lê: números à brasileira, com as casas da tabela, e nenhum "-0,00"
        for _j, _p, escore, mostrado_e, peso, mostrado_p, _m in linhas:
            assert mostrado_e.replace("-", "") == f"{abs(escore):.2f}".replace(".", ",")
            assert mostrado_p == f"{peso:.3f}".replace(".", ",")
            assert not re.fullmatch(r"-0,0+", mostrado_e)
        assert [ln[0] for ln in linhas if ln[6]] == [conta.maior]
        assert tabela.count("◀ maior peso") == 1
        texto = re.sub(r"<[^>]+>", " ", tabela)
        assert not re.search(r"\d\.\d", texto) and f"d_head = {conta.d_head}" in texto


def test_tabela_escapa_as_palavras():
    conta = qk.ContaQK(("<b>", "___"), 0, 0, 1, np.ones(4), np.ones((2, 4)), np.array([2.0, -0.0001]),
                       np.array([0.88, 0.12]))
    tabela = qk.tabela_qk(conta)
    assert "&lt;b&gt;" in tabela and "<b><" not in tabela
    assert ">0,00<" in tabela and "-0,00" not in tabela  # um escore que arredonda para zero não leva sinal
    assert "√d_head = 2" in tabela


# ---------------------------------------------------------------------------------------------
# No painel da vista das cabeças
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def vista(modelo):
    return licao.painel_vista_cabecas(modelo, camada=0, cabeca=1, palavra=0)


def _maior_da_vista(texto):
    """A posição que a linha «… olha mais para» (feita com ``modelo.atencao``) diz."""
    return int(re.search(r"olha mais para</td><td><b>«[^»]+» \(posição (\d+)", texto).group(1))


def test_painel_mostra_a_conta_da_palavra_escolhida_e_acompanha_a_cabeca(vista):
    vistos = set()
    for c in range(2):
        for h in range(2):
            for palavra in (0, 3, -1):
                e = vista.definir(camada=c, cabeca=h, palavra=palavra)
                conta = e["qk"]
                i = len(e["tokens"]) - 1 if palavra == -1 else palavra
                assert (conta.camada, conta.cabeca, conta.posicao) == (c, h, i)
                np.testing.assert_allclose(conta.pesos, e["pesos"][c, h, i], rtol=0, atol=1e-12)
                assert qk.tabela_qk(conta) in vista.texto.value
                if palavra != -1:  # a linha mais grossa da vista é a marcada na tabela
                    assert _maior_da_vista(vista.texto.value) == conta.maior
                vistos.add(vista.texto.value)
    assert len(vistos) == 12  # cada cabeça e cada palavra dão uma tabela diferente


def test_painel_a_conta_acompanha_a_frase_digitada(vista):
    e = vista.digitar("as caixas com o menino ___")
    assert e["qk"].tokens == tuple("as caixas com o menino ___".split()) and e["qk"].posicao == 0  # a escolhida
    vista.controles["palavra"].value = 5
    assert vista.estado["qk"].posicao == 5 and vista.estado["qk"].maior == _maior_da_vista(vista.texto.value)
    antes = vista.texto.value
    e = vista.digitar("o carro ___")  # inválida: a figura e a conta ficam na última frase válida
    assert e["qk"].tokens == tuple("as caixas com o menino ___".split())
    assert qk.tabela_qk(e["qk"]) in vista.texto.value and vista.texto.value != antes  # só o aviso entrou
