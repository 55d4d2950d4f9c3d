"""Notebook 11 (revisão): o quiz (dados, corretor e texto), o corretor do mecanismo inteiro e a figura-resumo."""

import copy
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from helpers import attention, data, efficient
from helpers.corretor import corrigir
from helpers.licoes import revisao as licao
from tests._corretor import confere_erro_nomeado
from tests._notebooks import solucoes_do_notebook
from tools.notebooks import TRILHA

RAIZ = Path(__file__).resolve().parents[2]
NOTEBOOK = RAIZ / "notebooks" / "11_revisao.ipynb"
PERGUNTAS = data.carregar_quiz()
GABARITO = {p.numero: p.resposta for p in PERGUNTAS}


def _rodar_quiz(capsys, respostas):
    ok = licao.check_quiz(respostas)
    return ok, capsys.readouterr().out


def _linha(saida: str, numero: int) -> str:
    """O trecho da saída do corretor que fala da pergunta ``numero`` (a linha e a de "reveja", se houver)."""
    m = re.search(rf"^\S+ Pergunta {numero}:.*?(?=^\S+ Pergunta |\n\n|\Z)", saida, flags=re.S | re.M)
    assert m, f"a pergunta {numero} não aparece na saída:\n{saida}"
    return m.group(0)


# ---------------------------------------------------------------------------------------------
# o arquivo do quiz
# ---------------------------------------------------------------------------------------------


def test_o_quiz_cobre_todos_os_notebooks():
    assert 12 <= len(PERGUNTAS) <= 20
    assert [p.numero for p in PERGUNTAS] == list(range(1, len(PERGUNTAS) + 1))
    # todo notebook da trilha entre o 00 e a própria revisão, na ordem da trilha
    assert [p.notebook for p in PERGUNTAS] == sorted(p.notebook for p in PERGUNTAS)
    assert {p.notebook for p in PERGUNTAS} == {e.arquivo[:2] for e in TRILHA[1:-1]}
    # os temas que a revisão precisa cobrir (issue 9): atenção cruzada, preenchimento, GQA, atenção aprendida
    enunciados = " ".join(p.enunciado for p in PERGUNTAS)
    for tema in ("Atenção cruzada", "preenchimento (padding)", "GQA", "W_q, W_k e W_v", "atrator", "linear causal"):
        assert tema in enunciados, tema
    tipos = {p.tipo for p in PERGUNTAS}
    assert tipos == {"escolha", "numero"}


def test_cada_opcao_errada_tem_a_sua_explicacao_e_as_letras_certas_variam():
    for p in PERGUNTAS:
        if p.tipo == "escolha":
            assert p.resposta in p.opcoes
            assert set(p.erros) == set(p.opcoes) - {p.resposta}, p.numero
            assert len(set(p.erros.values())) == len(p.erros), f"explicações repetidas na pergunta {p.numero}"
            # cada opção errada é um equívoco de verdade, com nome
            assert set(p.equivocos) == set(p.erros) and all(p.equivocos.values()), p.numero
        else:
            assert p.dica and p.erros_numericos and p.casas is not None
            assert all(e.equivoco for e in p.erros_numericos), p.numero
    letras = [p.resposta for p in PERGUNTAS if p.tipo == "escolha"]
    assert len(set(letras)) >= 3, f"o gabarito não pode ser quase sempre a mesma letra: {letras}"
    # nem quase sempre a opção mais longa (a que traz a própria justificativa): a justificativa vai para o retorno
    mais_longas = [p.numero for p in PERGUNTAS
                   if p.tipo == "escolha" and max(p.opcoes, key=lambda k: len(p.opcoes[k])) == p.resposta]
    assert len(mais_longas) <= len(letras) // 4, f"a opção certa é a mais longa nas perguntas {mais_longas}"


def test_o_gabarito_bate_com_as_contas():
    p = {q.numero: q for q in PERGUNTAS}
    # 2: q·k_b = 3 > q·k_a = 1, mas o cosseno prefere k_a
    q, ka, kb = np.array([1.0, 0.0]), np.array([1.0, 0.0]), np.array([3.0, 1.0])
    assert q @ kb > q @ ka and (q @ kb) / np.linalg.norm(kb) < 1.0
    assert "q·k_b = 3" in p[2].explicacao and "comprimento" in p[2].opcoes[p[2].resposta]
    # 3: desvio-padrão de q·k com d = 256 (e a medida confirma)
    assert p[3].resposta == math.sqrt(256)
    rng = np.random.default_rng(0)
    amostra = np.sum(rng.standard_normal((20000, 256)) * rng.standard_normal((20000, 256)), axis=1)
    assert abs(amostra.std() - p[3].resposta) < 0.3
    # 5: somar 10 a todos os escores não muda a softmax
    assert attention.softmax(np.array([11.0, 12.0, 13.0]))[2] == pytest.approx(p[5].resposta, abs=1e-12)
    assert attention.softmax(np.array([1.0, 2.0, 3.0]))[2] == pytest.approx(p[5].resposta, abs=1e-12)
    # 6: trocar V não muda os pesos
    K = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    _, w1 = attention.scaled_dot_product_attention(q, K, [[10, 0], [0, 10], [5, 5]])
    _, w2 = attention.scaled_dot_product_attention(q, K, [[1, 2], [3, 4], [5, 6]])
    assert np.array_equal(w1, w2) and "pesos continuam idênticos" in p[6].opcoes[p[6].resposta]
    # 7: as formas do enunciado
    X, Wq, Wk, Wv = np.ones((5, 16)), np.ones((16, 8)), np.ones((16, 8)), np.ones((16, 4))
    saida, pesos = attention.scaled_dot_product_attention(X @ Wq, X @ Wk, X @ Wv)
    assert p[7].opcoes[p[7].resposta] == str(saida.shape)
    assert p[7].opcoes["a"] == str(pesos.shape)
    # 9: atenção cruzada, 6 queries contra 10 keys/values
    saida, pesos = attention.scaled_dot_product_attention(np.ones((6, 8)), np.ones((10, 8)), np.ones((10, 16)))
    assert p[9].opcoes[p[9].resposta] == f"pesos {pesos.shape} e saída {saida.shape}"
    # 10: a máscara de preenchimento proíbe as colunas (keys) 3 e 4 de todas as queries
    mascara = attention.padding_mask([3], 5)[0]
    assert not np.asarray(mascara)[..., 3:].any() and np.asarray(mascara)[..., :3].all()
    assert "colunas" in p[10].opcoes[p[10].resposta]
    # 11: a cabeça de key/value da query 13 com 32 queries e 8 keys/values
    assert attention.kv_head_of_query(32, 8)[13] == p[11].resposta
    # 12: KV cache por token, em KiB (e o erro "usou as cabeças de query")
    assert attention.kv_cache_bytes(1, 32, 8, 128, 2) / 1024 == p[12].resposta and p[12].unidade == "KiB"
    valores_errados = {e.valor for e in p[12].erros_numericos}
    assert attention.kv_cache_bytes(1, 32, 32, 128, 2) / 1024 in valores_errados
    assert attention.kv_cache_bytes(1, 32, 8, 128, 2) in valores_errados
    # 15: por blocos é exata; a linear não
    rng = np.random.default_rng(1)
    qq, kk, vv = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 2))
    exata, _ = attention.scaled_dot_product_attention(qq, kk, vv)
    assert np.allclose(efficient.blockwise_attention(qq, kk, vv, block_size=2), exata)
    assert not np.allclose(efficient.linear_attention(qq, kk, vv), exata)
    assert "blocos" in p[16].opcoes[p[16].resposta]
    # 15: o gradiente da atenção (notebook 09): só o escore de k₁ tem gradiente positivo para O₀₀
    q2, K2, V2 = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), np.array([[10.0, 0], [0, 10], [5, 5]])
    _, P2 = attention.scaled_dot_product_attention(q2, K2, V2)
    dP = np.array([[1.0, 0.0]]) @ V2.T
    dS = P2 * (dP - (dP * P2).sum(axis=-1, keepdims=True))
    assert [int(x > 0) for x in dS[0]] == [1, 0, 0] and "k₁" in p[15].opcoes[p[15].resposta]
    # 17: o fator da softmax online quando o máximo passa de 3 para 5
    assert p[17].resposta == pytest.approx(math.exp(3 - 5), abs=1e-12)
    z1 = np.array([1.0, 3.0])
    assert np.exp(z1 - 3).sum() * p[17].resposta == pytest.approx(np.exp(z1 - 5).sum())
    # 18: a linear causal é uma RNN (estado fixo)
    assert "RNN" in p[18].opcoes[p[18].resposta]
    # 19: a matriz de pesos n × n; os valores errados conhecidos são as contas que eles dizem ser
    assert (16384 / 4096) ** 2 == p[19].resposta
    errados = {e.equivoco: e.valor for e in p[19].erros_numericos}
    assert errados["cresce como n"] == 16384 / 4096 and errados["cúbico"] == (16384 / 4096) ** 3
    assert errados["o quadrado como o dobro"] == 2 * 16384 / 4096
    n_log_n = (16384 * math.log2(16384)) / (4096 * math.log2(4096))           # 4 · 14/12 ≈ 4,7 (não 8)
    assert errados["crescimento n·log n"] == pytest.approx(n_log_n) and "4 · 14/12 ≈ 4,7" in next(
        e.explicacao for e in p[19].erros_numericos if e.equivoco == "crescimento n·log n")
    # 5: 13/36 é o erro de quem divide sem exponenciar, reconhecido com as duas casas que a pergunta pede
    assert next(e for e in p[5].erros_numericos if e.valor == 0.3611).casas == p[5].casas == 2


