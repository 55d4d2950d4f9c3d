"""Notebook ``atencao_aprendida``: as previsões — o estudante escreve a aposta numa variável antes de rodar a
célula que revela a resposta, medida no modelo de ``data/`` em 1000 frases novas: em que camada está a
cabeça da concordância, e o que acontece com a acurácia ao desligar a outra cabeça da última camada.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...corretor import Erro, Formato, Previsao, RespostaInvalida, conferir_previsao, corretor_de
from ...formato import decimal
from .analise import AnaliseCabecas, acuracia, analisar_cabecas, desligar_cabeca
from .frases import gerar_frases

__all__ = ["CABECA_DESLIGADA", "PREVISAO_CAMADA", "PREVISAO_DESLIGAR", "check_previsao_camada",
           "check_previsao_desligar"]


#: as frases novas das medidas do notebook (o treino usa a semente 1)
SEMENTE_AVALIACAO = 2024
N_AVALIACAO = 1000


@functools.lru_cache(maxsize=1)
def _medidas_do_modelo() -> dict[str, Any]:
    """O modelo de ``data/`` medido em 1000 frases novas: a análise das cabeças."""
    from .arquivo import carregar_modelo

    modelo = carregar_modelo()
    frases = gerar_frases(N_AVALIACAO, semente=SEMENTE_AVALIACAO)
    return {"modelo": modelo, "frases": frases, "analise": analisar_cabecas(modelo, frases)}


#: a cabeça que o Exercício 3 desliga: a outra cabeça da última camada (a 1·1 é a da concordância)
CABECA_DESLIGADA = (1, 0)


@functools.lru_cache(maxsize=1)
def _desligada() -> dict[str, Any]:
    """A acurácia com todas as cabeças e sem :data:`CABECA_DESLIGADA` (1000 frases novas)."""
    from .arquivo import carregar_modelo

    modelo = carregar_modelo()
    frases = gerar_frases(N_AVALIACAO, semente=SEMENTE_AVALIACAO)
    return {"acuracia": acuracia(modelo, frases), "sem": acuracia(desligar_cabeca(modelo, *CABECA_DESLIGADA), frases)}


def _inteiros(texto: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", texto)]


@dataclass(frozen=True)
class _Camada(Formato):
    """Uma camada: ``1``, ``"1"``, ``"camada 1"``; uma cabeça como ``"1·0"`` ou ``(1, 0)`` vale pela camada."""

    def normalizar(self, y: Any) -> int:
        if isinstance(y, bool):
            raise RespostaInvalida("a resposta é o número de uma camada (0 ou 1); veio um booleano")
        if isinstance(y, (tuple, list)) and y:
            y = y[0]
        if isinstance(y, (int, np.integer)):
            return int(y)
        if isinstance(y, float) and y.is_integer():
            return int(y)
        if isinstance(y, str) and _inteiros(y):
            return _inteiros(y)[0]
        raise RespostaInvalida(f"a resposta é o número de uma camada, como 0 ou 1; veio {y!r}")

    def igual(self, a: int, b: int) -> bool:
        return a == b

    def mostrar(self, x: int) -> str:
        return f"a camada {x}"


PREVISAO_CAMADA = Previsao(
    nome="em que camada está a cabeça da concordância",
    certo=lambda: _camada_da_concordancia(_medidas_do_modelo()["analise"]),
    revelar="(Os números estão logo abaixo.)",
    formato=_Camada(),
    erros=[
        Erro("a primeira camada",
             "Na camada 0, o vetor de cada palavra é só ela mesma mais a sua posição: o «os» do sujeito e o «os» do "
             "atrator têm o mesmo embedding de palavra. A posição ajuda um pouco (o sujeito vem antes do atrator), e "
             "as cabeças da camada 0 olham para o sujeito acima do uniforme — mas a posição dele muda de frase para "
             "frase, e para ter certeza é preciso contexto, que só existe depois de uma camada de mistura. A cabeça "
             "nítida está na camada 1.",
             resposta=lambda: 0),
    ],
)


def _revelar_camada(m: AnaliseCabecas) -> str:
    suj, atr = m.medidas["sujeito"], m.medidas["atrator"]
    linhas = [f"cabeça {c}·{h}: {decimal(suj[c, h])} no sujeito, {decimal(atr[c, h])} no atrator"
              for c in range(suj.shape[0]) for h in range(suj.shape[1])]
    return ("Peso médio que a lacuna põe em cada sintagma, em 1000 frases novas (atenção uniforme: "
            f"{decimal(m.uniforme['sujeito'][0, 0])}): " + "; ".join(linhas) + ".")


def _camada_da_concordancia(m: AnaliseCabecas) -> int:
    suj = m.medidas["sujeito"]
    return int(np.unravel_index(int(np.argmax(suj)), suj.shape)[0])


@corretor_de(PREVISAO_CAMADA)
def check_previsao_camada(previsao: Any, analise: AnaliseCabecas | None = None) -> bool:
    """Revela em que camada está a cabeça que mais olha da lacuna para o sujeito e compara com ``previsao``
    (``0``, ``1``, ``"camada 1"``…; ``None`` só revela). ``analise``: a de :func:`analisar_cabecas` já
    feita no notebook (padrão: o modelo de ``data/`` medido aqui, em 1000 frases novas)."""
    analise = _medidas_do_modelo()["analise"] if analise is None else analise
    return conferir_previsao(replace(PREVISAO_CAMADA, certo=_camada_da_concordancia(analise),
                                     revelar=_revelar_camada(analise)), previsao)


@dataclass(frozen=True)
class _Letra(Formato):
    """Uma alternativa: ``"c"``, ``"C"``, ``"(c)"``, ``"letra c"``."""

    opcoes: str = "abc"

    def normalizar(self, y: Any) -> str:
        if not isinstance(y, str):
            raise RespostaInvalida(f"a resposta é uma letra entre aspas, {', '.join(repr(o) for o in self.opcoes)}; "
                                   f"veio {type(y).__name__}")
        letras = [c for c in re.sub(r"\bletra\b", "", y.lower()) if c.isalpha()]
        if len(letras) != 1 or letras[0] not in self.opcoes:
            raise RespostaInvalida(f"a resposta é uma letra só, {', '.join(repr(o) for o in self.opcoes)}; veio {y!r}")
        return letras[0]

    def igual(self, a: str, b: str) -> bool:
        return a == b

    def mostrar(self, x: str) -> str:
        return f"({x})"


def _letra_desligar() -> str:
    acc = _desligada()["sem"]
    return "a" if acc < 0.5 else ("b" if acc < 0.95 else "c")


PREVISAO_DESLIGAR = Previsao(
    nome="desligar a outra cabeça da última camada",
    certo=_letra_desligar,
    revelar="(A tabela de todas as cabeças está logo abaixo.)",
    formato=_Letra(),
    erros=[
        Erro("peso alto = indispensável",
             "Essa é a leitura ingênua de um mapa de atenção: um peso alto no lugar certo não quer dizer que a cabeça "
             "seja necessária. Outra cabeça da mesma camada faz o mesmo trabalho, com mais foco, e o modelo passa "
             "muito bem sem esta.",
             resposta=lambda: "a"),
        Erro("cai um pouco",
             "Pareceria razoável — ela olha bastante para o sujeito —, mas o que se mede é que quase nada muda: a "
             "informação do sujeito chega à lacuna pela outra cabeça da última camada.",
             resposta=lambda: "b"),
    ],
)


def _revelar_desligar() -> str:
    med = _desligada()
    c, h = CABECA_DESLIGADA
    efeito = "quase não muda nada" if med["sem"] >= 0.95 else "faz falta"
    return (f"Em 1000 frases novas: {decimal(100 * med['acuracia'], 1)}% com todas as cabeças e "
            f"{decimal(100 * med['sem'], 1)}% sem a cabeça {c}·{h}. Desligá-la {efeito}: a informação do sujeito "
            "chega à lacuna pela outra cabeça da mesma camada.")


@corretor_de(PREVISAO_DESLIGAR)
def check_previsao_desligar(previsao: Any) -> bool:
    """Revela o que acontece com a acurácia do modelo de ``data/`` (1000 frases novas) quando se desliga a
    cabeça 1·0 (:data:`CABECA_DESLIGADA`, a que **não** é a da concordância na última camada) — (a) abaixo
    de 50%, (b) entre 50% e 95%, (c) 95% ou mais — e compara com ``previsao`` (``"a"``, ``"b"`` ou ``"c"``;
    ``None`` só revela)."""
    return conferir_previsao(replace(PREVISAO_DESLIGAR, revelar=_revelar_desligar()), previsao)
