"""A base dos painéis: o redesenho parcial dá a mesma imagem que o completo, e o PNG é sem perdas.

Todo ``painel_*`` das lições (descobertos sozinhos, como no benchmark) é conferido contra um gêmeo
que redesenha a figura inteira a cada movimento: depois de cada movimento de cada controle, as duas
imagens têm de ser idênticas, pixel a pixel. Um painel novo entra na conferência sem fazer nada.
"""

from __future__ import annotations

import io

import ipywidgets as W
import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from benchmarks.latencia import movimentos
from helpers import plots
from helpers._redesenho import Redesenho
from helpers.paineis import Painel, casas_do_passo, slider
from tools.notebooks import paineis

PAINEIS = paineis()


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def _iguais(a: bytes, b: bytes) -> bool:
    pa, pb = _pixels(a), _pixels(b)
    return pa.shape == pb.shape and bool((pa == pb).all())


def _so_completo(painel: Painel) -> Painel:
    """O painel passa a redesenhar a figura inteira a cada movimento (a referência da conferência)."""
    painel._redesenho._suportado = False
    return painel


@pytest.fixture(autouse=True)
def _estilo_padrao():
    antes = mpl.rcParams.copy()
    plots.modo_padrao()
    yield
    mpl.rcParams.update(antes)


#: painéis cujo movimento redesenha a figura inteira de propósito: no do treino, ``passos`` muda o limite
#: do eixo x (a curva inteira se move) e ``semente`` só muda o texto (a figura nem é refeita)
SO_COMPLETO = {"painel_treino"}


@pytest.mark.parametrize("nome", PAINEIS)
def test_redesenho_parcial_da_a_mesma_imagem_que_o_completo(nome):
    rapido, completo = PAINEIS[nome](), _so_completo(PAINEIS[nome]())
    assert _iguais(bytes(rapido.imagem.value), bytes(completo.imagem.value))
    movidos = 0
    for controle in rapido.controles:
        acoes = zip(movimentos(rapido.controles[controle], 4) or [], movimentos(completo.controles[controle], 4) or [])
        for mover_rapido, mover_completo in acoes:
            try:
                mover_rapido()
            except Exception:  # um valor que deixou de valer (opções que dependem de outro controle)
                continue
            mover_completo()
            movidos += 1
            assert _iguais(bytes(rapido.imagem.value), bytes(completo.imagem.value)), (nome, controle, movidos)
    assert movidos >= 4
    if nome in SO_COMPLETO:
        return
    r = rapido._redesenho
    # e o parcial é o caso comum: um painel que refaz a figura inteira a cada movimento (porque muda
    # os limites de um eixo, ou cria artistas novos) perde o ganho sem errar a imagem — e sem avisar
    assert r.parciais >= 0.6 * movidos, f"{nome}: só {r.parciais} de {movidos} movimentos foram parciais"


def test_o_parcial_respeita_a_ordem_de_desenho():
    """Uma barra que muda fica sob a grade e sob um texto fixo, como no desenho completo."""
    def painel(so_completo: bool) -> Painel:
        fig = Figure(figsize=(4, 3))
        ax = fig.subplots()
        ax.grid(True)
        ax.set_ylim(0, 1)
        barra = ax.bar([0], [0.5], color="tab:orange")[0]
        ax.text(0, 0.45, "texto fixo por cima", ha="center", fontsize=14)

        def calcular(v):
            barra.set_height(v["altura"])
            return {"altura": v["altura"]}

        p = Painel(fig, {"altura": slider("altura", 0.5, 0.0, 1.0, 0.05)}, calcular)
        return _so_completo(p) if so_completo else p

    rapido, completo = painel(False), painel(True)
    for altura in (0.9, 0.2, 0.45, 1.0):
        rapido.controles["altura"].value = altura
        completo.controles["altura"].value = altura
        assert _iguais(bytes(rapido.imagem.value), bytes(completo.imagem.value)), altura
    assert rapido._redesenho.parciais >= 3


def _figura_com(ax_fn):
    fig = Figure(figsize=(3, 2))
    ax = fig.subplots()
    return fig, ax, ax_fn(ax)


def test_mudancas_estruturais_redesenham_tudo():
    """Limites que mudam, artistas criados e anotações movidas por ``xy``: a imagem continua certa."""
    fig, ax, linha = _figura_com(lambda ax: ax.plot([0, 1], [0, 1])[0])
    seta = ax.annotate("", xy=(0.5, 0.5), xytext=(0, 0), arrowprops=dict(arrowstyle="->"))
    r = Redesenho(fig)
    r.desenhar()
    r.aprender(lambda: linha.set_ydata([0, 1]))

    def confere():
        r.desenhar()
        parcial = r.pixels().copy()
        fig.canvas.draw()  # a referência: o desenho completo (o fundo guardado continua valendo)
        assert (parcial == np.asarray(fig.canvas.buffer_rgba())).all()

    linha.set_ydata([1, 0])
    confere()
    ax.set_xlim(-1, 2)  # os limites mudam: tudo de novo
    confere()
    ax.text(0.5, 0.5, "novo")  # um artista novo
    confere()
    seta.xy = (0.9, 0.1)  # uma anotação estática que só troca xy (o matplotlib não a marca)
    confere()
    seta.xy = (0.1, 0.9)
    confere()