@pytest.mark.parametrize(
    "mexer, trecho",
    [
        (lambda b: b["perguntas"][0].update(resposta="z"), "não é uma das opções"),
        (lambda b: b["perguntas"][0]["erros"].pop("a"), "faltam ['a']"),
        (lambda b: b["perguntas"][1].update(numero=5), "deveria ser 2"),
        (lambda b: b["perguntas"][2]["erros"].append({"valor": 16, "explicacao": "x"}), "dentro da tolerância"),
        (lambda b: b["perguntas"][2]["erros"].append({"valor": 255.98, "explicacao": "x"}), "se sobrepõem"),
        (lambda b: b["perguntas"][2].update(casas=-1), "'casas' deve ser um inteiro"),
        (lambda b: b["perguntas"][0]["erros"].update(a={"explicacao": "x"}), "'equivoco' precisa ser um texto"),
        (lambda b: b["perguntas"][2].update(tipo="aberta"), "tipo 'aberta' desconhecido"),
        (lambda b: b["perguntas"][0].update(enunciado=""), "'enunciado' precisa ser um texto"),
        (lambda b: b.update(perguntas=[]), "lista 'perguntas' não vazia"),
    ],
)
def test_o_carregador_recusa_um_quiz_inconsistente(mexer, trecho):
    bruto = json.loads((data.PASTA_DADOS / data.ARQUIVO_QUIZ).read_text(encoding="utf-8"))
    assert len(data.perguntas_do_quiz(bruto)) == len(PERGUNTAS)
    estragado = copy.deepcopy(bruto)
    mexer(estragado)
    with pytest.raises(ValueError, match=re.escape(trecho)):
        data.perguntas_do_quiz(estragado)


# ---------------------------------------------------------------------------------------------
# o corretor do quiz
# ---------------------------------------------------------------------------------------------


def test_todas_certas_passa(capsys):
    ok, saida = _rodar_quiz(capsys, dict(GABARITO))
    assert ok is True
    assert f"{len(PERGUNTAS)} de {len(PERGUNTAS)}" in saida
    for p in PERGUNTAS:
        trecho = _linha(saida, p.numero)
        assert trecho.startswith(licao.OK) and p.explicacao in trecho


def test_o_esqueleto_diz_ainda_nao_respondida_em_cada_pergunta(capsys):
    ok, saida = _rodar_quiz(capsys, {p.numero: None for p in PERGUNTAS})
    assert ok is False
    for p in PERGUNTAS:
        assert f"{licao.PENDENTE} Pergunta {p.numero}: ainda não respondida." in saida
    assert f"{len(PERGUNTAS)} ainda não respondidas" in saida
    # um dicionário vazio (ou faltando perguntas) também não quebra
    ok, saida = _rodar_quiz(capsys, {})
    assert ok is False and saida.count("ainda não respondida.") == len(PERGUNTAS)


@pytest.mark.parametrize(
    "numero, letra",
    [(p.numero, letra) for p in PERGUNTAS if p.tipo == "escolha" for letra in p.erros],
)
def test_cada_opcao_errada_recebe_a_sua_explicacao(capsys, numero, letra):
    p = PERGUNTAS[numero - 1]
    respostas = dict(GABARITO)
    respostas[numero] = letra
    ok, saida = _rodar_quiz(capsys, respostas)
    assert ok is False
    trecho = _linha(saida, numero)
    assert trecho.startswith(f"{licao.ERRO} Pergunta {numero}: ({letra}) não.")
    assert p.erros[letra] in trecho
    assert f"reveja o {p.revisar}" in trecho
    # nenhuma outra explicação de erro aparece nessa pergunta
    for outra, texto in p.erros.items():
        if outra != letra:
            assert texto not in trecho
    # as outras perguntas continuam certas
    assert saida.count(licao.OK) == len(PERGUNTAS) - 1


@pytest.mark.parametrize(
    "numero, indice",
    [(p.numero, i) for p in PERGUNTAS if p.tipo == "numero" for i in range(len(p.erros_numericos))],
)
def test_cada_numero_errado_conhecido_recebe_a_sua_explicacao(capsys, numero, indice):
    p = PERGUNTAS[numero - 1]
    erro = p.erros_numericos[indice]
    ok, saida = _rodar_quiz(capsys, {numero: erro.valor})
    assert ok is False
    trecho = _linha(saida, numero)
    assert trecho.startswith(f"{licao.ERRO} Pergunta {numero}:")
    assert erro.explicacao in trecho and f"reveja o {p.revisar}" in trecho
    assert p.dica not in trecho


def test_um_numero_errado_desconhecido_recebe_a_dica(capsys):
    p = next(q for q in PERGUNTAS if q.tipo == "numero")
    _, saida = _rodar_quiz(capsys, {p.numero: 12345.678})
    trecho = _linha(saida, p.numero)
    assert "12345,7 não" in trecho and p.dica in trecho


def test_formatos_de_resposta_aceitos_e_recusados(capsys):
    escolha = next(q for q in PERGUNTAS if q.tipo == "escolha")
    numerica = next(q for q in PERGUNTAS if q.tipo == "numero")
    for variante in (escolha.resposta.upper(), f" {escolha.resposta}) ", f"({escolha.resposta})"):
        situacao, _ = licao.avaliar_resposta(escolha, variante)
        assert situacao == "certa", variante
    for variante in (numerica.resposta, str(numerica.resposta).replace(".", ","), np.float32(numerica.resposta)):
        situacao, _ = licao.avaliar_resposta(numerica, variante)
        assert situacao == "certa", variante
    situacao, mensagem = licao.avaliar_resposta(escolha, "z")
    assert situacao == "errada" and "responda com uma das letras a, b, c, d" in mensagem
    situacao, mensagem = licao.avaliar_resposta(escolha, 2)
    assert situacao == "errada" and "como texto" in mensagem
    situacao, mensagem = licao.avaliar_resposta(numerica, "dezesseis")
    assert situacao == "errada" and "a resposta é um número" in mensagem
    situacao, _ = licao.avaliar_resposta(numerica, True)
    assert situacao == "errada"


