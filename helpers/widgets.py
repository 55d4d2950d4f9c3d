"""Painéis interativos (ipywidgets) dos notebooks.

Todo painel é um :class:`Painel`: controles (sliders, caixas) à esquerda, a figura à direita e,
embaixo, um texto com os números do momento. Mover um controle chama ``atualizar``, que refaz as
contas (com :mod:`helpers.attention`), muda os artistas da figura no lugar (:mod:`helpers.plots`) e
renderiza um PNG para um widget ``Image``. Isso funciona igual no JupyterLab, no Voilà e em testes
sem navegador: ``painel.controles["angulo_q"].value = 90`` atualiza ``painel.estado`` e
``painel.texto.value``.

Cada painel também deixa uma figura estática do seu estado inicial (``painel.figura_estatica()``),
para que o notebook se leia bem no GitHub, num PDF e no nbval.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as W
import numpy as np
from IPython.display import Image
from matplotlib.figure import Figure

from . import plots


def slider(descricao: str, valor: float, minimo: float, maximo: float, passo: float = 0.1, **kw: Any) -> W.FloatSlider:
    """Um ``FloatSlider`` com a descrição inteira visível e atualização contínua."""
    opcoes = dict(
        value=valor, min=minimo, max=maximo, step=passo, description=descricao, continuous_update=True,
        style={"description_width": "initial"}, layout=W.Layout(width="320px"),
    )
    opcoes.update(kw)
    return W.FloatSlider(**opcoes)


class Painel(W.VBox):
    """Controles + figura (PNG) + números, ligados por uma função de atualização.

    Parâmetros
    ----------
    fig : a ``Figure`` que o painel mostra (criada fora do pyplot).
    controles : nome → widget com ``.value`` (a ordem é a ordem na tela).
    calcular : recebe ``{nome: valor}`` dos controles, atualiza a figura e devolve o estado:
        um dicionário de números que o painel mostra. A chave ``"html"``, se houver, é o texto
        mostrado embaixo da figura.
    titulo : uma linha em negrito acima do painel.
    """

    def __init__(
        self,
        fig: Figure,
        controles: Mapping[str, W.ValueWidget],
        calcular: Callable[[dict[str, Any]], dict[str, Any]],
        titulo: str = "",
    ):
        self.fig = fig
        self.controles = dict(controles)
        self._calcular = calcular
        self.imagem = W.Image(format="png", layout=W.Layout(max_width="100%"))
        self.texto = W.HTML()
        self.estado: dict[str, Any] = {}
        self.ultimo_tempo_ms = 0.0
        cabecalho = [W.HTML(f"<b>{titulo}</b>")] if titulo else []
        coluna = W.VBox(list(self.controles.values()), layout=W.Layout(min_width="330px"))
        super().__init__(cabecalho + [W.HBox([coluna, self.imagem], layout=W.Layout(flex_flow="row wrap")), self.texto])
        for controle in self.controles.values():
            controle.observe(self._ao_mudar, names="value")
        self.atualizar()

    def valores(self) -> dict[str, Any]:
        """O valor atual de cada controle."""
        return {nome: c.value for nome, c in self.controles.items()}

    def _ao_mudar(self, _mudanca: Any) -> None:
        self.atualizar()

    def atualizar(self) -> dict[str, Any]:
        """Recalcula, redesenha e devolve o novo estado (também guardado em ``self.estado``)."""
        inicio = time.perf_counter()
        estado = self._calcular(self.valores())
        self.texto.value = estado.get("html", "")
        self.imagem.value = plots.png(self.fig)
        self.estado = estado
        self.ultimo_tempo_ms = (time.perf_counter() - inicio) * 1000
        return estado

    def definir(self, **valores: Any) -> dict[str, Any]:
        """Muda vários controles de uma vez (uma única atualização) e devolve o estado."""
        for c in self.controles.values():
            c.unobserve(self._ao_mudar, names="value")
        try:
            for nome, valor in valores.items():
                if nome not in self.controles:
                    raise ValueError(f"o painel não tem o controle {nome!r}; os controles são {list(self.controles)}.")
                self.controles[nome].value = valor
        finally:
            for c in self.controles.values():
                c.observe(self._ao_mudar, names="value")
        return self.atualizar()

    def figura_estatica(self) -> Image:
        """A figura do estado atual como imagem estática (para o GitHub, PDF e nbval)."""
        return Image(data=self.imagem.value, format="png")


def _tabela(linhas: list[tuple[str, str]]) -> str:
    corpo = "".join(f"<tr><td style='padding-right:1em'>{a}</td><td><b>{b}</b></td></tr>" for a, b in linhas)
    return f"<table style='font-size:1.15em'>{corpo}</table>"


# ---------------------------------------------------------------------------------------------
# 00 e 02: produto escalar
# ---------------------------------------------------------------------------------------------


def _polar(angulo_graus: float, comprimento: float) -> np.ndarray:
    a = math.radians(angulo_graus)
    return np.array([comprimento * math.cos(a), comprimento * math.sin(a)])


def painel_produto_escalar(
    angulo_q: float = 30.0,
    comprimento_q: float = 2.0,
    angulo_k: float = 75.0,
    comprimento_k: float = 1.5,
    *,
    mover_k: bool = True,
) -> Painel:
    """Setas ``q`` e ``k`` no plano; sliders de ângulo (graus) e comprimento.

    Mostra ao vivo ``q·k = q₁k₁ + q₂k₂``, ``|q| |k| cos θ`` (o mesmo número) e ``cos θ``.
    Com ``mover_k=False`` só a query se mexe (o primeiro contato, no notebook 00).
    Estado: ``q``, ``k`` (arrays ``(2,)``), ``produto``, ``cos``, ``theta_graus``.
    """
    fig, axes = plots.nova_figura(4.6, 4.6)
    fig.subplots_adjust(left=0.12, right=0.96, bottom=0.1, top=0.9)
    figura = plots.FiguraProdutoEscalar(axes[0, 0])
    controles: dict[str, W.ValueWidget] = {
        "angulo_q": slider("ângulo de q (graus)", angulo_q, -180, 180, 5),
        "comprimento_q": slider("comprimento |q|", comprimento_q, 0, 2.8, 0.1),
    }
    if mover_k:
        controles["angulo_k"] = slider("ângulo de k (graus)", angulo_k, -180, 180, 5)
        controles["comprimento_k"] = slider("comprimento |k|", comprimento_k, 0, 2.8, 0.1)

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        q = _polar(v["angulo_q"], v["comprimento_q"])
        k = _polar(v.get("angulo_k", angulo_k), v.get("comprimento_k", comprimento_k))
        produto = float(q @ k)
        nq, nk = float(np.linalg.norm(q)), float(np.linalg.norm(k))
        cos = produto / (nq * nk) if nq > 0 and nk > 0 else float("nan")
        theta = math.degrees(math.acos(max(-1.0, min(1.0, cos)))) if nq > 0 and nk > 0 else float("nan")
        figura.atualizar(q, k)
        cos_txt = f"{cos:.3f}" if nq > 0 and nk > 0 else "indefinido (vetor nulo)"
        html = _tabela([
            ("q", f"({q[0]:.2f}, {q[1]:.2f})"),
            ("k", f"({k[0]:.2f}, {k[1]:.2f})"),
            ("q·k = q₁k₁ + q₂k₂", f"{q[0]:.2f}·{k[0]:.2f} + {q[1]:.2f}·{k[1]:.2f} = {produto:.3f}"),
            ("|q| |k| cos θ", f"{nq:.2f} · {nk:.2f} · {cos_txt} = {produto:.3f}"),
            ("cos θ", cos_txt),
        ])
        return {"q": q, "k": k, "produto": produto, "cos": cos, "theta_graus": theta, "html": html}

    return Painel(fig, controles, calcular, titulo="Produto escalar: quanto q e k apontam para o mesmo lado")


# === 01 · gargalo recorrente ===================================================================


def painel_gargalo(comprimento: int = 8, tamanho_estado: int = 32) -> Painel:
    """Quanto do 1º token ainda se lê depois de ``T`` tokens: RNN tanh, RNN com porta e atenção.

    Sliders: ``comprimento`` (``T`` de 1 a 40) e ``tamanho_estado`` (``n`` em 4, 8, …, 128). As
    acurácias são medidas de verdade por :func:`helpers.recurrent.memory_grid` (leitura ridge em
    1500 sequências, teste em 500 nunca vistas), uma vez por sessão (cerca de 1 s); mover um slider
    só consulta a grade e redesenha. Estado: ``comprimento``, ``tamanho_estado``, ``acc_rnn``,
    ``acc_porta``, ``acc_atencao``, ``acaso``, ``margem`` (3 desvios do acaso) e os vereditos
    ``rnn_acima_do_acaso``, ``porta_acima_do_acaso``.
    """
    from . import recurrent

    grade = recurrent.memory_grid()
    tamanhos = [int(n) for n in grade.sizes]
    if tamanho_estado not in tamanhos:
        raise ValueError(f"tamanho_estado precisa ser um de {tamanhos}; recebi {tamanho_estado!r}.")
    fig, axes = plots.nova_figura(7.6, 3.6)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.15, top=0.9)
    figura = plots.FiguraGargalo(axes[0, 0], len(grade.lengths), grade.chance)
    controles: dict[str, W.ValueWidget] = {
        "comprimento": W.IntSlider(
            value=comprimento, min=1, max=len(grade.lengths), step=1, description="comprimento T (tokens)",
            continuous_update=True, style={"description_width": "initial"}, layout=W.Layout(width="320px"),
        ),
        "tamanho_estado": W.SelectionSlider(
            options=tamanhos, value=tamanho_estado, description="tamanho do estado n",
            continuous_update=True, style={"description_width": "initial"}, layout=W.Layout(width="320px"),
        ),
    }

    def veredito(acc: float) -> str:
        return "acima do acaso" if acc > grade.chance + grade.chance_margin else "no nível do acaso"

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        T, n = int(v["comprimento"]), int(v["tamanho_estado"])
        i, j = grade.index(T, n)
        acc_rnn, acc_porta, acc_att = float(grade.tanh[i, j]), float(grade.gated[i, j]), float(grade.attention[j])
        figura.atualizar(grade.tanh[i], grade.gated[i], grade.attention, T, n)
        margem = grade.chance_margin
        html = _tabela([
            (f"RNN tanh (guarda {n} números)", f"{acc_rnn:.3f} — {veredito(acc_rnn)}"),
            (f"RNN com porta (guarda {n} números)", f"{acc_porta:.3f} — {veredito(acc_porta)}"),
            (f"atenção (guarda os {T} vetores)", f"{acc_att:.3f}"),
            ("acaso: 1 / vocabulário", f"{grade.chance:.3f} (± {margem:.3f}, 3 desvios em {grade.n_test} testes)"),
        ])
        return {
            "comprimento": T, "tamanho_estado": n, "acc_rnn": acc_rnn, "acc_porta": acc_porta,
            "acc_atencao": acc_att, "acaso": grade.chance, "margem": margem,
            "rnn_acima_do_acaso": acc_rnn > grade.chance + margem,
            "porta_acima_do_acaso": acc_porta > grade.chance + margem, "html": html,
        }

    return Painel(fig, controles, calcular, titulo="O gargalo recorrente: ler o 1º token depois de T tokens")


# === 02 · produto escalar: ranking de keys ====================================================

#: as keys do notebook 02: k₂ é longa e meio torta, k₁ é curta e bem alinhada com a query padrão
KEYS_RANKING = np.array([[1.1, 0.1], [0.8, 2.4], [-1.6, 1.0], [0.8, -1.6], [-0.6, -1.2]])


def painel_ranking_keys(angulo_q: float = 30.0, comprimento_q: float = 1.5, keys: Any = None) -> Painel:
    """Uma query contra várias keys fixas (``keys``: ``(n, 2)``; padrão :data:`KEYS_RANKING`).

    Sliders giram e esticam ``q``; as barras dos escores ``q·kᵢ`` se reordenam ao vivo.
    Estado: ``q`` ``(2,)``, ``escores`` ``(n,)`` (na ordem das keys), ``ordem`` (índices, do 1º ao
    último lugar), ``vencedora`` (nome da key do 1º lugar), ``cos`` ``(n,)`` (cossenos, para comparar).
    """
    K = KEYS_RANKING if keys is None else np.asarray(keys, dtype=float)
    nomes = plots.nomes_keys(len(K))
    comprimento_max = 2.8
    fig, axes = plots.nova_figura(8.6, 4.0, ncols=2)
    fig.subplots_adjust(left=0.04, right=0.97, bottom=0.13, top=0.9, wspace=0.25)
    escore_max = comprimento_max * float(np.max(np.linalg.norm(K, axis=1)))
    figura = plots.FiguraRankingKeys(axes[0, 0], axes[0, 1], K, nomes, limite=3.0, escore_max=escore_max)
    controles = {
        "angulo_q": slider("ângulo de q (graus)", angulo_q, -180, 180, 5),
        "comprimento_q": slider("comprimento |q|", comprimento_q, 0, comprimento_max, 0.1),
    }
    normas_k = np.linalg.norm(K, axis=1)

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        q = _polar(v["angulo_q"], v["comprimento_q"])
        escores, ordem = figura.atualizar(q)
        nq = float(np.linalg.norm(q))
        cos = escores / (nq * normas_k) if nq > 0 else np.full(len(K), np.nan)
        linhas = [("q", f"({q[0]:.2f}, {q[1]:.2f})")]
        for pos, i in enumerate(ordem):
            cos_txt = f"{cos[i]:+.2f}" if nq > 0 else "indefinido"
            linhas.append((f"{pos + 1}º lugar: {nomes[i]} = ({K[i, 0]:.1f}, {K[i, 1]:.1f})",
                           f"q·{nomes[i]} = {escores[i]:+.2f}   (cos θ = {cos_txt})"))
        return {"q": q, "escores": escores, "ordem": ordem, "vencedora": nomes[ordem[0]], "cos": cos,
                "html": _tabela(linhas)}

    return Painel(fig, controles, calcular, titulo="Ranking: qual key casa melhor com a query?")



# === 03 · escala √d ============================================================================

#: as dimensões do painel da escala: potências de 2, de 2 a 1024
DIMS_ESCALA = [2**i for i in range(1, 11)]


def norma_jacobiano_softmax(p: np.ndarray) -> np.ndarray | float:
    """‖diag(p) − p pᵀ‖ (norma de Frobenius do jacobiano da softmax) para pesos ``p`` ``(..., n)``.

    Mede o quanto os pesos reagem a uma mudança nos escores: perto de 0 quando a softmax está
    saturado (um peso ≈ 1). Vale para várias linhas de uma vez (o mesmo número que
    ``np.linalg.norm(np.diag(p) - np.outer(p, p))`` para cada linha).
    """
    p = np.asarray(p, dtype=float)
    jac = p[..., :, None] * (np.eye(p.shape[-1]) - p[..., None, :])  # J[i, j] = pᵢ(δᵢⱼ − pⱼ)
    norma = np.sqrt(np.sum(jac**2, axis=(-2, -1)))
    return float(norma) if norma.ndim == 0 else norma


def painel_escala(d: int = 256, escalar: bool = False, n_keys: int = 16, n_queries: int = 125,
                  semente: int = 5) -> Painel:
    """Escores de vetores aleatórios (entradas com variância 1) numa dimensão ``d`` escolhida.

    Controles: ``d`` (potências de 2, de 2 a 1024) e ``escalar`` (dividir os escores por √d).
    Sorteia uma vez só ``n_queries`` queries e, para cada uma, ``n_keys`` keys, em 1024 dimensões; a
    dimensão ``d`` usa as ``d`` primeiras coordenadas (as somas acumuladas ficam guardadas, então
    mover o slider não refaz conta pesada). Mostra o histograma de todos os ``n_queries × n_keys``
    escores, os pesos da softmax (:func:`helpers.attention.softmax`) da primeira query (a "query
    fixa") sobre as suas keys, o peso máximo e a norma do jacobiano da softmax
    (:func:`norma_jacobiano_softmax`); as curvas do terceiro gráfico são a mediana sobre as queries.

    Estado: ``d``, ``escalar``, ``q`` ``(d,)`` e ``K`` ``(n_keys, d)`` (a query fixa e as suas keys),
    ``escores`` ``(n_keys,)`` (o que entra na softmax), ``pesos``, ``peso_max``, ``norma_grad``,
    ``desvio_pares`` (desvio-padrão de todos os escores do histograma).
    """
    from .attention import softmax

    d_max = DIMS_ESCALA[-1]
    rng = np.random.default_rng(semente)
    Q = rng.standard_normal((n_queries, 1, d_max))
    KK = rng.standard_normal((n_queries, n_keys, d_max))
    acum = np.cumsum(KK * Q, axis=-1)  # acum[m, j, d-1] = K_m[j, :d] @ q_m[:d]
    q, K = Q[0, 0], KK[0]

    def todos_escores(dim: int, com_escala: bool) -> np.ndarray:
        return acum[:, :, dim - 1] / (math.sqrt(dim) if com_escala else 1.0)

    grad_sem = [float(np.median(norma_jacobiano_softmax(softmax(todos_escores(x, False))))) for x in DIMS_ESCALA]
    grad_com = [float(np.median(norma_jacobiano_softmax(softmax(todos_escores(x, True))))) for x in DIMS_ESCALA]
    grad_fixa = min(norma_jacobiano_softmax(softmax(todos_escores(x, e)[0])) for x in DIMS_ESCALA for e in (False, True))

    fig, axes = plots.nova_figura(9.0, 3.6, ncols=3)
    fig.subplots_adjust(left=0.08, right=0.985, bottom=0.16, top=0.88, wspace=0.45)
    figura = plots.FiguraEscala(axes[0, 0], axes[0, 1], axes[0, 2], n_keys, DIMS_ESCALA, grad_sem, grad_com,
                                minimo_grad=grad_fixa)
    controles: dict[str, W.ValueWidget] = {
        "d": W.SelectionSlider(options=DIMS_ESCALA, value=d, description="dimensão d", continuous_update=True,
                               style={"description_width": "initial"}, layout=W.Layout(width="320px")),
        "escalar": W.Checkbox(value=escalar, description="dividir os escores por √d", indent=False),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        dim, com_escala = int(v["d"]), bool(v["escalar"])
        fator = math.sqrt(dim) if com_escala else 1.0
        tudo = todos_escores(dim, com_escala)
        pares = tudo.ravel()
        escores = tudo[0]
        pesos = softmax(escores)
        norma = norma_jacobiano_softmax(pesos)
        peso_max = float(pesos.max())
        desvio = float(np.std(pares))
        figura.atualizar(pares, escores, pesos, dim, norma, com_escala)
        divisao = f"q·k / √{dim} (÷ {fator:.3g})" if com_escala else "q·k (sem escala)"
        html = _tabela([
            ("escores", divisao),
            ("desvio-padrão de todos os escores do histograma",
             f"{desvio:.2f}" + ("" if com_escala else f"   (√d = {math.sqrt(dim):.2f})")),
            (f"maior peso da softmax (query fixa, {n_keys} keys)", f"{peso_max:.3f}   (uniforme seria {1 / n_keys:.4g})"),
            ("norma do gradiente da softmax ‖J‖ (query fixa, ○)", f"{norma:.2e}"),
        ])
        return {"d": dim, "escalar": com_escala, "q": q[:dim], "K": K[:, :dim], "escores": escores, "pesos": pesos,
                "peso_max": peso_max, "norma_grad": norma, "desvio_pares": desvio, "html": html}

    return Painel(fig, controles, calcular, titulo="Por que dividir por √d: escores, pesos e gradiente")



# === 04 · softmax ==============================================================================


def _jacobiano_softmax(s: np.ndarray) -> np.ndarray:
    """``J[i, j] = ∂sᵢ/∂zⱼ = sᵢ(δᵢⱼ − sⱼ)``, isto é, ``diag(s) − s sᵀ`` (a partir dos pesos ``s``)."""
    return np.diag(s) - np.outer(s, s)


def painel_softmax(
    escores: tuple[float, ...] = (0.707, 0.0, 0.354),
    temperatura: float = 1.0,
    *,
    mostrar_jacobiano: bool = True,
) -> Painel:
    """Sliders para os escores ``z`` e a temperatura ``T``; barras de ``s = softmax(z / T)`` ao vivo.

    O padrão são os escores escalados do exemplo resolvido (``q·kᵢ/√2``), cujos pesos são
    ``(0.455, 0.225, 0.320)``. Embaixo: a soma dos pesos, o maior peso, a entropia
    ``H = −Σ sᵢ ln sᵢ`` (``ln n`` na uniforme, 0 no argmax) e o maior ``|J[i, j]|`` do jacobiano
    ``J[i, j] = sᵢ(δᵢⱼ − sⱼ)`` (em relação à entrada da softmax, ``z/T``), que vai a 0 quando um peso
    vai a 1 (saturação). Com ``mostrar_jacobiano`` aparece também o mapa de calor de ``J``.
    Estado: ``escores``, ``temperatura``, ``pesos``, ``soma``, ``peso_max``, ``entropia``,
    ``entropia_max``, ``jacobiano``, ``jacobiano_max``.
    """
    from .attention import softmax  # import local: o topo do módulo é compartilhado

    z0 = np.asarray(escores, dtype=float)
    if z0.ndim != 1 or not 2 <= z0.size <= 6:
        raise ValueError(f"painel_softmax aceita de 2 a 6 escores; recebi forma {z0.shape}.")
    n = z0.size
    if mostrar_jacobiano:
        fig, axes = plots.nova_figura(8.8, 3.8, ncols=2)
        fig.subplots_adjust(left=0.08, right=0.95, bottom=0.12, top=0.88, wspace=0.3)
        figura = plots.FiguraSoftmax(axes[0, 0], n, axes[0, 1])
    else:
        fig, axes = plots.nova_figura(5.0, 3.8)
        fig.subplots_adjust(left=0.14, right=0.96, bottom=0.12, top=0.88)
        figura = plots.FiguraSoftmax(axes[0, 0], n)
    controles: dict[str, W.ValueWidget] = {
        f"z{i + 1}": slider(f"escore z{plots.subscrito(i + 1)}", float(z), -5.0, 5.0, 0.001, readout_format=".3f") for i, z in enumerate(z0)
    }
    controles["temperatura"] = slider("temperatura T", temperatura, 0.1, 5.0, 0.05)

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        z = np.array([v[f"z{i + 1}"] for i in range(n)], dtype=float)
        t = float(v["temperatura"])
        s = softmax(z, temperature=t)
        jac = _jacobiano_softmax(s)  # em relação à entrada da softmax, z/T (em relação a z: mais um fator 1/T)
        positivos = s[s > 0]
        entropia = float(-np.sum(positivos * np.log(positivos)))
        soma = float(s.sum())
        peso_max = float(s.max())
        jac_max = float(np.abs(jac).max())
        figura.atualizar(s, jac, titulo=f"s = softmax(z / T), T = {t:.2f}")
        html = _tabela([
            ("escores z", ", ".join(f"{x:.2f}" for x in z)),
            ("pesos s", ", ".join(f"{x:.3f}" for x in s)),
            ("soma dos pesos", f"{soma:.3f}"),
            ("maior peso", f"{peso_max:.3f} (uniforme: 1/{n} = {1 / n:.3f})"),
            ("entropia H = −Σ sᵢ ln sᵢ", f"{entropia:.3f} (uniforme: ln {n} = {math.log(n):.3f}; argmax: 0)"),
            ("maior |sᵢ(δᵢⱼ − sⱼ)| no jacobiano", f"{jac_max:.3f} (nunca passa de 0.25; → 0 quando um peso → 1)"),
        ])
        return {"escores": z, "temperatura": t, "pesos": s, "soma": soma, "peso_max": peso_max,
                "entropia": entropia, "entropia_max": math.log(n), "jacobiano": jac, "jacobiano_max": jac_max,
                "html": html}

    return Painel(fig, controles, calcular, titulo="Softmax: escores viram pesos positivos que somam 1")



# === 05 · soma ponderada =======================================================================

_SUB05 = "₁₂₃"
#: o exemplo resolvido do texto-base (exemplos 1 e 2)
_Q05 = (1.0, 0.0)
_K05 = ((1.0, 0.0), (0.0, 1.0), (0.5, 0.5))
_V05 = ((10.0, 0.0), (0.0, 10.0), (5.0, 5.0))


def _par(x: np.ndarray) -> str:
    return f"({x[0]:.2f}, {x[1]:.2f})"


def _html_soma_ponderada(q: np.ndarray, K: np.ndarray, V: np.ndarray, escores: np.ndarray,
                         escalados: np.ndarray, pesos: np.ndarray, saida: np.ndarray) -> str:
    """A tabela passo a passo (escore → ÷√d → exp → peso → peso·value) e a saída."""
    d = K.shape[1]
    expo = np.exp(escalados)  # só para mostrar; os pesos vêm de helpers.attention
    cab = ["", "kᵢ", "q·kᵢ", f"÷√{d}", "e^(…)", "peso wᵢ", "vᵢ", "wᵢ·vᵢ"]
    estilo = "style='padding:0 0.7em;text-align:right'"
    linhas = ["<tr>" + "".join(f"<th {estilo}>{c}</th>" for c in cab) + "</tr>"]
    for i in range(len(K)):
        celulas = [f"<b>{i + 1}</b>", _par(K[i]), f"{escores[i]:.3f}", f"{escalados[i]:.3f}", f"{expo[i]:.3f}",
                   f"<b>{pesos[i]:.4f}</b>", _par(V[i]), _par(pesos[i] * V[i])]
        linhas.append("<tr>" + "".join(f"<td {estilo}>{c}</td>" for c in celulas) + "</tr>")
    total = ["<b>soma</b>", "", "", "", f"{expo.sum():.3f}", f"{pesos.sum():.4f}", "",
             f"<b style='color:{plots.CORES['saida']}'>{_par(saida)}</b>"]
    linhas.append("<tr style='border-top:1px solid #888'>" + "".join(f"<td {estilo}>{c}</td>" for c in total) + "</tr>")
    return (f"<div style='font-size:1.1em'>q = {_par(q)} · d = {d} · √d ≈ {math.sqrt(d):.3f}"
            f"<table>{''.join(linhas)}</table>"
            f"saída = Σ wᵢ·vᵢ = <b>{_par(saida)}</b>"
            "<div style='color:#555;font-size:0.9em'>Na figura: setas mais grossas = peso maior; no meio, a área "
            "verde (contorno pontilhado) é onde a saída pode cair e o tracejado cinza é o caminho "
            "w₁v₁ → + w₂v₂ → + w₃v₃ até ela; à direita, a linha tracejada marca 1/3 (a média simples).</div></div>")


def _painel_soma(q: Any, K: Any, V: Any, mover: str) -> Painel:
    from .attention import scaled_dot_product_attention

    q0 = np.asarray(q, dtype=float)
    K0 = np.asarray(K, dtype=float)
    V0 = np.asarray(V, dtype=float)
    if q0.shape != (2,) or K0.shape != (3, 2) or V0.shape != (3, 2):
        raise ValueError(f"o painel usa q (2,), K (3, 2) e V (3, 2); recebi q {q0.shape}, K {K0.shape} e V {V0.shape}.")
    fig, axes = plots.nova_figura(9.0, 3.6, ncols=3)
    fig.subplots_adjust(left=0.04, right=0.98, bottom=0.2, top=0.9, wspace=0.3)
    limites = (-2.0, 13.0) if mover == "keys" else (-13.0, 15.0)  # folga para os rótulos
    figura = plots.FiguraSomaPonderada(*axes[0], limites_values=limites)
    controles: dict[str, W.ValueWidget] = {}
    if mover == "keys":
        controles["q_x"] = slider("q: x", q0[0], -2, 2, 0.1)
        controles["q_y"] = slider("q: y", q0[1], -2, 2, 0.1)
        for i in range(3):
            controles[f"k{i + 1}_x"] = slider(f"k{_SUB05[i]}: x", K0[i, 0], -2, 2, 0.1)
            controles[f"k{i + 1}_y"] = slider(f"k{_SUB05[i]}: y", K0[i, 1], -2, 2, 0.1)
    else:
        for i in range(3):
            controles[f"v{i + 1}_x"] = slider(f"v{_SUB05[i]}: x", V0[i, 0], -10, 10, 0.5)
            controles[f"v{i + 1}_y"] = slider(f"v{_SUB05[i]}: y", V0[i, 1], -10, 10, 0.5)

    def calcular(val: dict[str, Any]) -> dict[str, Any]:
        qv, Kv, Vv = q0.copy(), K0.copy(), V0.copy()
        if mover == "keys":
            qv = np.array([val["q_x"], val["q_y"]], dtype=float)
            Kv = np.array([[val[f"k{i}_x"], val[f"k{i}_y"]] for i in (1, 2, 3)], dtype=float)
        else:
            Vv = np.array([[val[f"v{i}_x"], val[f"v{i}_y"]] for i in (1, 2, 3)], dtype=float)
        saida, pesos = scaled_dot_product_attention(qv, Kv, Vv)
        escores = Kv @ qv
        escalados = escores / math.sqrt(Kv.shape[1])
        figura.atualizar(qv, Kv, Vv, escalados, pesos, saida)
        html = _html_soma_ponderada(qv, Kv, Vv, escores, escalados, pesos, saida)
        return {"q": qv, "K": Kv, "V": Vv, "escores": escores, "escalados": escalados, "pesos": pesos,
                "contribuicoes": pesos[:, None] * Vv, "saida": saida, "html": html}

    titulo = ("Mova q e as keys: os pesos mudam e a saída passeia entre os values" if mover == "keys"
              else "Mova os values: a saída muda, os pesos não")
    return Painel(fig, controles, calcular, titulo=titulo)


def painel_soma_ponderada(q: Any = _Q05, keys: Any = _K05, values: Any = _V05) -> Painel:
    """A atenção de uma query contra três keys, com sliders para ``q`` e cada ``kᵢ`` (x e y).

    Padrão: o exemplo resolvido (q = (1, 0); k₁ = (1, 0), k₂ = (0, 1), k₃ = (0.5, 0.5);
    v₁ = (10, 0), v₂ = (0, 10), v₃ = (5, 5)). Os values ficam fixos. Mostra q e as keys, os values
    com a saída, as barras dos pesos e a tabela passo a passo.
    Estado: ``q`` (2,), ``K`` (3, 2), ``V`` (3, 2), ``escores`` (q·kᵢ), ``escalados`` (÷√d),
    ``pesos`` (3,), ``contribuicoes`` (3, 2) = wᵢ·vᵢ, ``saida`` (2,).
    """
    return _painel_soma(q, keys, values, "keys")


def painel_soma_ponderada_values(q: Any = _Q05, keys: Any = _K05, values: Any = _V05) -> Painel:
    """O mesmo exemplo, mas com sliders para os **values** (q e as keys ficam fixos).

    Mostra que as keys decidem onde olhar (os pesos não mudam quando um value muda) e os values
    decidem o que é recuperado (a saída muda). Estado igual ao de :func:`painel_soma_ponderada`.
    """
    return _painel_soma(q, keys, values, "values")


# === 06 · projeções Q, K, V ============================================================================


# === 07 · máscaras e atenção cruzada ============================================================================


# === 08 · várias cabeças ============================================================================


# === 09 · custo quadrático ============================================================================


# === 10 · revisão ============================================================================
