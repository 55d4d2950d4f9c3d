"""Notebook 08: o painel das várias cabeças, as figuras, os corretores e as soluções publicadas.

Os números do painel são comparados com uma conta independente da memória do KV cache, escrita aqui
sem ``helpers.attention`` (``2 · camadas · n_kv_heads · tokens · d_head · bytes``).
"""

from pathlib import Path

import ipywidgets as W
import numpy as np
import pytest

from helpers import attention, checks, plots, widgets
from tests._notebooks import solucoes_do_notebook

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "08_multi_head.ipynb"
D_MODEL, CAMADAS = 4096, 32


def memoria(n_tokens, n_kv, d_head, bytes_por_valor, camadas=CAMADAS):
    """A memória do KV cache, contada à parte: key e value, por camada, cabeça de key/value e token."""
    total = 0
    for _kv in ("key", "value"):
        total += camadas * n_kv * n_tokens * d_head * bytes_por_valor
    return total


def confere_estado(p):
    """O estado do painel bate com a conta independente para os valores atuais dos controles."""
    e = p.estado
    n_h, n_kv = p.controles["n_heads"].value, p.controles["n_kv_heads"].value
    n_t, b = p.controles["n_tokens"].value, p.controles["bytes_por_valor"].value
    d_head = D_MODEL // n_h
    assert (e["n_heads"], e["n_kv_heads"], e["n_tokens"], e["bytes_por_valor"]) == (n_h, n_kv, n_t, b)
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
    p = widgets.painel_cabecas()
    e = confere_estado(p)
    assert (e["n_heads"], e["n_kv_heads"], e["d_head"], e["n_tokens"], e["bytes_por_valor"]) == (32, 8, 128, 4096, 2)
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
    p = widgets.painel_cabecas()
    for nome in p.controles:
        c = p.controles[nome]
        png, texto, estado = p.imagem.value, p.texto.value, dict(p.estado)
        c.index = c.index + 1
        confere_estado(p)
        assert p.imagem.value != png, nome
        assert p.texto.value != texto, nome
        numeros = ("n_heads", "n_kv_heads", "n_tokens", "bytes_por_valor", "bytes_escolha")
        assert any(p.estado[k] != estado[k] for k in numeros), nome


def test_n_heads_com_d_model_fixo():
    p = widgets.painel_cabecas()
    p.controles["n_heads"].value = 64  # d_head cai pela metade; n_kv = 8 continua válido
    e = confere_estado(p)
    assert (e["d_head"], e["n_kv_heads"], e["grupo"]) == (64, 8, 8)
    assert e["bytes_mha"] == 2 * 2**30  # MHA: n_heads · d_head = d_model, a memória não muda
    assert e["bytes_escolha"] == 256 * 2**20
    assert list(p.controles["n_kv_heads"].options) == [1, 2, 4, 8, 16, 32, 64]


def test_opcoes_de_n_kv_sao_os_divisores_e_a_escolha_se_ajusta():
    p = widgets.painel_cabecas()
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
    p = widgets.painel_cabecas()
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
    p = widgets.painel_cabecas()
    for n_h in p.controles["n_heads"].options:
        p.controles["n_heads"].value = n_h
        for n_kv in list(p.controles["n_kv_heads"].options):
            p.controles["n_kv_heads"].value = n_kv
            e = confere_estado(p)
            assert e["bytes_escolha"] <= e["bytes_mha"] and e["bytes_escolha"] >= e["bytes_mqa"]
    for controle in (p.controles["n_tokens"], p.controles["bytes_por_valor"]):
        for i in range(len(controle.options)):
            controle.index = i
            confere_estado(p)


def test_contexto_e_precisao_escalam_a_memoria():
    p = widgets.painel_cabecas()
    base = p.estado["bytes_escolha"]
    p.controles["n_tokens"].value = 8192
    assert p.estado["bytes_escolha"] == 2 * base
    p.controles["bytes_por_valor"].value = 1  # int8: metade de fp16
    assert p.estado["bytes_escolha"] == base and "1.00 GiB" not in p.texto.value
    p.controles["bytes_por_valor"].value = 4
    assert p.estado["bytes_escolha"] == 4 * base and "2.00 GiB" in p.texto.value


def test_definir_aplica_n_heads_primeiro_e_recusa_combinacao_invalida():
    p = widgets.painel_cabecas()
    e = p.definir(n_kv_heads=2, n_heads=8)  # n_heads vem primeiro mesmo fora de ordem
    assert (e["n_heads"], e["n_kv_heads"], e["mapa"]) == (8, 2, [0, 0, 0, 0, 1, 1, 1, 1])
    confere_estado(p)
    with pytest.raises(ValueError, match="não divide n_heads=8"):
        p.definir(n_kv_heads=16)
    with pytest.raises(ValueError, match="não tem o controle"):
        p.definir(camadas=3)
    with pytest.raises(ValueError, match="não divide n_heads=32"):
        widgets.painel_cabecas(n_kv_heads=3)
    with pytest.raises(ValueError, match="precisa dividir d_model"):
        widgets.painel_cabecas(n_heads=3)