def test_entradas_estranhas_nao_quebram_o_corretor(capsys):
    ok, saida = _rodar_quiz(capsys, ["b", "c"])
    assert ok is False and "precisa ser um dicionário" in saida
    respostas = dict(GABARITO)
    respostas[99] = "a"
    ok, saida = _rodar_quiz(capsys, respostas)
    assert ok is False and "[99]" in saida and "foram ignoradas" in saida
    # chaves como texto ("3") também valem
    respostas = {str(n): r for n, r in GABARITO.items()}
    ok, _ = _rodar_quiz(capsys, respostas)
    assert ok is True


def test_o_texto_do_quiz_mostra_as_perguntas_e_nao_as_respostas():
    texto = licao.texto_do_quiz()
    for p in PERGUNTAS:
        assert f"**{p.numero}.** {p.enunciado}" in texto
        assert p.explicacao not in texto
        for letra, opcao in p.opcoes.items():
            assert f"**{letra})** {opcao}" in texto
        for explicacao in list(p.erros.values()) + [e.explicacao for e in p.erros_numericos]:
            assert explicacao not in texto
    assert texto.count("Responda com um número") == sum(p.tipo == "numero" for p in PERGUNTAS)


# ---------------------------------------------------------------------------------------------
# o corretor do mecanismo inteiro
# ---------------------------------------------------------------------------------------------


def _fazer_mecanismo(*, escala="d_head", dividir="certo", juntar="certo", eixo=-1, w_o=True, values="v",
                     cabecas=True, devolve_pesos=False):
    """Uma implementação do mecanismo, certa por padrão; cada opção introduz um erro conhecido."""

    def mecanismo(X, W_q, W_k, W_v, W_o, n_heads):
        n = X.shape[0]
        Q, K, V = X @ W_q, X @ W_k, X @ W_v
        h = n_heads if cabecas else 1
        d = Q.shape[1] // h
        if values == "k":
            V = K

        def div(M):
            return M.reshape(n, h, d).transpose(1, 0, 2) if dividir == "certo" else M.reshape(h, n, d)

        Qh, Kh, Vh = div(Q), div(K), div(V)
        fator = {"d_head": 1 / np.sqrt(d), "d_model": 1 / np.sqrt(X.shape[1]), "nenhuma": 1.0, "d": 1 / d}[escala]
        z = Qh @ Kh.transpose(0, 2, 1) * fator
        e = np.exp(z - z.max(axis=eixo, keepdims=True))
        pesos = e / e.sum(axis=eixo, keepdims=True)
        S = pesos @ Vh
        juntas = S.transpose(1, 0, 2).reshape(n, h * d) if juntar == "certo" else S.reshape(n, h * d)
        saida = juntas @ W_o if w_o else juntas
        return (saida, pesos) if devolve_pesos else saida

    return mecanismo


def test_mecanismo_certo_passa(capsys):
    assert licao.check_mecanismo(_fazer_mecanismo()) is True
    assert "Correto" in capsys.readouterr().out
    assert licao.check_mecanismo(_fazer_mecanismo(devolve_pesos=True)) is True


def test_mecanismo_esqueleto_nao_quebra(capsys):
    def mecanismo(X, W_q, W_k, W_v, W_o, n_heads):
        raise NotImplementedError("complete aqui")

    assert licao.check_mecanismo(mecanismo) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


@pytest.mark.parametrize(
    "opcoes, trecho",
    [
        (dict(w_o=False), "Faltou a projeção de saída"),
        (dict(cabecas=False, escala="d_head"), "Você fez uma cabeça só"),
        (dict(escala="d_model"), "não 1/√d_model"),
        (dict(escala="nenhuma"), "Faltou a escala"),
        (dict(escala="d"), "Você dividiu por d_head"),
        (dict(eixo=-2), "Softmax no eixo errado"),
        (dict(eixo=0), "Softmax no eixo das cabeças (axis=0)"),
        (dict(dividir="sem transpor", juntar="sem transpor"), "e juntou com o reshape inverso"),
        (dict(dividir="sem transpor"), "A divisão em cabeças está errada"),
        (dict(juntar="sem transpor"), "mas a junção não"),
        (dict(values="k"), "somou as **keys** ponderadas"),
    ],
)
def test_mecanismo_erros_conhecidos_tem_a_sua_explicacao(capsys, opcoes, trecho):
    assert licao.check_mecanismo(_fazer_mecanismo(**opcoes)) is False
    saida = capsys.readouterr().out
    assert trecho in saida, saida


def test_mecanismo_forma_errada_e_erro_de_forma(capsys):
    def so_as_cabecas(X, W_q, W_k, W_v, W_o, n_heads):
        return np.zeros((X.shape[0], 2))

    assert licao.check_mecanismo(so_as_cabecas) is False
    assert "deveria ter forma (3, 6), mas veio (3, 2)" in capsys.readouterr().out

    def quebra(X, W_q, W_k, W_v, W_o, n_heads):
        return W_q @ X  # (6, 6) @ (3, 6): erro de forma

    assert licao.check_mecanismo(quebra) is False
    assert "levantou ValueError" in capsys.readouterr().out


def _mecanismo_com_softmax(softmax_do_estudante):
    """O mecanismo certo, com a softmax (de escores (n_heads, n, n)) trocada pela do estudante."""
    def mecanismo(X, W_q, W_k, W_v, W_o, n_heads):
        n = X.shape[0]
        Q, K, V = (M.reshape(n, n_heads, -1).transpose(1, 0, 2) for M in (X @ W_q, X @ W_k, X @ W_v))
        pesos = softmax_do_estudante(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1]))
        return (pesos @ V).transpose(1, 0, 2).reshape(n, -1) @ W_o
    return mecanismo


def _exp_sobre_soma(z, m, eixo_da_soma=-1, keepdims=True):
    e = np.exp(z - m)
    return e / (e.sum() if eixo_da_soma is None else e.sum(axis=eixo_da_soma, keepdims=keepdims))


def _devolve_par_trocado(X, W_q, W_k, W_v, W_o, n_heads):
    saida = _fazer_mecanismo()(X, W_q, W_k, W_v, W_o, n_heads)
    return np.zeros((n_heads, X.shape[0], X.shape[0])), saida


def _raiz_de_n(X, W_q, W_k, W_v, W_o, n_heads):
    n = X.shape[0]
    Q, K, V = (M.reshape(n, n_heads, -1).transpose(1, 0, 2) for M in (X @ W_q, X @ W_k, X @ W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(n)
    e = np.exp(z - z.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True) @ V).transpose(1, 0, 2).reshape(n, -1) @ W_o


def _k_t(X, W_q, W_k, W_v, W_o, n_heads):
    n = X.shape[0]
    Q, K, V = (M.reshape(n, n_heads, -1).transpose(1, 0, 2) for M in (X @ W_q, X @ W_k, X @ W_v))
    z = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(z - z.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True) @ V).transpose(1, 0, 2).reshape(n, -1) @ W_o


def _w_transpostas(X, W_q, W_k, W_v, W_o, n_heads):
    return _fazer_mecanismo()(X, W_q.T, W_k.T, W_v.T, W_o, n_heads)