def test_legenda_best_e_dinamica():
    fig, ax, linha = _figura_com(lambda ax: ax.plot([0, 1], [0, 1], label="linha")[0])
    ax.legend()  # loc="best": muda de lugar quando os dados mudam
    r = Redesenho(fig)
    r.desenhar()
    r.aprender(lambda: linha.set_ydata([0, 1]))
    for y in ([1, 0], [0.5, 0.5], [0, 1]):
        linha.set_ydata(y)
        r.desenhar()
        parcial = r.pixels().copy()
        fig.canvas.draw()
        assert (parcial == np.asarray(fig.canvas.buffer_rgba())).all()


@pytest.mark.parametrize("canais", [3, 4])
def test_png_dos_pixels_sem_perdas(canais):
    rng = np.random.default_rng(canais)
    rgba = rng.integers(0, 256, size=(31, 47, 4), dtype=np.uint8)
    if canais == 3:
        rgba[..., 3] = 255  # opaca: sai sem o canal alfa
    png = plots.png_dos_pixels(rgba)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    imagem = Image.open(io.BytesIO(png))
    assert imagem.mode == ("RGB" if canais == 3 else "RGBA")
    assert (np.asarray(imagem.convert("RGBA")) == rgba).all()


def test_png_da_figura_e_o_do_savefig():
    fig = Figure(figsize=(3, 2))
    fig.subplots().plot([0, 1, 2], [2, 0, 1], label="x")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert (_pixels(plots.png(fig)) == _pixels(buf.getvalue())).all()


def test_controle_sem_redesenho_parcial_continua_funcionando():
    """Uma figura que o parcial não sabe decompor (subfiguras) é desenhada inteira, sem erro."""
    fig = Figure(figsize=(4, 2))
    sub = fig.subfigures(1, 2)
    ax = sub[0].subplots()
    linha, = ax.plot([0, 1], [0, 1])

    def calcular(v):
        linha.set_ydata([0, v["y"]])
        return {}

    p = Painel(fig, {"y": W.FloatSlider(value=1.0, min=0.0, max=2.0)}, calcular)
    antes = bytes(p.imagem.value)
    p.controles["y"].value = 0.0
    assert bytes(p.imagem.value) != antes
    assert p._redesenho.parciais == 0


@pytest.mark.parametrize(("passo", "casas", "mostra"), [(5, 0, "165"), (1.0, 0, "165"), (0.1, 1, "0.3"), (0.5, 1, "0.3"),
                                                       (0.25, 2, "0.30"), (0.05, 2, "0.30"), (0.001, 3, "0.300")])
def test_slider_mostra_o_valor_com_as_casas_do_passo(passo, casas, mostra):
    assert casas_do_passo(passo) == casas
    s = slider("x", 165 if casas == 0 else 0.3, 0, 200, passo)
    assert format(s.value, s.readout_format) == mostra
    # quem pede outro formato fica com ele
    assert slider("z", 0.5, 0, 1, 0.001, readout_format=".2f").readout_format == ".2f"


def test_coluna_de_controles_cresce_so_no_espaco_que_sobra():
    """A coluna quebra a linha como se tivesse a largura do controle mais largo e depois cresce até 160 px;
    os sliders de largura fixa acompanham a coluna (trilho mais longo), os outros controles ficam como estão."""
    fig = Figure(figsize=(2, 2))
    fig.subplots()
    menu = W.Dropdown(options=["a", "b"], layout=W.Layout(width="200px"))
    controles = {"s": slider("um slider", 0.5, 0.0, 1.0), "m": menu,
                 "largo": W.IntSlider(value=1, min=0, max=3, layout=W.Layout(width="400px"))}
    p = Painel(fig, controles, lambda v: {})
    coluna = p.children[0].children[0]
    assert coluna.children == tuple(controles.values())
    assert (coluna.layout.flex, coluna.layout.min_width, coluna.layout.max_width) == ("1 1 410px", "410px", "570px")
    assert controles["s"].layout.width == controles["largo"].layout.width == "100%"
    assert menu.layout.width == "200px"
    # sem controles largos, a coluna tem o mínimo de sempre
    p = Painel(fig, {"s": slider("um slider", 0.5, 0.0, 1.0)}, lambda v: {})
    assert p.children[0].children[0].layout.flex == "1 1 330px"