def test_controles_sao_selecoes_fora_do_extremo():
    """Todo controle aceita um passo para a direita a partir do padrão (o teste de navegador faz isso)."""
    p = widgets.painel_cabecas()
    for c in p.controles.values():
        assert isinstance(c, W.SelectionSlider) and 0 < c.index < len(c.options) - 1


def test_auxiliares_de_grupo():
    assert widgets.divisores(12) == [1, 2, 3, 4, 6, 12]
    assert widgets.grupo_kv(8, 2) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert widgets.grupo_kv(6, 3) == [0, 0, 1, 1, 2, 2]
    assert widgets.grupo_kv(4, 1) == [0, 0, 0, 0] and widgets.grupo_kv(4, 4) == [0, 1, 2, 3]


# --- figuras ---------------------------------------------------------------------------------------


def test_formatar_bytes():
    assert plots.formatar_bytes(2 * 2**30) == "2.00 GiB"
    assert plots.formatar_bytes(512 * 2**20) == "512 MiB"
    assert plots.formatar_bytes(64 * 2**20) == "64.0 MiB"
    assert plots.formatar_bytes(16 * 2**10) == "16.0 KiB"
    assert plots.formatar_bytes(128 * 2**30) == "128 GiB"
    assert plots.formatar_bytes(100) == "100 bytes"


def test_figuras_estaticas():
    import matplotlib.pyplot as plt

    w = attention.softmax(np.arange(9.0).reshape(3, 3))
    fig = plots.figura_mapas_cabecas([w, w.T], ["a", "b", "c"], ["cabeça 0", "cabeça 1"])
    assert len(fig.axes) == 2 and fig.axes[0].get_title() == "cabeça 0"
    textos = [t.get_text() for t in fig.axes[0].texts]
    assert f"{w[2, 2]:.2f}" in textos
    plt.close(fig)
    mem = {"MHA": [2 * 2**30, 4 * 2**30], "GQA": [2**29, 2**30]}
    fig = plots.figura_kv_cache([4096, 8192], mem, titulo="t")
    alturas = [round(b.get_height(), 6) for b in fig.axes[0].patches]
    assert alturas == [2.0, 4.0, 0.5, 1.0]
    assert len(plots.png(fig)) > 1000
    plt.close(fig)


# --- corretores ------------------------------------------------------------------------------------


