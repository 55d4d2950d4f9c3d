"""Notebook ``atencao_aprendida``: o que o modelo acerta e para onde cada cabeça olha — só o que se mede.

Todas as medidas são médias sobre frases novas (geradas com uma semente diferente da do treino):

- :func:`acuracia` — a fração de lacunas com a forma certa;
- :func:`analisar_cabecas` — para cada camada e cabeça, o peso médio da lacuna no sintagma do sujeito,
  no do atrator e no da abertura nominal, e outros comportamentos medidos em *todas* as palavras (olhar a palavra anterior,
  a primeira palavra, a própria palavra, a vírgula); ao lado, o mesmo número para uma atenção
  uniforme, a referência de "não olha para nada em especial";
- :func:`nomear_cabecas` — um nome para cada cabeça cujo número passa de um limiar declarado;
- :func:`desligar_cabeca` e :func:`acuracia_sem_cada_cabeca` — o que o modelo perde sem uma cabeça
  (peso de atenção não é o mesmo que importância);
- :func:`medir_dicas_bertviz` — as dicas de quem lê mapas de atenção (estacionar na primeira palavra
  ou na vírgula, camadas de baixo locais), medidas neste modelo, separando a linha da lacuna (a única
  que a perda lê na última camada) das outras.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .frases import Frase
from .rede import BaseSemAtencao, ModeloConcordancia

__all__ = ["MEDIDAS", "LIMIARES", "DICAS", "AnaliseCabecas", "DicasBertViz", "acuracia", "acuracia_sem_cada_cabeca",
           "analisar_cabecas", "desligar_cabeca", "medir_dicas_bertviz", "nomear_cabecas"]

#: o que :func:`analisar_cabecas` mede, com a explicação de cada número
MEDIDAS: dict[str, str] = {
    "sujeito": "peso da lacuna no sintagma do sujeito (artigo + substantivo)",
    "atrator": "peso da lacuna no sintagma do atrator (artigo + substantivo)",
    "distrator": "peso da lacuna na abertura nominal, 'segundo as vizinhas ,' (só frases que abrem assim)",
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


def _medidas(pesos: np.ndarray, frases: Sequence[Frase]) -> dict[str, NDArray[np.float64]]:
    """As médias de :data:`MEDIDAS` para ``pesos`` ``(B, L, H, n, n)`` (enchimento com peso 0)."""
    soma = {nome: np.zeros(pesos.shape[1:3]) for nome in MEDIDAS}
    conta = dict.fromkeys(MEDIDAS, 0)
    for b, f in enumerate(frases):
        w = pesos[b]  # (L, H, n, n)
        n = len(f.tokens)
        i = f.posicao_alvo
        soma["sujeito"] += w[:, :, i, f.posicoes_sujeito].sum(axis=-1)
        soma["atrator"] += w[:, :, i, f.posicoes_atrator].sum(axis=-1)
        soma["lacuna"] += w[:, :, i, i]
        linhas = np.arange(1, n)
        soma["anterior"] += w[:, :, linhas, linhas - 1].mean(axis=-1)
        soma["primeira"] += w[:, :, :n, 0].mean(axis=-1)
        soma["propria"] += w[:, :, np.arange(n), np.arange(n)].mean(axis=-1)
        for nome in ("sujeito", "atrator", "lacuna", "anterior", "primeira", "propria"):
            conta[nome] += 1
        if f.posicoes_distrator:
            soma["distrator"] += w[:, :, i, f.posicoes_distrator].sum(axis=-1)
            conta["distrator"] += 1
        virgulas = [j for j, t in enumerate(f.tokens) if t == ","]
        if virgulas:
            soma["virgula"] += w[:, :, :n, virgulas].sum(axis=-1).mean(axis=-1)
            conta["virgula"] += 1
    return {nome: soma[nome] / max(conta[nome], 1) for nome in MEDIDAS}


def _uniforme(frases: Sequence[Frase], forma: tuple[int, int]) -> np.ndarray:
    """Pesos uniformes ``(B, L, H, n, n)``: cada palavra espalha o peso igualmente pela frase."""
    n = max(len(f.tokens) for f in frases)
    w = np.zeros((len(frases), *forma, n, n))
    for b, f in enumerate(frases):
        m = len(f.tokens)
        w[b, :, :, :m, :m] = 1.0 / m
    return w


def analisar_cabecas(modelo: ModeloConcordancia, frases: Sequence[Frase]) -> AnaliseCabecas:
    """Mede, para cada camada e cabeça, as médias de :data:`MEDIDAS` em ``frases``."""
    if not len(frases):
        raise ValueError("analisar_cabecas precisa de pelo menos uma frase.")
    pesos = modelo.atencao_lote(frases)  # (B, L, H, n, n)
    forma = (modelo.n_camadas, modelo.n_cabecas)
    return AnaliseCabecas(_medidas(pesos, frases), _medidas(_uniforme(frases, forma), frases), len(frases))


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
    soma = {nome: np.zeros(pesos.shape[1:3]) for nome in DICAS}
    ref = dict.fromkeys(DICAS, 0.0)
    conta = dict.fromkeys(DICAS, 0)

    def somar(nome: str, valor: np.ndarray, uniforme: float) -> None:
        soma[nome] += valor
        ref[nome] += uniforme
        conta[nome] += 1

    for b, f in enumerate(frases):
        n, i = len(f.tokens), f.posicao_alvo
        w = pesos[b, :, :, :n, :n]  # (L, H, n, n)
        if 0 not in f.posicoes_sujeito:
            somar("primeira_lacuna", w[:, :, i, 0], 1 / n)
            somar("primeira_outras", w[:, :, :i, 0].mean(axis=-1), 1 / n)
        virgulas = [j for j, t in enumerate(f.tokens) if t == ","]
        if virgulas:
            somar("virgula_lacuna", w[:, :, i, virgulas].sum(axis=-1), len(virgulas) / n)
            somar("virgula_outras", w[:, :, :i][..., virgulas].sum(axis=-1).mean(axis=-1), len(virgulas) / n)
        somar("anterior", w[:, :, np.arange(1, n), np.arange(n - 1)].mean(axis=-1), 1 / n)
        somar("entropia_lacuna", _entropia_relativa(w[:, :, i, :]), 1.0)
    return DicasBertViz({nome: soma[nome] / max(conta[nome], 1) for nome in DICAS},
                        {nome: ref[nome] / max(conta[nome], 1) for nome in DICAS}, len(frases))
