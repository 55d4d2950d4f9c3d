"""Notebook ``atencao_aprendida``: o que o modelo acerta e para onde cada cabeça olha — só o que se mede.

Todas as medidas são médias sobre frases novas (geradas com uma semente diferente da do treino):

- :func:`acuracia` — a fração de lacunas com a forma certa;
- :func:`analisar_cabecas` — para cada camada e cabeça, o peso médio da lacuna no sintagma do sujeito,
  no do atrator e no do distrator, e outros comportamentos medidos em *todas* as palavras (olhar a palavra anterior,
  a primeira palavra, a própria palavra, a vírgula); ao lado, o mesmo número para uma atenção
  uniforme, a referência de "não olha para nada em especial";
- :func:`nomear_cabecas` — um nome para cada cabeça cujo número passa de um limiar declarado;
- :func:`desligar_cabeca` e :func:`acuracia_sem_cada_cabeca` — o que o modelo perde sem uma cabeça
  (peso de atenção não é o mesmo que importância); :func:`acuracia_com_media` — a mesma pergunta com outra
  intervenção (a saída da cabeça trocada pela sua média, em vez de zero);
- :func:`acuracia_sem_atualizar` — um teste causal do revezamento: uma posição deixa de receber a
  atualização de uma camada (o que ela "leu" ali some), e medimos a acurácia de novo;
- :func:`medir_dicas_bertviz` — as dicas de quem lê mapas de atenção (estacionar na primeira palavra
  ou na vírgula, camadas de baixo locais), medidas neste modelo, separando a linha da lacuna (a única
  que a perda lê na última camada) das outras.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..._fast import blas_one_thread
from ...attention import merge_heads, scaled_dot_product_attention, split_heads
from ...formato import decimal
from .frases import Frase
from .rede import BaseSemAtencao, ModeloConcordancia, _lote

__all__ = ["MEDIDAS", "LIMIARES", "DICAS", "AnaliseCabecas", "DicasBertViz", "acuracia", "acuracia_com_media",
           "acuracia_sem_atualizar", "acuracia_sem_cada_cabeca", "analisar_cabecas", "desligar_cabeca",
           "medir_dicas_bertviz", "nomear_cabecas", "porcento"]

#: o que :func:`analisar_cabecas` mede, com a explicação de cada número
MEDIDAS: dict[str, str] = {
    "sujeito": "peso da lacuna no sintagma do sujeito (artigo + substantivo)",
    "atrator": "peso da lacuna no sintagma do atrator (artigo + substantivo)",
    "distrator": "peso da lacuna no distrator, 'segundo as vizinhas ,' (só frases que têm um)",
    "lacuna": "peso da lacuna nela mesma",
    "anterior": "peso de cada palavra (da 2ª em diante) na palavra imediatamente anterior",
    "primeira": "peso de cada palavra na primeira palavra da frase",
    "propria": "peso de cada palavra nela mesma",
    "virgula": "peso de cada palavra nas vírgulas (só frases que têm vírgula)",
}

#: quando uma cabeça ganha um nome em :func:`nomear_cabecas` (média de frases novas)
LIMIARES: dict[str, tuple[str, float]] = {
    "anterior": ("olha a palavra anterior", 0.5),
    "primeira": ("estaciona na primeira palavra", 0.5),
    "propria": ("olha a própria palavra", 0.5),
    "virgula": ("estaciona na vírgula", 0.3),
}


def porcento(x: float, casas: int = 1) -> str:
    """Uma fração como porcentagem para a prosa, com vírgula decimal: ``0.682`` → ``"68,2%"``.

    (Um candidato a :mod:`helpers.formato`, onde mora :func:`~helpers.formato.decimal`.)
    """
    return f"{decimal(100 * x, casas)}%"


def acuracia(modelo: ModeloConcordancia | BaseSemAtencao, frases: Sequence[Frase]) -> float:
    """A fração (0..1) de frases em que o modelo escolhe a forma certa do predicado."""
    classes = np.array([f.classe for f in frases])
    return float(np.mean(modelo.prever_lote(frases) == classes))


@dataclass(frozen=True)
class AnaliseCabecas:
    """As medidas de :data:`MEDIDAS`, cada uma um array ``(n_camadas, n_cabecas)``.

    ``medidas[nome]`` é a média no modelo; ``uniforme[nome]``, a mesma média para uma atenção que
    espalha o peso igualmente pelas palavras da frase (``(n_camadas, n_cabecas)`` também, com o mesmo
    valor em todas as cabeças). ``n_frases`` é quantas frases entraram na média.
    """

    medidas: dict[str, NDArray[np.float64]]
    uniforme: dict[str, NDArray[np.float64]]
    n_frases: int

    def tabela(self) -> str:
        """Uma tabela de texto: uma linha por cabeça, uma coluna por medida (uniforme entre parênteses)."""
        nomes = list(MEDIDAS)
        cab = "camada·cabeça " + " ".join(f"{n:>14}" for n in nomes)
        linhas = [cab]
        n_camadas, n_cabecas = self.medidas[nomes[0]].shape
        for c in range(n_camadas):
            for h in range(n_cabecas):
                cels = " ".join(f"{self.medidas[n][c, h]:6.3f} ({self.uniforme[n][c, h]:5.3f})" for n in nomes)
                linhas.append(f"{c}·{h}{'':10} {cels}")
        return "\n".join(linhas)


def _posicoes(frases: Sequence[Frase], n: int, campo: str) -> NDArray[np.bool_]:
    """``(B, n)``: ``True`` nas posições de ``campo`` (``"posicoes_sujeito"``…) de cada frase."""
    m = np.zeros((len(frases), n), dtype=bool)
    for b, f in enumerate(frases):
        m[b, getattr(f, campo)] = True
    return m


def _linha_da_lacuna(pesos: np.ndarray, alvo: np.ndarray) -> np.ndarray:
    """``(B, L, H, n)``: a linha da lacuna de cada frase."""
    return np.take_along_axis(pesos, alvo[:, None, None, None, None], axis=3)[:, :, :, 0, :]


def _media_nas_linhas(valores: np.ndarray, validas: np.ndarray) -> np.ndarray:
    """``(B, L, H)``: a média de ``valores`` ``(B, L, H, m)`` nas posições ``validas`` ``(B, m)``."""
    return (valores * validas[:, None, None, :]).sum(axis=-1) / validas.sum(axis=-1)[:, None, None]


def _medidas(pesos: np.ndarray, frases: Sequence[Frase]) -> dict[str, NDArray[np.float64]]:
    """As médias de :data:`MEDIDAS` para ``pesos`` ``(B, L, H, n, n)`` (enchimento com peso 0), de uma vez
    para o lote inteiro (cada frase conta igual, seja qual for o comprimento)."""
    B, n = pesos.shape[0], pesos.shape[-1]
    comprimento = np.array([len(f.tokens) for f in frases])
    validas = np.arange(n)[None, :] < comprimento[:, None]  # (B, n)
    lacuna = _linha_da_lacuna(pesos, np.array([f.posicao_alvo for f in frases]))  # (B, L, H, n)
    virgulas = np.array([[t == "," for t in f.tokens] + [False] * (n - len(f.tokens)) for f in frases])

    def no_sintagma(campo: str, linhas: np.ndarray) -> np.ndarray:
        return (linhas * _posicoes(frases, n, campo)[:, None, None, :]).sum(axis=-1)  # (B, L, H)

    por_frase = {
        "sujeito": no_sintagma("posicoes_sujeito", lacuna),
        "atrator": no_sintagma("posicoes_atrator", lacuna),
        "distrator": no_sintagma("posicoes_distrator", lacuna),
        "lacuna": np.take_along_axis(lacuna, (comprimento - 1)[:, None, None, None], axis=-1)[..., 0],
        # diagonal logo abaixo da principal: a entrada k é o peso da palavra k + 1 na palavra k
        "anterior": _media_nas_linhas(np.diagonal(pesos, offset=-1, axis1=3, axis2=4), validas[:, 1:]),
        "primeira": _media_nas_linhas(pesos[..., 0], validas),
        "propria": _media_nas_linhas(np.diagonal(pesos, axis1=3, axis2=4), validas),
        "virgula": _media_nas_linhas((pesos * virgulas[:, None, None, None, :]).sum(axis=-1), validas),
    }
    quais = {"distrator": np.array([bool(f.posicoes_distrator) for f in frases]), "virgula": virgulas.any(axis=-1)}
    medias = {}
    for nome in MEDIDAS:
        sel = quais.get(nome, np.ones(B, dtype=bool))
        medias[nome] = por_frase[nome][sel].mean(axis=0) if sel.any() else np.zeros(pesos.shape[1:3])
    return medias


def _uniforme(frases: Sequence[Frase], forma: tuple[int, int]) -> dict[str, NDArray[np.float64]]:
    """As medidas de uma atenção uniforme (cada palavra espalha o peso igualmente pela frase), com o mesmo
    valor em cada uma das ``forma`` = ``(n_camadas, n_cabecas)`` cabeças."""
    n = max(len(f.tokens) for f in frases)
    w = np.zeros((len(frases), 1, 1, n, n))
    for b, f in enumerate(frases):
        m = len(f.tokens)
        w[b, :, :, :m, :m] = 1.0 / m
    return {nome: np.broadcast_to(valor, forma).copy() for nome, valor in _medidas(w, frases).items()}


def analisar_cabecas(modelo: ModeloConcordancia, frases: Sequence[Frase]) -> AnaliseCabecas:
    """Mede, para cada camada e cabeça, as médias de :data:`MEDIDAS` em ``frases``."""
    if not len(frases):
        raise ValueError("analisar_cabecas precisa de pelo menos uma frase.")
    pesos = modelo.atencao_lote(frases)  # (B, L, H, n, n)
    forma = (modelo.n_camadas, modelo.n_cabecas)
    return AnaliseCabecas(_medidas(pesos, frases), _uniforme(frases, forma), len(frases))


def nomear_cabecas(analise: AnaliseCabecas, *, sujeito_min: float = 0.5,
                   atrator_max: float = 0.2) -> dict[tuple[int, int], list[str]]:
    """Os nomes que cada cabeça ``(camada, cabeça)`` merece pelas medidas (lista vazia: nenhum).

    "faz a concordância" se a lacuna põe em média ``>= sujeito_min`` no sujeito e ``<= atrator_max`` no
    atrator; os outros nomes seguem :data:`LIMIARES`.
    """
    m = analise.medidas
    nomes: dict[tuple[int, int], list[str]] = {}
    n_camadas, n_cabecas = m["sujeito"].shape
    for c in range(n_camadas):
        for h in range(n_cabecas):
            lista = []
            if m["sujeito"][c, h] >= sujeito_min and m["atrator"][c, h] <= atrator_max:
                lista.append("faz a concordância (olha o sujeito, não o atrator)")
            for medida, (nome, limiar) in LIMIARES.items():
                if m[medida][c, h] >= limiar:
                    lista.append(nome)
            nomes[(c, h)] = lista
    return nomes


# ---------------------------------------------------------------------------------------------
# Peso não é importância: desligar uma cabeça
# ---------------------------------------------------------------------------------------------


def desligar_cabeca(modelo: ModeloConcordancia, camada: int, cabeca: int) -> ModeloConcordancia:
    """Uma cópia do modelo em que a cabeça ``(camada, cabeca)`` não contribui: a saída dela é zerada
    antes de ``W_o`` (as linhas ``cabeca·d_head … (cabeca+1)·d_head − 1`` de ``W_o`` viram 0). As outras
    cabeças, e os pesos de atenção de todas, continuam iguais; o modelo original não muda."""
    if not (0 <= camada < modelo.n_camadas and 0 <= cabeca < modelo.n_cabecas):
        raise ValueError(f"o modelo tem camadas 0..{modelo.n_camadas - 1} e cabeças 0..{modelo.n_cabecas - 1}; "
                         f"recebi camada={camada!r}, cabeca={cabeca!r}.")
    d_head = modelo.receita.d_model // modelo.n_cabecas
    p = {nome: a.copy() for nome, a in modelo.parametros.items()}
    p[f"w_o{camada}"][cabeca * d_head:(cabeca + 1) * d_head, :] = 0.0
    return ModeloConcordancia(p, modelo.receita)


def acuracia_sem_cada_cabeca(modelo: ModeloConcordancia, frases: Sequence[Frase]) -> NDArray[np.float64]:
    """``(n_camadas, n_cabecas)``: a acurácia em ``frases`` com cada cabeça desligada, uma de cada vez."""
    return np.array([[acuracia(desligar_cabeca(modelo, c, h), frases) for h in range(modelo.n_cabecas)]
                     for c in range(modelo.n_camadas)])


# ---------------------------------------------------------------------------------------------
# Outras intervenções: a cabeça na média, uma posição sem a atualização de uma camada
# ---------------------------------------------------------------------------------------------


def _confere_camada(modelo: ModeloConcordancia, camada: int, nome: str, limite: int, outro: int) -> None:
    if limite <= 0:
        raise ValueError("a intervenção precisa de pelo menos uma frase.")
    if not (0 <= camada < modelo.n_camadas and 0 <= outro < limite):
        raise ValueError(f"o modelo tem camadas 0..{modelo.n_camadas - 1} e {nome} 0..{limite - 1}; recebi "
                         f"camada={camada!r}, {nome}={outro!r}.")


def _logits_intervindo(modelo: ModeloConcordancia, frases: Sequence[Frase], *,
                       cabeca: tuple[int, int, np.ndarray] | None = None,
                       sem_atualizar: tuple[int, int] | None = None) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """A conta de ida do modelo (a propagação para a frente), camada por camada, com uma intervenção opcional.

    - ``cabeca = (l, h, vetor)``: a saída da cabeça ``h`` da camada ``l`` (antes de ``W_o``) vira ``vetor``
      ``(d_head,)`` em todas as posições;
    - ``sem_atualizar = (l, j)``: a posição ``j`` não recebe a atualização da camada ``l``
      (``x_{l+1}[j] = x_l[j]``: o que ela leria nessa camada some; as outras posições não mudam).

    Devolve os logits ``(B, 4)``, a saída das cabeças de cada camada (``(B, H, n, d_head)``, sem a
    intervenção) e a posição da lacuna de cada frase ``(B,)``. Sem intervenção, é a conta de
    :meth:`ModeloConcordancia.logits_lote`.
    """
    p, H = modelo.parametros, modelo.n_cabecas
    lote = _lote(frases)
    n = lote.ids.shape[1]
    x = p["embedding"][lote.ids] + p["posicao"][:n]  # (B, n, d)
    mascara = lote.mascara[:, None, None, :]  # (B, 1, 1, n): ninguém olha o enchimento
    saidas = []
    with blas_one_thread():
        for camada in range(modelo.n_camadas):
            qh, kh, vh = (split_heads(x @ p[f"{w}{camada}"], H) for w in ("w_q", "w_k", "w_v"))  # (B, H, n, d_head)
            cabecas, _ = scaled_dot_product_attention(qh, kh, vh, mascara)  # (B, H, n, d_head)
            saidas.append(cabecas.copy())
            if cabeca is not None and cabeca[0] == camada:
                cabecas[:, cabeca[1]] = cabeca[2]
            a = merge_heads(cabecas) @ p[f"w_o{camada}"]  # (B, n, d)
            if sem_atualizar is not None and sem_atualizar[0] == camada:
                a[:, sem_atualizar[1]] = 0.0
            x = x + a if modelo.receita.residual else a
    lacuna = x[np.arange(len(frases)), lote.posicao_alvo]  # (B, d)
    return lacuna @ p["w_saida"] + p["b_saida"], saidas, lote.posicao_alvo


def _acerto(logits: np.ndarray, frases: Sequence[Frase]) -> float:
    return float(np.mean(np.argmax(logits, axis=-1) == np.array([f.classe for f in frases])))


def acuracia_com_media(modelo: ModeloConcordancia, frases: Sequence[Frase], camada: int, cabeca: int) -> float:
    """A acurácia em ``frases`` com a saída da cabeça ``(camada, cabeca)`` trocada, em todas as posições, pela
    **média** da saída dela nas linhas da lacuna dessas mesmas frases (antes de ``W_o``).

    É outra forma de "desligar" (a *mean ablation*): zerar (:func:`desligar_cabeca`) põe na camada seguinte um
    vetor que o modelo nunca viu no treino; a média tira só o que a cabeça diz de **cada** frase, e deixa o
    que ela diz igual em todas.
    """
    _confere_camada(modelo, camada, "cabeças", modelo.n_cabecas if len(frases) else 0, cabeca)
    _, saidas, alvo = _logits_intervindo(modelo, frases)
    media = saidas[camada][np.arange(len(frases)), cabeca, alvo].mean(axis=0)  # (d_head,)
    logits, _, _ = _logits_intervindo(modelo, frases, cabeca=(camada, cabeca, media))
    return _acerto(logits, frases)


def acuracia_sem_atualizar(modelo: ModeloConcordancia, frases: Sequence[Frase], camada: int, posicao: int) -> float:
    """A acurácia em ``frases`` quando a posição ``posicao`` não recebe a atualização da camada ``camada``
    (o vetor dela segue para a camada seguinte como entrou: o que ela leu nessa camada some).

    Um teste causal: se a lacuna lê o sujeito **através** dessa posição (um revezamento), a acurácia cai; se
    não, ela não muda.
    """
    _confere_camada(modelo, camada, "posições", min((len(f.tokens) for f in frases), default=0), posicao)
    logits, _, _ = _logits_intervindo(modelo, frases, sem_atualizar=(camada, posicao))
    return _acerto(logits, frases)


# ---------------------------------------------------------------------------------------------
# As dicas de quem lê mapas de atenção, medidas
# ---------------------------------------------------------------------------------------------

#: o que :func:`medir_dicas_bertviz` mede (cada número é uma média sobre frases novas)
DICAS: dict[str, str] = {
    "primeira_lacuna": "peso da lacuna na 1ª palavra (frases em que ela não é do sujeito)",
    "primeira_outras": "peso das outras palavras na 1ª palavra (mesmas frases)",
    "virgula_lacuna": "peso da lacuna nas vírgulas (frases com vírgula)",
    "virgula_outras": "peso das outras palavras nas vírgulas (frases com vírgula)",
    "anterior": "peso de cada palavra (da 2ª em diante) na anterior",
    "entropia_lacuna": "entropia da linha da lacuna ÷ ln n (1 = espalhada por igual, 0 = numa palavra só)",
}


@dataclass(frozen=True)
class DicasBertViz:
    """As medidas de :data:`DICAS`, cada uma ``(n_camadas, n_cabecas)``, e o mesmo número para a
    atenção uniforme (``uniforme``); ``n_frases`` é quantas frases entraram."""

    medidas: dict[str, NDArray[np.float64]]
    uniforme: dict[str, float]
    n_frases: int


def _entropia_relativa(linha: np.ndarray) -> np.ndarray:
    """``H(linha) / ln n`` para linhas ``(..., n)`` que somam 1 (``0·ln 0 = 0``)."""
    n = linha.shape[-1]
    termos = np.where(linha > 0, linha * np.log(np.where(linha > 0, linha, 1.0)), 0.0)
    return -termos.sum(axis=-1) / np.log(n)


def medir_dicas_bertviz(modelo: ModeloConcordancia, frases: Sequence[Frase]) -> DicasBertViz:
    """Mede, em cada cabeça, as dicas de :data:`DICAS`.

    A linha da lacuna e as outras linhas ficam separadas de propósito: na última camada, só a saída da
    lacuna chega à leitura, então as outras linhas dessa camada não recebem gradiente nenhum — são as
    que "não têm o que fazer". "Primeira palavra" só conta as frases em que a 1ª palavra não é o artigo
    do sujeito (senão olhar o sujeito pareceria olhar a 1ª palavra).
    """
    if not len(frases):
        raise ValueError("medir_dicas_bertviz precisa de pelo menos uma frase.")
    pesos = modelo.atencao_lote(frases)  # (B, L, H, n, n)
    n = pesos.shape[-1]
    comprimento = np.array([len(f.tokens) for f in frases])
    alvo = comprimento - 1
    outras = np.arange(n)[None, :] < alvo[:, None]  # (B, n): as linhas antes da lacuna
    validas = np.arange(n)[None, :] < comprimento[:, None]
    virgulas = np.array([[t == "," for t in f.tokens] + [False] * (n - len(f.tokens)) for f in frases])
    n_virgulas = virgulas.sum(axis=-1)
    lacuna = _linha_da_lacuna(pesos, alvo)  # (B, L, H, n)
    nas_virgulas = (pesos * virgulas[:, None, None, None, :]).sum(axis=-1)  # (B, L, H, n): cada linha
    primeira_fora = np.array([0 not in f.posicoes_sujeito for f in frases])
    com_virgula = n_virgulas > 0
    por_frase = {  # nome: (valor por frase (B, L, H), valor uniforme por frase (B,), quais frases contam)
        "primeira_lacuna": (lacuna[..., 0], 1 / comprimento, primeira_fora),
        "primeira_outras": (_media_nas_linhas(pesos[..., 0], outras), 1 / comprimento, primeira_fora),
        "virgula_lacuna": ((lacuna * virgulas[:, None, None, :]).sum(axis=-1), n_virgulas / comprimento,
                           com_virgula),
        "virgula_outras": (_media_nas_linhas(nas_virgulas, outras), n_virgulas / comprimento, com_virgula),
        "anterior": (_media_nas_linhas(np.diagonal(pesos, offset=-1, axis1=3, axis2=4), validas[:, 1:]),
                     1 / comprimento, np.ones(len(frases), dtype=bool)),
        "entropia_lacuna": (_entropia_relativa(lacuna) * np.log(n) / np.log(comprimento)[:, None, None],
                            np.ones(len(frases)), np.ones(len(frases), dtype=bool)),
    }
    medidas, uniforme = {}, {}
    for nome, (valor, ref, sel) in por_frase.items():
        medidas[nome] = valor[sel].mean(axis=0) if sel.any() else np.zeros(pesos.shape[1:3])
        uniforme[nome] = float(ref[sel].mean()) if sel.any() else 0.0
    return DicasBertViz(medidas, uniforme, len(frases))