EXEMPLOS_MECANISMO = {
    "subtraiu o máximo só quando positivo (instável)": (
        _mecanismo_com_softmax(lambda z: _exp_sobre_soma(z, np.maximum(z.max(-1, keepdims=True), 0))), "negativo"),
    "sem subtrair o máximo (instável)": (_mecanismo_com_softmax(lambda z: _exp_sobre_soma(z, 0)), "estourou"),
    "subtraiu o mínimo (instável)": (_mecanismo_com_softmax(lambda z: _exp_sobre_soma(z, z.min(-1, keepdims=True))),
                                     "**mínimo**"),
    "um máximo só para o lote inteiro (instável)": (_mecanismo_com_softmax(lambda z: _exp_sobre_soma(z, z.max())),
                                                     "lote inteiro"),
    "sem W_o": (_fazer_mecanismo(w_o=False), "Faltou a projeção de saída"),
    "uma cabeça só": (_fazer_mecanismo(cabecas=False), "Você fez uma cabeça só"),
    "escala com d_model": (_fazer_mecanismo(escala="d_model"), "não 1/√d_model"),
    "sem escala": (_fazer_mecanismo(escala="nenhuma"), "Faltou a escala"),
    "÷d_head em vez de ÷√d_head": (_fazer_mecanismo(escala="d"), "Você dividiu por d_head"),
    "raiz do número de keys": (_raiz_de_n, "raiz do número de tokens"),
    "softmax no eixo errado": (_fazer_mecanismo(eixo=-2), "Softmax no eixo errado"),
    "softmax entre as cabeças": (_fazer_mecanismo(eixo=0), "axis=0"),
    "normalizou pela matriz inteira": (
        _mecanismo_com_softmax(lambda z: _exp_sobre_soma(z, z.max(-1, keepdims=True), None)), "e.sum() sem axis"),
    "faltou keepdims=True": (
        _mecanismo_com_softmax(lambda z: _exp_sobre_soma(z, z.max(-1), -1, keepdims=False)), "keepdims=True"),
    "Kh.T com três eixos": (_k_t, "inverte **todos** os eixos"),
    "dividir e juntar sem transpor": (_fazer_mecanismo(dividir="x", juntar="x"), "juntou com o reshape inverso"),
    "dividir sem transpor": (_fazer_mecanismo(dividir="x"), "A divisão em cabeças está errada"),
    "juntar sem transpor": (_fazer_mecanismo(juntar="x"), "mas a junção não"),
    "W transpostas": (_w_transpostas, "nn.Linear"),
    "soma das keys": (_fazer_mecanismo(values="k"), "somou as **keys**"),
    "par na ordem trocada": (_devolve_par_trocado, "veio em segundo lugar"),
}


@pytest.mark.parametrize("nome", licao.MECANISMO.nomes_dos_erros())
def test_mecanismo_cada_erro_nomeado_tem_um_exemplo_reconhecido(nome):
    confere_erro_nomeado(licao.MECANISMO, EXEMPLOS_MECANISMO, nome)


def test_mecanismo_a_regra_so_numpy():
    """A atenção pronta (direta, escondida numa função auxiliar ou importada dentro) é recusada com o nome da regra;
    uma softmax que o estudante escreveu, mesmo chamada softmax, não."""

    def pronta(X, W_q, W_k, W_v, W_o, n_heads):
        return attention.multi_head_attention(X, X, W_q, W_k, W_v, W_o, n_heads)

    def auxiliar(q, k, v):
        return attention.scaled_dot_product_attention(q, k, v)[0]

    def escondida(X, W_q, W_k, W_v, W_o, n_heads):
        n = X.shape[0]
        Q, K, V = (M.reshape(n, n_heads, -1).transpose(1, 0, 2) for M in (X @ W_q, X @ W_k, X @ W_v))
        return auxiliar(Q, K, V).transpose(1, 0, 2).reshape(n, -1) @ W_o

    def importada(X, W_q, W_k, W_v, W_o, n_heads):
        from helpers.attention import merge_heads, split_heads

        Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
        z = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
        e = np.exp(z - z.max(-1, keepdims=True))
        return merge_heads(e / e.sum(-1, keepdims=True) @ V) @ W_o

    for fn in (pronta, escondida, importada):
        v = corrigir(licao.MECANISMO, fn)
        assert not v.ok and v.erro == "usou uma atenção ou softmax pronta", v.mensagem
        assert "só com numpy" in v.mensagem
    assert corrigir(licao.MECANISMO, _mecanismo_com_softmax(
        lambda z: _exp_sobre_soma(z, z.max(-1, keepdims=True)))).ok
    assert not licao.SO_NUMPY.viola(_fazer_mecanismo())


def test_mecanismo_o_padrao_de_estabilidade_esta_nos_casos():
    """Os casos têm uma linha de escores muito negativos, uma muito espalhada, linhas a milhares de distância
    no mesmo lote (na mesma cabeça) e float32; e o caso n = n_heads = d_head em que o keepdims esquecido roda."""
    casos = licao.MECANISMO.casos()
    linhas = []
    for caso in casos:
        e = caso.entradas
        n, h = e["X"].shape[0], e["n_heads"]
        Q, K = (np.asarray(e["X"] @ e[w], dtype=float).reshape(n, h, -1).transpose(1, 0, 2) for w in ("W_q", "W_k"))
        z = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
        linhas.append((caso, z))
    assert any(z.shape[-1] == 3 and np.allclose(z[0, 0], [-1000, -1001, -1002]) for _c, z in linhas)
    assert any(z.shape[-1] == 3 and np.allclose(z[1, 1], [-1000, 0, 1000]) for _c, z in linhas)
    assert any((z.max(axis=-1).max(axis=-1) - z.max(axis=-1).min(axis=-1) >= 2900).any() for _c, z in linhas)
    assert any(c.entradas["X"].dtype == np.float32 and np.abs(z).max() > 89 for c, z in linhas)
    assert any(c.entradas["X"].shape[0] == c.entradas["n_heads"] == z.shape[-1] == 2 for c, z in linhas)


# ---------------------------------------------------------------------------------------------
# a figura-resumo e o notebook
# ---------------------------------------------------------------------------------------------


def _exemplo_da_secao_1():
    X = np.array([[1.0, 0.0, 0.3, -0.5], [0.0, 1.0, -0.2, 0.8], [0.5, 0.5, 0.9, 0.1]])
    rng = np.random.default_rng(0)
    copia_2 = np.eye(4, 2)
    W_q = np.hstack([copia_2, rng.normal(size=(4, 2))])
    W_k = np.hstack([copia_2, rng.normal(size=(4, 2))])
    W_v = np.hstack([10 * copia_2, rng.normal(size=(4, 2))])
    W_o = rng.normal(size=(4, 4))
    return X, W_q, W_k, W_v, W_o


def test_o_exemplo_da_secao_1_contem_os_exemplos_1_e_2():
    X, W_q, W_k, W_v, W_o = _exemplo_da_secao_1()
    Qh, Kh, Vh = (attention.split_heads(X @ w, 2) for w in (W_q, W_k, W_v))
    saida_h, pesos = attention.scaled_dot_product_attention(Qh, Kh, Vh)
    assert np.allclose(pesos[0, 0], [0.4555, 0.2246, 0.3199], atol=5e-5)
    assert np.allclose(saida_h[0, 0], [6.15, 3.85], atol=0.01)


def test_figura_mecanismo_mostra_formas_e_pesos_de_verdade():
    import matplotlib.pyplot as plt

    X, W_q, W_k, W_v, W_o = _exemplo_da_secao_1()
    fig = licao.figura_mecanismo(X, W_q, W_k, W_v, W_o, 2)
    try:
        textos = [t.get_text() for ax in fig.axes for t in ax.texts]
        tudo = "\n".join(textos)
        assert "(n, d_model)\n= (3, 4)" in tudo and "(n, n) = (3, 3)" in tudo and "(n, d_out) = (3, 4)" in tudo
        _, pesos = attention.multi_head_attention(X, X, W_q, W_k, W_v, W_o, 2)
        mapa = fig.axes[-1]
        numeros = [float(t.get_text()) for t in mapa.texts]
        assert np.allclose(numeros, pesos[0].ravel(), atol=5e-4)
        assert numeros[:3] == [0.456, 0.225, 0.32]
        fig2 = licao.figura_mecanismo(X, W_q, W_k, W_v, W_o, 2, cabeca=1)
        numeros2 = [float(t.get_text()) for t in fig2.axes[-1].texts]
        assert np.allclose(numeros2, pesos[1].ravel(), atol=5e-4)
        plt.close(fig2)
    finally:
        plt.close(fig)