def _dividir_certo(x, n_heads):
    n, largura = x.shape
    return x.reshape(n, n_heads, largura // n_heads).transpose(1, 0, 2)


def _dividir_split(x, n_heads):
    return np.stack(np.split(x, n_heads, axis=1))


ERROS_DIVIDIR = {
    "reshape direto": (lambda x, h: x.reshape(h, x.shape[0], x.shape[1] // h), "reshape(n_heads, n, d_head) direto"),
    "sem transpor": (lambda x, h: x.reshape(x.shape[0], h, x.shape[1] // h), "Faltou a transposição"),
    "intercaladas": (lambda x, h: x.reshape(x.shape[0], x.shape[1] // h, h).transpose(2, 0, 1), "Colunas intercaladas"),
    "ordem invertida": (lambda x, h: _dividir_certo(x, h)[::-1], "ordem invertida"),
    "cabeça transposta": (lambda x, h: _dividir_certo(x, h).transpose(0, 2, 1), "Cada cabeça saiu transposta"),
    "h e d_head trocados": (lambda x, h: x.reshape(x.shape[0], x.shape[1] // h, h).transpose(1, 0, 2),
                            "trocou n_heads e d_head"),
    "linhas divididas": (lambda x, h: np.stack(np.split(x, h, axis=0)), "dividiu as **linhas**"),
}


@pytest.mark.parametrize("fn", [_dividir_certo, _dividir_split, attention.split_heads])
def test_dividir_cabecas_aceita_o_certo(fn, capsys):
    assert checks.check_dividir_cabecas(fn) is True
    assert "✅" in capsys.readouterr().out


@pytest.mark.parametrize("nome", list(ERROS_DIVIDIR))
def test_dividir_cabecas_reconhece_cada_erro(nome, capsys):
    fn, trecho = ERROS_DIVIDIR[nome]
    assert checks.check_dividir_cabecas(fn) is False
    saida = capsys.readouterr().out
    assert "❌" in saida and trecho in saida, saida


def test_dividir_cabecas_mostra_a_cabeca_0_com_numeros_rotulados(capsys):
    checks.check_dividir_cabecas(ERROS_DIVIDIR["reshape direto"][0])
    saida = capsys.readouterr().out
    assert "[[ 0  1  2]\n [ 3  4  5]\n [10 11 12]\n [13 14 15]]" in saida  # a cabeça 0 errada mistura tokens
    assert "[[ 0  1  2]\n [10 11 12]\n [20 21 22]\n [30 31 32]]" in saida  # a certa


def _esqueleto(*_args):
    raise NotImplementedError("complete aqui")


@pytest.mark.parametrize("checar", [checks.check_dividir_cabecas, checks.check_cabeca_kv, checks.check_memoria_kv])
def test_esqueleto_recebe_aviso_amigavel(checar, capsys):
    assert checar(_esqueleto) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


ERROS_KV = {
    "resto": (lambda h, nh, nk: h % nk, "h % n_kv_heads"),
    "divide por n_kv": (lambda h, nh, nk: h // nk, "h // n_kv_heads"),
    "começa em 1": (lambda h, nh, nk: h // (nh // nk) + 1, "começam em 1"),
    "tamanho do grupo": (lambda h, nh, nk: nh // nk, "tamanho do grupo"),
    "divisão comum": (lambda h, nh, nk: h / (nh / nk), "divisão inteira"),
}


@pytest.mark.parametrize("fn", [lambda h, nh, nk: h // (nh // nk), lambda h, nh, nk: h * nk // nh,
                                lambda h, nh, nk: np.int64(h) // (nh // nk)])
def test_cabeca_kv_aceita_o_certo(fn, capsys):
    assert checks.check_cabeca_kv(fn) is True
    assert "✅" in capsys.readouterr().out


@pytest.mark.parametrize("nome", list(ERROS_KV))
def test_cabeca_kv_reconhece_cada_erro(nome, capsys):
    fn, trecho = ERROS_KV[nome]
    assert checks.check_cabeca_kv(fn) is False
    saida = capsys.readouterr().out
    assert "❌" in saida and trecho in saida, saida


def _mem(fator_2=2, usar_heads=False, bits=False, unidade=1.0, camadas=True):
    def f(n_tokens, n_camadas, n_heads, n_kv_heads, d_head, bits_por_valor):
        cabecas = n_heads if usar_heads else n_kv_heads
        por_valor = bits_por_valor if bits else bits_por_valor / 8
        return fator_2 * (n_camadas if camadas else 1) * cabecas * n_tokens * d_head * por_valor / unidade
    return f


ERROS_MEM = {
    "sem o 2": (_mem(fator_2=1), "Faltou o fator 2"),
    "n_heads": (_mem(usar_heads=True), "Você usou n_heads"),
    "bits": (_mem(bits=True), "Você contou bits, não bytes"),
    "bits e sem o 2": (_mem(bits=True, fator_2=1), "contou bits em vez de bytes (divida por 8) e esqueceu o fator 2"),
    "n_heads e sem o 2": (_mem(usar_heads=True, fator_2=1), "Dois erros: usou n_heads no lugar de n_kv_heads (o cache"),
    "n_heads e bits": (_mem(usar_heads=True, bits=True), "contou bits em vez de bytes."),
    "sem camadas": (_mem(camadas=False), "Faltaram as camadas"),
    "GiB": (_mem(unidade=2**30), "você devolveu GiB"),
    "MiB": (_mem(unidade=2**20), "você devolveu MiB"),
    "GB": (_mem(unidade=1e9), "você devolveu GB"),
    "dividiu duas vezes": (_mem(unidade=8), "dividiu por 8 duas vezes"),
}


def test_memoria_kv_aceita_o_certo(capsys):
    assert checks.check_memoria_kv(_mem()) is True
    assert "536 870 912 bytes = 512 MiB" in capsys.readouterr().out

    def com_biblioteca(n_tokens, n_camadas, n_heads, n_kv_heads, d_head, bits_por_valor):
        return attention.kv_cache_bytes(n_tokens, n_camadas, n_kv_heads, d_head, bits_por_valor // 8)

    assert checks.check_memoria_kv(com_biblioteca) is True


@pytest.mark.parametrize("nome", list(ERROS_MEM))
def test_memoria_kv_reconhece_cada_erro(nome, capsys):
    fn, trecho = ERROS_MEM[nome]
    assert checks.check_memoria_kv(fn) is False
    saida = capsys.readouterr().out
    assert "❌" in saida and trecho in saida, saida
    assert "esperava 768 000 bytes" in saida  # o caso pequeno, em que cada erro dá um número diferente


def test_memoria_kv_erro_desconhecido_e_resposta_nao_numerica(capsys):
    assert checks.check_memoria_kv(lambda *a: 3) is False
    assert "Confira cada fator" in capsys.readouterr().out
    assert checks.check_memoria_kv(lambda *a: "muito") is False
    assert "deve ser um número" in capsys.readouterr().out


# --- as soluções publicadas no notebook passam no corretor -----------------------------------------


def _solucoes():
    return solucoes_do_notebook(NOTEBOOK)


def test_solucoes_do_notebook_passam_no_corretor(capsys):
    blocos = _solucoes()
    assert len(blocos) == 3
    ns: dict = {"np": np}
    for bloco in blocos:
        exec(bloco, ns)
    assert checks.check_dividir_cabecas(ns["dividir_cabecas"]) is True
    assert checks.check_cabeca_kv(ns["cabeca_kv"]) is True
    assert checks.check_memoria_kv(ns["memoria_kv_bytes"]) is True
    assert capsys.readouterr().out.count("✅") == 3
