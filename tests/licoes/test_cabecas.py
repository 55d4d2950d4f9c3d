"""Notebook 08: o painel das várias cabeças, as figuras, os corretores e as soluções publicadas.

Os números do painel são comparados com uma conta independente da memória do KV cache, escrita aqui
sem ``helpers.attention`` (``2 · n_layers · n_kv_heads · n_tokens · d_head · bytes_per_value``).
"""

import inspect
import json
import math
from pathlib import Path

import ipywidgets as W
import numpy as np
import pytest

from helpers import attention, plots
from helpers.corretor import corrigir, corrigir_previsao
from helpers.licoes import cabecas as licao
from helpers.previsao import ler_digitado
from tests._corretor import confere_erro_nomeado
from tests._notebooks import solucoes_do_notebook

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "08_multi_head.ipynb"
D_MODEL, N_LAYERS = 4096, 32


def memoria(n_tokens, n_kv, d_head, bytes_per_value, n_layers=N_LAYERS):
    """A memória do KV cache, contada à parte: key e value, por camada, cabeça de key/value e token."""
    total = 0
    for _kv in ("key", "value"):
        total += n_layers * n_kv * n_tokens * d_head * bytes_per_value
    return total


def confere_estado(p):
    """O estado do painel bate com a conta independente para os valores atuais dos controles."""
    e = p.estado
    n_h, n_kv = p.controles["n_heads"].value, p.controles["n_kv_heads"].value
    n_t, b = p.controles["n_tokens"].value, p.controles["bytes_per_value"].value
    d_head = D_MODEL // n_h
    assert (e["n_heads"], e["n_kv_heads"], e["n_tokens"], e["bytes_per_value"]) == (n_h, n_kv, n_t, b)
    assert n_h % n_kv == 0 and e["d_head"] == d_head and e["grupo"] == n_h // n_kv
    assert e["bytes_escolha"] == memoria(n_t, n_kv, d_head, b)
    assert e["bytes_mha"] == memoria(n_t, n_h, d_head, b)
    assert e["bytes_mqa"] == memoria(n_t, 1, d_head, b)
    assert e["razao"] == pytest.approx(n_h / n_kv)
    esperado = []
    for g in range(n_kv):  # grupos de queries consecutivas
        esperado += [g] * (n_h // n_kv)
    assert list(e["mapa"]) == esperado
    assert e["tipo"] == ("MHA" if n_kv == n_h else "MQA" if n_kv == 1 else "GQA")
    return e


# --- o painel ---------------------------------------------------------------------------------------


def test_padrao_e_a_configuracao_do_notebook():
    p = licao.painel_cabecas()
    e = confere_estado(p)
    assert (e["n_heads"], e["n_kv_heads"], e["d_head"], e["n_tokens"], e["bytes_per_value"]) == (32, 8, 128, 4096, 2)
    assert e["tipo"] == "GQA" and e["grupo"] == 4 and e["razao"] == 4
    assert e["bytes_escolha"] == 512 * 2**20 and e["bytes_mha"] == 2 * 2**30 and e["bytes_mqa"] == 64 * 2**20
    assert e["bytes_por_token"] == 128 * 2**10
    texto = p.texto.value
    for trecho in ("4096 = 32 · 128", "grupo = n_heads / n_kv_heads = 4", "0–3 → 0; 4–7 → 1",
                   "2 · 32 · 8 · 4096 · 128 · 2 = 536 870 912 bytes = 512 MiB", "2.00 GiB", "1/4", "64.0 MiB"):
        assert trecho in texto, trecho
    assert list(p.controles["n_kv_heads"].options) == [1, 2, 4, 8, 16, 32]


def test_cada_controle_muda_numeros_texto_e_png_com_um_passo():
    """Como no navegador: cada controle, um passo a partir do estado atual, muda o que se vê."""
    p = licao.painel_cabecas()
    for nome in p.controles:
        c = p.controles[nome]
        png, texto, estado = p.imagem.value, p.texto.value, dict(p.estado)
        c.index = c.index + 1
        confere_estado(p)
        assert p.imagem.value != png, nome
        assert p.texto.value != texto, nome
        numeros = ("n_heads", "n_kv_heads", "n_tokens", "bytes_per_value", "bytes_escolha")
        assert any(p.estado[k] != estado[k] for k in numeros), nome


def test_n_heads_com_d_model_fixo():
    p = licao.painel_cabecas()
    p.controles["n_heads"].value = 64  # d_head cai pela metade; n_kv = 8 continua válido
    e = confere_estado(p)
    assert (e["d_head"], e["n_kv_heads"], e["grupo"]) == (64, 8, 8)
    assert e["bytes_mha"] == 2 * 2**30  # MHA: n_heads · d_head = d_model, a memória não muda
    assert e["bytes_escolha"] == 256 * 2**20
    assert list(p.controles["n_kv_heads"].options) == [1, 2, 4, 8, 16, 32, 64]


def test_opcoes_de_n_kv_sao_os_divisores_e_a_escolha_se_ajusta():
    p = licao.painel_cabecas()
    p.controles["n_heads"].value = 4  # 8 não divide 4: vai para o maior divisor ≤ 8
    assert list(p.controles["n_kv_heads"].options) == [1, 2, 4]
    assert p.controles["n_kv_heads"].value == 4 and confere_estado(p)["tipo"] == "MHA"
    p.controles["n_kv_heads"].value = 2
    p.controles["n_heads"].value = 16  # 2 divide 16: fica
    assert p.controles["n_kv_heads"].value == 2 and list(p.controles["n_kv_heads"].options) == [1, 2, 4, 8, 16]
    p.controles["n_kv_heads"].value = 16  # MHA continua MHA quando n_heads muda
    p.controles["n_heads"].value = 64
    assert p.controles["n_kv_heads"].value == 64 and confere_estado(p)["tipo"] == "MHA"
    p.controles["n_kv_heads"].value = 1  # MQA continua MQA
    p.controles["n_heads"].value = 2
    assert p.controles["n_kv_heads"].value == 1 and confere_estado(p)["tipo"] == "MQA"


def test_mudar_n_heads_faz_uma_atualizacao_so():
    p = licao.painel_cabecas()
    contagem = []
    original = p.atualizar

    def contar():
        contagem.append(1)
        return original()

    p.atualizar = contar
    p.controles["n_heads"].value = 4  # as opções e o valor de n_kv mudam juntos, sem redesenhos intermediários
    assert len(contagem) == 1
    confere_estado(p)


def test_varredura_de_todas_as_combinacoes_sem_excecao():
    p = licao.painel_cabecas()
    for n_h in p.controles["n_heads"].options:
        p.controles["n_heads"].value = n_h
        for n_kv in list(p.controles["n_kv_heads"].options):
            p.controles["n_kv_heads"].value = n_kv
            e = confere_estado(p)
            assert e["bytes_escolha"] <= e["bytes_mha"] and e["bytes_escolha"] >= e["bytes_mqa"]
    for controle in (p.controles["n_tokens"], p.controles["bytes_per_value"]):
        for i in range(len(controle.options)):
            controle.index = i
            confere_estado(p)


def test_contexto_e_precisao_escalam_a_memoria():
    p = licao.painel_cabecas()
    base = p.estado["bytes_escolha"]
    p.controles["n_tokens"].value = 8192
    assert p.estado["bytes_escolha"] == 2 * base
    p.controles["bytes_per_value"].value = 1  # int8: metade de fp16
    assert p.estado["bytes_escolha"] == base and "1.00 GiB" not in p.texto.value
    p.controles["bytes_per_value"].value = 4
    assert p.estado["bytes_escolha"] == 4 * base and "2.00 GiB" in p.texto.value


def test_definir_aplica_n_heads_primeiro_e_recusa_combinacao_invalida():
    p = licao.painel_cabecas()
    e = p.definir(n_kv_heads=2, n_heads=8)  # n_heads vem primeiro mesmo fora de ordem
    assert (e["n_heads"], e["n_kv_heads"], e["mapa"]) == (8, 2, [0, 0, 0, 0, 1, 1, 1, 1])
    confere_estado(p)
    with pytest.raises(ValueError, match="não divide n_heads=8"):
        p.definir(n_kv_heads=16)
    with pytest.raises(ValueError, match="não tem o controle"):
        p.definir(camadas=3)
    with pytest.raises(ValueError, match="não divide n_heads=32"):
        licao.painel_cabecas(n_kv_heads=3)
    with pytest.raises(ValueError, match="precisa dividir d_model"):
        licao.painel_cabecas(n_heads=3)


def test_controles_sao_selecoes_fora_do_extremo():
    """Todo controle aceita um passo para a direita a partir do padrão (o teste de navegador faz isso)."""
    p = licao.painel_cabecas()
    for c in p.controles.values():
        assert isinstance(c, W.SelectionSlider) and 0 < c.index < len(c.options) - 1


def test_painel_usa_os_nomes_do_nucleo_n_layers_e_bytes_per_value():
    """Um parâmetro tem o mesmo nome no núcleo, no corretor e no painel (kv_cache_bytes → painel_cabecas)."""
    parametros = set(inspect.signature(licao.painel_cabecas).parameters)
    assert {"n_layers", "bytes_per_value", "n_tokens", "n_kv_heads"} <= parametros
    assert {"n_camadas", "bytes_por_valor"}.isdisjoint(parametros)
    p = licao.painel_cabecas(bytes_per_value=4, n_layers=2)
    assert set(p.controles) & set(inspect.signature(attention.kv_cache_bytes).parameters) == {
        "n_tokens", "n_kv_heads", "bytes_per_value"}
    e = p.estado
    assert (e["n_layers"], e["bytes_per_value"]) == (2, 4) and "bytes_por_valor" not in e
    assert e["bytes_escolha"] == memoria(4096, 8, 128, 4, n_layers=2) == 64 * 2**20
    assert "2 · 2 · 8 · 4096 · 128 · 4 = 67 108 864 bytes = 64.0 MiB" in p.texto.value
    with pytest.raises(ValueError, match="bytes_per_value precisa ser 4, 2 ou 1"):
        licao.painel_cabecas(bytes_per_value=3)


def test_auxiliares_de_grupo():
    assert licao.divisores(12) == [1, 2, 3, 4, 6, 12]
    assert attention.kv_head_of_query(8, 2) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert attention.kv_head_of_query(6, 3) == [0, 0, 1, 1, 2, 2]
    assert attention.kv_head_of_query(4, 1) == [0, 0, 0, 0] and attention.kv_head_of_query(4, 4) == [0, 1, 2, 3]


# --- figuras ---------------------------------------------------------------------------------------



def test_figuras_estaticas():
    import matplotlib.pyplot as plt

    w = attention.softmax(np.arange(9.0).reshape(3, 3))
    fig = licao.figura_mapas_cabecas([w, w.T], ["a", "b", "c"], ["cabeça 0", "cabeça 1"])
    assert len(fig.axes) == 2 and fig.axes[0].get_title() == "cabeça 0"
    textos = [t.get_text() for t in fig.axes[0].texts]
    assert f"{w[2, 2]:.2f}" in textos
    plt.close(fig)
    mem = {"MHA": [2 * 2**30, 4 * 2**30], "GQA": [2**29, 2**30]}
    fig = licao.figura_kv_cache([4096, 8192], mem, titulo="t")
    alturas = [round(b.get_height(), 6) for b in fig.axes[0].patches]
    assert alturas == [2.0, 4.0, 0.5, 1.0]
    assert len(plots.png(fig)) > 1000
    plt.close(fig)


# --- corretores ------------------------------------------------------------------------------------


def _esqueleto(*_args):
    raise NotImplementedError("complete aqui")


@pytest.mark.parametrize("checar", [licao.check_dividir_cabecas, licao.check_cabeca_kv, licao.check_memoria_kv,
                                    licao.check_gerar_gqa])
def test_esqueleto_recebe_aviso_amigavel(checar, capsys):
    assert checar(_esqueleto) is False
    assert "ainda não foi implementada" in capsys.readouterr().out



# dividir em cabeças


def _dividir_certo(x, n_heads):
    n, largura = x.shape
    return x.reshape(n, n_heads, largura // n_heads).transpose(1, 0, 2)


def _dividir_split(x, n_heads):
    return np.stack(np.split(x, n_heads, axis=1))


def _dividir_laco(x, n_heads):
    """Listas de listas, montadas com laços: a cabeça h, o token i, as colunas h·d … (h+1)·d − 1."""
    n, largura = x.shape
    d = largura // n_heads
    return [[[float(x[i, c]) for c in range(h * d, (h + 1) * d)] for i in range(n)] for h in range(n_heads)]


def _dividir_inteiros(x, n_heads):
    return np.moveaxis(x.astype(np.int64).reshape(x.shape[0], n_heads, -1), 1, 0)


ERROS_DIVIDIR = {
    "reshape direto": (lambda x, h: x.reshape(h, x.shape[0], x.shape[1] // h), "reshape(n_heads, n, d_head) direto"),
    "sem transpor": (lambda x, h: x.reshape(x.shape[0], h, x.shape[1] // h), "Faltou a transposição"),
    "colunas intercaladas": (lambda x, h: x.reshape(x.shape[0], x.shape[1] // h, h).transpose(2, 0, 1),
                             "Colunas intercaladas"),
    "ordem invertida": (lambda x, h: _dividir_certo(x, h)[::-1], "ordem invertida"),
    "cabeça transposta": (lambda x, h: _dividir_certo(x, h).transpose(0, 2, 1), "Cada cabeça saiu transposta"),
    "n_heads e d_head trocados": (lambda x, h: x.reshape(x.shape[0], x.shape[1] // h, h).transpose(1, 0, 2),
                                  "trocou n_heads e d_head"),
    "cabeça achatada": (lambda x, h: _dividir_certo(x, h).reshape(h, -1), "linha achatada"),
    "transpôs com .T (inverteu os três eixos)": (lambda x, h: x.reshape(x.shape[0], h, -1).T,
                                                  ".T inverte **todos**"),
    "linhas divididas": (lambda x, h: np.stack(np.split(x, h, axis=0)), "dividiu as **linhas**"),
    "d_head em float (/ no lugar de //)": (lambda x, h: x.reshape(x.shape[0], h, x.shape[1] / h).transpose(1, 0, 2),
                                           "divisão inteira"),
}


@pytest.mark.parametrize("fn", [_dividir_certo, _dividir_split, _dividir_laco, _dividir_inteiros])
def test_dividir_cabecas_aceita_o_certo_escrito_de_varios_jeitos(fn, capsys):
    assert licao.check_dividir_cabecas(fn) is True
    assert "✅" in capsys.readouterr().out


@pytest.mark.parametrize("nome", list(ERROS_DIVIDIR))
def test_dividir_cabecas_da_nome_a_cada_erro(nome):
    confere_erro_nomeado(licao.DIVIDIR_CABECAS, ERROS_DIVIDIR, nome)


@pytest.mark.parametrize("fn", [attention.split_heads, lambda x, n_heads: attention.split_heads(x, n_heads)])
def test_dividir_cabecas_com_split_heads_e_a_regra_do_enunciado(fn):
    """O enunciado pede só numpy: a resposta certa com attention.split_heads não passa, e o veredito diz por quê."""
    v = corrigir(licao.DIVIDIR_CABECAS, fn)
    assert not v.ok and v.erro == "usou attention.split_heads", v.mensagem
    assert "As respostas estão certas" in v.mensagem


@pytest.mark.parametrize("nome", ["reshape direto", "colunas intercaladas"])
def test_dividir_cabecas_pelo_check_imprime_o_erro(nome, capsys):
    fn, trecho = ERROS_DIVIDIR[nome]
    assert licao.check_dividir_cabecas(fn) is False
    saida = capsys.readouterr().out
    assert "❌" in saida and trecho in saida, saida


def test_dividir_cabecas_mostra_a_cabeca_0_com_numeros_rotulados():
    mensagem = corrigir(licao.DIVIDIR_CABECAS, ERROS_DIVIDIR["reshape direto"][0]).mensagem
    assert "x[token, coluna] = 10·token + coluna" in mensagem
    assert "[[ 0  1  2]\n [ 3  4  5]\n [10 11 12]\n [13 14 15]]" in mensagem  # a cabeça 0 errada mistura tokens
    assert "[[ 0  1  2]\n [10 11 12]\n [20 21 22]\n [30 31 32]]" in mensagem  # a certa


def test_dividir_cabecas_explica_o_erro_de_forma():
    def d_head_errado(x, n_heads):
        return x.reshape(x.shape[0], n_heads, n_heads).transpose(1, 0, 2)  # d_head = n_heads: não fecha

    v = corrigir(licao.DIVIDIR_CABECAS, d_head_errado)
    assert v.erro == "forma" and "ValueError" in v.mensagem, v.mensagem
    assert "d_head = 6 / 2 = 3" in v.mensagem


def test_dividir_cabecas_forma_errada_desconhecida():
    v = corrigir(licao.DIVIDIR_CABECAS, lambda x, h: _dividir_certo(x, h)[:, :-1])
    assert v.erro == "forma" and "deveria ter forma (2, 4, 3), mas veio (2, 3, 3)" in v.mensagem, v.mensagem


# que key/value cada query usa


def _kv_laco(h, n_heads, n_kv_heads):
    grupo, g = n_heads // n_kv_heads, 0
    while (g + 1) * grupo <= h:
        g += 1
    return g


ERROS_KV = {
    "grupos intercalados (h % n_kv_heads)": (lambda h, nh, nk: h % nk, "h % n_kv_heads"),
    "dividiu por n_kv_heads": (lambda h, nh, nk: h // nk, "h // n_kv_heads"),
    "contou as queries a partir de 1 ((h + 1) // grupo)": (lambda h, nh, nk: (h + 1) // (nh // nk), "sem o + 1"),
    "arredondou (round)": (lambda h, nh, nk: round(h / (nh // nk)), "**truncada**"),
    "arredondou para cima (ceil)": (lambda h, nh, nk: math.ceil(h / (nh / nk)), "arredondou h / grupo para cima"),
    "índices a partir de 1": (lambda h, nh, nk: h // (nh // nk) + 1, "começam em 0"),
    "divisão comum": (lambda h, nh, nk: h / (nh / nk), "divisão inteira"),
    "grupos em ordem invertida": (lambda h, nh, nk: nk - 1 - h // (nh // nk), "ordem invertida"),
    "tamanho do grupo no lugar do índice": (lambda h, nh, nk: nh // nk, "tamanho do grupo"),
    "devolveu h (o índice da própria query)": (lambda h, nh, nk: h, "só vale na MHA"),
}


@pytest.mark.parametrize("fn", [lambda h, nh, nk: h // (nh // nk), lambda h, nh, nk: h * nk // nh,
                                lambda h, nh, nk: np.int64(h) // (nh // nk), lambda h, nh, nk: float(h // (nh // nk)),
                                lambda h, nh, nk: math.floor(h / (nh / nk)), lambda h, nh, nk: np.array(h * nk // nh),
                                lambda h, nh, nk: attention.kv_head_of_query(nh, nk)[h], _kv_laco])
def test_cabeca_kv_aceita_o_certo_escrito_de_varios_jeitos(fn, capsys):
    assert licao.check_cabeca_kv(fn) is True
    assert "✅" in capsys.readouterr().out


@pytest.mark.parametrize("nome", list(ERROS_KV))
def test_cabeca_kv_da_nome_a_cada_erro(nome):
    confere_erro_nomeado(licao.CABECA_KV, ERROS_KV, nome)


def test_cabeca_kv_mostra_a_tabela_das_queries(capsys):
    assert licao.check_cabeca_kv(ERROS_KV["grupos intercalados (h % n_kv_heads)"][0]) is False
    saida = capsys.readouterr().out
    assert "Com n_heads = 6 e n_kv_heads = 3:" in saida
    assert "certo          : [0, 0, 1, 1, 2, 2]" in saida
    assert "h % n_kv_heads : [0, 1, 2, 0, 1, 2]" in saida
    assert "n_heads = 6, n_kv_heads = 3 e a query h = 1: esperava 0, veio 1" in saida


@pytest.mark.parametrize(("fn", "erro"), [
    (lambda h, nh, nk: round(h / (nh // nk)), "arredondou (round)"),
    (lambda h, nh, nk: int(np.round(h * nk / nh)), "arredondou (round)"),
    (lambda h, nh, nk: int(h / (nh // nk) + 0.5), "arredondou (round)"),          # x,5 para cima
    (lambda h, nh, nk: -(-h // (nh // nk)), "arredondou para cima (ceil)"),
    (lambda h, nh, nk: (h + 1) // (nh // nk), "contou as queries a partir de 1 ((h + 1) // grupo)"),
    (lambda h, nh, nk: h // (nh // nk) + 1, "índices a partir de 1"),
])
def test_cabeca_kv_um_a_mais_em_parte_das_queries_nao_e_indice_a_partir_de_1(fn, erro):
    """round, ceil e (h + 1) erram por 1 a mais, mas só em parte das queries: cada um com o seu diagnóstico."""
    v = corrigir(licao.CABECA_KV, fn)
    assert not v.ok and v.erro == erro, v.mensagem


def test_cabeca_kv_mapa_inteiro_no_lugar_do_indice():
    v = corrigir(licao.CABECA_KV, lambda h, nh, nk: attention.kv_head_of_query(nh, nk))
    assert v.erro == "tipo" and "número inteiro (o índice da cabeça de key/value)" in v.mensagem, v.mensagem


# a memória do KV cache


def _mem(fator_2=2, usar_heads=False, por_valor=lambda b: b, unidade=1.0, camadas=True):
    def memoria_kv_bytes(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
        cabecas = n_heads if usar_heads else n_kv_heads
        return fator_2 * (n_layers if camadas else 1) * cabecas * n_tokens * d_head * por_valor(bytes_per_value) / unidade
    return memoria_kv_bytes


def _bits(b):
    return 8 * b


ERROS_MEM = {
    "sem o fator 2": (_mem(fator_2=1), "Faltou o fator 2"),
    "n_heads no lugar de n_kv_heads": (_mem(usar_heads=True), "Você usou n_heads"),
    "n_heads e sem o fator 2": (_mem(usar_heads=True, fator_2=1),
                                "Dois erros: usou n_heads no lugar de n_kv_heads (o cache"),
    "bits em vez de bytes": (_mem(por_valor=_bits), "Você contou bits, não bytes: multiplicou por 8"),
    "bits e sem o fator 2": (_mem(por_valor=_bits, fator_2=1),
                             "contou bits em vez de bytes (não multiplique por 8: bytes_per_value já está em bytes) e "
                             "esqueceu o fator 2"),
    "n_heads e bits": (_mem(usar_heads=True, por_valor=_bits), "contou bits em vez de bytes."),
    "dividiu por 8": (_mem(por_valor=lambda b: b / 8), "Você dividiu por 8, como se a precisão viesse em bits"),
    "sem as camadas": (_mem(camadas=False), "Faltaram as camadas"),
    "sem os bytes": (_mem(por_valor=lambda b: 1), "Você contou **números**, não bytes"),
    "em GiB": (_mem(unidade=2**30), "você devolveu GiB"),
    "em MiB": (_mem(unidade=2**20), "você devolveu MiB"),
    "em GB": (_mem(unidade=1e9), "você devolveu GB"),
}


def _mem_biblioteca(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return attention.kv_cache_bytes(n_tokens, n_layers, n_kv_heads, d_head, bytes_per_value)


def _mem_laco(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    total = 0
    for _camada in range(n_layers):
        for _kv in range(n_kv_heads):
            total += 2 * n_tokens * d_head * bytes_per_value  # key e value deste token, desta cabeça
    return total


def _mem_numpy(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return np.prod([2, n_layers, n_kv_heads, n_tokens, d_head, bytes_per_value])  # um inteiro do numpy


def _mem_float32(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return np.float32(2.0 * n_layers * n_kv_heads * n_tokens * d_head * bytes_per_value)  # exatos em float32


@pytest.mark.parametrize("fn", [_mem(), _mem_laco, _mem_numpy, _mem_float32])
def test_memoria_kv_aceita_o_certo_escrito_de_varios_jeitos(fn, capsys):
    assert licao.check_memoria_kv(fn) is True
    saida = capsys.readouterr().out
    assert "✅" in saida and "536 870 912 bytes = 512 MiB" in saida and "precisaria de 2.00 GiB" in saida


@pytest.mark.parametrize("nome", list(ERROS_MEM))
def test_memoria_kv_da_nome_a_cada_erro(nome):
    veredito = confere_erro_nomeado(licao.MEMORIA_KV, ERROS_MEM, nome)
    if nome != "sem os bytes":  # com 1 byte por número, esquecer os bytes não muda o caso pequeno
        assert "esperava 768 000 bytes" in veredito.mensagem  # o caso pequeno, em que cada erro dá um número diferente


def test_memoria_kv_com_a_biblioteca_e_a_regra_do_enunciado():
    v = corrigir(licao.MEMORIA_KV, _mem_biblioteca)
    assert not v.ok and v.erro == "usou attention.kv_cache_bytes", v.mensagem


def test_memoria_kv_pelo_check_imprime_o_erro(capsys):
    assert licao.check_memoria_kv(ERROS_MEM["bits em vez de bytes"][0]) is False
    saida = capsys.readouterr().out
    assert "❌ Você contou bits" in saida and "(aqui 1 byte = 8 bits)" in saida
    assert "esperava 768 000 bytes, veio 6 144 000 bytes" in saida


def test_memoria_kv_erro_desconhecido_e_resposta_nao_numerica():
    v = corrigir(licao.MEMORIA_KV, lambda *a: 3)
    assert v.erro == "valor" and "esperava 768 000 bytes, veio 3 bytes" in v.mensagem, v.mensagem
    v = corrigir(licao.MEMORIA_KV, lambda *a: "muito")
    assert v.erro == "tipo" and "deve ser um número (de bytes), mas veio 'muito'" in v.mensagem, v.mensagem
    v = corrigir(licao.MEMORIA_KV, lambda *a: str(_mem()(*a)))  # o número certo, mas como texto
    assert v.erro == "tipo", v.mensagem


def test_memoria_kv_chama_a_funcao_com_os_nomes_do_nucleo():
    """A ordem e os nomes dos argumentos: os de kv_cache_bytes, com n_heads entre n_layers e n_kv_heads."""
    recebidos = []

    def espia(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
        recebidos.append(dict(n_tokens=n_tokens, n_layers=n_layers, n_heads=n_heads, n_kv_heads=n_kv_heads,
                              d_head=d_head, bytes_per_value=bytes_per_value))
        return 2 * n_layers * n_kv_heads * n_tokens * d_head * bytes_per_value

    assert corrigir(licao.MEMORIA_KV, espia).ok
    assert dict(n_tokens=4096, n_layers=32, n_heads=32, n_kv_heads=8, d_head=128, bytes_per_value=2) in recebidos
    nucleo = set(inspect.signature(attention.kv_cache_bytes).parameters)
    for caso in licao.MEMORIA_KV.casos():
        assert set(caso.entradas) - nucleo == {"n_heads"}


# --- as soluções e os esqueletos publicados no notebook --------------------------------------------


def _solucoes():
    return solucoes_do_notebook(NOTEBOOK)




def test_exercicio_da_memoria_usa_os_nomes_do_nucleo():
    """O esqueleto e a solução do notebook: memoria_kv_bytes(n_tokens, n_layers, n_heads, n_kv_heads, d_head,
    bytes_per_value), com os nomes de kv_cache_bytes; nada de bits nem de n_camadas."""
    esperado = ["n_tokens", "n_layers", "n_heads", "n_kv_heads", "d_head", "bytes_per_value"]
    celulas = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    esqueletos = ["".join(c["source"]) for c in celulas
                  if c["cell_type"] == "code" and "def memoria_kv_bytes" in "".join(c["source"])]
    assert len(esqueletos) == 1
    for fonte in (esqueletos[0], _solucoes()[2]):
        ns: dict = {}
        exec(fonte, ns)
        assert list(inspect.signature(ns["memoria_kv_bytes"]).parameters) == esperado
    texto = "".join("".join(c["source"]) for c in celulas)
    assert "bits_por_valor" not in texto and "n_camadas" not in texto and "bytes_por_valor" not in texto


# --- um passo da geração com o KV cache (GQA) ------------------------------------------------------------


def _passo(*, antes=True, grupo_de=lambda h, g, n_kv: h // g, escala=None, softmax=None, so_o_novo=False,
           juntar=True, guardar=lambda x, W_k, W_v: (x @ W_k, x @ W_v), no_laco=False):
    """Um passo escrito como um estudante escreveria (o esqueleto do notebook completado), com um defeito opcional."""

    def passo_com_cache(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
        d_head = W_q.shape[1] // n_heads
        grupo = n_heads // n_kv_heads
        k, v = guardar(x_t, W_k, W_v)
        if antes and not no_laco:
            cache_k.append(k)
            cache_v.append(v)
        K, V = np.array(cache_k), np.array(cache_v)
        if so_o_novo:
            K, V = (x_t @ W_k)[None, :], (x_t @ W_v)[None, :]
        q = x_t @ W_q
        partes = []
        for h in range(n_heads):
            g = grupo_de(h, grupo, n_kv_heads)
            z = K[:, g * d_head:(g + 1) * d_head] @ q[h * d_head:(h + 1) * d_head] / (escala or np.sqrt(d_head))
            w = softmax(z) if softmax else np.exp(z - z.max()) / np.exp(z - z.max()).sum()
            partes.append(w @ V[:, g * d_head:(g + 1) * d_head])
            if no_laco:
                cache_k.append(k)
                cache_v.append(v)
        if not antes:
            cache_k.append(k)
            cache_v.append(v)
        return np.concatenate(partes) if juntar else partes

    return passo_com_cache


def _passo_vetorizado(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    """Certo, de outro jeito: as cabeças de uma vez, com np.repeat das cabeças de key/value e einsum."""
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    t = len(cache_k)
    K = np.repeat(np.array(cache_k).reshape(t, n_kv_heads, d_head), n_heads // n_kv_heads, axis=1)  # (t, h, d)
    V = np.repeat(np.array(cache_v).reshape(t, n_kv_heads, d_head), n_heads // n_kv_heads, axis=1)
    q = (x_t @ W_q).reshape(n_heads, d_head)
    z = np.einsum("hd,thd->ht", q, K) / np.sqrt(d_head)
    w = np.exp(z - z.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    return np.einsum("ht,thd->hd", w, V).reshape(1, -1)                 # com um eixo de lote: (1, n_heads·d_head)


def _passo_com_biblioteca(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    """Certo: attention.scaled_dot_product_attention sobre o cache, com as cabeças de key/value de cada query."""
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    K = attention.split_heads(np.array(cache_k), n_kv_heads)            # (n_kv, t, d_head)
    V = attention.split_heads(np.array(cache_v), n_kv_heads)
    q = attention.split_heads((x_t @ W_q)[None, :], n_heads)            # (n_heads, 1, d_head)
    cab = attention.kv_head_of_query(n_heads, n_kv_heads)
    saida, _ = attention.scaled_dot_product_attention(q, K[cab], V[cab])
    return attention.merge_heads(saida)[0]


def _passo_lista(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    """Certo, em float32 quando a entrada é float32 (sem converter nada), devolvendo uma lista."""
    return [float(a) for a in _passo()(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads)]


@pytest.mark.parametrize("fn", [_passo(), _passo_vetorizado, _passo_com_biblioteca, _passo_lista])
def test_passo_aceita_respostas_certas_escritas_de_outro_jeito(fn):
    v = licao.corrigir_gerar_gqa(fn)
    assert v.ok, v.mensagem
    assert "nunca viu" in v.mensagem and "não n_heads·d_head" in v.mensagem


def test_o_passo_so_ve_o_token_novo_e_o_cache_que_ja_vem_com_o_prompt():
    """O corretor conduz: o passo recebe um vetor (d_model,) e o cache, que começa com as keys/values do prompt."""
    vistos = []
    certo = _passo()

    def espia(x_t, cache_k, cache_v, *resto):
        vistos.append((np.shape(x_t), len(cache_k), len(cache_v)))
        return certo(x_t, cache_k, cache_v, *resto)

    assert licao.corrigir_gerar_gqa(espia).ok
    casos = licao.GERAR_GQA.casos()
    esperado = [((c.entradas["X"].shape[1],), c.entradas["prompt"].shape[0] + t, c.entradas["prompt"].shape[0] + t)
                for c in casos for t in range(c.entradas["X"].shape[0])]
    assert vistos == esperado
    assert [c.entradas["prompt"].shape[0] for c in casos] == [0, 2, 3, 1, 3, 2]


def test_recalcular_as_keys_dos_tokens_guardados_nao_serve():
    """Quem guarda os x_t por fora e recalcula K a cada passo não tem as keys do prompt: o valor sai errado."""
    vistos = []

    def recalcula(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
        vistos.append(x_t)
        cache_k.append(x_t @ W_k)
        cache_v.append(x_t @ W_v)
        X = np.array(vistos[-(len(cache_k)):])  # os tokens que ele viu (os do prompt, nunca)
        d_head = W_q.shape[1] // n_heads
        grupo = n_heads // n_kv_heads
        K, V, q = X @ W_k, X @ W_v, x_t @ W_q
        partes = []
        for h in range(n_heads):
            g = h // grupo
            z = K[:, g * d_head:(g + 1) * d_head] @ q[h * d_head:(h + 1) * d_head] / np.sqrt(d_head)
            w = np.exp(z - z.max())
            partes.append(w / w.sum() @ V[:, g * d_head:(g + 1) * d_head])
        return np.concatenate(partes)

    assert not licao.corrigir_gerar_gqa(recalcula).ok


def _sem_max(z):
    return np.exp(z) / np.exp(z).sum()


def _max_positivo(z):
    m = max(z.max(), 0.0)
    return np.exp(z - m) / np.exp(z - m).sum()


def _menos_min(z):
    return np.exp(z - z.min()) / np.exp(z - z.min()).sum()


def _lote_com_um_maximo(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    """As cabeças de uma vez, mas com um máximo só para todas (z.max() sem axis)."""
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    cab = np.arange(n_heads) // (n_heads // n_kv_heads)
    K = np.array(cache_k).reshape(len(cache_k), n_kv_heads, d_head)[:, cab]
    V = np.array(cache_v).reshape(len(cache_v), n_kv_heads, d_head)[:, cab]
    z = np.einsum("hd,thd->ht", (x_t @ W_q).reshape(n_heads, d_head), K) / np.sqrt(d_head)
    e = np.exp(z - z.max())
    return np.einsum("ht,thd->hd", e / e.sum(axis=1, keepdims=True), V).reshape(-1)


def _expandido(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    """Guarda a key/value já repetida para cada query (n_heads·d_head números): o cache da MHA."""
    d_head = W_q.shape[1] // n_heads
    cab = attention.kv_head_of_query(n_heads, n_kv_heads)
    cache_k.append((x_t @ W_k).reshape(n_kv_heads, d_head)[cab].reshape(-1))
    cache_v.append((x_t @ W_v).reshape(n_kv_heads, d_head)[cab].reshape(-1))
    K, V, q = np.array(cache_k), np.array(cache_v), x_t @ W_q
    partes = []
    for h in range(n_heads):
        s = slice(h * d_head, (h + 1) * d_head)
        z = K[:, s] @ q[s] / np.sqrt(d_head)
        w = np.exp(z - z.max())
        partes.append(w / w.sum() @ V[:, s])
    return np.concatenate(partes)


def _sobrescreve(x_t, cache_k, cache_v, *resto):
    """Troca o conteúdo do cache pelo token novo (cache_k[:] = [...]) em vez de acrescentar."""
    W_k, W_v = resto[1], resto[2]
    cache_k[:] = [x_t @ W_k]
    cache_v[:] = [x_t @ W_v]
    return _passo(antes=False, guardar=lambda *a: (None, None))(x_t, list(cache_k), list(cache_v), *resto)


def _nao_cresce(x_t, cache_k, cache_v, *resto):
    """Cria listas novas (cache_k = cache_k + [...]): as do corretor não crescem."""
    W_k, W_v = resto[1], resto[2]
    cache_k = cache_k + [x_t @ W_k]
    cache_v = cache_v + [x_t @ W_v]
    return _passo(antes=False, guardar=lambda *a: (None, None))(x_t, cache_k, cache_v, *resto)


def _guarda_escalada(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    """Guarda a key já dividida por √d_head (e divide os escores de novo): o cache guarda outra coisa."""
    d_head = W_q.shape[1] // n_heads
    return _passo(guardar=lambda x, Wk, Wv: (x @ Wk / np.sqrt(d_head), x @ Wv), escala=1.0)(
        x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads)


EXEMPLOS_GERAR = {
    "o cache não cresceu": (_nao_cresce, "cache_k = cache_k + [...]"),
    "o cache cresceu mais de um token por passo": (_passo(no_laco=True), "dentro do laço das cabeças"),
    "só o último token no cache": (_sobrescreve, "O cache **cresce**"),
    "key e value trocados no cache": (_passo(guardar=lambda x, W_k, W_v: (x @ W_v, x @ W_k)), "trocadas"),
    "o cache guardou uma key por query (o cache da MHA)": (_expandido, "a economia da GQA some"),
    "o cache guardou outra coisa": (_guarda_escalada, "sem dividir por √d_head"),
    "o token não se vê (cache atualizado depois)": (_passo(antes=False), "Guarde primeiro a key e o value"),
    "só o token novo (não leu o cache)": (_passo(so_o_novo=True), "olha para **todo** o cache"),
    "grupos intercalados (h % n_kv_heads)": _passo(grupo_de=lambda h, g, n_kv: h % n_kv),
    "dividiu por n_kv_heads": _passo(grupo_de=lambda h, g, n_kv: h // n_kv),
    "as cabeças não foram juntadas": (_passo(juntar=False), "np.concatenate"),
    "sem escala": _passo(escala=1.0),
    "escala com a largura toda": lambda x_t, ck, cv, W_q, *r: _passo(escala=np.sqrt(W_q.shape[1]))(x_t, ck, cv, W_q, *r),
    "subtraiu o máximo só quando positivo (instável)": _passo(softmax=_max_positivo),
    "sem subtrair o máximo (instável)": _passo(softmax=_sem_max),
    "subtraiu o mínimo (instável)": _passo(softmax=_menos_min),
    "um máximo só para o lote inteiro (instável)": _lote_com_um_maximo,
}


def _conduzidos(exemplos):
    """Os exemplos como o corretor os vê: cada passo dentro da geração que o corretor conduz."""
    return {nome: (licao.dirigir_passo(e[0]), e[1]) if isinstance(e, tuple) else licao.dirigir_passo(e)
            for nome, e in exemplos.items()}


@pytest.mark.parametrize("nome", list(EXEMPLOS_GERAR))
def test_passo_da_nome_a_cada_erro(nome):
    confere_erro_nomeado(licao.GERAR_GQA, _conduzidos(EXEMPLOS_GERAR), nome)


def test_o_token_que_nao_se_ve_quebra_com_o_cache_vazio_e_e_nomeado_pelos_outros_casos():
    """Com o cache vazio (o primeiro caso), quem guarda depois da atenção quebra; nos casos com prompt, as saídas
    batem com a atenção que não vê o próprio token: o nome vem deles, sem ler as variáveis da função."""
    fn = _passo(antes=False)
    primeiro = licao.GERAR_GQA.casos()[0]
    assert primeiro.entradas["prompt"].shape[0] == 0
    with pytest.raises(IndexError):
        licao.dirigir_passo(fn)(**primeiro.entradas)
    assert licao.corrigir_gerar_gqa(fn).erro == licao.geracao.NAO_SE_VE


def test_passo_respostas_estranhas_viram_veredito():
    assert licao.corrigir_gerar_gqa(lambda *a: None).erro == "pendente"
    v = licao.corrigir_gerar_gqa(np.zeros(3))
    assert v.erro == "tipo" and "sem parênteses" in v.mensagem

    def devolve_o_cache(x_t, cache_k, cache_v, *resto):
        return _passo()(x_t, cache_k, cache_v, *resto), cache_k, cache_v

    v = licao.corrigir_gerar_gqa(devolve_o_cache)
    assert v.erro == "tipo" and "O cache não se devolve" in v.mensagem, v.mensagem

    def devolve_os_pesos(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
        cache_k.append(x_t @ W_k)
        cache_v.append(x_t @ W_v)
        z = np.array(cache_k)[:, :2] @ (x_t @ W_q)[:2]
        return np.exp(z - z.max()) / np.exp(z - z.max()).sum()

    v = licao.corrigir_gerar_gqa(devolve_os_pesos)
    assert v.erro == "tipo" and "são os pesos" in v.mensagem, v.mensagem


def test_passo_que_muda_os_pesos_no_lugar():
    def escala_w_q(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
        W_q /= np.sqrt(W_q.shape[1] // n_heads)  # "já deixo a query escalada"
        return _passo(escala=1.0)(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads)

    v = licao.corrigir_gerar_gqa(escala_w_q)
    assert v.erro == "mudou a entrada" and "`W_q`" in v.mensagem, v.mensagem


def _celula_com(trecho):
    celulas = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    achadas = ["".join(c["source"]) for c in celulas if c["cell_type"] == "code" and trecho in "".join(c["source"])]
    assert len(achadas) == 1, trecho
    return achadas[0]


_MARCA_1 = "    # 1. acrescente a key e o value do token novo ao cache"
_PASSO1 = "    cache_k.append(x_t @ W_k)\n    cache_v.append(x_t @ W_v)"
_PASSO2 = """        g = h // grupo
        z = K[:, g * d_head:(g + 1) * d_head] @ q[h * d_head:(h + 1) * d_head] / np.sqrt(d_head)
        w = np.exp(z - z.max())
        partes.append((w / w.sum()) @ V[:, g * d_head:(g + 1) * d_head])"""


def _do_esqueleto(passo1, passo2, depois=""):
    """O esqueleto do Exercício 2 (do notebook), com os passos marcados preenchidos como um estudante faria."""
    fonte = _celula_com("def passo_com_cache")
    assert _MARCA_1 in fonte
    fonte = fonte.replace(_MARCA_1, passo1 + "\n" + _MARCA_1)
    fonte = fonte.replace('        raise NotImplementedError("complete aqui")', passo2)
    if depois:
        fonte = fonte.replace("    return np.concatenate(partes)", depois + "\n    return np.concatenate(partes)")
    ns = {"np": np}
    exec(fonte, ns)
    return ns["passo_com_cache"]


def test_o_esqueleto_do_notebook_e_pendente_e_completado_passa(capsys):
    fonte = _celula_com("def passo_com_cache")
    ns = {"np": np}
    exec(fonte, ns)
    assert licao.check_gerar_gqa(ns["passo_com_cache"]) is False
    assert "ainda não foi implementada" in capsys.readouterr().out
    assert licao.corrigir_gerar_gqa(_do_esqueleto(_PASSO1, _PASSO2)).ok


def test_o_esqueleto_sem_o_passo_1_e_o_cache_que_nao_cresceu(capsys):
    fn = _do_esqueleto("", _PASSO2)
    assert licao.check_gerar_gqa(fn) is False
    saida = capsys.readouterr().out
    assert saida.startswith("❌ Depois do passo, cache_k (ou cache_v) continua com os mesmos itens", ), saida


def test_o_esqueleto_com_o_cache_atualizado_no_fim_e_o_token_que_nao_se_ve():
    fn = _do_esqueleto("", _PASSO2, depois=_PASSO1)
    assert licao.corrigir_gerar_gqa(fn).erro == "o token não se vê (cache atualizado depois)"


def test_o_esqueleto_com_uma_conta_que_nao_fecha_continua_generico():
    v = licao.corrigir_gerar_gqa(_do_esqueleto(_PASSO1, "        partes.append(q @ K)"))
    assert not v.ok and v.erro in ("excecao", "forma"), v.mensagem


def test_a_solucao_e_a_dica_2_do_notebook():
    """A solução publicada passa; a segunda dica não traz o código dela."""
    solucao = _solucoes()[-1]
    ns = {"np": np}
    exec(solucao, ns)
    assert licao.corrigir_gerar_gqa(ns["passo_com_cache"]).ok
    celulas = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    for c in celulas:
        texto = "".join(c["source"])
        if c["cell_type"] != "markdown" or "Dica 2" not in texto:
            continue
        dica2 = texto.split("Dica 2", 1)[1].split("</details>", 1)[0]
        for linha in (ln.strip() for s in _solucoes() for ln in s.splitlines()):
            codigo = linha.split("#")[0].strip()
            if len(codigo) > 12 and not codigo.startswith(("def ", "return np.concatenate")):
                assert codigo not in dica2, codigo



# --- prever: o cache com o dobro de cabeças (a caixa) -------------------------------------------------


@pytest.mark.parametrize(("digitado", "ok", "erro"), [
    ("1", True, None), ("1,0", True, None), ("1,00", True, None), (" 1 ", True, None), ("1.0", True, None),
    ("2", False, "mais cabeças, mais cache"), ("0,5", False, "só o d_head encolheu"), ("0.5", False, "só o d_head encolheu"),
    ("4", False, "ao quadrado"), ("3", False, "valor"), ("64", False, "valor"),
])
def test_caixa_do_cache_como_o_estudante_digita(digitado, ok, erro):
    c = licao.prever_cache_cabecas()
    assert c.conferir(digitado) is ok and c.conferida and c.entrada.disabled
    assert c.veredito.erro == erro, c.veredito.mensagem
    assert "A resposta: 1." in c.mensagem.value and "o cache não muda" in c.mensagem.value  # a revelação explica


def test_caixa_do_cache_ignora_um_erro_de_digitacao_e_a_caixa_vazia():
    c = licao.prever_cache_cabecas()
    for texto in ("o dobro", "", "   ", "1x"):
        assert c.conferir(texto) is False and not c.conferida, texto
        assert "A resposta:" not in c.mensagem.value and "não muda" not in c.mensagem.value
    assert c.conferir("1") is True


def test_caixa_do_cache_aceita_valores_python():
    for certo in (1, 1.0, np.float32(1), 1.004):
        assert licao.prever_cache_cabecas().conferir(certo) is True, certo
    assert licao.prever_cache_cabecas().conferir(1.02) is False


def test_previsao_do_cache_e_a_conta_da_biblioteca():
    prev = licao.PREVISAO_CACHE_CABECAS
    assert prev.certo() == 1.0
    for n_heads in (8, 32, 64):  # MHA com d_model = 4096: n_heads · d_head = 4096 em todos
        assert attention.kv_cache_bytes(4096, 32, n_heads, D_MODEL // n_heads, 2) == memoria(4096, 32, 128, 2)
    assert corrigir_previsao(prev, None).erro == "pendente"
    assert corrigir_previsao(prev, "muito").erro == "tipo"
    for erro in prev.erros:
        v = corrigir_previsao(prev, erro.resposta())
        assert not v.ok and v.erro == erro.nome, v.mensagem


def test_previsao_do_cache_exemplo_legivel_e_pistas_que_nao_sao_o_1_solto():
    prev = licao.PREVISAO_CACHE_CABECAS
    assert corrigir_previsao(prev, ler_digitado(prev.exemplo)).erro == "valor"  # legível, e não é a resposta
    pistas = prev.pistas_da_resposta()
    assert "1" not in pistas and "1,00" not in pistas  # "1" sozinho está em toda parte: as pistas são frases
    assert all(len(p) >= 4 for p in pistas), pistas
    # depois de conferir, a página mostra alguma pista (é assim que o teste de navegador vê a resposta chegar)
    assert any(p in prev.revelar for p in pistas)