def _celulas():
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


def _fonte(c):
    return "".join(c["source"])


def test_o_exercicio_do_mecanismo_diz_a_regra_e_a_segunda_dica_nao_traz_o_codigo_da_solucao():
    fontes = [_fonte(c) for c in _celulas()]
    i = next(i for i, f in enumerate(fontes) if "def mecanismo(" in f and "NotImplementedError" in f)
    enunciado, dicas = fontes[i - 1], next(f for f in fontes[i:] if "Dica 2" in f)
    assert "só com numpy" in enunciado and "estável" in enunciado and "float32" in enunciado
    dica_2 = dicas[dicas.index("Dica 2"):dicas.index("✅ Solução")]
    solucao = dicas[dicas.index("```python"):]
    linhas = [linha.split("#")[0].strip() for linha in solucao.splitlines()]
    for linha in (x for x in linhas if len(x) > 12 and not x.startswith(("def ", "return", "```"))):
        assert linha not in dica_2, linha
    for trecho in ("reshape(n, n_heads", "transpose(1, 0, 2)", "keepdims=True)", "Kh.transpose(0, 2, 1)"):
        assert trecho not in dica_2, trecho


def test_o_esqueleto_do_notebook_tem_uma_chave_none_por_pergunta():
    esqueleto = next(_fonte(c) for c in _celulas() if c["cell_type"] == "code" and _fonte(c).startswith("respostas = {"))
    ambiente: dict = {}
    exec(esqueleto, ambiente)
    assert ambiente["respostas"] == {p.numero: None for p in PERGUNTAS}


def _opcional(c) -> bool:
    return "aprofundamento" in c["metadata"].get("tags", [])


def test_o_notebook_mostra_as_perguntas_a_partir_dos_dados():
    codigo = [_fonte(c) for c in _celulas() if c["cell_type"] == "code"]
    assert any("licao.quiz_clicavel(" in c for c in codigo) and any("licao.quiz_em_html(" in c for c in codigo)
    markdown = "\n".join(_fonte(c) for c in _celulas() if c["cell_type"] == "markdown")
    for p in PERGUNTAS:  # os enunciados não são copiados à mão no notebook (não têm como divergir)
        assert p.enunciado not in markdown


def test_o_nucleo_tem_o_quiz_curto_e_o_resto_fica_no_bloco_opcional():
    """O núcleo mostra as perguntas de PERGUNTAS_DO_NUCLEO (sem as que repetem os equívocos da seção 3); as
    outras ficam num bloco opcional, clicáveis, com o caminho digitado do quiz inteiro."""
    ambiente: dict = {}
    quizzes = []
    for c in _celulas():
        if c["cell_type"] == "code" and "licao.quiz_clicavel(" in _fonte(c):
            exec(_fonte(c).split("\n")[0], ambiente)  # a lista de perguntas, na primeira linha
            quizzes.append((_opcional(c), _fonte(c)))
    nucleo = [n for opcional, _f in quizzes if not opcional for n in ambiente["perguntas_do_nucleo"]]
    assert [o for o, _f in quizzes] == [False, True]
    assert tuple(ambiente["perguntas_do_nucleo"]) == licao.PERGUNTAS_DO_NUCLEO == tuple(nucleo)
    assert tuple(ambiente["perguntas_opcionais"]) == licao.PERGUNTAS_OPCIONAIS
    assert sorted(licao.PERGUNTAS_DO_NUCLEO + licao.PERGUNTAS_OPCIONAIS) == [p.numero for p in PERGUNTAS]
    assert 6 <= len(licao.PERGUNTAS_DO_NUCLEO) <= 8
    # as que repetem um equívoco da seção 3 (2 = equívoco 1, 4 = 4, 6 = 2, 8 = 5) não estão no quiz curto
    assert not {2, 4, 6, 8} & set(licao.PERGUNTAS_DO_NUCLEO)
    # no quiz curto, etapas diferentes: nenhuma repetida
    notebooks = [p.notebook for p in licao.selecionar_perguntas(licao.PERGUNTAS_DO_NUCLEO)]
    assert len(set(notebooks)) == len(notebooks)
    # o caminho digitado (o quiz inteiro) e o exercício do mecanismo são opcionais
    for c in _celulas():
        if c["cell_type"] == "code" and ("licao.check_quiz(" in _fonte(c) or "licao.check_mecanismo(" in _fonte(c)):
            assert _opcional(c), _fonte(c)


def _solucoes():
    return solucoes_do_notebook(NOTEBOOK)


def test_as_solucoes_do_notebook_passam(capsys):
    blocos = _solucoes()
    assert len(blocos) == 4
    ambiente = {"np": np, "licao": licao}
    exec(blocos[0], ambiente)                       # o quiz curto do núcleo
    assert ambiente["ok"] is True
    assert tuple(ambiente["respostas_do_nucleo"]) == licao.PERGUNTAS_DO_NUCLEO
    exec(blocos[1], ambiente)                       # o resto do quiz
    assert ambiente["ok"] is True
    assert tuple(ambiente["respostas_opcionais"]) == licao.PERGUNTAS_OPCIONAIS
    capsys.readouterr()
    exec(blocos[2], ambiente)                       # o gabarito inteiro, na rota digitada
    assert ambiente["ok"] is True and "Você passou pelo mecanismo inteiro" in capsys.readouterr().out
    # o gabarito inteiro é mesmo a junção das duas soluções
    assert ambiente["respostas"] == {**ambiente["respostas_do_nucleo"], **ambiente["respostas_opcionais"]}
    exec(blocos[3], ambiente)
    assert licao.check_mecanismo(ambiente["mecanismo"]) is True
    assert "Correto" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# respostas numéricas: arredondamento até a precisão pedida, vírgula e unidades
# ---------------------------------------------------------------------------------------------


def _pergunta(trecho):
    return next(p for p in PERGUNTAS if trecho in p.enunciado)


@pytest.mark.parametrize("resposta", [0.67, "0,67", "0.67", 0.665, "0,665", 0.6652, np.float32(0.67), "  0,67 "])
def test_arredondar_ate_a_precisao_pedida_passa(resposta):
    # o peso é 0,66524…; a pergunta pede duas casas: 0,67 (e 0,665, mais preciso) passam — 0,67 − 0,665 não é
    # mais recusado por um acidente do ponto flutuante
    assert licao.avaliar_resposta(_pergunta("somamos 10"), resposta)[0] == "certa"


@pytest.mark.parametrize("resposta", [0.7, "0,66", 0.6, 1, "0,6653"])
def test_arredondar_errado_ou_com_menos_casas_nao_passa(resposta):
    assert licao.avaliar_resposta(_pergunta("somamos 10"), resposta)[0] == "errada"


@pytest.mark.parametrize(("resposta", "trecho"), [
    (0.7, "Arredonde para duas casas: 0,665… → 0,67."),
    ("0,7", "Arredonde para duas casas: 0,665… → 0,67."),
    ("0,66", "cortou as casas em vez de arredondar. Com duas casas: 0,665… → 0,67."),
])
def test_a_ideia_certa_mal_arredondada_recebe_o_arredondamento_e_nao_a_dica(resposta, trecho):
    p = _pergunta("somamos 10")
    situacao, mensagem = licao.avaliar_resposta(p, resposta)
    assert situacao == "errada" and trecho in mensagem and p.dica not in mensagem, mensagem
    situacao, mensagem = licao.avaliar_resposta(_pergunta("softmax online"), "0,14")
    assert situacao == "errada" and "Arredonde para três casas: 0,1353… → 0,135." in mensagem
    # um valor errado conhecido continua com o seu equívoco, e um número longe recebe a dica
    assert "Equívoco: dividiu pela soma" in licao.avaliar_resposta(p, 0.5)[1]
    assert p.dica in licao.avaliar_resposta(p, "0,25")[1]


