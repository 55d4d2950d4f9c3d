"""Estilo de apresentação: ``plots.modo_apresentacao()`` deixa figuras e painéis maiores; ``modo_padrao()`` desfaz.

Vale para o que for criado depois da chamada: figuras estáticas do pyplot/matplotlib e todos os
painéis ``painel_*`` das lições (descobertos sozinhos, como no benchmark).
"""

import statistics

import matplotlib as mpl
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Annotation, Text

from helpers import plots
from helpers.licoes.produto_escalar import painel_produto_escalar
from tools.notebooks import paineis

PAINEIS = paineis()


@pytest.fixture(autouse=True)
def _estilo_restaurado():
    """Nenhum teste deixa o estilo global mudado para os outros."""
    antes = mpl.rcParams.copy()
    plots.modo_padrao()
    yield
    mpl.rcParams.update(antes)


def _fontes(fig: Figure) -> list[float]:
    return [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def _espessura_dos_dados(fig: Figure) -> float:
    """Soma das espessuras das linhas, setas, barras e coleções de dados (sem eixos nem grade)."""
    total = 0.0
    for ax in fig.axes:
        total += sum(linha.get_linewidth() for linha in ax.lines)
        total += sum(p.get_linewidth() for p in ax.patches)
        total += sum(float(sum(c.get_linewidths())) for c in ax.collections)
        total += sum(t.arrow_patch.get_linewidth() for t in ax.texts if isinstance(t, Annotation) and t.arrow_patch)
    return total


def _outro_valor(controle):
    """Um valor válido diferente do atual (slider numérico ou de opções)."""
    if hasattr(controle, "options"):
        valores = [o[1] if isinstance(o, tuple) else o for o in controle.options]
        return valores[-1] if controle.value != valores[-1] else valores[0]
    if isinstance(controle.value, bool):  # caixa de seleção
        return not controle.value
    return controle.max if controle.value != controle.max else controle.min


def _figura_simples() -> Figure:
    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.plot([0, 1, 2], [0, 1, 0], label="q·k")
    ax.set_title("título")
    ax.set_xlabel("x")
    ax.legend()
    return fig


def test_figura_estatica_fica_maior_e_volta():
    padrao = _figura_simples()
    plots.modo_apresentacao()
    grande = _figura_simples()
    plots.modo_padrao()
    de_novo = _figura_simples()

    png_p, _, png_d = (plots.png(f) for f in (padrao, grande, de_novo))  # desenha: cria os rótulos dos eixos
    ax_p, ax_g, ax_d = padrao.axes[0], grande.axes[0], de_novo.axes[0]
    assert ax_g.lines[0].get_linewidth() > ax_p.lines[0].get_linewidth()
    assert ax_g.title.get_fontsize() > ax_p.title.get_fontsize()
    assert ax_g.xaxis.label.get_fontsize() > ax_p.xaxis.label.get_fontsize()
    assert ax_g.get_xticklabels()[0].get_fontsize() > ax_p.get_xticklabels()[0].get_fontsize()
    assert min(_fontes(grande)) >= 14  # legível do fundo da sala
    # modo_padrao desfaz tudo: a figura criada depois é igual à primeira
    assert ax_d.lines[0].get_linewidth() == ax_p.lines[0].get_linewidth()
    assert _fontes(de_novo) == _fontes(padrao)
    assert png_d == png_p


def test_modo_padrao_restaura_cada_parametro():
    antes = {chave: mpl.rcParams[chave] for chave in plots._ESTILO_APRESENTACAO}
    plots.modo_apresentacao()
    assert mpl.rcParams["font.size"] > antes["font.size"]
    assert mpl.rcParams["lines.linewidth"] > antes["lines.linewidth"]
    assert mpl.rcParams["image.cmap"] in ("cividis", "viridis")  # segue seguro para daltonismo
    plots.modo_padrao()
    assert {chave: mpl.rcParams[chave] for chave in antes} == antes


def test_bloco_with_vale_so_dentro_dele():
    tamanho = mpl.rcParams["font.size"]
    with plots.apresentacao():
        dentro = _figura_simples()
        assert mpl.rcParams["font.size"] > tamanho
    assert mpl.rcParams["font.size"] == tamanho
    fora = _figura_simples()
    assert statistics.median(_fontes(dentro)) > statistics.median(_fontes(fora))


def test_bloco_with_restaura_mesmo_com_erro():
    tamanho = mpl.rcParams["font.size"]
    with pytest.raises(RuntimeError), plots.apresentacao():
        raise RuntimeError("falhou no meio")
    assert mpl.rcParams["font.size"] == tamanho


@pytest.mark.parametrize("nome", PAINEIS)
def test_paineis_criados_depois_ficam_maiores(nome):
    fabrica = PAINEIS[nome]
    normal = fabrica()
    plots.modo_apresentacao()
    grande = fabrica()
    plots.modo_padrao()

    fontes_n, fontes_g = _fontes(normal.fig), _fontes(grande.fig)
    assert statistics.median(fontes_g) > statistics.median(fontes_n), (fontes_n, fontes_g)
    assert max(fontes_g) > max(fontes_n)
    assert _espessura_dos_dados(grande.fig) >= _espessura_dos_dados(normal.fig)
    assert grande.imagem.value != normal.imagem.value  # o PNG mostrado no painel mudou
    # e o painel grande continua vivo: mover um controle muda o que ele mostra
    nome_controle, controle = next(iter(grande.controles.items()))
    png_antes = grande.imagem.value
    controle.value = _outro_valor(controle)
    assert grande.imagem.value != png_antes, nome_controle


def test_linhas_dos_paineis_de_setas_engrossam():
    normal = painel_produto_escalar()
    with plots.apresentacao():
        grande = painel_produto_escalar()
    assert _espessura_dos_dados(grande.fig) > _espessura_dos_dados(normal.fig)
