"""A base dos painéis: o blitting dá a mesma imagem que desenhar do zero, o PNG é sem perdas e nada em
``helpers/`` usa um nome privado do matplotlib.

Todo ``painel_*`` das lições (descobertos sozinhos, como no benchmark) é conferido: depois de cada
movimento de cada controle, a imagem mostrada (fundo guardado + animados desenhados por cima) tem de
ser, pixel a pixel, a da figura desenhada do zero no mesmo estado — o desenho completo (que pula os
animados) com os animados desenhados por último, na ordem de ``zorder``. Um painel novo entra na
conferência sem fazer nada.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import ipywidgets as W
import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from benchmarks.latencia import movimentos
from helpers import plots
from helpers.paineis import Painel, casas_do_passo, slider, tabela, tabela_matriz
from tools.notebooks import paineis

PAINEIS = paineis()
HELPERS = Path(__file__).resolve().parents[1] / "helpers"


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _do_zero(painel: Painel) -> np.ndarray:
    """A figura do painel desenhada do zero, no estado atual: o desenho completo (que pula os animados) e
    os lentos e depois os animados por cima, cada grupo na ordem de ``zorder`` — o que o blitting deve reproduzir."""
    painel.canvas.draw()
    for artista in [*painel.lentos, *painel.animados]:
        if artista.get_visible() and (artista.axes is None or artista.axes.get_visible()):
            painel.fig.draw_artist(artista)
    return np.asarray(painel.canvas.buffer_rgba())[..., :3].copy()


@pytest.fixture(autouse=True)
def _estilo_padrao():
    antes = mpl.rcParams.copy()
    plots.modo_padrao()
    yield
    mpl.rcParams.update(antes)


@pytest.mark.parametrize("nome", PAINEIS)
def test_blit_da_a_mesma_imagem_que_desenhar_do_zero(nome):
    painel = PAINEIS[nome]()
    desenhos_antes = painel.blits + painel.completos
    movidos = 0
    for controle in painel.controles:
        ida = movimentos(painel.controles[controle], 4) or []
        for mover in ida + ida[-2::-1]:  # ida e volta, como quem explora um slider
            try:
                mover()
            except Exception:  # um valor que deixou de valer (opções que dependem de outro controle)
                continue
            movidos += 1
            mostrada = _pixels(bytes(painel.imagem.value))
            assert (mostrada == _do_zero(painel)).all(), (nome, controle, movidos)
    assert movidos >= 4
    # e o blit é o caso comum: um painel que refaz a figura inteira a cada movimento (porque muda os limites
    # de um eixo, ou um artista que não declarou animado) perde o ganho sem errar a imagem — e sem avisar.
    # (Um movimento que não muda a figura, como a semente do treino, não a desenha: conta só o que desenhou.)
    desenhos = painel.blits + painel.completos - desenhos_antes
    assert painel.animados, f"{nome}: nenhum artista animado"
    assert desenhos >= 2 and painel.blits >= 0.6 * desenhos, f"{nome}: só {painel.blits} de {desenhos} desenhos foram blits"


def _painel_de_barra(animada: bool) -> tuple[Painel, object, object]:
    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.set_ylim(0, 1)
    barra = ax.bar([0], [0.5], color="tab:orange")[0]
    titulo = ax.set_title("fixo")

    def calcular(v):
        barra.set_height(v["altura"])
        if v["altura"] > 0.95:
            ax.set_ylim(0, 2)  # os limites mudam: o fundo não vale mais
        return {"altura": v["altura"], "html": tabela([("altura", f"{v['altura']:.2f}")])}

    p = Painel(fig, {"altura": slider("altura", 0.5, 0.0, 1.0, 0.05)}, calcular, animados=[barra] if animada else ())
    return p, barra, titulo


def test_so_o_que_e_animado_vai_por_cima_do_fundo_e_o_resto_redesenha_tudo():
    p, barra, titulo = _painel_de_barra(animada=True)
    assert barra.get_animated() and p.completos == 1 and p.blits == 0
    for altura in (0.9, 0.2, 0.45):
        p.controles["altura"].value = altura
        assert (_pixels(bytes(p.imagem.value)) == _do_zero(p)).all(), altura
    assert (p.completos, p.blits) == (1, 3)
    assert "0.45" in p.texto.value and p.estado["altura"] == 0.45
    titulo.set_text("mudou")  # um artista que não é animado muda: o matplotlib marca a figura
    p.controles["altura"].value = 0.3
    assert (p.completos, p.blits) == (2, 3)
    assert (_pixels(bytes(p.imagem.value)) == _do_zero(p)).all()
    p.controles["altura"].value = 1.0  # os limites do eixo mudam dentro das contas: desenho completo
    assert (p.completos, p.blits) == (3, 3)
    assert (_pixels(bytes(p.imagem.value)) == _do_zero(p)).all()
    antes = bytes(p.imagem.value)
    p.controles["altura"].value = 0.6  # o eixo fica com os limites novos; a barra volta a ser só um blit
    assert (p.completos, p.blits) == (3, 4)
    assert bytes(p.imagem.value) != antes


def test_lentos_ficam_guardados_ate_um_deles_mudar():
    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.set_ylim(0, 1)
    lento = ax.bar([0], [0.5], color="tab:blue")[0]
    rapida = ax.bar([1], [0.5], color="tab:orange")[0]
    redesenhos_do_lento = []
    desenhar_original = lento.draw

    def contar(renderer):
        redesenhos_do_lento.append(lento.get_height())
        desenhar_original(renderer)

    lento.draw = contar  # só nesta instância, para contar quantas vezes o lento é desenhado

    def calcular(v):
        rapida.set_height(v["rapida"])
        if lento.get_height() != v["lenta"]:  # como pede o Painel: mexer no lento só quando o valor muda
            lento.set_height(v["lenta"])
        return {}

    controles = {"rapida": slider("rápida", 0.5, 0.0, 1.0, 0.05), "lenta": slider("lenta", 0.5, 0.0, 1.0, 0.05)}
    vazio = ax.text(0.5, 0.5, "")  # um texto vazio não se desenha (e não se desmarca sozinho): não pode forçar redesenho
    p = Painel(fig, controles, calcular, animados=[rapida], lentos=[lento, vazio])
    assert lento.get_animated() and redesenhos_do_lento == [0.5]
    for altura in (0.9, 0.2, 0.45):  # só a rápida muda: o lento vem da cópia guardada
        p.controles["rapida"].value = altura
        assert (_pixels(bytes(p.imagem.value)) == _do_zero(p)).all(), altura
    assert redesenhos_do_lento == [0.5] + [0.5] * 3  # as 3 de _do_zero; nenhuma dos movimentos
    del redesenhos_do_lento[:]
    p.controles["lenta"].value = 0.8  # o lento muda: é redesenhado sobre o fundo, sem desenho completo
    assert redesenhos_do_lento == [0.8] and (p.completos, p.blits) == (1, 4)
    assert (_pixels(bytes(p.imagem.value)) == _do_zero(p)).all()
    p.controles["rapida"].value = 0.1  # e volta a ser guardado
    assert redesenhos_do_lento == [0.8, 0.8]  # o segundo é o de _do_zero
    assert (_pixels(bytes(p.imagem.value)) == _do_zero(p)).all()


def test_sem_animados_todo_movimento_e_um_desenho_completo():
    p, barra, _ = _painel_de_barra(animada=False)
    imagens = set()
    for altura in (0.9, 0.2, 0.45):
        p.controles["altura"].value = altura
        imagens.add(bytes(p.imagem.value))
    assert (p.completos, p.blits) == (4, 0) and len(imagens) == 3 and not barra.get_animated()
    buf = io.BytesIO()
    p.fig.savefig(buf, format="png")  # a referência de sempre: o savefig da figura no mesmo estado
    assert (_pixels(bytes(p.imagem.value)) == _pixels(buf.getvalue())).all()


def test_figura_estatica_e_a_imagem_mostrada():
    p, _, _ = _painel_de_barra(animada=True)
    p.controles["altura"].value = 0.7
    estatica = p.figura_estatica()
    assert estatica.data == bytes(p.imagem.value)
    assert estatica.html == p.texto.value and "0.70" in estatica.html  # os números que o painel mostra


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
    with pytest.raises(ValueError, match="altura, largura, 4"):
        plots.png_dos_pixels(rgba[..., :3])


def test_png_da_figura_e_o_do_savefig():
    fig = Figure(figsize=(3, 2))
    fig.subplots().plot([0, 1, 2], [2, 0, 1], label="x")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert (_pixels(plots.png(fig)) == _pixels(buf.getvalue())).all()


#: uma troca de atributo de uma classe do matplotlib (``Text.set_text = …``, ``_AnnotationBase.xy = …``)
_CLASSES_MPL = re.compile(r"^\s*(?:Artist|Text|Annotation|Axes|Axis|Figure|Legend|Line2D|Patch|FigureCanvasAgg|"
                          r"RendererAgg|FT2Font|_\w+)\.\w+\s*=", re.M)


def _nossos_nomes() -> set[str]:
    """Os nomes privados definidos no próprio ``helpers`` (funções, classes, atributos e módulos nossos)."""
    nomes = {p.stem for p in HELPERS.rglob("_*.py")}
    for arquivo in HELPERS.rglob("*.py"):
        texto = arquivo.read_text(encoding="utf-8")
        nomes |= set(re.findall(r"(?:def|class)\s+(_\w+)", texto))
        nomes |= set(re.findall(r"self\.(_\w+)\s*(?::[^=\n]+)?=", texto))
        nomes |= set(re.findall(r"^\s*(_\w+)\s*(?::[^=\n]+)?=", texto, re.M))
    return nomes


def test_nenhum_nome_privado_do_matplotlib_em_helpers():
    """``helpers/`` só usa a API pública do matplotlib: nenhum ``._nome`` que não seja nosso, nenhum
    ``matplotlib._x`` e nenhuma classe do matplotlib com um atributo trocado."""
    nossos = _nossos_nomes() | {"__init__", "__name__", "__module__", "__dict__", "__class__"}
    achados = []
    for arquivo in sorted(HELPERS.rglob("*.py")):
        texto = arquivo.read_text(encoding="utf-8")
        for numero, linha in enumerate(texto.splitlines(), 1):
            codigo = linha.split("#", 1)[0]
            for m in re.finditer(r"(?:^|[^\w])(matplotlib(?:\.\w+)*\._\w+)", codigo):
                achados.append(f"{arquivo.name}:{numero}: {m.group(1)}")
            for m in re.finditer(r"\.(_[a-z]\w*)", codigo):
                if m.group(1) not in nossos:
                    achados.append(f"{arquivo.name}:{numero}: .{m.group(1)}")
        for m in _CLASSES_MPL.finditer(texto):
            if m.group(0).strip().split(".")[0] not in nossos:
                achados.append(f"{arquivo.name}: {m.group(0).strip()}")
    assert not achados, "nomes privados ou classes trocadas em helpers/:\n" + "\n".join(achados)


def test_a_conferencia_de_nomes_privados_pega_o_que_deve():
    """O padrão da conferência acha os usos de antes (fonte do matplotlib por dentro, troca de método)."""
    nossos = _nossos_nomes()
    for linha in ("fonte._layout(texto)", "renderer._draw_text_glyphs_and_boxes(x)", "legenda._loc"):
        nome = re.search(r"\.(_[a-z]\w*)", linha).group(1)
        assert nome not in nossos, nome
    assert re.search(r"(?:^|[^\w])(matplotlib(?:\.\w+)*\._\w+)", "from matplotlib._mathtext import x")
    assert _CLASSES_MPL.search("Text.set_text = set_text") and _CLASSES_MPL.search("    _AnnotationBase.xy = 1")


def test_tabela_matriz_sem_menos_zero():
    html = tabela_matriz("M", np.array([[-0.004, 1.234], [-0.06, 0.0]]), ["a", "b"], ["0", "1"], casas=2)
    assert "-0.00" not in html and ">0.00<" in html and ">-0.06<" in html and ">1.23<" in html
    assert html.count("<tr>") == 3


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