@pytest.mark.parametrize("resposta", [128, "128", "128 KiB", "128KiB", "128 kib", "131072 bytes", "131 072 bytes",
                                      "0,125 MiB", 128.0])
def test_a_unidade_pedida_e_aceita(resposta):
    situacao, mensagem = licao.avaliar_resposta(_pergunta("em KiB"), resposta)
    assert situacao == "certa", mensagem


def test_unidade_decimal_e_unidade_desconhecida_recebem_explicacao():
    p = _pergunta("em KiB")
    situacao, mensagem = licao.avaliar_resposta(p, "128 KB")
    assert situacao == "errada" and "KB é decimal" in mensagem and "1024" in mensagem
    situacao, mensagem = licao.avaliar_resposta(p, "128 kb")       # b minúsculo: kilobits
    assert situacao == "errada" and "kilobits" in mensagem and "128 kb = 15,625 KiB" in mensagem, mensagem
    situacao, mensagem = licao.avaliar_resposta(p, "128 metros")
    assert situacao == "errada" and "não entendi a unidade 'metros'" in mensagem
    situacao, mensagem = licao.avaliar_resposta(_pergunta("Quantas vezes maior"), "16 vezes")
    assert situacao == "certa", mensagem


@pytest.mark.parametrize(("trecho", "resposta", "erro"), [
    ("em KiB", "131 072 bytes", None),                        # milhares com espaço: o leitor da coleção
    ("em KiB", "131072 bytes", None),
    ("em KiB", "131 072", "bytes no lugar de KiB"),           # o mesmo número, sem a unidade: o equívoco
    ("em KiB", "131072", "bytes no lugar de KiB"),
    ("em KiB", "131.072", "tipo"),                            # ponto de milhar ou decimal? pergunta-se
    ("em KiB", "128 KB", "unidade decimal no lugar da binária (KB ≠ KiB)"),
    ("em KiB", "128 kb", "b minúsculo é bit (kb ≠ KiB)"),
    ("em KiB", "128 metros", "tipo"),
    ("somamos 10", (0, 67), "tipo"),                          # 0,67 escrito em Python: a tupla (0, 67)
    ("somamos 10", "0,7", "arredondou com menos casas que as pedidas"),
    ("somamos 10", "0,66", "cortou as casas em vez de arredondar"),
    ("somamos 10", "0,25", "valor"),                          # nenhum equívoco explica: a dica
    ("softmax online", "7.389", "tipo"),
    ("Quantas vezes maior", "4,7", "crescimento n·log n"),
    ("Quantas vezes maior", "8", "o quadrado como o dobro"),
    ("Quantas vezes maior", "16 vezes", None),
])
def test_o_veredito_de_cada_resposta_diz_certa_equivoco_ou_formato(trecho, resposta, erro):
    v = licao.corrigir_resposta(_pergunta(trecho), resposta)
    assert v.ok is (erro is None) and v.erro == erro, v.mensagem
    if erro == "tipo":  # um problema de formato não revela nada
        assert "Equívoco" not in v.mensagem and "certo" not in v.mensagem and "Dica" not in v.mensagem
    elif erro not in (None, "valor"):
        assert v.mensagem.startswith(licao.ERRO) and (f"Equívoco: {erro}." in v.mensagem or "Quase" in v.mensagem)
    # avaliar_resposta é a mesma correção
    assert licao.avaliar_resposta(_pergunta(trecho), resposta) == (
        "certa" if v.ok else "errada", v.mensagem)


def test_os_equivocos_de_qualquer_pergunta_numerica_estao_nos_erros_do_quiz():
    nomes = licao.QUIZ.nomes_dos_erros()
    gerais = list(licao.quiz.EQUIVOCOS_GERAIS)
    assert nomes[-len(gerais):] == gerais and len(set(nomes)) == len(nomes)


@pytest.mark.parametrize("resposta", ["128 MiB", "128 GiB", "128 bytes", "128,0 MiB"])
def test_o_numero_certo_noutra_unidade_e_dito_assim_e_nao_como_outro_erro(resposta):
    """128 MiB = 131 072 KiB bate com o erro "bytes no lugar de KiB" só por acaso: o equívoco é a unidade."""
    p = next(q for q in PERGUNTAS if q.numero == 12)
    v = licao.quiz.corrigir_resposta(p, resposta)
    assert v.erro == licao.quiz.OUTRA_UNIDADE and "128 é o número certo, mas em KiB" in v.mensagem, v.mensagem
    assert "número de **bytes**" not in v.mensagem


@pytest.mark.parametrize(("resposta", "erro"), [("128 KB", "unidade decimal no lugar da binária (KB ≠ KiB)"),
                                                ("128 kb", "b minúsculo é bit (kb ≠ KiB)"), ("128 KiB", None),
                                                ("131072 bytes", None), ("0,125 MiB", None)])
def test_as_outras_unidades_continuam_com_o_seu_diagnostico(resposta, erro):
    p = next(q for q in PERGUNTAS if q.numero == 12)
    assert licao.quiz.corrigir_resposta(p, resposta).erro == erro


def test_um_indice_com_casas_nao_vira_o_inteiro():
    p = _pergunta("query 13")
    assert licao.avaliar_resposta(p, 3)[0] == "certa" and licao.avaliar_resposta(p, "3,0")[0] == "certa"
    situacao, mensagem = licao.avaliar_resposta(p, 3.25)
    assert situacao == "errada" and "divisão comum" in mensagem


def test_cada_erro_numerico_e_cada_opcao_errada_dizem_o_equivoco():
    for p in PERGUNTAS:
        if p.tipo == "escolha":
            for letra, equivoco in p.equivocos.items():
                situacao, mensagem = licao.avaliar_resposta(p, letra)
                assert situacao == "errada" and f"Equívoco: {equivoco}." in mensagem and p.revisar in mensagem
        else:
            for erro in p.erros_numericos:
                situacao, mensagem = licao.avaliar_resposta(p, erro.valor)
                assert situacao == "errada" and f"Equívoco: {erro.equivoco}." in mensagem, (p.numero, mensagem)


# ---------------------------------------------------------------------------------------------
# o quiz clicável
# ---------------------------------------------------------------------------------------------


def test_o_quiz_clicavel_corrige_cada_clique_na_hora():
    import ipywidgets as W

    quiz = licao.quiz_clicavel()
    assert set(quiz.controles) == {p.numero for p in PERGUNTAS}
    assert "0 de 19" in quiz.placar.value
    escolha = next(p for p in PERGUNTAS if p.tipo == "escolha")
    radio = quiz.controles[escolha.numero]
    assert isinstance(radio, W.RadioButtons) and radio.value is None
    errada = next(iter(escolha.erros))
    radio.value = errada                                                   # um clique numa opção errada
    assert quiz.situacoes[escolha.numero] == "errada"
    assert "Equívoco" in quiz.retornos[escolha.numero].value and "reveja" in quiz.retornos[escolha.numero].value
    radio.value = escolha.resposta                                         # e na certa
    assert quiz.situacoes[escolha.numero] == "certa" and "certo!" in quiz.retornos[escolha.numero].value
    caixa = quiz.controles[_pergunta("somamos 10").numero]
    assert isinstance(caixa, W.Text) and caixa.continuous_update is False
    caixa.value = "0,67"                                                   # Enter numa caixa de texto
    assert quiz.situacoes[_pergunta("somamos 10").numero] == "certa"
    assert "2 de 19" in quiz.placar.value


