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
#: os Exemplos 1 e 2 da trilha (q, keys e values do exemplo resolvido)
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

#: o exemplo "banco" do notebook 06 (seção 3): o que cada coordenada dos embeddings quer dizer
DIMENSOES_BANCO = ("finanças", "assento/lugar", "ambiguidade", "gramática")
#: embeddings feitos à mão (d_model = 4), nas dimensões de :data:`DIMENSOES_BANCO`
EMBEDDINGS_BANCO = {
    "banco": (0.5, 0.5, 1.0, 0.0),
    "depositei": (0.9, 0.1, 0.0, 0.0),
    "salário": (1.0, 0.0, 0.0, 0.0),
    "sentei": (0.1, 0.9, 0.0, 0.0),
    "praça": (0.0, 1.0, 0.0, 0.0),
    "o": (0.0, 0.0, 0.0, 1.0),
    "no": (0.0, 0.0, 0.0, 1.0),
    "da": (0.0, 0.0, 0.0, 1.0),
}
FRASE_DINHEIRO = ("depositei", "o", "salário", "no", "banco")
FRASE_PRACA = ("sentei", "no", "banco", "da", "praça")


def matrizes_banco(forca_query: float = 2.0, financas_key: float = 1.0,
                   lugar_key: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(W_q, W_k, W_v)`` do exemplo "banco", escolhidas à mão (num modelo, viriam do treino).

    - ``W_q`` (4 × 2): a ambiguidade vira a pergunta "quem tem sentido próprio?" (coordenada 0 da
      query) com peso ``forca_query``; finanças e lugar perguntam o mesmo, mais fraco (0.5).
    - ``W_k`` (4 × 2): a coordenada 0 da key, "tenho sentido próprio", soma ``financas_key``·finanças
      + ``lugar_key``·lugar − ambiguidade; a coordenada 1 marca as palavras gramaticais.
    - ``W_v`` (4 × 3): o value entrega (finanças, lugar, gramática); a ambiguidade não é entregue.
    """
    W_q = np.array([[0.5, 0.0], [0.5, 0.0], [forca_query, 0.0], [0.0, 0.0]])
    W_k = np.array([[financas_key, 0.0], [lugar_key, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    W_v = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return W_q, W_k, W_v


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na > 0 and nb > 0 else 0.0


def painel_projecoes(forca_query: float = 2.0, financas_key: float = 1.0, lugar_key: float = 1.0) -> Painel:
    """As duas frases com "banco" e as **mesmas** ``W_q``, ``W_k``, ``W_v``; sliders mexem em três
    números dessas matrizes (:func:`matrizes_banco`).

    Sliders: ``forca_query`` (o peso da ambiguidade na query, ``W_q[ambiguidade, 0]``),
    ``financas_key`` e ``lugar_key`` (o peso de finanças e de lugar na key, ``W_k[·, 0]``). Para cada
    frase: ``Q = X W_q``, ``K = X W_k``, ``V = X W_v`` e
    :func:`helpers.attention.scaled_dot_product_attention`. Mostra os mapas de calor dos pesos, a
    saída de "banco" no plano dos dois sentidos e, embaixo, os pesos de "banco" e o cosseno da saída
    com cada sentido (as direções dos values de finanças e de lugar: as linhas 0 e 1 de ``W_v``).

    Estado: ``W_q``, ``W_k``, ``W_v``; ``q_banco`` (a query de "banco", igual nas duas frases);
    ``Q_1``, ``K_1``, ``V_1``, ``pesos_1`` ``(5, 5)``, ``saida_1`` ``(3,)`` (a saída de "banco"),
    ``cos_financas_1``, ``cos_lugar_1`` e o mesmo com ``_2`` para a frase da praça.
    """
    from .attention import scaled_dot_product_attention

    frases = (FRASE_DINHEIRO, FRASE_PRACA)
    Xs = [np.array([EMBEDDINGS_BANCO[t] for t in frase]) for frase in frases]
    linhas = [frase.index("banco") for frase in frases]
    x_banco = np.array(EMBEDDINGS_BANCO["banco"])
    fig, axes = plots.eixos_banco(pyplot=False)
    _, _, W_v0 = matrizes_banco()
    figura = plots.FiguraBanco(*axes, frases[0], frases[1], proprio=(x_banco @ W_v0)[:2])
    controles: dict[str, W.ValueWidget] = {
        "forca_query": slider("W_q[ambiguidade, 0]", forca_query, 0.0, 4.0, 0.25),
        "financas_key": slider("W_k[finanças, 0]", financas_key, -1.0, 2.0, 0.25),
        "lugar_key": slider("W_k[lugar, 0]", lugar_key, -1.0, 2.0, 0.25),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        W_q, W_k, W_v = matrizes_banco(float(v["forca_query"]), float(v["financas_key"]), float(v["lugar_key"]))
        u_fin, u_lugar = W_v[0], W_v[1]  # o que uma palavra só de finanças (ou só de lugar) entrega
        estado: dict[str, Any] = {"W_q": W_q, "W_k": W_k, "W_v": W_v, "q_banco": x_banco @ W_q}
        linhas_html = [("query de 'banco' = x_banco W_q", _par(estado["q_banco"]))]
        saidas = []
        for n, (frase, X, i) in enumerate(zip(frases, Xs, linhas), 1):
            Q, K, V = X @ W_q, X @ W_k, X @ W_v
            saida, pesos = scaled_dot_product_attention(Q, K, V)
            o = saida[i]
            cf, cl = _cos(o, u_fin), _cos(o, u_lugar)
            estado.update({f"Q_{n}": Q, f"K_{n}": K, f"V_{n}": V, f"pesos_{n}": pesos, f"saida_{n}": o,
                           f"cos_financas_{n}": cf, f"cos_lugar_{n}": cl})
            saidas.append(o)
            cor = plots.FiguraBanco.COR_FRASE1 if n == 1 else plots.FiguraBanco.COR_FRASE2
            linhas_html += [
                (f"<span style='color:{cor}'>■</span> frase {n}: pesos de 'banco'",
                 " · ".join(f"{t} {p:.3f}" for t, p in zip(frase, pesos[i]))),
                ("&nbsp;&nbsp;&nbsp;saída de 'banco' (finanças, lugar, gramática)",
                 f"({o[0]:.3f}, {o[1]:.3f}, {o[2]:.3f})"),
                ("&nbsp;&nbsp;&nbsp;cosseno com finanças · com lugar", f"{cf:.3f} · {cl:.3f}"),
            ]
        figura.atualizar(estado["pesos_1"], estado["pesos_2"], saidas[0], saidas[1])
        estado["html"] = _tabela(linhas_html) + (
            "<div style='color:#555'>'banco' sozinho entrega (0.5, 0.5, 0): cosseno 0.707 com os dois sentidos.</div>")
        return estado

    return Painel(fig, controles, calcular, titulo="As mesmas W_q, W_k, W_v em duas frases: para onde vai 'banco'?")



# === 07 · máscaras e atenção cruzada ============================================================================

#: a frase do painel das máscaras (seis tokens; o que passa do comprimento real vira <pad>)
FRASE_MASCARAS = ("a", "menina", "leu", "o", "livro", "ontem")
PAD = "<pad>"


def _dados_mascaras(palavras: tuple[str, ...], d: int, d_v: int, semente: int) -> dict[str, Any]:
    """Embeddings (um vetor por palavra e um para o <pad>) e as projeções já aplicadas a cada um."""
    rng = np.random.default_rng(semente)
    vocab = list(palavras) + [PAD]
    X = rng.normal(size=(len(vocab), d))
    W_q, W_k = rng.normal(size=(d, d)) * 0.7, rng.normal(size=(d, d)) * 0.7  # pesos nem uniformes nem 0/1
    W_v = rng.normal(size=(d, d_v))
    return {"vocab": vocab, "Q": X @ W_q, "K": X @ W_k, "V": X @ W_v}


def painel_mascaras(causal: bool = True, padding: bool = True, comprimento: int = 4, query: int = 2,
                    palavras: tuple[str, ...] = FRASE_MASCARAS, semente: int = 0) -> Painel:
    """Máscara causal e de padding, ao vivo, numa frase de ``n = len(palavras)`` posições.

    Controles: ``causal`` e ``padding`` (caixas), ``comprimento`` (quantos tokens são de verdade; o
    resto da sequência é ``<pad>``) e ``query`` (a linha em destaque). Os vetores de cada palavra e do
    ``<pad>`` são sorteados uma vez (``semente``) e projetados em q, k (``d = 4``) e v (``d_v = 3``); a
    conta é a de :func:`helpers.attention.scaled_dot_product_attention`, com a máscara
    ``causal_mask(n) & padding_mask([comprimento], n)[0]`` (só as partes ligadas).

    Mostra o mapa de pesos ``(n, n)`` com as células mascaradas em cinza (×) e a soma de cada linha; à
    direita, a saída da query em destaque e (tracejada) a que ela teria sem máscara nenhuma.

    Estado: ``tokens``, ``permitido`` ``(n, n)``, ``pesos`` ``(n, n)``, ``somas`` ``(n,)``, ``query``,
    ``pesos_query`` ``(n,)``, ``saida`` ``(d_v,)``, ``saida_sem_mascara`` ``(d_v,)``, ``peso_no_pad`` e
    ``peso_no_futuro`` (quanto a query em destaque dá a posições ``<pad>`` e a posições ``j > query``).
    """
    from html import escape

    from .attention import causal_mask, padding_mask, scaled_dot_product_attention

    palavras = tuple(palavras)
    n, d_v = len(palavras), 3
    if n < 2:
        raise ValueError(f"o painel precisa de pelo menos 2 palavras; recebi {n}.")
    dados = _dados_mascaras(palavras, 4, d_v, semente)
    causal_nn = causal_mask(n)

    def conta(L: int, com_causal: bool, com_padding: bool) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray,
                                                                      np.ndarray, np.ndarray]:
        ids = list(range(L)) + [n] * (n - L)  # n é o índice do <pad> no vocabulário
        tokens = [dados["vocab"][t] for t in ids]
        Q, K, V = dados["Q"][ids], dados["K"][ids], dados["V"][ids]
        permitido = np.ones((n, n), dtype=bool)
        if com_causal:
            permitido &= causal_nn
        if com_padding:
            permitido &= padding_mask(np.array([L]), n)[0]
        saidas, pesos = scaled_dot_product_attention(Q, K, V, permitido)
        saidas_livres, _ = scaled_dot_product_attention(Q, K, V)
        return tokens, permitido, pesos, saidas, saidas_livres, V

    # eixo da saída fixo: o maior |coordenada| entre todas as combinações dos controles
    limite = 1.15 * max(float(np.abs(r).max()) for L in range(1, n + 1) for c in (False, True)
                        for pd in (False, True) for r in conta(L, c, pd)[3:5])
    fig, axes = plots.nova_figura(9.0, 4.0, ncols=2)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.22, top=0.9, wspace=0.42)
    ax_mapa, ax_saida = axes[0]
    ax_mapa.set_position([0.1, 0.22, 0.42, 0.68])
    ax_saida.set_position([0.68, 0.22, 0.29, 0.68])
    figura = plots.FiguraMascaras(ax_mapa, ax_saida, n, d_v, (-limite, 1.5 * limite))  # folga para a legenda
    estilo = {"description_width": "initial"}
    controles: dict[str, W.ValueWidget] = {
        "causal": W.Checkbox(value=causal, description="máscara causal (não olhar o futuro)", indent=False),
        "padding": W.Checkbox(value=padding, description="máscara de padding (ignorar <pad>)", indent=False),
        "comprimento": W.IntSlider(value=comprimento, min=1, max=n, step=1, description="comprimento real (tokens)",
                                   continuous_update=True, style=estilo, layout=W.Layout(width="400px")),
        "query": W.IntSlider(value=query, min=0, max=n - 1, step=1, description="query em destaque (posição)",
                             continuous_update=True, style=estilo, layout=W.Layout(width="400px")),
    }
    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        L, i = int(v["comprimento"]), int(v["query"])
        com_causal, com_padding = bool(v["causal"]), bool(v["padding"])
        tokens, permitido, pesos, saidas, saidas_livres, _ = conta(L, com_causal, com_padding)
        somas = pesos.sum(axis=-1)
        no_pad = float(pesos[i, L:].sum())
        no_futuro = float(pesos[i, i + 1:].sum())
        ativas = " + ".join(nome for nome, ligada in (("causal", com_causal), ("padding", com_padding)) if ligada)
        figura.atualizar(pesos, permitido, tokens, i, saidas[i], saidas_livres[i],
                         titulo=f"pesos — máscara: {ativas or 'nenhuma'}")
        esc = [escape(t) for t in tokens]  # "<pad>" viraria uma tag no HTML
        linha = ", ".join(f"{t} {w:.2f}" for t, w in zip(esc, pesos[i], strict=True))
        html = _tabela([
            ("sequência", " ".join(esc) + f"   ({L} de {n} tokens são reais)"),
            ("máscaras ligadas", ativas or "nenhuma"),
            (f"pesos da query {i} («{esc[i]}»)", linha),
            ("soma da linha", f"{somas[i]:.3f}"),
            (f"peso que a query dá ao {escape(PAD)}", f"{no_pad:.3f}"),
            (f"peso que a query dá ao futuro (posições > {i})", f"{no_futuro:.3f}"),
            ("saída da query (com as máscaras)", "(" + ", ".join(f"{x:.2f}" for x in saidas[i]) + ")"),
            ("saída sem máscara nenhuma", "(" + ", ".join(f"{x:.2f}" for x in saidas_livres[i]) + ")"),
        ])
        return {"tokens": tokens, "permitido": permitido, "pesos": pesos, "somas": somas, "query": i,
                "pesos_query": pesos[i], "saida": saidas[i], "saida_sem_mascara": saidas_livres[i],
                "peso_no_pad": no_pad, "peso_no_futuro": no_futuro, "causal": com_causal, "padding": com_padding,
                "comprimento": L, "html": html}

    return Painel(fig, controles, calcular, titulo="Máscaras: quem pode olhar para quem")


# === 08 · várias cabeças ============================================================================

#: comprimentos de contexto do painel das cabeças (tokens): potências de 2, de 512 a 131072
CONTEXTOS_CABECAS = [2**i for i in range(9, 18)]
#: precisões do painel das cabeças: (rótulo, bytes por número)
PRECISOES_CABECAS = [("fp32", 4), ("fp16", 2), ("int8", 1)]
_NOMES_PRECISAO = {4: "fp32 = 4 bytes", 2: "fp16/bf16 = 2 bytes", 1: "int8 = 1 byte"}


def divisores(n: int) -> list[int]:
    """Os divisores de ``n`` em ordem crescente: as escolhas válidas de ``n_kv_heads`` para ``n_heads = n``."""
    return [d for d in range(1, n + 1) if n % d == 0]


def grupo_kv(n_heads: int, n_kv_heads: int) -> list[int]:
    """``[h // (n_heads // n_kv_heads) for h in range(n_heads)]``: a cabeça de key/value de cada query."""
    grupo = n_heads // n_kv_heads
    return [h // grupo for h in range(n_heads)]


def _escolha_kv(n_kv_antigo: int, n_heads_antigo: int, n_heads: int) -> int:
    """O ``n_kv_heads`` válido mais próximo da escolha anterior quando ``n_heads`` muda.

    MHA continua MHA (``n_kv = n_heads``); senão, o maior divisor de ``n_heads`` que não passa do valor
    anterior (MQA, ``n_kv = 1``, sempre continua MQA).
    """
    if n_kv_antigo == n_heads_antigo:
        return n_heads
    return max(d for d in divisores(n_heads) if d <= n_kv_antigo)


class _PainelCabecas(Painel):
    """Um :class:`Painel` em que as opções de ``n_kv_heads`` acompanham ``n_heads`` (só divisores).

    Quando ``n_heads`` muda, as opções do seletor de ``n_kv_heads`` viram os divisores do novo valor e a
    escolha se ajusta (:func:`_escolha_kv`) antes de uma única atualização; as mudanças intermediárias
    não redesenham nada. Nenhuma combinação inválida chega a ``calcular``.
    """

    _ajustando = False

    def _ajustar_opcoes(self, n_heads_antigo: int) -> None:
        c_h, c_kv = self.controles["n_heads"], self.controles["n_kv_heads"]
        novo = _escolha_kv(int(c_kv.value), n_heads_antigo, int(c_h.value))
        opcoes = divisores(int(c_h.value))
        if list(c_kv.options) != opcoes:
            c_kv.options = opcoes
        c_kv.value = novo

    def _ao_mudar(self, mudanca: Any) -> None:
        if self._ajustando:
            return
        if mudanca is not None and getattr(mudanca, "owner", None) is self.controles["n_heads"]:
            self._ajustando = True
            try:
                self._ajustar_opcoes(int(mudanca.old))
            finally:
                self._ajustando = False
        self.atualizar()

    def definir(self, **valores: Any) -> dict[str, Any]:
        """Como :meth:`Painel.definir`; ``n_heads`` é aplicado primeiro, e um ``n_kv_heads`` que não divide
        ``n_heads`` levanta ``ValueError`` (no painel, só os divisores aparecem)."""
        desconhecidos = [n for n in valores if n not in self.controles]
        if desconhecidos:
            raise ValueError(f"o painel não tem o controle {desconhecidos[0]!r}; os controles são {list(self.controles)}.")
        self._ajustando = True
        try:
            if "n_heads" in valores:
                antigo = int(self.controles["n_heads"].value)
                self.controles["n_heads"].value = valores.pop("n_heads")
                self._ajustar_opcoes(antigo)
            n_kv = valores.get("n_kv_heads")
            if n_kv is not None and n_kv not in self.controles["n_kv_heads"].options:
                n_h = self.controles["n_heads"].value
                raise ValueError(f"n_kv_heads={n_kv} não divide n_heads={n_h}; escolha entre {divisores(n_h)}.")
            for nome, valor in valores.items():
                self.controles[nome].value = valor
        finally:
            self._ajustando = False
        return self.atualizar()


def painel_cabecas(n_heads: int = 32, n_kv_heads: int = 8, n_tokens: int = 4096, bytes_por_valor: int = 2,
                   n_camadas: int = 32, d_model: int = 4096) -> Painel:
    """Cabeças de query, cabeças de key/value (MHA, GQA, MQA) e a memória do KV cache.

    Controles: ``n_heads`` (divisores de ``d_model`` entre 1 e 64, com ``d_head = d_model / n_heads``),
    ``n_kv_heads`` (só os divisores de ``n_heads``), ``n_tokens`` (contexto, de 512 a 131072) e a
    precisão (4, 2 ou 1 byte por número). A figura mostra que query usa que key/value
    (``h // (n_heads // n_kv_heads)``) e a memória do KV cache (:func:`helpers.attention.kv_cache_bytes`,
    ``n_camadas`` camadas, lote 1) da MHA, da escolha atual e da MQA.

    Estado: ``n_heads``, ``n_kv_heads``, ``d_head``, ``grupo`` (queries por key/value), ``tipo``
    (``"MHA"``, ``"GQA"`` ou ``"MQA"``), ``mapa`` (a key/value de cada query), ``n_tokens``,
    ``bytes_por_valor``, ``n_camadas``, ``bytes_escolha``, ``bytes_mha``, ``bytes_mqa``,
    ``bytes_por_token`` (todas as camadas) e ``razao`` (MHA ÷ escolha).
    """
    from .attention import kv_cache_bytes

    opcoes_h = [h for h in divisores(d_model) if h <= 64]
    if n_heads not in opcoes_h:
        raise ValueError(f"n_heads={n_heads} precisa dividir d_model={d_model} (e ser ≤ 64): escolha entre {opcoes_h}.")
    if n_kv_heads not in divisores(n_heads):
        raise ValueError(f"n_kv_heads={n_kv_heads} não divide n_heads={n_heads}; escolha entre {divisores(n_heads)}.")
    if n_tokens not in CONTEXTOS_CABECAS:
        raise ValueError(f"n_tokens precisa ser um de {CONTEXTOS_CABECAS}; recebi {n_tokens!r}.")
    if bytes_por_valor not in [b for _, b in PRECISOES_CABECAS]:
        raise ValueError(f"bytes_por_valor precisa ser 4, 2 ou 1; recebi {bytes_por_valor!r}.")

    fig, axes = plots.nova_figura(9.0, 3.4, ncols=2)
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.06, top=0.86)
    # o diagrama das cabeças fica mais largo que as barras: são até 64 queries lado a lado
    axes[0, 0].set_position((0.09, 0.06, 0.48, 0.80))
    axes[0, 1].set_position((0.685, 0.06, 0.295, 0.80))
    figura = plots.FiguraCabecas(axes[0, 0], axes[0, 1])
    estilo = {"continuous_update": True, "style": {"description_width": "initial"}, "layout": W.Layout(width="360px")}
    controles: dict[str, W.ValueWidget] = {
        "n_heads": W.SelectionSlider(options=opcoes_h, value=n_heads, description="queries (n_heads)", **estilo),
        "n_kv_heads": W.SelectionSlider(options=divisores(n_heads), value=n_kv_heads,
                                        description="keys/values (n_kv_heads)", **estilo),
        "n_tokens": W.SelectionSlider(options=CONTEXTOS_CABECAS, value=n_tokens, description="contexto (tokens)",
                                      **estilo),
        "bytes_por_valor": W.SelectionSlider(options=PRECISOES_CABECAS, value=bytes_por_valor,
                                             description="precisão (por número)", **estilo),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        n_h, n_t, b = int(v["n_heads"]), int(v["n_tokens"]), int(v["bytes_por_valor"])
        n_kv = int(v["n_kv_heads"])
        if n_h % n_kv:  # não acontece pelo painel (as opções são os divisores); por garantia, sem exceção
            n_kv = max(d for d in divisores(n_h) if d <= n_kv)
        d_head = d_model // n_h
        grupo = n_h // n_kv
        tipo = "MHA" if n_kv == n_h else "MQA" if n_kv == 1 else "GQA"
        mapa = grupo_kv(n_h, n_kv)
        b_escolha = kv_cache_bytes(n_t, n_camadas, n_kv, d_head, b)
        b_mha = kv_cache_bytes(n_t, n_camadas, n_h, d_head, b)
        b_mqa = kv_cache_bytes(n_t, n_camadas, 1, d_head, b)
        por_token = b_escolha // n_t
        razao = b_mha / b_escolha
        if tipo == "MHA":
            titulo = "MHA: cada query tem a sua key/value"
        else:
            titulo = f"{tipo}: {grupo} queries por key/value"
        figura.atualizar(mapa, n_kv, b_mha, b_escolha, b_mqa, titulo_grupos=titulo,
                         titulo_memoria=f"KV cache: {n_t} tokens", d_head=d_head)
        if n_kv == 1:
            faixas = f"as {n_h} queries → key/value 0" if n_h > 1 else "query 0 → key/value 0"
        else:
            faixas = "; ".join(
                (f"{g * grupo}–{(g + 1) * grupo - 1} → {g}" if grupo > 1 else f"{g} → {g}") for g in range(min(n_kv, 4))
            ) + ("; …" if n_kv > 4 else "")
        html = _tabela([
            ("d_model = n_heads · d_head", f"{d_model} = {n_h} · {d_head}"),
            ("tipo", f"{tipo}: n_kv_heads = {n_kv}, grupo = n_heads / n_kv_heads = {grupo}"),
            ("query h usa a key/value h // grupo", faixas),
            ("precisão", _NOMES_PRECISAO[b] + " por número"),
            ("memória = 2 · camadas · n_kv_heads · tokens · d_head · bytes",
             f"2 · {n_camadas} · {n_kv} · {n_t} · {d_head} · {b} = {b_escolha:,} bytes = {plots.formatar_bytes(b_escolha)}"
             .replace(",", " ")),
            ("por token (todas as camadas)", plots.formatar_bytes(por_token)),
            ("MHA (n_kv_heads = n_heads)", f"{plots.formatar_bytes(b_mha)} → a escolha usa 1/{razao:g} disso"),
            ("MQA (n_kv_heads = 1)", plots.formatar_bytes(b_mqa)),
        ])
        return {"n_heads": n_h, "n_kv_heads": n_kv, "d_head": d_head, "grupo": grupo, "tipo": tipo, "mapa": mapa,
                "n_tokens": n_t, "bytes_por_valor": b, "n_camadas": n_camadas, "bytes_escolha": b_escolha,
                "bytes_mha": b_mha, "bytes_mqa": b_mqa, "bytes_por_token": por_token, "razao": razao, "html": html}

    return _PainelCabecas(fig, controles, calcular, titulo="Várias cabeças: quem compartilha keys/values e quanto o KV cache ocupa")


# === 09 · custo quadrático ============================================================================

#: os n do painel de custo: potências de dois de 16 a 131072 (128k tokens)
_NS_CUSTO = tuple(2**e for e in range(4, 18))
_BLOCOS_CUSTO = (16, 32, 64, 128, 256, 512)
_METODOS_CUSTO = (("exata", "exata"), ("local", "local"), ("linear", "linear"), ("por blocos", "blocos"))


def _fracao_por_diferenca(resolucao: int, s: int, menor: float, maior: float) -> np.ndarray:
    """Para células ``s × s`` de uma grade ``resolucao × resolucao``: a fração dos pares ``(i, j)`` da
    célula ``(I, J)`` com ``menor <= j − i <= maior``, que só depende de ``δ = J − I``.

    Dentro de uma célula, ``j − i = δ·s + t`` com ``t`` de ``−(s − 1)`` a ``s − 1``, e cada ``t``
    aparece ``s − |t|`` vezes; somas acumuladas dessas contagens dão a fração de cada ``δ`` sem
    percorrer os ``n²`` pares.
    """
    t = np.arange(-(s - 1), s)
    acumulado = np.concatenate(([0.0], np.cumsum(s - np.abs(t), dtype=float)))  # acumulado[k] = Σ dos k primeiros
    delta = np.arange(-(resolucao - 1), resolucao)
    a = np.clip(menor - delta * s, -(s - 1), s)  # o intervalo de t permitido, cortado a [−(s − 1), s − 1]
    b = np.clip(maior - delta * s, -s, s - 1)
    conta = np.where(a <= b, acumulado[(np.maximum(b, a - 1) + s).astype(int)] - acumulado[(a + s - 1).astype(int)], 0.0)
    idx = np.arange(resolucao)
    return (conta / (s * s))[idx[None, :] - idx[:, None] + resolucao - 1]


def padrao_custo(n: int, metodo: str, janela: int, bloco: int, causal: bool, resolucao: int = 128) -> np.ndarray:
    """A imagem ``(R, R)`` dos pares ``(query, key)`` que ``metodo`` calcula, com ``R = min(n, resolucao)``.

    Cada célula resume ``(n/R)²`` pares; o valor é a média de: 1 = calculado e usado, 0.5 = calculado
    e descartado (mascarado), 0 = nem calculado. Com ``n > resolucao``, ``n`` e ``bloco`` precisam ser
    potências de dois (como no painel). ``metodo``: ``"exata"``, ``"local"``, ``"linear"`` ou ``"blocos"``.
    """
    r = min(n, resolucao)
    if n % r:
        raise ValueError(f"n = {n} precisa ser múltiplo de {r} para resumir a matriz em {r} × {r} células.")
    s = n // r
    w = janela
    if metodo == "linear":
        return np.zeros((r, r))
    if metodo == "local":
        if causal:
            return _fracao_por_diferenca(r, s, -w, 0)
        return _fracao_por_diferenca(r, s, -w, w)
    if not causal:
        return np.ones((r, r))
    passado = _fracao_por_diferenca(r, s, -math.inf, 0)  # j <= i: calculado e usado
    if metodo == "exata":
        return passado + 0.5 * (1.0 - passado)  # a exata calcula também o futuro, e o descarta
    if metodo != "blocos":
        raise ValueError(f"método desconhecido: {metodo!r}; use 'exata', 'local', 'linear' ou 'blocos'.")
    b = min(bloco, n)
    if s <= b:  # células menores que os blocos: cada célula cai dentro de um bloco só
        bloco_da_celula = np.arange(r) * s // b
        mesmo_bloco = bloco_da_celula[:, None] == bloco_da_celula[None, :]
        return passado + 0.5 * (1.0 - passado) * mesmo_bloco
    # células maiores que os blocos: só a diagonal tem blocos cortados pela máscara
    k = s // b
    imagem = passado.copy()
    imagem[np.diag_indices(r)] += 0.5 * k * b * (b - 1) / 2 / (s * s)
    return imagem


class _PainelRedesenhaSoOQueMuda(Painel):
    """Um :class:`Painel` que desenha a parte fixa da figura uma vez só (eixos, legendas, grades) e, a
    cada movimento, só os artistas ``dinamicos`` por cima dela (a técnica de *blitting* do matplotlib).

    Os artistas dinâmicos são marcados ``animated``: o desenho completo os pula, e o fundo fica
    guardado. Cada atualização restaura o fundo, desenha os dinâmicos e codifica o PNG — o mesmo
    resultado de redesenhar tudo, em uma fração do tempo.
    """

    def __init__(self, fig: Figure, controles: Mapping[str, W.ValueWidget],
                 calcular: Callable[[dict[str, Any]], dict[str, Any]], titulo: str, dinamicos: list) -> None:
        self._dinamicos = list(dinamicos)
        self._fundo = None
        for artista in self._dinamicos:
            artista.set_animated(True)
        super().__init__(fig, controles, calcular, titulo)

    def atualizar(self) -> dict[str, Any]:
        inicio = time.perf_counter()
        estado = self._calcular(self.valores())
        self.texto.value = estado.get("html", "")
        self.imagem.value = self._png()
        self.estado = estado
        self.ultimo_tempo_ms = (time.perf_counter() - inicio) * 1000
        return estado

    def _png(self) -> bytes:
        import io

        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from PIL import Image as ImagemPIL

        canvas = self.fig.canvas if isinstance(self.fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(self.fig)
        if self._fundo is None:
            canvas.draw()  # tudo menos os artistas animados
            self._fundo = canvas.copy_from_bbox(self.fig.bbox)
        else:
            canvas.restore_region(self._fundo)
        for artista in self._dinamicos:
            self.fig.draw_artist(artista)
        buf = io.BytesIO()
        ImagemPIL.fromarray(np.asarray(canvas.buffer_rgba())).save(buf, format="png", compress_level=1)
        return buf.getvalue()


def _legivel_bytes(b: float) -> str:
    for unidade, escala in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= escala:
            return f"{b / escala:.3g} {unidade}"
    return f"{b:.0f} B"


def _legivel_numero(x: float) -> str:
    for sufixo, escala in ((" tri", 1e12), (" bi", 1e9), (" mi", 1e6), (" mil", 1e3)):
        if x >= escala:
            return f"{x / escala:.3g}{sufixo}"
    return f"{x:.0f}"


def painel_custo(n: int = 1024, janela: int = 16, bloco: int = 128, metodo: str = "local", *,
                 causal: bool = False, d: int = 64) -> Painel:
    """Quanto custa cada método de atenção para ``n`` tokens: o padrão de pares e as contas.

    Controles: ``n`` (potências de dois de 16 a 131072), a janela ``w`` da atenção local (cada lado),
    o tamanho ``B`` do bloco da atenção por blocos, o método mostrado no padrão e a máscara causal.
    À esquerda, os pares ``(query, key)`` que o método calcula (:func:`padrao_custo`); no meio e à
    direita, operações e memória de trabalho (float32) de cada método em função de ``n``
    (de :func:`helpers.efficient.attention_costs`), com o ``n`` atual marcado.
    Estado: ``n``, ``d``, ``janela``, ``bloco``, ``metodo``, ``causal``, ``custos`` (o dicionário de
    ``attention_costs``), ``padrao`` (a imagem), ``fracao_local`` e ``fracao_blocos`` (escores
    calculados / ``n²``).
    """
    from .efficient import attention_costs

    if n not in _NS_CUSTO or bloco not in _BLOCOS_CUSTO:
        raise ValueError(f"n precisa ser uma de {_NS_CUSTO} e bloco um de {_BLOCOS_CUSTO}; recebi n={n}, bloco={bloco}.")
    if metodo not in dict(_METODOS_CUSTO).values():
        raise ValueError(f"método desconhecido: {metodo!r}; use 'exata', 'local', 'linear' ou 'blocos'.")
    fig = Figure(figsize=(9.0, 3.9))
    ax_padrao = fig.add_axes((0.095, 0.17, 0.23, 0.66))
    ax_flops = fig.add_axes((0.415, 0.17, 0.25, 0.66))
    ax_memoria = fig.add_axes((0.735, 0.17, 0.255, 0.66))
    figura = plots.FiguraCusto(ax_padrao, ax_flops, ax_memoria, _NS_CUSTO)
    estilo = {"description_width": "150px"}  # a mesma largura em todas as descrições: sliders alinhados
    largura = W.Layout(width="440px")
    controles: dict[str, W.ValueWidget] = {
        "n": W.SelectionSlider(options=list(_NS_CUSTO), value=n, description="n (tokens)", continuous_update=True,
                               style=estilo, layout=largura),
        "janela": W.IntSlider(value=janela, min=1, max=512, step=1, description="janela w (local)",
                              continuous_update=True, style=estilo, layout=largura),
        "bloco": W.SelectionSlider(options=list(_BLOCOS_CUSTO), value=bloco, description="bloco B (por blocos)",
                                   continuous_update=True, style=estilo, layout=largura),
        "metodo": W.SelectionSlider(options=list(_METODOS_CUSTO), value=metodo, description="padrão mostrado",
                                    continuous_update=True, style=estilo, layout=largura),
        "causal": W.Checkbox(value=causal, description="máscara causal", indent=False, layout=largura),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        n_, w, b, met, cau = int(v["n"]), int(v["janela"]), int(v["bloco"]), v["metodo"], bool(v["causal"])
        custos = attention_costs(n_, d, window=w, block_size=b, causal=cau)
        por_n = [attention_costs(m, d, window=w, block_size=b, causal=cau) for m in _NS_CUSTO]
        curvas = {nome: {"flops": [c[nome]["flops"] for c in por_n], "bytes": [c[nome]["bytes"] for c in por_n]}
                  for nome in custos}
        padrao = padrao_custo(n_, met, w, b, cau)
        b_ef = min(b, n_)
        titulos = {
            "exata": "exata causal: n², ½ descartada" if cau else "exata: todos os n² pares",
            "local": f"local causal: 0 ≤ i − j ≤ {w}" if cau else f"local: |i − j| ≤ {w}",
            "linear": "linear: nenhum par q·k",
            "blocos": f"por blocos: {b_ef} × {b_ef} por vez",
        }
        aviso = "nenhum escore q·k\né calculado: a conta\nguarda só φ(K)ᵀV\n(d × d)" if met == "linear" else ""
        figura.atualizar(n_, padrao, curvas, custos, bloco=b_ef if met == "blocos" else None,
                         titulo=titulos[met], aviso=aviso)
        total = n_ * n_
        linhas = [("", "<b>escores q·k calculados</b>", "<b>operações (FLOPs)</b>", "<b>memória de trabalho (float32)</b>")]
        for nome, rotulo in (("exata", "exata"), ("local", f"local (w = {w})"), ("linear", f"linear (d = {d})"),
                             ("blocos", f"por blocos (B = {b_ef})")):
            c = custos[nome]
            linhas.append((rotulo, f"{c['escores']:,} ({100 * c['escores'] / total:.1f}% de n²)".replace(",", " "),
                           _legivel_numero(c["flops"]), _legivel_bytes(c["bytes"])))
        corpo = "".join("<tr>" + "".join(f"<td style='padding:0 0.8em'>{x}</td>" for x in lin) + "</tr>" for lin in linhas)
        html = (f"<div style='font-size:1.1em'>n = {n_} tokens · d = {d} · "
                f"{'com' if cau else 'sem'} máscara causal · n² = {total:,} pares".replace(",", " ") +
                f"<table>{corpo}</table>"
                "<div style='color:#555;font-size:0.9em'>No padrão, cada célula resume um quadrado de pares (query, "
                "key): amarelo = calculado e usado; verde-azulado = calculado e descartado pela máscara; roxo = nem "
                "calculado. Memória de trabalho: o que a conta guarda ao mesmo tempo além "
                "de q, k, v e da saída — a matriz de pesos (exata), a faixa (local), φ(K)ᵀV e φ(K)ᵀ1 (linear), "
                "um bloco B × B e o máximo e a soma corridos de B queries (por blocos).</div></div>")
        return {"n": n_, "d": d, "janela": w, "bloco": b, "metodo": met, "causal": cau, "custos": custos,
                "padrao": padrao, "fracao_local": custos["local"]["escores"] / total,
                "fracao_blocos": custos["blocos"]["escores"] / total, "html": html}

    return _PainelRedesenhaSoOQueMuda(fig, controles, calcular, "O custo de cada atenção: quais pares são calculados "
                                      "e quanto isso pesa", figura.artistas_dinamicos())


# === 10 · revisão ============================================================================
