"""Lição "Softmax" (notebook ``softmax``): o painel da softmax (pesos, temperatura, jacobiano), o padrão de estabilidade (também o da linha toda mascarada), os corretores da softmax e do jacobiano e a caixa da previsão do notebook.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ipywidgets as W
import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from .. import plots
from ..attention import (
    softmax,
    softmax_jacobian,
)
from ..corretor import (
    Caso,
    Erro,
    Exercicio,
    NumeroAproximado,
    NumeroDeCabeca,
    Previsao,
    RespostaInvalida,
    SaidaOuPar,
    conferir,
    corretor_de,
)
from ..formato import subscrito, vetor
from ..paineis import Painel, slider, tabela
from ..plots import CORES
from ..previsao import CaixaDePrevisao, caixa

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
        ax_pesos.axhline(1.0 / n, color=CORES["neutro"], ls="--", lw=1.2)
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

    return Painel(fig, controles, calcular, titulo="Softmax: escores viram pesos positivos que somam 1")

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------
# O padrão de estabilidade de toda softmax da coleção (enunciado na seção da versão estável deste
# notebook e cobrado por todo corretor que calcula uma softmax): linhas do mesmo lote separadas por
# milhares, uma linha com escores muito espalhados, entrada em float32 e, onde houver máscara, uma
# linha inteiramente mascarada. Quem subtrai o máximo de cada linha passa nos três primeiros (na linha
# toda mascarada o máximo é -inf, e é preciso ainda trocá-lo por 0); quem não subtrai nada,
# subtrai o mínimo ou usa um máximo só para o lote inteiro recebe NaN — e o nome do erro. Na linha
# toda mascarada vale qualquer saída finita (zeros é a convenção da coleção; −1e9 no lugar de −inf dá
# a média dos values); NaN ali tem nome próprio (:func:`erro_nan_na_linha_mascarada`).


def _softmax_sem_maximo(x: np.ndarray) -> np.ndarray:
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def _softmax_menos(x: np.ndarray, referencia: np.ndarray | float) -> np.ndarray:
    e = np.exp(x - referencia)
    return e / e.sum(axis=-1, keepdims=True)


def _nao_finita(y: Any) -> bool:
    return not np.all(np.isfinite(np.asarray(y, dtype=float)))


#: como explicar cada versão instável (os textos valem para qualquer exercício que calcula uma softmax)
EXPLICA_INSTAVEL = (
    "Subtraia o máximo de **cada linha** antes de exponenciar — z − z.max(axis=-1, keepdims=True) —: "
    "softmax(z) = softmax(z − c) para qualquer c, e com c = o máximo da linha nenhum e^(…) passa de 1."
)


def erros_de_estabilidade(softmax_de: Callable[..., Any]) -> list[Erro]:
    """Os três jeitos clássicos de deixar uma softmax instável, para qualquer exercício que calcule uma.

    ``softmax_de(trocar, **entradas)`` deve montar a resposta do exercício usando ``trocar(escores)`` no
    lugar da softmax estável (assim o mesmo erro é reconhecido na softmax pura, na atenção, na
    autoatenção…).
    """
    return [
        Erro("sem subtrair o máximo (instável)",
             "A resposta tem NaN ou inf: e^(escore) estourou o tipo de ponto flutuante (e^710 já passa do maior "
             "float64; em float32, e^89). " + EXPLICA_INSTAVEL,
             resposta=lambda **e: softmax_de(_softmax_sem_maximo, **e)),
        Erro("subtraiu o mínimo (instável)",
             "Você subtraiu o **mínimo** de cada linha: assim o menor e^(…) vale 1, mas o maior pode estourar — "
             "numa linha como [-1000, 0, 1000], e^(1000 − (−1000)) = e^2000 é inf. " + EXPLICA_INSTAVEL,
             resposta=lambda **e: softmax_de(lambda z: _softmax_menos(z, z.min(axis=-1, keepdims=True)), **e)),
        Erro("um máximo só para o lote inteiro (instável)",
             "Você subtraiu um máximo só, o do lote inteiro (z.max() sem axis). Numa linha cujos escores estão "
             "milhares abaixo do maior escore do lote, todo e^(…) vira 0 e a divisão dá 0/0 = NaN. "
             + EXPLICA_INSTAVEL,
             resposta=lambda **e: softmax_de(lambda z: _softmax_menos(z, np.max(z)), **e)),
    ]


def casos_de_estabilidade() -> list[Caso]:
    """Os casos do padrão de estabilidade para uma softmax sobre o último eixo (entradas ``x``)."""
    return [
        Caso("com linhas do mesmo lote separadas por milhares ([[0, 1, 2], [3000, 3001, 3002]])",
             {"x": np.array([[0.0, 1.0, 2.0], [3000.0, 3001.0, 3002.0]])}),
        Caso("com uma linha de escores muito espalhados ([-1000, 0, 1000])", {"x": np.array([-1000.0, 0.0, 1000.0])}),
        Caso("com escores em float32 ([[1, 2, 3], [100, 101, 102]], dtype float32)",
             {"x": np.array([[1.0, 2.0, 3.0], [100.0, 101.0, 102.0]], dtype=np.float32)}),
    ]


# --- a linha inteiramente mascarada ----------------------------------------------------------------
# Uma query sem nenhuma key permitida não tem média ponderada a calcular: qualquer saída **finita**
# serve nessa linha (ela é de preenchimento e será descartada); NaN, não — ele contamina o lote inteiro.
# A resposta certa de um exercício com máscara vem então como :class:`ComLinhasLivres` (o valor e as
# entradas "livres"), e o formato :class:`SaidaComLinhasLivres` compara só o resto.


@dataclass(frozen=True)
class ComLinhasLivres:
    """Uma resposta em que as entradas ``livres`` (booleano, a forma de ``valor``) aceitam qualquer
    número finito: as linhas de uma query sem nenhuma key permitida."""

    valor: np.ndarray
    livres: np.ndarray


def linhas_sem_key_permitida(mask: Any, forma_da_saida: tuple[int, ...], n_k: int) -> np.ndarray:
    """As entradas de uma saída de forma ``forma_da_saida`` — ``(..., n_q, d_v)``, ou ``(d_v,)`` para uma
    query só — cujas queries não têm nenhuma key permitida em ``mask`` (booleana, *broadcastable* para
    ``(..., n_q, n_k)``; ``None`` = nenhuma entrada livre)."""
    if mask is None:
        return np.zeros(forma_da_saida, dtype=bool)
    m = np.asarray(mask, dtype=bool)
    if len(forma_da_saida) == 1:
        vazia = not m.reshape(-1, n_k).any()
        return np.full(forma_da_saida, vazia)
    vazias = ~np.broadcast_to(m, (*forma_da_saida[:-1], n_k)).any(axis=-1)  # (..., n_q)
    return np.broadcast_to(vazias[..., None], forma_da_saida).copy()


def _partes(x: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(x, ComLinhasLivres):
        return x.valor, x.livres
    return x, np.zeros(np.shape(x), dtype=bool)


@dataclass(frozen=True)
class SaidaComLinhasLivres(SaidaOuPar):
    """A saída da atenção (ou o par ``(saída, pesos)``, só a saída é comparada) em que as linhas sem key
    permitida aceitam qualquer número finito (veja :class:`ComLinhasLivres`)."""

    def normalizar(self, y: Any) -> Any:
        if isinstance(y, ComLinhasLivres):
            return ComLinhasLivres(np.asarray(y.valor, dtype=float), np.asarray(y.livres, dtype=bool))
        return super().normalizar(y)

    def igual(self, a: Any, b: Any) -> bool:
        va, la = _partes(a)
        vb, lb = _partes(b)
        if va.shape != vb.shape:
            return False
        presas = ~(la | lb)
        if not np.allclose(va[presas], vb[presas], rtol=self.tol, atol=self.tol, equal_nan=True):
            return False
        return bool(np.all(np.isfinite(va[lb & ~la])) and np.all(np.isfinite(vb[la & ~lb])))

    def mostrar(self, x: Any) -> str:
        v, livres = _partes(x)
        if not livres.any():
            return vetor(v)
        texto = vetor(np.where(livres, np.nan, v)).replace("nan", "  *")
        return texto + "\n(* = qualquer número finito: a linha de uma query sem nenhuma key permitida)"

    def forma(self, x: Any) -> tuple:
        return np.shape(_partes(x)[0])


def com_linhas_livres(resposta: Callable[..., Any], livres_de: Callable[..., np.ndarray]) -> Callable[..., Any]:
    """``resposta(**entradas)`` (uma resposta errada, de um :class:`Erro`) com as entradas de
    ``livres_de(**entradas)`` marcadas como livres **onde ela é finita**: assim o erro é reconhecido seja
    qual for o número finito que o estudante pôs na linha sem key permitida (zeros, a média dos values…),
    e um NaN ali continua tendo de bater com NaN."""

    def marcada(**entradas: Any) -> Any:
        y = resposta(**entradas)
        if y is None:
            return None
        v = SaidaOuPar().normalizar(y)
        livres = livres_de(**entradas)
        if livres.shape != v.shape:
            return v
        return ComLinhasLivres(v, livres & np.isfinite(v))

    return marcada


def livrar(erros: list[Erro], livres_de: Callable[..., np.ndarray]) -> list[Erro]:
    """Os mesmos erros, com cada ``resposta`` passada por :func:`com_linhas_livres` (os que têm só uma
    condição ``quando`` ficam como estão)."""
    return [dataclasses.replace(e, resposta=com_linhas_livres(e.resposta, livres_de)) if e.resposta else e
            for e in erros]


def erro_nan_na_linha_mascarada(quem: str = "uma query **sem nenhuma key permitida**") -> Erro:
    """O NaN na linha de uma query sem nenhuma key permitida, com nome (o resto da resposta está certo).

    Reconhecido quando os únicos números não finitos da resposta estão nas entradas livres da resposta
    certa (um :class:`ComLinhasLivres`) e todo o resto bate."""

    def quando(y: Any, certo: Any, _caso: Caso) -> bool:
        if not isinstance(certo, ComLinhasLivres):
            return False
        try:
            v = SaidaOuPar().normalizar(y)
        except RespostaInvalida:
            return False
        ruins = ~np.isfinite(v)
        return (v.shape == certo.valor.shape and bool(ruins.any()) and not bool((ruins & ~certo.livres).any())
                and bool(np.allclose(v[~certo.livres], certo.valor[~certo.livres], rtol=1e-6, atol=1e-6)))

    return Erro("NaN na linha toda mascarada",
                f"Quase tudo certo: só a saída de {quem} saiu NaN. Com todos os escores da linha em -inf, o máximo da linha também é -inf, e -inf − (-inf) = NaN (ou a "
                "soma das exponenciais dá 0 e sobra 0/0). Nessa linha vale qualquer número finito — a coleção usa "
                "zeros: por exemplo, troque o máximo por 0 onde ele não for finito "
                "(np.where(np.isfinite(m), m, 0)) e divida por 1 onde a soma for 0. Um NaN ali não fica quieto: "
                "entra nas contas seguintes e vira NaN no lote inteiro.",
                quando=quando)


def caso_linha_toda_mascarada(descricao: str = "com uma query sem nenhuma key permitida (uma linha toda False "
                                              "na máscara)") -> Caso:
    """O caso "linha inteiramente mascarada" para uma softmax com máscara (entradas ``x`` e ``mask``).

    As outras linhas mantêm o resto do padrão (uma com escores na casa dos milhares, outra perto de 0):
    assim os três jeitos instáveis de fazer a softmax dão NaN **fora** da linha vazia e não se confundem
    com o NaN só na linha vazia."""
    x = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 1.0, 2.0, 0.0], [1500.0, 1800.0, 2000.0, 100.0]])
    mask = np.array([[False] * 4, [True, True, True, False], [True, True, False, True]])
    return Caso(descricao, {"x": x, "mask": mask}, nomeados=("mask",))


def _proporcional_sem_normalizar(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    arr = np.asarray(y, dtype=float)
    if arr.shape != certo.shape or _nao_finita(arr) or (arr < 0).any():
        return False
    somas = arr.sum(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):  # uma linha que soma 0 não é deste erro (e não vira aviso para o estudante)
        return not np.allclose(somas, 1.0, rtol=1e-6) and np.allclose(arr / somas, certo, rtol=1e-6, atol=1e-9)


def normalizou_pelo_array_inteiro(y: Any, certo: Any, _caso: Caso) -> bool:
    """O erro de dividir pela soma do array **inteiro** (``e / e.sum()``, sem ``axis``), qualquer que tenha sido o
    máximo subtraído (o de cada linha ou o do lote): cada linha tem as proporções certas, tudo junto soma 1, mas
    as linhas não somam 1 cada uma. (Com o máximo do lote, uma linha muito abaixo dele sai 0, ou quase: ela não
    conta para as proporções.) Serve a qualquer corretor de pesos ``(..., n)`` (``certo``: os pesos certos)."""
    arr = np.asarray(y, dtype=float)
    certo = np.asarray(certo, dtype=float)
    if arr.ndim < 2 or arr.shape != certo.shape or _nao_finita(arr) or (arr < 0).any():
        return False
    somas = arr.sum(axis=-1, keepdims=True)
    vivas = somas[..., 0] > 1e-6 * float(somas.sum())  # as linhas que não sumiram no arredondamento
    if not vivas.any():
        return False
    with np.errstate(all="ignore"):
        proporcionais = bool(np.allclose((arr / somas)[vivas], certo[vivas], rtol=1e-5, atol=1e-8))
    return proporcionais and bool(np.isclose(arr.sum(), 1.0, rtol=1e-5)) and not np.allclose(somas, 1.0, rtol=1e-5)


def _somas_diferentes_de_1(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    arr = np.asarray(y, dtype=float)
    return arr.shape == certo.shape and not _nao_finita(arr) and not np.allclose(arr.sum(axis=-1), 1.0, rtol=1e-6)


def _sm(x: np.ndarray, temperatura: float = 1.0, axis: int = -1) -> np.ndarray:
    return softmax(np.asarray(x, dtype=float), axis=axis, temperature=temperatura)


def _maximo_de_x_antes_de_dividir(x: np.ndarray, temperatura: float = 1.0) -> np.ndarray:
    """O erro de subtrair o máximo de ``x`` (e não o de ``x / T``): com ``T = 1`` dá a resposta certa, e é isso
    que impede este erro de ser escolhido para quem falha já sem temperatura."""
    return _softmax_menos(x / temperatura, x.max(axis=-1, keepdims=True))


SOFTMAX = Exercicio(
    nome="softmax estável",
    casos=lambda: [
        Caso("com x = [1., 2., 3.]", {"x": np.array([1.0, 2.0, 3.0])}),
        Caso("com uma matriz (2, 3), [[1, 2, 3], [0, 0, 5]]", {"x": np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]])}),
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
    explica_forma=lambda x, temperatura=1.0: (
        f"Aqui x tem forma {x.shape}. O máximo (ou a soma) de cada linha sem keepdims=True tem forma "
        f"{x.shape[:-1]}, que não se alinha com x; com keepdims=True fica {(*x.shape[:-1], 1)}, e o broadcasting o "
        "subtrai (ou divide) linha por linha."),
    acerto="Correto! Sua softmax é estável (escores de 1000, linhas separadas por milhares, float32 e temperatura "
           "pequena não estouram), divide os escores pela temperatura, trabalha no último eixo — com quantos eixos "
           "o array tiver — e produz pesos positivos que somam 1.",
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
)


@corretor_de(SOFTMAX)
def check_softmax(fn: Callable[..., Any]) -> bool:
    """Confere uma softmax ``fn(x, temperatura=1.0)`` de ``x / temperatura`` ao longo do **último** eixo (vetor
    ``(n,)``, matriz ``(m, n)`` ou mais eixos).

    Casos: um vetor pequeno, uma matriz ``(2, 3)`` (cada linha deve somar 1), escores enormes
    (``[1000, 1001, 1002]``), escores negativos, o padrão de estabilidade da coleção (linhas do mesmo
    lote separadas por milhares, uma linha muito espalhada, float32) e, com ``temperatura=`` por nome, uma
    matriz com T = 0.5, os escores do Exemplo 1 com T = 4, escores enormes com T = 0.01 e um array de 3 eixos
    ``(cabeças, queries, keys)``. Reconhece cada erro de :data:`SOFTMAX`: as três versões instáveis, o máximo de
    ``x`` em vez do de ``x / T``, a temperatura ignorada ou multiplicando, eixo errado, normalização pelo array
    inteiro, sem exponenciar, sem dividir pela soma.
    """
    return conferir(SOFTMAX, fn)


def _jacobiano_com(trocar: Callable[[np.ndarray], np.ndarray], z: np.ndarray) -> np.ndarray:
    s = trocar(z)
    return np.diag(s) - np.outer(s, s)


JACOBIANO = Exercicio(
    nome="jacobiano da softmax",
    casos=lambda: [
        Caso("com os escores do exemplo z = [0.707, 0, 0.354]", {"z": np.array([0.707, 0.0, 0.354])}),
        Caso("com z = [2, -1, 0.5, 0]", {"z": np.array([2.0, -1.0, 0.5, 0.0])}),
        Caso("com escores grandes [1000, 1001, 999]", {"z": np.array([1000.0, 1001.0, 999.0])}),
    ],
    certo=lambda z: softmax_jacobian(softmax(z)),
    dica_de_forma="O jacobiano tem uma linha por peso sᵢ e uma coluna por escore zⱼ: uma matriz (n, n).",
    acerto="Correto! J = diag(s) − s sᵀ: positivo na diagonal, negativo fora dela e simétrico. Cada coluna soma 0 "
           "(os pesos sempre somam 1) e cada linha também (somar a mesma constante a todos os escores não muda os "
           "pesos).",
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
        Erro("sem o fator sᵢ",
             "Faltou multiplicar por sᵢ: você calculou δᵢⱼ − sⱼ. O certo é sᵢ(δᵢⱼ − sⱼ), ou seja, cada linha i "
             "multiplicada por sᵢ.",
             resposta=lambda z: np.eye(z.size) - softmax(z)[None, :]),
        Erro("sᵢ no lugar de sⱼ",
             "Você usou sᵢ onde deveria estar sⱼ: J[i, j] = sᵢ(δᵢⱼ − sⱼ), com o índice da **coluna** no segundo s. "
             "Em numpy: np.diag(s) - np.outer(s, s).",
             resposta=lambda z: softmax(z)[:, None] * (np.eye(z.size) - softmax(z)[:, None])),
        Erro("escores z no lugar dos pesos s",
             "Você usou os escores z no lugar dos pesos s. Primeiro calcule s = softmax(z); o jacobiano é "
             "diag(s) − s sᵀ.",
             resposta=lambda z: np.diag(z) - np.outer(z, z)),
        Erro("softmax instável por dentro",
             "Com escores grandes ([1000, 1001, 999]) o jacobiano saiu com NaN ou inf: exp(1000) estoura. Calcule s "
             "com uma softmax estável (subtraindo o máximo) antes de montar a matriz.",
             quando=lambda y, _certo, _caso: _nao_finita(y)),
    ],
)


@corretor_de(JACOBIANO)
def check_jacobiano_softmax(fn: Callable[[np.ndarray], Any]) -> bool:
    """Confere ``fn(z)`` = o jacobiano da softmax no vetor de escores ``z`` (1-D, tamanho ``n``).

    A resposta é a matriz ``(n, n)`` com ``J[i, j] = ∂sᵢ/∂zⱼ = sᵢ(δᵢⱼ − sⱼ)``, onde ``s = softmax(z)``;
    em forma matricial, ``diag(s) − s sᵀ``. Casos: os escores do exemplo resolvido, quatro escores com
    um negativo e escores enormes (``[1000, 1001, 999]``, que exigem uma softmax estável por dentro).
    Reconhece cada erro de :data:`JACOBIANO`.
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
    vale de 0,53 a 0,62, uma previsão de cabeça; cada previsão errada típica — 0,91, 0,455, 0,394, 1 — tem o
    seu equívoco)."""
    return caixa(PREVISAO_DOBRO)