def test_o_quiz_clicavel_inteiro_certo_e_o_html_sem_respostas():
    quiz = licao.quiz_clicavel()
    for p in PERGUNTAS:
        assert quiz.responder(p.numero, p.resposta) == "certa"
    assert "19 de 19" in quiz.placar.value and "passou" in quiz.placar.value
    html = licao.quiz_em_html().data
    for p in PERGUNTAS:
        assert p.explicacao[:40] not in html
    assert "<details>" in html and html.count("<p><b>") == len(PERGUNTAS)


# ---------------------------------------------------------------------------------------------
# o painel do mecanismo inteiro, a previsão e a figura
# ---------------------------------------------------------------------------------------------


def test_o_painel_comeca_nos_exemplos_e_bate_com_uma_conta_independente():
    p = licao.painel_mecanismo()
    assert p.estado["n_heads"] == 2 and p.estado["d_head"] == 2
    assert np.allclose(p.estado["pesos_q0"], [0.4555, 0.2246, 0.3199], atol=1e-4)
    X, W_q, W_k, W_v, W_o = licao.exemplo_da_revisao()
    for h, qx, ky in ((1, 0.3, -1.0), (4, -1.5, 2.0), (2, 0.0, 0.0)):
        p.definir(n_heads=h, q_x=qx, k_y=ky)
        Q, K = X @ W_q, X @ W_k
        Q[0, 0] = qx
        K[2, 1] = ky
        K[2, 0] = p.controles["k_x"].value
        Q[0, 1] = p.controles["q_y"].value
        d = 4 // h
        for c in range(h):                                   # cada cabeça, à mão
            cols = slice(c * d, (c + 1) * d)
            z = Q[:, cols] @ K[:, cols].T / np.sqrt(d)
            w = np.exp(z - z.max(axis=1, keepdims=True))
            w /= w.sum(axis=1, keepdims=True)
            assert np.allclose(p.estado["pesos"][c], w)
        assert p.estado["pesos"].shape == (h, 3, 3) and p.estado["saida"].shape == (3, 4)


def test_o_painel_tem_os_controles_pedidos_e_a_figura_estatica():
    p = licao.painel_mecanismo()
    assert set(p.controles) == {"q_x", "q_y", "k_x", "k_y", "n_heads"}
    assert list(p.controles["n_heads"].options) == [1, 2, 4]
    assert p.figura_estatica().data[:4] == b"\x89PNG"


def test_a_figura_estatica_esconde_as_cabecas_que_nao_existem_e_o_painel_continua_igual():
    import io

    from PIL import Image

    p = licao.painel_mecanismo()                       # duas cabeças: os quadros das cabeças 2 e 3 ficam vazios
    vivo_antes = p.imagem.value
    estatica = np.asarray(Image.open(io.BytesIO(p.figura_estatica().data)).convert("L")).astype(int)
    vivo = np.asarray(Image.open(io.BytesIO(vivo_antes)).convert("L")).astype(int)
    assert estatica.shape == vivo.shape and (estatica != vivo).mean() > 0.005   # os quadros vazios sumiram
    assert all(ax.get_visible() for ax, *_ in p.figura.cabecas)                   # e voltam para o painel vivo
    p.definir(n_heads=4)
    p.definir(n_heads=2)
    depois = np.asarray(Image.open(io.BytesIO(p.imagem.value)).convert("L")).astype(int)
    assert (depois == vivo).all()                                                 # o painel vivo não mudou
    # com quatro cabeças, a figura estática é a do painel (o desenho completo só põe as bordas dos eixos por cima)
    p.definir(n_heads=4)
    estatica4 = np.asarray(Image.open(io.BytesIO(p.figura_estatica().data)).convert("RGB")).astype(int)
    vivo4 = np.asarray(Image.open(io.BytesIO(p.imagem.value)).convert("RGB")).astype(int)
    assert (np.abs(estatica4 - vivo4).sum(axis=-1) > 30).mean() < 0.01


def test_as_fronteiras_das_cabecas_sao_desenhadas_por_cima_de_q_e_de_k():
    """Na imagem que o painel mostra, a fronteira entre as cabeças (uma linha preta em x = 1,5 com duas
    cabeças, em x = 0,5, 1,5 e 2,5 com quatro) aparece por cima das células de Q e de K, depois de mexer."""
    p = licao.painel_mecanismo()
    for n_heads, fronteiras in ((2, [1.5]), (4, [0.5, 1.5, 2.5]), (2, [1.5])):
        p.definir(n_heads=n_heads, q_x=-1.7)
        pixels = np.asarray(p.canvas.buffer_rgba())
        altura = pixels.shape[0]
        for nome in ("Q", "K"):
            ax, *_resto = p.figura.matrizes[nome]
            for x in (0.5, 1.5, 2.5):
                px, py = ax.transData.transform((x, 1.3))  # entre os números das linhas 1 e 2
                cor = pixels[int(round(altura - py)), int(round(px)), :3].astype(int)
                preta = cor.max() < 80
                assert preta == (x in fronteiras), (nome, n_heads, x, cor)


def test_o_mapa_das_matrizes_com_sinal_e_divergente_e_legivel():
    p = licao.painel_mecanismo()
    _ax, img, _titulo, _linhas = p.figura.matrizes["V"]
    assert img.get_cmap().name == licao.MAPA_DIVERGENTE == "RdBu_r"


@pytest.mark.parametrize("previsao", [0.40, "0,40", "0,4", "0.40", 0.401, "0,4011", "40%", "40 %"])
def test_previsao_k3_esticada_aceita_o_peso_escrito_de_varios_jeitos(previsao):
    from helpers.corretor import corrigir_previsao

    assert corrigir_previsao(licao.PREVISAO_K3, previsao).ok, previsao


@pytest.mark.parametrize(("digitado", "erro"), [
    ("0,32", "o cosseno no lugar do produto escalar"),
    ("0,64", "o peso dobra com o escore"),
    ("0,46", "o peso antigo de k₁"),
    ("0,42", "sem a escala √d"),
    ("0,5", "o empate leva metade"),
    ("50%", "o empate leva metade"),
    ("0,25", "valor"),
])
def test_previsao_k3_esticada_nomeia_cada_equivoco(digitado, erro):
    """Como o estudante escreve na caixa: cada erro típico recebe o seu nome, e o veredito revela a resposta."""
    caixa = licao.prever_k3_esticada()
    assert caixa.conferir(digitado) is False and caixa.conferida
    assert caixa.veredito.erro == erro, caixa.veredito.mensagem
    assert "A resposta: 0,401." in caixa.veredito.mensagem      # vírgula decimal na frase
    assert caixa.entrada.disabled                                 # a primeira previsão legível é a que vale


@pytest.mark.parametrize("digitado", ["", "   ", "quarenta", "0,4,1"])
def test_previsao_k3_esticada_um_erro_de_digitacao_nao_revela(digitado):
    caixa = licao.prever_k3_esticada()
    assert caixa.conferir(digitado) is False and not caixa.conferida
    assert "0,401" not in caixa.mensagem.value and "0.401" not in caixa.mensagem.value
    assert caixa.conferir("0,40") is True and "previu certo" in caixa.mensagem.value


def test_previsao_k3_esticada_os_erros_sao_distintos_e_o_exemplo_e_legivel():
    from helpers.corretor import corrigir_previsao
    from helpers.previsao import ler_digitado

    prev = licao.PREVISAO_K3
    for erro in prev.erros:
        v = corrigir_previsao(prev, round(erro.resposta(), 2))
        assert not v.ok and v.erro == erro.nome, v.mensagem
    # o exemplo da caixa é uma previsão legível, que não é a resposta nem um dos erros típicos
    assert corrigir_previsao(prev, ler_digitado(prev.exemplo)).erro == "valor"
    assert corrigir_previsao(prev, None).erro == "pendente"


