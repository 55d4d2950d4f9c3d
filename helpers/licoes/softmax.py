"""Lição "Softmax" (notebook ``softmax``): o painel da softmax (pesos, temperatura, jacobiano), os corretores da softmax e do jacobiano e a caixa da previsão do notebook. (O padrão de estabilidade que os corretores usam é o da coleção, :mod:`helpers.estabilidade`.)

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ipywidgets as W
import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from .. import plots
from ..attention import (
    softmax,
    softmax_jacobian,
)
from ..corretor import Caso, Erro, Exercicio, Previsao, Regra, conferir, corretor_de, tem_laco, usa_nomes
from ..estabilidade import (
    EXPLICA_KEEPDIMS,
    NOMES_DE_SOFTMAX_PRONTA,
    casos_de_estabilidade,
    erros_de_estabilidade,
    esqueceu_keepdims,
    nao_finita,
    normalizou_pelo_array_inteiro,
    softmax_menos,
)
from ..formato import subscrito
from ..paineis import Painel, slider, tabela
from ..plots import CORES
from ..previsao import CaixaDePrevisao, caixa
from ..respostas import NumeroAproximado, NumeroDeCabeca

#: mapa divergente, seguro para daltonismo, para o jacobiano (0 no meio, em branco)
MAPA_JACOBIANO = "RdBu"

#: acima deste peso o número vai para dentro da barra (em cima, sairia do eixo, que vai até 1,05)
_DENTRO_DA_BARRA = 0.85

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


class FiguraSoftmax:
    """Barras dos pesos ``s = softmax(z / T)`` e, opcionalmente, o mapa de calor do jacobiano.

    ``ax_pesos`` recebe ``n`` barras (uma por escore), o valor de cada peso escrito em cima (dentro da
    barra quando ela chega perto de 1) e uma linha tracejada no peso uniforme ``1/n``
    (explicada no rótulo do eixo x); o eixo y vai só até 1,05. ``ax_jacobiano`` (ou ``None``) recebe a
    matriz ``J[i, j] = sᵢ(δᵢⱼ − sⱼ)``, a derivada de ``sᵢ`` em relação à **entrada** da softmax, ``zⱼ/T``
    (em relação ao escore ``zⱼ`` do slider, ``J[i, j] / T``; as colunas dizem ``zⱼ/T``), num mapa divergente seguro para daltonismo (:data:`MAPA_JACOBIANO`: 0 no
    meio, negativos de um lado, positivos do outro) com escala fixa em ``[-0.25, 0.25]`` (os valores
    possíveis), para que cores iguais signifiquem números iguais enquanto os sliders se movem; o valor vai
    escrito em cada célula (sem barra de cores, que custaria tempo a cada redesenho do painel).
    ``atualizar(pesos, jacobiano)`` só muda os dados dos artistas, nada é recriado.
    """

    def __init__(self, ax_pesos: Axes, n: int, ax_jacobiano: Axes | None = None):
        self.n = n
        idx = np.arange(n)
        self.ax = ax_pesos
        self.barras = ax_pesos.bar(idx, np.full(n, 1.0 / n), color=CORES["q"], width=0.65)
        self.rotulos = [ax_pesos.text(i, 0, "", ha="center", va="bottom", fontsize=mpl.rcParams["font.size"] + 1)
                        for i in idx]
        self.uniforme = ax_pesos.axhline(1.0 / n, color=CORES["neutro"], ls="--", lw=1.2)
        grande = mpl.rcParams["font.size"] + 2
        ax_pesos.set_xticks(idx, [f"s{subscrito(i + 1)}" for i in idx], fontsize=grande)
        ax_pesos.set_ylim(0, 1.05)
        ax_pesos.set_yticks(np.linspace(0, 1, 6))
        ax_pesos.set_ylabel("peso")
        ax_pesos.set_xlabel(f"tracejado: o peso uniforme, 1/{n}")
        self.titulo = ax_pesos.set_title("")
        self.ax_jacobiano = ax_jacobiano
        self.imagem = None
        self.textos_j: list = []
        if ax_jacobiano is not None:
            self.imagem = ax_jacobiano.imshow(np.zeros((n, n)), cmap=MAPA_JACOBIANO, vmin=-0.25, vmax=0.25)
            # a derivada é em relação à entrada da softmax, z/T (em relação a z, ainda dividida por T)
            ax_jacobiano.set_xticks(idx, [f"z{subscrito(j + 1)}/T" for j in idx], fontsize=grande)
            ax_jacobiano.set_yticks(idx, [f"s{subscrito(i + 1)}" for i in idx], fontsize=grande)
            ax_jacobiano.grid(False)
            ax_jacobiano.set_title("∂sᵢ/∂(zⱼ/T) = sᵢ(δᵢⱼ − sⱼ)")
            self.textos_j = [[ax_jacobiano.text(j, i, "", ha="center", va="center") for j in idx] for i in idx]

    def atualizar(self, pesos: ArrayLike, jacobiano: ArrayLike | None = None, titulo: str | None = None) -> None:
        pesos = np.asarray(pesos, dtype=float)
        i_max = int(np.argmax(pesos))
        for i, (barra, rotulo, p) in enumerate(zip(self.barras, self.rotulos, pesos, strict=True)):
            barra.set_height(p)
            barra.set_color(CORES["destaque"] if i == i_max else CORES["q"])
            if p > _DENTRO_DA_BARRA:  # perto de 1 o número não cabe em cima: vai para dentro da barra
                rotulo.set_position((i, p - 0.015))
                rotulo.set_va("top")  # (a barra acima de 0,85 é sempre a maior, amarelo-alaranjada: texto preto)
            else:
                rotulo.set_position((i, plots.altura_do_rotulo(self.ax, p, 1.0 / self.n, 0.015, rotulo.get_fontsize())))
                rotulo.set_va("bottom")
            rotulo.set_text(f"{p:.3f}")
        self.titulo.set_text(titulo if titulo is not None else f"pesos (soma = {pesos.sum():.3f})")
        if self.imagem is not None and jacobiano is not None:
            jac = np.asarray(jacobiano, dtype=float)
            self.imagem.set_data(jac)
            for i in range(self.n):
                for j in range(self.n):
                    valor = jac[i, j]
                    texto = self.textos_j[i][j]
                    texto.set_text(f"{valor:+.3f}".replace("+0.000", "0.000").replace("-0.000", "0.000"))
                    texto.set_color("white" if abs(valor) > 0.15 else "black")

    def animados(self) -> list[Artist]:
        """Os artistas que ``atualizar`` muda (e a linha do peso uniforme, que fica por cima das barras): um
        painel redesenha só eles a cada movimento."""
        imagem = [self.imagem] if self.imagem is not None else []
        return [*self.barras, self.uniforme, *self.rotulos, self.titulo, *imagem, *(t for linha in self.textos_j for t in linha)]

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


def painel_softmax(
    escores: tuple[float, ...] = (0.707, 0.0, 0.354),
    temperatura: float = 1.0,
    *,
    mostrar_jacobiano: bool = True,
) -> Painel:
    """Sliders para os escores ``z`` e a temperatura ``T``; barras de ``s = softmax(z / T)`` ao vivo.

    O padrão são os escores escalados do exemplo resolvido (``q·kᵢ/√2``), cujos pesos são
    ``(0.455, 0.225, 0.320)``. Embaixo: a soma dos pesos, o maior peso e a entropia
    ``H = −Σ sᵢ ln sᵢ`` (``ln n`` na uniforme, 0 no argmax). Com ``mostrar_jacobiano`` aparecem também
    o mapa de calor do jacobiano ``J[i, j] = sᵢ(δᵢⱼ − sⱼ)`` e o maior ``|J[i, j]|``, que vai a 0 quando um
    peso vai a 1 (saturação) — derivadas em relação à **entrada** da softmax, ``z/T``, e não ao escore ``z``
    do slider: ``∂sᵢ/∂zⱼ = J[i, j] / T``, que com ``T`` pequeno pode ser bem maior (por isso o notebook 04
    mostra o painel sem o jacobiano, antes de ensiná-lo, e o jacobiano só com os escores na entrada).
    O estado traz ``jacobiano`` e ``jacobiano_max`` (o ``J`` em relação a ``z/T``) mesmo sem o mapa.
    Estado: ``escores``, ``temperatura``, ``pesos``, ``soma``, ``peso_max``, ``entropia``,
    ``entropia_max``, ``jacobiano``, ``jacobiano_max``.
    """

    z0 = np.asarray(escores, dtype=float)
    if z0.ndim != 1 or not 2 <= z0.size <= 6:
        raise ValueError(f"painel_softmax aceita de 2 a 6 escores; recebi forma {z0.shape}.")
    n = z0.size
    if mostrar_jacobiano:
        fig, axes = plots.nova_figura(8.8, 3.8, ncols=2)
        fig.subplots_adjust(left=0.08, right=0.95, bottom=0.12, top=0.88, wspace=0.3)
        figura = FiguraSoftmax(axes[0, 0], n, axes[0, 1])
    else:
        fig, axes = plots.nova_figura(5.0, 3.8)
        fig.subplots_adjust(left=0.14, right=0.96, bottom=0.12, top=0.88)
        figura = FiguraSoftmax(axes[0, 0], n)
    controles: dict[str, W.ValueWidget] = {
        f"z{i + 1}": slider(f"escore z{subscrito(i + 1)}", float(z), -5.0, 5.0, 0.001) for i, z in enumerate(z0)
    }
    controles["temperatura"] = slider("temperatura T", temperatura, 0.1, 5.0, 0.05)

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        z = np.array([v[f"z{i + 1}"] for i in range(n)], dtype=float)
        t = float(v["temperatura"])
        s = softmax(z, temperature=t)
        jac = softmax_jacobian(s)  # em relação à entrada da softmax, z/T (em relação a z: J / T)
        positivos = s[s > 0]
        entropia = float(-np.sum(positivos * np.log(positivos)))
        soma = float(s.sum())
        peso_max = float(s.max())
        jac_max = float(np.abs(jac).max())
        figura.atualizar(s, jac, titulo=f"s = softmax(z / T), T = {t:.2f}")
        linhas = [
            ("escores z", ", ".join(f"{x:.2f}" for x in z)),
            ("pesos s", ", ".join(f"{x:.3f}" for x in s)),
            ("soma dos pesos", f"{soma:.3f}"),
            ("maior peso", f"{peso_max:.3f} (uniforme: 1/{n} = {1 / n:.3f})"),
            ("entropia H = −Σ sᵢ ln sᵢ", f"{entropia:.3f} (uniforme: ln {n} = {math.log(n):.3f}; argmax: 0)"),
        ]
        if mostrar_jacobiano:
            linhas.append(("maior |∂sᵢ/∂(zⱼ/T)| = maior |sᵢ(δᵢⱼ − sⱼ)|",
                           f"{jac_max:.3f} (nunca passa de 0.25; → 0 quando um peso → 1; "
                           f"em relação a z, ÷ T: {jac_max / t:.3f})"))
        html = tabela(linhas)
        return {"escores": z, "temperatura": t, "pesos": s, "soma": soma, "peso_max": peso_max,
                "entropia": entropia, "entropia_max": math.log(n), "jacobiano": jac, "jacobiano_max": jac_max,
                "html": html}

    return Painel(fig, controles, calcular, titulo="Softmax: escores viram pesos positivos que somam 1",
                  animados=figura.animados())

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------
def _proporcional_sem_normalizar(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    arr = np.asarray(y, dtype=float)
    if arr.shape != certo.shape or nao_finita(arr) or (arr < 0).any():
        return False
    somas = arr.sum(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):  # uma linha que soma 0 não é deste erro (e não vira aviso para o estudante)
        return not np.allclose(somas, 1.0, rtol=1e-6) and np.allclose(arr / somas, certo, rtol=1e-6, atol=1e-9)


def _somas_diferentes_de_1(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    arr = np.asarray(y, dtype=float)
    return arr.shape == certo.shape and not nao_finita(arr) and not np.allclose(arr.sum(axis=-1), 1.0, rtol=1e-6)


def _sm(x: np.ndarray, temperatura: float = 1.0, axis: int = -1) -> np.ndarray:
    return softmax(np.asarray(x, dtype=float), axis=axis, temperature=temperatura)


def _maximo_de_x_antes_de_dividir(x: np.ndarray, temperatura: float = 1.0) -> np.ndarray:
    """O erro de subtrair o máximo de ``x`` (e não o de ``x / T``): com ``T = 1`` dá a resposta certa, e é isso
    que impede este erro de ser escolhido para quem falha já sem temperatura."""
    return softmax_menos(x / temperatura, x.max(axis=-1, keepdims=True))


def _explica_forma_softmax(forma: tuple[int, ...]) -> str:
    """O que dizer quando a softmax do estudante nem roda com ``x`` desta forma: o eixo das keys e o keepdims."""
    if len(forma) <= 1:
        return (f"Aqui x é um vetor {forma}: tem um eixo só, axis=0 — que é também o último, axis=-1; axis=1 não "
                "existe nele. Use axis=-1, que é o eixo das keys em qualquer forma.")
    return (f"Aqui x tem forma {forma}. O máximo (ou a soma) de cada linha sem keepdims=True tem forma {forma[:-1]}, "
            f"que não se alinha com x; com keepdims=True fica {(*forma[:-1], 1)}, e o broadcasting o subtrai (ou "
            "divide) linha por linha. (O eixo das keys é o último, axis=-1.)")




SOFTMAX = Exercicio(
    nome="softmax estável",
    casos=lambda: [
        Caso("com x = [1., 2., 3.]", {"x": np.array([1.0, 2.0, 3.0])}),
        Caso("com uma matriz (2, 3), [[1, 2, 3], [0, 0, 5]]", {"x": np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]])}),
        Caso("com uma matriz quadrada (3, 3), [[1, 2, 3], [0, 0, 5], [4, 1, 0]]",
             {"x": np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0], [4.0, 1.0, 0.0]])}),
        Caso("com escores grandes [1000, 1001, 1002]", {"x": np.array([1000.0, 1001.0, 1002.0])}),
        Caso("com escores negativos [-3, -1, -2]", {"x": np.array([-3.0, -1.0, -2.0])}),
        *casos_de_estabilidade(),
        Caso("com temperatura = 0.5 em [[1, 2, 3], [0, 0, 5]]",
             {"x": np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]]), "temperatura": 0.5}, nomeados=("temperatura",)),
        Caso("com temperatura = 4 em [0.707, 0, 0.354]",
             {"x": np.array([0.707, 0.0, 0.354]), "temperatura": 4.0}, nomeados=("temperatura",)),
        Caso("com temperatura = 0.01 e escores grandes [1000, 1001, 1002]",
             {"x": np.array([1000.0, 1001.0, 1002.0]), "temperatura": 0.01}, nomeados=("temperatura",)),
        Caso("com um array de 3 eixos (2 cabeças, 2 queries, 3 keys) e temperatura = 2",
             {"x": np.array([[[1.0, 2.0, 3.0], [3000.0, 3001.0, 3002.0]],
                             [[-1000.0, 0.0, 1000.0], [0.0, 0.0, 0.0]]]), "temperatura": 2.0},
             nomeados=("temperatura",)),
    ],
    certo=lambda x, temperatura=1.0: _sm(x, temperatura),
    dica_de_forma="A softmax devolve um array da mesma forma que x: um peso para cada escore.",
    explica_forma=lambda x, temperatura=1.0: _explica_forma_softmax(np.shape(x)),
    acerto="Correto! Sua softmax é estável (escores de 1000 e de −1000, linhas separadas por milhares, float32 e "
           "temperatura pequena não estouram), divide os escores pela temperatura, trabalha no último eixo — com "
           "quantos eixos o array tiver — e produz pesos positivos que somam 1, sem a softmax pronta.",
    erros=[
        Erro("o máximo de x, não de x / T (instável)",
             "Você dividiu os escores pela temperatura, mas subtraiu o máximo de x, não o de x / T. Com T pequeno os "
             "dois são muito diferentes: com x = [1000, 1001, 1002] e T = 0,01, x / T chega a 100 200, e tirar só "
             "1002 deixa e^99 198, que estoura. Subtraia o máximo dos escores que vão de fato para a exponencial: "
             "z = x / T, e depois z − z.max(axis=-1, keepdims=True).",
             resposta=_maximo_de_x_antes_de_dividir),
        *erros_de_estabilidade(lambda trocar, x, temperatura=1.0: trocar(x / temperatura)),
        Erro("ignorou a temperatura",
             "A temperatura não teve efeito: você devolveu softmax(x) mesmo com T ≠ 1. A temperatura divide os "
             "escores **antes** da exponencial, softmax(x / T). (Dividir depois de exponenciar não adianta: a divisão "
             "pela soma cancela qualquer fator comum.)",
             resposta=lambda x, temperatura=1.0: _sm(x)),
        Erro("multiplicou pela temperatura",
             "Você multiplicou os escores pela temperatura. Ela **divide**: softmax(x / T). T grande deve deixar os "
             "pesos mais perto do uniforme, e T pequeno, mais concentrados.",
             resposta=lambda x, temperatura=1.0: _sm(x * temperatura)),
        Erro("sem keepdims", EXPLICA_KEEPDIMS,
             quando=esqueceu_keepdims(lambda x, temperatura=1.0: np.asarray(x, dtype=float) / temperatura)),
        Erro("axis=1 em vez de axis=-1",
             "Você fixou axis=1: numa matriz ele é o último eixo e funciona, mas não em toda forma — um vetor (n,) não "
             "tem eixo 1 (o numpy reclama) e, num array de 3 eixos (cabeças, queries, keys), o eixo 1 é o das "
             "**queries**. O último eixo, em qualquer forma, é axis=-1.",
             resposta=lambda x, temperatura=1.0: _sm(x, temperatura, axis=1) if x.ndim == 3 else None),
        Erro("eixo errado",
             "Softmax calculada no eixo errado: as fatias ao longo de outro eixo é que somam 1 na sua saída, mas cada "
             "**linha** (o último eixo) é que deve virar uma distribuição. Use axis=-1 e keepdims=True nas reduções "
             "(max e sum).",
             resposta=lambda x, temperatura=1.0: _sm(x, temperatura, axis=0) if x.ndim >= 2 else None),
        Erro("normalizou pela matriz inteira",
             "Você dividiu pela soma do array inteiro (e.sum(), sem axis): dentro de cada linha as proporções estão "
             "certas e tudo junto soma 1, mas cada linha deveria somar 1. Some só ao longo do último eixo: "
             "e.sum(axis=-1, keepdims=True).",
             quando=normalizou_pelo_array_inteiro),
        Erro("sem exponenciar",
             "Você normalizou x diretamente (x / soma(x)), sem exponenciar. A softmax usa exp(x) / soma(exp(x)): "
             "a exponencial garante pesos positivos mesmo com escores negativos.",
             resposta=lambda x, temperatura=1.0: x / x.sum(axis=-1, keepdims=True)),
        Erro("esqueceu de dividir pela soma",
             "Os pesos têm as proporções certas, mas você esqueceu de dividir pela soma: cada linha precisa somar 1. "
             "Divida exp(x) pela soma de exp(x) da linha.",
             quando=_proporcional_sem_normalizar),
        Erro("pesos que não somam 1",
             "Os pesos não somam 1. Divida exp(x) pela soma de exp(x) ao longo do último eixo.",
             quando=_somas_diferentes_de_1),
    ],
    regras=[
        Regra("usou a softmax pronta",
              "o exercício é **escrever** a softmax, só com numpy — sem chamar uma pronta (attention.softmax, "
              "scipy.special.softmax…). Troque a chamada pelas contas: dividir pela temperatura, subtrair o máximo "
              "de cada linha, exponenciar e dividir pela soma.",
              lambda fn: usa_nomes(fn, NOMES_DE_SOFTMAX_PRONTA)),
    ],
)


@corretor_de(SOFTMAX)
def check_softmax(fn: Callable[..., Any]) -> bool:
    """Confere uma softmax ``fn(x, temperatura=1.0)`` de ``x / temperatura`` ao longo do **último** eixo, escrita só
    com numpy: ``x`` é um vetor ``(n,)``, uma matriz ``(m, n)`` ou um array com mais eixos (``(cabeças, queries,
    keys)``), e a resposta tem a forma de ``x``, com cada fatia do último eixo positiva e somando 1. A temperatura
    vem por nome (``temperatura=``).
    """
    return conferir(SOFTMAX, fn)


def _jacobiano_com(trocar: Callable[[np.ndarray], np.ndarray], z: np.ndarray) -> np.ndarray:
    s = trocar(z)
    return np.diag(s) - np.outer(s, s)


def _explica_jacobiano_instavel(z: np.ndarray) -> str:
    if float(np.max(z)) < 0:
        causa = (f"com escores muito negativos ({_vetor_curto(z)}), todo e^(…) vira 0 e sobra 0/0 — é o que acontece "
                 "sem subtrair o máximo, ou subtraindo-o só quando ele é positivo")
    elif np.asarray(z).dtype == np.float32:
        causa = f"em float32 ({_vetor_curto(z)}), e^z estoura já em z ≈ 88,72"
    elif float(np.min(z)) < 0 < float(np.max(z)) and float(np.ptp(z)) > 700:
        causa = (f"com escores muito espalhados ({_vetor_curto(z)}), e^(…) estoura se nada for subtraído, ou se for "
                 "subtraído o **mínimo**")
    else:
        causa = f"com escores grandes ({_vetor_curto(z)}), e^1000 estoura"
    return (f"O jacobiano saiu com NaN ou inf: {causa}. Calcule s com uma softmax estável — subtraia **sempre** o "
            "máximo de z antes de exponenciar (ou use attention.softmax) — e só depois monte a matriz.")


def _vetor_curto(z: np.ndarray) -> str:
    return "[" + ", ".join(f"{float(v):g}" for v in np.ravel(z)) + "]"


JACOBIANO = Exercicio(
    nome="jacobiano da softmax",
    casos=lambda: [
        Caso("com os escores do exemplo z = [0.707, 0, 0.354]", {"z": np.array([0.707, 0.0, 0.354])}),
        Caso("com z = [2, -1, 0.5, 0]", {"z": np.array([2.0, -1.0, 0.5, 0.0])}),
        Caso("com escores grandes [1000, 1001, 999]", {"z": np.array([1000.0, 1001.0, 999.0])}),
        Caso("com escores muito negativos [-1000, -1001, -1002]", {"z": np.array([-1000.0, -1001.0, -1002.0])}),
        Caso("com escores muito espalhados [-1000, 0, 1000]", {"z": np.array([-1000.0, 0.0, 1000.0])}),
        Caso("com escores em float32 [100, 101, 99]", {"z": np.array([100.0, 101.0, 99.0], dtype=np.float32)}),
    ],
    certo=lambda z: softmax_jacobian(softmax(np.asarray(z, dtype=float))),
    dica_de_forma="O jacobiano tem uma linha por peso sᵢ e uma coluna por escore zⱼ: uma matriz (n, n).",
    acerto="Correto! J = diag(s) − s sᵀ, sem laços: positivo na diagonal, negativo fora dela e simétrico. Cada coluna "
           "soma 0 (os pesos sempre somam 1) e cada linha também (somar a mesma constante a todos os escores não muda "
           "os pesos). E a softmax por dentro aguenta escores de ±1000 e float32.",
    erros=[
        Erro("só a diagonal, como vetor",
             lambda z: f"Você devolveu só a diagonal, sᵢ(1 − sᵢ), como um vetor ({z.size},). O jacobiano é uma matriz "
                       f"({z.size}, {z.size}): cada escore zⱼ mexe em **todos** os pesos sᵢ. Fora da diagonal, "
                       "J[i, j] = −sᵢsⱼ.",
             resposta=lambda z: softmax(z) * (1 - softmax(z))),
        Erro("sem o termo −sᵢsⱼ",
             "Faltou o termo −sᵢsⱼ: você devolveu só diag(s). Fora da diagonal o jacobiano não é 0 — aumentar um "
             "escore **tira** peso dos outros (J[i, j] = −sᵢsⱼ para i ≠ j).",
             resposta=lambda z: np.diag(softmax(z))),
        Erro("sem o δᵢⱼ",
             "Faltou o δᵢⱼ: na diagonal J[i, i] = sᵢ(1 − sᵢ), não −sᵢ². Some diag(s) a −s sᵀ.",
             resposta=lambda z: -np.outer(softmax(z), softmax(z))),
        Erro("sinal trocado",
             "Sinal trocado: você calculou s sᵀ − diag(s). Aumentar zᵢ **aumenta** sᵢ, então a diagonal é positiva: "
             "J = diag(s) − s sᵀ.",
             resposta=lambda z: -softmax_jacobian(softmax(z))),
        Erro("somou s sᵀ em vez de subtrair",
             "O sinal do segundo termo ficou trocado: você calculou diag(s) + s sᵀ. Fora da diagonal o jacobiano é "
             "**negativo** — aumentar o escore zⱼ tira peso de todos os outros, J[i, j] = −sᵢsⱼ —, e na diagonal "
             "J[i, i] = sᵢ − sᵢ². Subtraia: diag(s) − s sᵀ.",
             resposta=lambda z: np.diag(softmax(z)) + np.outer(softmax(z), softmax(z))),
        Erro("só s sᵀ",
             "Você devolveu só s sᵀ, a tabela dos produtos sᵢsⱼ: faltou o diag(s) e o sinal de menos. O jacobiano é "
             "diag(s) − s sᵀ: sᵢ − sᵢ² na diagonal e −sᵢsⱼ fora dela.",
             resposta=lambda z: np.outer(softmax(z), softmax(z))),
        Erro("s·s (um número) no lugar de s sᵀ",
             lambda z: "Você subtraiu um **número** de diag(s), e não uma matriz: o produto escalar s·s = Σ sᵢ², que o "
                       f"broadcasting tira de todas as {z.size}² entradas. É o que s @ s.T dá num vetor 1-D (nele, s.T "
                       "é o próprio s), e também np.dot(s, s), ou sᵀ s com s em pé, (1, n) @ (n, 1). A tabela de todos "
                       "os produtos sᵢsⱼ é o produto **externo**: np.outer(s, s), ou a coluna vezes a linha, "
                       "s[:, None] @ s[None, :].",
             resposta=lambda z: np.diag(softmax(z)) - float(softmax(z) @ softmax(z))),
        Erro("só a diagonal, como matriz",
             "Você montou só a diagonal, diag(s − s²): ela está certa, mas o resto da matriz ficou 0. Fora da "
             "diagonal o jacobiano não é 0 — aumentar um escore **tira** peso dos outros, J[i, j] = −sᵢsⱼ. Subtraia a "
             "tabela inteira dos produtos: diag(s) − s sᵀ.",
             resposta=lambda z: np.diag(softmax(z) * (1 - softmax(z)))),
        Erro("identidade no lugar de diag(s)",
             "Você usou a identidade (np.eye) no lugar de diag(s): calculou δᵢⱼ − sᵢsⱼ. O δᵢⱼ vem multiplicado por "
             "sᵢ — J[i, j] = sᵢ(δᵢⱼ − sⱼ) = sᵢδᵢⱼ − sᵢsⱼ —, então o primeiro termo é np.diag(s), não np.eye(n).",
             resposta=lambda z: np.eye(z.size) - np.outer(softmax(z), softmax(z))),
        Erro("sem o fator sᵢ",
             "Faltou multiplicar por sᵢ: você calculou δᵢⱼ − sⱼ. O certo é sᵢ(δᵢⱼ − sⱼ), ou seja, cada linha i "
             "multiplicada por sᵢ.",
             resposta=lambda z: np.eye(z.size) - softmax(z)[None, :]),
        Erro("sᵢ no lugar de sⱼ",
             "Você usou sᵢ onde deveria estar sⱼ: J[i, j] = sᵢ(δᵢⱼ − sⱼ), com o índice da **coluna** no segundo s. "
             "Em numpy: np.diag(s) - np.outer(s, s).",
             resposta=lambda z: softmax(z)[:, None] * (np.eye(z.size) - softmax(z)[:, None])),
        Erro("sⱼ no lugar de sᵢ",
             "O fator da frente ficou sⱼ, não sᵢ: você calculou sⱼ(δᵢⱼ − sⱼ) — é o que s * (I − s) dá, porque o "
             "broadcasting multiplica cada **coluna** j por sⱼ. A diagonal bate, mas fora dela o certo é −sᵢsⱼ, não "
             "−sⱼ². O fator da frente é o da **linha**: ponha s em pé (uma coluna, s[:, None]) antes de multiplicar.",
             resposta=lambda z: softmax(z)[None, :] * (np.eye(z.size) - softmax(z)[None, :])),
        Erro("escores z no lugar dos pesos s",
             "Você usou os escores z no lugar dos pesos s. Primeiro calcule s = softmax(z); o jacobiano é "
             "diag(s) − s sᵀ.",
             resposta=lambda z: np.diag(z) - np.outer(z, z)),
        Erro("softmax instável por dentro", _explica_jacobiano_instavel,
             quando=lambda y, _certo, _caso: nao_finita(y)),
    ],
    regras=[
        Regra("com laços",
              "o exercício pede o jacobiano **sem laços** (sem for, while, compreensões, np.vectorize nem recursão): monte a "
              "matriz de uma vez, com operações do numpy sobre o vetor s inteiro — um pedaço que só vive na diagonal "
              "e uma tabela de todos os produtos sᵢsⱼ.",
              tem_laco),
    ],
)


@corretor_de(JACOBIANO)
def check_jacobiano_softmax(fn: Callable[[np.ndarray], Any]) -> bool:
    """Confere ``fn(z)`` = o jacobiano da softmax no vetor de escores ``z`` ``(n,)``, sem laços.

    A resposta é a matriz ``(n, n)`` com ``J[i, j] = ∂sᵢ/∂zⱼ = sᵢ(δᵢⱼ − sⱼ)``, onde ``s = softmax(z)``; em forma
    matricial, ``diag(s) − s sᵀ``. A softmax por dentro precisa ser estável.
    """
    return conferir(JACOBIANO, fn)


# --- prever, depois conferir -----------------------------------------------------------------------


#: o formato dos erros típicos de uma previsão de pesos: o arredondamento em duas casas, sem folga
EXATO_EM_DUAS_CASAS = NumeroAproximado(casas=2)

#: os escores escalados do Exemplo 1 (q·kᵢ/√2, arredondados como no exemplo)
ESCORES_EXEMPLO = (0.707, 0.0, 0.354)

PREVISAO_DOBRO = Previsao(
    nome="dobrar os escores",
    certo=lambda: round(float(softmax(2 * np.array(ESCORES_EXEMPLO))[0]), 3),
    revelar="Dobrar os escores dobra as **diferenças** entre eles, e a softmax só enxerga diferenças: o peso de k₁ "
            "sobe de 0,455 para 0,576 (e o de k₂ cai de 0,225 para 0,140). A distribuição fica mais concentrada, mas "
            "os pesos continuam somando 1 — é a temperatura T = 1/2. (Ninguém calcula e^1,414 de cabeça: vale como "
            "acerto qualquer previsão de 0,53 a 0,62, que sobe sem dobrar.)",
    # uma intuição, não uma conta: vale de 0,53 a 0,62 ("0,55", "0,6" e "0,62" são acertos)
    formato=NumeroDeCabeca(casas=2, folga=0.046),
    erros=[
        Erro("dobrou o peso",
             "Dobrar os escores não dobra os pesos: 2 × 0,455 = 0,91, e os três pesos dobrados somariam 2. A softmax "
             "divide pela soma das exponenciais, então os pesos somam 1 sempre; o que muda é como o 1 se reparte.",
             resposta=lambda: 2 * 0.455, formato=EXATO_EM_DUAS_CASAS),
        Erro("multiplicar como somar",
             "Somar a mesma constante não muda os pesos — mas multiplicar muda: 2z aumenta as **diferenças** entre os "
             "escores (de 0,707 − 0 para 1,414 − 0), e é delas que a softmax depende.",
             resposta=lambda: 0.455, formato=EXATO_EM_DUAS_CASAS),
        Erro("ficou mais espalhado",
             "0,394 é o que acontece ao **dividir** os escores por 2 (temperatura T = 2): diferenças menores, pesos mais "
             "perto do uniforme. Dobrar faz o contrário: o maior peso cresce.",
             resposta=lambda: float(softmax(np.array(ESCORES_EXEMPLO) / 2)[0]), formato=EXATO_EM_DUAS_CASAS),
        Erro("foi direto ao argmax",
             "Dobrar concentra os pesos, mas não chega ao argmax: com diferenças de 1,4 entre os escores, e^1,4 ≈ 4 "
             "ainda deixa boa parte do peso para as outras keys. O peso só se aproxima de 1 quando as diferenças "
             "ficam grandes (T → 0).",
             resposta=lambda: 1.0, formato=EXATO_EM_DUAS_CASAS),
    ],
    exemplo="0,5",
    # a resposta com vírgula e com ponto, e em porcentagem
    pistas=("0,576", "0.576", "57,6"),
)


@corretor_de(PREVISAO_DOBRO)
def prever_dobro() -> CaixaDePrevisao:
    """A caixa da previsão do maior peso de ``softmax(2·z)`` para os escores do Exemplo 1 (a resposta: ≈ 0,576;
    vale de 0,53 a 0,62, uma previsão de cabeça).
    """
    return caixa(PREVISAO_DOBRO)
