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


@pytest.mark.parametrize("checar", [licao.check_dividir_cabecas, licao.check_cabeca_kv, licao.check_memoria_kv])
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
    "linhas divididas": (lambda x, h: np.stack(np.split(x, h, axis=0)), "dividiu as **linhas**"),
}


@pytest.mark.parametrize("fn", [_dividir_certo, _dividir_split, attention.split_heads, _dividir_laco,
                                _dividir_inteiros])
def test_dividir_cabecas_aceita_o_certo_escrito_de_varios_jeitos(fn, capsys):
    assert licao.check_dividir_cabecas(fn) is True
    assert "✅" in capsys.readouterr().out


@pytest.mark.parametrize("nome", list(ERROS_DIVIDIR))
def test_dividir_cabecas_da_nome_a_cada_erro(nome):
    confere_erro_nomeado(licao.DIVIDIR_CABECAS, ERROS_DIVIDIR, nome)


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
    "índices a partir de 1": (lambda h, nh, nk: h // (nh // nk) + 1, "começam em 1"),
    "divisão comum": (lambda h, nh, nk: h / (nh / nk), "divisão inteira"),
    "tamanho do grupo no lugar do índice": (lambda h, nh, nk: nh // nk, "tamanho do grupo"),
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
    assert "Com n_heads = 8 e n_kv_heads = 2:" in saida
    assert "certo          : [0, 0, 0, 0, 1, 1, 1, 1]" in saida
    assert "h % n_kv_heads : [0, 1, 0, 1, 0, 1, 0, 1]" in saida
    assert "n_heads = 8, n_kv_heads = 2 e a query h = 1: esperava 0, veio 1" in saida


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


@pytest.mark.parametrize("fn", [_mem(), _mem_biblioteca, _mem_laco, _mem_numpy, _mem_float32])
def test_memoria_kv_aceita_o_certo_escrito_de_varios_jeitos(fn, capsys):
    assert licao.check_memoria_kv(fn) is True
    saida = capsys.readouterr().out
    assert "✅" in saida and "536 870 912 bytes = 512 MiB" in saida and "precisaria de 2.00 GiB" in saida


@pytest.mark.parametrize("nome", list(ERROS_MEM))
def test_memoria_kv_da_nome_a_cada_erro(nome):
    veredito = confere_erro_nomeado(licao.MEMORIA_KV, ERROS_MEM, nome)
    if nome != "sem os bytes":  # com 1 byte por número, esquecer os bytes não muda o caso pequeno
        assert "esperava 768 000 bytes" in veredito.mensagem  # o caso pequeno, em que cada erro dá um número diferente


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
        return _mem_biblioteca(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value)

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


# --- gerar com o KV cache (GQA) ----------------------------------------------------------------------


def _passo_a_passo(X, W_q, W_k, W_v, n_heads, n_kv_heads, *, grupo_de=lambda h, g, n_kv: h // g, ver_a_si=True,
                   futuro=False, ultimo=False, escala=None, softmax=None):
    """Uma geração escrita como um estudante escreveria, com um defeito opcional."""
    n = X.shape[0]
    d_head = W_q.shape[1] // n_heads
    grupo = n_heads // n_kv_heads
    cache_k, cache_v, saidas = [], [], []
    for t in range(n):
        x = X[t]
        if ver_a_si:
            cache_k.append(x @ W_k)
            cache_v.append(x @ W_v)
        if futuro:
            K, V = X @ W_k, X @ W_v
        elif ultimo:
            K, V = (x @ W_k)[None, :], (x @ W_v)[None, :]
        elif cache_k:
            K, V = np.array(cache_k), np.array(cache_v)
        else:
            K = V = None
        q = x @ W_q
        partes = []
        for h in range(n_heads):
            g = grupo_de(h, grupo, n_kv_heads)
            if K is None:
                partes.append(np.zeros(d_head))
                continue
            z = K[:, g * d_head:(g + 1) * d_head] @ q[h * d_head:(h + 1) * d_head] / (escala or np.sqrt(d_head))
            w = softmax(z) if softmax else np.exp(z - z.max()) / np.exp(z - z.max()).sum()
            partes.append(w @ V[:, g * d_head:(g + 1) * d_head])
        saidas.append(np.concatenate(partes))
        if not ver_a_si:
            cache_k.append(x @ W_k)
            cache_v.append(x @ W_v)
    return np.array(saidas)


def _gerar_vetorizado(X, W_q, W_k, W_v, n_heads, n_kv_heads):
    """Certo, de outro jeito: tudo de uma vez, com np.repeat das cabeças de key/value e máscara aditiva −1e9."""
    n = X.shape[0]
    d_head = W_q.shape[1] // n_heads
    Q = (X @ W_q).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    K = np.repeat((X @ W_k).reshape(n, n_kv_heads, d_head).transpose(1, 0, 2), n_heads // n_kv_heads, axis=0)
    V = np.repeat((X @ W_v).reshape(n, n_kv_heads, d_head).transpose(1, 0, 2), n_heads // n_kv_heads, axis=0)
    z = np.einsum("hid,hjd->hij", Q, K) / np.sqrt(d_head) + np.triu(np.full((n, n), -1e9), 1)
    w = np.exp(z - z.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ V).transpose(1, 0, 2).reshape(n, -1).tolist()


def _gerar_float32(X, W_q, W_k, W_v, n_heads, n_kv_heads):
    """Certo, fazendo as contas na dtype que veio (o caso em float32 fica em float32 do começo ao fim)."""
    tipo = np.result_type(X, W_q)
    return _passo_a_passo(*(np.asarray(a, dtype=tipo) for a in (X, W_q, W_k, W_v)), n_heads, n_kv_heads)


def _gerar_com_biblioteca(X, W_q, W_k, W_v, n_heads, n_kv_heads):
    """Certo: um laço que chama attention.scaled_dot_product_attention com o cache, uma cabeça de key/value por vez."""
    n, grupo = X.shape[0], n_heads // n_kv_heads
    cache_k, cache_v, saidas = [], [], []
    for t in range(n):
        cache_k.append(attention.split_heads((X[t] @ W_k)[None, :], n_kv_heads)[:, 0])
        cache_v.append(attention.split_heads((X[t] @ W_v)[None, :], n_kv_heads)[:, 0])
        q = attention.split_heads((X[t] @ W_q)[None, :], n_heads)[:, 0]       # (n_heads, d_head)
        K, V = np.stack(cache_k, axis=1), np.stack(cache_v, axis=1)         # (n_kv, t+1, d_head)
        saida, _ = attention.scaled_dot_product_attention(q[:, None, :], K[np.arange(n_heads) // grupo],
                                                          V[np.arange(n_heads) // grupo])
        saidas.append(saida[:, 0].reshape(-1))
    return saidas


@pytest.mark.parametrize("fn", [_passo_a_passo, _gerar_vetorizado, _gerar_float32, _gerar_com_biblioteca])
def test_gerar_gqa_aceita_respostas_certas_escritas_de_outro_jeito(fn):
    v = corrigir(licao.GERAR_GQA, fn)
    assert v.ok, v.mensagem


def _sem_max(z):
    return np.exp(z) / np.exp(z).sum()


def _menos_min(z):
    return np.exp(z - z.min()) / np.exp(z - z.min()).sum()


EXEMPLOS_GERAR = {
    "grupos intercalados (h % n_kv_heads)": lambda *a: _passo_a_passo(*a, grupo_de=lambda h, g, n_kv: h % n_kv),
    "olhou o futuro (sem a máscara causal)": lambda *a: _passo_a_passo(*a, futuro=True),
    "o token não se vê (cache atualizado depois)": lambda *a: _passo_a_passo(*a, ver_a_si=False),
    "só o último token no cache": lambda *a: _passo_a_passo(*a, ultimo=True),
    "sem escala": lambda *a: _passo_a_passo(*a, escala=1.0),
    "escala com a largura toda": lambda X, W_q, *r: _passo_a_passo(X, W_q, *r, escala=np.sqrt(W_q.shape[1])),
    "sem subtrair o máximo (instável)": lambda *a: _passo_a_passo(*a, softmax=_sem_max),
    "subtraiu o mínimo (instável)": lambda *a: _passo_a_passo(*a, softmax=_menos_min),
    # numa linha só (uma query por vez), o "máximo do lote" é o máximo da linha: o erro aparece quando o estudante
    # calcula os escores de todas as cabeças juntos e subtrai um máximo só
    "um máximo só para o lote inteiro (instável)": None,
}


def _lote_com_um_maximo(X, W_q, W_k, W_v, n_heads, n_kv_heads):
    n, d_head, grupo = X.shape[0], W_q.shape[1] // n_heads, n_heads // n_kv_heads
    saidas = []
    for t in range(n):
        Kh = (X[: t + 1] @ W_k).reshape(t + 1, n_kv_heads, d_head)[:, np.arange(n_heads) // grupo]  # (t+1, h, d)
        Vh = (X[: t + 1] @ W_v).reshape(t + 1, n_kv_heads, d_head)[:, np.arange(n_heads) // grupo]
        q = (X[t] @ W_q).reshape(n_heads, d_head)
        z = np.einsum("hd,jhd->hj", q, Kh) / np.sqrt(d_head)
        e = np.exp(z - z.max())                     # um máximo só para todas as cabeças
        w = e / e.sum(axis=-1, keepdims=True)
        saidas.append(np.einsum("hj,jhd->hd", w, Vh).reshape(-1))
    return np.array(saidas)


EXEMPLOS_GERAR["um máximo só para o lote inteiro (instável)"] = _lote_com_um_maximo


@pytest.mark.parametrize("nome", list(EXEMPLOS_GERAR))
def test_gerar_gqa_da_nome_a_cada_erro(nome):
    confere_erro_nomeado(licao.GERAR_GQA, EXEMPLOS_GERAR, nome)


def test_gerar_gqa_esqueleto_e_pendente():
    def esqueleto(*_a):
        raise NotImplementedError

    assert corrigir(licao.GERAR_GQA, esqueleto).erro == "pendente"
    assert licao.corrigir_gerar_gqa(esqueleto).erro == "pendente"


def _celula_com(trecho):
    celulas = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    achadas = ["".join(c["source"]) for c in celulas if c["cell_type"] == "code" and trecho in "".join(c["source"])]
    assert len(achadas) == 1, trecho
    return achadas[0]


def _do_esqueleto(passo1, passo2):
    """O esqueleto do Exercício 2 (do notebook), com os dois passos marcados preenchidos como um estudante faria."""
    fonte = _celula_com("def gerar_com_cache")
    fonte = fonte.replace("        # 1. guarde a key e o value do token t no cache", passo1 + "\n        # 1.")
    fonte = fonte.replace('            raise NotImplementedError("complete aqui")', passo2)
    ns = {"np": np}
    exec(fonte, ns)
    return ns["gerar_com_cache"]


_PASSO1 = "        cache_k.append(x_t @ W_k)\n        cache_v.append(x_t @ W_v)"
_PASSO2 = """            g = h // grupo
            z = K[:, g * d_head:(g + 1) * d_head] @ q[h * d_head:(h + 1) * d_head] / np.sqrt(d_head)
            w = np.exp(z - z.max())
            partes.append((w / w.sum()) @ V[:, g * d_head:(g + 1) * d_head])"""


def test_gerar_gqa_o_esqueleto_do_notebook_e_pendente_e_completado_passa(capsys):
    fonte = _celula_com("def gerar_com_cache")
    ns = {"np": np}
    exec(fonte, ns)
    assert licao.check_gerar_gqa(ns["gerar_com_cache"]) is False
    assert "ainda não foi implementada" in capsys.readouterr().out
    assert licao.corrigir_gerar_gqa(_do_esqueleto(_PASSO1, _PASSO2)).ok


@pytest.mark.parametrize("passo1", ["", "        pass"], ids=["esqueceu o passo 1", "passo 1 vazio"])
def test_gerar_gqa_cache_vazio_no_passo_0_e_o_token_que_nao_se_ve(passo1, capsys):
    """Sem o token novo no cache antes da atenção, o passo 0 quebra (K vazio): o corretor dá o nome do erro."""
    fn = _do_esqueleto(passo1, _PASSO2)
    assert corrigir(licao.GERAR_GQA, fn).erro in ("excecao", "forma")  # o corretor genérico só vê a exceção
    v = licao.corrigir_gerar_gqa(fn)
    assert not v.ok and v.erro == "o token não se vê (cache atualizado depois)", v.mensagem
    assert v.mensagem.startswith("❌") and "cache ainda vazio" in v.mensagem and "seção" not in v.mensagem
    assert licao.check_gerar_gqa(fn) is False
    assert "guarde primeiro a key e o value" in capsys.readouterr().out


def test_gerar_gqa_cache_atualizado_depois_da_atencao_quebra_e_e_nomeado():
    """O jeito mais natural de atualizar o cache depois: no fim do passo, depois das cabeças."""
    fonte = _celula_com("def gerar_com_cache")
    fonte = fonte.replace('            raise NotImplementedError("complete aqui")', _PASSO2)
    fonte = fonte.replace("        saidas.append(np.concatenate(partes))",
                          "        saidas.append(np.concatenate(partes))\n" + _PASSO1)
    ns = {"np": np}
    exec(fonte, ns)
    assert licao.corrigir_gerar_gqa(ns["gerar_com_cache"]).erro == "o token não se vê (cache atualizado depois)"


def test_gerar_gqa_outra_excecao_no_passo_0_continua_generica():
    """Com o cache já preenchido, uma exceção no passo 0 é outro erro: o corretor mostra a exceção."""
    fn = _do_esqueleto(_PASSO1, "            partes.append(q @ K)")  # formas que não se multiplicam
    v = licao.corrigir_gerar_gqa(fn)
    assert not v.ok and v.erro in ("excecao", "forma"), v.mensagem
    assert v == corrigir(licao.GERAR_GQA, fn)


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