def test_previsao_k3_esticada_e_o_que_o_painel_e_a_conta_mostram():
    p = licao.painel_mecanismo()
    p.definir(k_x=1.0, k_y=1.0)
    certo = licao.PREVISAO_K3.certo()
    assert p.estado["pesos_q0"][2] == pytest.approx(certo) and p.estado["pesos_q0"][0] == pytest.approx(certo)
    K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert attention.softmax(K @ np.array([1.0, 0.0]) / np.sqrt(2))[2] == pytest.approx(certo)
    # as pistas cobrem a resposta e o outro peso da linha, que a entregaria por subtração
    assert {"0,401", "0.401", "0,198", "0.198"} <= set(licao.PREVISAO_K3.pistas_da_resposta())


def test_o_notebook_usa_a_caixa_antes_do_painel_e_revela_so_no_bloco():
    fontes = [_fonte(c) for c in _celulas()]
    caixa = next(i for i, f in enumerate(fontes) if "licao.prever_k3_esticada()" in f)
    painel = next(i for i, f in enumerate(fontes) if "licao.painel_mecanismo(" in f)
    revelacao = next(i for i, f in enumerate(fontes) if "sua_previsao.revelar()" in f)
    assert caixa < painel < revelacao
    assert "K_longa" in fontes[revelacao]


def test_a_figura_mostra_a_forma_inteira_de_q_que_a_celula_imprime():
    X, W_q, W_k, W_v, W_o = licao.exemplo_da_revisao()
    fig = licao.figura_mecanismo(X, W_q, W_k, W_v, W_o, 2)
    textos = [t.get_text() for t in fig.axes[0].texts]
    assert any(t.startswith("Q = X W_q: (3, 4)") and "por cabeça: (3, 2)" in t for t in textos), textos


def test_uma_parte_do_quiz_clicavel_digitado_e_em_texto():
    nucleo = licao.PERGUNTAS_DO_NUCLEO
    quiz = licao.quiz_clicavel(nucleo)
    assert tuple(quiz.controles) == nucleo and f"0 de {len(nucleo)}" in quiz.placar.value
    assert f"mostrando {len(nucleo)} de {len(nucleo)} perguntas" in quiz.mostrando.value
    for n in nucleo:
        assert quiz.responder(n, GABARITO[n]) == "certa"
    assert f"{len(nucleo)} de {len(nucleo)}" in quiz.placar.value and "Todas certas" in quiz.placar.value
    assert "mecanismo inteiro" not in quiz.placar.value
    # o filtro do resto mostra só as perguntas opcionais de um notebook
    resto = licao.quiz_clicavel(licao.PERGUNTAS_OPCIONAIS)
    resto.filtro.value = "10"
    visiveis = [n for n, b in resto.blocos.items() if b.layout.display != "none"]
    assert visiveis == [p.numero for p in PERGUNTAS if p.notebook == "10" and p.numero in licao.PERGUNTAS_OPCIONAIS]
    # cada bloco tem a classe com o seu número (os testes de navegador acham a pergunta por ela)
    assert all(f"quiz-pergunta-{n}" in b._dom_classes for n, b in quiz.blocos.items())
    # em texto
    html = licao.quiz_em_html(nucleo).data
    assert html.count("<p><b>") == len(nucleo)
    texto = licao.texto_do_quiz(licao.PERGUNTAS_OPCIONAIS)
    assert all(f"**{n}.**" in texto for n in licao.PERGUNTAS_OPCIONAIS) and "**1.**" not in texto


def test_o_corretor_digitado_corrige_so_a_parte_pedida(capsys):
    nucleo = licao.PERGUNTAS_DO_NUCLEO
    ok, saida = True, ""
    ok = licao.check_quiz({n: GABARITO[n] for n in nucleo}, perguntas=nucleo)
    saida = capsys.readouterr().out
    assert ok is True and f"{len(nucleo)} de {len(nucleo)}!" in saida and saida.count("Pergunta ") == len(nucleo)
    # o gabarito inteiro, corrigido só no núcleo: as outras são avisadas, não corrigidas
    ok = licao.check_quiz(dict(GABARITO), perguntas=nucleo)
    saida = capsys.readouterr().out
    assert ok is True and "não fazem parte desta correção" in saida
    # uma pendente aparece como pendente
    ok = licao.check_quiz({}, perguntas=[3])
    assert ok is False and "Pergunta 3: ainda não respondida" in capsys.readouterr().out


@pytest.mark.parametrize("perguntas", [[0], [20], [], "1, 5", [1.5], [True], 7])
def test_uma_selecao_de_perguntas_invalida_e_recusada_em_portugues(perguntas):
    with pytest.raises(ValueError, match="`perguntas` deve"):
        licao.selecionar_perguntas(perguntas)


def test_o_filtro_do_quiz_mostra_so_um_notebook():
    quiz = licao.quiz_clicavel()
    assert "mostrando 19 de 19" in quiz.mostrando.value
    quiz.filtro.value = "07"
    visiveis = [n for n, b in quiz.blocos.items() if b.layout.display != "none"]
    assert visiveis == [p.numero for p in PERGUNTAS if p.notebook == "07"] and len(visiveis) == 3
    assert "mostrando 3 de 19 perguntas, notebook 07" in quiz.mostrando.value
    quiz.filtro.value = "todos"
    assert all(b.layout.display != "none" for b in quiz.blocos.values())


def test_o_painel_redesenha_so_o_que_muda_e_da_a_mesma_figura():
    """X e V ficam no fundo (nenhum controle os muda): depois de mover tudo e voltar, a imagem é a do começo."""
    import io

    from PIL import Image

    p = licao.painel_mecanismo()
    inicial = np.asarray(Image.open(io.BytesIO(p.imagem.value)).convert("RGB")).astype(int)
    p.definir(n_heads=4, q_x=-1.0, k_y=2.0)
    movida = np.asarray(Image.open(io.BytesIO(p.imagem.value)).convert("RGB")).astype(int)
    p.definir(n_heads=2, q_x=1.0, k_y=0.5)
    de_volta = np.asarray(Image.open(io.BytesIO(p.imagem.value)).convert("RGB")).astype(int)
    assert np.abs(movida - inicial).max() > 0 and np.array_equal(de_volta, inicial)


def test_o_painel_nao_escreve_menos_zero():
    """Um escore como −0,04 aparece como "0.00", e não "-0.00" (com 4 cabeças e q = (−1,2; 0,7), há vários)."""
    import re

    p = licao.painel_mecanismo()
    p.definir(n_heads=4, q_x=-1.2, q_y=0.7, k_y=1.5)
    celulas = re.findall(r"<td[^>]*>([^<]*)</td>", p.texto.value)
    assert len(celulas) > 100 and not any(re.fullmatch(r"-0\.0+", c) for c in celulas), celulas


def test_os_numeros_do_painel_estao_no_html_e_nao_na_figura():
    """Os números do mecanismo (X, Q, K, V, pesos e escores de cada cabeça, saída) vão em tabelas HTML, que se
    copiam e um leitor de tela lê; a figura não tem um texto por célula."""
    p = licao.painel_mecanismo()
    p.definir(n_heads=2)
    for titulo in ("<b>X</b>", ">Q</b>", ">K</b>", ">V</b>", "cabeça 0: pesos", "cabeça 1: escores z", ">saída</b>"):
        assert titulo in p.texto.value, titulo
    assert f"{p.estado['pesos'][0, 0, 0]:.3f}" in p.texto.value
    assert sum(len(ax.texts) for ax in p.fig.axes) == 0