def _painel_de_matriz(so_completo: bool, interpolacao: str, origem: str, forma: tuple[int, int],
                      tamanho: tuple[float, float] = (4, 3)) -> Painel:
    """Um mapa de calor com números nas células; o slider muda só a célula (1, 2)."""
    fig = Figure(figsize=tamanho)
    ax = fig.subplots()
    dados = np.arange(forma[0] * forma[1], dtype=float).reshape(forma) / (forma[0] * forma[1])
    img = ax.imshow(dados, vmin=0, vmax=1, interpolation=interpolacao, origin=origem)
    textos = [[ax.text(j, i, f"{dados[i, j]:.2f}", ha="center", va="center", fontsize=6) for j in range(min(forma[1], 6))]
              for i in range(min(forma[0], 6))]

    def calcular(v):
        novos = dados.copy()
        novos[1, 2] = v["c"]
        img.set_data(novos)
        for i, linha in enumerate(textos):
            for j, t in enumerate(linha):
                t.set_text(f"{novos[i, j]:.2f}")
                t.set_color("white" if novos[i, j] < 0.5 else "black")  # marca o texto mesmo sem mudar a cor
        return {}

    p = Painel(fig, {"c": slider("c", float(dados[1, 2]), 0.0, 1.0, 0.05)}, calcular)
    return _so_completo(p) if so_completo else p


@pytest.mark.parametrize("interpolacao, origem, forma, tamanho", [
    ("nearest", "upper", (4, 5), (4, 3)),
    ("antialiased", "lower", (4, 5), (4, 3)),  # ampliada mais de 3×: vizinho mais próximo, só as células
    ("antialiased", "upper", (60, 80), (2, 1.5)),  # reduzida: o filtro mistura vizinhas, vale a área inteira
    ("bilinear", "upper", (4, 5), (4, 3)),
])
def test_imagem_que_muda_numa_celula(interpolacao, origem, forma, tamanho):
    """Só as células que mudaram são redesenhadas quando cada pixel vem de uma célula; a imagem é a do completo."""
    rapido = _painel_de_matriz(False, interpolacao, origem, forma, tamanho)
    completo = _painel_de_matriz(True, interpolacao, origem, forma, tamanho)
    r = rapido._redesenho
    eixo = rapido.fig.axes[0].bbox
    for c in (0.9, 0.1, 0.55, 0.3):
        rapido.controles["c"].value = c
        completo.controles["c"].value = c
        assert _iguais(bytes(rapido.imagem.value), bytes(completo.imagem.value)), (interpolacao, c)
        area = sum(b.width * b.height for b in r.regioes)
        if interpolacao == "nearest" or (interpolacao == "antialiased" and forma == (4, 5)):
            assert 0 < area < 0.25 * eixo.width * eixo.height, (interpolacao, area)  # uma célula e os vizinhos dela
        else:
            assert area >= eixo.width * eixo.height  # o eixo inteiro
    assert r.parciais >= 4 and r.completos == 1


def test_o_que_nao_mudou_nao_e_redesenhado():
    """Refazer os mesmos textos, as mesmas cores e os mesmos dados (tudo marcado como mudado) não redesenha nada."""
    p = _painel_de_matriz(False, "nearest", "upper", (4, 5))
    antes = bytes(p.imagem.value)
    p.atualizar()
    assert p._redesenho.regioes == []
    assert bytes(p.imagem.value) == antes


def test_figura_estatica_nao_estraga_o_redesenho_parcial():
    """A figura estática do painel da revisão desenha a figura inteira (sem os quadros vazios): depois
    dela, os movimentos continuam parciais, com a imagem do desenho completo."""
    rapido, completo = PAINEIS["painel_mecanismo"](), _so_completo(PAINEIS["painel_mecanismo"]())
    rapido.figura_estatica()
    r = rapido._redesenho
    completos = r.completos
    for nome, valor in (("q_x", 0.3), ("k_y", -1.2), ("q_y", 1.5)):
        rapido.controles[nome].value = valor
        completo.controles[nome].value = valor
        assert _iguais(bytes(rapido.imagem.value), bytes(completo.imagem.value)), nome
    assert r.completos == completos, r.motivo


@pytest.mark.parametrize("opaca", [True, False])
def test_codificador_png_reaproveita_as_faixas_iguais(opaca):
    """Cada PNG do codificador é a imagem exata; uma mudança numa faixa só comprime aquela faixa de novo."""
    rng = np.random.default_rng(7)
    rgba = rng.integers(0, 256, size=(100, 37, 4), dtype=np.uint8)
    if opaca:
        rgba[..., 3] = 255
    cod = plots.CodificadorPng(linhas_por_faixa=10)
    primeiro = cod.png(rgba)
    assert cod.comprimidas == 10
    assert (_pixels(primeiro) == rgba).all()
    assert Image.open(io.BytesIO(primeiro)).mode == ("RGB" if opaca else "RGBA")
    rgba[42, 5] = (1, 2, 3, 255 if opaca else 9)  # a linha 42 muda: o filtro "Up" muda as linhas 42 e 43
    segundo = cod.png(rgba)
    assert cod.comprimidas == 1
    assert (_pixels(segundo) == rgba).all()
    rgba[49:51, :, :3] = 0  # duas faixas (40–49 e 50–59), e a linha 51 filtrada contra uma de zeros
    assert (_pixels(cod.png(rgba)) == rgba).all() and cod.comprimidas == 2
    assert (_pixels(cod.png(rgba[:60])) == rgba[:60]).all() and cod.comprimidas == 6  # outro tamanho: tudo de novo
    with pytest.raises(ValueError, match="linhas_por_faixa"):
        plots.CodificadorPng(0)
